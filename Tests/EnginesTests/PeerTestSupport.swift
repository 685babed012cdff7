// PeerTestSupport.swift — what the peers' tests share (AdblockRustEngineTests,
// UBlockOriginEngineTests): the trait that skips a protocol test where the peer cannot run, saying
// what to install; a request with its page and type; a list of filter texts; the requests both ask
// of an ads list, the checks of a matcher's timed answers and of the memory a load added; the benchmark that shows a peer
// that cannot run listed as not run beside BlockBench, nothing failing; and a python3 that looks in
// a folder of the test's first (NodeLookupTests too).

import Testing
import Foundation
import ContentRuleList
@testable import Benchmarks
@testable import Corpus
@testable import Engines
@testable import Reports
import RequestContext
import TestSupport

/// Runs the test only where `engine` can run; the skip names what to install.
func whenRunnable(_ engine: any BenchEngine, install: String) -> ConditionTrait {
    let runnable = engine.unavailable == nil
    return .enabled(if: runnable, Comment(rawValue: "skipped: \(engine.name) cannot run here (\(install))"))
}

func peerRequest(_ url: String, page: String = "https://news.example/", type: ResourceTypes = .script) -> Request {
    Request(url: CanonicalURL(url), mainDocumentURL: CanonicalURL(page), frameURL: CanonicalURL(page), resourceType: type, isMainFrameContext: true)
}

/// A list of `texts` as Adblock Plus filter text (its JSON empty).
func filterList(_ name: String, _ texts: [String]) -> BenchList {
    BenchList(name: name, json: Array("[]".utf8), abpTexts: texts.map { Array($0.utf8) })
}

/// Requests for a list that blocks ads.example, allows ads.example/allowed/ and blocks /tracker.js
/// as a script: blocked, allowed, blocked, not a script, matched by nothing.
let adsRequests = [
    peerRequest("https://ads.example/banner.js"),
    peerRequest("https://ads.example/allowed/banner.js"),
    peerRequest("https://cdn.example/tracker.js"),
    peerRequest("https://cdn.example/tracker.js", type: .image),
    peerRequest("https://cdn.example/app.js"),
]

/// `engine`'s `matcher` asked about `requests` (the first blocked, the second not): its answers
/// in order are `blocked`, each timed by the child, and its outcomes read the same.
func expectTimedVerdicts(
    _ engine: any PeerEngine, _ matcher: any BenchMatcher, _ requests: [Request], blocked: [Bool],
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let matcher = try #require(matcher as? any SelfTimedMatcher, sourceLocation: sourceLocation)
    let verdicts = try matcher.verdicts(requests)
    #expect(verdicts.map(\.blocked) == blocked, sourceLocation: sourceLocation)
    #expect(verdicts.allSatisfy { $0.nanoseconds > 0 }, sourceLocation: sourceLocation)
    #expect(try matcher.outcome(for: requests[0]).actions == [.block], sourceLocation: sourceLocation)
    #expect(try matcher.outcome(for: requests[1]).actions.isEmpty, sourceLocation: sourceLocation)
    #expect(engine.timerNanoseconds != nil, sourceLocation: sourceLocation)
}

/// `engine` built two lists and loaded them in a fresh process: what it loaded is the bytes its
/// builds gave, its memory read from /proc before and after, and no held figure (BlockBench's).
func expectResidentAfterLoad(_ engine: any PeerEngine, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let first = filterList("first", ["||ads.example^\n"])
    let second = filterList("second", ["||track.example^\n/banner.js$script\n"])
    let bytes = try engine.compile(first).bytes + engine.compile(second).bytes
    let figures = try engine.residentAfterLoad([first, second])
    #expect(figures.loadedBytes == bytes, sourceLocation: sourceLocation)
    #expect(figures.residentBefore >= figures.anonymousBefore && figures.anonymousBefore > 0, sourceLocation: sourceLocation)
    #expect(figures.residentAfter >= figures.anonymousAfter && figures.anonymousAfter > 0, sourceLocation: sourceLocation)
    #expect(figures.held == nil, sourceLocation: sourceLocation)
}

/// A match benchmark of BlockBench beside `engine`, which cannot run here: BlockBench runs, the
/// engine is listed as not run with its reason (`tableSays` in the table), and the run passes.
func expectNotRunBesideBlockBench(_ engine: any BenchEngine, tableSays: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let manifest = try CorpusManifest.load(root: repositoryRoot + "/Corpora")
    let definition = BenchmarkDefinition(
        name: "peer-missing", rules: "kablock", requests: "adblock-rust-regressions", model: .match, engines: ["blockbench", engine.name],
        runs: 1, warmupRuns: 0)
    let result = try BenchmarkRunner(manifest: manifest, engines: [BlockBenchEngine(), engine]).run(definition)
    #expect(result.engines.map(\.status) == [.ok, .unavailable], sourceLocation: sourceLocation)
    #expect(result.passed, sourceLocation: sourceLocation)
    #expect(ResultTable(result).text.contains(tableSays), sourceLocation: sourceLocation)
}

/// A python3 that finds modules in a new scratch folder before its own path: the wrapper (in that
/// folder) and the folder, named after `label`.
func python3WithScratchPath(_ label: String) throws -> (python: String, folder: String) {
    let folder = NSTemporaryDirectory() + "blockbench-\(label)-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let python = folder + "/python3"
    try "#!/bin/sh\nPYTHONPATH='\(folder)' exec python3 \"$@\"\n".write(toFile: python, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: python)
    return (python, folder)
}
