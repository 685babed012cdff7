// RankedKeys.swift — ContentBlocker
//
// A page's increasing keys (its rules' slots, its actions' locations) with where any key stands
// among them: how many keys lie below it, and whether it is one. A request with rules of its own
// asks this of each of them (an outcome's insertions stand at their rules' ranks, and an acting
// rule's location is listed unless the page lists it), and a big list's page has thousands of
// keys: a binary search of them would be a dozen steps, each a read far from the last. Beside the
// keys, a bit per possible key between the least and the greatest and, per 64 of them, how many
// keys lie below those 64: a rank is one word read and the bits below the key counted.

/// Increasing, distinct `UInt32` keys (an `EditedList`'s), with their ranks. One object, made with
/// a base list and shared by its edits, only read once made.
final class RankedKeys {
    let keys: [UInt32]
    /// Per 64 possible keys, from `firstWord * 64` on: a bit per key, and how many keys lie below
    /// the 64 (a rank is one word read). An allocation of its own, freed with the keys.
    private let words: UnsafeMutableBufferPointer<Word>
    private let firstWord: Int

    private struct Word {
        var keys: UInt64
        var below: UInt64
    }

    init(_ keys: [UInt32]) {
        self.keys = keys
        let firstWord = keys.first.map { Int($0 >> 6) } ?? 0
        self.firstWord = firstWord
        words = .allocate(capacity: keys.last.map { Int($0 >> 6) - firstWord + 1 } ?? 0)
        words.initialize(repeating: Word(keys: 0, below: 0))
        var previous: UInt32? = nil
        for key in keys {
            precondition(previous.map { key > $0 } ?? true, "keys increasing, each once")
            previous = key
            words[Int(key >> 6) - firstWord].keys |= 1 << UInt64(key & 63)
        }
        var below = 0
        for index in words.indices {
            words[index].below = UInt64(below)
            below += words[index].keys.nonzeroBitCount
        }
    }

    deinit { words.deallocate() }

    /// How many keys lie below `key`: the offset at which `key` stands, or would stand, among them.
    @inline(__always)
    func below(_ key: UInt32) -> Int {
        let index = Int(key >> 6) - firstWord
        guard index >= 0 else { return 0 }
        guard index < words.count else { return keys.count }
        let word = words[index]
        return Int(word.below) + (word.keys & ((1 << UInt64(key & 63)) - 1)).nonzeroBitCount
    }

    /// Whether `key` is one of the keys.
    @inline(__always)
    func contains(_ key: UInt32) -> Bool {
        let index = Int(key >> 6) - firstWord
        guard index >= 0 && index < words.count else { return false }
        return words[index].keys >> UInt64(key & 63) & 1 != 0
    }
}
