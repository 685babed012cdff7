// ConformanceTests.swift — the conformance run catches a seeded engine bug and reduces it to one
// rule and one request; the oracle's literal prefilter changes no answer on the corpora.

import Testing
import Foundation
import ContentBlocker
import ContentRuleList
import Conformance
import Corpus
import Engines
import PCRE2Oracle
import RequestContext
import TestSupport

private func shippedList(_ name: String) throws -> (json: [UInt8], list: RuleList) {
    let manifest = try CorpusManifest.load(root: repositoryRoot + "/Corpora")
    let entry = manifest.corpora.first { $0.name == name }!
    let bytes = try CorpusFiles.read(manifest.path(of: entry))
    return (bytes, try RuleListParser.parse(bytes).get())
}

private func shippedRequests(_ name: String) throws -> RequestSet {
    let manifest = try CorpusManifest.load(root: repositoryRoot + "/Corpora")
    return try RequestSets.load(manifest.corpora.first { $0.name == name }!, from: manifest)
}

@Suite struct ConformanceTests {
    @Test func theRealEngineAgreesWithTheOracleOnKaBlock() throws {
        let (json, list) = try shippedList("kablock")
        let result = try ConformanceRun().run(listName: "kablock", json: json, list: list, requests: try shippedRequests("adblock-rust-requests"))
        #expect(result.requests == 8276)
        #expect(result.requestsWithActions > 500)
        #expect(result.mismatches == 0)
        #expect(result.oracleErrors == 0)
    }

    /// A test-only fault: an engine that forgets `load-type` (it compiles the list with every
    /// rule's load-type cleared). KaBlock's rules are all third-party only, so first-party loads of
    /// tracker hosts in the site list expose it.
    @Test func aSeededEngineBugIsCaughtAndReducedToOneRuleAndOneRequest() throws {
        let (json, list) = try shippedList("kablock")
        var run = ConformanceRun()
        run.engine = ConformanceEngine(name: "forgets-load-type") { list in
            var broken = list
            for index in broken.rules.indices { broken.rules[index].trigger.loadTypes = [] }
            return try ConformanceEngine.blockBench.compile(broken)
        }
        run.reproductions = 2
        let result = try run.run(listName: "kablock", json: json, list: list, requests: try shippedRequests("adblock-rust-top500"))
        #expect(result.mismatches > 0)
        #expect(result.reproductions.count == 2)
        for reproduction in result.reproductions {
            let reduced = try JSONSerialization.jsonObject(with: Data(reproduction.rules.utf8)) as! [[String: Any]]
            #expect(reduced.count == 1, "\(reproduction.rules)")
            #expect(reproduction.engine.hasPrefix("[block]"))
            #expect(reproduction.oracle.hasPrefix("[]"))
            #expect(reproduction.rulesBeforeReduction == 555)
        }
    }

    /// The oracle's shortcut (skip a rule whose required literal is absent) against trying every
    /// rule: KaBlock and the DuckDuckGo list on every shipped request, EasyList and EasyPrivacy on
    /// the first 150 requests of each set (every rule on every request is some 58,000 rules tried
    /// per EasyList request; `blockbench conform --no-prefilter` runs the whole corpora).
    /// (The DuckDuckGo reference list names test hosts only: no shipped request matches it.)
    @Test(arguments: [("kablock", Int.max), ("ddg-tds-reference", Int.max), ("easylist", 150), ("easyprivacy", 150)])
    func thePrefilterChangesNoAnswer(listName: String, limit: Int) throws {
        let list = try ReferenceRuleList(try shippedList(listName).list)
        let fast = ReferenceEvaluator(list, usesPrefilter: true)
        let full = ReferenceEvaluator(list, usesPrefilter: false)
        var compared = 0
        var withRules = 0
        for set in ["adblock-rust-requests", "adblock-rust-top500", "adblock-rust-regressions"] {
            for item in try shippedRequests(set).requests.prefix(limit) {
                let expected = try full.outcome(for: item.request)
                #expect(try fast.outcome(for: item.request) == expected, "\(set) row \(item.row)")
                compared += 1
                if !expected.matchingRules.isEmpty { withRules += 1 }
            }
        }
        #expect(fast.skippedByPrefilter > 0)
        #expect(full.skippedByPrefilter == 0)
        #expect(compared > 0)
        #expect(withRules > 0 || listName == "ddg-tds-reference")
    }
}
