// TrackerFormats.swift — Reports
//
// A recorded run in the formats existing trackers take, so a CI can send BlockBench's figures to
// them without a converter of its own:
//
//   bmf     Bencher Metric Format: {"<benchmark>/<engine>": {"<measure>": {"value": x}}}, every
//           measure of the record (Bencher's thresholds say which way is better); lower_value and
//           upper_value are optional in the format and not written (a record keeps no interval).
//   github  github-action-benchmark's `customSmallerIsBetter` input: [{"name": "<benchmark>/<engine>
//           <measure>", "unit": ..., "value": ..., "extra": "revision ... on ..."}], the measures
//           where smaller is better (HeadlineMeasures.swift): not answers, not a peer's ratio to
//           BlockBench, whose growth is BlockBench doing better.
//
// Tested by ReportsTests/TrackerFormatsTests.swift (against each format's documented schema and
// published example).

internal import Foundation

public enum TrackerFormat: String, CaseIterable, Sendable {
    case bmf
    case github
}

/// One measure in Bencher Metric Format.
public struct BMFMetric: Codable, Hashable, Sendable {
    public var value: Double
    public var lower_value: Double?
    public var upper_value: Double?
}

/// One entry of github-action-benchmark's custom input.
public struct GitHubBenchmarkEntry: Codable, Hashable, Sendable {
    public var name: String
    public var unit: String
    public var value: Double
    public var range: String?
    public var extra: String?
}

extension RunRecord {
    /// The record in Bencher Metric Format.
    public func bmf() -> [String: [String: BMFMetric]] {
        var result: [String: [String: BMFMetric]] = [:]
        for (benchmark, engines) in figuresWithRatios {
            for (engine, measures) in engines {
                result[benchmark + "/" + engine] = measures.mapValues { BMFMetric(value: $0) }
            }
        }
        return result
    }

    /// The record as github-action-benchmark's `customSmallerIsBetter` entries, sorted by name.
    public func githubBenchmark() -> [GitHubBenchmarkEntry] {
        var entries: [GitHubBenchmarkEntry] = []
        let extra = "revision \(revision), \(date), \(machine), \(toolchain)"
        for (benchmark, engines) in figuresWithRatios {
            for (engine, measures) in engines {
                for (measure, value) in measures {
                    guard let known = HeadlineMeasures.all[measure], known.smallerIsBetter else { continue }
                    entries.append(
                        GitHubBenchmarkEntry(name: "\(benchmark)/\(engine) \(measure)", unit: known.unit, value: value, extra: extra))
                }
            }
        }
        return entries.sorted { $0.name < $1.name }
    }

    /// The record in `format`, as JSON text (keys sorted, pretty-printed).
    public func tracked(as format: TrackerFormat) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data =
            switch format {
            case .bmf: try encoder.encode(bmf())
            case .github: try encoder.encode(githubBenchmark())
            }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
