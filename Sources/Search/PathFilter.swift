// PathFilter.swift — Search
//
// A domain table's entry with a path T (DomainTable.swift) keeps, beside T's place, a word that
// tells which bytes T's first four sets need (`PathFilter.of`): byte k the one byte, letters
// folded to lower case, that set k admits (a letter in both cases or alone: the letter, lower
// case; another byte alone: itself), 0 where the set admits more than one byte (`[/:]`, a class,
// a host context's splitting set) or T has fewer sets. A URL whose bytes from A's end, folded,
// differ from one of those bytes is refused by T (`admits`) without T's sets being read: an
// entry's filter is in its domain's record, which the lookup has read already, and T's bytes
// lie elsewhere. A host's paths mostly differ in their first bytes past the `/`, so that most
// of a matched domain's paths are refused so. (Derived when the index is made, never written
// to a file. Tests: DomainTableTests.)

enum PathFilter {
    /// The filter of T's encoding `tail` (DomainTable's file layout).
    static func of(_ tail: ArraySlice<UInt8>) -> UInt32 {
        var filter: UInt32 = 0
        var at = tail.startIndex
        var place: UInt32 = 0
        while at < tail.endIndex && place < 4 {
            let code = tail[at]
            guard code != DomainTable.restCode else { break }
            filter |= UInt32(byte(of: code)) << (8 * place)
            at += code == 0 ? 17 : 1
            place += 1
        }
        return filter
    }

    /// The one byte, lower case, a set of code `code` admits when folded; 0 when it admits more.
    private static func byte(of code: UInt8) -> UInt8 {
        switch code {
        case 0, 0x80, DomainTable.splitCode: 0
        case 0x81...: DomainSlots.folded(code & 0x7F)
        default: code
        }
    }

    /// Whether `url`'s bytes from `start` (at most its end; NUL past it), letters folded to lower
    /// case, equal each byte of `filter` that is not 0: false only where T is sure not to match
    /// there (a set of one byte or of a letter's two cases admits no other folded byte, nor NUL).
    @inline(__always)
    static func admits(_ filter: UInt32, _ url: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        var word: UInt32 = 0
        if start + 4 <= url.count {
            word = UInt32(littleEndian: UnsafeRawPointer(url.baseAddress!).loadUnaligned(fromByteOffset: start, as: UInt32.self))
        } else if start < url.count {
            for place in start..<url.count { word |= UInt32(url[place]) << UInt32(8 * (place - start)) }
        }
        // Letters folded: a byte's high bit set by adding 0x3F to its low seven bits when they
        // are at least `A`, and by adding 0x25 when past `Z` (no carry leaves a byte), moved
        // down to 0x20. (A byte from 128 on stays above every filter's byte.)
        let ones: UInt32 = 0x0101_0101
        let low = word & (0x7F &* ones)
        let folded = word | ((low &+ 0x3F &* ones) & ~(low &+ 0x25 &* ones) & (0x80 &* ones)) >> 2
        // The filter's bytes that are not 0 (each below 128: adding 0x7F sets its high bit).
        let cared = ((filter &+ 0x7F &* ones) & (0x80 &* ones)) >> 7 &* 0xFF
        return (folded ^ filter) & cared == 0
    }
}
