// PCRE2OracleTests.swift — the oracle on its own: the PCRE2 wrapper, the translation of the
// url-filter subset (one expectation per documented choice), and WebKit's request vectors answered
// by the reference evaluator alone (it is an independent implementation, so it must pass them).

import Testing
import Foundation
import ContentRuleList
import PCRE2Oracle
import RequestContext
import TestSupport

private func matches(_ filter: String, _ url: String, caseSensitive: Bool = false) throws -> Bool {
    let escaped = filter.replacingOccurrences(of: "\\", with: "\\\\")
    let list = try RuleListParser.parse(
        #"[{"trigger":{"url-filter":"\#(escaped)","url-filter-is-case-sensitive":\#(caseSensitive)},"action":{"type":"block"}}]"#
    ).get()
    let evaluator = ReferenceEvaluator(try ReferenceRuleList(list))
    let request = Request(url: CanonicalURL(url), mainDocumentURL: CanonicalURL(url), frameURL: CanonicalURL(url), resourceType: .image)
    return try evaluator.outcome(for: request).matchingRules == [RuleIndex(0)]
}

@Suite struct PCRE2WrapperTests {
    @Test func compileErrorsCarryPCRE2sCodeOffsetAndMessage() {
        #expect(throws: PCRE2Error.self) { try PCRE2Regex("a(b", options: []) }
        do {
            _ = try PCRE2Regex("a(b", options: [])
        } catch {
            #expect(error.offset == 3)
            #expect(error.message.contains("missing closing parenthesis"))
        }
    }

    @Test func jitAndInterpreterAgree() throws {
        let regex = try PCRE2Regex("^[a-z]+://(?:[^/]*\\.)*example\\.com[:/]", options: [.caseless, .dollarEndOnly])
        let data = PCRE2MatchData()
        for subject in ["https://example.com/", "HTTP://a.b.EXAMPLE.com:80/", "https://notexample.com/", ""] {
            #expect(try regex.matches(subject, using: data) == regex.matches(subject, using: data, interpreter: true))
        }
        #expect(try regex.matches("https://a.example.com/", using: data))
    }
}

@Suite struct URLFilterTranslationTests {
    @Test(arguments: [
        // (filter, url, matches)
        ("ads", "http://example.com/ADS.js", true),  // case-insensitive by default
        ("^http://example", "http://example.com/", true),
        ("^example", "http://example.com/", false),
        ("\\.js$", "http://example.com/a.js", true),
        ("\\.js$", "http://example.com/a.js?x", false),
        ("\\101", "http://example.com/a", true),  // octal 101 = 'A'
        ("a\\1", "http://example.com/a\u{1}", false),  // \1 is octal 1 (a control code), never a back-reference
        ("\\8", "http://example.com/8", true),
        ("\\x41", "http://example.com/a", true),
        ("\\xZ", "http://example.com/xZ", true),  // \x without hex digits is the letter
        ("\\a", "http://example.com/a", true),  // PCRE2 would read BEL
        ("a{", "http://example.com/?a{", true),  // a lone `{` is literal (the query keeps it unencoded)
        ("a{0,1}b", "http://example.com/b", true),
        ("[]", "http://example.com/", false),
        ("[^]", "http://example.com/", true),
        ("[^a]", "http://example.com/A", true),  // the `/` before the A
        ("/[^a]$", "http://example.com/A", false),  // case folding applies to negated classes too
        ("/.$", "http://example.com/", false),  // `.` never matches the end
        ("[\\b]", "http://example.com/", false),  // backspace in a class
        ("(?<name>ab)+c", "http://example.com/ababc", true),
        ("a*?b", "http://example.com/b", true),
        ("/a\\0", "http://example.com/a", true),  // NUL is WebKit's end-of-URL marker
        ("/a\\0", "http://example.com/ab", false),
        ("/a[\\0b]", "http://example.com/a", true),
        ("/a[\\0b]", "http://example.com/ab", true),
        ("/a[\\0b]", "http://example.com/ac", false),
    ] as [(String, String, Bool)])
    func translatedFiltersMatchLikeWebKit(filter: String, url: String, expected: Bool) throws {
        #expect(try matches(filter, url) == expected, "\(filter) over \(url)")
    }

    @Test func caseSensitiveFiltersDoNotFold() throws {
        #expect(try !matches("ADS", "http://example.com/ads", caseSensitive: true))
        #expect(try matches("ads", "http://example.com/ads", caseSensitive: true))
    }

    @Test(arguments: [".*", "a*", "(foo)?", "a*b?.*", "$", "^$", "^a?$"])
    func filtersWithNothingRequiredMatchEveryURL(filter: String) throws {
        #expect(try matches(filter, "http://example.com/anything"))
    }

    @Test func requiredLiteralIsTheLongestTopLevelRun() throws {
        func literal(_ filter: String, caseSensitive: Bool = false) throws -> String {
            String(decoding: try URLFilterTranslation.translate(filter, caseSensitive: caseSensitive).requiredLiteral, as: UTF8.self)
        }
        #expect(try literal("^[^:]+://+([^:/]+\\.)?Example\\.com[/:]") == "example.com")
        #expect(try literal("ADS", caseSensitive: true) == "ADS")
        #expect(try literal("abc?def") == "def")
        #expect(try literal("ab+cd") == "ab")
        #expect(try literal("(abcdef)") == "")
        #expect(try literal(".*") == "")
    }
}

/// The `requestVectorTests` of Corpora/conformance/webkit-vectors.json, answered by the oracle.
@Suite struct OracleVectorTests {
    @Test func theOraclePassesWebKitsRequestVectors() throws {
        let data = try Data(contentsOf: repositoryURL("Corpora/conformance/webkit-vectors.json"))
        let file = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        var passed = 0
        var failures: [String] = []
        for test in file["requestVectorTests"] as! [[String: Any]] {
            for vector in test["vectors"] as! [[String: Any]] {
                let rules = vector["rules"] as! String
                let fields = vector["request"] as! [String: Any]
                let expected = vector["expectedActions"] as! [String]
                let expectedSheets = vector["expectedStylesheetLists"] as? Int ?? 1
                let list = try RuleListParser.parse(rules).get()
                let type = ResourceTypes.requestNames.first { $0.name == fields["resourceType"] as! String }!.type
                let request = Request(
                    url: CanonicalURL(fields["url"] as! String), mainDocumentURL: CanonicalURL(fields["mainDocumentURL"] as! String),
                    frameURL: CanonicalURL(fields["frameURL"] as! String), resourceType: type,
                    isMainFrameContext: fields["mainFrameContext"] as? Bool ?? false,
                    method: (fields["requestMethod"] as? String).flatMap { RequestMethod(rawValue: $0.lowercased()) })
                let outcome = try ReferenceEvaluator(try ReferenceRuleList(list)).outcome(for: request)
                let got = outcome.actions.map(\.typeName)
                if got == expected && (outcome.appliesGlobalStyleSheet ? 1 : 0) == expectedSheets {
                    passed += 1
                } else {
                    failures.append("\(test["test"]!): \(rules) \(fields): expected \(expected) sheets \(expectedSheets), got \(got) sheets \(outcome.appliesGlobalStyleSheet)")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failed:\n\(failures.prefix(20).joined(separator: "\n"))")
        #expect(passed >= 700)
    }
}
