// Measurements.swift — Benchmarks
//
// The instruments: a monotonic nanosecond clock, the process's peak memory (Linux: VmHWM, reset
// through /proc/self/clear_refs so each compile gets its own peak), `blockbench compile`'s peak
// memory in a process of its own (as it reports it) and a fresh process's resident memory after
// loading compiled files (`blockbench load`), latency histograms
// (HdrHistogram: 3 significant digits from 1 ns to an hour) and the summaries the tables print.
// Tested by BenchmarksTests and GateTests (BenchTests: every timed run goes through them;
// CostGateTests).

internal import Foundation
internal import Histogram
public import Engines

/// The fastest of `rounds` timed passes (at least one), in nanoseconds; `pass` is told which
/// round it is (0 first), so it can count its work once.
public func fastestPass(rounds: Int, _ pass: (_ round: Int) -> Void) -> UInt64 {
    var best = UInt64.max
    for round in 0..<max(1, rounds) {
        let started = monotonicNanoseconds()
        pass(round)
        best = min(best, monotonicNanoseconds() - started)
    }
    return best
}

/// Takes a measured loop's result where the optimizer cannot see: a result nobody reads would let
/// it remove the loop as dead code.
@inline(never) @_optimize(none)
public func consumeMeasured(_ value: Int) {}

/// The process's resident memory: its peak since the last `reset()` and now.
public enum PeakMemory {
    /// Starts a new peak at the current resident size. False where Linux's clear_refs is missing.
    @discardableResult
    public static func reset() -> Bool {
        guard let handle = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return false }
        defer { try? handle.close() }
        do {
            try handle.write(contentsOf: Data("5".utf8))
            return true
        } catch {
            return false
        }
    }

    /// (peak, current) resident bytes, from /proc/self/status.
    public static func read() -> (peak: Int, current: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        func kilobytes(_ field: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
        }
        guard let peak = kilobytes("VmHWM"), let current = kilobytes("VmRSS") else { return nil }
        return (peak * 1024, current * 1024)
    }
}

/// The peak resident memory of `blockbench compile` in a process of its own: what a user of the
/// command sees, whatever the measuring process has allocated before (memory growth inside one
/// process depends on what the allocator kept from earlier work). The child reports its own
/// VmHWM (`peakMemoryBytes` of `compile --json`): wait4's ru_maxrss would not do, as Linux keeps
/// the spawning process's high-water mark across the child's exec.
public enum OwnProcessMemory {
    /// Runs `compiler compile <rules> --json` and returns the peak it reports; nil when it fails.
    public static func peakOfCompile(_ compiler: String, rules: String) -> Int? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: compiler)
        process.arguments = ["compile", rules, "--json"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let figures = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return (figures["peakMemoryBytes"] as? NSNumber)?.intValue
    }

    /// Runs `executable load <files> --json` (ResidentAfterLoad.swift): a fresh process's resident
    /// memory before and after it loads the compiled files (their dense tables within
    /// `denseBudgetBytes`: `--dense-budget`; nil: the default).
    public static func residentAfterLoad(_ executable: String, files: [String], denseBudgetBytes: Int? = nil) throws -> ResidentAfterLoad {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["load"] + files + (denseBudgetBytes.map { ["--dense-budget", String($0)] } ?? []) + ["--json"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let figures = try? JSONDecoder().decode(ResidentAfterLoad.self, from: data) else {
            throw BenchEngineError.externalEngine("`\(executable) load … --json` exited \(process.terminationStatus) without its figures")
        }
        return figures
    }

    /// The running executable's path (Linux: /proc/self/exe).
    public static var currentExecutable: String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }
}

/// Request latencies of one engine on one benchmark (every measured run merged).
public struct LatencyHistogram: Sendable {
    private(set) var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000_000, numberOfSignificantValueDigits: .three)

    public init() {}

    public mutating func record(nanoseconds: UInt64) {
        _ = histogram.record(Swift.max(1, Swift.min(nanoseconds, 3_600_000_000_000)))
    }

    public var count: UInt64 { histogram.totalCount }

    public func percentile(_ percentile: Double) -> Double { Double(histogram.valueAtPercentile(percentile)) }

    public var max: Double { Double(histogram.max) }
    public var mean: Double { histogram.mean }

    /// Points of the percentile distribution for the charts: (percentile, nanoseconds), from the
    /// median out to the maximum, denser in the tail.
    public func distribution() -> [LatencyPoint] {
        let levels: [Double] = [0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 100]
        return levels.map { LatencyPoint(percentile: $0, nanoseconds: $0 == 100 ? max : percentile($0)) }
    }
}

public struct LatencyPoint: Codable, Hashable, Sendable {
    public var percentile: Double
    public var nanoseconds: Double
}

/// The median of a non-empty list (the lower middle one for an even count: always a measured value).
package func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[(sorted.count - 1) / 2]
}

/// The matching floor's unit: nanoseconds per byte of a plain table walk, one dense DFA of 64
/// states over the 128 ASCII bytes (16 KB of 16-bit targets: it stays in the first-level caches),
/// one table read per URL byte, over the URLs the engine is timed on. The floor of one request
/// (`EngineResult.floorNanoseconds`) is then (bytes the engine's DFA passes read) x this: what the
/// same walk would cost if every pass were a plain table walk over bytes in cache.
public enum TableWalk {
    /// The least of three measurements of at least 20 ms each.
    public static func nanosecondsPerByte(over urls: [[UInt8]]) -> Double {
        let states = 64
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        let table: [UInt16] = (0..<states * 128).map { _ in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt16(truncatingIfNeeded: (seed >> 33) % UInt64(states)) &* 128
        }
        let bytes = urls.reduce(0) { $0 + $1.count }
        guard bytes > 0 else { return 0 }
        var best = Double.infinity
        var sink = 0
        table.withUnsafeBufferPointer { table in
            for _ in 0..<3 {
                var walked = 0
                let started = monotonicNanoseconds()
                var elapsed: UInt64 = 0
                repeat {
                    for url in urls {
                        // Each walk starts where the last ended: one dependent chain, which the
                        // optimizer can neither hoist out of the repetition nor overlap.
                        var state = sink & (states - 1) &* 128
                        url.withUnsafeBufferPointer { url in
                            for byte in url { state = Int(table[state &+ Int(byte & 0x7F)]) }
                        }
                        sink = state / 128
                    }
                    walked += bytes
                    elapsed = monotonicNanoseconds() - started
                } while elapsed < 20_000_000
                best = min(best, Double(elapsed) / Double(walked))
            }
        }
        consumeMeasured(sink)
        return best
    }
}
