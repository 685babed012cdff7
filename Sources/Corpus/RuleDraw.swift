// RuleDraw.swift — Corpus
//
// Rule lists drawn from real rules, for benchmarks of many content blockers at once (a user of
// AdGuard for Safari runs six, each up to Safari's 150,000 rules): every list draws `rules` rules
// from the pool of the named shipped lists' rules (their JSON elements, in the order the lists
// are named), with replacement, each draw a SplitMix64 number reduced to the pool's size, and
// keeps them in the pool's order, a rule drawn twice written twice. The pool's order keeps what
// order means in a list (a converter writes its `ignore-previous-rules` rules after the rules they
// undo); re-use lets a list hold more rules than the pool. One seed gives the same lists on every
// machine. The lists are made at bench time and never committed.
// Tested by BenchmarksTests (ManyBlockersTests).

internal import ContentRuleList
internal import SeededRandom

/// How to draw a set of rule lists from the shipped lists' rules (a benchmark definition's `draw`).
public struct RuleDraw: Codable, Hashable, Sendable {
    /// The shipped lists whose rules make the pool, in order.
    public var from: [String]
    /// How many lists, and how many rules each.
    public var lists: Int
    public var rules: Int
    public var seed: UInt64

    public init(from: [String], lists: Int, rules: Int, seed: UInt64) {
        self.from = from
        self.lists = lists
        self.rules = rules
        self.seed = seed
    }

    /// The drawn lists' JSON texts, in order, from the pool lists' JSON texts (in `from`'s order).
    public func draw(pool sources: [[UInt8]]) throws(RuleDrawError) -> [[UInt8]] {
        var pool: [ArraySlice<UInt8>] = []
        for (name, json) in zip(from, sources) {
            let ranges = json.withUnsafeBufferPointer { JSONReader.topLevelElements($0) }
            guard let ranges else { throw .notAList(name) }
            pool += ranges.map { json[$0] }
        }
        guard !pool.isEmpty else { throw .emptyPool }
        var generator = SplitMix64(seed: seed)
        return (0..<lists).map { _ in
            var counts = [Int](repeating: 0, count: pool.count)
            for _ in 0..<rules { counts[Int(generator.next() % UInt64(pool.count))] += 1 }
            var json: [UInt8] = [UInt8(ascii: "[")]
            json.reserveCapacity(rules * 96)
            for (index, count) in counts.enumerated() where count > 0 {
                for _ in 0..<count {
                    if json.count > 1 { json += [UInt8(ascii: ","), UInt8(ascii: "\n")] }
                    json += pool[index]
                }
            }
            json += [UInt8(ascii: "]"), UInt8(ascii: "\n")]
            return json
        }
    }
}

public enum RuleDrawError: Error, CustomStringConvertible {
    case notAList(String)
    case emptyPool

    public var description: String {
        switch self {
        case .notAList(let name): "\(name) is not a JSON array of rules"
        case .emptyPool: "the lists to draw from hold no rule"
        }
    }
}
