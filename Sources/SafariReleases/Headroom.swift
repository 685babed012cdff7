// Headroom: how close a rule list is to each Safari release's limits (`blockbench headroom`):
// its rules against the release's rule limit, its JSON bytes, BlockBench's compile of it as that
// release reads it (bytes and DFA states), WebKit's compiled bytes, compile time and peak memory
// (measured by WebKitGTK when the caller can run it, else predicted by a fitted WebKitSizeModel
// from BlockBench's compile, each with the model's error on lists it never saw), and the rules
// that cost WebKit's compile most (WebKitShape: the prefix-tree nodes only the rule reaches, and
// the bytes the model puts on them). A release that rejects the list has no headroom: its first
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
    /// WebKit's figures, measured or predicted (nil without either, or when rejected).
    public var webKit: WebKitFigures?

    /// Rules left before the limit, and the share of the limit used (per cent).
    public var rulesLeft: Int { maximumRuleCount - rules }
    public var percentUsed: Double { Double(rules) / Double(maximumRuleCount) * 100 }
}

/// A rule that costs WebKit's compile: its index in the list, its url-filter (and selector), the
/// prefix-tree nodes only it reaches (WebKitShape), and the bytes of WebKit's file the model puts
/// on them (nil without a model).
public struct CostlyRule: Codable, Sendable {
    public var rule: Int
    public var urlFilter: String
    public var selector: String?
    public var nodes: Int
    public var bytes: Int?
}

/// A list's headroom: a row per release, and its costliest rules as the newest release reads it.
public struct HeadroomReport: Sendable {
    public var rows: [HeadroomRow]
    public var costliest: [CostlyRule]
}

public enum Headroom {
    /// The rows of `json` in every profile. Releases that read the list as the newest does share
    /// its compile.
    public static func rows(_ json: [UInt8], profiles: [SafariProfile], model: WebKitSizeModel? = nil) -> [HeadroomRow] {
        report(json, profiles: profiles, model: model).rows
    }

    /// The rows and the `top` costliest rules. `measure`, when given, is WebKit's compile of the
    /// list (WebKitGTK): its figures stand in the rows of the releases that read the list as the
    /// newest profile does, the model's predictions in the others.
    public static func report(
        _ json: [UInt8], profiles: [SafariProfile], model: WebKitSizeModel? = nil, top: Int = 0,
        measure: (([UInt8]) -> WebKitFigures?)? = nil
    ) -> HeadroomReport {
        let elements = JSONElementCount.count(json)
        var compiledByRules: [[Rule]: (bytes: Int, states: Int, figures: ListFigures, shape: WebKitShape)] = [:]
        var measuredRules: [Rule]?
        var measured: WebKitFigures?
        if let newest = profiles.last, let measure {
            let check = RuleListParser.check(json, collectingEveryError: false, profile: newest)
            if case .success = check.verdict, let figures = measure(json) { (measuredRules, measured) = (check.list.rules, figures) }
        }
        var costliest: [CostlyRule] = []
        let rows = profiles.enumerated().map { position, profile in
            var row = HeadroomRow(safari: profile.version, rules: elements, maximumRuleCount: profile.maximumRuleCount, jsonBytes: json.count)
            let check = RuleListParser.check(json, collectingEveryError: false, profile: profile)
            if case .failure(let error) = check.verdict {
                row.error = error.description.split(separator: "\n").first.map(String.init)
                return row
            }
            if compiledByRules[check.list.rules] == nil, let (compiled, report) = try? RuleListCompiler.compile(check.list, patterns: check.patterns) {
                let bytes = compiled.serialized().count
                let shape = WebKitShape(check.list)
                compiledByRules[check.list.rules] = (
                    bytes, report.url.states + report.topURL.states + report.frameURL.states,
                    ListFigures(jsonBytes: json.count, rules: elements, list: check.list, compiledBytes: bytes, report: report, shape: shape),
                    shape
                )
            }
            if let known = compiledByRules[check.list.rules] {
                (row.bytes, row.states) = (known.bytes, known.states)
                row.webKit = measuredRules == check.list.rules ? measured : model?.predict(known.figures)
                if position == profiles.count - 1 && top > 0 {
                    costliest = Self.costliest(check.list, shape: known.shape, figures: known.figures, model: model, top: top)
                }
            }
            return row
        }
        return HeadroomReport(rows: rows, costliest: costliest)
    }

    /// The `top` rules whose removal would shrink WebKit's compile most: by the bytes the model
    /// puts on their nodes and selectors, or by their nodes without a model.
    public static func costliest(_ list: RuleList, shape: WebKitShape, figures: ListFigures, model: WebKitSizeModel?, top: Int) -> [CostlyRule] {
        let perUnit = model?.bytesPerUnit(figures)
        let ranked: [(cost: WebKitShape.RuleCost, bytes: Double?)] = shape.rules.map { cost in
            (cost, perUnit.map { WebKitSizeModel.attributed(cost, bytesPerUnit: $0) })
        }
        let order = ranked.sorted { a, b in
            let (x, y) = (a.bytes ?? Double(a.cost.totalNodes), b.bytes ?? Double(b.cost.totalNodes))
            return x != y ? x > y : a.cost.rule < b.cost.rule
        }
        return order.prefix(top).map { cost, bytes in
            let rule = list.rules[cost.rule]
            var selector: String?
            if case .cssDisplayNone(let text) = rule.action { selector = text }
            return CostlyRule(rule: rule.index.rawValue, urlFilter: rule.trigger.urlFilter, selector: selector, nodes: cost.totalNodes, bytes: bytes.map { Int($0) })
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
