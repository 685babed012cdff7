// ReaderEntryPointTests.swift — the reader fuzz targets' entries (Fuzzing/ReaderEntryPoints.swift):
// rule-list JSON, compiled files and request sets, each on its seeds, on cut and corrupted copies
// of them and on a few hand-picked inputs, hold their properties (reject or answer); a compiled
// seed loads, and the header repair lets a corrupted section reach the readers.

import Foundation
import Testing
import Fuzzing
import TestSupport

@Suite struct ReaderEntryPointTests {
    static let corpora = repositoryRoot + "/Corpora"

    @Test func ruleListsOfEveryShapeAreRejectedOrCompiledAndLoadedBack() {
        let inputs = [
            "", "[]", "{}", "[{}]", "[", "\u{FEFF}[]", "[{\"trigger\":{\"url-filter\":\"a\"},\"action\":{\"type\":\"block\"}}]",
            "[{\"trigger\":{\"url-filter\":\"^https?://(www\\\\.)?a\\\\.com[/:]\",\"if-domain\":[\"*b.org\"]},\"action\":{\"type\":\"block\"}}]",
            "[{\"trigger\":{\"url-filter\":\".*\",\"unless-top-url\":[\"x\"]},\"action\":{\"type\":\"css-display-none\",\"selector\":\"a\"}}]",
            "[{\"trigger\":{\"url-filter\":\"[\"},\"action\":{\"type\":\"block\"}}]", "[1e999999]", "[\"\\ud800\"]",
            // Found by this target: a NUL in a domain trapped the compiler (RuleListParserTests).
            "[{\"trigger\":{\"url-filter\":\".*\",\"unless-domain\":[\"*igno\u{0}re.test\"]},\"action\":{\"type\":\"block\"}}]",
        ]
        for input in inputs {
            #expect(RuleListEntryPoint.check(Array(input.utf8)) == nil, "\(input)")
        }
    }

    @Test func compiledSeedsLoadAndAnswer() throws {
        let seeds = CompiledFileEntryPoint.seeds(corpora: Self.corpora)
        #expect(seeds.count >= 7)
        for seed in seeds {
            #expect(CompiledFileEntryPoint.check(seed.bytes) == nil, "\(seed.name)")
        }
    }

    /// Every prefix of a small seed, and each of its bytes flipped (the header made right again, so
    /// that the sections' own checks meet the change), is rejected or answers.
    @Test func cutAndCorruptedCompiledFilesAreRejectedOrAnswer() throws {
        let seed = try #require(CompiledFileEntryPoint.seeds().first { $0.name == "domains.bbc" }).bytes
        for length in 0..<seed.count {
            #expect(CompiledFileEntryPoint.check(Array(seed.prefix(length))) == nil, "prefix \(length)")
        }
        for offset in 32..<seed.count {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var bytes = seed
                bytes[offset] ^= flip
                #expect(CompiledFileEntryPoint.check(bytes) == nil, "byte \(offset) ^ \(flip)")
            }
        }
    }

    @Test func theHeaderRepairSetsTheLengthAndChecksum() throws {
        let seed = try #require(CompiledFileEntryPoint.seeds().first).bytes
        var corrupted = seed
        corrupted[corrupted.count - 1] ^= 0x55
        let repaired = try #require(CompiledFileEntryPoint.withHeaderMadeRight(corrupted))
        #expect(repaired.count == corrupted.count)
        #expect(CompiledFileEntryPoint.withHeaderMadeRight(seed) == seed)
        #expect(CompiledFileEntryPoint.withHeaderMadeRight(Array("not a file".utf8)) == nil)
    }

    @Test func requestFilesOfEveryKindAreRejectedOrAnswered() throws {
        let json = #"[{"url":"https://ads.example.com/a.js","sourceUrl":"https://news.example.org/","type":"script"},{"url":"http://[::1]:0/","sourceUrl":"http://","type":"xhr"}]"#
        let tsv = "url\tsourceUrl\ttype\tblocked\nhttps://a.b/c.png\thttps://d.e/\timage\t1\n\t\t\t\nhttps://x/\thttps://y/\tnot-a-type\t0\n"
        let sitelist = "https://www.example.com/\nhttps://www.example.com/a.js\nhttps://cdn.other.net/x.woff2?y\n\r\nhttps://example.com/\nfile:///etc\n%%%\nhttp://aax.amazon-adsystem.com\u{461}/dtb\nhttp://bücher.example/\n"
        for (mode, text) in [(0, json), (1, tsv), (2, sitelist), (0, "[{]"), (1, ""), (2, "\u{0}\u{FFFF}")] {
            #expect(RequestSetEntryPoint.check([UInt8(mode)] + Array(text.utf8)) == nil, "\(mode): \(text)")
        }
        // Gzip mode: a real gzip of the site list, a cut one, and bytes that are not gzip.
        let gzip = try #require(FileManager.default.contents(atPath: Self.corpora + "/urls/adblock-rust-top500-sitelist-2015.txt.gz"))
        #expect(RequestSetEntryPoint.check([6] + Array(gzip.prefix(4096))) == nil)
        #expect(RequestSetEntryPoint.check([6, 0x1F, 0x8B, 8, 0, 0]) == nil)
        #expect(RequestSetEntryPoint.check([]) == nil)
    }
}
