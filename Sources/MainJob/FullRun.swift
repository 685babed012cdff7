// FullRun.swift — MainJob
//
// The full run: every stage on every shipped corpus, what the README and the command line call
// the main job. `blockbench run` ends it in a report, `blockbench gate` in a comparison with the
// baseline. The stages:
//
//  1. check every shipped list (WebKit's verdict, statistics) and run the check and compile
//     benchmarks of Benchmarks/ (BlockBench's compile leaves each list's bytecode behind);
//  2. read every compiled file back (validated; the same bytes must come out) and conform it
//     against the PCRE2 oracle on every shipped request set;
//  3. run the match benchmarks (every engine's answers checked against the oracle first);
//  4. run WebKit's vectors through the engine and the oracle;
//  5. take the exact counts the benchmarks asked for (BlockBench's instructions, data misses and
//     heap peaks under Valgrind, when counted): each in a process of its own, as many at a time
//     as there are cores, once nothing is being timed (their figures do not depend on what runs
//     beside them).
//
// Everything it finds goes into a FullRunOutcome (FullRunOutcome.swift); every failure is also a
// line of its `failures`.
// Tested by GateTests (GateTests: the stages on KaBlock and a sample of requests).

internal import ContentBlocker
internal import ContentRuleList
internal import Foundation
public import Benchmarks
internal import Conformance
public import Corpus
public import Engines
public import Gate
internal import Reports
internal import TerminalText

/// The main job's stages over a manifest's corpora and a set of benchmark definitions.
public struct FullRun {
    public var manifest: CorpusManifest
    public var definitions: [BenchmarkDefinition]
    /// BlockBench, whose compiled lists the conformance stage reads back.
    public var engine: any CompiledListEngine
    /// The other engines of the benchmarks.
    public var otherEngines: [any BenchEngine]
    /// Where the job's text goes, a line at a time.
    public var output: (String) -> Void = { print($0) }
    /// A one-line status, overwritten by the next (nil: none).
    public var progress: ((String) -> Void)? = Progress.line
    /// The `blockbench` executable the compile benchmarks also run in a process of their own, for
    /// its peak memory (the shipped-corpora job: this executable; nil: not measured).
    public var ownProcessCompiler: String?
    /// Counts BlockBench's instructions and heap peak under Valgrind (the shipped-corpora job:
    /// this executable's; nil: not counted).
    public var costCounter: CostCounter?

    public init(
        manifest: CorpusManifest, definitions: [BenchmarkDefinition], engine: any CompiledListEngine, otherEngines: [any BenchEngine]
    ) {
        self.manifest = manifest
        self.definitions = definitions
        self.engine = engine
        self.otherEngines = otherEngines
    }

    /// The shipped corpora and definitions (those run on demand aside) with the standard engines.
    public init(corpora: String, benchmarks: String, engine: any CompiledListEngine = BlockBenchEngine()) throws {
        let manifest = try CorpusManifest.load(root: corpora)
        let others = BenchEngines.standard().filter { $0.name != engine.name }
        let names = Set([engine.name] + others.map(\.name))
        self.init(
            manifest: manifest, definitions: try BenchmarkDefinition.loadAll(from: benchmarks, engines: names).filter { !$0.onDemand }, engine: engine,
            otherEngines: others)
        ownProcessCompiler = OwnProcessMemory.currentExecutable
        if let executable = ownProcessCompiler {
            if let reason = CostCounter.unavailableReason() {
                unavailableCost = reason
            } else {
                costCounter = CostCounter(executable: executable, toolchain: ReportMeta.ofThisRun().toolchain)
            }
        }
    }

    /// Why the shipped-corpora job counts no instructions, when it does not.
    public var unavailableCost: String?

    /// The stages in order (the file's header); every failure is a line of the outcome's
    /// `failures`.
    public func run() throws -> FullRunOutcome {
        var outcome = FullRunOutcome()
        let runner = BenchmarkRunner(manifest: manifest, engines: [engine] + otherEngines)
        runner.ownProcessCompiler = ownProcessCompiler
        runner.costCounter = costCounter
        if let unavailableCost { output("instruction and heap counts: \(unavailableCost)") }

        output("== check: every shipped rule list")
        try checkLists(into: &outcome)
        output("\n== benchmarks: check and compile (Benchmarks/*.json)\n")
        try runBenchmarks(.check, runner, into: &outcome)
        try runBenchmarks(.compile, runner, into: &outcome)

        output("== compile: every shipped list WebKit accepts, its file read back and validated,")
        output("   then conform: the file's answers against the PCRE2 oracle on every shipped request set")
        let requestSets = try manifest.corpora.filter { RequestSets.kinds.contains($0.kind) }.map { try RequestSets.load($0, from: manifest) }
        requestSets.forEach(runner.provide)
        for entry in manifest.entries(ofKind: "rules") {
            guard let row = outcome.lists.firstIndex(where: { $0.name == entry.name }), outcome.lists[row].compiles else { continue }
            readBackAndConform(entry, row: row, requestSets: requestSets, runner, into: &outcome)
        }

        output("\n== benchmarks: match (every engine's answers checked against the oracle before its time counts)\n")
        try runBenchmarks(.match, runner, into: &outcome)

        try runVectors(into: &outcome)
        takeCounts(runner, into: &outcome)
        for result in outcome.results {
            for engine in result.engines where engine.status == .wrong || engine.status == .error {
                outcome.failures.append("\(result.name): \(engine.engine) is \(engine.status.rawValue): \(engine.message ?? "")")
            }
        }
        outcome.costFingerprint = costCounter?.fingerprint
        return outcome
    }

