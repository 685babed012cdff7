// `blockbench conform`: BlockBench against the PCRE2 oracle on real corpora, and both against
// WebKit's vectors.
//
// With no arguments: every shipped rule list against every shipped request set, then the shipped
// vectors. `--rules` and `--requests` (names from Corpora/manifest.json, or paths) narrow the
// pairs; `--vectors FILE` runs only a vector file. Per pair it prints requests, rules, requests
// with actions, mismatches and, for the first mismatches, a reduced reproduction. `--shard i/n`
// runs every n-th request (from the i-th), so n machines cover a set between them and their
// `--json` lines add up. Exit 0 when everything agrees, 2 on any mismatch or failing vector, 1 on
// an error.
//
// Request vectors run through the real path: the rule list is compiled, its file written to
// bytes and loaded back (validated), and the evaluator answers from that file; the oracle answers
// the same vector on its own.
//
// `--against webkit` compares verdicts with the real WebKit compiler instead (WebKitParity.swift):
// the shipped lists (or `--rules`), every list and pattern of the vectors (or `--vectors`), and
// the patterns of `--patterns FILE` (one per line) and `--generated N` patterns from the fuzzer's
// generator, each accepted or rejected by both with the same error. Exit 2 on any difference that is not a documented WebKit quirk.

import ArgumentParser
import ContentBlocker
import ContentRuleList
import Foundation
import Fuzzing
import Harness
import PCRE2Oracle
import RequestContext
import URLFilterSyntax

struct ConformCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conform",
        abstract: "Check BlockBench against the PCRE2 oracle on the corpora and against WebKit's vectors (exit 2 on any difference).")

    @Option(help: "A rule list: a manifest name or a path (repeatable; default: every shipped list).")
    var rules: [String] = []

    @Option(help: "A request set: a manifest name or a path (.json[.gz] adblock-rust objects, .tsv, .txt[.gz] site list; repeatable; default: every shipped set).")
    var requests: [String] = []

    @Option(help: "Run only this vector file (the format of Corpora/conformance/webkit-vectors.json).")
    var vectors: String?

    @Option(help: "Run shard i of n of every request set (e.g. 2/4).")
    var shard: String = "1/1"

    @Option(help: "Mismatches to reduce and print in full per pair.")
    var reproductions = 3

    @Option(help: "Worker threads.")
    var workers = 2

    @Flag(help: "Make the oracle try every rule on every request (no literal prefilter).")
    var noPrefilter = false

    @Flag(help: "One JSON object per pair on standard output instead of the table.")
    var json = false

    @Option(help: "The corpora folder.")
    var corpora = "Corpora"

    @Option(help: "What to compare with: oracle (the PCRE2 reference, on requests) or webkit (the real WebKit compiler's verdicts).")
    var against: Reference = .oracle

    @Option(help: "With --against webkit: also every pattern of this file (one per line), each as a one-rule list.")
    var patterns: String?

    @Option(help: "With --against webkit: also this many distinct patterns from the fuzzer's generator (a third just outside the subset), each as a one-rule list.")
    var generated = 0

    @Option(help: "With --generated: the generator's seed.")
    var seed: UInt64 = 1

    enum Reference: String, ExpressibleByArgument {
        case oracle, webkit
    }

    func run() throws {
        if against == .webkit {
            try runAgainstWebKit()
            return
        }
        if let vectors {
            let outcome = VectorRunner.run(try VectorFile.load(vectors))
            for line in outcome.lines { print(line) }
            if outcome.failed > 0 { throw ExitCode(2) }
            return
        }
        let parts = shard.split(separator: "/").compactMap { Int($0) }
        guard parts.count == 2, parts[1] >= 1, (1...parts[1]).contains(parts[0]) else {
            throw ValidationError("--shard takes i/n with 1 <= i <= n, not \(shard)")
        }
        var run = ConformanceRun()
        run.shard = Shard(index: parts[0], count: parts[1])
        run.reproductions = reproductions
        run.workers = workers
        run.usesPrefilter = !noPrefilter
        let manifest = try CorpusManifest.load(root: corpora)
        let results = try CorpusConformance.run(
            manifest: manifest, rules: rules, requests: requests, run: run, json: json, includeVectors: rules.isEmpty && requests.isEmpty)
        if !results { throw ExitCode(2) }
    }
}

