// ConcurrencyTests.swift — ConcurrencyTests: what many threads share.
//
//  - One compiled list per shipped small list (kablock, ddg-tds-reference), shared by several
//    threads, each with its own `Evaluator` and its own `ContentBlockers` over both lists (an
//    evaluator, and a ContentBlockers, serve one thread at a time; the compiled list and its
//    tables are shared read-only), answering every request of the shipped request sets, each
//    thread starting at another place: every answer equals the one a single thread gives.
//  - Two writers recording runs into one history store at once (as two `gate` or `report` runs
//    do), with the same ids and with different ones: every record is kept (HistoryStore.add).
//
// .ci/sanitizers runs this suite under ThreadSanitizer (docs/METHODOLOGY.md, "Sanitizers").

import ContentBlocker
import Foundation
@testable import Corpus
@testable import Reports
import RequestContext
import Testing
import TestSupport

/// Results written by several threads, each into its own slot.
private final class Slots<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Value?]

    init(count: Int) { values = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Value) { lock.withLock { values[index] = value } }
    var all: [Value?] { lock.withLock { values } }
}

/// Runs `body(thread)` on `count` threads of their own at once; returns when all have finished.
private func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }
    group.wait()
}

@Suite(.serialized) struct ConcurrencyTests {
    static let threads = 4

    static func shippedRequests() throws -> [Request] {
        let manifest = try CorpusManifest.load(root: repositoryRoot + "/Corpora")
        return try manifest.corpora.filter { RequestSets.kinds.contains($0.kind) }
            .flatMap { try RequestSets.load($0, from: manifest).requests.map(\.request) }
    }

    static func compiled(_ name: String) throws -> CompiledRuleList {
        let json = try [UInt8](Data(contentsOf: URL(fileURLWithPath: repositoryRoot + "/Corpora/rules/" + name)))
        return try RuleListCompiler.compile(json: json).0
    }

    /// One thread's answers: the evaluator's for `first`, then ContentBlockers' for both lists,
    /// for each request from `start` on (wrapping round), put back in the requests' order.
    static func answers(_ requests: [Request], _ first: CompiledRuleList, _ second: CompiledRuleList, start: Int) -> [[MatchOutcome]] {
        let evaluator = Evaluator(first)
        let blockers = ContentBlockers([first, second])
        var answers = [[MatchOutcome]](repeating: [], count: requests.count)
        for step in requests.indices {
            let index = (start + step) % requests.count
            answers[index] = [evaluator.outcome(for: requests[index])] + blockers.outcomes(for: requests[index])
        }
        return answers
    }

    @Test func threadsSharingCompiledListsAnswerAsOneThreadDoes() throws {
        let requests = try Self.shippedRequests()
        #expect(requests.count > 20_000)
        let kablock = try Self.compiled("kablock-blockerList.json")
        let ddg = try Self.compiled("ddg-tds-reference-rules.json")
        let expected = Self.answers(requests, kablock, ddg, start: 0)
        let results = Slots<[[MatchOutcome]]>(count: Self.threads)
        onThreads(Self.threads) { thread in
            results.set(thread, Self.answers(requests, kablock, ddg, start: thread * requests.count / Self.threads))
        }
        for (thread, answers) in results.all.enumerated() {
            let answers = try #require(answers)
            let differing = requests.indices.filter { answers[$0] != expected[$0] }
            #expect(differing.isEmpty, "thread \(thread): \(differing.count) answers differ, first \(differing.first.map { requests[$0].url.string } ?? "")")
        }
        // The shared lists' blocks are not all empty: the comparison says something.
        #expect(expected.contains { !$0[0].actions.isEmpty })
    }

    static func record(date: String, kind: String = "gate", value: Double) -> RunRecord {
        RunRecord(
            date: date, revision: "0123456789", kind: kind, machine: "test machine, 2 cores", toolchain: "Swift test",
            gate: kind == "gate" ? "pass" : nil,
            figures: ["compile-kablock": ["blockbench": ["seconds": value]]])
    }

    @Test func twoConcurrentWritersIntoOneHistoryStoreLoseNothing() throws {
        let store = HistoryStore(root: FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(atPath: store.root) }
        let perWriter = 40
        let failures = Slots<String>(count: 2)
        onThreads(2) { writer in
            for run in 0..<perWriter {
                // Half the runs share their id with the other writer's (the same second, revision
                // and kind: two gate runs ending together), half have ids of their own.
                let second = run.isMultiple(of: 2) ? run : 100 * (writer + 1) + run
                let date = String(format: "2026-11-28T10:%02d:%02dZ", second / 60, second % 60)
                do {
                    try store.add(Self.record(date: date, value: Double(writer * 1000 + run)))
                } catch {
                    failures.set(writer, "writer \(writer), run \(run): \(error)")
                }
            }
        }
        #expect(failures.all.allSatisfy { $0 == nil }, "\(failures.all)")
        let records = store.records()
        #expect(records.count == 2 * perWriter)
        let values = Set(records.compactMap { $0.figures["compile-kablock"]?["blockbench"]?["seconds"] })
        #expect(values.count == 2 * perWriter)
        // No temporary file is left behind.
        let folder = store.root + "/" + records[0].fingerprint
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).allSatisfy { $0.hasSuffix(".json") })
    }

    @Test func aRecordAddedTwiceIsStoredOnceAndImportsStayIdempotent() throws {
        let store = HistoryStore(root: FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)").path)
        defer { try? FileManager.default.removeItem(atPath: store.root) }
        let first = Self.record(date: "2026-11-28T10:00:00Z", value: 1)
        let second = Self.record(date: "2026-11-28T10:00:00Z", value: 2)
        let firstPath = try store.add(first)
        #expect(try store.add(first) == firstPath)
        let secondPath = try store.add(second)
        #expect(secondPath != firstPath && secondPath.hasSuffix("-gate-2.json"))
        #expect(store.records().count == 2)
        let exported = try store.export()
        let counts = try store.importLines(exported)
        #expect(counts.added == 0 && counts.present == 2)
        #expect(store.contains(second))
    }
}
