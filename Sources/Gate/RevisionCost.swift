// RevisionCost.swift — Gate
//
// The comparison that is always valid: another revision's instruction and heap counts taken on
// this machine, in this run, beside this tree's (`blockbench gate --against REV`). The revision is
// checked out in a git worktree and built in release mode into a build folder of its own
// (.build-against, kept between runs so that a later build is incremental); its `blockbench`
// counts every compile and match benchmark of BlockBench's as this tree's does (a match benchmark
// answers from the file that revision compiles; lists apart, from each list's file).
// No test of its own (it builds another revision): the metrics it compares are tested by
// GateTests (CostGateTests).

import Foundation
public import Benchmarks
public import Corpus

public enum RevisionCostError: Error, CustomStringConvertible {
    case git(String)
    case build(String)
    case noCostCommand(String)

    public var description: String {
        switch self {
        case .git(let reason): "git: \(reason)"
        case .build(let reason): "building the revision failed: \(reason)"
        case .noCostCommand(let revision):
            "\(revision) has no `blockbench cost` (it predates the exact cost measure): compare against a later revision"
        }
    }
}

public struct RevisionCost {
    /// The revision as given, and as git resolves it.
    public let revision: String
    public let commit: String
    /// The repository's top folder.
    public let repository: String
    /// Told what is going on, one line each.
    public var progress: ((String) -> Void)?

    public init(revision: String, repository: String) throws {
        self.revision = revision
        self.repository = repository
        let resolved = try Self.git(["rev-parse", "--verify", "--quiet", revision + "^{commit}"], in: repository)
        guard resolved.status == 0 else { throw RevisionCostError.git("no commit \(revision)") }
        commit = resolved.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The revision's `blockbench`, built in release mode (the worktree is removed afterwards).
    public func build() throws -> String {
        let worktree = NSTemporaryDirectory() + "/blockbench-against-" + String(commit.prefix(10)) + "-" + UUID().uuidString
        let scratch = repository + "/.build-against"
        let added = try Self.git(["worktree", "add", "--detach", "--quiet", worktree, commit], in: repository)
        guard added.status == 0 else { throw RevisionCostError.git("worktree add failed: \(added.output)") }
        defer { _ = try? Self.git(["worktree", "remove", "--force", worktree], in: repository) }
        progress?("building \(revision) (\(commit.prefix(10))) in release mode into .build-against")
        let built = try CostCounter.run(
            ["/usr/bin/env", "swift", "build", "-c", "release", "--product", "blockbench", "--package-path", worktree, "--scratch-path", scratch],
            timeout: 3_600, mergingErrors: true)
        guard built.status == 0 else {
            throw RevisionCostError.build(built.output.split(separator: "\n").suffix(8).joined(separator: "\n"))
        }
        let executable = scratch + "/release/blockbench"
        let help = try CostCounter.run([executable, "cost", "--help"])
        guard help.status == 0 else { throw RevisionCostError.noCostCommand(revision) }
        return executable
    }

    /// The gate's instruction and heap metrics of `executable` on BlockBench's compile and match
    /// benchmarks among `definitions`, named as GateMetrics names this tree's.
    public func metrics(
        of executable: String, definitions: [BenchmarkDefinition], manifest: CorpusManifest, toolchain: String
    ) throws -> (metrics: [String: GateMetric], fingerprint: CostFingerprint?) {
        let counter = CostCounter(executable: executable, toolchain: toolchain)
        let folder = try CostCounter.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var compiledFiles: [String: String] = [:]
        var outcome = FullRunOutcome()
        // (A dialect's list has no file of the corpus for the revision to compile: not counted.)
        /// The revision's compiled file of the shipped list `name` (compiled once).
        func compiledFile(_ name: String, rules: String) throws -> String {
            if let known = compiledFiles[name] { return known }
            let file = folder + "/\(name).bbc"
            let compiled = try CostCounter.run([executable, "compile", rules, "-o", file], timeout: 600)
            guard compiled.status == 0 else { throw RevisionCostError.build("\(revision) did not compile \(rules)") }
            compiledFiles[name] = file
            return file
        }
        // (Several lists apart: a match is counted from each list's file, as the main job counts it.)
        for definition in definitions where definition.engines.contains("blockbench") && definition.model != .check && definition.dialect == nil {
            if definition.apart && definition.model == .match && definition.draw == nil, let requests = definition.requests {
                let entries = definition.lists.compactMap { name in manifest.corpora.first { $0.name == name && $0.kind == "rules" } }
                guard entries.count == definition.lists.count else { continue }
                progress?("\(definition.name): \(revision)'s instructions and data misses per request, under Valgrind")
                let files = try entries.map { try compiledFile($0.name, rules: manifest.path(of: $0)) }
                // (A revision whose `cost match` takes one file counts none: its rows stay uncompared.)
                guard let cost = try? counter.match(files: files, corpora: manifest.root, requests: requests) else { continue }
                var engine = EngineResult(engine: "blockbench", status: .ok)
                engine.instructions = cost.recorded
                engine.dataMisses = cost.recordedMisses
                outcome.results.append(
                    BenchmarkResult(name: definition.name, model: definition.model, rules: definition.rules, ruleCount: 0, engines: [engine]))
                continue
            }
            guard let entry = manifest.corpora.first(where: { $0.name == definition.rules && $0.kind == "rules" }) else { continue }
            let rules = manifest.path(of: entry)
            var engine = EngineResult(engine: "blockbench", status: .ok)
            switch definition.model {
            case .compile:
                progress?("\(definition.name): \(revision)'s instructions and heap peak, under Valgrind")
                let cost = try counter.compile(rules: rules)
                engine.instructions = cost.recorded
                engine.heapPeakBytes = cost.heapPeakBytes
            case .match:
                guard let requests = definition.requests else { continue }
                let file = try compiledFile(definition.rules, rules: rules)
                progress?("\(definition.name): \(revision)'s instructions and data misses per request, under Valgrind")
                let cost: MatchCost
                if let budget = definition.denseBudget {
                    // (A revision whose `cost match` takes no dense budget counts none: its rows stay uncompared.)
                    guard let counted = try? counter.match(files: [file], corpora: manifest.root, requests: requests, denseBudgetBytes: budget)
                    else { continue }
                    cost = counted
                } else {
                    cost = try counter.match(file: file, corpora: manifest.root, requests: requests)
                }
                engine.instructions = cost.recorded
                engine.dataMisses = cost.recordedMisses
            case .check:
                continue
            }
            outcome.results.append(
                BenchmarkResult(name: definition.name, model: definition.model, rules: definition.rules, ruleCount: 0, engines: [engine]))
        }
        return (GateMetrics.measure(outcome).filter { $0.value.kind.isCost }, counter.fingerprint)
    }

    /// The top folder of the git repository the current folder is in.
    public static func repositoryTop() throws -> String {
        let top = try git(["rev-parse", "--show-toplevel"], in: FileManager.default.currentDirectoryPath)
        guard top.status == 0 else { throw RevisionCostError.git("not in a git repository") }
        return top.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func git(_ arguments: [String], in folder: String) throws -> (status: Int32, output: String) {
        try CostCounter.run(["/usr/bin/env", "git", "-C", folder] + arguments, timeout: 600, mergingErrors: true)
    }
}
