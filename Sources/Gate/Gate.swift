// Gate.swift — Gate
//
// The CI gate: one main-job run's metrics (GateMetrics.swift) against the committed baseline
// (Reports/baseline.json, written only by `blockbench gate --update-baseline`).
//
//   pass         within the tolerance (equal, for verdicts and answers)
//   regression   grew beyond the tolerance, or a correctness figure is not 0  -> exit 2
//   changed      a verdict or an answer differs from the baseline               -> exit 2
//   missing      the baseline has it, this run did not measure it                -> exit 2
//   improvement  fell beyond the tolerance                                       -> exit 4
//   new          this run measured it, the baseline does not have it             -> exit 4
//   not comparable  an instruction or heap count taken with another cost
//                fingerprint (toolchain, libc, Valgrind, CPU features) than the
//                baseline's: not compared; `gate --against REV` counts both here  -> exit 3
//
// Exit 0 when every row passes; 4 when nothing failed but something improved or is new (the
// baseline should be updated to hold the gain); 3 when nothing failed but the counts could not be
// compared; 2 on any failing row.
// Tested by GateTests (GateTests, CostGateTests).

internal import Foundation
public import Benchmarks
internal import TerminalText

/// The committed baseline: what was measured, where, and how far each metric may move.
public struct GateBaseline: Codable, Sendable {
    public struct Produced: Codable, Hashable, Sendable {
        public var date: String
        public var revision: String
        public var machine: String
        public var toolchain: String
        public var pcre2: String
        public var command: String
        /// What the instruction and heap counts were taken on (nil: none were).
        public var costFingerprint: CostFingerprint?
    }

    public var about: String
    public var produced: Produced
    /// Per kind (its raw value): how far a lower-is-better metric may move.
    public var tolerances: [String: GateTolerance]
    public var metrics: [String: GateMetric]

    public static let about =
        "Written by `blockbench gate --update-baseline`; the gate compares each run with it. Tolerances are per kind "
        + "(a metric's own `tolerance` wins and is kept across updates); see Sources/Gate/GateMetrics.swift."

    /// A baseline of `metrics`, keeping `previous`'s tolerances (per kind and per metric).
    public init(metrics: [String: GateMetric], meta: ReportMeta, costFingerprint: CostFingerprint? = nil, previous: GateBaseline?) {
        about = Self.about
        produced = Produced(
            date: meta.date, revision: meta.revision, machine: "\(meta.machine), \(meta.cores) cores", toolchain: meta.toolchain,
            pcre2: meta.pcre2, command: meta.command, costFingerprint: costFingerprint)
        var tolerances = previous?.tolerances ?? [:]
        for (kind, tolerance) in GateTolerance.defaults where tolerances[kind.rawValue] == nil { tolerances[kind.rawValue] = tolerance }
        self.tolerances = tolerances
        var kept = metrics
        for (name, metric) in previous?.metrics ?? [:] {
            if let own = metric.tolerance, kept[name] != nil { kept[name]!.tolerance = own }
        }
        self.metrics = kept
    }

    /// This baseline with `previous`'s figures for the metrics that move with the machine's load
    /// (`Kind.movesWithLoad`), where `previous` has them: an update from a run that shared the
    /// machine, which holds its counts but not its times.
    public func keepingFiguresThatMoveWithLoad(of previous: GateBaseline) -> GateBaseline {
        var kept = self
        for (name, metric) in metrics where metric.kind.movesWithLoad {
            if let old = previous.metrics[name], old.kind == metric.kind { kept.metrics[name] = old }
        }
        return kept
    }

    public static func load(_ path: String) throws -> GateBaseline {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw GateError.noBaseline(path)
        }
        do {
            return try JSONDecoder().decode(GateBaseline.self, from: data)
        } catch {
            throw GateError.unreadableBaseline(path, "\(error)")
        }
    }

    /// Writes the baseline atomically (sorted keys: updates diff line by line).
    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try (encoder.encode(self) + Data("\n".utf8)).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    public func tolerance(of name: String) -> GateTolerance? {
        guard let metric = metrics[name] else { return nil }
        return metric.tolerance ?? tolerances[metric.kind.rawValue] ?? GateTolerance.defaults[metric.kind]
    }
}

public enum GateError: Error, CustomStringConvertible {
    case noBaseline(String)
    case unreadableBaseline(String, String)

    public var description: String {
        switch self {
        case .noBaseline(let path):
            "no baseline at \(path): make one with `swift run -c release blockbench gate --update-baseline`"
        case .unreadableBaseline(let path, let reason): "\(path) is not a gate baseline: \(reason)"
        }
    }
}

/// One line of the gate's table.
public struct GateRow: Hashable, Sendable {
    public enum Verdict: String, Hashable, Sendable {
        case pass, regression, changed, missing, improvement, new
        case notComparable = "not comparable"

        public var fails: Bool { self == .regression || self == .changed || self == .missing }
    }

    public var metric: String
    public var kind: GateMetric.Kind
    public var baseline: String
    public var now: String
    public var change: String
    public var verdict: Verdict
}

/// A run's metrics compared with the baseline.
public struct GateComparison: Sendable {
    public var rows: [GateRow] = []

    public enum Status: Int32, Sendable {
        case pass = 0
        case regression = 2
        case notComparable = 3
        case improvementOnly = 4
    }

    public var status: Status {
        if rows.contains(where: \.verdict.fails) { return .regression }
        if rows.contains(where: { $0.verdict == .notComparable }) { return .notComparable }
        if rows.contains(where: { $0.verdict == .improvement || $0.verdict == .new }) { return .improvementOnly }
        return .pass
    }

