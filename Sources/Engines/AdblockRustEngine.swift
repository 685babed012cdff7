// AdblockRustEngine.swift — Engines
//
// adblock-rust (Brave's engine; the PyPI package `adblock`) as a peer engine: measured beside
// BlockBench, never conformed. It reads Adblock Plus filter syntax, not Safari JSON, so it builds
// from the ABP text each Safari list was converted from (`BenchList.abpTexts`, the manifest's
// `rules-abp` entries) and its answers follow that syntax's rules: they are not compared with the
// oracle's; the runner counts how often its block verdicts agree with BlockBench's.
//
// It runs in a child process, Benchmarks/Peers/AdblockRust/adblock_peer.py, that lives as long as the
// engine and speaks one JSON object a line (the protocol is at the top of the script):
//   build  one engine per list name from that list's ABP texts; the child times the build itself
//          (`CompileRun.ownSeconds`), the runner's clock gives the end-to-end time beside it;
//   match  a batch of requests (url, page URL, webRequest type) put to one or more engines, each
//          request timed inside the child, so the pipe and the JSON are not counted;
//   resident  the engines serialized and loaded by a fresh Python process of the child's, its
//          resident memory before and after (ResidentAfterLoad.swift).
// Without Python or the package the engine is `unavailable` ("not run: pip install adblock") and
// the benchmarks go on without it.
//
// Tested by Tests/HarnessTests/AdblockRustEngineTests.swift.

import RequestContext
public import ContentRuleList
internal import Foundation

public final class AdblockRustEngine: BenchEngine, ResidentLoadMeasuring {
    public let name = "adblock-rust"
    public let about: String
    public let models: Set<BenchmarkModel> = [.compile, .match]
    public let unavailable: String?
    public var conformed: Bool { false }
    /// The package's version as the child reports it ("not installed" without it).
    public let version: String
    /// Requests per `match` line.
    public var batchSize = 1000
    /// The version `.ci/setup` installs.
    public static let pinnedVersion = "0.6.0"

    private let python: String
    private let script: String
    private let child: LineChild
    /// The lists built in the child, by name.
    private var built: Set<String> = []
    /// The clock's own share of each request time, as the child measured it (nanoseconds).
    public private(set) var timerNanoseconds: Double?

    /// `folder` holds adblock_peer.py; `python` is the interpreter that runs it.
    public init(folder: String = "Benchmarks/Peers/AdblockRust", python: String = "python3") {
        self.python = python
        script = folder + "/adblock_peer.py"
        child = LineChild(name: "adblock_peer.py", executable: "/usr/bin/env", arguments: [python, script])
        let probe = Self.probe(python: python, script: script)
        version = probe.version ?? "not installed"
        unavailable = probe.unavailable
        about = "adblock-rust (PyPI adblock \(version)) over the lists' Adblock Plus text, through \(script) in a separate process; "
            + "a peer: measured, not conformed"
    }

