// GateTests.swift — the CI gate: two runs of an unchanged tree pass; a seeded conformance bug, a
// change that grows the bytecode and a slowed interpreter (faults of FaultyEngines.swift) fail it;
// the comparison's verdicts, tolerances and exit statuses on made-up figures.
//
// The jobs run the main job's stages (FullRun) on KaBlock and the adblock-rust requests: a few
// seconds each in a debug build.

import Foundation
import Testing
@testable import Benchmarks
@testable import Corpus
@testable import Engines
@testable import Gate
@testable import MainJob
import HarnessTestSupport
import TestSupport

/// KaBlock and 13 rules of EasyList with frame-url conditions (Fixtures/README.md): compiled by
/// compile benchmarks, conformed over the 8,276 adblock-rust requests, KaBlock matched by
/// BlockBench (an evenly spaced sample of 2,000) and pcre2-jit (400).
private func smallRun(_ engine: any CompiledListEngine = BlockBenchEngine()) throws -> FullRunOutcome {
    var manifest = try CorpusManifest.load(root: repositoryRoot + "/Corpora")
    manifest.corpora = manifest.corpora.filter { $0.name == "kablock" || $0.name == "adblock-rust-requests" }
    manifest.corpora.append(
        CorpusManifest.Entry(
            name: "easylist-frame-url", file: "../Tests/GateTests/Fixtures/easylist-frame-url-rules.json", kind: "rules",
            rows: 13, origin: "EasyList", licence: "CC-BY-SA-3.0"))
    let definitions = [
        BenchmarkDefinition(name: "compile-kablock", rules: "kablock", model: .compile, engines: ["blockbench"], runs: 1, warmupRuns: 0),
        BenchmarkDefinition(
            name: "compile-easylist-frame-url", rules: "easylist-frame-url", model: .compile, engines: ["blockbench"], runs: 1,
            warmupRuns: 0),
        BenchmarkDefinition(
            name: "match-kablock-requests", rules: "kablock", requests: "adblock-rust-requests", model: .match,
            engines: ["blockbench", "pcre2-jit"], samples: ["blockbench": 2000, "pcre2-jit": 400], runs: 3, warmupRuns: 1),
    ]
    var job = FullRun(manifest: manifest, definitions: definitions, engine: engine, otherEngines: [PCRE2Engine(jit: true)])
    job.output = { _ in }
    job.progress = nil
    return try job.run()
}

/// The gate's metrics of a test job, without memory: the test process's resident memory is shared
/// with the suites running beside it, so its growth says nothing here (the real gate runs alone).
private func measure(_ outcome: FullRunOutcome) -> [String: GateMetric] {
    GateMetrics.measure(outcome).filter { $0.value.kind != .memory }
}

private let meta = ReportMeta(
    date: "2026-11-23T00:00:00Z", revision: "test", command: "test", machine: "test", cores: 2, memoryGiB: 1, os: "test",
    toolchain: "test", pcre2: "test", webkit: "test")

/// The baseline every fault is compared with, made once, through its file form.
private let baseline: GateBaseline = {
    let path = NSTemporaryDirectory() + "blockbench-baseline-\(UUID().uuidString).json"
    defer { try? FileManager.default.removeItem(atPath: path) }
    try! GateBaseline(metrics: measure(try! smallRun()), meta: meta, previous: nil).write(to: path)
    return try! GateBaseline.load(path)
}()

private func failing(_ comparison: GateComparison) -> [String] { comparison.rows.filter(\.verdict.fails).map(\.metric) }

@Suite(.serialized) struct GateTests {
    @Test func theShippedBenchmarksNameOnlyTheMainJobsEngines() throws {
        // (The main job refuses a definition that names an engine it does not run.)
        let job = try FullRun(corpora: repositoryRoot + "/Corpora", benchmarks: repositoryRoot + "/Benchmarks")
        #expect(!job.definitions.isEmpty)
    }

    @Test func twoRunsOfAnUnchangedTreePass() throws {
        #expect(baseline.metrics["correctness/conform mismatches"]?.value == 0)
        #expect(baseline.metrics["list/kablock"]?.text == "compiles")
        #expect((baseline.metrics["compile-kablock/bytes.urlPrograms"]?.value ?? 0) > 0)
        #expect((baseline.metrics["match-kablock-requests/interpreter steps per request"]?.value ?? 0) > 0)
        #expect(baseline.metrics["match-kablock-requests/time ratio to pcre2-jit"]?.kind == .timeRatio)
        // Time ratios and memory move with the machine's load (other tests run beside this one):
        // their tolerances are for CI's gate, which has the machine to itself.
        var steady = baseline
        steady.metrics = baseline.metrics.filter { !$0.value.kind.movesWithLoad }
        for _ in 0..<2 {
            let comparison = GateComparison(baseline: steady, now: measure(try smallRun()).filter { !$0.value.kind.movesWithLoad })
            #expect(comparison.status == .pass, "\(comparison.table(changedOnly: true))")
        }
    }

