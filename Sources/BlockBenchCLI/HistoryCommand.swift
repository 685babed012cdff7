// `blockbench history`: the history store (Reports/History/HistoryStore.swift), one small JSON
// record per recorded run, kept outside the tracked tree (Reports/history/ by default; CI keeps it
// on a data branch or as an artifact: docs/TRACKING.md).
//
//   history list             one line per record: date, revision, kind, gate verdict, size
//   history export [-o FILE] every record as JSON Lines (standard output by default)
//   history import FILE...   records from an export, or the lines of an old Reports/history.jsonl,
//                            each converted to a record; records already present are left alone
//
// Tested by BlockBenchCLITests/HistoryCommandTests.swift.

import ArgumentParser
import Foundation
import Reports

struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List, export or import the recorded runs (the history store).",
        subcommands: [List.self, Export.self, Import.self])

    struct StoreOptions: ParsableArguments {
        @Option(help: "The reports folder.")
        var reports = "Reports"

        @Option(help: "The history store (default: <reports>/history).")
        var history: String?

        var store: HistoryStore { HistoryStore(root: history ?? reports + "/history") }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One line per recorded run, oldest first, and the store's size.")

        @OptionGroup var options: StoreOptions

        func run() throws {
            let store = options.store
            let records = store.records()
            for record in records {
                let size = record.encodedBytes
                let verdict = record.gate.map { " gate: \($0)" } ?? ""
                print("\(record.date)  \(record.revision)  \(record.kind)\(verdict)  \(record.fingerprint)  \(size) B")
            }
            print("\(records.count) records, \(store.bytes()) bytes in \(store.root)/")
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every record as JSON Lines, oldest first.")

        @OptionGroup var options: StoreOptions

        @Option(name: [.short, .long], help: "The file to write (default: standard output).")
        var output: String?

        func run() throws {
            let text = try options.store.export()
            guard let output else { return print(text, terminator: "") }
            try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            print("exported \(options.store.records().count) records to \(output)")
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add the records of JSON Lines files: exports, or old history.jsonl files (each line converted).")

        @OptionGroup var options: StoreOptions

        @Argument(help: "The files to import.")
        var files: [String]

        func run() throws {
            for file in files {
                guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw ValidationError("cannot read \(file)") }
                let (added, present) = try options.store.importLines(text)
                print("\(file): \(added) records added, \(present) already present, into \(options.store.root)/")
            }
        }
    }
}
