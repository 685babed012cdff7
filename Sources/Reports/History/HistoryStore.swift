// HistoryStore.swift — Reports
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
// Two runs recording at once (two `gate` or `report` runs) lose nothing: each record gets a file
// of its own, even when both have one id (`add`).
//
// The default root, Reports/history/, is ignored by git: recording leaves `git status` clean.
// `blockbench history export` writes every record as JSON Lines, `history import` reads such a
// file, or the old Reports/history.jsonl (each line converted: RunRecord(legacy:)).
//
// Tested by ReportsTests/HistoryStoreTests.swift (two concurrent writers: ConcurrencyTests.swift).

internal import Foundation
internal import Corpus

public struct HistoryStore: Sendable {
    public let root: String

    public init(root: String) {
        self.root = root
    }

    /// The store beside the reports: `<reports>/history`.
    public static func beside(reports: String) -> HistoryStore { HistoryStore(root: reports + "/history") }

    public func path(of record: RunRecord) -> String { root + "/" + record.fingerprint + "/" + record.id + ".json" }

    /// Writes `record` (cut to the size limit) atomically, never over another record: two runs
    /// recording at once, even with the same id (one revision, one kind, the same second), keep
    /// both, the second as `<id>-2.json` (then -3, ...). The file is written whole under a
    /// temporary name and linked to its name, which fails when that name is taken, so no reader
    /// sees half a record and no writer replaces another's. A record already stored, equal to
    /// this one, is not stored twice. Returns its path.
    @discardableResult
    public func add(_ record: RunRecord) throws -> String {
        let fitted = try record.fitted()
        let folder = root + "/" + record.fingerprint
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let temporary = folder + "/.\(record.id).\(UUID().uuidString).tmp"
        try (fitted.encoded() + Data("\n".utf8)).write(to: URL(fileURLWithPath: temporary))
        defer { unlink(temporary) }
        for candidate in candidatePaths(of: record) {
            if link(temporary, candidate) == 0 { return candidate }
            guard errno == EEXIST else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: candidate, "errno": errno])
            }
            if stored(at: candidate) == fitted { return candidate }
        }
        throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: path(of: record)])
    }

    /// Where a record with `record`'s id is, or goes: `<id>.json`, then `<id>-2.json` and on.
    private func candidatePaths(of record: RunRecord) -> [String] {
        let first = path(of: record)
        let stem = String(first.dropLast(".json".count))
        return [first] + (2...1000).map { stem + "-\($0).json" }
    }

    private func stored(at path: String) -> RunRecord? {
        FileManager.default.contents(atPath: path).flatMap { try? JSONDecoder().decode(RunRecord.self, from: $0) }
    }

    /// Whether a record equal to `record` (as stored: cut to the size limit) is in the store.
    public func contains(_ record: RunRecord) -> Bool {
        guard let fitted = try? record.fitted() else { return false }
        for candidate in candidatePaths(of: record) {
            guard FileManager.default.fileExists(atPath: candidate) else { return false }
            if stored(at: candidate) == fitted { return true }
        }
        return false
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
            if contains(record) {
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
