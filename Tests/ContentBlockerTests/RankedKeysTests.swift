// RankedKeysTests.swift — ContentBlockerTests
//
// The ranks of a page's keys (RankedKeys.swift), read in one word, held to a binary search of the
// keys and to a search of them: every key from below the least to past the greatest, for keys at
// and beside each word's bounds, sparse and dense, and none.

import Testing
@testable import ContentBlocker

@Suite struct RankedKeysTests {
    @Test func ranksAreTheKeysSearched() {
        var lists: [[UInt32]] = [[], [0], [63], [64], [0, 63, 64, 127, 128], [5, 700, 701, 6_000], Array(200..<330)]
        // Fixed walks: keys drawn with gaps of 1 to 150 from several starts.
        var state: UInt32 = 12_345
        for start: UInt32 in [0, 1, 64, 1_000] {
            var keys: [UInt32] = []
            var key = start
            for _ in 0..<300 {
                keys.append(key)
                state = state &* 1_103_515_245 &+ 12_345
                key += 1 + (state >> 8) % 150
            }
            lists.append(keys)
        }
        for keys in lists {
            let ranks = RankedKeys(keys)
            let set = Set(keys)
            for key in 0..<(keys.last ?? 0) + 200 {
                #expect(ranks.below(key) == Evaluator.lowerBound(key, in: keys), "keys \(keys.prefix(8)) key \(key)")
                #expect(ranks.contains(key) == set.contains(key), "keys \(keys.prefix(8)) key \(key)")
            }
        }
    }
}
