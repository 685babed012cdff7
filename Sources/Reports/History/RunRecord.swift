// RunRecord.swift — Reports
//
// One recorded run of the history (HistoryStore.swift): when, which revision, on what machine
// (its fingerprint groups the runs whose times compare), what recorded it (a report, the main
// job, a gate run with its verdict), and the headline figures of every benchmark and engine
// (HeadlineMeasures.swift): figures[benchmark][engine][measure]. Counts stay exact; other floats
// are cut to 5 significant digits. Each engine other than BlockBench has a `ratio`, its headline
// time (match: median; otherwise the run) over BlockBench's in the same run, and a `bytes ratio`,
// derived when read (RecordFigures.swift).
//
// Why: the old history.jsonl kept every metric of every run, tens of kilobytes a line; a record keeps
// what trends are drawn from and what trackers take, under 8 KB (`maximumBytes`), so a thousand
// runs stay under 8 MB. The full figures stay in the run's report folder.
//
// Tested by ReportsTests/HistoryStoreTests.swift.

internal import Foundation

public struct RunRecord: Codable, Hashable, Sendable {
    /// The largest encoded record the store writes (larger ones drop phase times, then peers).
    public static let maximumBytes = 8192
    public static let currentFormat = 1

    public var format: Int
    /// ISO 8601, UTC.
    public var date: String
    public var revision: String
    /// "report", "run" (the main job) or "gate".
    public var kind: String
    /// "AMD EPYC, 2 cores".
    public var machine: String
    public var toolchain: String
    /// Eight hex digits of the machine and toolchain: runs with one fingerprint compare.
    public var fingerprint: String
    /// The gate's verdict when a gate run recorded it ("pass", "regression", "improvement", ...).
    public var gate: String?
    /// benchmark -> engine -> measure -> value.
    public var figures: [String: [String: [String: Double]]]

    public init(
        date: String, revision: String, kind: String, machine: String, toolchain: String, gate: String? = nil,
        figures: [String: [String: [String: Double]]]
    ) {
        format = Self.currentFormat
        self.date = date
        self.revision = revision
        self.kind = kind
        self.machine = machine
        self.toolchain = toolchain
        fingerprint = Self.fingerprint(machine: machine, toolchain: toolchain)
        self.gate = gate
        self.figures = figures
    }

    /// The record of a report (or a main-job or gate run's results).
    public init(_ report: Report, kind: String, gate: String? = nil) {
        let flat = HistoryLine(report).metrics
        self.init(
            date: report.meta.date, revision: report.meta.revision, kind: kind,
            machine: "\(report.meta.machine), \(report.meta.cores) cores", toolchain: report.meta.toolchain, gate: gate,
            figures: Self.figures(flat: flat))
    }

    /// The record of one line of the old history.jsonl.
    public init(legacy line: HistoryLine) {
        self.init(
            date: line.date, revision: line.revision, kind: line.gate == nil ? "report" : "gate", machine: line.machine,
            toolchain: line.toolchain, gate: line.gate, figures: Self.figures(flat: line.metrics))
    }

    /// "20261128T045749Z-81e0e14518-gate": unique per run, sorts by date.
    public var id: String {
        date.filter { $0 != "-" && $0 != ":" } + "-" + revision + "-" + kind
    }

    /// FNV-1a of "machine|toolchain", eight hex digits.
    public static func fingerprint(machine: String, toolchain: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in (machine + "|" + toolchain).utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return String(format: "%08x", hash)
    }
}