extension ConformCommand {
    func runAgainstWebKit() throws {
        let webKit = WebKitEngine()
        if let unavailable = webKit.unavailable { throw ValidationError("WebKit cannot run here: \(unavailable)") }
        print("against \(webKit.about)")
        let manifest = try CorpusManifest.load(root: corpora)
        var batches: [(String, [ParityCase])] = []
        let onlyPatterns = patterns != nil || generated > 0
        if !onlyPatterns || !rules.isEmpty {
            let lists = try CorpusConformance.select(rules, kinds: ["rules"], manifest: manifest)
            batches.append(("rule lists", try lists.map { ParityCase(id: $0.name, json: try CorpusFiles.read($0.path)) }))
        }
        if !onlyPatterns || vectors != nil {
            let path = vectors ?? manifest.entries(ofKind: "vectors").first.map(manifest.path(of:))
            if let path {
                let file = try VectorFile.load(path)
                batches.append(("compile-error vectors", file.compilerErrorVectors.map { ParityCase(id: $0.test, json: Array($0.rules.utf8)) }))
                var seen = Set<String>()
                var requestLists: [ParityCase] = []
                for test in file.requestVectorTests {
                    for vector in test.vectors where seen.insert(vector.rules).inserted {
                        requestLists.append(ParityCase(id: test.test, json: Array(vector.rules.utf8)))
                    }
                }
                batches.append(("request vectors' lists", requestLists))
                batches.append(("parse-status vectors", file.urlFilterParseStatusVectors.map { ParityCase.pattern($0.pattern, id: $0.test) }))
            }
        }
        if let patterns {
            let text = String(decoding: try CorpusFiles.read(patterns), as: UTF8.self)
            let lines = CorpusFiles.lines(text).map(String.init).filter { !$0.isEmpty }
            batches.append((patterns, lines.enumerated().map { ParityCase.pattern($0.element, id: "line \($0.offset + 1)") }))
        }
        if generated > 0 {
            // Distinct patterns, in the order the seed gives them.
            let generator = PatternGenerator(defectPercent: 33)
            var random = FuzzRandom(seed: seed)
            var seen = Set<String>()
            var cases: [ParityCase] = []
            var draws = 0
            while cases.count < generated && draws < generated * 20 {
                draws += 1
                let pattern = generator.pattern(&random).source
                if seen.insert(pattern).inserted { cases.append(ParityCase.pattern(pattern, id: "seed \(seed) pattern \(cases.count + 1)")) }
            }
            batches.append(("generated patterns (seed \(seed))", cases))
        }
        var unexplained = 0
        for (source, cases) in batches {
            let result = try WebKitParity.run(cases, source: source, webKit: webKit) { done, total in
                Progress.line("\(source): \(done) / \(total)")
            }
            Progress.clear()
            print(result.text)
            for difference in result.differences.prefix(reproductions * 4) {
                print("  \(difference.quirk == nil ? "DIFFERENT" : "quirk") \(difference.id): ours \(difference.ours); WebKit \(difference.webKit)")
                print("    \(difference.excerpt)")
                if let quirk = difference.quirk { print("    \(quirk)") }
            }
            unexplained += result.unexplained
        }
        if unexplained > 0 { throw ExitCode(2) }
    }
}

