// HostileCases.swift — HostileInputs
//
// The hostile-input suite's cases: inputs a user or an attacker may hand `blockbench`, by class
// (size, depth, counts, line ends, encodings), each with the command that reads it and the caps it
// must stay within. Every case is generated from its name and a fixed seed, so a finding replays
// exactly (`blockbench hostile --case NAME`). HostileRunner.swift runs each in a child process.
//
// A case passes when its command ends with one of the exit codes it allows, within its time, under
// its address-space cap, and says why whenever it does not exit 0. A signal (a crash, an abort on
// an allocation past the cap), a timeout or a silent failure is a finding.
// Tested by HostileInputsTests (HostileSuiteTests).

import Bytecode
import ContentBlocker
internal import SeededRandom
import Foundation

public struct HostileCase: Sendable {
    public enum Kind: String, CaseIterable, Sendable {
        case size, depth, counts
        case lineEnds = "line-ends"
        case encodings
    }

    /// `kind/what`, unique: the name `--case` takes.
    public var name: String
    public var kind: Kind
    /// What the input is, in a line.
    public var summary: String
    /// The input files, made when the case runs (a case's arguments name them by file name).
    public var files: @Sendable () throws -> [(name: String, bytes: [UInt8])]
    /// `blockbench`'s arguments; a file argument is the file's name, resolved in the case's folder.
    public var arguments: [String]
    /// The exit codes that pass (any code when nil; a code other than 0 must come with a message).
    public var allowedExits: Set<Int32>?
    public var seconds: Double
    public var addressSpaceMiB: Int

    public init(
        name: String, kind: Kind, summary: String, files: @escaping @Sendable () throws -> [(name: String, bytes: [UInt8])],
        arguments: [String], allowedExits: Set<Int32>?, seconds: Double, addressSpaceMiB: Int
    ) {
        self.name = name
        self.kind = kind
        self.summary = summary
        self.files = files
        self.arguments = arguments
        self.allowedExits = allowedExits
        self.seconds = seconds
        self.addressSpaceMiB = addressSpaceMiB
    }
}

public enum HostileCases {
    /// Every case, in a fixed order.
    public static func all() -> [HostileCase] {
        size() + depth() + counts() + lineEnds() + encodings()
    }

    // MARK: Size

