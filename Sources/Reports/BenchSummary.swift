// BenchSummary.swift — Reports
//
// One line per benchmark: each engine's headline figure and its ratio to BlockBench measured in the
// same run (above 1: BlockBench is that many times faster or smaller). The main job prints it; the
// report's README opens with it.
// Tested by BenchmarksTests (BenchTests: a report written whole).

public import Benchmarks
internal import TerminalText

public struct BenchSummary: Sendable {
    public var header: [String]
    public var rows: [[String]]

    public init(_ results: [BenchmarkResult]) {
        var engines: [String] = []
        for result in results {
            for engine in result.engines where !engines.contains(engine.engine) { engines.append(engine.engine) }
        }
        header = ["benchmark"] + engines
        rows = results.map { result in
            let ours = result.engines.first { $0.engine == "blockbench" && $0.status == .ok }
            return [result.name] + engines.map { name in
                guard let engine = result.engines.first(where: { $0.engine == name }) else { return "" }
                guard engine.status == .ok, let time = engine.headlineTime else { return engine.status.rawValue }
                var cell = HumanReadable.duration(nanoseconds: time)
                if let bytes = engine.bytes { cell += ", " + HumanReadable.bytes(bytes) }
                if name != "blockbench", let ours, let base = ours.headlineTime, base > 0 {
                    cell += " (" + HumanReadable.ratio(time / base)
                    if let bytes = engine.bytes, let ourBytes = ours.bytes, ourBytes > 0 {
                        cell += ", " + HumanReadable.ratio(Double(bytes) / Double(ourBytes))
                    }
                    cell += ")"
                }
                return cell
            }
        }
    }

    public var text: String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        var lines = ["benchmarks: time (compile, check: the run; match: median per request)[, bytes] (ratio to blockbench)"]
        for row in all {
            lines.append(row.indices.map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ").trimmingTrailingSpaces())
        }
        return lines.joined(separator: "\n")
    }

    public var markdown: String {
        func line(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |" }
        return ([line(header), line(header.map { _ in "---" })] + rows.map(line)).joined(separator: "\n")
    }
}
