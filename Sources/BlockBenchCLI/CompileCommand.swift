// `blockbench compile RULES.json -o FILE`: compiles a rule list to a bytecode file and prints its
// figures: rules, patterns, DFAs and states per program kind, bytes per section, time per phase.
// Tested by BlockBenchCLITests/CLITests.swift (CompileAndMatchCommandTests).

import ArgumentParser
import Automata
import Search
import ContentBlocker
import ContentRuleList
import Foundation
import Benchmarks
import Corpus
import Engines
import SafariReleases
import TerminalText

struct CompileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compile",
        abstract: "Compile a rule list to a bytecode file and print its figures.",
        discussion: "Exit 0 when the list compiled, 1 when WebKit would reject it or a pattern outgrew the automata limits.")

    @Argument(help: "A rule list (JSON, optionally gzip-compressed).")
    var rules: String

    @Option(name: .shortAndLong, help: "Write the compiled file here (atomically).")
    var output: String?

    @Flag(help: "Print the figures as JSON.")
    var json = false

    @OptionGroup var safari: SafariOption

    @Option(help: "The corpora folder (for the Safari profiles).")
    var corpora = "Corpora"

    func run() throws {
        let profile = try safari.profile(corpora: corpora)
        let bytes = try CorpusFiles.read(rules)
        let started = ContinuousClock.now
        let compiled: CompiledRuleList
        var report: CompilationReport
        do {
            (compiled, report) = try ProfiledCompile.compile(json: consume bytes, profile: profile)
        } catch {
            print("\(rules): \(error)")
            throw ExitCode(1)
        }
        let file = report.timer.measure(.emit) { compiled.serialized() }
        let total = (ContinuousClock.now - started).seconds
        if let output { try Data(file).write(to: URL(fileURLWithPath: output), options: .atomic) }
        var figures = CompileFigures(path: rules, report: report, sections: CompiledFile.sectionSizes(in: file), seconds: total)
        // Loaded after the figures read the peak memory, which is the compile's alone.
        figures.loadSeconds = try BlockBenchEngine.loadSeconds(of: file)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(figures), as: UTF8.self))
        } else {
            print(figures.text, terminator: "")
        }
    }
}

/// The figures of one compilation, as printed and as JSON.
struct CompileFigures: Encodable {
    struct Automata: Encodable {
        var patterns: Int
        var dfas: Int
        /// Stages among them (a prefix DFA and its suffix DFAs; StagePlanner.swift).
        var stages: Int
        var nfaStates: Int
        var statesBeforeMinimization: Int
        var states: Int
        /// The DFAs' transitions before minimization (the limit `AutomataLimits.maximumTotalTransitions` holds).
        var transitions: Int
        /// Patterns in the domain table instead (a hash lookup, no DFA).
        var domainTable: Int
        /// Patterns in the domain condition table instead (a hash lookup, no DFA).
        var domainConditionTable: Int
    }
    var path: String
    var rules: Int
    var rulesMatchingEveryURL: Int
    var url: Automata
    var topURL: Automata
    var frameURL: Automata
    var bytes: Int
    var sectionBytes: [String: Int]
    var seconds: [String: Double]
    /// The phases of the condition thread (`CompilationReport.conditionThread`), at the same time
    /// as `seconds`' and not in them.
    var conditionThreadSeconds: [String: Double]
    /// This process's peak resident memory (Linux: VmHWM), the compile included.
    var peakMemoryBytes: Int?
    /// Loading the file written: validating and reading it, then making an evaluator of it.
    var loadSeconds: Double?

    init(path: String, report: CompilationReport, sections: [(kind: SectionKind, bytes: Int)], seconds: Double) {
        self.path = path
        rules = report.rules
        rulesMatchingEveryURL = report.universalRules
        func automata(_ figures: CompilationReport.Automata, _ patterns: Int) -> Automata {
            Automata(
                patterns: patterns, dfas: figures.dfas, stages: figures.stages, nfaStates: figures.nfaStates,
                statesBeforeMinimization: figures.statesBeforeMinimization, states: figures.states, transitions: figures.transitions,
                domainTable: figures.domains, domainConditionTable: figures.domainConditions)
        }
        url = automata(report.url, report.urlPatterns)
        topURL = automata(report.topURL, report.topPatterns)
        frameURL = automata(report.frameURL, report.framePatterns)
        sectionBytes = Dictionary(uniqueKeysWithValues: sections.map { ("\($0.kind)", $0.bytes) })
        bytes = 32 + sections.count * 12 + sections.reduce(0) { $0 + $1.bytes }
        var phases = Dictionary(uniqueKeysWithValues: PhaseTimer.Phase.allCases.map { ($0.rawValue, report.timer.seconds($0)) })
        phases["total"] = seconds
        self.seconds = phases
        conditionThreadSeconds = Dictionary(uniqueKeysWithValues: PhaseTimer.Phase.allCases.map { ($0.rawValue, report.conditionThread.seconds($0)) })
        peakMemoryBytes = PeakMemory.read()?.peak
    }

    var text: String {
        var lines = ["\(path): \(rules.grouped) rules, \(rulesMatchingEveryURL.grouped) matching every URL"]
        for (name, figures) in [("url", url), ("top-url", topURL), ("frame-url", frameURL)] where figures.patterns > 0 || name == "url" {
            lines.append(
                "  \(name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(figures.patterns.grouped) patterns -> "
                    + (figures.domainTable > 0 ? "\(figures.domainTable.grouped) in the domain table, " : "")
                    + (figures.domainConditionTable > 0 ? "\(figures.domainConditionTable.grouped) in the domain condition table, " : "")
                    + "\(figures.dfas) DFAs"
                    + (figures.stages > 0 ? " (\(figures.stages) stage\(figures.stages == 1 ? "" : "s"))" : "") + ", "
                    + "\(figures.states.grouped) states (\(figures.statesBeforeMinimization.grouped) before minimization, NFA \(figures.nfaStates.grouped)), "
                    + "\(figures.transitions.grouped) transitions")
        }
        lines.append("  bytecode  \(bytes.grouped) bytes")
        for kind in SectionKind.allCases {
            lines.append("    \("\(kind)".padding(toLength: 15, withPad: " ", startingAt: 0)) \((sectionBytes["\(kind)"] ?? 0).grouped.leftPadded(12))")
        }
        func phases(_ seconds: [String: Double]) -> String {
            PhaseTimer.Phase.allCases.map { String(format: "%@ %.3f", $0.rawValue, seconds[$0.rawValue] ?? 0) }.joined(separator: ", ")
        }
        lines.append("  seconds   " + phases(seconds) + String(format: "; total %.3f", seconds["total"] ?? 0))
        lines.append("  beside    " + phases(conditionThreadSeconds) + " (the condition programs' thread, at the same time)")
        if let loadSeconds { lines.append(String(format: "  load      %.2f ms (the file validated and read, an evaluator made)", loadSeconds * 1000)) }
        if let peakMemoryBytes { lines.append("  memory    \((peakMemoryBytes / 1024).grouped) KiB resident at the peak (this process)") }
        return lines.joined(separator: "\n") + "\n"
    }
}
