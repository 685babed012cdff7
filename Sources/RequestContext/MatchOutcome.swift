// MatchOutcome.swift — RequestContext
//
// What a rule list decides for one request. The engine (ContentBlocker) and the reference
// evaluator (PCRE2Oracle) both produce it, and conformance compares the two field by field.

public import ContentRuleList

public struct MatchOutcome: Hashable, Sendable {
    /// The actions WebKit applies, in WebKit's order: rule order after `ignore-following-rules`
    /// cut the list and the last `ignore-previous-rules` removed what came before it. Ignore
    /// actions themselves are never listed; css-display-none rules with identical triggers appear
    /// once, with their selectors comma-joined; identical actions appear once.
    public var actions: [Action]
    /// Every rule whose trigger applies to the request (url-filter, flags and condition), in rule
    /// order, before any ignore rule is applied. Rules of the global style sheet included.
    public var matchingRules: [RuleIndex]
    /// Whether the list's global style sheet (css-display-none rules that match every URL with no
    /// flag and no condition, before the first ignore rule) applies to the page: false once an
    /// `ignore-previous-rules` rule matched.
    public var appliesGlobalStyleSheet: Bool

    public init(actions: [Action], matchingRules: [RuleIndex], appliesGlobalStyleSheet: Bool) {
        self.actions = actions
        self.matchingRules = matchingRules
        self.appliesGlobalStyleSheet = appliesGlobalStyleSheet
    }
}
