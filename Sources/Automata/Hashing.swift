// Hashing.swift — Automata
//
// The construction's own hash tables (the subset construction's state sets, the prefix trees of
// terms, the acyclic minimizer's signatures) key on small integers and hash them with one
// multiply-xorshift step per value: with Swift's Hasher (SipHash), hashing would be most of each
// of those passes.
// Tested by AutomataTests/AutomataTests.swift (through the constructions that hash).

/// `hash` with `value` mixed in.
@inline(__always)
func mixHash(_ hash: UInt64, _ value: UInt64) -> UInt64 {
    var mixed = (hash ^ value) &* 0xBF58_476D_1CE4_E5B9
    mixed ^= mixed >> 31
    return mixed
}

/// The slot count of an open-addressing table for `entries` entries at most half full: a power
/// of two, at least 64.
func hashTableSize(for entries: Int) -> Int {
    1 << (Int.bitWidth - (2 * entries + 63).leadingZeroBitCount)
}
