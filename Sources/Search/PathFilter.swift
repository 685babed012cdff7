// PathFilter.swift — Search
//
// A domain table's entry with a path T (DomainTable.swift) keeps, beside T's place, a word that
// tells which bytes T's sets 2 to 5 need (`PathFilter.of`): byte k the one byte that set k + 2
// admits (a letter in both cases or alone: the letter), with bit 5 (0x20) set, so that a letter
// and its other case are one; 0 where the set admits more than one byte (`[/:]`, a class) or T
// has fewer sets. (Not T's first set: in the domain table it admits only `/` and `:`, one of which
// ends A already, and in a host context's it is mostly the splitting set, which ends D.) A URL
// whose bytes from the one after A's end, each with bit 5 set, differ from one of those bytes is
// refused by T (`admits`) without T's sets being read: an entry's filter is in its domain's
// record, which the lookup has read already, and T's bytes lie elsewhere. A host's paths mostly
// differ in their first bytes past the `/`, so that most of a matched domain's paths are refused
// so. (Derived when the index is made, never written to a file. Tests: PathFilterTests.)

enum PathFilter {
    /// The filter of T's encoding `tail` (DomainTable's file layout): of its sets 2 to 5.
    static func of(_ tail: ArraySlice<UInt8>) -> UInt32 {
        var filter: UInt32 = 0
        var at = tail.startIndex
        var set = 0
        while at < tail.endIndex && set < 5 {
            let code = tail[at]
            guard code != DomainTable.restCode else { break }
            if set > 0 { filter |= UInt32(byte(of: code)) << (8 * (set - 1)) }
            at += code == 0 ? 17 : 1
            set += 1
        }
        return filter
    }

    /// The one byte a set of code `code` admits (of a letter, either case) with bit 5 set; 0 when
    /// it admits more.
    private static func byte(of code: UInt8) -> UInt8 {
        switch code {
        case 0, 0x80, DomainTable.splitCode: 0
        case 0x81...: code & 0x7F | 0x20
        default: code | 0x20
        }
    }

    /// `url`'s four bytes from the one after `path` (where T would start; NUL past the URL's end),
    /// the first lowest, each with bit 5 set: what `admits(_:bytes:)` reads, read once for all of
    /// a domain's filters.
    /// (Near the URL's end, the four bytes that end it, shifted down so that NULs follow its last
    /// byte: no loop whose places a lookup would make ready at each domain found.)
    @inline(__always)
    static func bytes(_ url: UnsafeBufferPointer<UInt8>, pathFrom path: Int) -> UInt32 {
        let start = path &+ 1
        var word: UInt32 = 0
        if start &+ 4 <= url.count {
            word = UInt32(littleEndian: UnsafeRawPointer(url.baseAddress!).loadUnaligned(fromByteOffset: start, as: UInt32.self))
        } else if start < url.count {
            word = url.count >= 4
                ? UInt32(littleEndian: UnsafeRawPointer(url.baseAddress!).loadUnaligned(fromByteOffset: url.count &- 4, as: UInt32.self))
                    &>> UInt32(truncatingIfNeeded: 8 &* (start &+ 4 &- url.count))
                : shortBytes(url, from: start)
        }
        return word | 0x2020_2020
    }

    /// The bytes of a URL shorter than four from `start`, the first lowest.
    @inline(never)
    private static func shortBytes(_ url: UnsafeBufferPointer<UInt8>, from start: Int) -> UInt32 {
        var word: UInt32 = 0
        for place in start..<url.count { word |= UInt32(url[place]) << UInt32(8 * (place - start)) }
        return word
    }

    /// No URL's `bytes` (each of those has bit 5 set): the bytes not read yet.
    static let unread: UInt32 = 0

    /// Whether the URL's `bytes` (`bytes(_:pathFrom:)`) equal each byte of `filter` that is not 0
    /// (those have bit 5 set): false only where T is sure not to match from the path's place (a
    /// set of one byte or of a letter's two cases admits no byte that differs from it in another
    /// bit; a byte from 128 on differs from every filter's byte in bit 7; a set past the URL's NUL
    /// matches nothing).
    @inline(__always)
    static func admits(_ filter: UInt32, bytes: UInt32) -> Bool {
        // (The filter's bytes that are not 0: those with bit 5 set.)
        let cared = (filter >> 5 & 0x0101_0101) &* 0xFF
        return (bytes ^ filter) & cared == 0
    }
}
