// OpenDomains.swift — Search
//
// A host context's *open* domains: host patterns with nothing after D (`L D`, as adblock-rust
// writes `||example.com^`), or whose terms after D begin with a loop (`L D .*x`, a gate). Such a D
// need not end the host: `^[^:]+:(//)?([^/]+\.)?ads` matches `https://adserver.example/`, so a
// place where L ends is not one candidate up to a splitting byte (HostContextTable.swift) but as
// many as D's lengths. What holds them together: D is host-name characters only, so from a place p
// where L ends, D can only be `url[p ..< p + n]` for n up to the first byte no D holds, and at most
// the longest D's length.
//
// The lookup reads those bytes once, forwards, hashing as it goes (`OpenDomainHash`): after each
// byte the hash of `url[p ..< q]` is one step on from that of `url[p ..< q - 1]`, and it meets the
// table's presence bits (the domain table's index, `DomainLines`, made with this hash), so a
// candidate costs a step and a test, and only those that pass read a line. Every fourth byte, a
// second set of presence bits, of the prefixes of four, eight, ... bytes of every D longer than
// that, says whether any D goes on: most places stop within a few bytes, not at the host's end.
//
// A context with open domains puts its other entries in the same index, each with its T written
// whole (HostContextTable.indexed): their D is found the same way (T's first set ends D), and T is
// checked from D's end, so one reading from each place L ends finds both.
//
// The answer is the automaton's exactly: L's own minimal automaton says where D may begin, D is
// compared whole (DomainLines.find), and nothing after it is asked, or T set by set. (Tests: HostContextTests hold
// open contexts to the NFA of the same patterns on generated URLs; DomainGateTests hold them to
// the oracle.)

internal import Automata
internal import URLFilterSyntax

/// The hash of a D read forwards, a byte a step from `DomainSlots.seed`, letters lower case.
enum OpenDomainHash {
    @inline(__always)
    static func step(_ hash: UInt64, _ byte: UInt8) -> UInt64 { (hash ^ UInt64(byte)) &* 0x9E37_79B9_7F4A_7C15 }

    static func hash(_ domain: ArraySlice<UInt8>) -> UInt64 { domain.reduce(DomainSlots.seed, step) }

    /// The key of a D's first bytes in the prefix presence bits (apart from the domains' own).
    @inline(__always)
    static func prefixKey(_ hash: UInt64) -> UInt64 { (hash ^ 0x5851_F42D_4C95_7F2D) &* 0xBF58_476D_1CE4_E5B9 }

    /// How many bytes a prefix checkpoint is apart.
    static let checkpoint = 4
}

/// The open domains' lookup memory beside their table's index: the prefix presence bits, the
/// byte map (a host-name character to the byte D holds for it, any other byte to 0), and what a
/// lookup reads (`lookup`, one address a context's lookup carries).
final class OpenDomainMemory: @unchecked Sendable {
    let prefixBits: UnsafeMutableBufferPointer<UInt64>
    let prefixShift: UInt64
    let bytes: UnsafeMutablePointer<UInt8>
    let longest: Int
    let lookup: UnsafeMutablePointer<OpenDomainLookup>

    /// The memory of `table`'s domains (indexed by `OpenDomainHash`), matched with letters folded
    /// when `folding`; valid while the table is.
    init(_ table: DomainTable, folding: Bool) {
        var prefixes = Set<UInt64>()
        var longest = 0
        for entry in 0..<table.count {
            let domain = table.domain(entry)
            longest = max(longest, domain.count)
            var hash = DomainSlots.seed
            for (offset, byte) in domain.dropLast().enumerated() {
                hash = OpenDomainHash.step(hash, byte)
                if (offset + 1) % OpenDomainHash.checkpoint == 0 { prefixes.insert(OpenDomainHash.prefixKey(hash)) }
            }
        }
        self.longest = longest
        // (Eight bits a prefix, two of them set, in one word: few places pass where no D goes on.)
        var words = 1
        while words * 8 < prefixes.count { words <<= 1 }
        prefixShift = UInt64(64 - words.trailingZeroBitCount)
        prefixBits = .allocate(capacity: words)
        prefixBits.initialize(repeating: 0)
        for key in prefixes {
            let (word, mask) = Self.presence(key, shift: prefixShift)
            prefixBits[word] |= mask
        }
        let allowed = folding ? HostShape.hostNameCharacters : HostSplit.domainBytes
        bytes = .allocate(capacity: 128)
        for byte in 0..<128 {
            let value = UInt8(byte)
            bytes[byte] = allowed.contains(value) ? (folding ? DomainSlots.folded(value) : value) : 0
        }
        lookup = .allocate(capacity: 1)
        lookup.initialize(to: OpenDomainLookup(
            tables: table.lookupTables!, prefixBits: UnsafeBufferPointer(prefixBits), prefixShift: prefixShift, bytes: UnsafePointer(bytes),
            longest: longest, folding: folding))
    }

    deinit {
        prefixBits.deallocate()
        bytes.deallocate()
        lookup.deallocate()
    }

    /// The word of `key` in bits of `1 << (64 - shift)` words (its top bits; one word: 0) and
    /// its two bits there.
    @inline(__always)
    static func presence(_ key: UInt64, shift: UInt64) -> (word: Int, mask: UInt64) {
        (shift == 64 ? 0 : Int(truncatingIfNeeded: key &>> shift), 1 &<< (key &>> 20) | 1 &<< (key &>> 26))
    }
}

/// What an open lookup reads: plain values, valid while the context's table is.
struct OpenDomainLookup {
    let tables: DomainTable.Tables
    let prefixBits: UnsafeBufferPointer<UInt64>
    let prefixShift: UInt64
    let bytes: UnsafePointer<UInt8>
    let longest: Int
    let folding: Bool
}

extension DomainTable {
    /// Reports every open domain of `open` that `url` holds from `start` (a place where L ends).
    @inline(__always)
    static func lookUpOpen(_ open: OpenDomainLookup, _ url: UnsafeBufferPointer<UInt8>, from start: Int, report: (UInt32) -> Void) {
        let end = min(url.count, start + open.longest)
        var hash = DomainSlots.seed
        var at = start
        while at < end {
            let byte = url[at]
            guard byte < 128 else { return }
            let mapped = open.bytes[Int(byte)]
            guard mapped != 0 else { return }
            hash = OpenDomainHash.step(hash, mapped)
            at += 1
            if open.tables.shape.mayHold(hash, open.tables.presentBits) { probeOpen(open, hash, url, start, at, report: report) }
            if (at - start) % OpenDomainHash.checkpoint == 0 {
                let (word, mask) = OpenDomainMemory.presence(OpenDomainHash.prefixKey(hash), shift: open.prefixShift)
                guard open.prefixBits[word] & mask == mask else { return }
            }
        }
    }

    /// Reports the entries of the domain `url[start ..< end]`, whose hash is `hash`, if any: an open
    /// one's, and another's whose T matches from `end`.
    @inline(never)
    private static func probeOpen(
        _ open: OpenDomainLookup, _ hash: UInt64, _ url: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, report: (UInt32) -> Void
    ) {
        reportEntries(ofDomainFrom: start, hash, url, end, open.tables, folding: open.folding, report: report)
    }
}

extension OpenDomainMemory {
    /// Its prefix presence bits, byte map and lookup.
    var heldBytes: Int { prefixBits.count * MemoryLayout<UInt64>.stride + 128 + MemoryLayout<OpenDomainLookup>.stride }
}
