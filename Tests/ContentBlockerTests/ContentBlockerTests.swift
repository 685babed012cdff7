// ContentBlockerTests.swift — the engine end to end: JSON -> compiled file -> bytes -> loaded file ->
// outcome, on the semantics of MatchOutcome.swift (order, batching, ignore rules, the global style
// sheet, conditions, flags, make-https), and saving/loading.

import Testing
import Foundation
import ContentBlocker
import ContentRuleList
import RequestContext
import TestSupport

private func compile(_ json: String) throws -> CompiledRuleList {
    let (list, _) = try RuleListCompiler.compile(json: Array(json.utf8))
    // Always through the bytes, as a browser loading a saved file would.
    return try CompiledRuleList(validating: list.serialized())
}

private func request(
    _ url: String, page: String? = nil, frame: String? = nil, type: ResourceTypes = .image, mainFrame: Bool = false,
    method: RequestMethod? = nil
) -> Request {
    Request(
        url: CanonicalURL(url), mainDocumentURL: CanonicalURL(page ?? url), frameURL: CanonicalURL(frame ?? page ?? url),
        resourceType: type, isMainFrameContext: mainFrame, method: method)
}

private func rule(_ filter: String, _ action: String, _ extra: String = "") -> String {
    #"{"trigger":{"url-filter":"\#(filter)"\#(extra)},"action":{"type":"\#(action)"}}"#
}

private func css(_ filter: String, _ selector: String, _ extra: String = "") -> String {
    #"{"trigger":{"url-filter":"\#(filter)"\#(extra)},"action":{"type":"css-display-none","selector":"\#(selector)"}}"#
}

private func list(_ rules: String...) -> String { "[" + rules.joined(separator: ",") + "]" }

@Suite struct ContentBlockerTests {
    @Test func actionsComeInRuleOrderAndIdenticalOnesOnce() throws {
        let compiled = try compile(list(rule("ads", "block"), rule("track", "block-cookies"), rule("ad", "block"), rule("zzz", "make-https")))
        let outcome = compiled.outcome(for: request("http://ads.example/track"))
        #expect(outcome.actions == [.block, .blockCookies])
        #expect(outcome.matchingRules == [RuleIndex(0), RuleIndex(1), RuleIndex(2)])
        #expect(outcome.appliesGlobalStyleSheet)
    }

