// `blockbench dialects`: a shipped rule list with its `||` patterns re-spelled as another converter
// writes them (Corpus/Dialects/), checked as WebKit would, written to a file, and compared with the
// shipped spelling through the PCRE2 oracle on the request sets' URLs: how many patterns mean
// something else there ("set apart"), and which. With no --dialect, lists the dialects and their
// sources. Exit 0 when WebKit accepts the re-spelled list, 1 when it does not.
// Tested by BlockBenchCLITests (DialectsCommandTests).

import ArgumentParser
import ContentRuleList
import Foundation
import Corpus
import TerminalText

struct DialectsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dialects",
        abstract: "Re-spell a shipped list's || rules as another converter writes them, and show where the meaning differs.",
        discussion: """
            Dialects: adguard (the shipped spelling), adguard-1x, abp2blocklist, abp2blocklist-any, adblock-rust,
            webkit-dnr, duckduckgo, ublock-webkit, and mix-<seed> (a seeded combination of their parts). Their sources: Corpora/README.md.
            """)

    @Option(help: "The dialect (with none: list the dialects).")
    var dialect: String?

    @Option(help: "The rule list: a manifest name.")
    var rules = "easylist"

    @Option(name: .shortAndLong, help: "Write the re-spelled list to this file.")
    var output: String?

    @Option(help: "A request set whose URLs the meaning check uses (repeatable; default: every set of the manifest).")
    var requests: [String] = []

    @Flag(help: "Skip the meaning check.")
    var noMeaning = false

    @Option(help: "How many set-apart patterns to print.")
    var show = 10

    @Option(help: "The corpora folder.")
    var corpora = "Corpora"

    func run() throws {
        guard let name = dialect else { return listDialects() }
        guard let dialect = Dialect.named(name) else {
            throw ValidationError("no dialect \(name) (known: \(Dialect.documented.map(\.name).joined(separator: ", ")), mix-<seed>)")
        }
        let manifest = try CorpusManifest.load(root: corpora)
        guard let entry = manifest.entries(ofKind: "rules").first(where: { $0.name == rules }) else {
            throw ValidationError("no rule list \(rules) in \(corpora)/manifest.json")
        }
        let list = try dialect.respell(json: CorpusFiles.read(manifest.path(of: entry)))
        print("\(rules)@\(dialect.name): \(list.ruleCount.grouped) rules, \(list.respelledCount.grouped) patterns re-spelled (\(list.patterns.count.grouped) distinct)")
        if let output {
            try Data(list.json).write(to: URL(fileURLWithPath: output))
            print("written to \(output)")
        }
        let accepted = checkList(list)
        if !noMeaning { try checkMeaning(list, manifest: manifest) }
        if !accepted { throw ExitCode(1) }
    }

    /// WebKit's verdict on the re-spelled list, printed; whether it accepts it.
    func checkList(_ list: RespelledRuleList) -> Bool {
        let check = RuleListParser.check(list.json, collectingEveryError: false)
        switch check.verdict {
        case .success(let parsed):
            print("WebKit accepts it: \(parsed.rules.count.grouped) rules")
            return true
        case .failure(let error):
            print("WebKit rejects it: \(error)")
            return false
        }
    }

    func checkMeaning(_ list: RespelledRuleList, manifest: CorpusManifest) throws {
        let entries = manifest.corpora.filter { RequestSets.kinds.contains($0.kind) && (requests.isEmpty || requests.contains($0.name)) }
        let sets = try entries.map { try RequestSets.load($0, from: manifest) }
        let started = ContinuousClock.now
        let meaning = DialectMeaningCheck.run(list, urls: DialectMeaningCheck.urls(of: sets))
        print("meaning on \(entries.map(\.name).joined(separator: ", ")): " + meaning.summary + String(format: "; %.1f s", (ContinuousClock.now - started).seconds))
        for difference in meaning.differences.prefix(show) {
            print("  set apart: \(difference.pattern.original)  ->  \(difference.pattern.respelled)")
            print("    only the shipped spelling matches \(difference.onlyOriginal), only the dialect's \(difference.onlyRespelled); e.g. \(difference.example)")
        }
        for (pattern, reason) in meaning.refused.prefix(show) { print("  refused by the oracle: \(pattern.respelled): \(reason)") }
    }

    func listDialects() {
        for dialect in Dialect.documented {
            print("\(dialect.name): \(dialect.prefix)D  ^ at end \(quoted(dialect.hostEndAtEnd)), ^ after D \(quoted(dialect.hostEndInMiddle)), "
                + "other ^ \(quoted(dialect.separatorInMiddle)) / at end \(quoted(dialect.separatorAtEnd)), / \(quoted(dialect.slash))")
            print("  source: \(dialect.source)")
        }
    }

    func quoted(_ form: String) -> String { form.isEmpty ? "(nothing)" : "`\(form)`" }
}
