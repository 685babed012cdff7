// TrackerFormatsTests.swift — ReportsTests: a record in the trackers' formats
// (Sources/Reports/History/TrackerFormats.swift), checked against each format's documented schema:
//
//   Bencher Metric Format (bencher.dev/docs/reference/bencher-metric-format, its JSON schema
//   bencher.dev/bmf.json): an object of benchmarks, each an object of measures, each an object
//   with a number `value` (required) and numbers `lower_value`, `upper_value` (optional).
//   github-action-benchmark's customSmallerIsBetter (its README, "Examples" and
//   test/data/extract/customSmallerIsBetter_output.txt): an array of objects with a string
//   `name`, a string `unit`, a number `value`, and optional strings `range` and `extra`.
//
// The documents below are written here in each documented shape (with every optional field), not
// copied; our types must read them, and our output must pass the schema checks.

import Foundation
import Testing
@testable import Benchmarks
@testable import Reports

@Suite struct TrackerFormatsTests {
    static let record = RunRecord(
        date: "2026-11-28T04:57:49Z", revision: "81e0e14518", kind: "report", machine: "AMD EPYC, 2 cores", toolchain: "Swift 6.3.1",
        figures: [
            "compile-easylist": [
                "blockbench": ["time": 0.093413, "bytes": 1_814_676, "instr.parse": 2_049_591_063],
                "webkit": ["time": 2.8473, "ratio": 30.481],
            ],
            "match-easylist-requests": ["blockbench": ["median": 410, "p99": 4_110, "hits": 3_619]],
        ])

    /// Bencher's schema: {benchmark: {measure: {value: number, lower_value?: number, upper_value?: number}}}.
    static func isBMF(_ json: Any) -> Bool {
        guard let benchmarks = json as? [String: Any], !benchmarks.isEmpty else { return false }
        return benchmarks.values.allSatisfy { measures in
            guard let measures = measures as? [String: Any], !measures.isEmpty else { return false }
            return measures.values.allSatisfy { metric in
                guard let metric = metric as? [String: Any], metric["value"] is NSNumber else { return false }
                return Set(metric.keys).isSubset(of: ["value", "lower_value", "upper_value"]) && metric.values.allSatisfy { $0 is NSNumber }
            }
        }
    }

    /// github-action-benchmark's custom input: [{name: string, unit: string, value: number, range?: string, extra?: string}].
    static func isCustomBenchmark(_ json: Any) -> Bool {
        guard let entries = json as? [[String: Any]], !entries.isEmpty else { return false }
        return entries.allSatisfy { entry in
            entry["name"] is String && entry["unit"] is String && entry["value"] is NSNumber
                && (entry["range"] == nil || entry["range"] is String) && (entry["extra"] == nil || entry["extra"] is String)
                && Set(entry.keys).isSubset(of: ["name", "unit", "value", "range", "extra"])
        }
    }

    @Test func bmfFollowsBenchersSchema() throws {
        let text = try Self.record.tracked(as: .bmf)
        let json = try JSONSerialization.jsonObject(with: Data(text.utf8))
        #expect(Self.isBMF(json))
        let decoded = try JSONDecoder().decode([String: [String: BMFMetric]].self, from: Data(text.utf8))
        #expect(decoded["compile-easylist/blockbench"]?["instr.parse"]?.value == 2_049_591_063)
        #expect(decoded["compile-easylist/webkit"]?["ratio"]?.value == 30.481)
        #expect(decoded["match-easylist-requests/blockbench"]?["median"] == BMFMetric(value: 410))
        #expect(!text.contains("lower_value"))
        // A document in the documented shape, bounds and all, reads as our type.
        let documented = #"{"a benchmark": {"latency": {"value": 12.5, "lower_value": 11.0, "upper_value": 14.25}}, "a binary": {"file-size": {"value": 7.0}}}"#
        #expect(Self.isBMF(try JSONSerialization.jsonObject(with: Data(documented.utf8))))
        let read = try JSONDecoder().decode([String: [String: BMFMetric]].self, from: Data(documented.utf8))
        #expect(read["a benchmark"]?["latency"] == BMFMetric(value: 12.5, lower_value: 11, upper_value: 14.25))
        #expect(!Self.isBMF(try JSONSerialization.jsonObject(with: Data(#"{"b": {"m": {"lower_value": 1}}}"#.utf8))))
    }

    @Test func githubFollowsCustomSmallerIsBetter() throws {
        let text = try Self.record.tracked(as: .github)
        #expect(Self.isCustomBenchmark(try JSONSerialization.jsonObject(with: Data(text.utf8))))
        let entries = try JSONDecoder().decode([GitHubBenchmarkEntry].self, from: Data(text.utf8))
        #expect(entries.map(\.name) == [
            "compile-easylist/blockbench bytes", "compile-easylist/blockbench instr.parse", "compile-easylist/blockbench time",
            "compile-easylist/webkit time", "match-easylist-requests/blockbench median", "match-easylist-requests/blockbench p99",
        ])
        // Smaller is better for every entry: answers and a peer's ratio to BlockBench are left out.
        #expect(!entries.contains { $0.name.hasSuffix(" ratio") || $0.name.hasSuffix(" hits") })
        #expect(entries.first { $0.name == "compile-easylist/blockbench time" }?.unit == "s")
        #expect(entries.allSatisfy { $0.extra == "revision 81e0e14518, 2026-11-28T04:57:49Z, AMD EPYC, 2 cores, Swift 6.3.1" })
        let documented = #"[{"name": "Parse - CPU", "unit": "ms", "value": 42, "range": "3%", "extra": "median of 9"}, {"name": "Parse - memory", "unit": "MB", "value": 120}]"#
        #expect(Self.isCustomBenchmark(try JSONSerialization.jsonObject(with: Data(documented.utf8))))
        let read = try JSONDecoder().decode([GitHubBenchmarkEntry].self, from: Data(documented.utf8))
        #expect(read.first == GitHubBenchmarkEntry(name: "Parse - CPU", unit: "ms", value: 42, range: "3%", extra: "median of 9"))
    }
}
