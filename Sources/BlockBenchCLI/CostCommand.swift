// `blockbench cost compile RULES` and `blockbench cost match FILE --requests SET`: the exact cost
// of a compile (instructions per phase, heap peak) or of answering a request set (instructions
// per request), counted under Valgrind in a process of its own (Benchmarks/Cost). The same counts
// are what `blockbench gate` holds.
//
// With `--inside` the command is the measured process itself: it runs the region with its marks
// and prints its figures as one JSON line (CostCounter runs it so under Valgrind).
// No test of its own (it needs Valgrind): the counts it prints are tested by GateTests
// (CostGateTests).

import ArgumentParser
import ContentBlocker
import Search
import Foundation
import Benchmarks
import Corpus
import TerminalText

struct CostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cost",
        abstract: "Count the instructions of a compile or of answering requests, exactly, under Valgrind.",
        subcommands: [CostCompile.self, CostMatch.self])
}

/// Options both subcommands share.
struct CostOptions: ParsableArguments {
    @Flag(help: "Print the figures as JSON.")
    var json = false

    @Flag(help: .hidden)
    var inside = false

    func counter() throws -> CostCounter {
        if let reason = CostCounter.unavailableReason() {
            print(reason)
            throw ExitCode(1)
        }
        guard let executable = OwnProcessMemory.currentExecutable else { throw ValidationError("cannot find this executable") }
        return CostCounter(executable: executable, toolchain: ReportMeta.ofThisRun().toolchain)
    }

    func printInside(_ figures: CostRegionFigures) throws {
        print(String(decoding: try JSONEncoder().encode(figures), as: UTF8.self))
    }

    func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}

struct CostCompile: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Instructions per compile phase and the heap peak of compiling a rule list (serially, under Valgrind).")

    @Argument(help: "A rule list (JSON, optionally gzip-compressed).")
    var rules: String

    @Flag(help: "Skip the heap peak (massif's run).")
    var noHeap = false

    @OptionGroup var options: CostOptions

    func run() throws {
        if options.inside {
            try options.printInside(try CostRegion.compile(json: try CorpusFiles.read(rules)))
            return
        }
        let counter = try options.counter()
        counter.measuresHeap = !noHeap
        let cost = try counter.compile(rules: rules)
        if options.json { return try options.printJSON(cost) }
        print("\(rules): \(HumanReadable.count(cost.bytes)) bytes compiled")
        for part in cost.instructions { print("  \(part.name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(HumanReadable.count(Int(part.value)).leftPadded(16)) instructions") }
        print("  total     \(HumanReadable.count(Int(cost.totalInstructions)).leftPadded(16)) instructions")
        if let perByte = cost.jsonInstructionsPerByte, let jsonBytes = cost.jsonBytes {
            print(String(format: "  json      %16.2f instructions a byte of JSON (%@ bytes; `parse` without it: reading the rules and their patterns)",
                perByte, HumanReadable.count(jsonBytes)))
        }
        if let heap = cost.heapPeakBytes { print("  heap peak \(HumanReadable.count(heap).leftPadded(16)) bytes live") }
        if let fingerprint = counter.fingerprint { print("counted on: \(fingerprint.text)") }
    }
}

struct CostMatch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Instructions per request of answering a shipped request set with a compiled file (under Valgrind).",
        discussion: """
            With several files, each is loaded as a list of its own and every request is put to \
            each in turn (lists asked apart, as a browser asks each of its content blockers); the \
            counts are of all of them.
            """)

    @Argument(help: "A file written by `blockbench compile` (several: lists asked apart).")
    var files: [String]

    @Option(help: "A request set's name in the corpus manifest.")
    var requests: String

    @Option(help: "The corpora folder.")
    var corpora = "Corpora"

    @Option(help: ArgumentHelp(
        "Load each list's dense tables within this many bytes (0: every program runs compact; default: \(DenseBudget.standard.bytes)).",
        valueName: "bytes"))
    var denseBudget: Int?

    @OptionGroup var options: CostOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("name a compiled file") }
        if let denseBudget, denseBudget < 0 { throw ValidationError("--dense-budget takes bytes, 0 or more") }
    }

    func run() throws {
        if options.inside {
            let contents = try files.map { try CorpusFiles.read($0) }
            let manifest = try CorpusManifest.load(root: corpora)
            guard let entry = manifest.corpora.first(where: { $0.name == requests && RequestSets.kinds.contains($0.kind) }) else {
                throw ValidationError("no request set \(requests) in \(corpora)/manifest.json")
            }
            let set = try RequestSets.load(entry, from: manifest)
            let asked = set.requests.map(\.request)
            if contents.count == 1 {
                try options.printInside(try CostRegion.match(asked) { try CostRegion.evaluator(ofFile: contents[0], denseBudgetBytes: denseBudget) })
            } else {
                try options.printInside(try CostRegion.match(asked, loadingLists: {
                    try CostRegion.contentBlockers(ofFiles: contents, denseBudgetBytes: denseBudget)
                }))
            }
            return
        }
        let cost = try options.counter().match(files: files, corpora: corpora, requests: requests, denseBudgetBytes: denseBudget)
        if options.json { return try options.printJSON(cost) }
        print("\(files.joined(separator: " + ")) × \(requests): \(HumanReadable.count(cost.requests)) requests, \(cost.answers.text)"
            + (denseBudget.map { ", dense tables within \(HumanReadable.count($0)) bytes" } ?? ""))
        print("  load        \(HumanReadable.count(Int(cost.load))) instructions (\(files.count == 1 ? "the file validated, an evaluator made" : "the files validated, an evaluator made of each"))")
        print(String(format: "  first pass  %.1f instructions per request", cost.firstPassPerRequest))
        print(String(format: "  requests    %.1f instructions per request", cost.perRequest))
        print(String(format: "  data misses %.2f in L1 (32 KB), %.2f in L2 (1 MB) per request, simulated", cost.l1DataMissesPerRequest, cost.l2DataMissesPerRequest))
    }
}
