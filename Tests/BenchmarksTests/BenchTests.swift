// BenchTests.swift — benchmarks: a wrong engine is rejected by the count check and never timed;
// definitions are checked on load; a dense budget loads BlockBench's list within it; samples are
// evenly spaced; a report folder is complete and its history line appended.

import Testing
import Foundation
import ContentRuleList
@testable import Benchmarks
@testable import Corpus
@testable import Engines
@testable import Reports
import RequestContext
import HarnessTestSupport
import TestSupport

private func runner(_ engines: [any BenchEngine]) throws -> BenchmarkRunner {
    BenchmarkRunner(manifest: try CorpusManifest.load(root: repositoryRoot + "/Corpora"), engines: engines)
}

/// KaBlock over an evenly spaced sample of the adblock-rust requests: small enough for a test,
/// 863 of the 8,276 requests get actions, so a sample of 400 has plenty.
private let kablockMatch = BenchmarkDefinition(
    name: "test-match", rules: "kablock", requests: "adblock-rust-requests", model: .match, engines: ["blockbench"],
    samples: ["blockbench": 400], runs: 2, warmupRuns: 1)

@Suite struct BenchTests {
    @Test func theRealEngineAgreesWithTheOracleAndIsTimed() throws {
        let result = try runner([BlockBenchEngine()]).run(kablockMatch)
        let engine = try #require(result.engines.first)
        #expect(engine.status == .ok)
        #expect(engine.requests == 400)
        #expect(engine.sampled == true)
        #expect(engine.answers == engine.oracleAnswers)
        #expect((engine.answers?.requestsWithActions ?? 0) > 10)
        #expect(engine.runs == 2)
        #expect(engine.latency?.samples == 800)
        #expect((engine.counter("interpreter steps per request") ?? 0) > 0)
        #expect(engine.timeRatio == 1)
    }

    /// A test-only fault (FaultyEngines.swift): an engine that drops the last action of every
    /// answer. The count check rejects it before any of its time is measured.
    @Test func aWrongEngineIsReportedAsWrongNeverAsFast() throws {
        let wrong = FaultyEngine(alteringOutcomes: { outcome in
            var altered = outcome
            if !altered.actions.isEmpty { altered.actions.removeLast() }
            return altered
        })
        let result = try runner([wrong]).run(kablockMatch)
        let engine = try #require(result.engines.first)
        #expect(engine.status == .wrong)
        #expect(engine.latency == nil)
        #expect(engine.runs == 0)
        #expect(engine.timeRatio == nil)
        #expect(engine.message?.contains("differ from the oracle") == true)
        #expect(!result.passed)
        #expect(ResultTable(result).text.contains("WRONG"))
    }

    /// The digest catches a wrong answer that keeps both counts (one action swapped for another).
    @Test func aWrongAnswerWithTheRightCountsIsCaughtByTheDigest() throws {
        let swapped = FaultyEngine(alteringOutcomes: { outcome in
            var altered = outcome
            if altered.actions.first == .block { altered.actions[0] = .blockCookies }
            return altered
        })
        let result = try runner([swapped]).run(kablockMatch)
        let engine = try #require(result.engines.first)
        #expect(engine.status == .wrong)
        #expect(engine.answers?.actions == engine.oracleAnswers?.actions)
        #expect(engine.answers?.requestsWithActions == engine.oracleAnswers?.requestsWithActions)
    }

    @Test func compileMeasuresBytesPhasesAndMemory() throws {
        let definition = BenchmarkDefinition(
            name: "test-compile", rules: "ddg-tds-reference", model: .compile, engines: ["blockbench", "pcre2"], runs: 2, warmupRuns: 0)
        let result = try runner([BlockBenchEngine(), PCRE2Engine(jit: false)]).run(definition)
        #expect(result.engines.map(\.status) == [.ok, .ok])
        let ours = result.engines[0]
        let sectionBytes: Int = (ours.sections ?? []).reduce(0) { $0 + Int($1.value) }
        // The header (32 bytes) and the directory (7 sections x 12 bytes) hold the rest.
        #expect(ours.bytes == sectionBytes + 32 + 7 * 12)
        #expect(ours.phases?.map(\.name) == ["parse", "plan", "nfa", "dfa", "minimize", "emit"])
        #expect((ours.counter("url DFAs") ?? 0) >= 1)
        #expect(ours.peakMemoryBytes != nil)
        #expect(ours.ownProcessPeakMemoryBytes == nil, "no executable given: not measured")
        #expect((ours.loadSeconds ?? 0) > 0, "BlockBench's compiled file loaded, timed")
        #expect(result.engines[1].loadSeconds == nil, "an engine that cannot say leaves it out")
        #expect(HistoryLine.metrics(of: ours).contains { $0.name == "load seconds" })
        #expect(result.engines[1].bytes ?? 0 > 0)
    }

