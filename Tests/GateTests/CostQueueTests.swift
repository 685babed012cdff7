// CostQueueTests.swift — counts taken after the benchmarks give each result what a count taken
// in line gave it: its figures, or its failure.

import Foundation
import Synchronization
import Testing
@testable import Benchmarks
@testable import Conformance
import Engines

private func answers(_ requests: Int, actions: Int) -> AnswerCounts {
    var counts = AnswerCounts()
    counts.requests = requests
    counts.requestsWithActions = requests / 2
    counts.actions = actions
    counts.digest = "d\(actions)"
    return counts
}

private func matchCost(_ perRequest: Double, answering: AnswerCounts) -> MatchCost {
    MatchCost(
        requests: answering.requests, load: 1_000, firstPassPerRequest: perRequest + 10, perRequest: perRequest,
        l1DataMissesPerRequest: 3, l2DataMissesPerRequest: 1, answers: answering)
}

private func results(_ names: [String]) -> [BenchmarkResult] {
    names.map { name in
        var timed = EngineResult(engine: "blockbench", status: .ok)
        timed.seconds = 0.5
        return BenchmarkResult(name: name, model: .match, rules: "r", ruleCount: 1, engines: [EngineResult(engine: "peer", status: .ok), timed])
    }
}

private func match(_ name: String, expecting expected: AnswerCounts) -> PendingCount {
    PendingCount(benchmark: name, engine: "blockbench", work: .match(files: [name + ".bbc"], requests: "set", denseBudgetBytes: nil, expected: expected))
}

@Suite struct CostQueueTests {
    @Test func eachCountGoesToItsBenchmarksEngineWhateverOrderTheyEnd() throws {
        let queue = CostQueue()
        let expected = answers(100, actions: 7)
        for name in ["a", "b", "c", "d"] { queue.ask(match(name, expecting: expected)) }
        queue.ask(PendingCount(benchmark: "e", engine: "blockbench", work: .compile(rules: "e.json", bytes: 4_096)))
        var figures = results(["a", "b", "c", "d"])
        figures.append(BenchmarkResult(name: "e", model: .compile, rules: "r", ruleCount: 1, engines: [EngineResult(engine: "blockbench", status: .ok)]))
        let started = Mutex<[String]>([])
        let failures = queue.take(into: &figures) { work in
            switch work {
            case .match(let files, _, _, _):
                started.withLock { $0.append(files[0]) }
                // The first asked ends last.
                if files[0] == "a.bbc" { Thread.sleep(forTimeInterval: 0.05) }
                return .match(matchCost(Double(files[0].utf8.first!), answering: expected))
            case .compile:
                return .compile(CompileCost(instructions: [Figure("parse", 5)], heapPeakBytes: 64, bytes: 4_096))
            }
        }
        #expect(failures.isEmpty)
        #expect(queue.pending.isEmpty)
        #expect(started.withLock { $0.count } == 4)
        for (index, name) in ["a", "b", "c", "d"].enumerated() {
            let engine = figures[index].engines[1]
            #expect(engine.status == .ok)
            #expect(engine.seconds == 0.5, "the timed figures stay")
            #expect(engine.instructions?.first == Figure("per request", Double(name.utf8.first!)))
            #expect(engine.dataMisses?.count == 2)
            #expect(figures[index].engines[0].instructions == nil, "another engine's result is not touched")
        }
        #expect(figures[4].engines[0].instructions?.last == Figure("total", 5))
        #expect(figures[4].engines[0].heapPeakBytes == 64)
    }

    @Test func aCountThatFailsOrFindsOtherwiseMakesItsResultWrongOrAnErrorAndIsListed() throws {
        let queue = CostQueue()
        let expected = answers(100, actions: 7)
        queue.ask(match("fails", expecting: expected))
        queue.ask(match("other answers", expecting: expected))
        queue.ask(match("right", expecting: expected))
        queue.ask(PendingCount(benchmark: "other bytes", engine: "blockbench", work: .compile(rules: "x.json", bytes: 10)))
        var figures = results(["fails", "other answers", "right"])
        figures.append(BenchmarkResult(name: "other bytes", model: .compile, rules: "r", ruleCount: 1, engines: [EngineResult(engine: "blockbench", status: .ok)]))
        struct Refused: Error, CustomStringConvertible { var description: String { "valgrind refused" } }
        let failures = queue.take(into: &figures) { work in
            switch work {
            case .match(let files, _, _, _):
                if files[0] == "fails.bbc" { throw Refused() }
                return .match(matchCost(50, answering: files[0] == "right.bbc" ? expected : answers(100, actions: 8)))
            case .compile:
                return .compile(CompileCost(instructions: [Figure("parse", 5)], bytes: 11))
            }
        }
        #expect(failures.count == 3)
        #expect(failures[0] == "fails: blockbench: valgrind refused")
        #expect(failures[1].hasPrefix("other answers: blockbench: its counted answers differ from the oracle's"))
        #expect(failures[2] == "other bytes: blockbench: its counted compile made 11 bytes, not 10")
        #expect(figures[0].engines[1].status == .error)
        #expect(figures[1].engines[1].status == .wrong)
        #expect(figures[1].engines[1].seconds == nil, "a wrong result carries no figures")
        #expect(figures[2].engines[1].status == .ok)
        #expect(figures[3].engines[0].status == .wrong)
    }

    @Test func keptFoldersLastUntilTheCountsAreTaken() throws {
        let queue = CostQueue()
        let folder = try queue.keptFolder()
        #expect(FileManager.default.fileExists(atPath: folder))
        var none: [BenchmarkResult] = []
        _ = queue.take(into: &none) { _ in throw CancellationError() }
        #expect(!FileManager.default.fileExists(atPath: folder))
    }
}
