// TrendsPageTests.swift — ReportsTests: the history's pages
// (Sources/Reports/History/TrendsPage.swift, TrendsCharts.swift, TrendsHTML.swift,
// TrendChart.swift) from synthetic records: a page per benchmark linked from the index, the
// baseline drawn dashed, failed gate runs marked, a step in a noisy figure marked and listed while
// an exact count that moves is not, other machines' runs left out; the y axis linear from 0, or
// over decades when the values span more than twentyfold (TrendScale.swift).

import Foundation
import Testing
@testable import Benchmarks
@testable import Gate
@testable import Reports
@testable import SeededRandom
import TestSupport

@Suite struct TrendsPageTests {
    /// 40 runs: BlockBench's EasyList compile halves its time at run 20; its bytes change at run
    /// 30; run 25's gate failed.
    static func records() -> [RunRecord] {
        var generator = SplitMix64(seed: 11)
        return (0..<40).map { run in
            let time = (run < 20 ? 0.2 : 0.1) * Double.random(in: 0.8...1.2, using: &generator)
            let figures: [String: [String: [String: Double]]] = [
                "compile-easylist": [
                    "blockbench": ["time": time, "bytes": run < 30 ? 2_000_000 : 1_900_000, "instr.parse": 2_049_591_063],
                    "webkit": ["time": 2.5, "ratio": 2.5 / time],
                ],
                "match-easylist-requests": ["blockbench": ["median": 441, "p99": 4_000, "instr/req": 25_495]],
            ]
            return RunRecord(
                date: String(format: "2026-12-%02dT%02d:00:00Z", run / 24 + 1, run % 24), revision: String(format: "rev%03d", run),
                kind: "gate", machine: "AMD EPYC, 2 cores", toolchain: "Swift", gate: run == 25 ? "regression" : "pass", figures: figures)
        }
    }

    static func baseline() -> GateBaseline {
        let meta = ReportMeta(
            date: "2026-12-01T00:00:00Z", revision: "rev000", command: "blockbench gate", machine: "AMD EPYC", cores: 2, memoryGiB: 24, os: "Debian",
            toolchain: "Swift", pcre2: "10.42", webkit: "not installed")
        return GateBaseline(
            metrics: ["compile-easylist/bytes": GateMetric(kind: .count, value: 2_000_000, unit: "B")], meta: meta, previous: nil)
    }

    @Test func pagesDrawTheTrendsWithTheirMarks() throws {
        var records = Self.records()
        records.insert(
            RunRecord(date: "2026-11-01T00:00:00Z", revision: "elsewhere", kind: "report", machine: "Other CPU, 8 cores", toolchain: "Swift", figures: [:]),
            at: 0)
        let page = TrendsPage(records: records, baseline: Self.baseline())
        #expect(page.runs.count == 40 && page.otherMachines == 1)
        #expect(page.benchmarks == ["compile-easylist", "match-easylist-requests"])

        let index = page.index()
        #expect(index.contains("<a href=\"compile-easylist.html\">") && index.contains("<a href=\"match-easylist-requests.html\">"))
        #expect(index.contains("1 runs of other machines are not drawn"))
        // The halved time is a step (and WebKit's ratio to it); the bytes, an exact count, are not.
        let steps = page.allSteps()
        #expect(steps.contains { $0.engine == "blockbench" && $0.measure == "time" && abs($0.step.index - 20) <= 1 && $0.step.change < -0.3 })
        #expect(steps.contains { $0.engine == "webkit" && $0.measure == "ratio" })
        #expect(!steps.contains { $0.measure == "bytes" || $0.measure == "instr.parse" || $0.benchmark == "match-easylist-requests" })
        #expect(index.contains("rev025"))

        let compile = page.page("compile-easylist")
        #expect(compile.contains("instructions per compile phase") && compile.contains("compiled bytes"))
        #expect(compile.contains("stroke-dasharray=\"4 3\"><title>baseline bytes: 2000.0 KB</title>"))
        #expect(compile.contains("<title>1 gate runs failed</title>"))
        #expect(compile.contains("<title>step in time at "))
        #expect(!compile.contains("<script"))
        let match = page.page("match-easylist-requests")
        #expect(match.contains("latency per request") && !match.contains("compiled bytes"))
    }

    @Test func pagesAreWrittenIntoTheirFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("trends-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let index = try TrendsPage(records: Self.records(), baseline: nil).write(to: folder)
        #expect(index == folder + "/index.html")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["compile-easylist.html", "index.html", "match-easylist-requests.html"])
        #expect(try TrendsPage(records: [], baseline: nil).index().contains("No recorded runs yet."))
    }

    @Test func theAxisIsLogarithmicOnlyForAWideSpread() throws {
        let linear = try #require(TrendScale([1, 10, 15]))
        #expect(!linear.logarithmic && linear.ticks == [0, 8.25, 16.5])
        #expect(linear.fraction(16.5) == 1)
        let wide = try #require(TrendScale([0.002, 0.5, 79]))
        #expect(wide.logarithmic && wide.low == -3 && wide.high == 2)
        // A grid line per decade, 0.001 to 100.
        #expect(wide.ticks.count == 6 && abs(wide.ticks[0] - 0.001) < 1e-15 && wide.ticks[5] == 100)
        #expect(wide.fraction(0.001) == 0 && abs(wide.fraction(100) - 1) < 1e-12)
        // A zero keeps the axis linear (a logarithm has no place for it).
        #expect(TrendScale([0, 1, 100])?.logarithmic == false)
        #expect(TrendScale([]) == nil)
        // Counts on the axis: k, M, G.
        #expect([999, 34_470, 2_049_591, 8_412_345_678].map { TrendChart.label($0, unit: "") } == ["999", "34.47k", "2.05M", "8.412G"])
    }
}
