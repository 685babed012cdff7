// DenseProductTests.swift — the product of two programs (DenseProduct.swift) reports what both
// report, after the same bytes, on programs of every kind (tries, anchored patterns that stop
// early, loops, end anchors) over URLs with NULs and bytes from 128 on; two Aho-Corasick
// automata's product is about as large as both; and a set's whole programs are multiplied only
// where both are search automata; a run pairs whole entries where their views share a table.

import Testing
import Automata
import Bytecode
@testable import Search
import URLFilterSyntax
import TestSupport

private func decoded(_ program: Program) throws -> DenseTable.Decoded {
    try #require(DenseTable.decode(program, maximumStates: DenseTable.maximumStates, readingExceptions: true))
}

/// The table of the product of `a` and `b`, with no bound but the states' numbers.
private func productTable(_ a: Program, _ b: Program) throws -> (table: DenseTable, states: Int) {
    let (x, y) = (try decoded(a), try decoded(b))
    let (product, classMap) = try #require(DenseTable.product(
        x, a.classOfByte, x.differencesFromStart(), y, b.classOfByte, y.differencesFromStart(), maximumEntries: DenseTable.maximumEntries))
    return (DenseTable([product], classMaps: [classMap], stride: DenseTable.rowEntries(classCount: product.classCount), narrowing: false), product.stateCount)
}

/// `count` words of 3 to 8 characters of URLs, as unanchored literals.
private func words(_ count: Int, _ random: inout SplitMix64) -> [String] {
    let letters = "abcdefghijklmnopqrstuvwxyz0123456789-_/".map(String.init) + ["\\."]
    return (0..<count).map { _ in (0..<Int(random.next() % 6) + 3).map { _ in letters[Int(random.next() % UInt64(letters.count))] }.joined() }
}

@Suite struct DenseProductTests {
    @Test func aProductReportsWhatItsFactorsReport() throws {
        let atoms = ["a", "b", "/", "\\.", ".", "[ab]", "[^a]", "x", ".*", "\\0"]
        var random = SplitMix64(seed: 1127)
        func made() throws -> Program { try randomProgram(atoms, &random) }
        let bytes: [UInt8] = Array("ab/.xy".utf8) + [0, 0x80, 0xC3]
        var stopped = 0
        for _ in 0..<400 {
            let (a, b) = (try made(), try made())
            let (alone, other) = (try #require(DenseTable(a)), try #require(DenseTable(b)))
            let (product, _) = try productTable(a, b)
            for _ in 0..<20 {
                let url = (0..<Int(random.next() % 12)).map { _ in bytes[Int(random.next() % UInt64(bytes.count))] }
                url.withUnsafeBufferPointer { url in
                    var apart: [[Int]] = []
                    let stepsA = alone.run(url) { apart.append([Int($0), $1]) }
                    let stepsB = other.run(url) { apart.append([Int($0), $1]) }
                    var together: [[Int]] = []
                    let steps = product.run(url) { together.append([Int($0), $1]) }
                    // (The programs number their patterns alike: the reports compared as a multiset.)
                    #expect(together.sorted { $0.lexicographicallyPrecedes($1) } == apart.sorted { $0.lexicographicallyPrecedes($1) },
                        "\(Array(url))")
                    // The product reads on while either factor does.
                    #expect(steps == max(stepsA, stepsB), "\(Array(url))")
                    if stepsA != stepsB { stopped += 1 }
                }
            }
        }
        #expect(stopped > 500, "URLs on which one factor stops before the other")
    }

    @Test func twoSearchAutomataMultiplyIntoAboutBoth() throws {
        // Unanchored literals (Aho-Corasick automata) of two word lists: the product is the
        // automaton of both lists, no larger than the two apart.
        var random = SplitMix64(seed: 5)
        for _ in 0..<5 {
            let (a, b) = (try patternsProgram(words(200, &random)), try patternsProgram(words(200, &random)))
            let (x, y) = (try decoded(a), try decoded(b))
            #expect(x.isSearch(x.differencesFromStart(), nulClass: Int(a.classOfByte[0])))
            #expect(y.isSearch(y.differencesFromStart(), nulClass: Int(b.classOfByte[0])))
            let (_, states) = try productTable(a, b)
            #expect(states <= x.stateCount + y.stateCount, "\(states) of \(x.stateCount) + \(y.stateCount)")
        }
    }

