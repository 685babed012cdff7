// CorpusConformance.swift — Conformance
//
// The corpus part of `blockbench conform`, shared with the main job: rule lists and request sets
// chosen from the manifest (by name, or as paths), every pair run through `ConformanceRun` and
// printed as it ends (a line of text, or a JSON object), then the shipped vector files. Each list
// is read as the run's Safari release reads it (`--safari`): the keys it ignores are dropped, and
// a list it rejects is reported as rejected, with its error; the shipped vector files hold the
// newest release's answers, so an older release runs its own vectors (SafariReleases/SafariVectors).
// Tested by BlockBenchCLITests/CLITests.swift (ConformCommandTests).

internal import ContentRuleList
internal import Foundation
public import Corpus
internal import SafariReleases
internal import TerminalText

/// The corpus part of `blockbench conform`, shared with the main job.
public enum CorpusConformance {
    /// What a run found: every pair's result, and the lists the release rejected.
    public struct Outcome: Sendable {
        public var passed = true
        public var results: [ConformanceResult] = []
        public var rejected: [Rejection] = []
    }

    /// A list the run's release rejects: nothing to conform.
    public struct Rejection: Sendable, Codable {
        public var list: String
        public var safari: String?
        public var rejected: String
    }

    /// Runs the pairs and prints them; what they found.
    public static func run(
        manifest: CorpusManifest, rules: [String], requests: [String], run: ConformanceRun, json: Bool, includeVectors: Bool
    ) throws -> Outcome {
        let started = ContinuousClock.now
        let lists: [(name: String, path: String)] = try select(rules, kinds: ["rules"], manifest: manifest).map { ($0.name, $0.path) }
        let sets = try select(requests, kinds: RequestSets.kinds, manifest: manifest).map {
            try RequestSets.load(path: $0.path, kind: $0.kind, name: $0.name)
        }
        let olderRelease = run.profile == .newest ? nil : run.profile.version
        if let olderRelease, !json { emit("lists read as Safari \(olderRelease) reads them") }
        var outcome = Outcome()
        var totalRequests = 0
        var totalMismatches = 0
        for (name, path) in lists {
            let bytes = try CorpusFiles.read(path)
            let list: RuleList
            switch ProfiledCompile.parse(bytes, profile: run.profile) {
            case .success(let parsed): list = parsed
            case .failure(let error):
                let rejection = Rejection(list: name, safari: olderRelease, rejected: error.description)
                emit(json ? encoded(rejection) : "\(name): rejected, nothing to conform: \(error)")
                outcome.rejected.append(rejection)
                outcome.passed = false
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
                if !result.passed { outcome.passed = false }
                outcome.results.append(result)
                emit(json ? encoded(result) : text(result))
            }
        }
        if !json {
            emit(String(
                format: "conform: %d pairs, %@ requests answered by both, %@ mismatches%@, %.1f s",
                lists.count * sets.count, totalRequests.grouped, totalMismatches.grouped,
                outcome.rejected.isEmpty ? "" : ", \(outcome.rejected.count) of \(lists.count) lists rejected",
                (ContinuousClock.now - started).seconds))
        }
        if includeVectors, let olderRelease {
            let (failures, count) = try SafariVectors.run(corpora: manifest.root, safari: olderRelease)
            if !json {
                emit("Safari \(olderRelease)'s vectors (\(SafariVectors.file)): \(count - failures.count) passed, \(failures.count) failed")
                failures.forEach { emit("  FAIL \($0)") }
            }
            if !failures.isEmpty { outcome.passed = false }
        } else if includeVectors {
            for entry in manifest.entries(ofKind: "vectors") {
                let vectors = VectorRunner.run(try VectorFile.load(manifest.path(of: entry)))
                if !json { vectors.lines.forEach { print($0) } }
                if vectors.failed > 0 { outcome.passed = false }
            }
        }
        return outcome
    }

    static func encoded(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data(), as: UTF8.self)
    }

    /// Writes a line at once (not through print's buffer): a long run shows each pair as it ends.
    public static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// A corpus chosen by name or path.
    public struct Selected: Sendable {
        public var name: String
        public var path: String
        public var kind: String
    }

    /// Manifest entries of `kinds` named in `arguments` (all of them when empty); an argument that
    /// names no entry is a path.
    public static func select(_ arguments: [String], kinds: [String], manifest: CorpusManifest) throws -> [Selected] {
        let entries = manifest.corpora.filter { kinds.contains($0.kind) }
        if arguments.isEmpty { return entries.map { Selected(name: $0.name, path: manifest.path(of: $0), kind: $0.kind) } }
        return try arguments.map { argument in
            if let entry = entries.first(where: { $0.name == argument }) {
                return Selected(name: entry.name, path: manifest.path(of: entry), kind: entry.kind)
            }
            guard FileManager.default.fileExists(atPath: argument) else {
                throw CorpusSelectionError.neitherFileNorName(argument, names: entries.map(\.name))
            }
            let name = URL(fileURLWithPath: argument).lastPathComponent
            if kinds == ["rules"] { return Selected(name: name, path: argument, kind: "rules") }
            let kind = name.contains(".tsv") ? "requests-tsv" : name.contains(".json") ? "requests-json" : "requests-sitelist"
            return Selected(name: name, path: argument, kind: kind)
        }
    }

    /// A pair's result as `blockbench conform` and the main job print it.
    public static func text(_ result: ConformanceResult) -> String {
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

public enum CorpusSelectionError: Error, CustomStringConvertible {
    /// An argument that names no manifest entry of the kinds asked for and is not a file.
    case neitherFileNorName(String, names: [String])

    public var description: String {
        switch self {
        case .neitherFileNorName(let argument, let names):
            "\(argument) is neither a file nor a name in the manifest (\(names.joined(separator: ", ")))"
        }
    }
}
