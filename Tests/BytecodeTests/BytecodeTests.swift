// BytecodeTests.swift — the program encoding against the DFA it came from, and the validator
// against every truncation and every single-byte corruption of a compiled file.

import Testing
import Automata
import Bytecode
import Search
import ContentRuleList
import URLFilterSyntax

private func dfa(_ sources: [String]) throws -> DFA {
    let patterns = sources.enumerated().map { (id: PatternID($0.offset), filter: try! URLFilterParser.parse($0.element).get()) }
    return Minimizer.minimize(try SubsetConstruction.determinize(NFA(patterns: patterns)))
}

/// CRC-32 as defined: the reflected polynomial 0xEDB88320 applied one bit at a time, the register
/// inverted before and after.
private func bitwiseCRC32<C: Collection<UInt8>>(_ bytes: C, seed: UInt32 = 0) -> UInt32 {
    var crc = ~seed
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// What reading `bytes` edited by `edit`, its checksum made right, says: "accepted" or the refusal.
private func refusalWithChecksum(of bytes: [UInt8], _ edit: (inout [UInt8]) -> Void) -> String {
    var corrupt = bytes
    edit(&corrupt)
    let crc = CRC32.checksum(corrupt[32...])
    for index in 0..<4 { corrupt[24 + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(index))) }
    do {
        _ = try CompiledFile(validating: corrupt)
        return "accepted"
    } catch {
        return error.description
    }
}

/// A small file with every section in use: two url programs' worth of patterns, a gated group, a
/// condition, actions with payloads.
private func sampleFile() throws -> CompiledFile {
    let url = Program(try dfa(["^https?://ads\\.", "track(er)?\\.js", "[0-9]+x[0-9]+\\.gif$"]))
    // Two domains: a stage (its prefix and its suffixes' trie).
    var timer = PhaseTimer()
    let top = ProgramSet(DFAPartitioner.build(
        ["[a-z][a-z+.-]*:\\/\\/example\\.com[:/]", "[a-z][a-z+.-]*:\\/\\/ads\\.net[:/]"].enumerated().map {
            (id: PatternID($0.offset), filter: try! URLFilterParser.parse($0.element).get())
        }, limits: AutomataLimits(minimumPatternsPerStage: 2), phaseTimer: &timer))
    precondition(top.stages.count == 1 && top.programs.isEmpty)
    // A third: the domain condition table's.
    let topWithTable = ProgramSet(
        programs: top.programs, stages: top.stages, domainConditions: DomainConditionTable([(2, Array("sub.example.org".utf8), true)]))
    var transform = URLTransform()
    transform.port = .some(nil)
    transform.host = "example.org"
    return CompiledFile(
        urlPrograms: ProgramSet(
            // (`tracker`, pattern 3 of 3: group 0's gate.)
            programs: [url, Program(try dfa(["^a[bc]d", "^xb"])), Program(try dfa(["^q", "^r", "^s", "tracker"]))],
            gated: ProgramSet.Gated(gateBase: 3, groups: [[Program(try dfa(["tracker.*\\.js"]))]]),
            domains: DomainTable([(0, Array("ads.example".utf8), []), (1, Array("cdn.x".utf8), [0x2F, 0x61, 0]
                + [UInt8](repeating: 0xFF, count: 16)), (2, Array("t.co".utf8), [])])),
        topURLPrograms: topWithTable, framePrograms: ProgramSet(programs: []), urlPatternCount: 3,
        topPatternCount: 3,
        framePatternCount: 0, patternRuleStart: [0, 1, 2, 3], patternRules: [0, 1, 2], universalRules: [3],
        rules: [
            RuleRecord(ruleIndex: 0, resourceTypes: 0, loadTypes: 0, loadContexts: 0, method: 0, condition: .none, role: .listed, actionLocation: 0, conditionStart: 0, conditionCount: 0),
            RuleRecord(ruleIndex: 1, resourceTypes: 1 << 4, loadTypes: 2, loadContexts: 0, method: 0, condition: .ifTopURL, role: .listed, actionLocation: 1, conditionStart: 0, conditionCount: 1),
            RuleRecord(ruleIndex: 3, resourceTypes: 0, loadTypes: 0, loadContexts: 1, method: 1, condition: .none, role: .listed, actionLocation: 2, conditionStart: 0, conditionCount: 0),
            RuleRecord(ruleIndex: 4, resourceTypes: 0, loadTypes: 0, loadContexts: 0, method: 0, condition: .none, role: .ignorePreviousRules, actionLocation: RuleRecord.notListed, conditionStart: 0, conditionCount: 0),
        ],
        conditions: [0],
        actions: [.block, .cssDisplayNone(selector: ".ad, #banner"), .redirect(.transform(transform))])
}