    /// The own-process peak comes from the executable the runner is given, run as `compile <list>
    /// --json`; one that fails makes BlockBench's result wrong rather than leaving a gap.
    @Test func ownProcessPeakIsWhatTheCompileCommandReports() throws {
        let definition = BenchmarkDefinition(
            name: "test-compile", rules: "ddg-tds-reference", model: .compile, engines: ["blockbench"], runs: 1, warmupRuns: 0)
        let script = NSTemporaryDirectory() + "blockbench-test-\(UUID().uuidString).sh"
        defer { try? FileManager.default.removeItem(atPath: script) }
        try Data("#!/bin/sh\n[ \"$1 $3\" = \"compile --json\" ] || exit 3\necho '{\"peakMemoryBytes\" : 12345}'\n".utf8)
            .write(to: URL(fileURLWithPath: script))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        let reporting = try runner([BlockBenchEngine()])
        reporting.ownProcessCompiler = script
        let measured = try reporting.run(definition).engines[0]
        #expect(measured.status == .ok)
        #expect(measured.ownProcessPeakMemoryBytes == 12345)
        let failing = try runner([BlockBenchEngine()])
        failing.ownProcessCompiler = "/bin/false"
        #expect(try failing.run(definition).engines[0].status == .wrong)
    }

    /// An engine that cannot run here, or has no such model, is reported as not run; the
    /// benchmark still passes and the other engines are measured.
    @Test func engineThatCannotRunIsReportedAndTheRestGoOn() throws {
        final class Absent: BenchEngine {
            let name = "absent"
            let about = "a test engine that is never installed"
            let unavailable: String? = "not installed on this machine"
            let models: Set<BenchmarkDefinition.Model> = [.compile]
            func compile(_ list: BenchList) throws -> CompileRun { Issue.record("compiled while unavailable"); return CompileRun() }
            func matcher(for list: BenchList) throws -> any BenchMatcher { fatalError("never asked") }
        }
        let definition = BenchmarkDefinition(
            name: "test-check", rules: "ddg-tds-reference", model: .check, engines: ["blockbench", "absent", "pcre2"], runs: 1, warmupRuns: 0)
        let result = try runner([BlockBenchEngine(), Absent(), PCRE2Engine(jit: false)]).run(definition)
        #expect(result.engines.map(\.status) == [.ok, .unavailable, .unavailable])
        #expect(result.engines[1].message == "not installed on this machine")
        #expect(result.engines[2].message == "has no check model")
        #expect(result.passed)
        #expect(ResultTable(result).notes.count == 2)
    }

    @Test func definitionsAreCheckedOnLoad() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-defs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(#"{"rules": "kablock", "model": "match", "engines": ["blockbench", "hyperscan"]}"#.utf8)
            .write(to: URL(fileURLWithPath: folder + "/bad.json"))
        #expect {
            try BenchmarkDefinition.loadAll(from: folder, engines: ["blockbench"])
        } throws: { error in
            let text = "\(error)"
            return text.contains("unknown engine \"hyperscan\"") && text.contains("without \"requests\"")
        }
        try Data(#"{"rules": "kablock", "model": "sprint", "engines": []}"#.utf8).write(to: URL(fileURLWithPath: folder + "/bad.json"))
        #expect(throws: BenchmarkDefinitionError.self) { try BenchmarkDefinition.loadAll(from: folder, engines: ["blockbench"]) }
    }

