// `blockbench gate`: the command CI runs. It runs the main job's stages (FullRun.swift: check,
// compile, conform, benchmark, vectors) on the shipped corpora, reads the gate's metrics from them
// (Gate/GateMetrics.swift) and compares them with the committed baseline
// (Reports/baseline.json): a table of metric, baseline, now, change and verdict.
//
// Exit 0 pass; 2 regression (a correctness failure, a list that starts or stops compiling, a
// changed answer, a metric beyond its tolerance or no longer measured); 3 nothing failed, but the
// instruction and heap counts were taken on another setup than the baseline's (it says how to
// compare them: `--against`); 4 improvement only (it says how to accept it); 1 error. Every run is
// recorded in the history store with its verdict (unless --no-record), which is ignored by git:
// the gate leaves `git status` clean unless --update-baseline rewrites the baseline.
//
// `--update-baseline` rewrites the baseline from this run (keeping the tolerances) and prints what
// moved; it refuses while anything is incorrect. With `--keep-timing` it keeps the baseline's time
// ratios and resident memory: a run that shared the machine holds its counts, not its times.
//
// `--against REV` compares the instruction and heap counts with REV's instead of the baseline's:
// REV is built (release, in a worktree) and counted on this machine in this run, which is valid
// whatever the machine; the other metrics are still compared with the baseline.
// Tested by GateTests and ReportsTests (GateTests: the comparison; HistoryStoreTests: its record of
// a run).

import ArgumentParser
import Foundation
import Benchmarks
import Corpus
import Engines
import Gate
import MainJob
import TerminalText

