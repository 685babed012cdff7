// `blockbench report [NAME...]`: runs the benchmarks (all, or as selected), writes a report folder
// under Reports/ (results.json, results.csv, README.md, index.html), records the run in the
// history store and rebuilds the trends pages from the history (Reports/trends/); prints the
// tables and the paths. All of these are ignored by git.
//
// `blockbench report --from-history` measures nothing: it builds the trends pages from the
// recorded runs alone (Reports/History/TrendsPage.swift).
//
// `--format bmf|github` prints the run's record (with --from-history: the newest record) in
// Bencher Metric Format or as github-action-benchmark's customSmallerIsBetter input
// (Reports/History/TrackerFormats.swift), or writes it to --output.
//
// `blockbench report --readme [--from REPORT]` runs nothing: it rewrites the figures block of the
// repository's README.md (the lines from `<!-- figures:begin` to `<!-- figures:end -->`) from
// Reports/readme-results.json; with --from (or when that file is missing, the newest report), it
// first copies the report's results.json there (Reports/ReadmeFigures.swift). It is the
// report command's only mode that changes tracked files.
//
// Tested by BlockBenchCLITests/ReadmeFiguresTests.swift and BlockBenchCLITests/HistoryCommandTests.swift.

public import ArgumentParser
import Foundation
import Benchmarks
import Gate
import Reports

extension TrackerFormat: ExpressibleByArgument {}

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Run the benchmarks, write a report folder under Reports/, record the run and rebuild the trends pages (exit 2 when an engine gives wrong answers).",
        discussion: "With --from-history, measures nothing: builds the trends pages (Reports/trends/) from the recorded runs. "
            + "With --readme, runs no benchmark: rewrites the block of README.md between its `<!-- figures:begin` and "
            + "`<!-- figures:end -->` lines from Reports/readme-results.json (--from REPORT copies a report's results.json there first), "
            + "leaving every other line as it was.")

    @Argument(help: "Benchmark names (default: every one).")
    var names: [String] = []

    @OptionGroup var selection: BenchSelection

    @Flag(help: "Measure nothing: build the trends pages from the history store.")
    var fromHistory = false

    @Option(help: "Also give the run's figures (with --from-history: the newest record's) as bmf (Bencher Metric Format) or github (github-action-benchmark's customSmallerIsBetter).")
    var format: TrackerFormat?

    @Option(help: "With --format: the file to write (default: standard output, and no tables).")
    var output: String?

    @Flag(help: "Run no benchmark: rewrite README.md's figures block from Reports/readme-results.json.")
    var readme = false

    @Option(help: "With --readme: copy this report's results.json (a folder name under the reports folder, or a path) to Reports/readme-results.json first.")
    var from: String?

    @Option(help: "With --readme: the README file whose figures block is rewritten.")
    var readmeFile = "README.md"

    func validate() throws {
        if !readme && from != nil { throw ValidationError("--from goes with --readme") }
        if readme && !names.isEmpty { throw ValidationError("--readme runs no benchmark: give no benchmark names") }
        if readme && (fromHistory || format != nil) { throw ValidationError("--readme goes with neither --from-history nor --format") }
        if fromHistory && !names.isEmpty { throw ValidationError("--from-history runs no benchmark: give no benchmark names") }
        if output != nil && format == nil { throw ValidationError("--output goes with --format") }
    }

    func run() throws {
        if readme { return try writeReadme() }
        if fromHistory { return try writeFromHistory() }
        let quiet = format != nil && output == nil
        let meta = ReportMeta.ofThisRun()
        let suite = try selection.suite(names: names, quiet: quiet)
        let results = try suite.run { if !quiet { print(ResultTable($0).text + "\n") } }
        let writer = selection.folders.writer
        let folder = try writer.write(results: results, meta: meta)
        let trends = try writer.writeTrends()
        if let format {
            try emit(RunRecord(Report(meta: meta, benchmarks: results), kind: "report").fitted(), as: format)
        }
        if !quiet {
            print("report: \(folder)")
            if let trends { print("trends: \(trends)") }
        }
        if !results.allSatisfy(\.passed) { throw ExitCode(2) }
    }

    /// The trends pages (and --format's output) from the history store alone.
    func writeFromHistory() throws {
        let folders = selection.folders
        let records = folders.store.records()
        guard let newest = records.last else {
            throw ValidationError("no recorded run in \(folders.store.root)/: record one (`blockbench report`, `gate`) or import one (`blockbench history import FILE`)")
        }
        if let format { try emit(newest, as: format) }
        guard format == nil || output != nil else { return }
        let baseline = try? GateBaseline.load(folders.reports + "/baseline.json")
        let page = TrendsPage(records: records, baseline: baseline)
        let index = try page.write(to: folders.reports + "/trends")
        print("trends: \(index) (\(page.runs.count) runs of \(newest.machine), \(page.benchmarks.count) benchmarks, from \(folders.store.root))")
    }

    func emit(_ record: RunRecord, as format: TrackerFormat) throws {
        let text = try record.tracked(as: format)
        guard let output else { return print(text, terminator: "") }
        try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        print("\(format.rawValue): \(output) (revision \(record.revision), \(record.date))")
    }

    func writeReadme() throws {
        let reports = selection.reports
        let results = reports + "/" + ReadmeFigures.resultsFile
        if let from {
            var candidates = [from, reports + "/" + from]
            if from.hasSuffix("/results.json") { candidates.append(String(from.dropLast("/results.json".count))) }
            guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0 + "/results.json") }) else {
                throw ValidationError("no report \(from): neither a folder with a results.json nor a report under \(reports)/")
            }
            try ReadmeFigures.adopt(report: found, into: reports)
        } else if !FileManager.default.fileExists(atPath: results) {
            try ReadmeFigures.adopt(report: try ReadmeFigures.newestReport(in: reports), into: reports)
        }
        let report = try ReadmeFigures.update(readme: readmeFile, results: results)
        print("\(readmeFile): figures block written from \(results) (report \(report.meta.folderName), revision \(report.meta.revision))")
    }
}
