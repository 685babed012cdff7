// HeadlineMeasures.swift — Reports
//
// What a history record keeps of a run: the headline measures of each benchmark and engine, each
// under a short name, with its unit, whether it is an exact count (the same tree gives the same
// value) or a noisy figure (wall time, a ratio of wall times), and whether smaller is better.
// A report's flat metrics (`HistoryLine.metrics(of:)`, "benchmark/engine/metric") map to these
// names through `name(of:engine:)`, the same way for a new run and for a line of the old
// history.jsonl, so converted and new records draw as one series.
//
// Why a short list: a record must stay under 8 KB (RunRecord.maximumBytes) so that thousands of
// runs stay a few megabytes; the full figures stay in the run's results.json.
//
// Tested by ReportsTests/HistoryStoreTests.swift (mapping and record size).

internal import Foundation
internal import Benchmarks

/// One measure a record may hold.
public struct HeadlineMeasure: Hashable, Sendable {
    public var name: String
    public var unit: String
    /// The same tree gives the same value (bytes, states, instructions, answers).
    public var exact: Bool
    /// Lower is better (times, bytes, instructions); false for answers and for a peer's ratio to
    /// BlockBench, where higher means BlockBench did better.
    public var smallerIsBetter: Bool
}

public enum HeadlineMeasures {
    /// The names of the compile phases (instructions and times per phase).
    public static var phases: [String] { CostRegion.compileLabels }

    /// Every measure, by name.
    public static let all: [String: HeadlineMeasure] = {
        var measures: [HeadlineMeasure] = [
            .init(name: "time", unit: "s", exact: false, smallerIsBetter: true),
            .init(name: "median", unit: "ns", exact: false, smallerIsBetter: true),
            .init(name: "p99", unit: "ns", exact: false, smallerIsBetter: true),
            .init(name: "ratio", unit: "x", exact: false, smallerIsBetter: false),
            .init(name: "bytes", unit: "B", exact: true, smallerIsBetter: true),
            .init(name: "bytes ratio", unit: "x", exact: true, smallerIsBetter: false),
            .init(name: "heap", unit: "B", exact: true, smallerIsBetter: true),
            .init(name: "states", unit: "", exact: true, smallerIsBetter: true),
            .init(name: "instr", unit: "instructions", exact: true, smallerIsBetter: true),
            .init(name: "instr/req", unit: "instructions", exact: true, smallerIsBetter: true),
            .init(name: "instr/req first", unit: "instructions", exact: true, smallerIsBetter: true),
            .init(name: "instr load", unit: "instructions", exact: true, smallerIsBetter: true),
            .init(name: "L1/req", unit: "misses", exact: true, smallerIsBetter: true),
            .init(name: "L2/req", unit: "misses", exact: true, smallerIsBetter: true),
            .init(name: "steps/req", unit: "", exact: true, smallerIsBetter: true),
            .init(name: "runs/req", unit: "", exact: true, smallerIsBetter: true),
            .init(name: "hits", unit: "requests", exact: true, smallerIsBetter: false),
            .init(name: "actions", unit: "", exact: true, smallerIsBetter: false),
            .init(name: "errors", unit: "", exact: true, smallerIsBetter: false),
        ]
        for phase in CostRegion.compileLabels {
            measures.append(.init(name: "instr." + phase, unit: "instructions", exact: true, smallerIsBetter: true))
            measures.append(.init(name: "time." + phase, unit: "s", exact: false, smallerIsBetter: true))
        }
        return Dictionary(uniqueKeysWithValues: measures.map { ($0.name, $0) })
    }()

    /// A report metric's measure name for `engine`, or nil when records do not keep it. BlockBench
    /// keeps its exact costs and phase times; every engine keeps its time, bytes and latency.
    public static func name(of metric: String, engine: String) -> String? {
        switch metric {
        case "seconds": return "time"
        case "bytes": return "bytes"
        case "median": return "median"
        case "p99": return "p99"
        case "errors": return "errors"
        default: break
        }
        guard engine == "blockbench" else { return nil }
        return ourMeasures[metric]
    }

    static let ourMeasures: [String: String] = {
        var names = [
            "heap peak": "heap", "url states": "states", "instructions total": "instr",
            "instructions per request": "instr/req", "instructions per request, first pass": "instr/req first",
            "instructions to load": "instr load", MatchCost.l1MissesName: "L1/req", MatchCost.l2MissesName: "L2/req",
            "interpreter steps per request": "steps/req", "program runs per request": "runs/req",
            "requests with actions": "hits", "actions": "actions",
        ]
        for phase in CostRegion.compileLabels {
            names["instructions " + phase] = "instr." + phase
            names["phase." + phase] = "time." + phase
        }
        return names
    }()
}
