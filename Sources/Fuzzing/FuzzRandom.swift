// FuzzRandom.swift — Fuzzing
//
// The fuzzer's only source of choices. Two sources behind one interface:
//  - SplitMix64 (SeededRandom), seeded per case, so `--seed S` reproduces every case on every machine and Swift version (the
//    standard library's `random(in:using:)` may change its algorithm; this file never calls it);
//  - a byte stream (libFuzzer's input), read eight bytes at a time and zero once exhausted, so
//    libFuzzer's mutations of the bytes become mutations of the generators' choices.
// Tested by FuzzingTests (determinism for a seed).

internal import SeededRandom

/// A deterministic stream of choices.
public struct FuzzRandom: Sendable {
    private enum Source: Sendable {
        case splitMix(SplitMix64)
        case bytes([UInt8], Int)
    }

    private var source: Source

    /// The stream of seed `seed`.
    public init(seed: UInt64) { source = .splitMix(SplitMix64(seed: seed)) }

    /// The stream that reads `bytes` (then zeros).
    public init(bytes: [UInt8]) { source = .bytes(bytes, 0) }

    /// The seed of case `index` of stream `stream` under the run's seed: cases are independent, so
    /// any one can be replayed alone (`blockbench fuzz --seed S --level L --case I`).
    public static func caseSeed(_ seed: UInt64, stream: UInt64, index: UInt64) -> UInt64 {
        var mixer = FuzzRandom(seed: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        _ = mixer.next()
        var second = FuzzRandom(seed: mixer.next() ^ (index &* 0x9E37_79B9_7F4A_7C15))
        return second.next()
    }

    public mutating func next() -> UInt64 {
        switch source {
        case .splitMix(var generator):
            let value = generator.next()
            source = .splitMix(generator)
            return value
        case .bytes(let bytes, let offset):
            var value: UInt64 = 0
            for index in 0..<8 where offset + index < bytes.count {
                value |= UInt64(bytes[offset + index]) << (8 * UInt64(index))
            }
            source = .bytes(bytes, offset + 8)
            return value
        }
    }

    /// A number in `0 ..< bound` (bound >= 1). The modulo bias is irrelevant here.
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound >= 1)
        return Int(next() % UInt64(bound))
    }

    /// A number in `range`.
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// True with probability `numerator / denominator`.
    public mutating func chance(_ numerator: Int, in denominator: Int) -> Bool {
        below(denominator) < numerator
    }

    public mutating func pick<T>(_ items: [T]) -> T {
        items[below(items.count)]
    }

    /// One of `choices`, each as likely as its weight.
    public mutating func weighted<T>(_ choices: [(weight: Int, value: T)]) -> T {
        var roll = below(choices.reduce(0) { $0 + $1.weight })
        for choice in choices {
            if roll < choice.weight { return choice.value }
            roll -= choice.weight
        }
        return choices[choices.count - 1].value
    }

    /// A count that is small most of the time: 0 with probability 1/2, 1 with 1/4, ..., at most `limit`.
    public mutating func geometric(limit: Int) -> Int {
        var count = 0
        while count < limit && next() & 1 == 1 { count += 1 }
        return count
    }
}
