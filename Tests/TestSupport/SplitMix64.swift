// SplitMix64.swift — TestSupport: the generator of the tests that generate their cases (Steele,
// Lea and Flood 2014), so that every run of a test sees the same cases.

/// SplitMix64: a small, fixed generator of 64-bit numbers from a seed.
public struct SplitMix64: RandomNumberGenerator {
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
