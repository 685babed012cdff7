// ListDiffer: computes a ListDiff (ListDiff.swift) of two rule lists' JSON: each release's
// verdicts, each list's cost, every request of the sets answered by both lists (a change of
// effects is a change, named with the rules that act in one list and not in the other, and
// checked against the PCRE2 oracle), the rules of NEW no request triggers, the redundant rules,
// and, with `split`, what spreading NEW over that many content blockers changes.
// Tested by ListComparisonTests/ListDiffTests.swift.

public import ContentRuleList
internal import RequestContext
public import Corpus
internal import SafariReleases

public struct ListDiffer {
    public var profile = SafariProfile.newest
    public var profiles: [SafariProfile] = [.newest]
    public var requestSets: [RequestSet] = []
    public var maxGrowth: Double?
    public var split: Int?
    public var checksOracle = true

    public init() {}

    public func diff(old: (name: String, json: [UInt8]), new: (name: String, json: [UInt8])) -> ListDiff {
        var diff = ListDiff(
            old: old.name, new: new.name, safari: profile.version, requestSets: requestSets.map(\.name), requests: 0, changes: [],
            unusedRules: [], oldUnusedRules: 0, redundant: [], oldRedundant: 0, releases: releases(old.json, new.json),
            maxGrowth: maxGrowth, costExceeded: false)
        let oldSide = DiffSide(name: "old", json: old.json, profile: profile)
        let newSide = DiffSide(name: "new", json: new.json, profile: profile)
        diff.oldCost = oldSide?.cost
        diff.newCost = newSide?.cost
        diff.costExceeded = exceeds(diff)
        guard let newSide else { return diff }
        diff.redundant = RuleRedundancy.find(newSide.list.rules, listName: "new")
        diff.oldRedundant = oldSide.map { RuleRedundancy.find($0.list.rules, listName: "old").count } ?? 0
        if let oldSide { answer(&diff, old: oldSide, new: newSide) }
        if let split { diff.split = SplitDiff.effect(of: newSide, json: new.json, parts: split, profile: profile, requestSets: requestSets) }
        return diff
    }

    func releases(_ old: [UInt8], _ new: [UInt8]) -> [ReleaseVerdicts] {
        zip(SafariMatrix.verdicts(old, profiles: profiles), SafariMatrix.verdicts(new, profiles: profiles)).map {
            ReleaseVerdicts(safari: $0.safari, old: $0, new: $1)
        }
    }

    func exceeds(_ diff: ListDiff) -> Bool {
        guard let maxGrowth else { return false }
        return [diff.byteGrowth, diff.stateGrowth].contains { ($0 ?? 0) > maxGrowth }
    }

    /// Every request through both lists: the changes, and the rules each list's requests triggered.
    func answer(_ diff: inout ListDiff, old: DiffSide, new: DiffSide) {
        var triggeredOld = Set<RuleIndex>(), triggeredNew = Set<RuleIndex>()
        for set in requestSets {
            for item in set.requests {
                let before = old.outcome(item.request), after = new.outcome(item.request)
                triggeredOld.formUnion(before.matchingRules)
                triggeredNew.formUnion(after.matchingRules)
                diff.requests += 1
                let change = RequestComparison(old: old, new: new, checksOracle: checksOracle)
                if let found = change.compare(item, set: set.name, before, after) { diff.changes.append(found) }
            }
        }
        diff.unusedRules = new.list.rules.filter { !triggeredNew.contains($0.index) }.map { $0.mention("new") }
        diff.oldUnusedRules = old.list.rules.count { !triggeredOld.contains($0.index) }
    }
}

/// One request through two lists (or a list and its split): a change of effects, with its rules.
struct RequestComparison {
    let old: DiffSide
    let new: DiffSide
    let checksOracle: Bool

    func compare(_ item: CorpusRequest, set: String, _ before: MatchOutcome, _ after: MatchOutcome) -> RequestChange? {
        let was = old.effects(before), is_ = new.effects(after)
        guard was != is_ else { return nil }
        var change = RequestChange(
            requestSet: set, row: item.row, url: item.request.url.string, resourceType: item.corpusType,
            mainDocumentURL: item.request.mainDocumentURL.string, old: was.sorted(), new: is_.sorted(),
            rules: responsible(before, after))
        if checksOracle {
            let agrees = [old.oracleAgrees(item.request, engine: before), new.oracleAgrees(item.request, engine: after)]
            change.oracleAgrees = agrees.contains(nil) ? nil : !agrees.contains(false)
        }
        return change
    }

    /// The rules that act in one list and not (the same trigger and action) in the other.
    func responsible(_ before: MatchOutcome, _ after: MatchOutcome) -> [RuleMention] {
        let was = old.acting(before), is_ = new.acting(after)
        let wasContents = Set(was.map(Rule.Content.init)), isContents = Set(is_.map(Rule.Content.init))
        return was.filter { !isContents.contains(Rule.Content($0)) }.map { $0.mention(old.name) }
            + is_.filter { !wasContents.contains(Rule.Content($0)) }.map { $0.mention(new.name) }
    }
}
