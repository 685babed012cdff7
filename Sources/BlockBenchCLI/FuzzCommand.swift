// `blockbench fuzz`: differential fuzzing of the url-filter subset against PCRE2 (Sources/Fuzzing).
//
// Four levels, each for its share of `--seconds` (or `--cases` each): pattern (parse status
// against the generator's model and against PCRE2 taking the translation), match (one pattern's
// engine pipeline against PCRE2 on subjects walked from it), list (whole rule lists, engine
// against the reference evaluator) and dialect (lists of `||` rules re-spelled as other converters
// write them, compared as lists). Deterministic for a seed: case i of a level depends on the
// seed, the level and i only, so `--case I` replays one. Every disagreement is shrunk, printed
// with the command that replays it, and written to Corpora/regressions/ with a manifest entry.
// `--exhaustive` runs the small world instead (every pattern of up to --atoms atoms against every
// string of up to --length characters). Exit 0 when clean, 2 on any finding, 1 on an error.
// Tested by BlockBenchCLITests/CLITests.swift (FuzzCommandTests).

import ArgumentParser
import Foundation
import Fuzzing
import TerminalText

struct FuzzCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz",
        abstract: "Differential fuzzing of url-filters and rule lists against the PCRE2 oracle (exit 2 on any finding).")

    @Option(help: "Seconds for all the levels together, split evenly (default 60 unless --cases is given).")
    var seconds: Double?

    @Option(help: "Cases per level instead of a time budget: the same cases on any machine.")
    var cases: Int?

    @Option(help: "The seed (default: from the clock; printed either way).")
    var seed: UInt64?

    @Option(help: "A level: pattern, match, list or dialect (repeatable; default: all four).")
    var level: [String] = []

    @Option(name: .customLong("case"), help: "Replay case I of the --level (with --seed): print it, compare it, shrink what it finds.")
    var caseIndex: Int?

    @Option(help: "Worker threads.")
    var workers = 1

    @Option(help: "Distinct shrunk findings kept per level.")
    var maxFindings = 10

    @Option(help: "Where findings are written as vector files.")
    var regressions = "Corpora/regressions"

    @Option(help: "The manifest that gets an entry per written file.")
    var manifest = "Corpora/manifest.json"

    @Flag(help: "Do not write findings to files.")
    var noWrite = false

    @Flag(help: "Run the exhaustive small world instead: every pattern of up to --atoms atoms against every string of up to --length characters.")
    var exhaustive = false

    @Option(help: "Atoms per pattern in the small world.")
    var atoms = 3

    @Option(help: "String length in the small world.")
    var length = 4

    @Flag(help: "Small world: case-sensitive patterns too (default: case-insensitive only, WebKit's default).")
    var caseSensitiveToo = false

    func run() throws {
        if exhaustive { return try runSmallWorld() }
        let levels = try level.map { name in
            guard let level = FuzzLevel(rawValue: name) else { throw ValidationError("--level takes pattern, match, list or dialect, not \(name)") }
            return level
        }
        let seed = seed ?? UInt64(Date().timeIntervalSince1970 * 1000)
        var options = FuzzOptions()
        options.seed = seed
        options.levels = levels.isEmpty ? FuzzLevel.allCases : levels
        options.workers = max(1, workers)
        options.maximumFindings = maxFindings
        let fuzzer = Fuzzer(options: options)

        if let caseIndex {
            guard options.levels.count == 1, let only = options.levels.first else { throw ValidationError("--case needs one --level") }
            try replay(only, index: caseIndex, seed: seed, fuzzer: fuzzer)
            return
        }

        options.seconds = cases == nil ? (seconds ?? 60) : seconds
        options.cases = cases
        let budget = options.seconds.map { String(format: "%.0f s (%.0f s per level)", $0, $0 / Double(options.levels.count)) }
            ?? "\(cases!.grouped) cases per level"
        print("blockbench fuzz: seed \(seed), levels \(options.levels.map(\.rawValue).joined(separator: ", ")), \(budget), \(options.workers) worker\(options.workers == 1 ? "" : "s")")
        let started = ContinuousClock.now
        var findings = 0
        for level in options.levels {
            let report = Fuzzer(options: options).run(
                level, seconds: options.seconds.map { $0 / Double(options.levels.count) }, cases: options.cases
            ) { snapshot in
                Progress.line("  \(level.rawValue): \(snapshot.tally.cases.grouped) cases, \(snapshot.tally.disagreements) disagreements, \(Int(snapshot.seconds)) s")
            }
            Progress.clear()
            print(Self.summary(report))
            findings += report.findings.count
            for finding in report.findings { try show(finding) }
        }
        print(String(format: "findings: %d; %.1f s", findings, (ContinuousClock.now - started).seconds))
        if findings > 0 { throw ExitCode(2) }
    }

    /// `match: 123,456 patterns, 987,654 subjects compared, 12 hit the DFA limit, 0 disagreements; slowest case #7 0.012 s`
    static func summary(_ report: LevelReport) -> String {
        let tally = report.tally
        let what: String
        switch report.level {
        case .pattern:
            what = "\(tally.cases.grouped) patterns (\(tally.accepted.grouped) accepted, \(tally.matchesEverything.grouped) of them matching everything; \(tally.rejected.grouped) rejected)"
        case .match:
            what = "\(tally.cases.grouped) patterns, \(tally.checks.grouped) subjects compared (\(tally.matchesEverything.grouped) patterns match everything), \(tally.limits.grouped) hit the DFA limit"
        case .list:
            what = "\(tally.cases.grouped) rule lists, \(tally.checks.grouped) requests compared, \(tally.limits.grouped) lists hit the DFA limit"
        case .dialect:
            what = "\(tally.cases.grouped) lists of re-spelled || rules, \(tally.checks.grouped) requests compared, \(tally.limits.grouped) lists hit the DFA limit"
        }
        return "\(report.level.rawValue): \(what), \(tally.disagreements) disagreements, \(report.findings.count) findings after shrinking; "
            + String(format: "%.1f s, %.0f cases/s, slowest case #%d %.3f s", report.seconds, Double(tally.cases) / max(report.seconds, 0.001), report.slowestCase, report.slowestSeconds)
    }

    func show(_ finding: Finding) throws {
        print("FINDING \(finding.level.rawValue) case #\(finding.caseIndex) (\(finding.replay)), shrunk from size \(finding.originalSize) to \(finding.disagreement.size):")
        print("  " + finding.disagreement.description)
        guard !noWrite else { return }
        let writer = RegressionWriter(folder: regressions, manifest: FileManager.default.fileExists(atPath: manifest) ? manifest : nil)
        if let path = try writer.write(finding) {
            print("  written to \(path)")
        } else {
            print("  already in \(regressions)")
        }
    }

    func replay(_ level: FuzzLevel, index: Int, seed: UInt64, fuzzer: Fuzzer) throws {
        let runner = fuzzer.options.runner
        let result = runner.run(level, seed: seed, index: index)
        print("seed \(seed) \(level.rawValue) case #\(index):")
        print("  " + result.text)
        guard let disagreement = result.disagreement else {
            let tally = result.tally
            print("  agree (\(tally.checks) compared\(tally.limits > 0 ? ", hit the DFA limit" : ""))")
            return
        }
        print("  DISAGREE: " + disagreement.description)
        let finding = Finding(level: level, seed: seed, caseIndex: index, disagreement: runner.shrink(disagreement), originalSize: disagreement.size)
        try show(finding)
        throw ExitCode(2)
    }

    func runSmallWorld() throws {
        var world = SmallWorld(atoms: atoms, length: length)
        if caseSensitiveToo { world.caseSensitivity = [false, true] }
        let started = ContinuousClock.now
        let patterns = world.patterns()
        print("blockbench fuzz --exhaustive: \(patterns.count.grouped) patterns of up to \(atoms) atoms (\(caseSensitiveToo ? "both case modes" : "case-insensitive")) x \(world.subjects().count.grouped) strings of up to \(length) characters over \"\(String(decoding: world.subjectAlphabet, as: UTF8.self))\", \(max(1, workers)) worker\(workers == 1 ? "" : "s")")
        let report = SmallWorldRun(world: world, workers: max(1, workers)).run(patterns) { done in
            Progress.line("  \(done.grouped) / \(patterns.count.grouped) patterns")
        }
        Progress.clear()
        print("\(report.patterns.grouped) patterns (\(report.matchesEverything.grouped) match everything; the others have \(report.distinctNFAs.grouped) distinct NFAs, built as \(report.dfas.grouped) combined DFAs; \(report.limits) hit the DFA limit), \(report.comparisons.grouped) comparisons, \(report.disagreementCount) disagreements; "
            + String(format: "%.1f s", (ContinuousClock.now - started).seconds))
        for disagreement in report.disagreements { print("DISAGREE: " + disagreement.description) }
        if report.disagreementCount > 0 { throw ExitCode(2) }
    }
}
