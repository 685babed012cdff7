// `blockbench diff` on a real edit of a shipped list (Ka-Block: rules removed, added, moved, an
// ignore-previous-rules rule inserted): every request that changes is named with the rules behind
// it and checked against the PCRE2 oracle; a move alone changes nothing; the shadowed and repeated
// rules; a split that cuts an ignore rule from the rules it cancelled; the exit codes.
// Covers Sources/ListComparison.

import ContentRuleList
import Foundation
import Conformance
import Corpus
import ListComparison
import SafariReleases
import Testing
import TestSupport

@Suite struct ListDiffTests {
    let corpora = repositoryRoot + "/Corpora"

    func kablock() throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: corpora + "/rules/kablock-blockerList.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    }

    func bytes(_ rules: [[String: Any]]) throws -> [UInt8] { Array(try JSONSerialization.data(withJSONObject: rules)) }

    func rule(_ filter: String, _ type: String, caseSensitive: Bool = false, resourceTypes: [String]? = nil) -> [String: Any] {
        var trigger: [String: Any] = ["url-filter": filter, "url-filter-is-case-sensitive": caseSensitive]
        if let resourceTypes { trigger["resource-type"] = resourceTypes }
        return ["trigger": trigger, "action": ["type": type]]
    }

    /// The edit of docs/CLI.md's sample: rules 6-10 removed, 11-20 moved to the end, a rule added, then an
    /// ignore-previous-rules rule with rule 11's url-filter.
    func edited(_ rules: [[String: Any]]) -> [[String: Any]] {
        let threeLift = (rules[11]["trigger"] as? [String: Any])?["url-filter"] as? String ?? ""
        let kept = Array(rules[..<6]) + Array(rules[11...])
        return Array(kept[..<6]) + Array(kept[16...]) + Array(kept[6..<16])
            + [rule(#"\.gif\?"#, "block", resourceTypes: ["image"]), rule(threeLift, "ignore-previous-rules", caseSensitive: true)]
    }

    func differ() throws -> ListDiffer {
        var differ = ListDiffer()
        differ.profiles = try SafariProfiles.load(corpora: corpora)
        let manifest = try CorpusManifest.load(root: corpora)
        differ.requestSets = try CorpusConformance.select(["adblock-rust-requests"], kinds: RequestSets.kinds, manifest: manifest).map {
            try RequestSets.load(path: $0.path, kind: $0.kind, name: $0.name)
        }
        return differ
    }

    @Test func everyChangeOfARealEditIsNamedWithItsRulesAndTheOracleAgrees() throws {
        let rules = try kablock()
        let diff = try differ().diff(old: ("old", try bytes(rules)), new: ("new", try bytes(edited(rules))))
        #expect(!diff.changes.isEmpty)
        for change in diff.changes {
            #expect(!change.rules.isEmpty, "\(change.url)")
            #expect(change.oracleAgrees == true, "\(change.url)")
        }
        let named = Set(diff.changes.flatMap(\.rules).map { "\($0.list) #\($0.index) \($0.action)" })
        // Removed rules, the added rule and the inserted ignore rule; no moved rule but 3lift's.
        #expect(named.isSuperset(of: ["old #8 block", "old #6 block", "new #550 block", "new #551 ignore-previous-rules", "old #11 block"]))
        #expect(!named.contains { $0.hasPrefix("old #12 ") || $0.hasPrefix("new #540 ") })
        #expect(diff.exitCode == 3)
        #expect(diff.releasesLost.isEmpty)
        #expect(diff.redundant.contains { $0.kind == .shadowed && $0.rule.index == 540 && $0.by.index == 551 })
        #expect(diff.redundant.contains { $0.kind == .repeated })
    }

    @Test func movingRulesWithTheSameActionChangesNoVerdict() throws {
        let rules = try kablock()
        let moved = Array(rules[20...]) + Array(rules[..<20])
        let diff = try differ().diff(old: ("old", try bytes(rules)), new: ("new", try bytes(moved)))
        #expect(diff.changes.isEmpty)
        #expect(diff.exitCode == 0)
    }

    /// The ignore rule in the second part no longer cancels the first part's block rule.
    @Test func aSplitCutsAnIgnoreRuleFromTheRulesBeforeIt() throws {
        var rules = try kablock()
        let twoMdn = try #require((rules[8]["trigger"] as? [String: Any])?["url-filter"] as? String)
        rules.append(rule(twoMdn, "ignore-previous-rules", caseSensitive: true))
        var differ = try differ()
        differ.split = 2
        let diff = differ.diff(old: ("old", try bytes(rules)), new: ("new", try bytes(rules)))
        let split = try #require(diff.split)
        #expect(split.requestsChanged > 0)
        #expect(split.ignoreRulesCut == 1)
        #expect(split.changes.allSatisfy { change in change.rules.contains { $0.index == 8 } && change.new.contains("block") })
    }

    @Test func losingASafariReleaseAndGrowingBeyondTheThresholdHaveTheirExitCodes() throws {
        let rules = try kablock()
        var fetch = rules
        fetch.append(rule("tracker", "block", resourceTypes: ["fetch"]))
        let lost = try differ().diff(old: ("old", try bytes(rules)), new: ("new", try bytes(fetch)))
        #expect(lost.releasesLost == ["13", "14", "14.1"])
        #expect(lost.exitCode == 4)
        var differ = try differ()
        differ.maxGrowth = 0
        differ.checksOracle = false
        var grown = rules
        grown.append(rule("a[0-9]+b[0-9]+c", "block"))
        let costly = differ.diff(old: ("old", try bytes(rules)), new: ("new", try bytes(grown)))
        #expect(costly.costExceeded)
        #expect(costly.exitCode == 5)
        #expect(costly.markdown(maxItems: 5).contains("| Safari | old | new |"))
    }
}
