// `blockbench diff OLD NEW`: what a change to a rule list changes (ListComparison): requests
// whose verdict changes and the rules behind each, rules no request triggers, shadowed and
// repeated rules, Safari releases gained or lost, cost, and with --split what spreading the list
// over several content blockers changes. Exit codes for CI (ListDiffText.swift). Tested by
// BlockBenchCLITests/CLITests.swift (DiffCommandTests) and ListComparisonTests/ListDiffTests.swift.

import ArgumentParser
import ContentRuleList
import Foundation
import Conformance
import Corpus
import ListComparison
import SafariReleases

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "What changing a rule list changes: verdicts, releases, cost.",
        discussion: """
            Exit 0 no change in verdicts; 3 verdicts changed; 5 cost (bytes or states) grew beyond --max-growth;
            4 a Safari release where OLD compiles and NEW does not; 2 the engine and the PCRE2 oracle disagree
            on a changed request (the highest of these that applies, in the order 2, 4, 5, 3); 1 an error.
            """)

    @Argument(help: "The list before the change (JSON, optionally gzip-compressed).")
    var old: String

    @Argument(help: "The list after the change.")
    var new: String

    @Option(help: "A request set: a manifest name or a path (repeatable; default: every shipped set).")
    var requests: [String] = []

    @OptionGroup var safari: SafariOption

    @Option(help: "Fail (exit 5) when NEW's compiled bytes or states grow by more than this many per cent.")
    var maxGrowth: Double?

    @Option(help: "Also show what splitting NEW over this many content blockers (consecutive chunks) changes.")
    var split: Int?

    @Option(help: "Changes and rules listed per section in text and Markdown (--json lists all).")
    var maxItems = 20

    @Flag(help: "Print the diff as JSON.")
    var json = false

    @Flag(help: "Print the diff as Markdown (for a pull request).")
    var markdown = false

    @Flag(help: "Do not check changed requests against the PCRE2 oracle.")
    var noOracle = false

    @Option(help: "The corpora folder.")
    var corpora = "Corpora"

    func run() throws {
        var differ = ListDiffer()
        differ.profile = try safari.profile(corpora: corpora)
        differ.profiles = try SafariProfiles.load(corpora: corpora)
        differ.maxGrowth = maxGrowth
        differ.split = split
        differ.checksOracle = !noOracle
        let manifest = try CorpusManifest.load(root: corpora)
        differ.requestSets = try CorpusConformance.select(requests, kinds: RequestSets.kinds, manifest: manifest).map {
            try RequestSets.load(path: $0.path, kind: $0.kind, name: $0.name)
        }
        let diff = differ.diff(old: (old, try CorpusFiles.read(old)), new: (new, try CorpusFiles.read(new)))
        if diff.oldCost == nil && diff.newCost == nil {
            print("neither list compiles for Safari \(diff.safari)")
            throw ExitCode(1)
        }
        print(try rendered(diff))
        if diff.exitCode != 0 { throw ExitCode(diff.exitCode) }
    }

    /// `--json`: the diff with what a CI job reads first beside it.
    struct JSONOutput: Encodable {
        var exitCode: Int32
        var meaning: String
        var releasesLost: [String]
        var byteGrowth: Double?
        var stateGrowth: Double?
        var diff: ListDiff
    }

    func rendered(_ diff: ListDiff) throws -> String {
        if markdown { return diff.markdown(maxItems: maxItems) }
        guard json else { return diff.text(maxItems: maxItems) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let output = JSONOutput(
            exitCode: diff.exitCode, meaning: diff.exitMeaning, releasesLost: diff.releasesLost, byteGrowth: diff.byteGrowth,
            stateGrowth: diff.stateGrowth, diff: diff)
        return String(decoding: try encoder.encode(output), as: UTF8.self)
    }
}