    /// Runs `script --version`: the package's version, or why the engine cannot run.
    package static func probe(python: String, script: String) -> (version: String?, unavailable: String?) {
        guard FileManager.default.fileExists(atPath: script) else { return (nil, "not run: \(script) is missing") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, script, "--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return (nil, "not run: \(python) cannot be started (\(error))") }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        process.waitUntilExit()
        switch process.terminationStatus {
        case 0: return (text, nil)
        case 3: return (nil, "not run: pip install adblock==\(pinnedVersion) (the adblock package is missing for \(python))")
        case 127: return (nil, "not run: no \(python) (install Python 3, then pip install adblock==\(pinnedVersion))")
        default: return (nil, "not run: \(python) \(script) --version exited \(process.terminationStatus)")
        }
    }

    // MARK: The engine

    public func compile(_ list: BenchList) throws -> CompileRun {
        guard let texts = list.abpTexts, !texts.isEmpty else {
            throw BenchEngineError.externalEngine(
                "no Adblock Plus text for \(list.name) (a `rules-abp` entry of the manifest whose safariList names it)")
        }
        let answer = try ask(["op": "build", "engine": list.name, "lists": texts.map { Data($0).base64EncodedString() }])
        guard let seconds = answer["seconds"] as? Double, let bytes = (answer["bytes"] as? NSNumber)?.intValue else {
            throw BenchEngineError.externalEngine("adblock_peer.py answered a build without its figures")
        }
        built.insert(list.name)
        var run = CompileRun()
        run.ownSeconds = seconds
        run.phases = [Figure("build (in the child)", seconds)]
        run.bytes = bytes
        run.sections = [Figure("serialized engine", Double(bytes))]
        run.counters = [Figure("filter lists", Double(texts.count))]
        run.ownMemoryGrowthBytes = (answer["rssGrowthBytes"] as? NSNumber)?.intValue
        return run
    }

    public func matcher(for list: BenchList) throws -> any BenchMatcher {
        try jointMatcher(for: [list])!
    }

    public func jointMatcher(for lists: [BenchList]) throws -> (any BenchMatcher)? {
        for list in lists where !built.contains(list.name) { _ = try compile(list) }
        return Matcher(engine: self, names: lists.map(\.name))
    }

    /// The engines built for `lists`, serialized and loaded in a fresh process: its resident memory.
    public func residentAfterLoad(_ lists: [BenchList]) throws -> ResidentAfterLoad {
        for list in lists where !built.contains(list.name) { _ = try compile(list) }
        let answer = try ask(["op": "resident", "engines": lists.map(\.name)])
        func bytes(_ key: String) throws -> Int {
            guard let value = (answer[key] as? NSNumber)?.intValue else {
                throw BenchEngineError.externalEngine("adblock_peer.py answered `resident` without \(key)")
            }
            return value
        }
        return ResidentAfterLoad(
            loadedBytes: try bytes("loadedBytes"), residentBefore: try bytes("residentBefore"), residentAfter: try bytes("residentAfter"),
            anonymousBefore: try bytes("anonymousBefore"), anonymousAfter: try bytes("anonymousAfter"))
    }

    /// The verdicts of the engines built as `names` on `requests`, asked `batchSize` at a time.
    func verdicts(_ requests: [Request], engines names: [String]) throws -> [TimedVerdict] {
        var verdicts: [TimedVerdict] = []
        verdicts.reserveCapacity(requests.count)
        var start = 0
        while start < requests.count {
            let batch = requests[start..<min(requests.count, start + max(1, batchSize))]
            let rows = batch.map { [$0.url.string, $0.mainDocumentURL.string, Self.requestType($0.resourceType)] }
            let answer = try ask(["op": "match", "engines": names, "requests": rows])
            guard let blocked = answer["blocked"] as? [NSNumber], let times = answer["nanoseconds"] as? [NSNumber],
                blocked.count == batch.count, times.count == batch.count
            else {
                throw BenchEngineError.externalEngine("adblock_peer.py answered a batch of \(batch.count) requests with another count")
            }
            for (block, time) in zip(blocked, times) {
                verdicts.append(TimedVerdict(blocked: block.intValue != 0, nanoseconds: time.uint64Value))
            }
            start += batch.count
        }
        return verdicts
    }

    /// The webRequest type adblock-rust reads for a request's resource type (the inverse of the
    /// request sets' mapping, Corpora/README.md; types adblock-rust has no name for are "other").
    public static func requestType(_ type: ResourceTypes) -> String {
        switch type {
        case .topDocument: "main_frame"
        case .childDocument: "sub_frame"
        case .image: "image"
        case .styleSheet: "stylesheet"
        case .script: "script"
        case .font: "font"
        case .media: "media"
        case .ping: "ping"
        case .fetch: "xmlhttprequest"
        case .websocket: "websocket"
        case .cspReport: "csp_report"
        default: "other"
        }
    }

    final class Matcher: SelfTimedMatcher {
        let engine: AdblockRustEngine
        let names: [String]

        init(engine: AdblockRustEngine, names: [String]) {
            self.engine = engine
            self.names = names
        }

        func verdicts(_ requests: [Request]) throws -> [TimedVerdict] { try engine.verdicts(requests, engines: names) }

        func outcome(for request: Request) throws -> MatchOutcome {
            let blocked = try verdicts([request])[0].blocked
            return MatchOutcome(actions: blocked ? [.block] : [], matchingRules: [], appliesGlobalStyleSheet: true)
        }

        var counters: [Figure] { [] }
    }

    // MARK: The child

    /// Sends one command and returns its answer; an answer with `ok` false is an error.
    func ask(_ command: [String: Any]) throws -> [String: Any] {
        if let unavailable { throw BenchEngineError.externalEngine(unavailable) }
        if try child.start() {
            // A new child has built nothing; it tells its clock's cost first.
            built = []
            let hello = try ask(["op": "hello"])
            timerNanoseconds = (hello["timerNanoseconds"] as? NSNumber)?.doubleValue
        }
        let text = try child.exchange(Array(try JSONSerialization.data(withJSONObject: command)))
        guard let answer = (try? JSONSerialization.jsonObject(with: Data(text))) as? [String: Any] else {
            throw BenchEngineError.externalEngine("adblock_peer.py answered something unreadable: \(String(decoding: text.prefix(200), as: UTF8.self))")
        }
        guard answer["ok"] as? Bool == true else {
            throw BenchEngineError.externalEngine("adblock_peer.py: \(answer["error"] as? String ?? "failed")")
        }
        return answer
    }
}
