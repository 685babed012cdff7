// Measurements.swift — Harness
//
// The instruments: a monotonic nanosecond clock, the process's peak memory (Linux: VmHWM, reset
// through /proc/self/clear_refs so each compile gets its own peak), latency histograms
// (HdrHistogram: 3 significant digits from 1 ns to an hour) and the summaries the tables print.

internal import Foundation
internal import Histogram

/// Nanoseconds on the monotonic clock.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}

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

/// Request latencies of one engine on one benchmark (every measured run merged).
public struct LatencyHistogram: Sendable {
    private(set) var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000_000, numberOfSignificantValueDigits: .three)

    public init() {}

    mutating func record(nanoseconds: UInt64) {
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
func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    return sorted[(sorted.count - 1) / 2]
}

/// Human-readable figures for the tables.
public enum Figures {
    public static func duration(nanoseconds: Double) -> String {
        switch nanoseconds {
        case ..<1_000: String(format: "%.0f ns", nanoseconds)
        case ..<10_000: String(format: "%.2f µs", nanoseconds / 1e3)
        case ..<1_000_000: String(format: "%.1f µs", nanoseconds / 1e3)
        case ..<10_000_000: String(format: "%.2f ms", nanoseconds / 1e6)
        case ..<1_000_000_000: String(format: "%.1f ms", nanoseconds / 1e6)
        default: String(format: "%.2f s", nanoseconds / 1e9)
        }
    }

    public static func duration(seconds: Double) -> String { duration(nanoseconds: seconds * 1e9) }

    public static func bytes(_ bytes: Int) -> String {
        let value = Double(bytes)
        switch value {
        case ..<10_000: return "\(bytes) B"
        case ..<10_000_000: return String(format: "%.1f KB", value / 1e3)
        default: return String(format: "%.1f MB", value / 1e6)
        }
    }

    public static func ratio(_ ratio: Double) -> String {
        switch ratio {
        case ..<10: String(format: "%.2fx", ratio)
        case ..<100: String(format: "%.1fx", ratio)
        default: String(format: "%.0fx", ratio)
        }
    }

    public static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        return (value < 0 ? "-" : "") + grouped
    }
}