@Suite struct BytecodeTests {
    @Test func programsAnswerLikeTheirDFA() throws {
        var random = UInt64(7)
        func next() -> UInt64 {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return random >> 33
        }
        let sources = ["^ab", "a[b-c]+$", "x.*y", "^(ab)+c", "[^/]+\\.png", "Z", "track(er)?\\.js", "^http:\\/\\/(www\\.)?x"]
        let automaton = try dfa(sources)
        let program = Program(automaton)
        try program.validate(patternCount: sources.count)
        #expect(program.disassemble().contains("delta @"), "the unanchored patterns use the delta form")
        #expect(program.disassemble().contains(" next c"), "chains use the next form")
        let alphabet = Array("abcxyzABCZ./:htpwrke.jsng0".utf8)
        for _ in 0..<5_000 {
            let url = (0..<Int(next() % 14)).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
            #expect(program.matches(url) == automaton.matches(url).map(\.rawValue), "url \(String(decoding: url, as: UTF8.self))")
        }
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
            let program = Program(try dfa(sources))
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
        let big = Program(try dfa((0..<3000).map { "w\($0)x\($0 * 7)y" }))
        #expect(DenseTable(big, maximumEntries: big.stateCount * big.classCount / 2) == nil, "a program over the limit has no table")
        let bigTable = try #require(DenseTable(big), "a program of thousands of states has a table")
        for index in stride(from: 0, to: 3000, by: 7) {
            for url in ["w\(index)x\(index * 7)y", "zzw\(index)x\(index * 7)", "w\(index)x\(index * 7)yw1x7y"] {
                var compact: [String] = []
                var dense: [String] = []
                Array(url.utf8).withUnsafeBufferPointer { bytes in
                    var patterns: [UInt32] = []
                    var ends: [Int] = []
                    let steps = big.run(bytes) { patterns.append($0) }
                    big.runReportingEnds(bytes) { ends.append($0) }
                    compact = zip(patterns, ends).map { "p\($0.0)@\($0.1)" } + ["\(steps) steps"]
                    let denseSteps = bigTable.run(bytes) { dense.append("p\($0)@\($1)") }
                    dense.append("\(denseSteps) steps")
                }
                #expect(dense == compact, "\(url)")
            }
        }
    }

    /// Stages (a shared looping prefix, then each pattern's rest from wherever the prefix ended)
    /// answer exactly like one automaton of the whole patterns: generated lists built around the
    /// idioms of real lists, with a planner that stages any two patterns sharing a prefix.
    @Test func stagedProgramsAnswerLikeTheWholePatterns() throws {
        var random = UInt64(11)
        func next(_ bound: Int) -> Int {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return Int((random >> 33) % UInt64(bound))
        }
        let prefixes = [
            "^[^:]+://+([^:/]+\\.)?", "[a-z][a-z+.-]*:\\/\\/", "[a-z][a-z+.-]*:\\/\\/([^/]*\\.)*", "^https?:/+([^/:]+\\.)?", "", "^a*",
        ]
        let atoms = ["a", "b", ".", "\\.", "/", ":", "[/:]", "[^/]", "x", "(ab)", "\\0", "$"]
        let quantifiers = ["", "", "", "?", "*", "+"]
        let alphabet = Array("ab.:/x".utf8)
        var stagedLists = 0
        var listsStartingEverywhere = 0
        var checked = 0
        for _ in 0..<120 {
            let sources = (0..<(2 + next(10))).map { _ in
                prefixes[next(prefixes.count)] + (0..<(1 + next(4))).map { _ in atoms[next(atoms.count)] + quantifiers[next(quantifiers.count)] }.joined()
            }
            let patterns = sources.enumerated().compactMap { item -> (id: PatternID, filter: URLFilter)? in
                guard case .success(let filter) = URLFilterParser.parse(item.element), !filter.matchesEverything else { return nil }
                return (PatternID(item.offset), filter)
            }
            var timer = PhaseTimer()
            let limits = AutomataLimits(minimumPatternsPerStage: 2)
            let partition = DFAPartitioner.build(patterns, limits: limits, phaseTimer: &timer)
            guard partition.failures.isEmpty else { continue }
            let programs = ProgramSet(partition)
            if !programs.stages.isEmpty { stagedLists += 1 }
            if programs.stages.contains(where: { $0.prefix.reportsAtEveryPosition }) { listsStartingEverywhere += 1 }
            let whole = NFA(patterns: patterns)
            for _ in 0..<80 {
                let url = Array((next(3) == 0 ? "" : "http://").utf8) + (0..<next(12)).map { _ in alphabet[next(alphabet.count)] }
                var found = Set<UInt32>()
                var ends: [Int] = []
                _ = url.withUnsafeBufferPointer { programs.run($0, ends: &ends) { found.insert($0) } }
                #expect(found.sorted() == whole.matches(url).map(\.rawValue), "\(sources) on \(String(decoding: url, as: UTF8.self))")
                checked += 1
            }
        }
        #expect(stagedLists > 60, "most generated lists have a stage")
        #expect(listsStartingEverywhere > 20, "many have an empty prefix, whose places are counted, not run")
        #expect(checked > 8_000)
    }

