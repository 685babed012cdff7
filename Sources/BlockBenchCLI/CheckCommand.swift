// `blockbench check`: the linter a content-blocker developer runs. Says whether WebKit compiles
// the list and, if not, every error with its rule and key path; counts what the list uses.
// `--safari VERSION` answers for that release's profile; `--safari all` prints one row per
// profiled release (SafariReleases/SafariMatrix.swift). Tested by BlockBenchCLITests/CLITests.swift.

import ArgumentParser
import ContentRuleList
import Foundation
import Corpus
import Reports
import SafariReleases

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

    @OptionGroup var safari: SafariOption

    func run() throws {
        let paths = try files.isEmpty
            ? CorpusManifest.load(root: corpora).entries(ofKind: "rules").map { "\(corpora)/\($0.file)" }
            : files
        if safari.version == "all" {
            try printMatrix(paths)
            return
        }
        let profile = try safari.profile(corpora: corpora)
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
            let check = RuleListParser.check(bytes, profile: profile)
            let elapsed = ContinuousClock.now - started
            let report = CheckReport(path: path, check: check, seconds: elapsed.seconds)
            if case .failure = check.verdict { rejected = true }
            print(json ? report.json() : report.text(maxWarnings: maxWarnings))
        }
        if unreadable { throw ExitCode(66) }
        if rejected { throw ExitCode(1) }
    }
}

extension CheckCommand {
    /// `--safari all`: each list's row per profiled release. Exit 1 when a release rejects a list.
    func printMatrix(_ paths: [String]) throws {
        let profiles = try SafariProfiles.load(corpora: corpora)
        var rejected = false
        for path in paths {
            let verdicts = SafariMatrix.verdicts(try CorpusFiles.read(path), profiles: profiles)
            rejected = rejected || verdicts.contains { !$0.compiles }
            if json {
                print(jsonLine(MatrixLine(file: path, safari: verdicts)))
            } else {
                print("\(path):")
                verdicts.forEach { print("  " + $0.text) }
            }
        }
        if rejected { throw ExitCode(1) }
    }

    struct MatrixLine: Encodable {
        var file: String
        var safari: [SafariVerdict]
    }

    private func jsonLine(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
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
