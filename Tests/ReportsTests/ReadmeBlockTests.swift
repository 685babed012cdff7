// ReadmeBlockTests.swift — ReportsTests: the README's figures block (Sources/Reports/ReadmeFigures.swift)
// of a report where the peers ran: their columns titled as peers, their versions and the Node that
// ran uBlock Origin in the block's first line, the commands that reproduce it, and the resident
// memory each engine's load added beside BlockBench's, from the report's figures alone.
// (Writing the block into a README: BlockBenchCLITests/ReadmeFiguresTests.swift.)

import Foundation
import Testing
@testable import Benchmarks
@testable import Engines
@testable import Reports
import TestSupport

@Suite struct ReadmeBlockTests {
    /// An engine that answered the requests, its median `nanoseconds` (and its 99th percentile
    /// `p99`: one request in twenty that long), and its load's figures.
    static func engine(
        _ name: String, nanoseconds: UInt64, p99: UInt64? = nil, peer: Bool = false, loaded: Int? = nil, growth: Int = 0
    ) -> EngineResult {
        var result = EngineResult(engine: name, status: .ok)
        var histogram = LatencyHistogram()
        for request in 0..<100 { histogram.record(nanoseconds: request % 20 == 19 ? p99 ?? nanoseconds : nanoseconds) }
        result.latency = LatencySummary(histogram)
        result.peer = peer ? true : nil
        result.residentAfterLoad = loaded.map {
            ResidentAfterLoad(
                loadedBytes: $0, residentBefore: 50_000_000, residentAfter: 50_000_000 + growth + 1_000_000, anonymousBefore: 20_000_000,
                anonymousAfter: 20_000_000 + growth)
        }
        return result
    }

    static let meta = ReportMeta(
        date: "2026-11-29T06:00:00Z", revision: "abcdef0123", command: "blockbench report", machine: "test CPU", cores: 2, memoryGiB: 24,
        os: "Debian", toolchain: "Swift", pcre2: "10.42", webkit: "not installed", adblockRust: "0.6.0", ublockOrigin: "1.67.0",
        ublockOriginNode: "v20.20.2 (/usr/bin/node)")

    @Test func peersStandBesideBlockBenchWithTheirMemoryAfterLoad() {
        let results = [
            BenchmarkResult(
                name: "match-pair", model: .match, rules: "easylist+easyprivacy", ruleCount: 112_805, requests: "adblock-rust-requests",
                requestCount: 8276,
                engines: [
                    Self.engine("blockbench", nanoseconds: 500, p99: 4000, loaded: 4_000_000, growth: 4_400_000),
                    Self.engine("adblock-rust", nanoseconds: 3000, p99: 20_000, peer: true, loaded: 7_000_000, growth: 22_000_000),
                    Self.engine("ublock-origin", nanoseconds: 2000, p99: 12_000, peer: true, loaded: 4_000_000, growth: 15_400_000),
                ]),
            // The same lists against other requests: their memory is given once.
            BenchmarkResult(
                name: "match-pair-top", model: .match, rules: "easylist+easyprivacy", ruleCount: 112_805, requests: "top500",
                requestCount: 10, engines: [Self.engine("blockbench", nanoseconds: 400, loaded: 4_000_000, growth: 1)]),
        ]
        let block = ReadmeFigures.block(Report(meta: Self.meta, benchmarks: results), link: "Reports/readme-results.json")
        #expect(block.contains("Peers: adblock-rust (PyPI adblock) 0.6.0; uBlock Origin 1.67.0 under Node.js v20.20.2 (/usr/bin/node)."))
        #expect(block.contains("`swift run -c release blockbench report`, then `swift run -c release blockbench report --readme --from"))
        #expect(block.contains("| match per request: median, p99 | requests | BlockBench | adblock-rust (peer) | uBlock Origin (peer) |"))
        // The median's ratio to BlockBench's, then the p99's.
        #expect(block.contains(
            "| easylist+easyprivacy × adblock-rust-requests | 8,276 | 500 ns, p99 4.00 µs | 3.00 µs, p99 20.0 µs (6.00x, 5.00x) | 2.00 µs, p99 12.0 µs (4.00x, 3.00x) |"))
        // Growth over the bytes loaded, then over BlockBench's growth.
        #expect(block.contains("| easylist+easyprivacy | 4400.0 KB, 1.10x loaded | 22.0 MB, 3.14x loaded (5.00x) | 15.4 MB, 3.85x loaded (3.50x) |"))
        #expect(block.components(separatedBy: "| easylist+easyprivacy |").count == 2)
        #expect(block.hasSuffix(ReadmeFigures.endMarker))
    }

    @Test func withoutPeersOrMemoryTheBlockSaysNothingOfThem() {
        let results = [
            BenchmarkResult(
                name: "match-kablock", model: .match, rules: "kablock", ruleCount: 555, requests: "r", requestCount: 5,
                engines: [Self.engine("blockbench", nanoseconds: 300), Self.engine("pcre2", nanoseconds: 3000)])
        ]
        let block = ReadmeFigures.block(Report(meta: Self.meta, benchmarks: results), link: "x.json")
        #expect(!block.contains("Peers:") && !block.contains("(peer)") && !block.contains("resident memory"))
        #expect(block.contains("| kablock × r | 5 | 300 ns, p99 300 ns | 3.00 µs, p99 3.00 µs (10.0x, 10.0x) |"))
    }
}
