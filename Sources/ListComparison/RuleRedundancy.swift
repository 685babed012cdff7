// RuleRedundancy: rules of a list that can never take effect, found from the rules alone.
// - repeated: the same trigger and action as an earlier rule (its effect is already there);
// - shadowed: an ignore-previous-rules rule *after* it (ignore-previous-rules cancels the rules
//   before it in the list) applies to every request it applies to, so whenever it applies it is
//   cancelled. "Applies to every request" is decided conservatively: the ignore rule's url-filter
//   is the same text (and case) or matches everything (`.*`), its condition is none or the same,
//   and each of its flag groups is empty or holds the rule's.
// Tested by ListComparisonTests/ListDiffTests.swift.

public import ContentRuleList

public enum RuleRedundancy {
    /// The redundant rules of `rules` (in rule order), each with the rule that makes it so.
    public static func find(_ rules: [Rule], listName: String) -> [RedundantRule] {
        var found: [RedundantRule] = []
        var firstOf: [Rule.Content: Rule] = [:]
        let ignores = IgnoreIndex(rules)
        for rule in rules {
            let content = Rule.Content(rule)
            if let earlier = firstOf[content] {
                found.append(RedundantRule(kind: .repeated, rule: rule.mention(listName), by: earlier.mention(listName)))
                continue
            }
            firstOf[content] = rule
            if let ignore = ignores.shadowing(rule) {
                found.append(RedundantRule(kind: .shadowed, rule: rule.mention(listName), by: ignore.mention(listName)))
            }
        }
        return found
    }
}

/// The ignore-previous-rules rules by url-filter text, the universal ones apart.
private struct IgnoreIndex {
    var byFilter: [String: [Rule]] = [:]
    var universal: [Rule] = []

    init(_ rules: [Rule]) {
        for rule in rules where rule.action == .ignorePreviousRules {
            if rule.trigger.urlFilter == ".*" { universal.append(rule) } else { byFilter[rule.trigger.urlFilter, default: []].append(rule) }
        }
    }

    /// A later ignore-previous-rules rule that applies wherever `rule` does.
    func shadowing(_ rule: Rule) -> Rule? {
        guard rule.action != .ignorePreviousRules && rule.action != .ignoreFollowingRules else { return nil }
        let candidates = (byFilter[rule.trigger.urlFilter] ?? []) + universal
        return candidates.first { $0.index > rule.index && covers($0.trigger, rule.trigger) }
    }

    func covers(_ ignore: Trigger, _ trigger: Trigger) -> Bool {
        (ignore.urlFilter == ".*" || ignore.urlFilterIsCaseSensitive == trigger.urlFilterIsCaseSensitive)
            && (ignore.condition == nil || (ignore.condition == trigger.condition
                && ignore.topURLFilterIsCaseSensitive == trigger.topURLFilterIsCaseSensitive
                && ignore.frameURLFilterIsCaseSensitive == trigger.frameURLFilterIsCaseSensitive))
            && holds(ignore.resourceTypes, trigger.resourceTypes) && holds(ignore.loadTypes, trigger.loadTypes)
            && holds(ignore.loadContexts, trigger.loadContexts)
            && (ignore.requestMethod == nil || ignore.requestMethod == trigger.requestMethod)
    }

    /// Whether a flag group `outer` lets through every request `inner` does (empty: every one).
    func holds<Flags: SetAlgebra>(_ outer: Flags, _ inner: Flags) -> Bool {
        outer.isEmpty || (!inner.isEmpty && inner.isSubset(of: outer))
    }
}

extension Rule {
    /// A rule without its place: what makes two rules the same.
    struct Content: Hashable {
        var trigger: Trigger
        var action: Action
        init(_ rule: Rule) {
            trigger = rule.trigger
            action = rule.action
        }
    }

    func mention(_ list: String) -> RuleMention {
        RuleMention(list: list, index: index.rawValue, urlFilter: trigger.urlFilter, action: action.typeName)
    }
}