    /// The benchmarks of one model, each printed as its table when done.
    func runBenchmarks(_ model: BenchmarkDefinition.Model, _ runner: BenchmarkRunner, into outcome: inout FullRunOutcome) throws {
        var suite = BenchSuite(runner: runner, definitions: definitions.filter { $0.model == model })
        suite.progress = progress
        outcome.results += try suite.run { output(ResultTable($0).text + "\n") }
    }

    /// Stage 1: every shipped list checked as WebKit checks it.
    func checkLists(into outcome: inout FullRunOutcome) throws {
        for entry in manifest.entries(ofKind: "rules") {
            let path = manifest.path(of: entry)
            let listStarted = ContinuousClock.now
            let check = RuleListParser.check(try CorpusFiles.read(path))
            let report = CheckReport(path: path, check: check, seconds: (ContinuousClock.now - listStarted).seconds)
            output(report.text(maxWarnings: 3))
            switch check.verdict {
            case .success:
                outcome.lists.append(ListOutcome(name: entry.name, rules: check.list.rules.count, compiles: true, verdict: "compiles"))
            case .failure(let error):
                outcome.lists.append(
                    ListOutcome(name: entry.name, rules: check.list.rules.count, compiles: false, verdict: "rejected: \(error.code.name)"))
                outcome.failures.append("\(entry.name) is rejected")
            }
        }
    }

    /// Stage 2 for one list: its compiled file read back (validated; the same bytes must come
    /// out), then that file conformed against the oracle on every request set.
    func readBackAndConform(
        _ entry: CorpusManifest.Entry, row: Int, requestSets: [RequestSet], _ runner: BenchmarkRunner, into outcome: inout FullRunOutcome
    ) {
        let path = manifest.path(of: entry)
        do {
            let json = try CorpusFiles.read(path)
            if engine.compiledList(named: entry.name) == nil {
                // No compile benchmark ran for this list: compile it here.
                _ = try engine.compile(BenchList(name: entry.name, json: json))
            }
            let bytes = engine.compiledList(named: entry.name)!.serialized()
            let reloaded = try CompiledRuleList(validating: bytes)
            guard reloaded.serialized() == bytes else {
                output("\(path): FAIL: the file read back does not write the same bytes")
                outcome.lists[row].compiles = false
                outcome.lists[row].verdict = "compiles, but its file does not read back"
                outcome.failures.append("\(entry.name)'s file does not read back")
                return
            }
            engine.adopt(reloaded, as: entry.name)
            output("\(path): \(bytes.count.grouped) bytes, read back and validated")
            outcome.lists[row].bytes = bytes.count
            let list = try RuleListParser.parse(json).get()
            var conformance = ConformanceRun()
            // The file just read back answers for the whole list; reductions of a mismatch
            // compile their sub-lists afresh.
            conformance.engine = engine.conformanceEngine(for: list, file: reloaded)
            _ = try conformance.run(listName: entry.name, json: json, list: list, requestSets: requestSets) { result in
                output(CorpusConformance.text(result))
                runner.provideOracleAnswers(from: result)
                outcome.lists[row].conformRequests += result.requests
                outcome.lists[row].conformMismatches += result.mismatches
                if !result.passed { outcome.failures.append("\(entry.name) × \(result.requestSet) does not conform") }
            }
        } catch {
            output("\(path): \(error)")
            outcome.lists[row].compiles = false
            outcome.lists[row].verdict = "does not compile here: \(error)"
            outcome.failures.append("\(entry.name): \(error)")
        }
    }

    /// Stage 4: WebKit's vectors through the engine and the oracle.
    func runVectors(into outcome: inout FullRunOutcome) throws {
        for entry in manifest.entries(ofKind: "vectors") {
            output("== conform: \(manifest.path(of: entry))")
            let vectors = VectorRunner.run(try VectorFile.load(manifest.path(of: entry)))
            vectors.lines.forEach(output)
            outcome.vectorsPassed += vectors.passed
            outcome.vectorsFailed += vectors.failed
        }
        if outcome.vectorsFailed > 0 { outcome.failures.append("\(outcome.vectorsFailed) vectors fail") }
    }

    /// Stage 5: the exact counts the benchmarks asked for; a count that fails makes its result
    /// an error or wrong (a failure of the run below).
    func takeCounts(_ runner: BenchmarkRunner, into outcome: inout FullRunOutcome) {
        guard runner.pendingCounts > 0 else { return }
        output("\n== counts: \(runner.pendingCounts) exact counts under Valgrind, \(ProcessInfo.processInfo.activeProcessorCount) at a time")
        let failed = runner.takeCounts(into: &outcome.results)
        failed.forEach { output("FAIL: " + $0) }
        if failed.isEmpty { output("every count taken") }
    }

    /// The list table, the conformance total and the benchmark summary.
    public static func summary(_ outcome: FullRunOutcome) -> String {
        let nameWidth = max(4, outcome.lists.map(\.name.count).max() ?? 0)
        var lines = ["list".padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  " + "rules".leftPadded(8) + "  verdict"]
        for list in outcome.lists {
            var verdict = list.verdict
            if let bytes = list.bytes {
                verdict += ", \(bytes.grouped) bytes, \(list.conformMismatches.grouped) mismatches with the oracle"
            }
            lines.append(list.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  " + list.rules.grouped.leftPadded(8) + "  " + verdict)
        }
        lines.append(
            "conform: \(outcome.conformRequests.grouped) requests answered by the engine and the oracle, \(outcome.conformMismatches.grouped) mismatches")
        lines.append(BenchSummary(outcome.results).text)
        return lines.joined(separator: "\n")
    }
}
