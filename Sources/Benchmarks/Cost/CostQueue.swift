// CostQueue.swift — Benchmarks
//
// The exact counts a run of benchmarks asks for, taken once its timed work is done. Each count is
// a Valgrind process of its own whose figures do not depend on what runs beside it
// (CostCounter.swift), so the counts need not wait their turn between timed runs: they are kept
// until the benchmarks are over, then run as many at a time as there are cores, and each
// benchmark's result gets its figures, or its failure, as a count taken in line would have
// given it.
// Tested by GateTests (CostQueueTests).

internal import Foundation
public import Conformance
internal import Parallelism

/// One count asked for: what it counts, what the measured run found (the count must find the
/// same), and whose figures they are.
struct PendingCount: Sendable {
    enum Work: Sendable {
        /// A serial compile of the rule list at `rules`, which must make `bytes` bytes.
        case compile(rules: String, bytes: Int?)
        /// Answering the request set `requests` with the compiled `files` (lists apart), their
        /// dense tables within `denseBudgetBytes`: the answers must be the oracle's, `expected`.
        case match(files: [String], requests: String, denseBudgetBytes: Int?, expected: AnswerCounts)
    }

    /// The benchmark and the engine whose result the figures go to.
    var benchmark: String
    var engine: String
    var work: Work
}

/// The counts asked for and not yet taken, with the scratch folders their files are kept in.
final class CostQueue {
    private(set) var pending: [PendingCount] = []
    private var folders: [String] = []

    deinit { removeFolders() }

    func ask(_ count: PendingCount) { pending.append(count) }

    /// A scratch folder that lives until the counts are taken.
    func keptFolder() throws -> String {
        let folder = try CostCounter.scratchFolder()
        folders.append(folder)
        return folder
    }

    /// What one count found.
    enum Counted: Sendable {
        case compile(CompileCost)
        case match(MatchCost)
    }

    /// Takes every pending count by `counting` (`count(_:with:corpora:)`), `Parallel.map`'s
    /// threads at a time (as many as there are cores), and gives each its result's figures in
    /// `results`; returns a line for each count that failed, in the order they were asked.
    func take(
        into results: inout [BenchmarkResult], counting: @escaping @Sendable (PendingCount.Work) throws -> Counted
    ) -> [String] {
        let counts = pending
        pending = []
        defer { removeFolders() }
        let found = Parallel.map(handingOver: counts.map(\.work)) { _, work in Result { try counting(work) } }
        var failures: [String] = []
        for (count, outcome) in zip(counts, found) {
            guard let row = results.firstIndex(where: { $0.name == count.benchmark }),
                let slot = results[row].engines.firstIndex(where: { $0.engine == count.engine })
            else { continue }
            Self.give(outcome, of: count.work, to: &results[row].engines[slot])
            let engine = results[row].engines[slot]
            if engine.status != .ok { failures.append("\(count.benchmark): \(count.engine): \(engine.message ?? engine.status.rawValue)") }
        }
        return failures
    }

    /// `work` counted by `counter` (request sets named in the manifest at `corpora`).
    static func count(_ work: PendingCount.Work, with counter: CostCounter, corpora: String) throws -> Counted {
        switch work {
        case .compile(let rules, _): .compile(try counter.compile(rules: rules))
        case .match(let files, let requests, let budget, _):
            .match(try counter.match(files: files, corpora: corpora, requests: requests, denseBudgetBytes: budget))
        }
    }

    /// The figures of `outcome` put in `result`; a count that failed, or that found another size
    /// or other answers than the measured run, makes the result an error or wrong, without figures.
    static func give(_ outcome: Result<Counted, any Error>, of work: PendingCount.Work, to result: inout EngineResult) {
        let counted: Counted
        switch outcome {
        case .failure(let error):
            result = EngineResult(engine: result.engine, status: .error, message: "\(error)")
            return
        case .success(let found): counted = found
        }
        switch (counted, work) {
        case (.compile(let cost), .compile(_, let bytes)):
            guard cost.bytes == bytes else {
                result = EngineResult(engine: result.engine, status: .wrong, message: "its counted compile made \(cost.bytes) bytes, not \(bytes ?? 0)")
                return
            }
            result.instructions = cost.recorded
            result.heapPeakBytes = cost.heapPeakBytes
        case (.match(let cost), .match(_, _, _, let expected)):
            guard cost.answers == expected else {
                result = EngineResult(
                    engine: result.engine, status: .wrong,
                    message: "its counted answers differ from the oracle's (counted: \(cost.answers.text); oracle: \(expected.text))")
                return
            }
            result.instructions = cost.recorded
            result.dataMisses = cost.recordedMisses
        default:
            result = EngineResult(engine: result.engine, status: .error, message: "a count of another kind than the one asked for")
        }
    }

    private func removeFolders() {
        for folder in folders { try? FileManager.default.removeItem(atPath: folder) }
        folders = []
    }
}
