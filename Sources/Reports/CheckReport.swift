// CheckReport.swift — Reports
//
// What `blockbench check` and the main job's check stage print about one rule list: whether WebKit
// compiles it and, if not, every error with its rule and key path; what the list uses; the rules
// WebKit drops silently and those whose url-filter matches every URL, as warnings. As text, or as
// one line of JSON.
// Tested by BlockBenchCLITests/CLITests.swift (CheckCommandTests).

public import ContentRuleList
internal import Foundation
internal import URLFilterSyntax
internal import Corpus
internal import TerminalText

/// What `blockbench check` (and the main job's check stage) says about one list.
public struct CheckReport {
    public var path: String
    public var check: RuleListCheck
    public var seconds: Double

    public init(path: String, check: RuleListCheck, seconds: Double) {
        self.path = path
        self.check = check
        self.seconds = seconds
    }

    var statistics: RuleListStatistics { RuleListStatistics(check.list, statuses: check.urlFilterStatuses) }

    public func text(maxWarnings: Int) -> String {
        var out: [String] = []
        let list = check.list
        switch check.verdict {
        case .success:
            out.append("\(path): WebKit compiles it: \(list.rules.count.grouped) rules kept, \(list.droppedRules.count.grouped) dropped")
        case .failure:
            out.append("\(path): WebKit rejects it with \(check.errors[0].code.name) (\(check.errors.count.grouped) error\(check.errors.count == 1 ? "" : "s") found)")
            for error in check.errors {
                out.append("error: " + error.description.replacingOccurrences(of: "\n", with: "\n    "))
            }
        }
        if !list.rules.isEmpty {
            let stats = statistics
            out.append("  actions: " + stats.actions.map { "\($0.key) \($0.value.grouped)" }.joined(separator: ", "))
            let features = stats.triggerFeatures.map { "\($0.key) \($0.value.grouped)" }.joined(separator: ", ")
            out.append("  triggers: " + (features.isEmpty ? "url-filter only" : features))
            if !stats.urlFilterStatuses.isEmpty {
                out.append("  url-filters: " + stats.urlFilterStatuses.map { "\($0.key) \($0.value.grouped)" }.joined(separator: ", "))
            }
        }
        for (count, dropped) in list.droppedRules.enumerated() {
            if count == maxWarnings {
                out.append("warning: ... and \((list.droppedRules.count - maxWarnings).grouped) more rules dropped for their selector")
                break
            }
            out.append("warning: rule \(dropped.index): dropped by WebKit: css-display-none selector does not parse at byte \(dropped.offset): \(dropped.reason)")
        }
        let everything = matchEverythingRules
        for (count, rule) in everything.enumerated() {
            if count == maxWarnings {
                out.append("warning: ... and \((everything.count - maxWarnings).grouped) more rules whose url-filter matches every URL")
                break
            }
            out.append("warning: rule \(rule.index): url-filter \(quoted(rule.trigger.urlFilter)) matches every URL (\(rule.action.typeName))")
        }
        out.append(String(format: "  checked in %.3f s", seconds))
        return out.joined(separator: "\n")
    }

    /// Rules whose url-filter matches every URL. A css-display-none rule with no other condition
    /// is what the global style sheet is made of, and is not worth a warning.
    var matchEverythingRules: [Rule] {
        zip(check.list.rules, check.urlFilterStatuses).compactMap { rule, status in
            guard status == .matchesEverything else { return nil }
            if case .cssDisplayNone = rule.action { return nil }
            return rule
        }
    }

    /// One line of JSON.
    public func json() -> String {
        var object: [String: Any] = [
            "file": path,
            "compiles": (try? check.verdict.get()) != nil,
            "seconds": seconds,
            "rules": check.list.rules.count,
            "droppedRules": check.list.droppedRules.map { ["rule": $0.index.rawValue, "selector": $0.selector, "reason": $0.reason, "offset": $0.offset] },
            "errors": check.errors.map(\.jsonObject),
            "matchesEverything": matchEverythingRules.map { ["rule": $0.index.rawValue, "urlFilter": $0.trigger.urlFilter, "action": $0.action.typeName] },
        ]
        let stats = statistics
        object["actions"] = Dictionary(uniqueKeysWithValues: stats.actions.map { ($0.key, $0.value) })
        object["triggerFeatures"] = Dictionary(uniqueKeysWithValues: stats.triggerFeatures.map { ($0.key, $0.value) })
        object["urlFilterStatuses"] = Dictionary(uniqueKeysWithValues: stats.urlFilterStatuses.map { ($0.key, $0.value) })
        return jsonLine(object)
    }
}

/// Counts of what a list uses, in a fixed order.
struct RuleListStatistics {
    var actions: [(key: String, value: Int)] = []
    var triggerFeatures: [(key: String, value: Int)] = []
    var urlFilterStatuses: [(key: String, value: Int)] = []

    init(_ list: RuleList, statuses: [URLFilterParseStatus]) {
        var actionCounts: [String: Int] = [:]
        var features: [String: Int] = [:]
        for rule in list.rules {
            actionCounts[rule.action.typeName, default: 0] += 1
            let trigger = rule.trigger
            if trigger.urlFilterIsCaseSensitive { features["url-filter-is-case-sensitive", default: 0] += 1 }
            if !trigger.resourceTypes.isEmpty { features["resource-type", default: 0] += 1 }
            if !trigger.loadTypes.isEmpty { features["load-type", default: 0] += 1 }
            if !trigger.loadContexts.isEmpty { features["load-context", default: 0] += 1 }
            if trigger.requestMethod != nil { features["request-method", default: 0] += 1 }
            if let condition = trigger.condition { features[condition.key, default: 0] += 1 }
        }
        actions = Action.typeNames.compactMap { name in actionCounts[name].map { (name, $0) } }
        let featureOrder = [
            "url-filter-is-case-sensitive", "resource-type", "load-type", "load-context", "request-method",
            "if-domain", "unless-domain", "if-top-url", "unless-top-url", "if-frame-url", "unless-frame-url",
        ]
        triggerFeatures = featureOrder.compactMap { name in features[name].map { (name, $0) } }
        var statusCounts: [URLFilterParseStatus: Int] = [:]
        for status in statuses { statusCounts[status, default: 0] += 1 }
        urlFilterStatuses = URLFilterParseStatus.allCases.compactMap { status in statusCounts[status].map { (status.name, $0) } }
    }
}

extension ContentRuleListError {
    var jsonObject: [String: Any] {
        var object: [String: Any] = ["code": code.name, "message": code.message, "description": description]
        if let ruleIndex { object["rule"] = ruleIndex }
        if let keyPath { object["keyPath"] = keyPath }
        if let detail { object["detail"] = detail }
        if let patternError {
            object["pattern"] = [
                "pattern": patternError.pattern, "status": patternError.status.name, "message": patternError.status.message,
                "start": patternError.span.lowerBound, "end": patternError.span.upperBound,
            ] as [String: Any]
        }
        return object
    }
}

/// One line of JSON, keys sorted.
func jsonLine(_ object: Any) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
        return "{}"
    }
    return String(decoding: data, as: UTF8.self)
}
