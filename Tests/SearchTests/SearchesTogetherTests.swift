// SearchesTogetherTests.swift — several sets' searches run as one product (SearchesTogether.swift):
// each set is told the patterns its own run tells, those of the whole runs the product leaves
// (an anchored program beside a search) included, and the steps its run takes alone.

import Testing
import Automata
import Bytecode
@testable import Search
import URLFilterSyntax

@Suite struct SearchesTogetherTests {
    @Test func eachSetIsToldWhatItsRunAloneTells() throws {
        var random = UInt64(7)
        func next(_ bound: Int) -> Int {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return Int((random >> 33) % UInt64(bound))
        }
        func word() -> String { String(decoding: (0..<10).map { _ in UInt8(0x61 + next(20)) }, as: UTF8.self) }
        func program(_ sources: [String]) throws -> Program {
            let patterns = sources.enumerated().map { index, source -> (id: PatternID, filter: URLFilter) in
                guard case .success(let filter) = URLFilterParser.parse(source) else { preconditionFailure(source) }
                return (PatternID(index), filter)
            }
            return Program(Minimizer.minimize(try SubsetConstruction.determinize(NFA(patterns: patterns))))
        }
        // (Searches too large for an anchored program to be multiplied into within their set.)
        let (wordsA, wordsB) = ((0..<1_500).map { _ in word() }, (0..<1_500).map { _ in word() })
        let sets = [
            ProgramSet(programs: [try program(["^ab", "^a[bc]d.*x"]), try program(wordsA)]),
            ProgramSet(programs: [try program(wordsB + ["ab"])]),
            ProgramSet(programs: [try program(["^zz", "^a"])]),
        ].map { $0.prepared() }
        let together = try #require(ProgramSet.SearchesTogether(sets, domainsLookedUp: [false, false, false]))
        #expect(together.covered == [0b10, 0b1, 0], "each set's search, not its anchored programs")
        let urls = ["abd", "acdqx", "ab", "zz", "a"] + wordsA.prefix(10).map { "abd" + $0 + "x" } + wordsB.prefix(10).map { "q" + $0 }
            + wordsA.suffix(5).map { "zz" + $0 + wordsB[0] } + ["ab\u{E9}" + wordsA[1]]
        for url in urls {
            let bytes = Array(url.utf8)
            var told = [Set<UInt32>](repeating: [], count: sets.count)
            var steps = [Int](repeating: -1, count: sets.count)
            bytes.withUnsafeBufferPointer { url in
                together.run(url, labels: nil, steps: &steps) { set, pattern, _, _ in told[set].insert(pattern) } domainFound: { _, _, _ in }
            }
            for set in sets.indices where together.covered[set] != 0 {
                var alone = Set<UInt32>()
                var ends: [Int] = []
                let (stepsAlone, _) = bytes.withUnsafeBufferPointer { url in sets[set].run(url, ends: &ends) { alone.insert($0) } }
                #expect(told[set] == alone, "set \(set): \(url)")
                #expect(steps[set] == stepsAlone, "set \(set)'s steps: \(url)")
            }
        }
    }
}