    @Test func sameActionWithDifferentFlagsIsListedTwice() throws {
        let compiled = try compile(list(rule("ads", "block", #","resource-type":["image"]"#), rule("ads", "block")))
        #expect(compiled.actions(for: request("http://ads.example/")) == [.block, .block])
    }

    @Test func cssRulesWithOneTriggerAreBatchedAtTheEndOfTheirSegment() throws {
        let compiled = try compile(list(
            css("ads", ".a"), rule("ads", "block"), css("ads", ".b"), css("ads", "#c", #","resource-type":["image"]"#)))
        #expect(compiled.actions(for: request("http://ads.example/")) == [
            .block, .cssDisplayNone(selector: ".a,.b"), .cssDisplayNone(selector: "#c"),
        ])
    }

    @Test func ignorePreviousRulesDropsWhatCameBeforeAndTheGlobalStyleSheet() throws {
        let compiled = try compile(list(
            css(".*", ".global"), rule("ads", "block"), rule("example", "ignore-previous-rules"), rule("ads", "block-cookies")))
        let outcome = compiled.outcome(for: request("http://ads.example/"))
        #expect(outcome.actions == [.blockCookies])
        #expect(!outcome.appliesGlobalStyleSheet)
        #expect(outcome.matchingRules == [RuleIndex(0), RuleIndex(1), RuleIndex(2), RuleIndex(3)])
        let other = compiled.outcome(for: request("http://ads.test/"))
        #expect(other.actions == [.block, .blockCookies])
        #expect(other.appliesGlobalStyleSheet)
    }

    @Test func ignoreFollowingRulesCutsTheList() throws {
        let compiled = try compile(list(rule("ads", "block"), rule("ads", "ignore-following-rules"), rule("ads", "block-cookies")))
        #expect(compiled.actions(for: request("http://ads.example/")) == [.block])
    }

    @Test func flagsMustAllAccept() throws {
        let compiled = try compile(list(
            rule("a", "block", #","resource-type":["script"]"#), rule("a", "block-cookies", #","load-type":["third-party"]"#),
            rule("a", "notify", #","load-context":["top-frame"]"#).replacingOccurrences(of: #""type":"notify""#, with: #""type":"notify","notification":"n""#),
            rule("a", "make-https", #","request-method":"post""#)))
        #expect(compiled.actions(for: request("http://a.example/", type: .script)) == [.block])
        #expect(compiled.actions(for: request("http://a.example/", page: "http://other.test/")) == [.blockCookies])
        #expect(compiled.actions(for: request("http://a.example/", mainFrame: true)) == [.notify(notification: "n")])
        #expect(compiled.actions(for: request("http://a.example/", method: .post)) == [.makeHTTPS])
        #expect(compiled.actions(for: request("http://a.example/", method: .get)) == [])
    }

    /// Every method selects its own rules, a url-filter rule's and a rule matching every URL's
    /// (the page's list is kept per method): the evaluator's code for a request's method is the one
    /// the compiler writes for a rule's.
    @Test func eachMethodSelectsItsOwnRules() throws {
        var rules: [String] = []
        for method in RequestMethod.allCases {
            rules.append(rule("a", "css-display-none", #","request-method":"\#(method.rawValue)""#)
                .replacingOccurrences(of: #""type":"css-display-none""#, with: #""type":"css-display-none","selector":".a-\#(method.rawValue)""#))
            rules.append(rule(".*", "css-display-none", #","request-method":"\#(method.rawValue)""#)
                .replacingOccurrences(of: #""type":"css-display-none""#, with: #""type":"css-display-none","selector":".all-\#(method.rawValue)""#))
        }
        let compiled = try compile("[" + rules.joined(separator: ",") + "]")
        for method in RequestMethod.allCases {
            let actions = compiled.actions(for: request("http://a.example/", method: method))
            #expect(Set(actions) == [.cssDisplayNone(selector: ".a-\(method.rawValue)"), .cssDisplayNone(selector: ".all-\(method.rawValue)")])
        }
        #expect(compiled.actions(for: request("http://a.example/")).isEmpty)
    }

    @Test func domainConditionsLookAtTheMainDocumentHost() throws {
        let compiled = try compile(list(
            rule("ads", "block", #","if-domain":["example.com"]"#), rule("ads", "block-cookies", #","unless-domain":["*example.org"]"#)))
        #expect(compiled.actions(for: request("http://ads.test/", page: "http://example.com/")) == [.block, .blockCookies])
        #expect(compiled.actions(for: request("http://ads.test/", page: "http://www.example.com/")) == [.blockCookies])
        #expect(compiled.actions(for: request("http://ads.test/", page: "http://www.example.org/")) == [])
        #expect(compiled.actions(for: request("http://ads.test/", page: "http://notexample.org/")) == [.blockCookies])
    }

    @Test func topAndFrameURLConditions() throws {
        let compiled = try compile(list(
            rule("ads", "block", #","if-top-url":["^https://shop\\."]"#), rule("ads", "block-cookies", #","unless-frame-url":["widget"]"#),
            rule("ads", "make-https", #","if-top-url":[".*"]"#)))
        #expect(compiled.actions(for: request("http://ads.test/", page: "https://shop.test/")) == [.block, .blockCookies, .makeHTTPS])
        #expect(compiled.actions(for: request("http://ads.test/", page: "https://shop.test/", frame: "https://w.test/widget")) == [.block, .makeHTTPS])
    }

    /// A condition list with a pattern that matches everything lists none of its patterns,
    /// whichever of them came first: it always holds (`if`) or never (`unless`).
    @Test func aConditionMatchingEverythingListsNoPattern() throws {
        let compiled = try compile(list(
            rule("ads", "block", #","if-top-url":["^https://shop\\.",".*"]"#), rule("ads", "block-cookies", #","unless-frame-url":["widget",".*"]"#),
            rule("ads", "make-https", #","if-top-url":["^https://other\\."]"#)))
        #expect(compiled.file.conditions.count == 1)
        #expect(compiled.file.rules.map(\.conditionCount) == [0, 0, 1])
        #expect(compiled.actions(for: request("http://ads.test/", page: "https://other.test/")) == [.block, .makeHTTPS])
        #expect(compiled.actions(for: request("http://ads.test/", page: "https://shop.test/")) == [.block])
    }

    @Test func makeHTTPSOnlyForHTTPAndWSOnTheirDefaultPort() throws {
        let compiled = try compile(list(rule("ads", "make-https")))
        #expect(compiled.actions(for: request("http://ads.test/")) == [.makeHTTPS])
        #expect(compiled.actions(for: request("ws://ads.test/")) == [.makeHTTPS])
        #expect(compiled.actions(for: request("https://ads.test/")) == [])
        #expect(compiled.actions(for: request("http://ads.test:8080/")) == [])
        #expect(compiled.outcome(for: request("http://ads.test:8080/")).matchingRules == [RuleIndex(0)])
    }

    @Test func rulesMatchingEverythingApplyToEveryURLEvenAnchored() throws {
        let compiled = try compile(list(rule("^a*", "block", #","resource-type":["script"]"#)))
        #expect(compiled.actions(for: request("http://x.test/", type: .script)) == [.block])
        #expect(compiled.actions(for: request("http://x.test/", type: .image)) == [])
    }

    @Test func unmatchableURLsGetNothing() throws {
        let compiled = try compile(list(rule(".*", "block"), rule("data", "block")))
        #expect(compiled.outcome(for: request("data:text/plain,hello")) == .none)
    }

    @Test func savingThenLoadingGivesTheSameBytesAndAnswers() throws {
        let bytes = try [UInt8](Data(contentsOf: repositoryURL("Corpora/rules/kablock-blockerList.json")))
        let (compiled, _) = try RuleListCompiler.compile(json: bytes)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("blockbench-test-\(getpid()).bbc").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try compiled.save(to: path)
        let loaded = try CompiledRuleList.load(from: path)
        #expect(loaded.serialized() == compiled.serialized())
        #expect(try RuleListCompiler.compile(json: bytes).0.serialized() == compiled.serialized(), "compiling is deterministic")
        // From the parser's pattern table (above) or parsing the patterns itself: the same file.
        #expect(try RuleListCompiler.compile(RuleListParser.parse(bytes).get()).0.serialized() == compiled.serialized())
        for url in ["http://ads.example.com/banner.gif", "https://www.example.org/", "http://doubleclick.net/x.js"] {
            #expect(loaded.outcome(for: request(url, page: "http://news.test/")) == compiled.outcome(for: request(url, page: "http://news.test/")))
        }
    }

    @Test func aPatternThatExplodesIsATypedErrorNamingItsRules() throws {
        let explodes = ".*a" + String(repeating: ".", count: 40) + "b"
        let json = list(rule("x", "block"), rule(explodes, "block"), rule("y", "block"), rule(explodes, "block"))
        #expect {
            _ = try RuleListCompiler.compile(json: Array(json.utf8), limits: .init(maximumDFAStates: 20_000))
        } throws: { error in
            guard case CompileError.patternTooComplex(_, let rules, .tooManyStates(limit: 20_000, _, _)) = error else { return false }
            return rules == [RuleIndex(1), RuleIndex(3)]
        }
    }

    /// Distinct random literals make an Aho-Corasick automaton: every state has a transition to
    /// each first letter, and a list of 150,000 of them would take gigabytes. The list as a whole
    /// passes the transitions limit (no one pattern does) and stops with a typed error; under the
    /// limit it compiles.
    @Test func aListWhoseAutomataTogetherOutgrowTheLimitIsATypedError() throws {
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        let rules = (0..<400).map { _ in rule(String((0..<24).map { _ in alphabet.randomElement(using: &random)! }), "block") }
        let json = Array(list(rules.joined(separator: ",")).utf8)
        let (_, report) = try RuleListCompiler.compile(json: json)
        #expect(report.url.transitions > 100_000)
        #expect {
            _ = try RuleListCompiler.compile(json: json, limits: .init(maximumTotalTransitions: 100_000, preferredNFAStatesPerDFA: 1_000))
        } throws: { error in
            guard case CompileError.listTooComplex("url", .tooManyTransitionsInAll(limit: 100_000, let reached)) = error else { return false }
            return reached > 100_000 && "\(error)".contains("too many DFA transitions for the patterns together")
        }
        _ = try RuleListCompiler.compile(json: json, limits: .init(maximumTotalTransitions: report.url.transitions))
    }
}
