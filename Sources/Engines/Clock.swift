// Clock.swift — Engines
//
// The clocks every engine, the benchmarks and `blockbench profile` time with: the monotonic clock
// in nanoseconds, and a Duration in seconds.
// No test of its own: the clock every timed test reads.

internal import Foundation

/// Nanoseconds on the monotonic clock: every time the harness and `blockbench profile` measure.
@inline(__always)
public func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}

extension Duration {
    package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
