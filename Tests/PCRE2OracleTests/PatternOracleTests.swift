// PatternOracleTests.swift — PCRE2OracleTests
//
// One url-filter through the oracle (PatternOracle.swift), for the translation's documented
// choices that the list-level tests in PCRE2OracleTests.swift leave out: the end-of-URL NUL the
// oracle reads after the URL, WebKit's count of what "matches everything", YARR's saturating brace
// counts, the legacy escapes, codes above 127, and refusals that name their stage. Then the rule
// list prepared for the oracle (ReferenceRuleList): each distinct pattern compiled once, and the
// literal prefilter that changes no answer.

import Testing
import ContentRuleList
import PCRE2Oracle
import RequestContext

private func oracleMatches(_ filter: String, _ subject: String, caseSensitive: Bool = false) throws -> Bool {
    try PatternOracle(source: filter, caseSensitive: caseSensitive).matches(Array(subject.utf8))
}

@Suite struct PatternOracleTests {
    @Test(arguments: [
        // (filter, subject, matches)
        ("a$", "xa", true), ("a$", "ax", false),
        ("a\\0", "xa", true), ("a\\x00", "xa", true), ("a\\0", "xab", false),
        ("[\\09]$", "", false),  // the class and the `$` cannot both read the one NUL
        ("[\\09]$", "9", true),
        ("^a$", "a", true), ("^a$", "ab", false),
        ("a[\\0b]", "a", true), ("a[\\0b]", "ab", true), ("a[\\0b]", "ac", false),
    ] as [(String, String, Bool)])
    func theEndOfTheURLIsOneNULReadOnce(filter: String, subject: String, expected: Bool) throws {
        #expect(try oracleMatches(filter, subject) == expected, "\(filter) on \(subject.debugDescription)")
    }

    @Test(arguments: [
        (".*", true), ("a?", true), ("(ab)*", true), ("$", true), ("^", true), ("^a*$", true),
        ("[\\0]", true),  // a class of NUL alone consumes nothing (WebKit's end marker)
        ("[^\\0]", true),  // counted as `[\0]` is, though it matches one character 1...127
        ("[\\09]", false),  // a class holding NUL among others consumes a character
        ("a", false), ("a*b", false), (".", false), ("[]", false),
    ] as [(String, Bool)])
    func matchesEverythingCountsAsWebKitDoes(filter: String, expected: Bool) throws {
        #expect(try PatternOracle(source: filter, caseSensitive: false).matchesEverything == expected, "\(filter)")
    }

