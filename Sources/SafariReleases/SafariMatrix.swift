// SafariMatrix: one rule list's verdict in every profiled Safari release (`blockbench check
// --safari all`): compiles, or the first error with its rule and key path; and, where it compiles,
// how many rules the release reads differently because it ignores a trigger key it does not know
// (such a rule applies more widely there). Tested by SafariReleasesTests/SafariProfilesTests.swift.

public import ContentRuleList
internal import TerminalText

/// A list's verdict in one release.
public struct SafariVerdict: Sendable, Codable, Equatable {
    public var safari: String
    public var compiles: Bool
    /// The first error (WebKit's verdict), when it does not compile.
    public var error: String?
    public var rule: Int?
    public var keyPath: String?
    /// Rules whose trigger this release reads differently from the newest (keys ignored).
    public var rulesWidened: Int
    public var rules: Int
    public var maximumRuleCount: Int

    /// `26     compiles` or `13     rejects: rule 4: trigger...: JSONInvalid...`.
    public var text: String {
        let head = "Safari " + safari.padding(toLength: 6, withPad: " ", startingAt: 0)
        guard compiles else { return head + "rejects: " + (error ?? "") }
        let widened = rulesWidened == 0 ? "" : "; \(rulesWidened.grouped) rules read without a key it ignores"
        return head + "compiles (\(rules.grouped) of \(maximumRuleCount.grouped) rules\(widened))"
    }
}

public enum SafariMatrix {
    /// The verdict of `bytes` in every profile, in the profiles' order.
    public static func verdicts(_ bytes: [UInt8], profiles: [SafariProfile]) -> [SafariVerdict] {
        let newest = RuleListParser.check(bytes, collectingEveryError: false).list.rules
        return profiles.map { verdict(bytes, profile: $0, newest: newest) }
    }

    static func verdict(_ bytes: [UInt8], profile: SafariProfile, newest: [Rule]) -> SafariVerdict {
        let check = RuleListParser.check(bytes, collectingEveryError: false, profile: profile)
        var verdict = SafariVerdict(
            safari: profile.version, compiles: true, rulesWidened: 0, rules: check.list.rules.count,
            maximumRuleCount: profile.maximumRuleCount)
        if case .failure(let error) = check.verdict {
            verdict.compiles = false
            verdict.error = error.description.split(separator: "\n").first.map(String.init)
            verdict.rule = error.ruleIndex
            verdict.keyPath = error.keyPath
            return verdict
        }
        if profile != .newest {
            let newestTriggers = Dictionary(newest.map { ($0.index, $0.trigger) }, uniquingKeysWith: { first, _ in first })
            verdict.rulesWidened = check.list.rules.count { rule in newestTriggers[rule.index].map { $0 != rule.trigger } ?? false }
        }
        return verdict
    }
}
