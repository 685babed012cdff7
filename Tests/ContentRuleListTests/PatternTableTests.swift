// The pattern table: distinct texts numbered once in rule order, each parsed once, the same
// parses as one pattern at a time; and the parser's verdicts read from it. Covers
// Sources/ContentRuleList/PatternTable.swift.

import Testing
@testable import ContentRuleList
import URLFilterSyntax

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

    @Test func parsesEveryTextAsTheParserDoesAlone() {
        var table = PatternTable()
        // Enough texts for several chunks of the parallel parse, valid and not.
        let texts = (0..<5_000).map { index in
            switch index % 5 {
            case 0: "^https?://ads\(index)\\.example/"
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
        for (number, key) in table.keys.enumerated() {
            #expect(table[Int32(number)] == URLFilterParser.parse(key.source, isCaseSensitive: key.isCaseSensitive), "\(key.source)")
        }
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