    @Test func aPatternThatMatchesEverythingMatchesEverySubject() throws {
        let oracle = try PatternOracle(source: "[^\\0]", caseSensitive: false)
        for subject in ["", "a", "http://example.com/"] { #expect(try oracle.matches(Array(subject.utf8))) }
    }

    @Test(arguments: [
        // Counts saturate at YARR's infinite: an upper bound past 2^32-1 is no bound.
        ("^a{0,99999999999}b$", "aaaaab", true), ("^a{0,4294967295}b$", "b", true),
        ("^a{00,01}b$", "b", true), ("^a{00,01}b$", "ab", true), ("^a{00,01}b$", "aab", false),
        ("^a{1,}$", "aaa", true), ("^a{1,}$", "", false), ("^a{0,}$", "", true),
        // A `{` that starts no quantifier is itself, as is `}`.
        ("a{b", "a{b", true), ("a{,1}", "a{,1}", true), ("a}", "a}", true),
    ] as [(String, String, Bool)])
    func braceQuantifiersMeanWhatYARRReads(filter: String, subject: String, expected: Bool) throws {
        #expect(try oracleMatches(filter, subject) == expected, "\(filter) on \(subject)")
    }

    @Test(arguments: [
        ("^\\cA$", "\u{01}", true), ("^\\cz$", "\u{1A}", true),  // control letters, either case
        ("^\\u0041$", "a", true), ("^\\u004$", "u004", true),  // \u without four hex digits: `u`
        ("^\\x4$", "x4", true), ("^\\101$", "A", true), ("^\\1010$", "A0", true),  // octal: up to three digits
        ("^\\9$", "9", true), ("^\\t$", "\t", true), ("^\\q$", "q", true),
        ("^[\\b]$", "\u{08}", true),
    ] as [(String, String, Bool)])
    func legacyEscapesMeanWhatAnnexBSays(filter: String, subject: String, expected: Bool) throws {
        #expect(try oracleMatches(filter, subject) == expected, "\(filter) on \(subject.debugDescription)")
    }

    @Test func codesAbove127MatchNoCanonicalURL() throws {
        for filter in ["\\xff", "\\u00e9", "a\\x80?b"] {
            let oracle = try PatternOracle(source: filter, caseSensitive: false)
            #expect(!oracle.matchesEverything, "\(filter)")
            let subjects = (1...127).map { [UInt8($0)] } + [Array("ab".utf8), Array("xffu00e9".utf8)]
            let matched = try subjects.filter { try oracle.matches($0) }
            #expect(matched == (filter == "a\\x80?b" ? [Array("ab".utf8)] : []), "\(filter)")
        }
    }

    @Test func caseSensitivityFoldsASCIILettersOnly() throws {
        #expect(try oracleMatches("^[a-c]$", "B"))
        #expect(try !oracleMatches("^[a-c]$", "B", caseSensitive: true))
        #expect(try !oracleMatches("^\\[$", "{"))  // `[` and `{` differ by the case bit, but are not letters
        #expect(try oracleMatches("^[^a]$", "b") && !oracleMatches("^[^a]$", "A"))
    }

    @Test(arguments: [
        ("a|b", "translation"), ("(?=a)", "translation"), ("\\d", "translation"), ("\\b", "translation"),
        ("a(b", "translation"), ("a)", "translation"), ("*a", "translation"), ("[b-a]", "translation"),
    ])
    func patternsOutsideTheSubsetAreRefusedByTheirStage(filter: String, stage: String) {
        do {
            _ = try PatternOracle(source: filter, caseSensitive: false)
            Issue.record("\(filter) was taken")
        } catch {
            #expect(error.stage == stage, "\(filter): \(error)")
            #expect(!error.reason.isEmpty)
        }
    }
}

@Suite struct ReferenceRuleListTests {
    private func list(_ triggers: [String]) throws -> RuleList {
        let rules = triggers.map { #"{"trigger":{\#($0)},"action":{"type":"block"}}"# }
        return try RuleListParser.parse("[" + rules.joined(separator: ",") + "]").get()
    }

    @Test func eachDistinctPatternIsCompiledOnce() throws {
        let rules = try list([
            #""url-filter":"ads""#, #""url-filter":"ads""#, #""url-filter":"ads","url-filter-is-case-sensitive":true"#,
            #""url-filter":"ADS""#, #""url-filter":"ads","if-domain":["example.com","*example.org"]"#,
            #""url-filter":"track","if-top-url":["ads"]"#, #""url-filter":".*""#,
        ])
        let prepared = try ReferenceRuleList(rules)
        // ads (either case), ads (case-sensitive), ADS, two domain patterns, track, .*
        #expect(prepared.patternCount == 7)
        #expect(prepared.compiledBytes > 0)
        let nothingCompiled = try ReferenceRuleList(try list([#""url-filter":".*""#, #""url-filter":"a?""#]))
        #expect(nothingCompiled.patternCount == 2 && nothingCompiled.compiledBytes == 0)
    }

    /// The literal prefilter skips rules whose required literal a URL lacks; it changes no answer.
    @Test func thePrefilterChangesNoAnswer() throws {
        let rules = try list([
            #""url-filter":"banner""#, #""url-filter":"^https?://ads\\.""#, #""url-filter":"ab+cd""#, #""url-filter":"\\.gif$""#,
            #""url-filter":"x""#, #""url-filter":"track","if-domain":["example.com"]"#,
            #""url-filter":"BANNER","url-filter-is-case-sensitive":true"#, #""url-filter":"(pixel)?\\.png""#,
        ])
        let prepared = try ReferenceRuleList(rules, jit: false)
        let fast = ReferenceEvaluator(prepared, usesPrefilter: true, matcher: .interpreter, samplesInterpreter: false)
        let full = ReferenceEvaluator(prepared, usesPrefilter: false, matcher: .interpreter, samplesInterpreter: false)
        let urls = [
            "https://ads.example.com/", "http://example.com/BANNER.gif", "http://example.com/banner", "http://a.com/abbbcd",
            "http://a.com/acd", "https://example.com/track", "https://other.com/track", "http://a.com/pixel.png",
            "http://a.com/x", "http://a.com/y.gif?z",
        ]
        var matched = 0
        for url in urls {
            let request = Request(url: CanonicalURL(url), mainDocumentURL: CanonicalURL(url), frameURL: CanonicalURL(url), resourceType: .image)
            let expected = try full.outcome(for: request)
            #expect(try fast.outcome(for: request) == expected, "\(url)")
            if !expected.matchingRules.isEmpty { matched += 1 }
        }
        #expect(matched == urls.count - 3, "all but `acd`, `other.com/track` and `y.gif?z`")
        #expect(fast.skippedByPrefilter > 0 && full.skippedByPrefilter == 0)
    }

    /// Rules are indexed by the rarest three bytes of their literal, wherever they are in it:
    /// here the shared `ban` and `ner` leave the last three bytes, or the middle ones, and every
    /// rule is still found (in either case, and case-sensitive).
    @Test func theRarestTrigramIndexDropsNoApplyingRule() throws {
        let rules = try list([
            #""url-filter":"banner_top""#, #""url-filter":"banner_zq9""#, #""url-filter":"banner""#, #""url-filter":"ban-qx-ner""#,
            #""url-filter":"BANNER_W7K","url-filter-is-case-sensitive":true"#, #""url-filter":"top_banner""#,
        ])
        let prepared = try ReferenceRuleList(rules, jit: false)
        let fast = ReferenceEvaluator(prepared, usesPrefilter: true, matcher: .interpreter, samplesInterpreter: false)
        let full = ReferenceEvaluator(prepared, usesPrefilter: false, matcher: .interpreter, samplesInterpreter: false)
        let urls = [
            "http://a.com/banner_top", "http://a.com/BANNER_ZQ9", "http://a.com/x/ban-QX-ner", "http://a.com/BANNER_W7K",
            "http://a.com/banner_w7k", "http://a.com/top_banner", "http://a.com/bann",
        ]
        var applying = Set<RuleIndex>()
        for url in urls {
            let request = Request(url: CanonicalURL(url), mainDocumentURL: CanonicalURL(url), frameURL: CanonicalURL(url), resourceType: .image)
            let expected = try full.outcome(for: request)
            #expect(try fast.outcome(for: request) == expected, "\(url)")
            applying.formUnion(expected.matchingRules)
        }
        #expect(applying.count == 6, "every rule applies somewhere")
        #expect(fast.skippedByPrefilter > 0)
    }

    /// Rules without a url-filter literal but with a positive condition are looked at only on
    /// pages holding one of the condition's literals: none of them is dropped where it could
    /// apply (literals in either case, of a case-sensitive top URL, of a frame URL, several domains).
    @Test func theConditionPrefilterDropsNoApplyingRule() throws {
        let rules = try list([
            #""url-filter":".*","if-domain":["example.com","*shop.org"]"#,
            #""url-filter":".*","if-top-url":["Sport/NEWS\\.txt"],"top-url-filter-is-case-sensitive":true"#,
            #""url-filter":".*","if-top-url":["video"]"#, #""url-filter":"a","if-frame-url":["widget"]"#,
            #""url-filter":".*","unless-domain":["example.com"]"#, #""url-filter":".*","if-top-url":["ab","cdef"]"#,
        ])
        let prepared = try ReferenceRuleList(rules, jit: false)
        let fast = ReferenceEvaluator(prepared, usesPrefilter: true, matcher: .interpreter, samplesInterpreter: false)
        let full = ReferenceEvaluator(prepared, usesPrefilter: false, matcher: .interpreter, samplesInterpreter: false)
        let pages = [
            "https://EXAMPLE.com/", "http://a.b.shop.org/x", "https://news.com/sport/news.txt", "https://news.com/Sport/NEWS.txt",
            "https://www.VIDEO.net/", "https://other.com/widget", "https://other.com/ab",
        ]
        var applying = Set<RuleIndex>()
        for page in pages {
            for frame in [page, "https://cdn.net/WIDGET/"] {
                let request = Request(
                    url: CanonicalURL("https://cdn.net/a.js"), mainDocumentURL: CanonicalURL(page), frameURL: CanonicalURL(frame),
                    resourceType: .script)
                let expected = try full.outcome(for: request)
                #expect(try fast.outcome(for: request) == expected, "\(page) in \(frame)")
                applying.formUnion(expected.matchingRules)
            }
        }
        #expect(applying.count == 6, "every rule applies somewhere")
        #expect(fast.skippedByPrefilter > 0)
    }
}