/// The corpus part of `conform`, shared with the main job.
enum CorpusConformance {
    /// Runs the pairs, prints them, and says whether everything agreed.
    static func run(
        manifest: CorpusManifest, rules: [String], requests: [String], run: ConformanceRun, json: Bool, includeVectors: Bool
    ) throws -> Bool {
        let started = ContinuousClock.now
        let lists: [(name: String, path: String)] = try select(rules, kinds: ["rules"], manifest: manifest).map { ($0.name, $0.path) }
        let sets = try select(requests, kinds: RequestSets.kinds, manifest: manifest).map {
            try RequestSets.load(path: $0.path, kind: $0.kind, name: $0.name)
        }
        var allPassed = true
        var totalRequests = 0
        var totalMismatches = 0
        for (name, path) in lists {
            let bytes = try CorpusFiles.read(path)
            let list: RuleList
            switch RuleListParser.parse(bytes) {
            case .success(let parsed): list = parsed
            case .failure(let error):
                emit("\(name): rejected, nothing to conform: \(error)")
                allPassed = false
                continue
            }
            var listRun = run
            if !json {
                listRun.progress = { set, done, total in Progress.line("  \(name) x \(set): \(done) / \(total) requests") }
            }
            _ = try listRun.run(listName: name, json: bytes, list: list, requestSets: sets) { result in
                if !json { Progress.clear() }
                totalRequests += result.requests
                totalMismatches += result.mismatches
                if !result.passed { allPassed = false }
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    emit(String(decoding: (try? encoder.encode(result)) ?? Data(), as: UTF8.self))
                } else {
                    emit(text(result))
                }
            }
        }
        if !json {
            emit(String(
                format: "conform: %d pairs, %@ requests answered by both, %@ mismatches, %.1f s",
                lists.count * sets.count, totalRequests.grouped, totalMismatches.grouped, (ContinuousClock.now - started).seconds))
        }
        if includeVectors {
            for entry in manifest.entries(ofKind: "vectors") {
                let outcome = VectorRunner.run(try VectorFile.load(manifest.path(of: entry)))
                if !json { outcome.lines.forEach { print($0) } }
                if outcome.failed > 0 { allPassed = false }
            }
        }
        return allPassed
    }

    /// Writes a line at once (not through print's buffer): a long run shows each pair as it ends.
    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    struct Selected { var name: String; var path: String; var kind: String }

    /// Manifest entries of `kinds` named in `arguments` (all of them when empty); an argument that
    /// names no entry is a path.
    static func select(_ arguments: [String], kinds: [String], manifest: CorpusManifest) throws -> [Selected] {
        let entries = manifest.corpora.filter { kinds.contains($0.kind) }
        if arguments.isEmpty { return entries.map { Selected(name: $0.name, path: manifest.path(of: $0), kind: $0.kind) } }
        return try arguments.map { argument in
            if let entry = entries.first(where: { $0.name == argument }) {
                return Selected(name: entry.name, path: manifest.path(of: entry), kind: entry.kind)
            }
            guard FileManager.default.fileExists(atPath: argument) else {
                throw ValidationError("\(argument) is neither a file nor a name in the manifest (\(entries.map(\.name).joined(separator: ", ")))")
            }
            let name = URL(fileURLWithPath: argument).lastPathComponent
            if kinds == ["rules"] { return Selected(name: name, path: argument, kind: "rules") }
            let kind = name.contains(".tsv") ? "requests-tsv" : name.contains(".json") ? "requests-json" : "requests-sitelist"
            return Selected(name: name, path: argument, kind: kind)
        }
    }

    static func text(_ result: ConformanceResult) -> String {
        var lines = [String(
            format: "%@ x %@%@: %@ requests, %@ rules, %@ with actions, %@ mismatches%@; oracle tried %@ url-filters, skipped %@ by literal, %@ DFA fallbacks; %.1f s",
            result.list, result.requestSet, result.shard == "1/1" ? "" : " (shard \(result.shard))", result.requests.grouped,
            result.rules.grouped, result.requestsWithActions.grouped, result.mismatches.grouped,
            result.oracleErrors > 0 ? ", \(result.oracleErrors) ORACLE ERRORS" : "", result.oracleTries.grouped,
            result.prefilterSkips.grouped, result.dfaFallbacks.grouped, result.seconds)]
        lines[0] += String(format: " (list: engine compile %.1f s, oracle build %.1f s)", result.engineCompileSeconds, result.oracleBuildSeconds)
        if let error = result.firstOracleError { lines.append("  first oracle error: \(error)") }
        if result.pcre2JITDisagreements > 0 {
            lines.append("  PCRE2 PROBLEM: its JIT and its interpreter disagreed on \(result.pcre2JITDisagreements) sampled matches")
        }
        for reproduction in result.reproductions {
            lines.append("  MISMATCH row \(reproduction.row): \(reproduction.resourceType) \(reproduction.url)")
            lines.append("    page \(reproduction.mainDocumentURL), frame \(reproduction.frameURL)")
            lines.append("    rules (\(reproduction.rulesBeforeReduction.grouped) reduced to these): \(reproduction.rules)")
            lines.append("    blockbench: \(reproduction.engine)")
            lines.append("    oracle:     \(reproduction.oracle)")
        }
        return lines.joined(separator: "\n")
    }
}

extension VectorFile {
    /// Reads a vector file (gzip or not).
    static func load(_ path: String) throws -> VectorFile {
        let bytes = try CorpusFiles.read(path)
        do {
            return try VectorFile.decode(bytes)
        } catch {
            throw ValidationError("\(path) is not a vector file: \(error)")
        }
    }
}
