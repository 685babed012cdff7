// ManyBlockersTests.swift — many content blockers at once: lists drawn from real rules are the
// same for a seed and keep the pool's order; a drawn definition names its lists and stays out of
// the main job; lists apart report each list's compile and load and the largest list asked alone;
// a load's resident memory is read from /proc.

import Testing
import Foundation
import ContentBlocker
import ContentRuleList
@testable import Benchmarks
@testable import Corpus
@testable import Engines
@testable import Reports
import TestSupport

@Suite struct ManyBlockersTests {
    private let pool: [[UInt8]] = [
        Array(#"[{"trigger":{"url-filter":"a"},"action":{"type":"block"}}, {"trigger":{"url-filter":"b"},"action":{"type":"block"}}]"#.utf8),
        Array(#"[ {"trigger":{"url-filter":"c"},"action":{"type":"ignore-previous-rules"}} ]"#.utf8),
    ]

    /// The pool's rules in order, for telling which a drawn list holds.
    private func rules(_ json: [UInt8]) throws -> [String] {
        let elements = try #require(json.withUnsafeBufferPointer { JSONReader.topLevelElements($0) })
        return elements.map { String(decoding: json[$0], as: UTF8.self) }
    }

    @Test func aDrawIsTheSameForASeedAndKeepsThePoolsOrder() throws {
        let draw = RuleDraw(from: ["one", "two"], lists: 3, rules: 10, seed: 57)
        let lists = try draw.draw(pool: pool)
        #expect(lists == (try draw.draw(pool: pool)))
        #expect(lists.count == 3)
        let order = try rules(pool[0]) + rules(pool[1])
        for list in lists {
            let drawn = try rules(list)
            #expect(drawn.count == 10)
            let places = drawn.map { order.firstIndex(of: $0) }
            #expect(!places.contains(nil))
            #expect(places.map { $0! } == places.map { $0! }.sorted())
            #expect(RuleListParser.check(list).list.rules.count == 10)
        }
        // Another seed, other lists; a text that is not an array is said so.
        #expect(try RuleDraw(from: ["one", "two"], lists: 3, rules: 10, seed: 58).draw(pool: pool) != lists)
        #expect(throws: RuleDrawError.self) { try RuleDraw(from: ["x"], lists: 2, rules: 1, seed: 1).draw(pool: [Array("{}".utf8)]) }
    }

    @Test func aDrawnDefinitionNamesItsListsAndRunsOnlyOnDemand() throws {
        let text = #"{"rules": "six", "draw": {"from": ["kablock"], "lists": 2, "rules": 5, "seed": 1}, "onDemand": true, "#
            + #""model": "compile", "engines": ["blockbench"]}"#
        let definition = try JSONDecoder().decode(BenchmarkDefinition.self, from: Data(text.utf8))
        #expect(definition.lists == ["six-1", "six-2"] && definition.apart && definition.rules == "six" && definition.onDemand)
        #expect(definition.problems(engines: ["blockbench"]).isEmpty)
        #expect(try JSONDecoder().decode(BenchmarkDefinition.self, from: JSONEncoder().encode(definition)) == definition)
        var peer = definition
        peer.engines = ["adblock-rust"]
        #expect(peer.problems(engines: ["adblock-rust"]).contains { $0.contains("no Adblock Plus text") })

        let shipped = try BenchmarkDefinition.loadAll(
            from: repositoryRoot + "/Benchmarks", engines: Set(BenchEngines.standard().map(\.name)))
        let six = shipped.filter { $0.draw != nil }
        #expect(Set(six.map(\.name)) == ["compile-six-blockers", "match-six-blockers-requests"])
        #expect(six.allSatisfy { $0.onDemand && $0.lists.count == 6 && $0.draw?.rules == 150_000 })
        #expect(shipped.contains { $0.name == "match-easylist+easyprivacy+kablock+ddg-tds-reference-apart-requests" && !$0.onDemand })
    }

    /// Two drawn lists of KaBlock's and DuckDuckGo's rules: the compile reports each list, the
    /// match the largest asked alone beside both (its answers checked against the oracle too).
    @Test func listsApartReportEachListAndTheLargestAlone() throws {
        let runner = BenchmarkRunner(manifest: try CorpusManifest.load(root: repositoryRoot + "/Corpora"), engines: [BlockBenchEngine()])
        let draw = RuleDraw(from: ["kablock", "ddg-tds-reference"], lists: 2, rules: 400, seed: 57)
        let compile = try runner.run(
            BenchmarkDefinition(name: "drawn-compile", drawn: "drawn", draw: draw, model: .compile, engines: ["blockbench"], runs: 1, warmupRuns: 0))
        let compiled = try #require(compile.engines.first)
        #expect(compiled.status == .ok)
        #expect(compiled.lists?.map(\.list) == ["drawn-1", "drawn-2"])
        #expect(compiled.lists?.allSatisfy { $0.rules == 400 && $0.bytes > 0 && $0.loadSeconds != nil } == true)
        #expect(compiled.lists?.reduce(0) { $0 + $1.bytes } == compiled.bytes)
        #expect(ResultTable(compile).text.contains("each list on its own: drawn-1 (400 rules)"))

        var match = BenchmarkDefinition(
            name: "drawn-match", drawn: "drawn", draw: draw, requests: "adblock-rust-requests", model: .match, engines: ["blockbench"], runs: 1,
            warmupRuns: 0)
        match.samples = ["blockbench": 300]
        let result = try runner.run(match)
        let engine = try #require(result.engines.first)
        #expect(engine.status == .ok, "\(engine.message ?? "")")
        #expect(engine.answers == engine.oracleAnswers)
        #expect(engine.largestAlone?.list == "drawn-1")
        #expect((engine.largestAlone?.counters.first { $0.name == "interpreter steps per request" }?.value ?? 0) > 0)
        #expect((engine.timesLargestAlone ?? 0) > 0)
        #expect(engine.message == nil)
        #expect(ResultTable(result).text.contains("drawn-1 alone (400 rules"))
    }

    @Test func aLoadsResidentMemoryIsReadAroundIt() throws {
        #expect(ResidentAfterLoad.current().map { $0.resident >= $0.anonymous && $0.anonymous > 0 } == true)
        let (compiled, _) = try RuleListCompiler.compile(json: try CorpusFiles.read(repositoryRoot + "/Corpora/rules/kablock-blockerList.json"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("load-\(UUID().uuidString).bbc").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let bytes = compiled.serialized()
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let (figures, seconds) = try ResidentAfterLoad.measureLoading(files: [file, file])
        #expect(figures.loadedBytes == 2 * bytes.count)
        #expect(figures.residentBefore > 0 && figures.anonymousAfter > 0 && seconds > 0)
        #expect(ResultTable.residentText(figures).hasPrefix("+"))
    }
}