    /// A test-only fault: the engine drops the last action of every answer that has one.
    @Test func aSeededConformanceBugFailsTheGate() throws {
        let wrong = FaultyEngine(alteringOutcomes: { outcome in
            var altered = outcome
            if !altered.actions.isEmpty { altered.actions.removeLast() }
            return altered
        })
        let outcome = try smallRun(wrong)
        #expect(outcome.conformMismatches > 0)
        let comparison = GateComparison(baseline: baseline, now: measure(outcome))
        #expect(comparison.status == .regression)
        let failed = failing(comparison)
        #expect(failed.contains("correctness/conform mismatches"))
        #expect(failed.contains("correctness/failures"))
        // The match benchmark rejects the engine before timing it: its figures are missing.
        #expect(failed.contains("match-kablock-requests/time ratio to pcre2-jit"))
    }

    /// A change that grows the bytecode: the minimizer switched off (the same answers from a
    /// bigger file; KaBlock's DFAs come out of the subset construction minimal already, the
    /// frame-url DFA of the EasyList rules does not).
    @Test func aChangeThatGrowsTheBytecodeFailsTheGate() throws {
        let outcome = try smallRun(FaultyEngine(minimizingDFAs: false))
        #expect(outcome.failures.isEmpty)
        let comparison = GateComparison(baseline: baseline, now: measure(outcome))
        #expect(comparison.status == .regression)
        let failed = failing(comparison)
        #expect(failed.contains("compile-easylist-frame-url/bytes"))
        #expect(failed.contains("compile-easylist-frame-url/bytes.framePrograms"))
        #expect(failed.contains("compile-easylist-frame-url/frame-url states"))
        // Nothing about correctness moved.
        #expect(!failed.contains { $0.hasPrefix("correctness/") || $0.hasPrefix("list/") })
    }

    /// A test-only fault: every request answered 20 times (the work counted once), like an
    /// interpreter 20 times slower doing the same steps. Only the time ratio catches it.
    @Test func aSlowedInterpreterFailsTheGate() throws {
        let outcome = try smallRun(FaultyEngine(slowdown: 20))
        #expect(outcome.failures.isEmpty)
        let comparison = GateComparison(baseline: baseline, now: measure(outcome))
        #expect(comparison.status == .regression)
        #expect(failing(comparison) == ["match-kablock-requests/time ratio to pcre2-jit"])
    }
}

/// The comparison on made-up figures: boundaries, kinds, statuses.
@Suite struct GateComparisonTests {
    private func compare(_ old: [String: GateMetric], _ new: [String: GateMetric]) -> GateComparison {
        GateComparison(baseline: GateBaseline(metrics: old, meta: meta, previous: nil), now: new)
    }

    private func count(_ value: Double) -> GateMetric { GateMetric(kind: .count, value: value, unit: "B") }

    @Test func countsMayNotGrowByOneByte() {
        #expect(compare(["a": count(1000)], ["a": count(1000)]).status == .pass)
        #expect(compare(["a": count(1000)], ["a": count(1001)]).status == .regression)
        let improved = compare(["a": count(1000)], ["a": count(999)])
        #expect(improved.status == .improvementOnly)
        #expect(improved.rows[0].change == "-0.10%")
    }

    @Test func timeRatiosMayQuadruple() {
        let ratio = { (value: Double) in GateMetric(kind: .timeRatio, value: value, unit: "x") }
        #expect(compare(["t": ratio(0.01)], ["t": ratio(0.0399)]).status == .pass)
        #expect(compare(["t": ratio(0.01)], ["t": ratio(0.0401)]).status == .regression)
        #expect(compare(["t": ratio(0.01)], ["t": ratio(0.0026)]).status == .pass)
        #expect(compare(["t": ratio(0.01)], ["t": ratio(0.0024)]).status == .improvementOnly)
    }

    @Test func instructionsAndHeapMayMoveByOnePercent() {
        for kind in [GateMetric.Kind.instructions, .heap] {
            let metric = { (value: Double) in GateMetric(kind: kind, value: value) }
            #expect(compare(["i": metric(1_000_000)], ["i": metric(1_009_999)]).status == .pass)
            #expect(compare(["i": metric(1_000_000)], ["i": metric(1_010_001)]).status == .regression)
            #expect(compare(["i": metric(1_000_000)], ["i": metric(990_100)]).status == .pass)
            #expect(compare(["i": metric(1_000_000)], ["i": metric(990_000)]).status == .improvementOnly)
        }
    }

