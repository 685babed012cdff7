// DiffSide: one of the two lists `blockbench diff` compares, read and compiled as one Safari
// release does (ProfiledCompile), with what the diff asks of it: each request's outcome and
// effects, the rules that act, the oracle's outcome. Tested by
// ListComparisonTests/ListDiffTests.swift.

internal import ContentBlocker
internal import ContentRuleList
internal import PCRE2Oracle
internal import RequestContext
internal import SafariReleases

final class DiffSide {
    let name: String
    let list: RuleList
    let compiled: CompiledRuleList
    let cost: ListCost
    let byIndex: [RuleIndex: Rule]
    let hasGlobalStyleSheet: Bool
    private let evaluator: Evaluator
    private var oracle: ReferenceEvaluator?

    /// Nil when the list does not compile for `profile`.
    init?(name: String, json: [UInt8], profile: SafariProfile) {
        guard case .success(let list) = ProfiledCompile.parse(json, profile: profile) else { return nil }
        let started = ContinuousClock.now
        guard let (compiled, report) = try? ProfiledCompile.compile(json: json, profile: profile) else { return nil }
        let seconds = (ContinuousClock.now - started).seconds
        self.name = name
        self.list = list
        self.compiled = compiled
        let states = report.url.states + report.topURL.states + report.frameURL.states
        cost = ListCost(rules: list.rules.count, jsonBytes: json.count, bytes: compiled.serialized().count, states: states, compileSeconds: seconds)
        byIndex = Dictionary(list.rules.map { ($0.index, $0) }, uniquingKeysWith: { first, _ in first })
        hasGlobalStyleSheet = list.rules.contains { DiffSide.isGlobalStyleSheet($0) }
        evaluator = Evaluator(compiled)
    }

    func outcome(_ request: Request) -> MatchOutcome { evaluator.outcome(for: request) }

    func effects(_ outcome: MatchOutcome) -> Set<String> { ActingRules.effects(outcome, globalStyleSheet: hasGlobalStyleSheet) }

    func acting(_ outcome: MatchOutcome) -> [Rule] { ActingRules.acting(outcome.matchingRules, in: byIndex) }

    /// Whether the PCRE2 oracle gives `request` the outcome the engine gave (nil: the oracle failed).
    func oracleAgrees(_ request: Request, engine: MatchOutcome) -> Bool? {
        if oracle == nil, let reference = try? ReferenceRuleList(list) { oracle = ReferenceEvaluator(reference) }
        guard let oracle, let answer = try? oracle.outcome(for: request) else { return nil }
        return answer == engine
    }

    /// css-display-none, url-filter `.*`, no flag, no condition (MatchOutcome.swift, point 5).
    static func isGlobalStyleSheet(_ rule: Rule) -> Bool {
        guard case .cssDisplayNone = rule.action else { return false }
        return rule.trigger.urlFilter == ".*" && rule.trigger.condition == nil && rule.trigger.flags == .none
    }
}
