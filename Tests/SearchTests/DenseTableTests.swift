// DenseTableTests.swift — a dense table made from the rows' differences from the reference
// state (DenseTable.swift) is exactly the one made by expanding every row: the same entries, the
// same state numbers, on generated lists of every kind (unanchored tries, whose states nearly all
// use the delta form; anchored tries; loops; chains) and on the shipped lists' programs; and a
// table runs like its program: the same patterns after the same bytes, the same steps.

import Testing
import Automata
@testable import Bytecode
@testable import Search
import URLFilterSyntax
import TestSupport

/// The program of `sources`, pattern i the i-th (the dense tables' and products' tests).
func patternsProgram(_ sources: [String]) throws -> Program {
    let patterns = sources.enumerated().compactMap { item -> (id: PatternID, filter: URLFilter)? in
        guard case .success(let filter) = URLFilterParser.parse(item.element), !filter.matchesEverything else { return nil }
        return (PatternID(item.offset), filter)
    }
    return Program(Minimizer.minimize(try SubsetConstruction.determinize(NFA(patterns: patterns))))
}

/// A program of one to eight patterns of one to five of `atoms` each, a third of them anchored at
/// the URL's start and a sixth at its end.
func randomProgram(_ atoms: [String], _ random: inout SplitMix64) throws -> Program {
    let sources = (0..<Int(random.next() % 8) + 1).map { _ in
        let body = (0..<Int(random.next() % 5) + 1).map { _ in atoms[Int(random.next() % UInt64(atoms.count))] }.joined()
        return (random.next() % 3 == 0 ? "^" : "") + body + (random.next() % 6 == 0 ? "$" : "")
    }
    return try patternsProgram(sources)
}

