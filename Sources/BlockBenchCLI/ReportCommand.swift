// `blockbench report [NAME...]`: runs the benchmarks (all, or as selected) and writes a report
// folder under Reports/ (results.json, results.csv, README.md, index.html) plus a line in
// Reports/history.jsonl; prints the tables and the folder's path.

import ArgumentParser
import Foundation
import Harness

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Run the benchmarks and write a report folder under Reports/ (exit 2 when an engine gives wrong answers).")

    @Argument(help: "Benchmark names (default: every one).")
    var names: [String] = []

    @OptionGroup var selection: BenchSelection

    func run() throws {
        let meta = ReportMeta.ofThisRun()
        let suite = try selection.suite(names: names, quiet: false)
        let results = try suite.run { print(ResultTable($0).text + "\n") }
        let folder = try ReportWriter(reportsFolder: selection.reports).write(results: results, meta: meta)
        print("report: \(folder)")
        if !results.allSatisfy(\.passed) { throw ExitCode(2) }
    }
}