struct GateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gate",
        abstract: "Run the main job and compare it with Reports/baseline.json (exit 0 pass, 2 regression, 3 counts not comparable, 4 improvement only, 1 error).")

    @Option(help: "The baseline file.")
    var baseline = "Reports/baseline.json"

    @Flag(help: "Rewrite the baseline from this run (refused while anything is incorrect) and print what moved.")
    var updateBaseline = false

    @Flag(help: "With --update-baseline: keep the baseline's time ratios and resident memory (a run that shared the machine).")
    var keepTiming = false

    @Flag(help: "Print only the rows that are not an unchanged pass.")
    var changedOnly = false

    @Flag(help: "Also write a report folder under Reports/.")
    var report = false

    @Option(help: "Compare the instruction and heap counts with this revision's, built and counted here in this run, instead of the baseline's.")
    var against: String?

    @OptionGroup var folders: FolderOptions

    func run() throws {
        let started = ContinuousClock.now
        let meta = ReportMeta.ofThisRun()
        // Read the baseline before spending minutes on the job.
        let previous: GateBaseline?
        do {
            previous = try GateBaseline.load(baseline)
        } catch GateError.noBaseline(_) where updateBaseline {
            previous = nil
        }
        if against != nil && updateBaseline { throw ValidationError("--against compares with a revision; it does not update the baseline") }
        if keepTiming && !updateBaseline { throw ValidationError("--keep-timing says what --update-baseline keeps") }
        // The revision's counts first: a build that fails fails before the job's minutes.
        let reference = try against.map { revision in
            guard let previous else { throw ValidationError("--against needs the baseline for every other metric: \(baseline)") }
            return try countRevision(revision, baseline: previous, toolchain: meta.toolchain)
        }

        let outcome = try FullRun(corpora: folders.corpora, benchmarks: folders.benchmarks).run()
        print("\n== summary")
        print(FullRun.summary(outcome))
        let metrics = GateMetrics.measure(outcome)
        let comparison = (reference ?? previous).map { GateComparison(baseline: $0, now: metrics, fingerprint: outcome.costFingerprint) }
        let verdict: String =
            switch comparison?.status {
            case .pass?: "pass"
            case .regression?: "regression"
            case .improvementOnly?: "improvement"
            case .notComparable?: "not comparable"
            case nil: "new baseline"
            }
        let writer = folders.writer
        if report {
            let folder = try writer.write(results: outcome.results, meta: meta, kind: "gate", gate: verdict)
            print("report: \(folder)/README.md (page: \(folder)/index.html)")
        } else if let recorded = try writer.record(results: outcome.results, meta: meta, kind: "gate", gate: verdict) {
            print("history: \(recorded)")
        }
        if let trends = try writer.writeTrends() { print("trends: \(trends)") }
        print(String(format: "gate's main job finished in %.1f s", (ContinuousClock.now - started).seconds))
        if !outcome.failures.isEmpty { print("FAILED: " + outcome.failures.joined(separator: "; ")) }

        if updateBaseline {
            try update(metrics: metrics, outcome: outcome, meta: meta, previous: previous, comparison: comparison)
            return
        }
        guard let previous, let comparison else { return }
        print("\n== gate: this run against \(baseline) (revision \(previous.produced.revision), \(previous.produced.date.prefix(10)), \(previous.produced.machine))")
        if let against { print("instructions and heap against \(against), built and counted in this run") }
        print("tolerances: " + Self.tolerances(previous))
        print(comparison.table(changedOnly: changedOnly))
        print(comparison.summary)
        switch comparison.status {
        case .pass:
            break
        case .regression:
            let failing = comparison.rows.filter(\.verdict.fails).map(\.metric)
            print("failing: " + failing.prefix(12).joined(separator: "; ") + (failing.count > 12 ? "; …" : ""))
            throw ExitCode(comparison.status.rawValue)
        case .notComparable:
            print("The instruction and heap counts were taken on another setup than the baseline's (\(comparison.notComparableBecause ?? "")),")
            print("so they were not compared. Count the baseline's revision and this tree in one run instead:")
            print("`swift run -c release blockbench gate --against \(previous.produced.revision)`.")
            throw ExitCode(comparison.status.rawValue)
        case .improvementOnly:
            print("Better than the baseline. To hold the gain: `swift run -c release blockbench gate --update-baseline`,")
            print("then commit \(baseline) with the change that made it.")
            throw ExitCode(comparison.status.rawValue)
        }
    }

    func update(
        metrics: [String: GateMetric], outcome: FullRunOutcome, meta: ReportMeta, previous: GateBaseline?, comparison: GateComparison?
    ) throws {
        let incorrect = metrics.filter { $0.value.kind == .correctness && $0.value.value != 0 }
        if !incorrect.isEmpty {
            print("baseline NOT updated: this run is not correct (\(incorrect.keys.sorted().joined(separator: ", ")))")
            throw ExitCode(GateComparison.Status.regression.rawValue)
        }
        var new = GateBaseline(metrics: metrics, meta: meta, costFingerprint: outcome.costFingerprint, previous: previous)
        if keepTiming, let previous { new = new.keepingFiguresThatMoveWithLoad(of: previous) }
        try new.write(to: baseline)
        guard let comparison else {
            print("\n== baseline written: \(baseline), \(metrics.count) metrics (there was none)")
            return
        }
        let moved = comparison.rows.filter { $0.verdict != .pass }
        print("\n== baseline updated: \(baseline), \(metrics.count) metrics; what moved beyond its tolerance (\(moved.count)):")
        if moved.isEmpty {
            print("nothing (times within their tolerance were re-measured)")
        } else {
            var shown = comparison
            shown.rows = moved
            print(shown.table())
        }
    }

    /// The baseline with its instruction and heap counts replaced by `revision`'s, counted here.
    func countRevision(_ revision: String, baseline: GateBaseline, toolchain: String) throws -> GateBaseline {
        let top = try RevisionCost.repositoryTop()
        var counted = try RevisionCost(revision: revision, repository: top)
        counted.progress = Progress.line
        let executable = try counted.build()
        let manifest = try CorpusManifest.load(root: folders.corpora)
        let definitions = try BenchmarkDefinition.loadAll(
            from: folders.benchmarks, engines: Set(BenchEngines.standard().map(\.name)))
        let (theirs, fingerprint) = try counted.metrics(of: executable, definitions: definitions, manifest: manifest, toolchain: toolchain)
        var reference = baseline
        reference.metrics = baseline.metrics.filter { !$0.value.kind.isCost }.merging(theirs) { _, counted in counted }
        reference.produced.costFingerprint = fingerprint
        return reference
    }

    static func tolerances(_ baseline: GateBaseline) -> String {
        GateMetric.Kind.allCases.compactMap { kind in
            baseline.tolerances[kind.rawValue].map { "\(kind.rawValue) \($0.text)" }
        }.joined(separator: ", ") + "; correctness 0, verdicts and answers equal"
    }
}
