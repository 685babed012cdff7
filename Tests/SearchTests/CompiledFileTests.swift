// CompiledFileTests.swift — a compiled file written then read is the same file, and the validator
// refuses every truncation and every single-byte corruption (with a correct checksum too: the
// structural checks alone), each malformed table with its reason, and the header's errors by name.

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

@Suite struct CompiledFileTests {
    @Test func aSectionsPlaceIsItsPlaceInTheDirectory() {
        #expect(SectionKind.allCases.enumerated().allSatisfy { $0.element.place == $0.offset })
    }

    @Test func writingThenReadingGivesTheSameFile() throws {
        // The corruption tests below run over files with chains and such states.
        #expect(try sampleFile().topURLPrograms.disassemble(name: "top-url").contains(": chain "))
        #expect(try sampleFile().urlPrograms.disassemble(name: "url").contains(": next c3,c4->"))
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
