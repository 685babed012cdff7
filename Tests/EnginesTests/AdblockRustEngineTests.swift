// AdblockRustEngineTests.swift — the adblock-rust peer: its line protocol (build, match in
// batches with per-request times, resident memory after load in a fresh process, errors), the
// missing-package path (reported as not run, never a failure), a peer's verdicts counted beside
// BlockBench's and never checked against the oracle, and benchmark definitions of several lists,
// as one or apart.
//
// The protocol tests need the PyPI package `adblock` (`.ci/setup` installs it); where it is absent
// they are skipped, and the skip says so. The others run everywhere.

import Testing
import Foundation
import ContentRuleList
@testable import Benchmarks
@testable import Corpus
@testable import Engines
@testable import Reports
import RequestContext
import TestSupport

private let folder = repositoryRoot + "/Benchmarks/Peers/AdblockRust"

/// Where the package is importable; the protocol tests are skipped elsewhere.
private let whenInstalled = whenRunnable(AdblockRustEngine(folder: folder), install: "pip install adblock==\(AdblockRustEngine.pinnedVersion)")

/// A python3 that cannot import `adblock`: a module of that name that fails to import comes first
/// on its path.
private func pythonWithoutAdblock() throws -> String {
    let (python, folder) = try python3WithScratchPath("no-adblock")
    try "raise ImportError('hidden by a test')\n".write(toFile: folder + "/adblock.py", atomically: true, encoding: .utf8)
    return python
}

@Suite struct AdblockRustEngineTests {
    @Test(whenInstalled)
    func buildsFromFilterTextAndAnswersBatchesWithTheirOwnTimes() throws {
        let engine = AdblockRustEngine(folder: folder)
        engine.batchSize = 2
        let run = try engine.compile(filterList("ads", ["||ads.example^\n@@||ads.example/allowed/*\n", "/tracker.js$script\n"]))
        #expect(run.ownSeconds != nil && run.ownSeconds! > 0)
        #expect(run.bytes > 0)
        #expect(run.counters.first { $0.name == "filter lists" }?.value == 2)
        // Five requests in batches of two: three lines, answers in order.
        try expectTimedVerdicts(engine, try engine.matcher(for: filterList("ads", [])), adsRequests, blocked: [true, false, true, false, false])
    }

    @Test(whenInstalled)
    func aJointMatcherAsksEveryListAndBlocksWhenOneDoes() throws {
        let engine = AdblockRustEngine(folder: folder)
        let first = filterList("first", ["||ads.example^\n"])
        let second = filterList("second", ["||track.example^\n"])
        let joint = try #require(try engine.jointMatcher(for: [first, second]) as? any SelfTimedMatcher)
        let verdicts = try joint.verdicts([
            peerRequest("https://ads.example/a.js"), peerRequest("https://track.example/p.gif", type: .image), peerRequest("https://ok.example/"),
        ])
        #expect(verdicts.map(\.blocked) == [true, true, false])
    }

    @Test(whenInstalled)
    func aFreshProcessLoadsTheSerializedEnginesAndSaysWhatItHolds() throws {
        try expectResidentAfterLoad(AdblockRustEngine(folder: folder))
    }

    @Test(whenInstalled)
    func theChildReportsBadCommandsAndStaysUp() throws {
        let engine = AdblockRustEngine(folder: folder)
        #expect(throws: BenchEngineError.self) { try engine.ask(["op": "sprint"]) }
        #expect(throws: BenchEngineError.self) { try engine.ask(["op": "match", "engines": ["never-built"], "requests": [["https://a.example/", "", "script"]]]) }
        #expect(try engine.ask(["op": "hello"])["adblock"] as? String == engine.version)
        #expect(throws: BenchEngineError.self) { try engine.compile(BenchList(name: "no-text", json: Array("[]".utf8))) }
    }

    @Test func withoutThePackageTheEngineIsNotRunAndNothingFails() throws {
        let engine = AdblockRustEngine(folder: folder, python: try pythonWithoutAdblock())
        let reason = try #require(engine.unavailable)
        #expect(reason.hasPrefix("not run: pip install adblock"))
        try expectNotRunBesideBlockBench(engine, tableSays: "adblock-rust: not run: pip install adblock")
    }

    @Test func withoutPythonTheEngineIsNotRunEither() {
        let engine = AdblockRustEngine(folder: folder, python: "no-such-python-for-blockbench")
        #expect(engine.unavailable?.hasPrefix("not run:") == true)
        #expect(throws: BenchEngineError.self) { try engine.compile(filterList("x", ["||a.example^"])) }
    }

    @Test func requestTypesMapToWebRequestTypes() {
        #expect(PeerChild.webRequestType(.topDocument) == "main_frame")
        #expect(PeerChild.webRequestType(.childDocument) == "sub_frame")
        #expect(PeerChild.webRequestType(.fetch) == "xmlhttprequest")
        #expect(PeerChild.webRequestType(.styleSheet) == "stylesheet")
        #expect(PeerChild.webRequestType(.popup) == "other")
        // Every single type has a name the request sets' mapping reads back to the same type,
        // except those adblock-rust has none for.
        for (_, type) in ResourceTypes.requestNames where ![.svgDocument, .popup].contains(type) {
            #expect(RequestSets.webRequestTypes[PeerChild.webRequestType(type)] == type)
        }
    }
}

/// A peer in this process: blocks every request whose URL contains "ad", times itself.
private final class StubPeer: BenchEngine {
    let name = "stub-peer"
    let about = "a test peer"
    let unavailable: String? = nil
    let models: Set<BenchmarkDefinition.Model> = [.compile, .match]
    var conformed: Bool { false }
    func compile(_ list: BenchList) throws -> CompileRun { CompileRun() }
    func matcher(for list: BenchList) throws -> any BenchMatcher { Matcher() }

