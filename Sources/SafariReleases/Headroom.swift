// Headroom: how close a rule list is to each Safari release's limits (`blockbench headroom`):
// its rules against the release's rule limit, its JSON bytes, BlockBench's compile of it as that
// release reads it (bytes and DFA states) and, given a fitted WebKitSizeModel, WebKit's compiled
// bytes, compile time and peak memory as the model predicts them from that compile, each with the
// model's error on lists it never saw. A release that rejects the list has no headroom: its first
// error instead.
// Tested by SafariReleasesTests/SafariProfilesTests.swift (HeadroomTests).

public import ContentRuleList
internal import ContentBlocker

/// One list in one release.
public struct HeadroomRow: Codable, Sendable {
    public var safari: String
    public var rules: Int
    public var maximumRuleCount: Int
    public var jsonBytes: Int
    /// BlockBench's compiled bytes and states (nil when the release rejects the list).
    public var bytes: Int?
    public var states: Int?
    public var error: String?
    /// WebKit's figures as the model predicts them (nil without a model or when rejected).
    public var webKit: WebKitPrediction?

    /// Rules left before the limit, and the share of the limit used (per cent).
    public var rulesLeft: Int { maximumRuleCount - rules }
    public var percentUsed: Double { Double(rules) / Double(maximumRuleCount) * 100 }
}

public enum Headroom {
    /// The rows of `json` in every profile. Releases that read the list as the newest does share
    /// its compile.
    public static func rows(_ json: [UInt8], profiles: [SafariProfile], model: WebKitSizeModel? = nil) -> [HeadroomRow] {
        let elements = JSONElementCount.count(json)
        var compiledByRules: [[Rule]: (bytes: Int, states: Int, figures: ListFigures)] = [:]
        return profiles.map { profile in
            var row = HeadroomRow(safari: profile.version, rules: elements, maximumRuleCount: profile.maximumRuleCount, jsonBytes: json.count)
            let check = RuleListParser.check(json, collectingEveryError: false, profile: profile)
            if case .failure(let error) = check.verdict {
                row.error = error.description.split(separator: "\n").first.map(String.init)
                return row
            }
            if compiledByRules[check.list.rules] == nil, let (compiled, report) = try? RuleListCompiler.compile(check.list, patterns: check.patterns) {
                let bytes = compiled.serialized().count
                compiledByRules[check.list.rules] = (
                    bytes, report.url.states + report.topURL.states + report.frameURL.states,
                    ListFigures(jsonBytes: json.count, rules: elements, list: check.list, compiledBytes: bytes, report: report)
                )
            }
            if let known = compiledByRules[check.list.rules] {
                (row.bytes, row.states) = (known.bytes, known.states)
                row.webKit = model?.predict(known.figures)
            }
            return row
        }
    }
}

/// The number of elements of a list's top-level array (what WebKit holds against its limit),
/// without reading the rules.
enum JSONElementCount {
    static func count(_ json: [UInt8]) -> Int {
        json.withUnsafeBufferPointer { JSONReader.topLevelElements($0)?.count } ?? 0
    }
}
