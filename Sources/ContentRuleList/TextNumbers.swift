// TextNumbers: texts, each with a case-sensitivity flag, numbered densely in first-seen order.
//
// A list's pattern texts (PatternTable) and the domains of its domain conditions (the compiler's)
// are tens of thousands of short strings, most met many times. They are numbered through an
// open-addressing table (linear probing, at most half full) over a hash that reads a text's bytes
// a word at a time: a Dictionary would hash every String with SipHash, the bulk of numbering a
// list. Tested by ContentRuleListTests/PatternTableTests.swift.

public struct TextNumbers: Sendable {
    /// The texts, by number.
    public private(set) var keys: [PatternTable.Key] = []
    /// The numbers of `keys` by slot (-1: free), and each key's hash by number.
    private var slots: [Int32]
    private var hashes: [UInt64] = []

    /// Room for `capacity` texts before the table grows.
    public init(capacity: Int = 0) {
        keys.reserveCapacity(capacity)
        hashes.reserveCapacity(capacity)
        slots = [Int32](repeating: -1, count: Self.slotCount(for: capacity))
    }

    public var count: Int { keys.count }

    /// The number of a text; a new one gets the next number (`count` before the call).
    public mutating func number(_ source: String, caseSensitive: Bool) -> Int32 {
        if 2 * (keys.count + 1) > slots.count { grow() }
        let hash = Self.hash(source, caseSensitive: caseSensitive)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] >= 0 {
            let known = Int(slots[slot])
            if hashes[known] == hash && keys[known].isCaseSensitive == caseSensitive && keys[known].source == source {
                return Int32(known)
            }
            slot = (slot + 1) & mask
        }
        let number = Int32(keys.count)
        slots[slot] = number
        keys.append(PatternTable.Key(source: source, isCaseSensitive: caseSensitive))
        hashes.append(hash)
        return number
    }

    /// A power of two at least twice `count` (and 64).
    private static func slotCount(for count: Int) -> Int {
        var size = 64
        while size < 2 * count { size *= 2 }
        return size
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: Self.slotCount(for: 2 * (keys.count + 1)))
        let mask = slots.count - 1
        for (number, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(number)
        }
    }

    /// A text's hash: its UTF-8 bytes eight at a time, each word mixed in by a multiply and an
    /// xorshift, then the case sensitivity.
    static func hash(_ source: String, caseSensitive: Bool) -> UInt64 {
        func mix(_ hash: UInt64, _ value: UInt64) -> UInt64 {
            let mixed = (hash ^ value) &* 0xBF58_476D_1CE4_E5B9
            return mixed ^ (mixed >> 31)
        }
        // (Offsets and shifts in wrapping arithmetic, the bytes through one raw pointer: the
        // checks of overflow and of shifts past the word are most of a short text's hash.)
        func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
            let count = bytes.count
            let result = mix(0x9E37_79B9_7F4A_7C15, UInt64(count))
            guard let base = bytes.baseAddress else { return mix(result, 0) }
            return mix(words(UnsafeRawPointer(base), count, into: result), last(base, count))
        }
        /// `hash` mixed with each whole word of the text.
        func words(_ text: UnsafeRawPointer, _ count: Int, into hash: UInt64) -> UInt64 {
            var result = hash
            var offset = 0
            while offset &+ 8 <= count {
                result = mix(result, text.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                offset &+= 8
            }
            return result
        }
        /// The bytes after the last whole word, the first in the lowest byte (0 when none).
        func last(_ text: UnsafePointer<UInt8>, _ count: Int) -> UInt64 {
            let left = count & 7
            if left == 0 { return 0 }
            if count >= 8 {
                // The high end of the text's last eight, loaded at once: the same word as built a
                // byte at a time.
                let word = UInt64(littleEndian: UnsafeRawPointer(text + (count &- 8)).loadUnaligned(as: UInt64.self))
                return word &>> UInt64(8 &* (8 &- left))
            }
            var word: UInt64 = 0
            for index in 0..<count { word |= UInt64(text[index]) &<< UInt64(8 &* index) }
            return word
        }
        let text = source.utf8.withContiguousStorageIfAvailable(hash) ?? Array(source.utf8).withUnsafeBufferPointer(hash)
        return mix(text, caseSensitive ? 1 : 0)
    }
}
