// `blockbench check`: the linter a content-blocker developer runs. Says whether WebKit compiles
// the list and, if not, every error with its rule and key path; counts what the list uses.

import ArgumentParser
import ContentRuleList
import Foundation
import Harness

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check rule lists the way WebKit does: exit 0 when WebKit compiles every list, 1 when it rejects one.",
        discussion: """
            With no file, checks every rule list in Corpora/manifest.json. Files may be gzip-compressed.
            Rules WebKit drops silently (css-display-none with a selector its CSS parser rejects) and
            rules whose url-filter matches every URL are reported as warnings.
            """)

    @Argument(help: "Rule-list JSON files (.json or .json.gz).")
    var files: [String] = []

    @Option(help: "The corpora folder, for checking the shipped lists.")
    var corpora = "Corpora"

    @Flag(help: "Print one JSON object per list instead of text.")
    var json = false

    @Option(help: "How many warnings of each kind to print per list (all with --json).")
    var maxWarnings = 10

    func run() throws {
        let paths = try files.isEmpty
            ? CorpusManifest.load(root: corpora).entries(ofKind: "rules").map { "\(corpora)/\($0.file)" }
            : files
        var rejected = false
        var unreadable = false
        for path in paths {
            let started = ContinuousClock.now
            let bytes: [UInt8]
            do {
                bytes = try CorpusFiles.read(path)
            } catch {
                printError("error: \(error)")
                unreadable = true
                continue
            }
            let check = RuleListParser.check(bytes)
            let elapsed = ContinuousClock.now - started
            let report = CheckReport(path: path, check: check, seconds: elapsed.seconds)
            if case .failure = check.verdict { rejected = true }
            print(json ? report.json() : report.text(maxWarnings: maxWarnings))
        }
        if unreadable { throw ExitCode(66) }
        if rejected { throw ExitCode(1) }
    }
}

// MARK: - Output helpers

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
