// ReportWriter.swift — Reports
//
// A report is a folder `Reports/<date>-<git revision>/`:
//
//   results.json  the machine, toolchain and versions, then every BenchmarkResult
//   results.csv   one row per benchmark, engine and metric
//   README.md     the machine, the command that regenerates the report, one table per benchmark
//   index.html    one self-contained page with SVG charts (HTMLReport.swift)
//
// and, when it is given a history store, one record of the run in it (History/RunRecord.swift,
// History/HistoryStore.swift), from which `writeTrends` builds the trends pages
// (`Reports/trends/`, History/TrendsPage.swift). The folder is written whole under a temporary
// name and renamed into place. A second report of the same revision on the same day replaces the
// first. Report folders, the store and the trends pages are build output: Reports/.gitignore
// keeps them out of git, so writing them leaves `git status` clean.
//
// Tested by BenchmarksTests/BenchTests.swift (a report written whole, its record kept).

internal import Engines
internal import Foundation
internal import PCRE2Oracle
public import Benchmarks
internal import Gate

/// Everything results.json holds.
public struct Report: Codable, Sendable {
    public var meta: ReportMeta
    public var benchmarks: [BenchmarkResult]

    public init(meta: ReportMeta, benchmarks: [BenchmarkResult]) {
        self.meta = meta
        self.benchmarks = benchmarks
    }
}

public struct ReportWriter {
    public let reportsFolder: String
    /// Where each run is recorded (nil: nowhere).
    public var history: HistoryStore?

    public init(reportsFolder: String, history: HistoryStore? = nil) {
        self.reportsFolder = reportsFolder
        self.history = history
    }

    /// The trends pages' folder.
    public var trendsFolder: String { reportsFolder + "/trends" }

    /// Records a run in the history store, if there is one ("report", "run" or "gate" for `kind`;
    /// `gate`: the gate's verdict); returns the record's path.
    @discardableResult
    public func record(results: [BenchmarkResult], meta: ReportMeta, kind: String, gate: String? = nil) throws -> String? {
        guard let history else { return nil }
        return try history.add(RunRecord(Report(meta: meta, benchmarks: results), kind: kind, gate: gate))
    }

    /// Builds the trends pages from every record of the history store (none without a store);
    /// returns the index page's path.
    @discardableResult
    public func writeTrends() throws -> String? {
        guard let history else { return nil }
        let baseline = try? GateBaseline.load(reportsFolder + "/baseline.json")
        return try TrendsPage(records: history.records(), baseline: baseline).write(to: trendsFolder)
    }

