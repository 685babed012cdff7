// UBlockOriginEngineTests.swift — the uBlock Origin peer: its child's line protocol (build with
// its figures, load, match in batches with per-request times, several engines asked together,
// resident memory after load in a fresh process, errors), and the missing-package path (reported as not run, never a failure).
//
// The protocol tests need a Node.js 20.19 or later (the one NodeLookup finds) and Debian's package
// webext-ublock-origin-firefox (`.ci/setup` installs both when missing); where either is absent
// they are skipped, and the skip says so. The others run everywhere.

import Testing
import Foundation
@testable import Benchmarks
@testable import Engines
import RequestContext
import TestSupport

private let folder = repositoryRoot + "/Benchmarks/Peers/UBlockOrigin"

/// Where Node and uBO's files are; the protocol tests are skipped elsewhere.
private let whenInstalled = whenRunnable(
    UBlockOriginEngine(folder: folder), install: "Node.js 20.19 or later, and apt-get install \(UBlockOriginEngine.package)")

@Suite struct UBlockOriginEngineTests {
    @Test(whenInstalled)
    func buildsFromFilterTextAndAnswersBatchesWithTheirOwnTimes() throws {
        let engine = UBlockOriginEngine(folder: folder)
        engine.batchSize = 2
        let ads = filterList("ads", ["||ads.example^\n@@||ads.example/allowed/*\n##.banner\n", "/tracker.js$script\n||strict.example^$important\n@@||strict.example^\n"])
        let run = try engine.compile(ads)
        #expect(run.ownSeconds != nil && run.ownSeconds! > 0)
        #expect(run.bytes > 0)
        #expect(run.ownHeapGrowthBytes != nil)
        #expect(run.counters.first { $0.name == "filter lists" }?.value == 2)
        // The cosmetic filter is not a network filter.
        #expect(run.counters.first { $0.name == "network filters" }?.value == 5)
        #expect(try engine.loadSeconds(ads) ?? 0 > 0)
        // Six requests in batches of two: three lines, answers in order, after the selfie's load too.
        let requests = adsRequests + [peerRequest("https://strict.example/x.js")]
        try expectTimedVerdicts(engine, try engine.matcher(for: ads), requests, blocked: [true, false, true, false, false, true])
    }

    @Test(whenInstalled)
    func aJointMatcherAsksEveryListAndBlocksWhenOneDoes() throws {
        let engine = UBlockOriginEngine(folder: folder)
        let first = filterList("first", ["||ads.example^\n"])
        let second = filterList("second", ["||track.example^\n@@||ads.example^\n"])
        let joint = try #require(try engine.jointMatcher(for: [first, second]) as? any SelfTimedMatcher)
        // Each list is an engine of its own: the second's exception does not undo the first's block.
        let verdicts = try joint.verdicts([
            peerRequest("https://ads.example/a.js"), peerRequest("https://track.example/p.gif", type: .image), peerRequest("https://ok.example/"),
        ])
        #expect(verdicts.map(\.blocked) == [true, true, false])
        let alone = try #require(try engine.matcher(for: second) as? any SelfTimedMatcher)
        #expect(try alone.verdicts([peerRequest("https://ads.example/a.js")]).map(\.blocked) == [false])
    }

    @Test(whenInstalled)
    func aFreshProcessReadsTheSelfiesBackAndSaysWhatItHolds() throws {
        // What was loaded is the two selfies.
        let engine = UBlockOriginEngine(folder: folder)
        try expectResidentAfterLoad(engine)
        #expect(throws: BenchEngineError.self) { try engine.ask(["op": "resident", "engines": ["never-built"]]) }
    }

    @Test(whenInstalled)
    func theChildReportsBadCommandsAndStaysUp() throws {
        let engine = UBlockOriginEngine(folder: folder)
        #expect(throws: BenchEngineError.self) { try engine.ask(["op": "sprint"]) }
        #expect(throws: BenchEngineError.self) { try engine.ask(["op": "match", "engines": ["never-built"], "requests": [["https://a.example/", "", "script"]]]) }
        #expect(throws: BenchEngineError.self) { try engine.ask(["op": "load", "engine": "never-built"]) }
        #expect(try engine.ask(["op": "hello"])["ublock"] as? String == engine.version)
        #expect(throws: BenchEngineError.self) { try engine.compile(BenchList(name: "no-text", json: Array("[]".utf8))) }
    }

    @Test func withoutThePackageTheEngineIsNotRunAndNothingFails() throws {
        let engine = UBlockOriginEngine(folder: folder, root: NSTemporaryDirectory() + "no-ublock-origin-here")
        let reason = try #require(engine.unavailable)
        if PeerChild.probe(["node", "--version"]).status == 0 {
            // With Node here the child itself says which package is missing.
            #expect(reason.hasPrefix("not run: apt-get install webext-ublock-origin-firefox"))
        } else {
            #expect(reason.hasPrefix("not run:"))
        }
        try expectNotRunBesideBlockBench(engine, tableSays: "ublock-origin: not run:")
    }

    @Test func withoutNodeTheEngineIsNotRunEither() {
        let engine = UBlockOriginEngine(folder: folder, node: "no-such-node-for-blockbench")
        #expect(engine.unavailable?.hasPrefix("not run: no no-such-node-for-blockbench") == true)
        #expect(throws: BenchEngineError.self) { try engine.compile(filterList("x", ["||a.example^"])) }
    }

    @Test func aDialectIsRefusedForEveryEngineThatReadsFilterText() {
        var definition = BenchmarkDefinition(name: "x", rules: "easylist", model: .compile, engines: ["blockbench", "ublock-origin"])
        definition.dialect = "webkit-dnr"
        #expect(definition.problems(engines: ["blockbench", "ublock-origin"]).contains { $0.contains("ublock-origin") })
    }
}