    static func size() -> [HostileCase] {
        [
            HostileCase(
                name: "size/literals-150000", kind: .size,
                summary: "150,000 rules, each url-filter a distinct random 40-character literal (WebKit: 31.7 s, 457 MB)",
                files: { [("list.json", ruleList((0..<150_000).map { literalRule(seed: 1, index: $0) }))] },
                arguments: ["compile", "list.json", "-o", "out.bbc"], allowedExits: [0, 1], seconds: 60, addressSpaceMiB: 3072),
            HostileCase(
                name: "size/rules-150001", kind: .size, summary: "150,001 rules: one past WebKit's limit (JSONTooManyRules)",
                files: { [("list.json", ruleList((0..<150_001).map { _ in #"{"trigger":{"url-filter":"ad"},"action":{"type":"block"}}"# }))] },
                arguments: ["check", "list.json"], allowedExits: [1], seconds: 30, addressSpaceMiB: 1024),
            HostileCase(
                name: "size/pattern-2mb", kind: .size, summary: "one url-filter of 2 MB (a literal)",
                files: { [("list.json", ruleList([#"{"trigger":{"url-filter":"x"# + randomText(seed: 2, count: 2 << 20) + #""},"action":{"type":"block"}}"#]))] },
                arguments: ["compile", "list.json", "-o", "out.bbc"], allowedExits: [0, 1], seconds: 60, addressSpaceMiB: 1024),
            HostileCase(
                name: "size/if-domain-1000000", kind: .size, summary: "one rule with 1,000,000 if-domain entries",
                files: {
                    let domains = (0..<1_000_000).map { "\"d\($0).example\"" }.joined(separator: ",")
                    return [("list.json", ruleList([#"{"trigger":{"url-filter":"ads","if-domain":["# + domains + #"]},"action":{"type":"block"}}"#]))]
                },
                arguments: ["compile", "list.json", "-o", "out.bbc"], allowedExits: [0, 1], seconds: 60, addressSpaceMiB: 2048),
            HostileCase(
                name: "size/list-100mb", kind: .size, summary: "a 100 MB list: 50,000 rules with 2 KB of unless-domain each",
                files: {
                    let domains = (0..<100).map { "\"host\($0).example\"" }.joined(separator: ",")
                    let rule = #"{"trigger":{"url-filter":"ad","unless-domain":["# + domains + "," + domains + "," + domains + "," + domains + "," + domains
                        + #"]},"action":{"type":"block"}}"#
                    return [("list.json", ruleList(Array(repeating: rule, count: 50_000)))]
                },
                arguments: ["check", "list.json"], allowedExits: [0, 1], seconds: 60, addressSpaceMiB: 2048),
            HostileCase(
                name: "size/gzip-bomb", kind: .size, summary: "a gzip file that decompresses to 1 GiB of spaces",
                files: { [("list.json.gz", try gzipBomb(bytes: 1 << 30))] },
                arguments: ["check", "list.json.gz"], allowedExits: [1, 66], seconds: 60, addressSpaceMiB: 1024),
        ]
    }

    // MARK: Depth

    static func depth() -> [HostileCase] {
        let groups = String(repeating: "(", count: 60_000) + "a" + String(repeating: ")", count: 60_000)
        let quantified = "x" + String(repeating: "(a", count: 100_000) + "b" + String(repeating: ")?", count: 100_000)
        let list: @Sendable (String) -> [UInt8] = { filter in ruleList([#"{"trigger":{"url-filter":""# + filter + #""},"action":{"type":"block"}}"#]) }
        return [
            HostileCase(
                name: "depth/groups-60000-check", kind: .depth, summary: "a url-filter of 60,000 nested groups (WebKit accepts it)",
                files: { [("list.json", list(groups))] }, arguments: ["check", "list.json"], allowedExits: [0], seconds: 30,
                addressSpaceMiB: 1024),
            HostileCase(
                name: "depth/groups-60000-compile", kind: .depth, summary: "60,000 nested groups, compiled and loaded back",
                files: { [("list.json", list(groups))] }, arguments: ["compile", "list.json", "-o", "out.bbc"], allowedExits: [0],
                seconds: 30, addressSpaceMiB: 1024),
            HostileCase(
                name: "depth/groups-60000-dump", kind: .depth, summary: "the syntax dump of 60,000 nested groups",
                files: { [] }, arguments: ["dump", "syntax", groups], allowedExits: [0], seconds: 30, addressSpaceMiB: 1024),
            HostileCase(
                name: "depth/quantified-groups-100000", kind: .depth, summary: "x(a(a…b)?)? with 100,000 levels, compiled",
                files: { [("list.json", list(quantified))] }, arguments: ["compile", "list.json", "-o", "out.bbc"], allowedExits: [0],
                seconds: 30, addressSpaceMiB: 1024),
            HostileCase(
                name: "depth/json-arrays-100000", kind: .depth, summary: "100,000 nested JSON arrays (WebKit rejects JSON deeper than 1,001 levels)",
                files: { [("list.json", Array((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8))] },
                arguments: ["check", "list.json"], allowedExits: [1], seconds: 30, addressSpaceMiB: 1024),
            HostileCase(
                name: "depth/json-objects-100000", kind: .depth, summary: "100,000 nested JSON objects in a trigger",
                files: {
                    let nested = String(repeating: #"{"a":"#, count: 100_000) + "1" + String(repeating: "}", count: 100_000)
                    return [("list.json", ruleList([#"{"trigger":{"url-filter":"a","x":"# + nested + #"},"action":{"type":"block"}}"#]))]
                },
                arguments: ["check", "list.json"], allowedExits: [1], seconds: 30, addressSpaceMiB: 1024),
        ]
    }

    // MARK: Counts (compiled files with a valid checksum and hostile content)

    /// A small list with frame-url conditions, header operations and a redirect, so that every
    /// section of the file has content to corrupt.
    static let compiledSource = #"""
        [{"trigger":{"url-filter":"ads","if-frame-url":["frame\\.test","widgets"]},"action":{"type":"block"}},
         {"trigger":{"url-filter":"track","unless-top-url":["news\\.test"]},"action":{"type":"modify-headers","priority":3,
           "request-headers":[{"operation":"set","header":"dnt","value":"1"},{"operation":"remove","header":"cookie"}]}},
         {"trigger":{"url-filter":"^https?://r\\.test/"},"action":{"type":"redirect","redirect":{"transform":{"host":"s.test",
           "query-transform":{"remove-parameters":["utm"]}}}}},
         {"trigger":{"url-filter":"x[a-z]+y","if-domain":["a.test","*b.test"]},"action":{"type":"css-display-none","selector":".ad"}}]
        """#

    static let matchArguments = [
        "--url", "https://ads.example/track.js?utm=1", "--main-document-url", "https://news.test/", "--frame-url",
        "https://frame.test/", "--resource-type", "script",
    ]

    static func counts() -> [HostileCase] {
        let size = (try? compiledFile().count) ?? 0
        var cases: [HostileCase] = []
        // A huge count at every fourth offset past the header.
        for offset in stride(from: 32, to: size - 3, by: 4) {
            cases.append(compiledCase("counts/u32-max-at-\(offset)", "0xFFFFFFFF written at byte \(offset)") { bytes in
                for index in 0..<4 { bytes[offset + index] = 0xFF }
            })
        }
        // Random byte changes, a few at a time.
        for round in 0..<64 {
            cases.append(compiledCase("counts/byte-changes-\(round)", "1-4 random bytes changed (round \(round))") { bytes in
                var random = SplitMix64(seed: 0xC0FFEE &+ UInt64(round))
                for _ in 0...(random.next() % 4) {
                    let offset = 32 + Int(random.next() % UInt64(bytes.count - 32))
                    bytes[offset] ^= UInt8(truncatingIfNeeded: random.next() | 1)
                }
            })
        }
        // Truncations, the checksum fixed for what is left.
        for cut in stride(from: 0, to: size, by: max(1, size / 16)) {
            cases.append(compiledCase("counts/truncated-\(cut)", "the file cut to \(cut) bytes", reseal: cut >= 32) { bytes in
                bytes.removeSubrange(cut...)
            })
        }
        return cases
    }

    static func compiledFile() throws -> [UInt8] {
        try RuleListCompiler.compile(json: Array(compiledSource.utf8)).0.serialized()
    }

    private static func compiledCase(
        _ name: String, _ summary: String, reseal: Bool = true, _ change: @escaping @Sendable (inout [UInt8]) -> Void
    ) -> HostileCase {
        HostileCase(
            name: name, kind: .counts, summary: summary + ", checksum recomputed",
            files: {
                var bytes = try compiledFile()
                change(&bytes)
                return [("list.bbc", reseal ? withValidChecksum(bytes) : bytes)]
            },
            arguments: ["match", "list.bbc"] + matchArguments, allowedExits: nil, seconds: 20, addressSpaceMiB: 512)
    }

    /// The CRC-32 of bytes 32... written into the header (offset 24), as a hostile writer would.
    static func withValidChecksum(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let crc = CRC32.checksum(bytes[32...])
        for index in 0..<4 { bytes[24 + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(index))) }
        return bytes
    }

    // MARK: Line ends

    static func lineEnds() -> [HostileCase] {
        let requests = [
            #"{"url":"https://ads.example/a.js","mainDocumentURL":"https://news.test/","resourceType":"script"}"#,
            #"{"url":"https://news.test/","resourceType":"top-document","mainFrameContext":true}"#,
        ]
        let list = Array(#"[{"trigger":{"url-filter":"ads"},"action":{"type":"block"}}]"#.utf8)
        return [
            HostileCase(
                name: "line-ends/requests-crlf", kind: .lineEnds, summary: "a request file with CRLF line ends",
                files: { [("list.json", list), ("requests.jsonl", Array(requests.joined(separator: "\r\n").utf8) + [13, 10])] },
                arguments: ["match", "list.json", "--requests", "requests.jsonl"], allowedExits: [0], seconds: 20, addressSpaceMiB: 512),
            HostileCase(
                name: "line-ends/requests-cr-only", kind: .lineEnds, summary: "a request file with old Mac CR line ends",
                files: { [("list.json", list), ("requests.jsonl", Array(requests.joined(separator: "\r").utf8))] },
                arguments: ["match", "list.json", "--requests", "requests.jsonl"], allowedExits: nil, seconds: 20, addressSpaceMiB: 512),
            HostileCase(
                name: "line-ends/list-crlf", kind: .lineEnds, summary: "a rule list written with CRLF line ends",
                files: { [("list.json", Array("[\r\n{\"trigger\":{\"url-filter\":\"ads\"},\r\n\"action\":{\"type\":\"block\"}}\r\n]\r\n".utf8))] },
                arguments: ["check", "list.json"], allowedExits: [0], seconds: 20, addressSpaceMiB: 512),
        ]
    }

    // MARK: Encodings

    static func encodings() -> [HostileCase] {
        @Sendable func list(_ filterBytes: [UInt8]) -> [UInt8] {
            Array(#"[{"trigger":{"url-filter":""#.utf8) + filterBytes + Array(#""},"action":{"type":"block"}}]"#.utf8)
        }
        let plain = Array(#"[{"trigger":{"url-filter":"ads"},"action":{"type":"block"}}]"#.utf8)
        return [
            HostileCase(
                name: "encodings/latin1", kind: .encodings, summary: "a url-filter with Latin-1 bytes (not UTF-8)",
                files: { [("list.json", list([0x61, 0xE9, 0x62]))] }, arguments: ["check", "list.json"], allowedExits: [1],
                seconds: 20, addressSpaceMiB: 512),
            HostileCase(
                name: "encodings/utf16-bom", kind: .encodings, summary: "a list in UTF-16LE with a byte-order mark",
                files: { [("list.json", [0xFF, 0xFE] + plain.flatMap { [$0, 0] })] }, arguments: ["check", "list.json"],
                allowedExits: [0, 1], seconds: 20, addressSpaceMiB: 512),
            HostileCase(
                name: "encodings/nul", kind: .encodings, summary: "NUL bytes raw in a string and as \\u0000",
                files: { [("list.json", list([0x61, 0x00, 0x62])), ("escaped.json", list(Array(#"a\u0000b"#.utf8)))] },
                arguments: ["check", "list.json", "escaped.json"], allowedExits: [0, 1], seconds: 20, addressSpaceMiB: 512),
            HostileCase(
                name: "encodings/lone-surrogate", kind: .encodings, summary: "a url-filter with a lone surrogate \\ud800",
                files: { [("list.json", list(Array(#"a\ud800b"#.utf8)))] }, arguments: ["check", "list.json"], allowedExits: [0, 1],
                seconds: 20, addressSpaceMiB: 512),
            HostileCase(
                name: "encodings/garbage-requests", kind: .encodings, summary: "a request file of random bytes",
                files: { [("list.json", plain), ("requests.jsonl", randomBytes(seed: 5, count: 1 << 16))] },
                arguments: ["match", "list.json", "--requests", "requests.jsonl"], allowedExits: nil, seconds: 20, addressSpaceMiB: 512),
            HostileCase(
                name: "encodings/garbage-compiled", kind: .encodings, summary: "random bytes given as a compiled file",
                files: { [("list.bbc", randomBytes(seed: 6, count: 1 << 16))] }, arguments: ["match", "list.bbc"] + matchArguments,
                allowedExits: nil, seconds: 20, addressSpaceMiB: 512),
        ]
    }

    // MARK: Generators

    static func ruleList(_ rules: [String]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, rule) in rules.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += rule.utf8
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    static func literalRule(seed: UInt64, index: Int) -> String {
        #"{"trigger":{"url-filter":""# + randomText(seed: seed &* 1_000_003 &+ UInt64(index), count: 40) + #""},"action":{"type":"block"}}"#
    }

    /// Letters, digits, `/`, `_` and `-`: a literal in a url-filter.
    static func randomText(seed: UInt64, count: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789/_-".utf8)
        var random = SplitMix64(seed: seed)
        return String(decoding: (0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }, as: UTF8.self)
    }

    static func randomBytes(seed: UInt64, count: Int) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    /// A gzip file of `bytes` spaces, made with the gzip tool (about a thousandth of the size).
    static func gzipBomb(bytes: Int) throws -> [UInt8] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("blockbench-bomb-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("bomb.gz")
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", "head -c \(bytes) /dev/zero | tr '\\0' ' ' | gzip -1 > '\(output.path)'"]
        try gzip.run()
        gzip.waitUntilExit()
        return try [UInt8](Data(contentsOf: output))
    }
}