    /// Writes the report folder and records the run; returns the folder's path.
    @discardableResult
    public func write(results: [BenchmarkResult], meta: ReportMeta, kind: String = "report", gate: String? = nil) throws -> String {
        let report = Report(meta: meta, benchmarks: results)
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: reportsFolder, withIntermediateDirectories: true)
        let final = reportsFolder + "/" + report.meta.folderName
        let staging = reportsFolder + "/.staging-" + UUID().uuidString
        try fileManager.createDirectory(atPath: staging, withIntermediateDirectories: false)
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: staging + "/results.json"))
            try Data(Self.csv(report).utf8).write(to: URL(fileURLWithPath: staging + "/results.csv"))
            try Data(Self.markdown(report).utf8).write(to: URL(fileURLWithPath: staging + "/README.md"))
            try Data(HTMLReport(report: report).html.utf8).write(to: URL(fileURLWithPath: staging + "/index.html"))
            if fileManager.fileExists(atPath: final) {
                let old = reportsFolder + "/.replaced-" + UUID().uuidString
                try fileManager.moveItem(atPath: final, toPath: old)
                try fileManager.moveItem(atPath: staging, toPath: final)
                try? fileManager.removeItem(atPath: old)
            } else {
                try fileManager.moveItem(atPath: staging, toPath: final)
            }
        } catch {
            try? fileManager.removeItem(atPath: staging)
            throw error
        }
        try record(results: results, meta: meta, kind: kind, gate: gate)
        return final
    }

    // MARK: CSV

    static func csv(_ report: Report) -> String {
        var rows = ["benchmark,model,rules,requests,engine,status,metric,value,unit"]
        func field(_ text: String) -> String {
            text.contains(",") || text.contains("\"") ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        for benchmark in report.benchmarks {
            for engine in benchmark.engines {
                let prefix = [benchmark.name, benchmark.model.rawValue, benchmark.rules, benchmark.requests ?? "", engine.engine, engine.status.rawValue]
                for metric in HistoryLine.metrics(of: engine) {
                    rows.append((prefix + [metric.name, Self.number(metric.value), metric.unit]).map(field).joined(separator: ","))
                }
                if engine.status != .ok {
                    rows.append((prefix + ["message", engine.message ?? "", ""]).map(field).joined(separator: ","))
                }
            }
        }
        return rows.joined(separator: "\n") + "\n"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.6g", value)
    }

    // MARK: README

    static func markdown(_ report: Report) -> String {
        let meta = report.meta
        var lines = [
            "# BlockBench report \(meta.folderName)",
            "",
            "| | |",
            "|---|---|",
            "| date | \(meta.date) |",
            "| revision | \(meta.revision) |",
            "| machine | \(meta.machine), \(meta.cores) cores, \(meta.memoryGiB) GiB |",
            "| system | \(meta.os) |",
            "| toolchain | \(meta.toolchain) |",
            "| PCRE2 | \(meta.pcre2) |",
            "| WebKitGTK | \(meta.webkit) |",
            "| adblock-rust (PyPI adblock) | \(meta.adblockRust ?? "not recorded") |",
            "| uBlock Origin (Debian \(UBlockOriginEngine.package)) | \(meta.ublockOrigin ?? "not recorded") |",
            "",
            "Regenerate (release build, from the repository's root): `swift run -c release \(meta.command)`",
            "",
            "Times are medians of the measured runs, after warm-up runs; a ratio compares an engine with the best engine",
            "of the same benchmark in this run. An engine's answers are compared with the PCRE2 oracle's before its time",
            "counts (`✓`); a sampled engine answers an evenly spaced sample of the requests and is checked on the same sample.",
            "A peer engine, marked `(peer)`, has other semantics (adblock-rust and uBlock Origin read the lists' Adblock Plus text): it is",
            "measured, not conformed, and its table gives how often its block verdicts agree with BlockBench's instead.",
            "Work per request (interpreter steps, url-filters tried) does not depend on the machine.",
            "The page with charts: [index.html](index.html); every figure: [results.json](results.json), [results.csv](results.csv).",
            "",
            "## Summary",
            "",
            "Time (compile and check: the whole run; match: median per request), bytes where the engine has them, and in",
            "brackets the ratio to BlockBench in this run (time, bytes).",
            "",
            BenchSummary(report.benchmarks).markdown,
            "",
        ]
        for model in BenchmarkDefinition.Model.allCases {
            let results = report.benchmarks.filter { $0.model == model }
            guard !results.isEmpty else { continue }
            lines.append("## \(model.rawValue)")
            lines.append("")
            for result in results {
                lines.append(ResultTable(result).markdown)
                lines.append("")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// The flat metrics of one run ("benchmark/engine/metric" -> value), as the old
/// Reports/history.jsonl kept them a line per run: results.csv's rows, the source of a run's
/// record (RunRecord), and what `blockbench history import` reads from an old history.jsonl.
public struct HistoryLine: Codable, Hashable, Sendable {
    public struct Metric: Codable, Hashable, Sendable {
        public var name: String
        public var value: Double
        public var unit: String
    }

    public var date: String
    public var revision: String
    public var toolchain: String
    public var machine: String
    /// "benchmark/engine/metric" -> value.
    public var metrics: [String: Double]
    /// The gate's verdict when a gate run wrote the line ("pass", "regression", "improvement").
    public var gate: String?

    public init(_ report: Report) {
        date = report.meta.date
        revision = report.meta.revision
        toolchain = report.meta.toolchain
        machine = "\(report.meta.machine), \(report.meta.cores) cores"
        var metrics: [String: Double] = [:]
        for benchmark in report.benchmarks {
            for engine in benchmark.engines where engine.status == .ok {
                for metric in Self.metrics(of: engine) { metrics["\(benchmark.name)/\(engine.engine)/\(metric.name)"] = metric.value }
            }
        }
        self.metrics = metrics
    }

    /// The figures of one engine's result, flat, with units.
    public static func metrics(of engine: EngineResult) -> [Metric] {
        var metrics: [Metric] = []
        func add(_ name: String, _ value: Double?, _ unit: String) {
            if let value { metrics.append(Metric(name: name, value: value, unit: unit)) }
        }
        add("seconds", engine.seconds, "s")
        add("runs", engine.runs > 0 ? Double(engine.runs) : nil, "")
        add("bytes", engine.bytes.map(Double.init), "B")
        for section in engine.sections ?? [] { add("bytes." + section.name, section.value, "B") }
        for phase in engine.phases ?? [] { add("phase." + phase.name, phase.value, "s") }
        add("peak memory", engine.peakMemoryBytes.map(Double.init), "B")
        add("memory growth", engine.memoryGrowthBytes.map(Double.init), "B")
        add("heap growth", engine.heapGrowthBytes.map(Double.init), "B")
        add("peak memory, own process", engine.ownProcessPeakMemoryBytes.map(Double.init), "B")
        add("load seconds", engine.loadSeconds, "s")
        add("heap peak", engine.heapPeakBytes.map(Double.init), "B")
        for part in engine.instructions ?? [] { add("instructions " + part.name, part.value, "") }
        for part in engine.dataMisses ?? [] { add(part.name, part.value, "") }
        add("requests", engine.requests.map(Double.init), "")
        add("requests with actions", engine.answers.map { Double($0.requestsWithActions) }, "")
        add("actions", engine.answers.map { Double($0.actions) }, "")
        add("median", engine.latency?.medianNanoseconds, "ns")
        add("p90", engine.latency?.p90Nanoseconds, "ns")
        add("p99", engine.latency?.p99Nanoseconds, "ns")
        add("max", engine.latency?.maxNanoseconds, "ns")
        add("requests per second", engine.requestsPerSecond, "1/s")
        add("ns per URL byte", engine.nanosecondsPerURLByte, "ns")
        add("floor", engine.floorNanoseconds, "ns")
        add("median, largest list alone", engine.largestAlone?.medianNanoseconds, "ns")
        add("times largest list alone", engine.timesLargestAlone, "x")
        add("resident after load", engine.residentAfterLoad.map { Double($0.anonymousGrowth) }, "B")
        add("resident after load, all", engine.residentAfterLoad.map { Double($0.residentGrowth) }, "B")
        add("loaded bytes", engine.residentAfterLoad.map { Double($0.loadedBytes) }, "B")
        add("held after load", engine.residentAfterLoad?.heldBytes.map(Double.init), "B")
        for part in engine.residentAfterLoad?.held ?? [] { add("held after load." + part.name, part.value, "B") }
        for list in engine.lists ?? [] {
            add("seconds." + list.list, list.seconds, "s")
            add("bytes." + list.list, Double(list.bytes), "B")
            add("load seconds." + list.list, list.loadSeconds, "s")
        }
        add("time ratio", engine.timeRatio, "x")
        add("bytes ratio", engine.bytesRatio, "x")
        for counter in engine.counters { add(counter.name, counter.value, "") }
        return metrics
    }
}

