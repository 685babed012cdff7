// TrendsCharts.swift — Reports
//
// Which charts a benchmark's trends page draws (TrendsPage.swift): one list of chart specs for
// every model, each chart drawn when some run measured one of its lines. A line names an engine,
// a measure of the record (HeadlineMeasures.swift) and, for the figures the gate holds, the
// baseline's metric drawn beside it.
//
// Tested by ReportsTests/TrendsPageTests.swift.

internal import Foundation
internal import Benchmarks

extension TrendsPage {
    struct Line {
        var label: String
        var engine: String
        var measure: String
        /// The baseline's metric name after "<benchmark>/", nil when the gate does not hold it.
        var baseline: String?
        var color: String
    }

    struct ChartSpec {
        var title: String
        var unit: String
        var lines: [Line]
    }

    static let colors = ["#1f6feb", "#e8590c", "#8250df", "#1a7f37", "#bf8700", "#cf222e", "#6e7781"]

    /// BlockBench's charts for `benchmark`, then its peers'.
    func specs(_ benchmark: String) -> [ChartSpec] {
        let phases = HeadlineMeasures.phases
        func ours(_ label: String, _ measure: String, _ baseline: String?, _ index: Int) -> Line {
            Line(label: label, engine: "blockbench", measure: measure, baseline: baseline, color: Self.colors[index % Self.colors.count])
        }
        var specs = [
            ChartSpec(title: "instructions per compile phase", unit: "", lines: phases.enumerated().map { ours($1, "instr." + $1, "instructions." + $1, $0) }),
            ChartSpec(title: "instructions, compile in all", unit: "", lines: [ours("instructions", "instr", "instructions", 0)]),
            ChartSpec(title: "time per compile phase", unit: "s", lines: phases.enumerated().map { ours($1, "time." + $1, nil, $0) }),
            ChartSpec(title: "time", unit: "s", lines: [ours("time", "time", nil, 0)]),
            ChartSpec(title: "compiled bytes", unit: "B", lines: [ours("bytes", "bytes", "bytes", 0)]),
            ChartSpec(title: "heap peak of a serial compile", unit: "B", lines: [ours("heap", "heap", "heap peak", 0)]),
            ChartSpec(
                title: "instructions per request", unit: "",
                lines: [
                    ours("second pass", "instr/req", "instructions per request", 0),
                    ours("first pass", "instr/req first", "instructions per request, first pass", 1),
                ]),
            ChartSpec(
                title: "simulated data misses per request", unit: "",
                lines: [ours("L1", "L1/req", MatchCost.l1MissesName, 0), ours("L2", "L2/req", MatchCost.l2MissesName, 1)]),
            ChartSpec(
                title: "interpreter steps and program runs per request", unit: "",
                lines: [
                    ours("steps", "steps/req", "interpreter steps per request", 0), ours("program runs", "runs/req", "program runs per request", 1),
                ]),
            ChartSpec(title: "latency per request", unit: "ns", lines: [ours("median", "median", nil, 0), ours("p99", "p99", nil, 1)]),
        ]
        let peers = Set(runs.flatMap { ($0.figures[benchmark] ?? [:]).keys }).subtracting(["blockbench"]).sorted()
        func theirs(_ measure: String) -> [Line] {
            peers.map { Line(label: $0, engine: $0, measure: measure, baseline: nil, color: HTMLReport.color($0)) }
        }
        specs += [
            ChartSpec(title: "each engine's time over BlockBench's in the same run", unit: "x", lines: theirs("ratio")),
            ChartSpec(title: "peers' time (compile, check: the run)", unit: "s", lines: theirs("time")),
            ChartSpec(title: "peers' median per request", unit: "ns", lines: theirs("median")),
        ]
        return specs
    }

    /// The charts of `benchmark` that have data.
    func charts(_ benchmark: String) -> [TrendChart] {
        specs(benchmark).compactMap { spec in
            let series = spec.lines.compactMap { line -> TrendChart.Series? in
                let values = values(benchmark, line.engine, line.measure)
                guard values.contains(where: { $0 != nil }) else { return nil }
                let base = line.baseline.flatMap { baseline?.metrics[benchmark + "/" + $0]?.value }
                return TrendChart.Series(
                    label: line.label, color: line.color, values: values, baseline: base, steps: steps(benchmark, line.engine, line.measure))
            }
            return series.isEmpty ? nil : TrendChart(title: spec.title, unit: spec.unit, series: series, runs: runLabels)
        }
    }
}
