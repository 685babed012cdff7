// The `blockbench` command: subcommands added issue by issue. With no subcommand it runs the
// main job on the shipped corpora.

public import ArgumentParser
import ContentBlocker
import ContentRuleList
import Foundation
import Harness

public struct BlockBenchCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "blockbench",
        abstract: "Compile Safari content-blocker rule lists like WebKit, and prove it.",
        subcommands: [
            RunCommand.self, CheckCommand.self, CompileCommand.self, MatchCommand.self, ConformCommand.self, BenchCommand.self,
            ReportCommand.self, DumpCommand.self,
        ],
        defaultSubcommand: RunCommand.self)

    public init() {}
}

/// The main job: everything BlockBench does, on the shipped corpora, ending in a report.
///
///  1. check every shipped list (WebKit's verdict, statistics) and run the check and compile
///     benchmarks of Benchmarks/ (BlockBench's compile leaves each list's bytecode behind);
///  2. read every compiled file back (validated; the same bytes must come out) and conform it
///     against the PCRE2 oracle on every shipped request set;
///  3. run the match benchmarks (every engine's answers checked against the oracle first);
///  4. run WebKit's vectors through the engine and the oracle;
///  5. write the report (Reports/<date>-<revision>/ and a line of Reports/history.jsonl) and
///     print a summary. Exit 1 when anything disagrees or fails.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "The main job on the shipped corpora: check, compile, conform and benchmark every rule list, run WebKit's vectors, write a report.")

    @Option(help: "The corpora folder.")
    var corpora = "Corpora"

    @Option(help: "The benchmark definitions folder.")
    var benchmarks = "Benchmarks"

    @Option(help: "The reports folder.")
    var reports = "Reports"

    @Flag(help: "Do not write a report (print only).")
    var noReport = false

    func run() throws {
        let started = ContinuousClock.now
        // The revision and tree state measured are those at the start.
        let meta = ReportMeta.ofThisRun()
        let manifest = try CorpusManifest.load(root: corpora)
        let engine = BlockBenchEngine()
        let runner = BenchmarkRunner(manifest: manifest, engines: [engine, PCRE2Engine(jit: true), PCRE2Engine(jit: false)])
        let definitions = try BenchmarkDefinition.loadAll(from: benchmarks, engines: runner.engineNames)
        var results: [BenchmarkResult] = []
        func runBenchmarks(_ model: BenchmarkDefinition.Model) throws {
            var suite = BenchSuite(runner: runner, definitions: definitions.filter { $0.model == model })
            suite.progress = Progress.line
            results += try suite.run { print(ResultTable($0).text + "\n") }
        }

        print("== check: every shipped rule list")
        var rows: [(name: String, rules: Int, verdict: String)] = []
        var failures: [String] = []
        for entry in manifest.entries(ofKind: "rules") {
            let path = manifest.path(of: entry)
            let listStarted = ContinuousClock.now
            let check = RuleListParser.check(try CorpusFiles.read(path))
            let report = CheckReport(path: path, check: check, seconds: (ContinuousClock.now - listStarted).seconds)
            print(report.text(maxWarnings: 3))
            switch check.verdict {
            case .success: rows.append((entry.name, check.list.rules.count, "compiles"))
            case .failure(let error):
                rows.append((entry.name, check.list.rules.count, "rejected: \(error.code.name)"))
                failures.append("\(entry.name) is rejected")
            }
        }
        print("\n== benchmarks: check and compile (Benchmarks/*.json)\n")
        try runBenchmarks(.check)
        try runBenchmarks(.compile)

        print("== compile: every shipped list WebKit accepts, its file read back and validated,")
        print("   then conform: the file's answers against the PCRE2 oracle on every shipped request set")
        var conformRequests = 0
        var conformMismatches = 0
        let requestSets = try manifest.corpora.filter { RequestSets.kinds.contains($0.kind) }.map { try RequestSets.load($0, from: manifest) }
        requestSets.forEach(runner.provide)
        for entry in manifest.entries(ofKind: "rules") {
            guard let row = rows.firstIndex(where: { $0.name == entry.name }), rows[row].verdict == "compiles" else { continue }
            let path = manifest.path(of: entry)
            do {
                let json = try CorpusFiles.read(path)
                if engine.compiledList(named: entry.name) == nil {
                    // No compile benchmark ran for this list: compile it here.
                    _ = try engine.compile(BenchList(name: entry.name, json: json))
                }
                let compiled = engine.compiledList(named: entry.name)!
                let bytes = compiled.serialized()
                let reloaded = try CompiledRuleList(validating: bytes)
                guard reloaded.serialized() == bytes else {
                    print("\(path): FAIL: the file read back does not write the same bytes")
                    failures.append("\(entry.name)'s file does not read back")
                    continue
                }
                engine.adopt(reloaded, as: entry.name)
                print("\(path): \(bytes.count.grouped) bytes, read back and validated")
                rows[row].verdict += ", \(bytes.count.grouped) bytes"
                let list = try RuleListParser.parse(json).get()
                var conformance = ConformanceRun()
                // The file just loaded answers for the whole list; reductions of a mismatch compile
                // their sub-lists afresh.
                conformance.engine = ConformanceEngine(name: "blockbench") { candidate in
                    guard candidate == list else { return try ConformanceEngine.blockBench.compile(candidate) }
                    return {
                        let evaluator = Evaluator(reloaded)
                        return { evaluator.outcome(for: $0) }
                    }
                }
                var mismatches = 0
                _ = try conformance.run(listName: entry.name, json: json, list: list, requestSets: requestSets) { result in
                    print(CorpusConformance.text(result))
                    runner.provideOracleAnswers(from: result)
                    conformRequests += result.requests
                    mismatches += result.mismatches
                    if !result.passed { failures.append("\(entry.name) × \(result.requestSet) does not conform") }
                }
                conformMismatches += mismatches
                rows[row].verdict += ", \(mismatches.grouped) mismatches with the oracle"
            } catch {
                print("\(path): \(error)")
                failures.append("\(entry.name): \(error)")
            }
        }

        print("\n== benchmarks: match (every engine's answers checked against the oracle before its time counts)\n")
        try runBenchmarks(.match)

        var failedVectors = 0
        for entry in manifest.entries(ofKind: "vectors") {
            print("== conform: \(manifest.path(of: entry))")
            let outcome = VectorRunner.run(try VectorFile.load(manifest.path(of: entry)))
            outcome.lines.forEach { print($0) }
            failedVectors += outcome.failed
        }
        if failedVectors > 0 { failures.append("\(failedVectors) vectors fail") }
        for result in results {
            for engine in result.engines where engine.status == .wrong || engine.status == .error {
                failures.append("\(result.name): \(engine.engine) is \(engine.status.rawValue): \(engine.message ?? "")")
            }
        }

        print("\n== summary")
        let nameWidth = max(4, rows.map(\.name.count).max() ?? 0)
        print("list".padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  " + "rules".leftPadded(8) + "  verdict")
        for row in rows {
            print(row.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  " + row.rules.grouped.leftPadded(8) + "  " + row.verdict)
        }
        print("conform: \(conformRequests.grouped) requests answered by the engine and the oracle, \(conformMismatches.grouped) mismatches")
        print(BenchSummary(results).text)
        if !noReport {
            let folder = try ReportWriter(reportsFolder: reports).write(results: results, meta: meta)
            print("report: \(folder)/README.md (page: \(folder)/index.html)")
        }
        print(String(format: "main job finished in %.1f s", (ContinuousClock.now - started).seconds))
        if !failures.isEmpty {
            print("FAILED: " + failures.joined(separator: "; "))
            throw ExitCode(1)
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