    /// Unanchored patterns with a loop inside become suffixes of the empty prefix, whose places
    /// (every position, up to the end or the first byte from 128 on) are counted, not run: the
    /// first and the last places count, and a byte from 128 on ends them.
    @Test func theEmptyPrefixStartsSuffixesEverywhere() throws {
        let sources = ["a+b", "b[^/]*c", "c.*\\0", "x/*a"]
        let patterns = sources.enumerated().map { item -> (id: PatternID, filter: URLFilter) in
            guard case .success(let filter) = URLFilterParser.parse(item.element) else { fatalError(item.element) }
            return (PatternID(item.offset), filter)
        }
        var timer = PhaseTimer()
        let programs = ProgramSet(DFAPartitioner.build(patterns, limits: AutomataLimits(minimumPatternsPerStage: 2), phaseTimer: &timer))
        #expect(programs.programs.isEmpty && programs.stages.count == 1)
        #expect(programs.stages.allSatisfy { $0.prefix.reportsAtEveryPosition })
        let whole = NFA(patterns: patterns)
        for url in ["ab", "zab", "bc", "xbc", "c", "zc", "zzc", "x", "xa", "bxc\u{80}c", "a\u{80}b", "\u{80}ab", "b/c", "xx//a"] {
            let bytes = Array(url.utf8)
            var found = Set<UInt32>()
            var ends: [Int] = []
            _ = bytes.withUnsafeBufferPointer { programs.run($0, ends: &ends) { found.insert($0) } }
            #expect(found.sorted() == whole.matches(bytes).map(\.rawValue), "\(url)")
        }
    }

