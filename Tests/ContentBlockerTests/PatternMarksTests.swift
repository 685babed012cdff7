// PatternMarksTests.swift — ContentBlockerTests
//
// The evaluator's pattern marks (Evaluator.swift), written in place, held to a set of the same
// patterns: every insert, remove and read, at and beside each word's bounds, for counts that are
// and are not a multiple of a word's bits.

import Testing
@testable import ContentBlocker

@Suite struct PatternMarksTests {
    @Test func marksAreASetOfPatterns() {
        for count in [1, 63, 64, 65, 130, 200] {
            var marks = PatternMarks(count: count)
            var set = Set<UInt32>()
            // A fixed walk over the patterns, each visited several times, marked then unmarked.
            var state: UInt32 = 12_345
            for step in 0..<(count * 8) {
                state = state &* 1_103_515_245 &+ 12_345
                let pattern = (state >> 8) % UInt32(count)
                if step % 3 == 2 {
                    marks.remove(pattern)
                    set.remove(pattern)
                } else {
                    #expect(marks.insert(pattern) == set.insert(pattern).inserted, "count \(count) pattern \(pattern)")
                }
                marks.withWords { words in
                    for other in 0..<UInt32(count) {
                        #expect(PatternMarks.contains(words, other) == set.contains(other), "count \(count) pattern \(other)")
                    }
                }
            }
            #expect(marks.heldBytes == 32 + (count + 63) / 64 * 8)
        }
    }
}
