// The pattern table: distinct texts numbered once in rule order, each parsed once, the same
// parses as one pattern at a time; and the parser's verdicts read from it. Covers
// Sources/ContentRuleList/PatternTable.swift.

import Testing
@testable import ContentRuleList
import URLFilterSyntax
import TestSupport

@Suite struct PatternTableTests {
    private func rules(_ json: String) throws -> [Rule] {
        try RuleListParser.parse(json).get().rules
    }

    @Test func numbersEachTextAndCaseOnceInRuleOrder() throws {
        let rules = try rules(#"""
            [{"trigger":{"url-filter":"ads"},"action":{"type":"block"}},
             {"trigger":{"url-filter":"ads","url-filter-is-case-sensitive":true},"action":{"type":"block"}},
             {"trigger":{"url-filter":"track","if-top-url":["ads","news"]},"action":{"type":"block"}},
             {"trigger":{"url-filter":"ads","if-domain":["example.com"]},"action":{"type":"block"}},
             {"trigger":{"url-filter":"news","unless-frame-url":["frame"],"frame-url-filter-is-case-sensitive":true},"action":{"type":"block"}}]
            """#)
        let table = PatternTable(rules: rules)
        #expect(table.keys == [
            .init(source: "ads", isCaseSensitive: false), .init(source: "ads", isCaseSensitive: true),
            .init(source: "track", isCaseSensitive: false), .init(source: "news", isCaseSensitive: false),
            .init(source: "frame", isCaseSensitive: true),
        ])
        // Per rule: its url-filter, then its url-condition patterns; a domain condition adds none.
        #expect(table.numbersOfRules == [0, 1, 2, 0, 3, 0, 3, 4])
        #expect(table.results.count == table.count)
    }

    /// Many texts into an empty table (its index grown many times), with repeats, texts that
    /// differ in one byte or only in their case sensitivity, lengths around a word's: numbered as
    /// a dictionary numbers them.
    @Test func hashesTheLastBytesAsOneByOne() {
        // The hash's last word, loaded at once from a text of eight bytes or more, is the word
        // built from the bytes left one at a time.
        func byteByByte(_ source: String, caseSensitive: Bool) -> UInt64 {
            func mix(_ hash: UInt64, _ value: UInt64) -> UInt64 {
                let mixed = (hash ^ value) &* 0xBF58_476D_1CE4_E5B9
                return mixed ^ (mixed >> 31)
            }
            let bytes = Array(source.utf8)
            var result = mix(0x9E37_79B9_7F4A_7C15, UInt64(bytes.count))
            var word: UInt64 = 0
            for (index, byte) in bytes.enumerated() {
                word |= UInt64(byte) << (8 * (index % 8))
                if index % 8 == 7 || index == bytes.count - 1 {
                    // (A full word, or the last bytes; a text of whole words ends with 0.)
                    result = mix(result, word)
                    word = 0
                }
            }
            if bytes.count % 8 == 0 { result = mix(result, 0) }
            return mix(result, caseSensitive ? 1 : 0)
        }
        let text = "^[^:]+://+([^:/]+\\.)?ads\\.example\\.com[/:]é"
        for length in 0...text.utf8.count {
            let source = String(decoding: text.utf8.prefix(length), as: UTF8.self)
            for caseSensitive in [false, true] {
                #expect(TextNumbers.hash(source, caseSensitive: caseSensitive) == byteByByte(source, caseSensitive: caseSensitive), "\(source)")
            }
        }
    }

    @Test func numbersManyTextsAsADictionaryDoes() {
        var table = PatternTable()
        var expected: [PatternTable.Key: Int32] = [:]
        var random = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let length = Int(random.next() % 20)
            let text = String((0..<length).map { _ in Character(UnicodeScalar(UInt8(0x61 + random.next() % 3))) })
            let caseSensitive = random.next() % 2 == 0
            let key = PatternTable.Key(source: text, isCaseSensitive: caseSensitive)
            let number = table.number(text, caseSensitive: caseSensitive)
            if let known = expected[key] {
                #expect(number == known, "\(text)")
            } else {
                #expect(Int(number) == expected.count, "\(text)")
                expected[key] = number
            }
        }
        #expect(table.count == expected.count && table.count > 5_000)
    }

    @Test func readsEveryTextAsTheReaderDoesAlone() {
        var table = PatternTable()
        // Enough texts for several chunks of the parallel reading, valid and not, host patterns
        // and others.
        let texts = (0..<6_000).map { index in
            switch index % 6 {
            case 0: "^https?://ads\(index)\\.example/"
            case 5: #"^[^:]+:\/\/+([^:/]+\.)?ads"# + "\(index)" + #"\.example[/:]"#
            case 1: "track(er)?\(index)"
            case 2: "a|b\(index)"
            case 3: "[a-z]+\(index)$"
            default: "x{2}\(index)"
            }
        }
        for (index, text) in texts.enumerated() { _ = table.number(text, caseSensitive: index % 2 == 0) }
        #expect(table.results.isEmpty, "nothing parsed before parseNewKeys")
        table.parseNewKeys()
        _ = table.number("later", caseSensitive: false)
        table.parseNewKeys()
        #expect(table.results.count == texts.count + 1)
        // (A host pattern of another converter's prefix the reader learned is read as its parts,
        // which stand for its parse: ShapedHostPattern.swift.)
        for (number, key) in table.keys.enumerated() {
            let alone = URLFilterParser.read(key.source, isCaseSensitive: key.isCaseSensitive)
            if case .success(.shaped(let shaped)) = table[Int32(number)] {
                #expect(alone == .success(.filter(AcceptedPattern.shaped(shaped).filter)), "\(key.source)")
            } else {
                #expect(table[Int32(number)] == alone, "\(key.source)")
            }
        }
        #expect(table.results.count { if case .success(.host) = $0 { true } else { false } } == 1_000)
        #expect(table.results.count { if case .success(.shaped) = $0 { true } else { false } } > 500)
    }

    /// A text numbered with its reading takes it, also after a text left to be read (which
    /// `parseNewKeys` reads, the readings in number order); a known text keeps its own.
    @Test func aTextNumberedWithItsReadingIsNotReadAgain() throws {
        var table = PatternTable(rules: try rules(#"[{"trigger":{"url-filter":"ads"},"action":{"type":"block"}}]"#))
        let plain = try #require(DomainPattern(plainDomain: "example.com"))
        let other = try #require(DomainPattern(plainDomain: "*other.org"))
        // Given a reading it is not the reader's (an empty domain), so that the test tells which was kept.
        let marked = DomainPattern(source: plain.source, domain: [], subdomains: false)
        #expect(table.number(plain.source, caseSensitive: false, reading: .domain(marked)) == 1)
        #expect(table.results.count == 2)
        // Known texts keep their number and reading.
        #expect(table.number(plain.source, caseSensitive: false, reading: .domain(plain)) == 1)
        #expect(table.number("ads", caseSensitive: false, reading: .domain(plain)) == 0)
        // A text without a reading, then texts with and without: those without read by `parseNewKeys`.
        #expect(table.number("a[b", caseSensitive: false, reading: nil) == 2)
        #expect(table.number(other.source, caseSensitive: false, reading: .domain(marked)) == 3)
        #expect(table.number("b", caseSensitive: false, reading: nil) == 4)
        #expect(table.number(plain.source, caseSensitive: false, reading: .domain(other)) == 1)
        #expect(table.number("c", caseSensitive: false, reading: .domain(plain)) == 5)
        #expect(table.results.count == 2)
        table.parseNewKeys()
        #expect(table.pattern(1) == .domain(marked))
        #expect(table.pattern(2) == nil && table.statuses[2] == URLFilterParser.status(of: "a[b"))
        #expect(table.pattern(3) == .domain(marked))
        #expect(table.pattern(4) == (try URLFilterParser.read("b").get()))
        #expect(table.pattern(5) == .domain(plain))
        #expect(table.statuses == [.ok, .ok, table.statuses[2], .ok, .ok, .ok])
    }

    @Test func theParserHandsOverTheTableItReadVerdictsFrom() throws {
        let json = #"""
            [{"trigger":{"url-filter":"ads"},"action":{"type":"block"}},
             {"trigger":{"url-filter":"b","if-top-url":["ok","a|b"]},"action":{"type":"block"}},
             {"trigger":{"url-filter":"c|d"},"action":{"type":"block"}}]
            """#
        let check = RuleListParser.check(Array(json.utf8))
        // Every error in rule order, the condition's with its position, from one parse per text.
        #expect(check.errors.map(\.keyPath) == ["trigger.if-top-url[1]", "trigger.url-filter"])
        #expect(check.errors.map(\.ruleIndex) == [1, 2])
        #expect(check.urlFilterStatuses == [.ok, .ok, .disjunction])
        #expect(check.patterns.keys.map(\.source) == ["ads", "b", "ok", "a|b", "c|d"])
        #expect(check.patterns.statuses == [.ok, .ok, .ok, .disjunction, .disjunction])
        #expect(check.patterns.ruleStarts == [0, 1, 4, 5])
        // A list with a structural error has its patterns unread.
        let broken = RuleListParser.check(Array(#"[{"trigger":{"url-filter":"a|b"},"action":{"type":"nope"}}]"#.utf8), collectingEveryError: false)
        #expect(broken.patterns.count == 0)
    }
}
