// RecordFigures.swift — Reports
//
// A record's figures from a run's flat metrics ("benchmark/engine/metric" -> value, as
// HistoryLine holds them): the headline measures kept (HeadlineMeasures.swift), floats cut to 5
// significant digits; each other engine's ratio to BlockBench in the same run, derived when read
// (`value`, `figuresWithRatios`) rather than stored, since the record holds both figures; and the
// record cut down to RunRecord.maximumBytes when it is too big (phase times go first, then the
// peers), so no record is ever refused.
//
// Why the ratio is recomputed: the report's `time ratio` is to the best engine of the benchmark;
// a tracker wants one fixed yardstick, BlockBench in the same run.
//
// Tested by ReportsTests/HistoryStoreTests.swift.

internal import Foundation

extension RunRecord {
    /// The kept figures of `flat`.
    static func figures(flat: [String: Double]) -> [String: [String: [String: Double]]] {
        var figures: [String: [String: [String: Double]]] = [:]
        for (key, value) in flat {
            let parts = key.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, value.isFinite, let measure = HeadlineMeasures.name(of: parts[2], engine: parts[1]) else { continue }
            figures[parts[0], default: [:]][parts[1], default: [:]][measure] = cut(value)
        }
        // A match benchmark's time is its median; the run's seconds add nothing.
        for (benchmark, engines) in figures {
            for (engine, measures) in engines where measures["median"] != nil {
                figures[benchmark]![engine]!["time"] = nil
            }
        }
        return figures
    }

    /// One figure of the record: a recorded value, or for an engine other than BlockBench its
    /// `ratio` (headline time: the median, else the run's time) or `bytes ratio` to BlockBench's.
    public func value(_ benchmark: String, _ engine: String, _ measure: String) -> Double? {
        let engines = figures[benchmark]
        if let value = engines?[engine]?[measure] { return value }
        guard engine != "blockbench", let ours = engines?["blockbench"], let theirs = engines?[engine] else { return nil }
        let (mine, their): (Double?, Double?) =
            switch measure {
            case "ratio": (ours["median"] ?? ours["time"], theirs["median"] ?? theirs["time"])
            case "bytes ratio": (ours["bytes"], theirs["bytes"])
            default: (nil, nil)
            }
        guard let mine, let their, mine > 0 else { return nil }
        return Self.cut(their / mine)
    }

    /// The figures with every derived ratio written out (for trackers).
    public var figuresWithRatios: [String: [String: [String: Double]]] {
        var all = figures
        for (benchmark, engines) in figures {
            for engine in engines.keys where engine != "blockbench" {
                for measure in Self.derived { all[benchmark]![engine]![measure] = value(benchmark, engine, measure) }
            }
        }
        return all
    }

    /// The measures derived when read.
    public static let derived = ["ratio", "bytes ratio"]

    /// Integers below 2^53 as they are; other values to 5 significant digits.
    public static func cut(_ value: Double) -> Double {
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return value }
        return Double(String(format: "%.5g", value)) ?? value
    }

    /// The record's size as the store writes it (before its line break).
    public var encodedBytes: Int { (try? encoded().count) ?? 0 }

    /// The record's JSON, one line, keys sorted.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// This record, cut to fit `RunRecord.maximumBytes`: phase times dropped first, then every
    /// engine but BlockBench, then benchmarks from the end of the sorted names.
    public func fitted() throws -> RunRecord {
        var record = self
        var step = 0
        while try record.encoded().count > Self.maximumBytes {
            switch step {
            case 0:
                record.figures = record.figures.mapValues { $0.mapValues { $0.filter { !$0.key.hasPrefix("time.") } } }
            case 1:
                record.figures = record.figures.mapValues { $0.filter { $0.key == "blockbench" } }
            default:
                guard let last = record.figures.keys.sorted().last else { return record }
                record.figures[last] = nil
            }
            step += 1
        }
        return record
    }
}
