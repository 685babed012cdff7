// DenseTableTests.swift — a dense table made from the rows' differences from the reference
// state (DenseTable.swift) is exactly the one made by expanding every row: the same entries, the
// same state numbers, on generated lists of every kind (unanchored tries, whose states nearly all
// use the delta form; anchored tries; loops; chains) and on the shipped lists' programs.

import Testing
import Automata
@testable import Bytecode
import URLFilterSyntax
import TestSupport

private func program(_ sources: [String]) throws -> Program {
    let patterns = sources.enumerated().compactMap { item -> (id: PatternID, filter: URLFilter)? in
        guard case .success(let filter) = URLFilterParser.parse(item.element), !filter.matchesEverything else { return nil }
        return (PatternID(item.offset), filter)
    }
    return Program(Minimizer.minimize(try SubsetConstruction.determinize(NFA(patterns: patterns))))
}

@Suite struct DenseTableTests {
    @Test func differencesFromTheReferenceGiveTheExpandedTable() throws {
        let atoms = ["a", "b", "c", "/", "\\.", ".", "[ab]", "[^a]", "x", "y", "z", "\\0"]
        var random = SplitMix64(seed: 99)
        var delta = 0
        for round in 0..<300 {
            let sources = (0..<Int(random.next() % 20) + 1).map { _ in
                var source = (0..<Int(random.next() % 7) + 1).map { _ in atoms[Int(random.next() % UInt64(atoms.count))] }.joined()
                switch round % 3 {
                case 0: break  // unanchored, loop-free: an Aho-Corasick automaton
                case 1: source = "^" + source
                default: if random.next() % 3 == 0 { source += ".*" + atoms[Int(random.next() % 5)] }
                }
                if random.next() % 6 == 0 { source += "$" }
                return source
            }
            let made = try program(sources)
            if made.disassemble().contains("delta") { delta += 1 }
            let fromDifferences = DenseTable(made, maximumEntries: DenseTable.maximumEntries, readingExceptions: true)
            #expect(fromDifferences == DenseTable(made, maximumEntries: DenseTable.maximumEntries, readingExceptions: false), "\(sources)")
        }
        #expect(delta > 50, "programs with delta states")
    }

    @Test func tablesRunInOnePassAnswerAsTheyDoApart() throws {
        // Pairs and threes of every kind (tries, anchored patterns that die early, loops marked with
        // `loopsBit`, end anchors) over URLs with bytes from 128 on and NULs: the same reports
        // after the same bytes (compared as a multiset: the two tables number their patterns
        // alike), and the steps of both runs.
        let atoms = ["a", "b", "/", "\\.", ".", "[ab]", "[^a]", "x", ".*"]
        var random = SplitMix64(seed: 2026)
        func table() throws -> DenseTable {
            let sources = (0..<Int(random.next() % 8) + 1).map { _ in
                let body = (0..<Int(random.next() % 5) + 1).map { _ in atoms[Int(random.next() % UInt64(atoms.count))] }.joined()
                return (random.next() % 3 == 0 ? "^" : "") + body + (random.next() % 6 == 0 ? "$" : "")
            }
            return try #require(DenseTable(try program(sources)))
        }
        let bytes: [UInt8] = Array("ab/.xy".utf8) + [0, 0x80, 0xC3]
        var loops = 0
        for _ in 0..<400 {
            let (first, second, third) = (try table(), try table(), try table())
            if first.entries.contains(where: { $0 != DenseTable.dead && $0 & DenseTable.loopsBit != 0 }) { loops += 1 }
            for _ in 0..<20 {
                let url = (0..<Int(random.next() % 12)).map { _ in bytes[Int(random.next() % UInt64(bytes.count))] }
                url.withUnsafeBufferPointer { url in
                    var apart: [[Int]] = []
                    let stepsApart = first.run(url) { apart.append([Int($0), $1]) } + second.run(url) { apart.append([Int($0), $1]) }
                    var together: [[Int]] = []
                    let steps = first.run(togetherWith: [second], url) { together.append([Int($0), $1]) }
                    #expect(steps == stepsApart, "\(Array(url))")
                    #expect(together.sorted { $0.lexicographicallyPrecedes($1) } == apart.sorted { $0.lexicographicallyPrecedes($1) },
                        "\(Array(url))")
                    var threeApart = apart
                    let threeStepsApart = stepsApart + third.run(url) { threeApart.append([Int($0), $1]) }
                    var three: [[Int]] = []
                    let threeSteps = first.run(togetherWith: [second, third], url) { three.append([Int($0), $1]) }
                    #expect(threeSteps == threeStepsApart, "\(Array(url))")
                    #expect(three.sorted { $0.lexicographicallyPrecedes($1) } == threeApart.sorted { $0.lexicographicallyPrecedes($1) },
                        "\(Array(url))")
                }
            }
        }
        #expect(loops > 20, "tables with loops")
    }

    @Test func rowMaskAndSpecialBitsAgreeWithTheBudget() {
        #expect(Int(DenseTable.rowMask) + 1 == DenseTable.maximumEntries)
        #expect(DenseTable.specialBits == ~(DenseTable.loopsBit | DenseTable.rowMask))
        #expect(DenseTable.dead & DenseTable.specialBits != 0 && DenseTable.reportsBit & DenseTable.specialBits != 0)
    }

    @Test func aDeltaStateListingItsFirstNextClassTwiceIsExpanded() throws {
        // A valid program the compiler never writes: B, a delta state, lists class 0 first (to the
        // next instruction, C) and again (to A); the later listing wins, as the interpreter reads
        // it, and the table must say so whichever way its listed classes are kept.
        let code: [UInt8] = [
            0x01, 2, 0, 8, 0, 1, 8, 0,  // A (offset 0, the reference): sparse, classes 0 and 1 to B
            0x49, 2, 0, 0, 0, 0,  // B (offset 8): sparse, delta, first-next; class 0 next, then class 0 to A
            0x00,  // C (offset 14): stop
        ]
        let program = Program(
            classOfByte: (0..<128).map { $0 < 64 ? 0 : 1 }, classCount: 2, targetWidth: 2, code: code, stateCount: 3, reference: 0)
        try program.validate(patternCount: 1)
        let table = try #require(DenseTable(program, maximumEntries: DenseTable.maximumEntries, readingExceptions: true))
        #expect(table == DenseTable(program, maximumEntries: DenseTable.maximumEntries, readingExceptions: false))
        // B's row (state 1, entries 2 and 3): class 0 back to A (row offset 0), class 1 where A's
        // class 1 leads, to B itself (row offset 2; a silent state keeping itself: loopsBit).
        #expect(Array(table.entries[2..<4]) == [0, 2 | DenseTable.loopsBit])
    }

    @Test func theShippedListsUnanchoredPatternsGiveTheExpandedTable() throws {
        // The largest such program of a real list: thousands of states, almost all delta.
        let sources = try shippedPatterns().prefix(60_000).map(\.source).filter { source in
            guard case .success(let filter) = URLFilterParser.parse(source) else { return false }
            return !filter.hasStartAnchor && filter.terms.allSatisfy { $0.quantifier == .one && $0.characterSet != nil }
        }
        let made = try program(sources)
        #expect(made.stateCount > 10_000)
        let table = try #require(DenseTable(made, maximumEntries: DenseTable.maximumEntries, readingExceptions: true))
        #expect(table == DenseTable(made, maximumEntries: DenseTable.maximumEntries, readingExceptions: false))
    }
}
