// GateMetrics.swift — Harness
//
// The figures the CI gate holds, read from one main-job run, each with a kind that says how it may
// move:
//
//   correctness      must be 0 on every run, whatever the baseline says: conformance mismatches,
//                    failing vectors, anything else the main job reported as failed
//   verdict          a shipped list compiles or is rejected: must not change
//   answers          what the engine answers (requests with actions, actions, requests conformed,
//                    vectors passed): must not change unless the corpora or the semantics did
//   count            deterministic size and work (bytecode bytes per section, DFAs, states,
//                    interpreter steps and program runs per request): lower is better, growth
//                    beyond the tolerance (0% by default) is a regression
//   memory           memory growth while compiling a list inside the main job's process, and the
//                    peak of `blockbench compile` on it in a process of its own: lower is better;
//                    allocator noise (the second has its own tight tolerance in the baseline)
//   time ratio       BlockBench's time over `pcre2-jit`'s measured in the same run (compile: the
//                    run; match: the median request): lower is better; machine noise
//   time ratio mean  the geometric mean of a model's time ratios (three or more benchmarks): the
//                    same noise, mostly averaged out
//
// Only BlockBench's figures are held; PCRE2's serve as the yardstick for its times.

internal import Foundation

/// One figure the gate holds.
public struct GateMetric: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Hashable, Sendable, CaseIterable {
        case correctness
        case verdict
        case answers
        case count
        case memory
        case timeRatio = "time ratio"
        case timeRatioMean = "time ratio mean"

        /// Whether only a smaller value is better (the others must stay equal, or 0).
        var lowerIsBetter: Bool {
            switch self {
            case .count, .memory, .timeRatio, .timeRatioMean: true
            case .correctness, .verdict, .answers: false
            }
        }
    }

    public var kind: Kind
    public var value: Double
    /// A verdict's words ("compiles", "rejected: JSONInvalidRegex").
    public var text: String?
    /// "B" for bytes, "x" for ratios, nil for plain counts.
    public var unit: String?
    /// This metric's own tolerance, kept across baseline updates (nil: its kind's).
    public var tolerance: GateTolerance?

    public init(kind: Kind, value: Double, text: String? = nil, unit: String? = nil) {
        self.kind = kind
        self.value = value
        self.text = text
        self.unit = unit
    }
}

/// How far a lower-is-better metric may grow before the gate calls it a regression: `percent`
/// over the baseline plus `absolute` (in the metric's unit). The same distance below the baseline
/// (in the other direction: baseline / (1 + percent/100) - absolute) makes it an improvement.
public struct GateTolerance: Codable, Hashable, Sendable {
    public var percent: Double
    public var absolute: Double?

    public init(percent: Double, absolute: Double? = nil) {
        self.percent = percent
        self.absolute = absolute
    }

    /// The tolerances a new baseline starts with, per kind.
    ///
    ///  - count: 0%: the same tree gives the same bytes, states and steps, so any growth is real.
    ///  - memory: 25% and 32 MiB: a list's resident growth varies by a few percent from run to run
    ///    with what the allocator kept from the benchmarks before it.
    ///  - time ratio: 200% (the ratio may triple): two runs of an unchanged tree on this 2-core VM
    ///    moved single benchmarks' ratios by 0.42x-1.88x (Reports/history.jsonl, 2026-11-23), most
    ///    on sets of a few requests.
    ///  - time ratio mean: 50%: over a model's benchmarks the same two runs moved 1.08x.
    public static let defaults: [GateMetric.Kind: GateTolerance] = [
        .count: GateTolerance(percent: 0),
        .memory: GateTolerance(percent: 25, absolute: 32 * 1_048_576),
        .timeRatio: GateTolerance(percent: 200),
        .timeRatioMean: GateTolerance(percent: 50),
    ]

    /// The largest value that still passes.
    func ceiling(over baseline: Double) -> Double { baseline * (1 + percent / 100) + (absolute ?? 0) }

    /// The value below which the metric counts as improved.
    func floor(under baseline: Double) -> Double { baseline / (1 + percent / 100) - (absolute ?? 0) }

    public var text: String {
        var text = percent == 0 ? "0%" : "+\(GateFormat.number(percent))%"
        if let absolute, absolute > 0 {
            let mebibytes = absolute / 1_048_576
            text += " + " + (mebibytes >= 1 && mebibytes == mebibytes.rounded() ? "\(Int(mebibytes)) MiB" : GateFormat.number(absolute))
        }
        return text
    }
}

public enum GateMetrics {
    /// The engine whose times BlockBench's are divided by.
    public static let yardstick = "pcre2-jit"

    /// Every metric of one main-job run, by name ("<benchmark>/<figure>", "list/<name>", ...).
    public static func measure(_ outcome: MainJobOutcome) -> [String: GateMetric] {
        var metrics: [String: GateMetric] = [:]
        func add(_ name: String, _ kind: GateMetric.Kind, _ value: Double, unit: String? = nil, text: String? = nil) {
            metrics[name] = GateMetric(kind: kind, value: value, text: text, unit: unit)
        }
        add("correctness/conform mismatches", .correctness, Double(outcome.conformMismatches))
        add("correctness/failing vectors", .correctness, Double(outcome.vectorsFailed))
        add("correctness/failures", .correctness, Double(outcome.failures.count))
        add("conform/requests", .answers, Double(outcome.conformRequests))
        add("vectors/passed", .answers, Double(outcome.vectorsPassed))
        for list in outcome.lists {
            add("list/\(list.name)", .verdict, list.compiles ? 1 : 0, text: list.verdict)
        }

        var ratios: [BenchmarkDefinition.Model: [Double]] = [:]
        for result in outcome.results {
            guard let ours = result.engines.first(where: { $0.engine == "blockbench" }), ours.status == .ok else { continue }
            let prefix = result.name + "/"
            switch result.model {
            case .check:
                if let errors = ours.counter("errors") { add(prefix + "errors", .answers, errors) }
            case .compile:
                if let bytes = ours.bytes { add(prefix + "bytes", .count, Double(bytes), unit: "B") }
                for section in ours.sections ?? [] { add(prefix + "bytes." + section.name, .count, section.value, unit: "B") }
                for counter in ours.counters where counter.name != "rules" { add(prefix + counter.name, .count, counter.value) }
                if let growth = ours.memoryGrowthBytes { add(prefix + "memory growth", .memory, Double(growth), unit: "B") }
                if let peak = ours.ownProcessPeakMemoryBytes { add(prefix + "peak memory, own process", .memory, Double(peak), unit: "B") }
            case .match:
                if let answers = ours.answers {
                    add(prefix + "requests with actions", .answers, Double(answers.requestsWithActions))
                    add(prefix + "actions", .answers, Double(answers.actions))
                }
                for counter in ours.counters { add(prefix + counter.name, .count, counter.value) }
            }
            if result.model != .check,
                let yardstick = result.engines.first(where: { $0.engine == yardstick }),
                let ourTime = ours.headlineTime, let theirTime = yardstick.headlineTime, ourTime > 0, theirTime > 0
            {
                let ratio = ourTime / theirTime
                add(prefix + "time ratio to \(Self.yardstick)", .timeRatio, ratio, unit: "x")
                ratios[result.model, default: []].append(ratio)
            }
        }
        for (model, values) in ratios where values.count >= 3 {
            let mean = exp(values.map(log).reduce(0, +) / Double(values.count))
            add("\(model.rawValue)/time ratio to \(yardstick), geometric mean", .timeRatioMean, mean, unit: "x")
        }
        return metrics
    }
}
