// The `blockbench` command and its subcommands, one file each. With no subcommand it runs the
// main job (MainJob/FullRun.swift) on the shipped corpora.
// Tested by BlockBenchCLITests/CLITests.swift (every command parsed through it, and its exit
// codes).

public import ArgumentParser
import ContentBlocker
import ContentRuleList
import Foundation
import Benchmarks
import MainJob

public struct BlockBenchCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "blockbench",
        abstract: "Compile Safari content-blocker rule lists like WebKit, and prove it.",
        subcommands: [
            RunCommand.self, CheckCommand.self, CompileCommand.self, MatchCommand.self, LoadCommand.self, ConformCommand.self, BenchCommand.self,
            GateCommand.self, CostCommand.self, ReportCommand.self, FuzzCommand.self, HostileCommand.self, DumpCommand.self,
            ProfileCommand.self, HistoryCommand.self, DialectsCommand.self, DiffCommand.self, HeadroomCommand.self,
        ],
        defaultSubcommand: RunCommand.self)

    public init() {}
}

/// The main job: every stage of MainJob/FullRun.swift on the shipped corpora, then the report
/// (Reports/<date>-<revision>/, a record in the history store, the trends pages: all ignored by
/// git) and a summary. Exit 1 when anything disagrees or fails.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "The main job on the shipped corpora: check, compile, conform and benchmark every rule list, run WebKit's vectors, write a report.")

    @OptionGroup var folders: FolderOptions

    @Flag(help: "Do not write a report (print only).")
    var noReport = false

    func run() throws {
        let started = ContinuousClock.now
        // The revision and tree state measured are those at the start.
        let meta = ReportMeta.ofThisRun()
        let outcome = try FullRun(corpora: folders.corpora, benchmarks: folders.benchmarks).run()
        print("\n== summary")
        print(FullRun.summary(outcome))
        if !noReport {
            let writer = folders.writer
            let folder = try writer.write(results: outcome.results, meta: meta, kind: "run")
            print("report: \(folder)/README.md (page: \(folder)/index.html)")
            if let trends = try writer.writeTrends() { print("trends: \(trends) (history: \(folders.store.root))") }
        }
        print(String(format: "main job finished in %.1f s", (ContinuousClock.now - started).seconds))
        if !outcome.failures.isEmpty {
            print("FAILED: " + outcome.failures.joined(separator: "; "))
            throw ExitCode(1)
        }
    }
}
