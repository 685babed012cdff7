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
internal import Foundation

public final class AdblockRustEngine: PeerEngine, ResidentLoadMeasuring {
    public let name = "adblock-rust"
    public let about: String
    public let models: Set<BenchmarkModel> = [.compile, .match]
    public let unavailable: String?
    /// The package's version as the child reports it ("not installed" without it).
    public let version: String
    /// The version `.ci/setup` installs.
    public static let pinnedVersion = "0.6.0"

    let child: PeerChild

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

    /// Runs `script --version` (once per process): the package's version, or why the engine cannot run.
    package static func probe(python: String, script: String) -> (version: String?, unavailable: String?) {
        PeerChild.version([python, script], script: script) { status, _ in
            switch status {
            case 3: "not run: pip install adblock==\(pinnedVersion) (the adblock package is missing for \(python))"
            case 127: "not run: no \(python) (install Python 3, then pip install adblock==\(pinnedVersion))"
            default: nil
            }
        }
    }

    /// The package's version for python3, as reports record it ("not installed").
    package static func installedVersion() -> String {
        probe(python: "python3", script: "Benchmarks/Peers/AdblockRust/adblock_peer.py").version ?? "not installed"
    }

    // MARK: The engine

    public func compile(_ list: BenchList) throws -> CompileRun {
        try build(list, serialized: "serialized engine").run
    }
}