    /// A definition's dense budget loads BlockBench's list within it (0: every program compact):
    /// the same answers, checked against the oracle's; only a match of BlockBench takes one.
    @Test func aDenseBudgetLoadsTheListWithinIt() throws {
        var compact = kablockMatch
        compact.denseBudget = 0
        let result = try runner([BlockBenchEngine()]).run(compact)
        let engine = try #require(result.engines.first)
        #expect(engine.status == .ok, "\(engine.message ?? "")")
        #expect(engine.answers == engine.oracleAnswers)
        let decoded = try JSONDecoder().decode(
            BenchmarkDefinition.self, from: Data(#"{"rules": "kablock", "model": "compile", "engines": ["blockbench", "adblock-rust"], "denseBudget": -1}"#.utf8))
        let problems = decoded.problems(engines: ["blockbench", "adblock-rust"]).joined(separator: "; ")
        #expect(decoded.denseBudget == -1)
        #expect(problems.contains("to a compile benchmark") && problems.contains("negative") && problems.contains("to adblock-rust"))
    }

    @Test func theShippedDefinitionsLoad() throws {
        let definitions = try BenchmarkDefinition.loadAll(
            from: repositoryRoot + "/Benchmarks", engines: Set(BenchEngines.standard().map(\.name)))
        #expect(definitions.count >= 12)
        #expect(Set(definitions.map(\.model)) == Set(BenchmarkDefinition.Model.allCases))
    }

    @Test func samplesAreEvenlySpaced() {
        #expect(BenchmarkRunner.sample(count: 10, size: 5) == [0, 2, 4, 6, 8])
        #expect(BenchmarkRunner.sample(count: 3, size: 5) == [0, 1, 2])
        #expect(BenchmarkRunner.sample(count: 7, size: nil) == Array(0..<7))
    }

    @Test func aReportIsWrittenWholeAndItsRunRecorded() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reports-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var result = try runner([BlockBenchEngine()]).run(kablockMatch)
        // (As the gate's counted run gives them.)
        result.engines[0].dataMisses = [Figure("L1 data misses per request", 11.5), Figure("L2 data misses per request", 6.6)]
        let meta = ReportMeta(
            date: "2026-11-23T10:00:00Z", revision: "abc", command: "blockbench report", machine: "test CPU", cores: 2, memoryGiB: 24,
            os: "Debian", toolchain: "Swift", pcre2: "10.42", webkit: "not installed", ublockOrigin: "1.67.0",
            ublockOriginNode: "v20.20.2 (/usr/bin/node)")
        let writer = ReportWriter(reportsFolder: folder, history: HistoryStore.beside(reports: folder))
        let written = try writer.write(results: [result], meta: meta)
        #expect(written == folder + "/2026-11-23-abc")
        // The Node that ran uBO stands beside uBO's version: its times depend on it.
        let readme = try String(contentsOfFile: written + "/README.md", encoding: .utf8)
        #expect(readme.contains("| uBlock Origin (Debian webext-ublock-origin-firefox) | 1.67.0 |\n| Node.js (runs uBlock Origin) | v20.20.2 (/usr/bin/node) |"))
        let files = try FileManager.default.contentsOfDirectory(atPath: written).sorted()
        #expect(files == ["README.md", "index.html", "results.csv", "results.json"])
        let html = try String(contentsOfFile: written + "/index.html", encoding: .utf8)
        #expect(html.contains("<svg") && html.contains("test-match") && !html.contains("<script"))
        #expect(html.contains("../trends/index.html"))
        let decoded = try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: written + "/results.json")))
        #expect(decoded.benchmarks == [result])
        let csv = try String(contentsOfFile: written + "/results.csv", encoding: .utf8)
        #expect(csv.contains("test-match,match,kablock,adblock-rust-requests,blockbench,ok,median,"))
        #expect(csv.contains("test-match,match,kablock,adblock-rust-requests,blockbench,ok,L1 data misses per request,11.5"))
        // The same revision again, later that day, replaces the folder; the history keeps both runs.
        var later = meta
        later.date = "2026-11-23T11:00:00Z"
        _ = try writer.write(results: [result], meta: later)
        let records = HistoryStore.beside(reports: folder).records()
        #expect(records.map(\.date) == [meta.date, later.date])
        #expect(records[0].value("test-match", "blockbench", "L1/req") == 11.5)
        #expect(try writer.writeTrends() == folder + "/trends/index.html")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["2026-11-23-abc", "history", "trends"])
    }
}
