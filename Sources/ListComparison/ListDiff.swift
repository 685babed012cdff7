// ListDiff: what `blockbench diff OLD NEW` reports, as data (printed as text, Markdown or JSON by
// ListDiffText.swift): the requests whose verdict changes with the rules behind each change, the
// rules no request triggers, the rules shadowed or repeated, the Safari releases where one list
// compiles and the other does not, the cost of each list, and what a split over several content
// blockers changes. Computed by ListDiffer.swift. Tested by
// ListComparisonTests/ListDiffTests.swift.

public import SafariReleases

/// A rule as a diff names it: its list ("old" or "new"), index and url-filter.
public struct RuleMention: Codable, Sendable, Hashable {
    public var list: String
    public var index: Int
    public var urlFilter: String
    public var action: String

    /// `new #12 "||ads.example^" (block)`.
    public var text: String { "\(list) #\(index) \"\(urlFilter)\" (\(action))" }
}

/// One request whose verdict changes.
public struct RequestChange: Codable, Sendable {
    public var requestSet: String
    public var row: Int
    public var url: String
    public var resourceType: String
    public var mainDocumentURL: String
    public var old: [String]
    public var new: [String]
    /// The rules that act in one list and not (the same rule) in the other.
    public var rules: [RuleMention]
    /// Whether the PCRE2 oracle gives both lists' outcomes as the engine does (nil: not asked).
    public var oracleAgrees: Bool?
}

/// A rule that never takes effect whenever it applies, or that repeats an earlier one.
public struct RedundantRule: Codable, Sendable {
    public enum Kind: String, Codable, Sendable { case shadowed, repeated }
    public var kind: Kind
    public var rule: RuleMention
    /// The ignore-previous-rules rule after it that cancels it, or the rule it repeats.
    public var by: RuleMention
}

/// The cost of one list's compile (BlockBench's).
public struct ListCost: Codable, Sendable {
    public var rules: Int
    public var jsonBytes: Int
    public var bytes: Int
    public var states: Int
    public var compileSeconds: Double
}

/// Each list's verdict in one Safari release.
public struct ReleaseVerdicts: Codable, Sendable {
    public var safari: String
    public var old: SafariVerdict
    public var new: SafariVerdict
    public var lost: Bool { old.compiles && !new.compiles }
    public var gained: Bool { !old.compiles && new.compiles }
}

/// What splitting NEW over several content blockers changes.
public struct SplitEffect: Codable, Sendable {
    public var parts: Int
    public var requestsChanged: Int
    public var changes: [RequestChange]
    /// ignore-previous-rules rules whose earlier rules fall in another part (they no longer reach them).
    public var ignoreRulesCut: Int
}

public struct ListDiff: Codable, Sendable {
    public var old: String
    public var new: String
    public var safari: String
    public var requestSets: [String]
    public var requests: Int
    public var changes: [RequestChange]
    public var unusedRules: [RuleMention]
    public var oldUnusedRules: Int
    public var redundant: [RedundantRule]
    public var oldRedundant: Int
    public var releases: [ReleaseVerdicts]
    public var oldCost: ListCost?
    public var newCost: ListCost?
    public var split: SplitEffect?
    /// The `--max-growth` threshold (per cent) and whether bytes or states grew beyond it.
    public var maxGrowth: Double?
    public var costExceeded: Bool

    public var releasesLost: [String] { releases.filter(\.lost).map(\.safari) }
    public var oracleDisagreements: Int { changes.count { $0.oracleAgrees == false } }

    /// Growth of NEW over OLD, per cent (nil when a list did not compile).
    public var byteGrowth: Double? { growth(\.bytes) }
    public var stateGrowth: Double? { growth(\.states) }

    func growth(_ figure: KeyPath<ListCost, Int>) -> Double? {
        guard let oldCost, let newCost, oldCost[keyPath: figure] > 0 else { return nil }
        return (Double(newCost[keyPath: figure]) / Double(oldCost[keyPath: figure]) - 1) * 100
    }
}