    final class Matcher: SelfTimedMatcher {
        func verdicts(_ requests: [Request]) throws -> [TimedVerdict] {
            requests.map { TimedVerdict(blocked: $0.url.string.contains("ad"), nanoseconds: 100) }
        }
        func outcome(for request: Request) throws -> MatchOutcome {
            MatchOutcome(actions: try verdicts([request])[0].blocked ? [.block] : [], matchingRules: [], appliesGlobalStyleSheet: true)
        }
        var counters: [Figure] { [] }
    }
}

@Suite struct PeerAndListsTests {
    private func runner(_ engines: [any BenchEngine]) throws -> BenchmarkRunner {
        BenchmarkRunner(manifest: try CorpusManifest.load(root: repositoryRoot + "/Corpora"), engines: engines)
    }

    @Test func aPeerIsMeasuredAndCountedBesideBlockBenchNeverCheckedAgainstTheOracle() throws {
        let definition = BenchmarkDefinition(
            name: "peer", rules: "kablock", requests: "adblock-rust-requests", model: .match, engines: ["blockbench", "stub-peer"],
            samples: ["blockbench": 300, "stub-peer": 300], runs: 2, warmupRuns: 1)
        let result = try runner([BlockBenchEngine(), StubPeer()]).run(definition)
        let peer = try #require(result.engines.last)
        #expect(peer.status == .ok)
        #expect(peer.peer == true)
        #expect(peer.oracleAnswers == nil)
        #expect(peer.latency?.medianNanoseconds == 100)
        #expect(peer.latency?.samples == 600)
        let agreement = try #require(peer.agreement)
        #expect(agreement.comparedWith == "blockbench")
        #expect(agreement.requests == 300)
        #expect(agreement.bothBlock + agreement.neitherBlocks + agreement.onlyPeerBlocks + agreement.onlyBlockBenchBlocks == 300)
        #expect(agreement.onlyPeerBlocks > 0)
        #expect(result.passed)
        #expect(ResultTable(result).text.contains("stub-peer (peer)"))
    }

    @Test func severalListsAreOneListOrEachAskedApartAndBothAgreeWithTheOracle() throws {
        let runner = try runner([BlockBenchEngine()])
        for apart in [false, true] {
            let definition = BenchmarkDefinition(
                name: "pair", lists: ["kablock", "ddg-tds-reference"], apart: apart, requests: "adblock-rust-requests", model: .match,
                engines: ["blockbench"], samples: ["blockbench": 300], runs: 1, warmupRuns: 0)
            let result = try runner.run(definition)
            let engine = try #require(result.engines.first)
            #expect(engine.status == .ok, "apart: \(apart): \(engine.message ?? "")")
            #expect(engine.answers == engine.oracleAnswers)
            #expect(result.ruleCount == 555 + 127)
            #expect(result.rules == "kablock+ddg-tds-reference")
        }
        let compile = try runner.run(BenchmarkDefinition(
            name: "pair-compile", lists: ["kablock", "ddg-tds-reference"], apart: true, model: .compile, engines: ["blockbench"], runs: 1,
            warmupRuns: 0))
        #expect(compile.engines.first?.status == .ok)
        #expect(compile.engines.first?.sections?.contains { $0.name.hasPrefix("ddg-tds-reference ") } == true)
    }

    @Test func definitionsNameOneListOrSeveral() throws {
        let decoder = JSONDecoder()
        let one = try decoder.decode(BenchmarkDefinition.self, from: Data(#"{"rules": "kablock", "model": "compile", "engines": ["blockbench"]}"#.utf8))
        #expect(one.lists == ["kablock"] && !one.apart && one.rules == "kablock")
        let two = try decoder.decode(
            BenchmarkDefinition.self,
            from: Data(#"{"rules": ["easylist", "easyprivacy"], "apart": true, "model": "compile", "engines": ["blockbench"]}"#.utf8))
        #expect(two.lists == ["easylist", "easyprivacy"] && two.apart && two.rules == "easylist+easyprivacy")
        #expect(two.problems(engines: ["blockbench"]).isEmpty)
        let lonely = BenchmarkDefinition(name: "x", lists: ["kablock"], apart: true, model: .compile, engines: ["blockbench"])
        #expect(lonely.problems(engines: ["blockbench"]).contains { $0.contains("fewer than two lists") })
        let again = try decoder.decode(BenchmarkDefinition.self, from: try JSONEncoder().encode(two))
        #expect(again == two)
    }

    @Test func concatenatedListsKeepEveryRuleInOrder() {
        let joined = BenchmarkRunner.concatenatedJSON([Array("[1, 2]".utf8), Array(" [ ] ".utf8), Array("\n[3]\n".utf8)])
        #expect(String(decoding: joined, as: UTF8.self) == "[1, 2,3]")
    }

    @Test func theManifestLinksEachFilterTextToItsSafariList() throws {
        let manifest = try CorpusManifest.load(root: repositoryRoot + "/Corpora")
        let texts = manifest.entries(ofKind: "rules-abp")
        #expect(Set(texts.compactMap(\.safariList)) == ["easylist", "easyprivacy"])
        for entry in texts {
            #expect(manifest.entries(ofKind: "rules").contains { $0.name == entry.safariList })
            let text = try CorpusFiles.read(manifest.path(of: entry))
            let filters = String(decoding: text, as: UTF8.self).split(whereSeparator: \.isNewline)
                .filter { !$0.hasPrefix("!") && !$0.hasPrefix("[") && !$0.allSatisfy(\.isWhitespace) }
            #expect(filters.count == entry.rows, "\(entry.name)")
        }
    }
}