    @Test func disassemblyOfASmallProgram() throws {
        #expect(Program(try dfa(["^ab"])).disassemble() == """
            program: 3 states, 4 byte classes, 6 bytes, 2-byte targets
              c0 = [\\x00]
              c1 = [\\x01-@C-`c-\\x7F]
              c2 = [Aa]
              c3 = [Bb]
            @0: next c2->@2
            @2: next c3->@4
            @4: accept p0; stop

            """)
    }

    @Test func disassemblyOfAChain() throws {
        #expect(Program(try dfa(["^abcd"])).disassemble() == """
            program: 5 states, 6 byte classes, 8 bytes, 2-byte targets
              c0 = [\\x00]
              c1 = [\\x01-@E-`e-\\x7F]
              c2 = [Aa]
              c3 = [Bb]
              c4 = [Cc]
              c5 = [Dd]
            @0: chain c2 c3 c4 c5 ->@6
            @6: accept p0; stop

            """)
        // A branch's first child follows it: no target written for it (and one accept, no count).
        #expect(Program(try dfa(["^ab", "^ac"])).disassemble().hasSuffix("""
            @0: next c2->@2
            @2: sparse c3->@8 c4->@10
            @8: accept p0; stop
            @10: accept p1; stop

            """))
        #expect(Program(try dfa(["^ab", "^ac"])).code.count == 12)
        // Several classes to the next state (the next and first-next flags): a count and the
        // classes, no target.
        let allNext = Program(try dfa(["^a[bc]d", "^xb"]))
        #expect(allNext.disassemble().hasSuffix("""
            @0: sparse c2->@6 c6->@14
            @6: next c3,c4->@10
            @10: next c5->@12
            @12: accept p0; stop
            @14: next c3->@16
            @16: accept p1; stop

            """))
        try allNext.validate(patternCount: 2)
        #expect(allNext.matches(Array("acd".utf8)) == [0] && allNext.matches(Array("abd".utf8)) == [0]
            && allNext.matches(Array("aad".utf8)) == [] && allNext.matches(Array("xb".utf8)) == [1])
        // The corruption tests below run over files with chains and such states.
        #expect(try sampleFile().topURLPrograms.disassemble(name: "top-url").contains(": chain "))
        #expect(try sampleFile().urlPrograms.disassemble(name: "url").contains(": next c3,c4->"))
    }

    @Test func writingThenReadingGivesTheSameFile() throws {
        let file = try sampleFile()
        let bytes = file.serialized()
        let read = try CompiledFile(validating: bytes)
        #expect(read == file)
        #expect(read.serialized() == bytes)
    }

    @Test func everyTruncationIsRefused() throws {
        let bytes = try sampleFile().serialized()
        for length in 0..<bytes.count {
            #expect(throws: BytecodeError.self, "length \(length)") { try CompiledFile(validating: Array(bytes.prefix(length))) }
        }
    }

    @Test func everySingleByteCorruptionIsRefused() throws {
        let bytes = try sampleFile().serialized()
        var refused = 0
        for offset in 0..<bytes.count {
            for value in 0...255 where value != Int(bytes[offset]) {
                var corrupt = bytes
                corrupt[offset] = UInt8(value)
                do {
                    _ = try CompiledFile(validating: corrupt)
                    Issue.record("byte \(offset) = \(value) accepted")
                } catch {
                    refused += 1
                }
            }
        }
        #expect(refused == bytes.count * 255)
    }

    /// Each way a domain table can be malformed is refused with its own reason, checksum correct.
    @Test func aMalformedDomainTableIsRefusedWithItsReason() throws {
        let bytes = try sampleFile().serialized()
        func find(_ text: String) throws -> Int {
            let needle = Array(text.utf8)
            return try #require((0...(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle })
        }
        func refusal(_ edit: (inout [UInt8]) -> Void) -> String { refusalWithChecksum(of: bytes, edit) }
        let first = try find("ads.example")
        let path = try find("cdn.x") + 6  // after the path's length
        // (The table's entries are the set's 3 patterns and its 1 gate.)
        #expect(refusal { $0[first - 2] = 9 }.contains("domain table: pattern 9 of 4"))
        #expect(refusal { $0[first - 1] = 0 }.contains("the first entry repeats a domain"))
        #expect(refusal { $0[first] = UInt8(ascii: "A") }.contains("a byte it cannot match"))
        #expect(refusal { $0[path + 1] = UInt8(ascii: "A") }.contains("a path that is not a sequence of sets"))
        #expect(refusal { $0[path] = 0xAF }.contains("a path that is not a sequence of sets"), "`/` alone has a shorter form")
        #expect(refusal { for index in (path + 3)...(path + 18) { $0[index] = 0 } }.contains("a path that is not a sequence of sets"),
            "an empty set")
        #expect(refusal { $0[path] = 0x2F } == "accepted", "the unchanged file loads")
    }

    /// Each way a domain condition table can be malformed is refused with its own reason, checksum correct.
    @Test func aMalformedDomainConditionTableIsRefusedWithItsReason() throws {
        let bytes = try sampleFile().serialized()
        let needle = Array("sub.example.org".utf8)
        let domain = try #require((0...(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle })
        func refusal(_ edit: (inout [UInt8]) -> Void) -> String { refusalWithChecksum(of: bytes, edit) }
        #expect(refusal { $0[domain - 2] = 3 }.contains("domain condition table: pattern 3 of 3"))
        #expect(refusal { $0[domain] = UInt8(ascii: "S") }.contains("a byte it cannot match"))
        #expect(refusal { $0[domain + 3] = UInt8(ascii: "/") }.contains("a byte it cannot match"))
        #expect(refusal { $0[domain + 3] = 0 }.contains("a byte it cannot match"))
        #expect(refusal { $0[domain - 1] = 0 }.contains("a domain of 0 bytes"))
        #expect(refusal { $0[domain + 3] = UInt8(ascii: ":") } == "accepted", "the file with another domain loads")
    }

    /// A hostile file carries a correct checksum: the structural checks alone must refuse whatever
    /// could make the interpreter read out of bounds, and what they accept must run safely.
    @Test func corruptionsWithARecomputedChecksumAreRefusedOrRunSafely() throws {
        let bytes = try sampleFile().serialized()
        var accepted = 0
        for offset in 32..<bytes.count {
            for value: UInt8 in [0, 1, 2, 0x7F, 0x80, 0xFE, 0xFF, bytes[offset] ^ 1, bytes[offset] &+ 1, bytes[offset] &- 1]
            where value != bytes[offset] {
                var corrupt = bytes
                corrupt[offset] = value
                let crc = CRC32.checksum(corrupt[32...])
                for index in 0..<4 { corrupt[24 + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(index))) }
                guard let file = try? CompiledFile(validating: corrupt) else { continue }
                accepted += 1
                for url in ["https://ads.example.com/tracker.js", "http://x/300x250.gif", "", "\u{7F}\u{1}"] {
                    for (programs, patternCount) in [
                        (file.urlPrograms, file.urlPatternCount), (file.topURLPrograms, file.topPatternCount),
                        (file.framePrograms, file.framePatternCount),
                    ] {
                        var ends: [Int] = []
                        _ = Array(url.utf8).withUnsafeBufferPointer { bytes in
                            programs.run(bytes, ends: &ends) { #expect(Int($0) < patternCount) }
                        }
                    }
                }
            }
        }
        // Some corruptions are harmless (a different target state, a different selector letter).
        #expect(accepted > 0)
    }

    /// The CRC (zlib's) against the standard check value and the bit-by-bit definition: empty, at
    /// every length up to 40 bytes from each of 8 starts, and over a seed (as the writer chains it).
    @Test func crcMatchesTheBitwiseDefinition() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(bitwiseCRC32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
        #expect(CRC32.checksum([UInt8](), seed: 0x1234_5678) == 0x1234_5678)
        let bytes = (0..<40).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ 13) }
        for start in 0..<8 {
            for end in start...bytes.count {
                let slice = bytes[start..<end]
                #expect(CRC32.checksum(slice) == bitwiseCRC32(slice), "bytes \(start)..<\(end)")
                #expect(CRC32.checksum(slice, seed: 0x1234_5678) == bitwiseCRC32(slice, seed: 0x1234_5678))
            }
        }
        #expect(CRC32.checksum(bytes.lazy.map { $0 }) == bitwiseCRC32(bytes))
        // Two parts checked apart, then combined: the whole's CRC (a file's sections are so).
        for cut in 0...bytes.count {
            let combined = CRC32.combine(CRC32.checksum(bytes[..<cut]), CRC32.checksum(bytes[cut...]), secondLength: bytes.count - cut)
            #expect(combined == bitwiseCRC32(bytes), "cut at \(cut)")
        }
    }

    @Test func zigzagVarintsRoundTripEitherSign() throws {
        let values: [Int64] = [0, -1, 1, -2, 63, -64, 64, 1 << 20, -(1 << 20), Int64(Int32.max), Int64(Int32.min)]
        var writer = ByteWriter()
        for value in values { writer.zigzag(value) }
        var reader = ByteReader(writer.bytes)
        #expect(try values.map { _ in try reader.zigzag() } == values)
        #expect(reader.isAtEnd)
        #expect(Array(writer.bytes.prefix(4)) == [0, 1, 2, 3], "0, -1, 1, -2 as 0, 1, 2, 3")
    }

    @Test func headerErrorsAreNamed() throws {
        var bytes = try sampleFile().serialized()
        #expect(throws: BytecodeError.notACompiledRuleList) { try CompiledFile(validating: Array("[{\"trigger\":{}}]".utf8)) }
        bytes[10] = 0x01
        bytes[11] = 0x02
        #expect(throws: BytecodeError.wrongEndianness) { try CompiledFile(validating: bytes) }
        bytes[10] = 0x02
        bytes[11] = 0x01
        // The next version, and the last: its groups gated by a domain run from the URL's start.
        for version in [CompiledFile.version + 1, CompiledFile.version - 1] {
            bytes[8] = UInt8(version)
            #expect(throws: BytecodeError.unsupportedVersion(found: version, supported: CompiledFile.version)) { try CompiledFile(validating: bytes) }
        }
    }
}
