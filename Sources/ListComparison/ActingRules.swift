// ActingRules: what a request's outcome means for a list author, as `blockbench diff` compares it.
// The rules that *act* (MatchOutcome.swift, point 3: the applying rules up to the first
// ignore-following-rules, then only those after the last ignore-previous-rules), and the verdict
// as a set of effects ("block", "css-display-none .ad", ...): two lists that take the same effects
// in another order, or batch their selectors differently, give a request the same verdict.
// Tested by ListComparisonTests/ListDiffTests.swift.

public import ContentRuleList
public import RequestContext
internal import Foundation

public enum ActingRules {
    /// The rules of `list` that act on a request whose applying rules are `matching`.
    public static func acting(_ matching: SharedList<RuleIndex>, in rules: [RuleIndex: Rule]) -> [Rule] {
        var acting: [Rule] = []
        for index in matching {
            guard let rule = rules[index] else { continue }
            acting.append(rule)
            if rule.action == .ignoreFollowingRules { break }
        }
        if let last = acting.lastIndex(where: { $0.action == .ignorePreviousRules }) {
            acting.removeFirst(last)
        }
        return acting
    }

    /// The effects of an outcome: one string per action (a css-display-none action per selector),
    /// and the global style sheet when the list has one and it applies.
    public static func effects(_ outcome: MatchOutcome, globalStyleSheet: Bool) -> Set<String> {
        var effects = Set<String>()
        for action in outcome.actions {
            switch action {
            case .cssDisplayNone(let selector):
                for part in selector.split(separator: ",") { effects.insert("css-display-none \(part.trimmingCharacters(in: .whitespaces))") }
            case .notify(let notification): effects.insert("notify \(notification)")
            case .redirect(let redirect): effects.insert("redirect \(redirect)")
            case .modifyHeaders(let headers): effects.insert("modify-headers \(headers)")
            default: effects.insert(action.typeName)
            }
        }
        if globalStyleSheet && outcome.appliesGlobalStyleSheet { effects.insert("global style sheet") }
        return effects
    }
}
