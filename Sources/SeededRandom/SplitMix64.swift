// SplitMix64.swift — SeededRandom
//
// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014): the
// one seeded generator of the fuzzer (FuzzRandom), the hostile cases, the dialect combinations and
// the tests that generate their cases, so a seed gives the same draws on every machine and Swift
// version (the standard library's `random(in:using:)` may change its algorithm: callers reduce
// `next()` themselves).
// Tested by FuzzingTests (DeterminismTests pins its first outputs).

/// SplitMix64: a small, fixed generator of 64-bit numbers from a seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
