// TrendsPage.swift — Reports
//
// The history's pages, built on demand from the records (HistoryStore.swift), never stored beside
// them: `index.html`, the runs drawn, the steps found in noisy figures and the gate runs that
// failed; and one page per benchmark, `<benchmark>.html`, with its trends over the runs:
// instructions and time per compile phase, instructions, data misses and interpreter steps per
// request, BlockBench's times, bytes and heap, and each peer's time and ratio to BlockBench. The
// gate's baseline (Reports/baseline.json) is drawn dashed; runs whose gate failed are red ticks; steps
// in figures without an exact count (StepDetection.swift) are orange lines.
//
// Only the runs of one machine fingerprint are drawn (the newest run's): times of different
// machines do not compare. A page's size grows with the runs it draws, never with the pages
// before it.
//
// Tested by ReportsTests/TrendsPageTests.swift.

internal import Foundation
public import Gate

public struct TrendsPage {
    /// The runs drawn, oldest first: those of the newest run's machine.
    public let runs: [RunRecord]
    /// Runs of other machines, not drawn.
    public let otherMachines: Int
    public var baseline: GateBaseline?
    /// Every benchmark of the runs drawn, by name.
    public let benchmarks: [String]
    /// The steps of every figure without an exact count, found once (by "benchmark|engine|measure").
    let stepsFound: [String: [Step]]

    public init(records: [RunRecord], baseline: GateBaseline?, detector: StepDetector = StepDetector()) {
        let fingerprint = records.last?.fingerprint
        runs = records.filter { $0.fingerprint == fingerprint }
        otherMachines = records.count - runs.count
        self.baseline = baseline
        benchmarks = Array(Set(runs.flatMap(\.figures.keys))).sorted()
        stepsFound = Self.findSteps(runs, benchmarks: benchmarks, detector: detector)
    }

    /// Writes index.html and a page per benchmark into `folder`; returns the index's path.
    @discardableResult
    public func write(to folder: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for benchmark in benchmarks {
            try Data(page(benchmark).utf8).write(to: URL(fileURLWithPath: folder + "/" + Self.file(benchmark)), options: .atomic)
        }
        try Data(index().utf8).write(to: URL(fileURLWithPath: folder + "/index.html"), options: .atomic)
        return folder + "/index.html"
    }

    static func file(_ benchmark: String) -> String {
        benchmark.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "+" || $0 == "." ? String($0) : "_" }.joined() + ".html"
    }

    /// The values of one figure over the runs drawn.
    func values(_ benchmark: String, _ engine: String, _ measure: String) -> [Double?] {
        runs.map { $0.value(benchmark, engine, measure) }
    }

    /// The steps of one figure (indices into `runs`); none for exact counts, which the gate holds.
    static func steps(_ values: [Double?], measure: String, detector: StepDetector) -> [Step] {
        guard HeadlineMeasures.all[measure]?.exact == false else { return [] }
        let known = values.enumerated().compactMap { index, value in value.map { (index, $0) } }
        return detector.steps(in: known.map(\.1)).map { step in
            var step = step
            step.index = known[step.index].0
            return step
        }
    }

    /// The steps of every noisy figure of every benchmark, by "benchmark|engine|measure".
    static func findSteps(_ runs: [RunRecord], benchmarks: [String], detector: StepDetector) -> [String: [Step]] {
        var found: [String: [Step]] = [:]
        for benchmark in benchmarks {
            for engine in Set(runs.flatMap { ($0.figures[benchmark] ?? [:]).keys }) {
                var measures = Set(runs.flatMap { ($0.figures[benchmark]?[engine] ?? [:]).keys })
                if engine != "blockbench" { measures.formUnion(RunRecord.derived) }
                for measure in measures {
                    let values = runs.map { $0.value(benchmark, engine, measure) }
                    let steps = Self.steps(values, measure: measure, detector: detector)
                    if !steps.isEmpty { found[benchmark + "|" + engine + "|" + measure] = steps }
                }
            }
        }
        return found
    }

    /// The steps found in one figure.
    func steps(_ benchmark: String, _ engine: String, _ measure: String) -> [Step] {
        stepsFound[benchmark + "|" + engine + "|" + measure] ?? []
    }

    /// Every step found, by benchmark, engine and measure.
    public func allSteps() -> [(benchmark: String, engine: String, measure: String, step: Step)] {
        stepsFound.keys.sorted().flatMap { key in
            let parts = key.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            return stepsFound[key]!.map { (parts[0], parts[1], parts[2], $0) }
        }
    }

    var runLabels: [(label: String, failed: Bool)] {
        runs.map { (String($0.date.prefix(10)) + " " + $0.revision, $0.gate == "regression") }
    }
}
