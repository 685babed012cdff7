// DialectRuleList.swift — Corpus
//
// A shipped rule list (AdGuard's spelling) re-spelled in a dialect: every trigger's url-filter,
// and every if-top-url, unless-top-url, if-frame-url and unless-frame-url pattern, that starts
// with AdGuard's `||` prefix is re-spelled (DialectRespelling.swift); the rest of each rule is
// kept as it is (the JSON is written again, its keys sorted). The patterns re-spelled are kept in
// pairs, with the case-sensitivity their rule gives them, for the meaning check
// (DialectMeaningCheck.swift). Used by benchmark definitions with a `dialect` and by
// `blockbench dialects`.
// Tested by CorpusTests (DialectTests).

internal import Foundation

/// A pattern as shipped and as a dialect spells it.
public struct RespelledPattern: Hashable, Sendable {
    public var original: String
    public var respelled: String
    public var isCaseSensitive: Bool
}

/// A rule list in a dialect.
public struct RespelledRuleList: Sendable {
    public var dialect: Dialect
    public var json: [UInt8]
    /// Every distinct pattern re-spelled, in the order first met.
    public var patterns: [RespelledPattern]
    /// The rules read, and how many patterns (url-filters and conditions) were re-spelled in all.
    public var ruleCount = 0
    public var respelledCount = 0
}

public enum DialectRuleListError: Error, CustomStringConvertible {
    case notAList(String)

    public var description: String {
        switch self {
        case .notAList(let reason): "not a rule list: \(reason)"
        }
    }
}

extension Dialect {
    /// The condition keys whose patterns are re-spelled, with the key of their case-sensitivity.
    static let conditionKeys: [(key: String, caseKey: String)] = [
        ("if-top-url", "top-url-filter-is-case-sensitive"), ("unless-top-url", "top-url-filter-is-case-sensitive"),
        ("if-frame-url", "frame-url-filter-is-case-sensitive"), ("unless-frame-url", "frame-url-filter-is-case-sensitive"),
    ]

    /// The rule list `json` (a JSON array of rules) in this dialect.
    public func respell(json: [UInt8]) throws(DialectRuleListError) -> RespelledRuleList {
        let parsed: Any
        do { parsed = try JSONSerialization.jsonObject(with: Data(json)) } catch { throw .notAList("\(error)") }
        guard let rules = parsed as? [Any] else { throw .notAList("the top level is not an array") }
        var list = RespelledRuleList(dialect: self, json: [], patterns: [])
        var seen = Set<RespelledPattern>()
        func respelled(_ pattern: String, caseSensitive: Bool) -> String {
            guard let new = respell(pattern) else { return pattern }
            list.respelledCount += 1
            let pair = RespelledPattern(original: pattern, respelled: new, isCaseSensitive: caseSensitive)
            if seen.insert(pair).inserted { list.patterns.append(pair) }
            return new
        }
        let out: [Any] = rules.map { element in
            guard var rule = element as? [String: Any], var trigger = rule["trigger"] as? [String: Any] else { return element }
            if let filter = trigger["url-filter"] as? String {
                trigger["url-filter"] = respelled(filter, caseSensitive: trigger["url-filter-is-case-sensitive"] as? Bool ?? false)
            }
            for (key, caseKey) in Self.conditionKeys {
                guard let patterns = trigger[key] as? [Any] else { continue }
                let caseSensitive = trigger[caseKey] as? Bool ?? false
                trigger[key] = patterns.map { ($0 as? String).map { respelled($0, caseSensitive: caseSensitive) } ?? $0 }
            }
            rule["trigger"] = trigger
            return rule
        }
        list.ruleCount = rules.count
        do {
            list.json = [UInt8](try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys, .withoutEscapingSlashes]))
        } catch {
            throw .notAList("\(error)")
        }
        return list
    }
}
