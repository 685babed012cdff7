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

/// The main job: everything BlockBench can do so far, on the shipped corpora.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "The main job on the shipped corpora: check, compile and conform every rule list, then run WebKit's vectors.")

    @Option(help: "The corpora folder.")
    var corpora = "Corpora"

    func run() throws {
        let started = ContinuousClock.now
        let manifest = try CorpusManifest.load(root: corpora)
        print("== check: every shipped rule list")
        var rows: [(name: String, rules: Int, verdict: String, seconds: Double)] = []
        var rejected = false
        for entry in manifest.entries(ofKind: "rules") {
            let path = manifest.path(of: entry)
            let listStarted = ContinuousClock.now
            let check = RuleListParser.check(try CorpusFiles.read(path))
            let seconds = (ContinuousClock.now - listStarted).seconds
            let report = CheckReport(path: path, check: check, seconds: seconds)
            print(report.text(maxWarnings: 3))
            let verdict: String
            switch check.verdict {
            case .success: verdict = "compiles"
            case .failure(let error):
                verdict = "rejected: \(error.code.name)"
                rejected = true
            }
            rows.append((entry.name, check.list.rules.count, verdict, seconds))
        }

        print("\n== compile: every shipped rule list WebKit accepts, saved and loaded back,")
        print("   then conform: the file's answers against the PCRE2 oracle on every shipped request set")
        var compileFailed = false
        var conformFailed = false
        var conformRequests = 0
        var conformMismatches = 0
        let requestSets = try manifest.corpora.filter { RequestSets.kinds.contains($0.kind) }.map { try RequestSets.load($0, from: manifest) }
        for entry in manifest.entries(ofKind: "rules") {
            let path = manifest.path(of: entry)
            let listStarted = ContinuousClock.now
            do {
                let (compiled, compiledReport) = try RuleListCompiler.compile(json: try CorpusFiles.read(path))
                var report = compiledReport
                let bytes = report.timer.measure(.emit) { compiled.serialized() }
                let seconds = (ContinuousClock.now - listStarted).seconds
                let figures = CompileFigures(path: path, report: report, sections: compiled.file.sectionSizes(), seconds: seconds)
                print(figures.text, terminator: "")
                // The file must read back (validated) into the same bytes.
                let reloaded = try CompiledRuleList(validating: bytes)
                if reloaded.serialized() != bytes {
                    print("  FAIL: the file read back does not write the same bytes")
                    compileFailed = true
                }
                if let index = rows.firstIndex(where: { $0.name == entry.name }) {
                    rows[index].verdict += String(format: ", %@ bytes in %.1f s", figures.bytes.grouped, seconds)
                }
                // The file just loaded answers for the whole list; reductions of a mismatch compile
                // their sub-lists afresh.
                let bytesOfList = try CorpusFiles.read(path)
                let list = try RuleListParser.parse(bytesOfList).get()
                var conformance = ConformanceRun()
                let loaded = reloaded
                conformance.engine = ConformanceEngine(name: "blockbench") { candidate in
                    guard candidate == list else { return try ConformanceEngine.blockBench.compile(candidate) }
                    return {
                        let evaluator = Evaluator(loaded)
                        return { evaluator.outcome(for: $0) }
                    }
                }
                var mismatches = 0
                _ = try conformance.run(listName: entry.name, json: bytesOfList, list: list, requestSets: requestSets) { result in
                    print(CorpusConformance.text(result))
                    conformRequests += result.requests
                    mismatches += result.mismatches
                    if !result.passed { conformFailed = true }
                }
                conformMismatches += mismatches
                if let index = rows.firstIndex(where: { $0.name == entry.name }) {
                    rows[index].verdict += ", \(mismatches.grouped) mismatches with the oracle"
                }
            } catch {
                print("\(path): \(error)")
                compileFailed = true
            }
        }

        var failedVectors = 0
        for entry in manifest.entries(ofKind: "vectors") {
            print("\n== conform: \(manifest.path(of: entry))")
            let outcome = VectorRunner.run(try VectorFile.load(manifest.path(of: entry)))
            outcome.lines.forEach { print($0) }
            failedVectors += outcome.failed
        }

        print("\n== summary")
        let nameWidth = max(4, rows.map(\.name.count).max() ?? 0)
        print("list".padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  " + "rules".leftPadded(8) + "  " + "check".leftPadded(9) + "  verdict")
        for row in rows {
            print(row.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  " + row.rules.grouped.leftPadded(8) + "  "
                + String(format: "%7.3f s", row.seconds) + "  " + row.verdict)
        }
        print("conform: \(conformRequests.grouped) requests answered by the engine and the oracle, \(conformMismatches.grouped) mismatches")
        print(String(format: "main job finished in %.1f s", (ContinuousClock.now - started).seconds))
        if rejected || compileFailed || conformFailed || failedVectors > 0 { throw ExitCode(1) }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
