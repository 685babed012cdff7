// `blockbench bench [NAME...]`: runs the benchmark definitions of Benchmarks/ (all but those run
// on demand, or those named, or those of a model, rule list or engine) and prints one table per benchmark with each engine's
// ratio to the best one measured in the same run. `--json` prints the results as JSON instead;
// `--report` also writes a report folder (as `blockbench report` does).
//
// Exit 0 when every engine that ran gave the oracle's answers, 2 when one was wrong (it is
// reported, never timed), 1 on an error.
// No test of its own: what it runs is BenchmarkRunner's, tested by BenchmarksTests (BenchTests).

public import ArgumentParser
import Foundation
import Benchmarks
import Corpus
import Engines
import Reports
import TerminalText

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Run the benchmarks of Benchmarks/ and print a table per benchmark (exit 2 when an engine gives wrong answers).")

    @Argument(help: "Benchmark names (file names in Benchmarks/ without .json; default: every one not run on demand).")
    var names: [String] = []

    @OptionGroup var selection: BenchSelection

    @Flag(help: "Print the results as JSON instead of tables.")
    var json = false

    @Flag(help: "Also write a report folder under Reports/.")
    var report = false

    func run() throws {
        let meta = ReportMeta.ofThisRun()
        let suite = try selection.suite(names: names, quiet: json)
        let results = try suite.run { result in
            if !json { print(ResultTable(result).text + "\n") }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(results), as: UTF8.self))
        }
        if report {
            let writer = selection.folders.writer
            let folder = try writer.write(results: results, meta: meta)
            let trends = try writer.writeTrends()
            if !json { print("report: \(folder)" + (trends.map { " (trends: \($0))" } ?? "")) }
        }
        if !results.allSatisfy(\.passed) { throw ExitCode(2) }
    }
}

/// Where the corpora, the benchmark definitions and the reports are.
struct FolderOptions: ParsableArguments {
    @Option(help: "The corpora folder.")
    var corpora = "Corpora"

    @Option(help: "The benchmark definitions folder.")
    var benchmarks = "Benchmarks"

    @Option(help: "The reports folder (report folders, the trends pages, and by default the history).")
    var reports = "Reports"

    @Option(help: "The history store, one record per run (default: <reports>/history).")
    var history: String?

    @Flag(help: "Record nothing in the history store.")
    var noRecord = false

    var store: HistoryStore { HistoryStore(root: history ?? reports + "/history") }

    /// Writes report folders into the reports folder, and records runs unless --no-record.
    var writer: ReportWriter { ReportWriter(reportsFolder: reports, history: noRecord ? nil : store) }
}

/// Which benchmarks to run, and where things are.
struct BenchSelection: ParsableArguments {
    @Option(help: "Only benchmarks of this model (check, compile, match).")
    var model: BenchmarkDefinition.Model?

    @Option(help: "Only benchmarks of this rule list (a manifest name).")
    var rules: String?

    @Option(help: "Only these engines (repeatable; default: each definition's engines).")
    var engine: [String] = []

    @Option(help: "Run each benchmark at most this many measured runs (0: as defined).")
    var maxRuns = 0

    @Option(help: "Write the lists benchmarks draw into this folder and keep them (default: a scratch folder, removed).")
    var drawn: String?

    @OptionGroup var folders: FolderOptions

    var reports: String { folders.reports }

    func suite(names: [String], quiet: Bool) throws -> BenchSuite {
        let manifest = try CorpusManifest.load(root: folders.corpora)
        let runner = BenchmarkRunner(manifest: manifest, engines: BenchEngines.standard())
        runner.ownProcessCompiler = OwnProcessMemory.currentExecutable
        runner.drawnFolder = drawn
        var definitions = try BenchmarkDefinition.loadAll(from: folders.benchmarks, engines: runner.engineNames)
        if !names.isEmpty {
            for name in names where !definitions.contains(where: { $0.name == name }) {
                throw ValidationError("no benchmark \(name) in \(folders.benchmarks)/ (have: \(definitions.map(\.name).joined(separator: ", ")))")
            }
            definitions = definitions.filter { names.contains($0.name) }
        } else {
            definitions = definitions.filter { !$0.onDemand }
        }
        if let model { definitions = definitions.filter { $0.model == model } }
        if let rules { definitions = definitions.filter { $0.rules == rules } }
        if !engine.isEmpty {
            definitions = definitions.compactMap { definition in
                var narrowed = definition
                narrowed.engines = definition.engines.filter(engine.contains)
                return narrowed.engines.isEmpty ? nil : narrowed
            }
        }
        if maxRuns > 0 {
            definitions = definitions.map { definition in
                var capped = definition
                capped.runs = min(definition.measuredRuns, maxRuns)
                return capped
            }
        }
        if definitions.isEmpty { throw ValidationError("no benchmark selected") }
        var suite = BenchSuite(runner: runner, definitions: definitions)
        if !quiet { suite.progress = Progress.line }
        return suite
    }
}

extension BenchmarkDefinition.Model: ExpressibleByArgument {}