    @Test func wholeProgramsAreMultipliedWhereBothSearch() throws {
        // A search automaton, an anchored program, a search automaton: the first and the last
        // multiplied, the anchored one a part of its own, in one table of two parts.
        var random = SplitMix64(seed: 11)
        let search = try patternsProgram(["ads", "track", "banner"] + words(300, &random))
        let anchored = try patternsProgram(["^https?://[^/]+/x", "^[^:]+://y"])
        let other = try patternsProgram(["pixel", "beacon", "/ad/"] + words(300, &random))
        #expect(try !decoded(anchored).isSearch(decoded(anchored).differencesFromStart(), nulClass: Int(anchored.classOfByte[0])))
        #expect(try decoded(search).isSearch(decoded(search).differencesFromStart(), nulClass: Int(search.classOfByte[0])))
        let joined = DenseTable.together([search, anchored, other], budget: DenseTable.budget)
        #expect(joined.count == 1)
        #expect(joined.first?.members == [[0, 2], [1]])
        #expect(joined.first?.table.parts.count == 2)
        // The set runs them so: one pass, the product's and the anchored program's, with the
        // reports of all three.
        let set = ProgramSet(programs: [search, anchored, other])
        var ends: [Int] = []
        for url in ["https://a.example/x/track", "http://pixel/beacon/ad/", "ftp://y"] {
            var found = Set<UInt32>()
            let (_, runs) = Array(url.utf8).withUnsafeBufferPointer { set.run($0, ends: &ends) { found.insert($0) } }
            #expect(runs == 2, "\(url)")
            var apart = Set<UInt32>()
            for item in [search, anchored, other] { _ = Array(url.utf8).withUnsafeBufferPointer { item.run($0) { apart.insert($0) } } }
            #expect(found == apart && !found.isEmpty, "\(url)")
        }
        #expect(set.denseProgramCount == 3)
    }

    @Test func wholeEntriesShareATableWhereTheirViewsDo() throws {
        // `runWhole` pairs whole entries by their words (`Buffers.sharesTable`): the same answer
        // as their views' tables, over sets with parts of one table and tables of their own.
        var random = SplitMix64(seed: 11)
        let search = try patternsProgram(["ads", "track", "banner"] + words(300, &random))
        let anchored = try patternsProgram(["^https?://[^/]+/x", "^[^:]+://y"])
        let other = try patternsProgram(["pixel", "beacon", "/ad/"] + words(300, &random))
        let small = try patternsProgram(["/_ads/", "taboola"])
        // Parts are joined up to three to a table: five anchored programs make two tables.
        let hosts = try ["a", "b", "c", "d", "e"].map { host in try patternsProgram(["^https?://\(host)\\.example/", "^[^:]+://\(host)x"]) }
        var (shared, apart) = (0, 0)
        for programs in [[search, anchored, other], [search, other], [anchored, search, small, other], [small, anchored, search], hosts] {
            let set = ProgramSet(programs: programs).prepared()
            set.image.withBuffers { buffers in
                for a in 0..<set.image.wholeRunCount {
                    for b in a + 1..<set.image.wholeRunCount {
                        guard let first = buffers.dense(a), let second = buffers.dense(b) else {
                            #expect(!buffers.sharesTable(a, b))
                            continue
                        }
                        let same = first.entries == second.entries
                        #expect(buffers.sharesTable(a, b) == same, "\(a) \(b)")
                        if same { shared += 1 } else { apart += 1 }
                    }
                }
            }
        }
        #expect(shared > 0 && apart > 0, "\(shared) shared, \(apart) apart")
    }

    @Test func aSmallSearchTakesAnAnchoredProgramThatDiesEarly() throws {
        // A small list's search and its anchored patterns that die within a few bytes: one
        // product (one read a byte), its states about both programs'. (A big search takes none:
        // `wholeProgramsAreMultipliedWhereBothSearch`.)
        let search = try patternsProgram(["/_ads/", "/ajs.php?", "taboola", "\\.amazon\\."])
        let anchored = try patternsProgram(["^https?://bat\\.bing\\.com[:/]", "^https?://cc\\.swiftype\\.com[:/]"])
        let joined = DenseTable.together([search, anchored], budget: DenseTable.budget)
        #expect(joined.map(\.members) == [[[0, 1]]])
        let states = try decoded(search).stateCount + decoded(anchored).stateCount
        #expect(joined[0].states[0] <= states * 5 / 4, "\(joined[0].states) of \(states)")
        // The set runs them so, one run, with the reports of both.
        let set = ProgramSet(programs: [search, anchored])
        var ends: [Int] = []
        for url in ["https://bat.bing.com/x/_ads/", "http://cc.swiftype.com:80/", "https://cdn.taboola.com/", "https://www.amazon.de/x"] {
            var found = Set<UInt32>()
            let (_, runs) = Array(url.utf8).withUnsafeBufferPointer { set.run($0, ends: &ends) { found.insert($0) } }
            #expect(runs == 1, "\(url)")
            var apart = Set<UInt32>()
            for item in [search, anchored] { _ = Array(url.utf8).withUnsafeBufferPointer { item.run($0) { apart.insert($0) } } }
            #expect(found == apart && !found.isEmpty, "\(url)")
        }
    }
}
