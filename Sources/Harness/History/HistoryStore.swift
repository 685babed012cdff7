// HistoryStore.swift — Harness
//
// The history: one small JSON file per recorded run (RunRecord), in a folder per machine
// fingerprint, as airspeed velocity keeps one file per machine and revision:
//
//   <root>/<fingerprint>/<record id>.json     e.g. Reports/history/3f2a91c0/20261128T045749Z-81e0e14518-gate.json
//
// Why files and not a database: a record is written once and never changed, so a new run adds a
// file and never conflicts with another run's (CI can keep the folder on a data branch, or as an
// artifact, and merge branches without a merge driver); git stores them compressed and diffs them
// as text; reading a thousand of them is a directory listing and a thousand small reads, with no
// library to build or system package to install. An embedded database (SQLite through GRDB)
// would answer queries faster, but the pages read every record anyway.
//
// The default root, Reports/history/, is ignored by git: recording leaves `git status` clean.
// `blockbench history export` writes every record as JSON Lines, `history import` reads such a
// file, or the old Reports/history.jsonl (each line converted: RunRecord(legacy:)).
//
// Tested by HarnessTests/HistoryStoreTests.swift.

internal import Foundation

public struct HistoryStore: Sendable {
    public let root: String

    public init(root: String) {
        self.root = root
    }

    /// The store beside the reports: `<reports>/history`.
    public static func beside(reports: String) -> HistoryStore { HistoryStore(root: reports + "/history") }

    public func path(of record: RunRecord) -> String { root + "/" + record.fingerprint + "/" + record.id + ".json" }

    /// Writes `record` (cut to the size limit) atomically; a record with the same id is replaced.
    /// Returns its path.
    @discardableResult
    public func add(_ record: RunRecord) throws -> String {
        let path = path(of: record)
        try FileManager.default.createDirectory(atPath: root + "/" + record.fingerprint, withIntermediateDirectories: true)
        try (record.fitted().encoded() + Data("\n".utf8)).write(to: URL(fileURLWithPath: path), options: .atomic)
        return path
    }

    /// Every record, oldest first (by date, then id); unreadable files are skipped.
    public func records() -> [RunRecord] {
        let fileManager = FileManager.default
        let decoder = JSONDecoder()
        var records: [RunRecord] = []
        let machines = (try? fileManager.contentsOfDirectory(atPath: root)) ?? []
        for machine in machines where !machine.hasPrefix(".") {
            let folder = root + "/" + machine
            for name in (try? fileManager.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".json") {
                guard let data = fileManager.contents(atPath: folder + "/" + name),
                    let record = try? decoder.decode(RunRecord.self, from: data)
                else { continue }
                records.append(record)
            }
        }
        return records.sorted { ($0.date, $0.id) < ($1.date, $1.id) }
    }

    /// The bytes the records take (the files' sizes, as `du --apparent-size` counts them).
    public func bytes() -> Int {
        let fileManager = FileManager.default
        var total = 0
        for machine in (try? fileManager.contentsOfDirectory(atPath: root)) ?? [] {
            for name in (try? fileManager.contentsOfDirectory(atPath: root + "/" + machine)) ?? [] {
                let attributes = try? fileManager.attributesOfItem(atPath: root + "/" + machine + "/" + name)
                total += (attributes?[.size] as? NSNumber)?.intValue ?? 0
            }
        }
        return total
    }

    /// Every record as JSON Lines, oldest first.
    public func export() throws -> String {
        try records().map { String(decoding: try $0.encoded(), as: UTF8.self) + "\n" }.joined()
    }

    /// Adds every record of a JSON Lines `text` (records as `export` writes them, or lines of the
    /// old history.jsonl); returns how many were added and how many were already there.
    public func importLines(_ text: String) throws -> (added: Int, present: Int) {
        var added = 0
        var present = 0
        for record in Self.decode(lines: text) {
            if FileManager.default.fileExists(atPath: path(of: record)) {
                present += 1
            } else {
                try add(record)
                added += 1
            }
        }
        return (added, present)
    }

    /// The records of JSON Lines text: a line with `figures` is a record, a line with `metrics` a
    /// line of the old history.jsonl; other lines are skipped.
    public static func decode(lines text: String) -> [RunRecord] {
        let decoder = JSONDecoder()
        return CorpusFiles.lines(text).compactMap { line in
            let data = Data(line.utf8)
            if let record = try? decoder.decode(RunRecord.self, from: data) { return record }
            return (try? decoder.decode(HistoryLine.self, from: data)).map(RunRecord.init(legacy:))
        }
    }
}
