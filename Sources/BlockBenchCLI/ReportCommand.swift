// `blockbench report [NAME...]`: runs the benchmarks (all, or as selected) and writes a report
// folder under Reports/ (results.json, results.csv, README.md, index.html) plus a line in
// Reports/history.jsonl; prints the tables and the folder's path.
//
// `blockbench report --readme [--from REPORT]` runs nothing: it rewrites the figures block of the
// repository's README.md (the lines from `<!-- figures:begin` to `<!-- figures:end -->`) from a
// report, the newest under Reports/ unless one is named (Harness/Reports/ReadmeFigures.swift).

import ArgumentParser
import Foundation
import Harness

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Run the benchmarks and write a report folder under Reports/ (exit 2 when an engine gives wrong answers).",
        discussion: "With --readme, runs no benchmark: rewrites the block of README.md between its `<!-- figures:begin` and "
            + "`<!-- figures:end -->` lines from a report's results.json (the newest under the reports folder, or --from), "
            + "leaving every other line as it was.")

    @Argument(help: "Benchmark names (default: every one).")
    var names: [String] = []

    @OptionGroup var selection: BenchSelection

    @Flag(help: "Run no benchmark: rewrite README.md's figures block from a report.")
    var readme = false

    @Option(help: "With --readme: the report, a folder name under the reports folder or a path (default: the newest).")
    var from: String?

    @Option(help: "With --readme: the README file whose figures block is rewritten.")
    var readmeFile = "README.md"

    func validate() throws {
        if !readme && from != nil { throw ValidationError("--from goes with --readme") }
        if readme && !names.isEmpty { throw ValidationError("--readme runs no benchmark: give no benchmark names") }
    }

    func run() throws {
        if readme { return try writeReadme() }
        let meta = ReportMeta.ofThisRun()
        let suite = try selection.suite(names: names, quiet: false)
        let results = try suite.run { print(ResultTable($0).text + "\n") }
        let folder = try ReportWriter(reportsFolder: selection.reports).write(results: results, meta: meta)
        print("report: \(folder)")
        if !results.allSatisfy(\.passed) { throw ExitCode(2) }
    }

    func writeReadme() throws {
        let folder: String
        if let from {
            var candidates = [from, selection.reports + "/" + from]
            if from.hasSuffix("/results.json") { candidates.append(String(from.dropLast("/results.json".count))) }
            guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0 + "/results.json") }) else {
                throw ValidationError("no report \(from): neither a folder with a results.json nor a report under \(selection.reports)/")
            }
            folder = found
        } else {
            folder = try ReadmeFigures.newestReport(in: selection.reports)
        }
        let report = try ReadmeFigures.update(readme: readmeFile, reportFolder: folder)
        print("\(readmeFile): figures block written from \(folder) (\(report.meta.date.prefix(10)), revision \(report.meta.revision))")
    }
}