    /// Why the cost rows were not compared (nil: they were, or there were none).
    public var notComparableBecause: String?

    public func count(_ verdict: GateRow.Verdict) -> Int { rows.filter { $0.verdict == verdict }.count }

    /// `now` measured with `fingerprint` (nil: no cost was counted); the baseline's instruction and
    /// heap counts are compared only with counts of an equal fingerprint.
    public init(baseline: GateBaseline, now: [String: GateMetric], fingerprint: CostFingerprint? = nil) {
        var comparable = true
        if let then = baseline.produced.costFingerprint, let fingerprint, then != fingerprint {
            comparable = false
            notComparableBecause = fingerprint.differences(from: then)
        }
        for name in Set(baseline.metrics.keys).union(now.keys).sorted(by: Self.order) {
            let old = baseline.metrics[name]
            let new = now[name]
            let kind = (new ?? old)!.kind
            var row = GateRow(
                metric: name, kind: kind, baseline: old.map(GateFormat.value) ?? "-", now: new.map(GateFormat.value) ?? "-",
                change: "", verdict: .pass)
            switch (old, new) {
            case (nil, _):
                row.verdict = kind == .correctness && (new?.value ?? 0) != 0 ? .regression : .new
            case (_, nil):
                row.verdict = .missing
            case (_?, _?) where kind.isCost && !comparable:
                row.verdict = .notComparable
            case (let old?, let new?):
                row.change = GateFormat.change(from: old.value, to: new.value, kind: kind)
                row.verdict = Self.verdict(old: old, new: new, tolerance: baseline.tolerance(of: name))
            }
            rows.append(row)
        }
    }

    static func verdict(old: GateMetric, new: GateMetric, tolerance: GateTolerance?) -> GateRow.Verdict {
        switch new.kind {
        case .correctness:
            return new.value == 0 ? .pass : .regression
        case .verdict, .answers:
            return old.value == new.value && old.text == new.text ? .pass : .changed
        case .count, .instructions, .dataMisses, .heap, .memory, .timeRatio, .timeRatioMean:
            let tolerance = tolerance ?? GateTolerance(percent: 0)
            // Per-request averages are sums over the same requests divided the same way: equal to
            // the last bit on an unchanged tree; the slack only absorbs decimal round trips.
            let slack = Swift.max(abs(old.value), 1) * 1e-12
            if new.value > tolerance.ceiling(over: old.value) + slack { return .regression }
            if new.value < tolerance.floor(under: old.value) - slack { return .improvement }
            return .pass
        }
    }

    /// Correctness first, then verdicts, then the rest by name.
    static func order(_ a: String, _ b: String) -> Bool {
        func rank(_ name: String) -> Int {
            name.hasPrefix("correctness/") ? 0 : name.hasPrefix("list/") ? 1 : 2
        }
        return (rank(a), a) < (rank(b), b)
    }

    /// The table, every row (`changedOnly`: rows that are not an unchanged pass).
    public func table(changedOnly: Bool = false) -> String {
        let shown = changedOnly ? rows.filter { $0.verdict != .pass || !$0.change.isEmpty && $0.change != "=" } : rows
        let header = ["metric", "baseline", "now", "change", "verdict"]
        let cells = shown.map { [$0.metric, $0.baseline, $0.now, $0.change, $0.verdict == .pass ? "pass" : $0.verdict.rawValue.uppercased()] }
        let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        func line(_ row: [String]) -> String {
            row.indices.map { column in
                let cell = row[column]
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return (column == 1 || column == 2 || column == 3) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        return ([line(header)] + cells.map(line)).joined(separator: "\n")
    }

    /// One line: the verdict and the counts.
    public var summary: String {
        let counts = [GateRow.Verdict.pass, .regression, .changed, .missing, .improvement, .new, .notComparable]
            .map { ($0, count($0)) }.filter { $0.1 > 0 }
            .map { "\($0.1) \($0.0.rawValue)" }.joined(separator: ", ")
        let verdict = switch status {
        case .pass: "PASS"
        case .regression: "FAIL"
        case .improvementOnly: "PASS with improvements"
        case .notComparable: "PASS, but the instruction and heap counts were not compared"
        }
        return "gate: \(verdict) (\(rows.count) metrics: \(counts))"
    }
}

/// How the gate's table prints numbers.
public enum GateFormat {
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return HumanReadable.count(Int(value)) }
        return String(format: abs(value) >= 100 ? "%.1f" : "%.3g", value)
    }

    static func value(_ metric: GateMetric) -> String {
        if let text = metric.text { return text }
        switch metric.unit {
        case "x": return String(format: "%.3g", metric.value)
        default: return number(metric.value)
        }
    }

    /// Relative change for sizes and counts, a factor for ratios.
    static func change(from old: Double, to new: Double, kind: GateMetric.Kind) -> String {
        if old == new { return "=" }
        switch kind {
        case .correctness, .verdict:
            return ""
        case .timeRatio, .timeRatioMean:
            return old > 0 ? String(format: "x%.2f", new / old) : ""
        case .answers, .count, .instructions, .dataMisses, .heap, .memory:
            guard old != 0 else { return "+" + number(new - old) }
            let percent = (new - old) / abs(old) * 100
            return (percent > 0 ? "+" : "") + String(format: abs(percent) < 0.01 ? "%.4f%%" : "%.2f%%", percent)
        }
    }
}