    @Test func memoryHasARelativeAndAnAbsoluteSlack() {
        let memory = { (value: Double) in GateMetric(kind: .memory, value: value, unit: "B") }
        let mebibyte = 1_048_576.0
        #expect(compare(["m": memory(100 * mebibyte)], ["m": memory(157 * mebibyte)]).status == .pass)
        #expect(compare(["m": memory(100 * mebibyte)], ["m": memory(158 * mebibyte)]).status == .regression)
    }

    @Test func correctnessIsAbsoluteAndVerdictsMustNotChange() {
        let zero = GateMetric(kind: .correctness, value: 0)
        #expect(compare(["c": zero], ["c": GateMetric(kind: .correctness, value: 1)]).status == .regression)
        // A failure is a failure even where the baseline has no such row.
        #expect(compare([:], ["c": GateMetric(kind: .correctness, value: 3)]).status == .regression)
        let compiles = GateMetric(kind: .verdict, value: 1, text: "compiles")
        let rejected = GateMetric(kind: .verdict, value: 0, text: "rejected: JSONInvalidRegex")
        #expect(compare(["list/x": compiles], ["list/x": rejected]).rows[0].verdict == .changed)
        #expect(compare(["list/x": rejected], ["list/x": compiles]).status == .regression)
        let answers = { (value: Double) in GateMetric(kind: .answers, value: value) }
        #expect(compare(["a": answers(5)], ["a": answers(6)]).status == .regression)
    }

    @Test func missingFailsAndNewAsksForAnUpdate() {
        #expect(compare(["a": count(1)], [:]).rows[0].verdict == .missing)
        #expect(compare(["a": count(1)], [:]).status == .regression)
        #expect(compare([:], ["a": count(1)]).status == .improvementOnly)
    }

    @Test func aMissingOrBrokenBaselineIsAClearError() throws {
        let missing = NSTemporaryDirectory() + "blockbench-no-baseline-\(UUID().uuidString).json"
        #expect(throws: GateError.self) { try GateBaseline.load(missing) }
        #expect(String(describing: GateError.noBaseline(missing)).contains("--update-baseline"))
        let broken = NSTemporaryDirectory() + "blockbench-broken-baseline-\(UUID().uuidString).json"
        try Data("{\"metrics\": 3}".utf8).write(to: URL(fileURLWithPath: broken))
        defer { try? FileManager.default.removeItem(atPath: broken) }
        do {
            _ = try GateBaseline.load(broken)
            Issue.record("a broken baseline loaded")
        } catch GateError.unreadableBaseline(let path, _) {
            #expect(path == broken)
        }
    }

    @Test func anUpdateKeepsEachMetricsOwnTolerance() {
        var old = GateBaseline(metrics: ["a": count(10)], meta: meta, previous: nil)
        old.metrics["a"]!.tolerance = GateTolerance(percent: 10)
        old.tolerances["count"] = GateTolerance(percent: 1)
        let new = GateBaseline(metrics: ["a": count(20), "b": count(5)], meta: meta, previous: old)
        #expect(new.metrics["a"]?.tolerance == GateTolerance(percent: 10))
        #expect(new.metrics["a"]?.value == 20)
        #expect(new.tolerance(of: "b") == GateTolerance(percent: 1))
        #expect(compare(["a": count(10)], ["a": count(10)]).table().contains("pass"))
    }

    @Test func anUpdateKeepingTimingKeepsOnlyWhatMovesWithLoad() {
        func metric(_ kind: GateMetric.Kind, _ value: Double) -> GateMetric { GateMetric(kind: kind, value: value, unit: "") }
        let old = GateBaseline(
            metrics: ["ratio": metric(.timeRatio, 2), "mean": metric(.timeRatioMean, 3), "resident": metric(.memory, 4), "steps": count(5)],
            meta: meta, previous: nil)
        let now: [String: GateMetric] = [
            "ratio": metric(.timeRatio, 20), "mean": metric(.timeRatioMean, 30), "resident": metric(.memory, 40), "steps": count(50),
            "new ratio": metric(.timeRatio, 60),
        ]
        let kept = GateBaseline(metrics: now, meta: meta, previous: old).keepingFiguresThatMoveWithLoad(of: old)
        #expect(kept.metrics.mapValues(\.value) == ["ratio": 2, "mean": 3, "resident": 4, "steps": 50, "new ratio": 60])
    }
}