/// Each pattern `program` reports on `url` and where it ends, then its steps: as the compact
/// program runs (`compact`) and as `table`'s first part does (`dense`).
private func reportsAndSteps(of program: Program, _ table: DenseTable, on url: String) -> (compact: [String], dense: [String]) {
    var compact: [String] = []
    var dense: [String] = []
    Array(url.utf8).withUnsafeBufferPointer { bytes in
        var patterns: [UInt32] = []
        var ends: [Int] = []
        let steps = program.run(bytes) { patterns.append($0) }
        program.runReportingEnds(bytes) { ends.append($0) }
        compact = zip(patterns, ends).map { "p\($0.0)@\($0.1)" } + ["\(steps) steps"]
        let denseSteps = table.run(bytes) { dense.append("p\($0)@\($1)") }
        dense.append("\(denseSteps) steps")
    }
    return (compact, dense)
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
            let made = try patternsProgram(sources)
            if made.disassemble().contains("delta") { delta += 1 }
            let fromDifferences = DenseTable(joining: [made], readingExceptions: true)
            #expect(fromDifferences == DenseTable(joining: [made], readingExceptions: false), "\(sources)")
        }
        #expect(delta > 50, "programs with delta states")
    }

    @Test func tablesRunInOnePassAnswerAsTheyDoApart() throws {
        // Pairs and threes of every kind (tries, anchored patterns that die early, states a run
        // reads on in, end anchors) over URLs with bytes from 128 on and NULs, each program alone
        // and the programs as parts of one table run in one pass: the same reports after the same
        // bytes (compared as a multiset: the programs number their patterns alike), and the steps
        // of all runs. A part that ends first leaves the others to go on as a pair.
        let atoms = ["a", "b", "/", "\\.", ".", "[ab]", "[^a]", "x", ".*"]
        var random = SplitMix64(seed: 2026)
        func made() throws -> Program { try randomProgram(atoms, &random) }
        let bytes: [UInt8] = Array("ab/.xy".utf8) + [0, 0x80, 0xC3]
        var loops = 0
        for _ in 0..<400 {
            let programs = [try made(), try made(), try made()]
            let alone = try programs.map { try #require(DenseTable($0)) }
            if alone[0].loopStart < alone[0].reportStart { loops += 1 }
            let pair = try #require(DenseTable(joining: Array(programs[0..<2])))
            let three = try #require(DenseTable(joining: programs))
            for _ in 0..<20 {
                let url = (0..<Int(random.next() % 12)).map { _ in bytes[Int(random.next() % UInt64(bytes.count))] }
                url.withUnsafeBufferPointer { url in
                    var apart: [[Int]] = []
                    let stepsApart = alone[0].run(url) { apart.append([Int($0), $1]) } + alone[1].run(url) { apart.append([Int($0), $1]) }
                    var together: [[Int]] = []
                    let steps = pair.runTogether(url) { together.append([Int($0), $1]) }
                    #expect(steps == stepsApart, "\(Array(url))")
                    #expect(together.sorted { $0.lexicographicallyPrecedes($1) } == apart.sorted { $0.lexicographicallyPrecedes($1) },
                        "\(Array(url))")
                    var threeApart = apart
                    let threeStepsApart = stepsApart + alone[2].run(url) { threeApart.append([Int($0), $1]) }
                    var inOnePass: [[Int]] = []
                    let threeSteps = three.runTogether(url) { inOnePass.append([Int($0), $1]) }
                    #expect(threeSteps == threeStepsApart, "\(Array(url))")
                    #expect(
                        inOnePass.sorted { $0.lexicographicallyPrecedes($1) } == threeApart.sorted { $0.lexicographicallyPrecedes($1) },
                        "\(Array(url))")
                    // Each part of the three alone, as a set's image runs a part its pass left.
                    for part in 0..<3 {
                        var fromPart: [[Int]] = []
                        var fromAlone: [[Int]] = []
                        #expect(three.run(url, part: part) { fromPart.append([Int($0), $1]) } == alone[part].run(url) { fromAlone.append([Int($0), $1]) })
                        #expect(fromPart == fromAlone, "\(Array(url)) part \(part)")
                    }
                }
            }
        }
        #expect(loops > 20, "tables with states a run reads on in")
    }

    @Test func statesAreNumberedByKind() throws {
        // Plain silent states, then silent states at most `maximumExits` classes leave (and not
        // all), then reporting states: a step's kind is one comparison of the next state's number.
        let atoms = ["a", "b", "/", "\\.", ".", "[ab]", "[^a]", "x", ".*", "\\0"]
        var random = SplitMix64(seed: 7)
        var kinds = Set<Int>()
        for _ in 0..<200 {
            let sources = (0..<Int(random.next() % 8) + 1).map { _ in
                (random.next() % 3 == 0 ? "^" : "") + (0..<Int(random.next() % 5) + 1).map { _ in atoms[Int(random.next() % UInt64(atoms.count))] }.joined()
            }
            let table = try #require(DenseTable(try patternsProgram(sources)))
            #expect(table.stride >= table.classCount && table.stride & (table.stride - 1) == 0)
            #expect(table.acceptStart.count == table.stateCount - table.reportStart + 1)
            for state in 0..<table.stateCount {
                let row = (0..<table.classCount).map { table.entry(state, column: $0) }
                #expect((table.classCount..<table.stride).allSatisfy { table.entry(state, column: $0) == DenseTable.dead })
                let exits = row.count { Int($0) != state }
                if state >= table.reportStart {
                    let reporting = state - table.reportStart
                    #expect(table.acceptStart[reporting] < table.acceptStart[reporting + 1])
                    kinds.insert(2)
                } else if state >= table.loopStart {
                    #expect(exits <= DenseTable.maximumExits && exits < table.classCount)
                    kinds.insert(1)
                } else {
                    #expect(exits > DenseTable.maximumExits || exits == table.classCount)
                    kinds.insert(0)
                }
            }
        }
        #expect(kinds == [0, 1, 2], "every kind met")
    }

    @Test func aWideTablesRowsLieInPlanesOfALineTheLettersInTheFirst() throws {
        // Patterns telling 26 letters, 10 digits and some punctuation apart: 40-odd classes, rows
        // of 64 in two planes of 32. Every letter, `/` and `.` has its entry in the first plane,
        // whose rows are a line each, one state's after another's; a digit's is in the second.
        let words = (UInt8(ascii: "a")...UInt8(ascii: "z")).map { String(UnicodeScalar($0)) + "q" }
            + (0...9).map { "\($0)x" } + ["\\/", "\\.", "-", "_", "=", ";"]
        let table = try #require(DenseTable(try patternsProgram(words)))
        #expect(table.classCount > 32 && table.stride == 64 && table.rowWidth == 32 && table.shift & (DenseView.narrowFlag - 1) == 5)
        let first = Array(UInt8(ascii: "a")...UInt8(ascii: "z")) + [UInt8(ascii: "/"), UInt8(ascii: ".")]
        #expect(first.allSatisfy { table.columns[Int($0)] < 32 })
        #expect(table.columns[Int(UInt8(ascii: "7"))] >= UInt32(32 * table.stateCount))
        for state in 0..<table.stateCount {
            for byte in 0..<128 {
                let column = Int(table.classMaps[byte])
                // A byte's entry: the state's row in its column's plane, at the byte's place.
                #expect(placedEntry(table, state &<< table.shift + Int(table.columns[byte])) == table.entry(state, column: column))
                #expect(Int(table.columns[byte]) == column / 32 * 32 * table.stateCount + column % 32)
            }
        }
        // And the table runs as its program does.
        let program = try patternsProgram(words)
        for url in ["https://a.test/7x", "http://zq.test/_", "https://q.test/;", "https://x.test/9", "https://www.test/abq?0x=1"] {
            var fromProgram: [UInt32] = []
            var fromTable: [UInt32] = []
            let bytes = Array(url.utf8)
            bytes.withUnsafeBufferPointer { bytes in
                _ = program.run(bytes) { fromProgram.append($0) }
                _ = table.run(bytes) { pattern, _ in fromTable.append(pattern) }
            }
            #expect(fromTable == fromProgram && !fromTable.isEmpty, "\(url)")
        }
    }

    /// The entry at `place` in `table.entries` (a byte's in a narrow table, `narrowDead` read as
    /// `dead`).
    func placedEntry(_ table: DenseTable, _ place: Int) -> UInt16 {
        guard table.narrow else { return table.entries[place] }
        let byte = table.entries.withUnsafeBytes { $0[place] }
        return byte == DenseTable.narrowDead ? DenseTable.dead : UInt16(byte)
    }

    @Test func tablesOfAtMost255StatesHaveEntriesOfOneByte() throws {
        // An anchored word of n letters: a chain of about n states. Its table's entries are one
        // byte each (255: the run stops) up to 255 states, two from 256 on; either way it runs
        // as its program does, its last state (numbered last, as it reports) reached.
        var narrowCounts = Set<Int>()
        var wideCounts = Set<Int>()
        for length in 250...260 {
            let word = String((0..<length).map { $0 % 3 == 0 ? "a" : $0 % 3 == 1 ? "b" : "c" })
            let program = try patternsProgram(["^" + word, "^" + word.prefix(100) + "x"])
            let table = try #require(DenseTable(program))
            #expect(table.narrow == (table.stateCount <= 255), "\(table.stateCount) states")
            if table.narrow { narrowCounts.insert(table.stateCount) } else { wideCounts.insert(table.stateCount) }
            let entryBytes = table.entries.count * MemoryLayout<UInt16>.size
            #expect(table.narrow ? entryBytes <= table.stateCount * table.stride + 1 : entryBytes == 2 * table.stateCount * table.stride)
            for url in [word, word + "/z", String(word.dropLast()), word.prefix(100) + "x", "x" + word, word.prefix(120) + "\u{80}"] {
                let (compact, dense) = reportsAndSteps(of: program, table, on: url)
                #expect(dense == compact, "\(table.stateCount) states on \(url.count) bytes")
            }
        }
        #expect(narrowCounts.contains(255) && wideCounts.contains(256), "\(narrowCounts.sorted()) \(wideCounts.sorted())")
        // Parts run in one pass keep two-byte entries, however few their states.
        let parts = try DenseTable(joining: [patternsProgram(["^ab"]), patternsProgram(["cd"])])
        #expect(parts?.narrow == false)
    }

    @Test func aTableOfSeveralPartsIsNeverNarrow() throws {
        // Parts are run in one pass (`DenseView.run(_:_:_:report:)`), which reads entries of two
        // bytes: a table of several stays wide even when narrowing is asked, one of one part not.
        let programs = [try patternsProgram(["^ab"]), try patternsProgram(["cd"])]
        let decoded = try programs.map {
            try #require(DenseTable.decode($0, maximumStates: DenseTable.maximumStates, readingExceptions: true))
        }
        let stride = DenseTable.rowEntries(classCount: programs.map(\.classCount).max()!)
        let several = DenseTable(decoded, classMaps: programs.map(\.classOfByte), stride: stride, narrowing: true)
        let one = DenseTable([decoded[0]], classMaps: [programs[0].classOfByte], stride: stride, narrowing: true)
        #expect(!several.narrow && one.narrow)
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
        let table = try #require(DenseTable(joining: [program], readingExceptions: true))
        #expect(table == DenseTable(joining: [program], readingExceptions: false))
        // B's row: class 0 back to A, class 1 where A's class 1 leads, to B itself (C, listed
        // only by the overridden class, is never met). A is a plain silent state, 0; B, silent
        // and left by one class, is 1, the first state a run reads on in.
        #expect(table.stateCount == 2 && table.loopStart == 1 && table.reportStart == 2 && table.start == 0)
        // (By a byte of each class: the columns are placed by the bytes' weights.)
        #expect([0, 64].map { table.entry(1, column: Int(table.classOfByte[$0])) } == [0, 1])
    }

    @Test func theShippedListsUnanchoredPatternsGiveTheExpandedTable() throws {
        // The largest such program of a real list: thousands of states, almost all delta.
        let sources = try shippedPatterns().prefix(60_000).map(\.source).filter { source in
            guard case .success(let filter) = URLFilterParser.parse(source) else { return false }
            return !filter.hasStartAnchor && filter.terms.allSatisfy { $0.quantifier == .one && $0.characterSet != nil }
        }
        let made = try patternsProgram(sources)
        #expect(made.stateCount > 10_000)
        let table = try #require(DenseTable(joining: [made], readingExceptions: true))
        #expect(table == DenseTable(joining: [made], readingExceptions: false))
    }

    /// A small program's dense table (the interpreter's expansion of it) reports the same patterns
    /// after the same bytes, in the same order, and takes the same steps as the compact program:
    /// chains (their first state reporting), the delta, fallback and next forms, accepts on the
    /// end-of-URL NUL, bytes from 128 on.
    @Test func denseTablesRunLikeTheirPrograms() throws {
        var random = UInt64(5)
        func next(_ bound: Int) -> Int {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return Int((random >> 33) % UInt64(bound))
        }
        let lists = [
            ["^ab", "a[b-c]+$", "x.*y", "^(ab)+c", "[^/]+\\.png", "Z", "track(er)?\\.js", "^http:\\/\\/(www\\.)?x"],
            ["doubleclick", "doubleclick\\.net/ad", "^a*b", "b\\0", "ab$"],
            ["^doubleclick\\.net/ad", "^doubleclick\\.com", "^double$", "^xyz\\0"],
            ["^[^:]+://+([^:/]+\\.)?", "[a-z][a-z+.-]*:\\/\\/"],
        ]
        let alphabet = Array("abcxyzZ./:htpwrke.jsng0doubleclik".utf8) + [0x80]
        let fragments = ["double", "click", ".net", "/ad", ".com", "xyz", "\0", "a", "b", "ab", "x", "y", "http://", "www.", ".png", "\u{80}"]
        var chains = 0
        for sources in lists {
            let program = try patternsProgram(sources)
            if program.disassemble().contains("chain") { chains += 1 }
            let table = try #require(DenseTable(program))
            for _ in 0..<3_000 {
                let url = next(2) == 0 ? (0..<next(16)).map { _ in alphabet[next(alphabet.count)] }
                    : (0..<next(5)).flatMap { _ in Array(fragments[next(fragments.count)].utf8) }
                var compact: [String] = []
                var dense: [String] = []
                let (compactSteps, denseSteps) = url.withUnsafeBufferPointer { bytes in
                    var patterns: [UInt32] = []
                    var ends: [Int] = []
                    let steps = program.run(bytes) { patterns.append($0) }
                    program.runReportingEnds(bytes) { ends.append($0) }
                    compact = zip(patterns, ends).map { "p\($0.0)@\($0.1)" }
                    let denseSteps = table.run(bytes) { dense.append("p\($0)@\($1)") }
                    return (steps, denseSteps)
                }
                #expect(dense == compact && denseSteps == compactSteps, "\(sources) on \(url)")
            }
        }
        #expect(chains > 0, "some program has a chain")
        let big = try patternsProgram((0..<3000).map { "w\($0)x\($0 * 7)y" })
        #expect(DenseTable(big, maximumEntries: big.stateCount * big.classCount / 2) == nil, "a program over the limit has no table")
        let bigTable = try #require(DenseTable(big), "a program of thousands of states has a table")
        for index in stride(from: 0, to: 3000, by: 7) {
            for url in ["w\(index)x\(index * 7)y", "zzw\(index)x\(index * 7)", "w\(index)x\(index * 7)yw1x7y"] {
                let (compact, dense) = reportsAndSteps(of: big, bigTable, on: url)
                #expect(dense == compact, "\(url)")
            }
        }
    }
}
