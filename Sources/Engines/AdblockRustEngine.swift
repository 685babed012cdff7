// AdblockRustEngine.swift — Engines
//
// adblock-rust (Brave's engine; the PyPI package `adblock`) as a peer engine: measured beside
// BlockBench, never conformed. It reads Adblock Plus filter syntax, not Safari JSON, so it builds
// from the ABP text each Safari list was converted from (`BenchList.abpTexts`, the manifest's
// `rules-abp` entries) and its answers follow that syntax's rules: they are not compared with the
// oracle's; the runner counts how often its block verdicts agree with BlockBench's.
//
// It runs in a child process, Benchmarks/Peers/AdblockRust/adblock_peer.py, that lives as long as the
// engine and speaks the peers' line protocol (PeerChild.swift; the protocol is at the top of the
// script): `build` makes one engine per list name from that list's ABP texts, timed by the child
// (`CompileRun.ownSeconds`; the runner's clock gives the end-to-end time beside it), `match` asks
// batches of requests, each timed inside the child, and `resident` has a fresh Python process of
// the child's load the engines serialized, its resident memory before and after
// (ResidentAfterLoad.swift).
// Without Python or the package the engine is `unavailable` ("not run: pip install adblock") and
// the benchmarks go on without it.
//
// Tested by Tests/EnginesTests/AdblockRustEngineTests.swift.

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
    public var batchSize: Int {
        get { child.batchSize }
        set { child.batchSize = newValue }
    }
    /// The version `.ci/setup` installs.
    public static let pinnedVersion = "0.6.0"

    private let child: PeerChild
    /// The clock's own share of each request time, as the child measured it (nanoseconds).
    public var timerNanoseconds: Double? { child.timerNanoseconds }

    /// `folder` holds adblock_peer.py; `python` is the interpreter that runs it.
    public init(folder: String = "Benchmarks/Peers/AdblockRust", python: String = "python3") {
        let script = folder + "/adblock_peer.py"
        let probe = Self.probe(python: python, script: script)
        version = probe.version ?? "not installed"
        unavailable = probe.unavailable
        child = PeerChild(name: "adblock_peer.py", executable: "/usr/bin/env", arguments: [python, script], unavailable: unavailable)
        about = "adblock-rust (PyPI adblock \(version)) over the lists' Adblock Plus text, through \(script) in a separate process; "
            + "a peer: measured, not conformed"
    }

    /// Runs `script --version`: the package's version, or why the engine cannot run.
    package static func probe(python: String, script: String) -> (version: String?, unavailable: String?) {
        guard FileManager.default.fileExists(atPath: script) else { return (nil, "not run: \(script) is missing") }
        let run = PeerChild.probe([python, script, "--version"])
        switch run.status {
        case nil: return (nil, "not run: \(python) cannot be started (\(run.output))")
        case 0: return (run.output, nil)
        case 3: return (nil, "not run: pip install adblock==\(pinnedVersion) (the adblock package is missing for \(python))")
        case 127: return (nil, "not run: no \(python) (install Python 3, then pip install adblock==\(pinnedVersion))")
        case let status?: return (nil, "not run: \(python) \(script) --version exited \(status)")
        }
    }

    // MARK: The engine

    public func compile(_ list: BenchList) throws -> CompileRun {
        let answer = try child.build(list)
        guard let seconds = answer["seconds"] as? Double, let bytes = (answer["bytes"] as? NSNumber)?.intValue else {
            throw BenchEngineError.externalEngine("adblock_peer.py answered a build without its figures")
        }
        var run = CompileRun()
        run.ownSeconds = seconds
        run.phases = [Figure("build (in the child)", seconds)]
        run.bytes = bytes
        run.sections = [Figure("serialized engine", Double(bytes))]
        run.counters = [Figure("filter lists", Double(list.abpTexts?.count ?? 0))]
        run.ownMemoryGrowthBytes = (answer["rssGrowthBytes"] as? NSNumber)?.intValue
        return run
    }

    public func matcher(for list: BenchList) throws -> any BenchMatcher {
        try jointMatcher(for: [list])!
    }

    public func jointMatcher(for lists: [BenchList]) throws -> (any BenchMatcher)? {
        for list in lists where !child.built.contains(list.name) { _ = try compile(list) }
        return PeerMatcher(child: child, names: lists.map(\.name))
    }

    /// Sends one command to the child and returns its answer (PeerChild.ask).
    func ask(_ command: [String: Any]) throws -> [String: Any] { try child.ask(command) }

    /// The engines built for `lists`, serialized and loaded in a fresh process: its resident memory.
    public func residentAfterLoad(_ lists: [BenchList]) throws -> ResidentAfterLoad {
        for list in lists where !child.built.contains(list.name) { _ = try compile(list) }
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
}
