// SplitDiff: what spreading a list over N content blockers (consecutive chunks of its rules, each
// compiled as a list of its own) changes for the requests. Safari applies every content blocker's
// actions; an ignore-previous-rules rule only cancels the rules before it in its own list, so a
// split can let an earlier part's rules act where the whole list cancelled them. The effects of the
// parts are joined and compared with the whole list's. Tested by
// ListComparisonTests/ListDiffTests.swift.

internal import ContentRuleList
internal import ContentBlocker
internal import RequestContext
internal import Corpus

enum SplitDiff {
    static func effect(of whole: DiffSide, json: [UInt8], parts: Int, profile: SafariProfile, requestSets: [RequestSet]) -> SplitEffect {
        let chunks = chunked(whole.list.rules, parts: max(1, parts))
        let compiled = chunks.compactMap { try? RuleListCompiler.compile(RuleList(rules: $0)).0 }
        var effect = SplitEffect(parts: chunks.count, requestsChanged: 0, changes: [], ignoreRulesCut: cutIgnores(chunks))
        guard compiled.count == chunks.count else { return effect }
        let blockers = ContentBlockers(compiled)
        for set in requestSets {
            for item in set.requests {
                let outcome = whole.outcome(item.request)
                let outcomes = blockers.outcomes(for: item.request)
                let joined = outcomes.reduce(into: Set<String>()) { $0.formUnion(whole.effects($1)) }
                let was = whole.effects(outcome)
                guard joined != was else { continue }
                effect.requestsChanged += 1
                guard effect.changes.count < 100 else { continue }
                effect.changes.append(change(item, set: set.name, whole: whole, outcome, outcomes, was: was, joined: joined))
            }
        }
        return effect
    }

    static func chunked(_ rules: [Rule], parts: Int) -> [[Rule]] {
        let size = (rules.count + parts - 1) / parts
        guard size > 0 else { return [] }
        return stride(from: 0, to: rules.count, by: size).map { Array(rules[$0..<min($0 + size, rules.count)]) }
    }

    /// ignore-previous-rules rules that are not in the first part: rules before them sit in other parts.
    static func cutIgnores(_ chunks: [[Rule]]) -> Int {
        chunks.dropFirst().reduce(0) { $0 + $1.count { $0.action == .ignorePreviousRules } }
    }

    static func change(
        _ item: CorpusRequest, set: String, whole: DiffSide, _ outcome: MatchOutcome, _ outcomes: [MatchOutcome],
        was: Set<String>, joined: Set<String>
    ) -> RequestChange {
        let acting = Set(whole.acting(outcome).map(\.index))
        let actingSplit = outcomes.flatMap { whole.acting($0) }
        let applying = outcome.matchingRules.compactMap { whole.byIndex[$0] }
        // The whole list's ignore rules that cancelled what now acts, and the rules that now act.
        let cancelled = actingSplit.filter { !acting.contains($0.index) }
        let ignores = applying.filter { $0.action == .ignorePreviousRules && acting.contains($0.index) }
        return RequestChange(
            requestSet: set, row: item.row, url: item.request.url.string, resourceType: item.corpusType,
            mainDocumentURL: item.request.mainDocumentURL.string, old: was.sorted(), new: joined.sorted(),
            rules: (cancelled + ignores).map { $0.mention("new") })
    }
}
