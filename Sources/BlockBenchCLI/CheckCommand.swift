// `blockbench check`: the linter a content-blocker developer runs. Says whether WebKit compiles
// the list and, if not, every error with its rule and key path; counts what the list uses.

import ArgumentParser
import ContentRuleList
import Foundation
import Harness
import URLFilterSyntax

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check rule lists the way WebKit does: exit 0 when WebKit compiles every list, 1 when it rejects one.",
        discussion: """
            With no file, checks every rule list in Corpora/manifest.json. Files may be gzip-compressed.
            Rules WebKit drops silently (css-display-none with a selector its CSS parser rejects) and
            rules whose url-filter matches every URL are reported as warnings.
            """)

    @Argument(help: "Rule-list JSON files (.json or .json.gz).")
    var files: [String] = []

    @Option(help: "The corpora folder, for checking the shipped lists.")
    var corpora = "Corpora"

    @Flag(help: "Print one JSON object per list instead of text.")
    var json = false

    @Option(help: "How many warnings of each kind to print per list (all with --json).")
    var maxWarnings = 10

    func run() throws {
        let paths = try files.isEmpty
            ? CorpusManifest.load(root: corpora).entries(ofKind: "rules").map { "\(corpora)/\($0.file)" }
            : files
        var rejected = false
        var unreadable = false
        for path in paths {
            let started = ContinuousClock.now
            let bytes: [UInt8]
            do {
                bytes = try CorpusFiles.read(path)
            } catch {
                printError("error: \(error)")
                unreadable = true
                continue
            }
            let check = RuleListParser.check(bytes)
            let elapsed = ContinuousClock.now - started
            let report = CheckReport(path: path, check: check, seconds: elapsed.seconds)
            if case .failure = check.verdict { rejected = true }
            print(json ? report.json() : report.text(maxWarnings: maxWarnings))
        }
        if unreadable { throw ExitCode(66) }
        if rejected { throw ExitCode(1) }
    }
}

/// What `check` says about one list.
struct CheckReport {
    var path: String
    var check: RuleListCheck
    var seconds: Double

    var statistics: RuleListStatistics { RuleListStatistics(check.list, statuses: check.urlFilterStatuses) }

    func text(maxWarnings: Int) -> String {
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

    func json() -> String {
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

// MARK: - Output helpers

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

func jsonLine(_ object: Any) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
        return "{}"
    }
    return String(decoding: data, as: UTF8.self)
}

func quoted(_ text: String) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes]) else { return text }
    return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
}

extension Int {
    /// 58441 -> "58,441".
    var grouped: String {
        let digits = String(magnitude)
        var out = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (self < 0 ? "-" : "") + out
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
