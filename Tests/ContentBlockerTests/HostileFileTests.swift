// HostileFileTests.swift — compiled files with a valid checksum but hostile content: huge counts
// and random byte changes. Loading one must throw a `BytecodeError` or give a list that answers
// requests, sizing nothing by a count beyond the file's length (a count that did would allocate
// gigabytes here and abort the test process).

import Testing
import Foundation
import Bytecode
import Search
import ContentBlocker
import ContentRuleList
import RequestContext
import TestSupport

/// A small list with what the shipped ones lack: frame-url conditions, header operations, a
/// redirect's query transform.
private let extrasList = #"""
[{"trigger":{"url-filter":"ads","if-frame-url":["frame\\.test","widgets"]},"action":{"type":"block"}},
 {"trigger":{"url-filter":"track","unless-top-url":["news\\.test"]},"action":{"type":"modify-headers","priority":3,
   "request-headers":[{"operation":"set","header":"dnt","value":"1"},{"operation":"remove","header":"cookie"}],
   "response-headers":[{"operation":"append","header":"x-a","value":"b"}]}},
 {"trigger":{"url-filter":"^https?://r\\.test/"},"action":{"type":"redirect","redirect":{"transform":{"host":"s.test",
   "query-transform":{"add-or-replace-parameters":[{"key":"k","value":"v","replace-only":true}],"remove-parameters":["utm"]}}}}},
 {"trigger":{"url-filter":"x","if-domain":["a.test","*b.test"]},"action":{"type":"css-display-none","selector":".ad"}}]
"""#

private func compiledBytes(_ json: [UInt8]) throws -> [UInt8] { try RuleListCompiler.compile(json: json).0.serialized() }

private func shippedList(_ name: String) throws -> [UInt8] {
    try [UInt8](Data(contentsOf: repositoryURL("Corpora/rules/" + name)))
}

/// Writes the checksum of bytes 32... into the header (offset 24), as a hostile writer would.
private func withValidChecksum(_ bytes: [UInt8]) -> [UInt8] {
    var bytes = bytes
    let crc = CRC32.checksum(bytes[32...])
    for index in 0..<4 { bytes[24 + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(index))) }
    return bytes
}

private let requests = [
    Request(
        url: CanonicalURL("https://ads.example/track.js?utm=1"), mainDocumentURL: CanonicalURL("https://news.test/"),
        frameURL: CanonicalURL("https://frame.test/"), resourceType: .script, isMainFrameContext: false),
    Request(
        url: CanonicalURL("http://r.test/x?k=1"), mainDocumentURL: CanonicalURL("http://a.test/"),
        frameURL: CanonicalURL("http://a.test/"), resourceType: .image, isMainFrameContext: true),
]

/// Loads `bytes`: a `BytecodeError`, or a list whose counts stay within the file and which answers
/// requests. Returns whether it was accepted.
@discardableResult
private func loadsSafely(_ bytes: [UInt8], _ what: @autoclosure () -> String) -> Bool {
    let list: CompiledRuleList
    do {
        list = try CompiledRuleList(validating: bytes)
    } catch {
        return false  // (typed: only a BytecodeError can be thrown)
    }
    let file = list.file
    for (name, count) in [
        ("url patterns", file.urlPatternCount), ("top-url patterns", file.topPatternCount),
        ("frame-url patterns", file.framePatternCount), ("rules", file.rules.count), ("conditions", file.conditions.count),
        ("actions", file.actions.count), ("rule slots", file.patternRules.count),
    ] where count > bytes.count {
        Issue.record("\(what()): \(count) \(name) accepted in a file of \(bytes.count) bytes")
        return true
    }
    let evaluator = Evaluator(list)
    for request in requests { _ = evaluator.outcome(for: request) }
    return true
}

@Suite struct HostileFileTests {
    /// The files the tests corrupt: a shipped list and the extras, both loading as compiled.
    static func sources() throws -> [(name: String, bytes: [UInt8])] {
        let files = [
            ("ddg-tds-reference-rules", try compiledBytes(try shippedList("ddg-tds-reference-rules.json"))),
            ("extras", try compiledBytes(Array(extrasList.utf8))),
        ]
        for (name, bytes) in files { #expect(loadsSafely(bytes, name), "\(name) loads as compiled") }
        return files
    }

    /// Every 4-byte count (and anything else) set to huge values: at every offset after the header,
    /// the little-endian u32s 0x7FFFFFFF and 0xFFFFFFFF, and the varint of 0xFFFFFFFF.
    @Test func hugeCountsAnywhereAreRefused() throws {
        for (name, bytes) in try Self.sources() {
            var accepted = 0
            for offset in 32..<bytes.count {
                let patches: [[UInt8]] = [[0xFF, 0xFF, 0xFF, 0x7F], [0xFF, 0xFF, 0xFF, 0xFF], [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]]
                for patch in patches where offset + patch.count <= bytes.count {
                    var corrupt = bytes
                    corrupt.replaceSubrange(offset..<offset + patch.count, with: patch)
                    if loadsSafely(withValidChecksum(corrupt), "\(name): \(patch) at \(offset)") { accepted += 1 }
                }
            }
            // Huge values land in targets and payloads too; only the counts must never pass.
            #expect(accepted < (bytes.count - 32) / 10, "\(name): \(accepted) patched files accepted")
        }
    }

    /// Each count field of the patterns section, named: the three pattern counts, then the
    /// universal rules' count (the section's last 4 bytes hold it only when it is 0).
    @Test func eachPatternCountIsRefusedWithItsOwnError() throws {
        let bytes = try compiledBytes(Array(extrasList.utf8))
        var directory = ByteReader(bytes, from: 32 + 3 * 12)
        #expect(try directory.u32() == SectionKind.patterns.rawValue)
        let start = Int(try directory.u32())
        let length = Int(try directory.u32())
        for (field, what) in ["url patterns", "top-url patterns", "frame-url patterns"].enumerated() {
            for huge: UInt32 in [0x7FFF_FFFF, 0xFFFF_FFFF] {
                var corrupt = bytes
                for index in 0..<4 { corrupt[start + 4 * field + index] = UInt8(truncatingIfNeeded: huge >> (8 * UInt32(index))) }
                #expect(throws: BytecodeError.countTooLarge(at: start + 4 * field, what: what, count: Int(huge), limit: field == 0 ? length - 12 : corrupt.count)) {
                    _ = try CompiledFile(validating: withValidChecksum(corrupt))
                }
            }
        }
    }

    /// Random changes of 1 to 8 bytes after the header, the checksum recomputed each time.
    @Test func randomByteChangesAreRefusedOrLoadSafely() throws {
        var random = SplitMix64(seed: 0x25_2025)
        func next(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        for (name, bytes) in try Self.sources() {
            var accepted = 0
            for round in 0..<3_000 {
                var corrupt = bytes
                for _ in 0...next(8) {
                    let offset = 32 + next(bytes.count - 32)
                    corrupt[offset] = next(4) == 0 ? corrupt[offset] ^ UInt8(1 << next(8)) : UInt8(next(256))
                }
                if loadsSafely(withValidChecksum(corrupt), "\(name) round \(round)") { accepted += 1 }
            }
            #expect(accepted > 0, "\(name): some changes are harmless (a target, a letter)")
        }
    }
}
