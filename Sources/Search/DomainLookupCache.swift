// DomainLookupCache.swift — Search
//
// A host's domain table lookup, kept for the next requests to the same host. Requests come in
// runs on a host (a page's resources, a tracker's calls), and what the domain table finds for a
// URL (DomainTable.swift) is, but for its entries' paths, its host's: the domains found among
// the host's candidates, each a run of entries in the table's index. The cache keeps, for the
// hosts last looked up (`slotCount` slots, each host's placed by a hash of its bytes, a host
// taking the place of the one there before), the host's bytes and where the entries found lie
// in the index. A URL whose host is the one in its slot reports those entries as the lookup
// would, in its order, each entry's path still checked against this URL, without hashing the
// host's candidates nor reading the table's lines. A host is the one kept when its bytes are: the
// lookup reads nothing else of the URL up to the host's end but to find it (the host labels),
// and folds letters for the host's bytes alone. A host longer than a slot holds, or with more
// domains found than it holds, is looked up each time.
//
// Kept by one evaluator (one thread at a time, as the evaluator's other working memory) for
// its url programs' table: a lookup in another table empties it first, and it holds the table's
// index meanwhile, so that the places it keeps stay where they were.
// (Tests: DomainLookupCacheTests, which hold its answers to the table's own lookup.)

public final class DomainLookupCache {
    /// Slots, a power of two (`slot(_:_:_:)` takes a hash's top bits), each `slotBytes`:
    ///
    ///     0    UInt32   the host's length (0: no host)
    ///     4    UInt32   the domains found
    ///     8    64 bytes the host's bytes
    ///     72   per domain found (up to 7): its entries' offset from the index's lines, UInt32,
    ///          and their bytes, UInt32 (`DomainTable.entries(ofDomainFrom:_:_:_:_:folding:)`)
    static let slotCount = 32
    static let slotBytes = 128
    static let hostCapacity = 64
    static let foundCapacity = 7
    private static let hostOffset = 8
    private static let foundOffset = 72
    private static let slotShift = UInt64(64 - slotCount.trailingZeroBitCount)

    private let slots: UnsafeMutableRawPointer
    /// The index whose lines the slots' offsets are from (held while they are kept), and its
    /// lines' address.
    /// (Unchecked, as the evaluator's own state is: a run-time check of each access is a call.)
    @exclusivity(unchecked) private var storage: AnyObject?
    @exclusivity(unchecked) private var lines: UnsafeRawPointer?
    /// Lookups answered from a slot.
    @exclusivity(unchecked) public private(set) var hits = 0

    public init() {
        slots = .allocate(byteCount: Self.heldBytes, alignment: 64)
        slots.initializeMemory(as: UInt8.self, repeating: 0, count: Self.heldBytes)
    }

    deinit { slots.deallocate() }

    /// The bytes a cache holds.
    public static var heldBytes: Int { slotCount * slotBytes }

    /// Reports what `table.lookUp(url, labels, report:)` reports, in its order.
    public func lookUp(_ table: DomainTable, _ url: UnsafeBufferPointer<UInt8>, _ labels: DomainTable.HostLabels, report: (UInt32) -> Void) {
        let (start, end) = (labels.start, labels.end)
        guard labels.terminated, end > start, end - start <= Self.hostCapacity, !table.isEmpty, table.isIndexed else {
            return table.lookUp(url, labels, report: report)
        }
        let tables = table.tables
        if tables.lines != lines { hold(table, tables) }
        let slot = slots + Self.slotBytes * Self.slot(url, start, end)
        if Self.holds(slot, url, start, end) {
            hits += 1
            for found in 0..<Int(slot.load(fromByteOffset: 4, as: UInt32.self)) {
                let at = Self.foundOffset + 8 * found
                let offset = Int(slot.load(fromByteOffset: at, as: UInt32.self))
                let bytes = Int(slot.load(fromByteOffset: at + 4, as: UInt32.self))
                DomainTable.reportEntries(tables.lines + offset, bytes: bytes, url, end, tables.tails, report: report)
            }
        } else if labels.hasUpperCase {
            Self.lookUp(into: slot, url, start, end, tables, folding: true, report: report)
        } else {
            Self.lookUp(into: slot, url, start, end, tables, folding: false, report: report)
        }
    }

    /// Empties the slots and keeps `table`'s index (whose addresses are `tables`) while they
    /// point into it.
    private func hold(_ table: DomainTable, _ tables: DomainTable.Tables) {
        for slot in 0..<Self.slotCount { slots.storeBytes(of: 0, toByteOffset: slot * Self.slotBytes, as: UInt32.self) }
        storage = table.indexStorage
        lines = tables.lines
    }

    /// The table's lookup of `url[start ..< end]` (`DomainTable.lookUp`, its candidates hashed
    /// with letters folded when `folding`), each domain found reported and kept in `slot` with
    /// the host, which takes the slot (or, found more than a slot holds, leaves it empty).
    @inline(__always)
    private static func lookUp(
        into slot: UnsafeMutableRawPointer, _ url: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ tables: DomainTable.Tables,
        folding: Bool, report: (UInt32) -> Void
    ) {
        var found = 0
        var fits = true
        DomainTable.forEachCandidate(url, start, end, folding: folding) { candidate, hash in
            guard tables.shape.mayHold(hash, tables.presentBits),
                let (entries, bytes) = find(candidate, hash, url, end, tables, folding: folding)
            else { return }
            DomainTable.reportEntries(entries, bytes: bytes, url, end, tables.tails, report: report)
            let offset = tables.lines.distance(to: entries)
            if found < foundCapacity && offset >= 0 && offset <= Int(UInt32.max) && bytes <= Int(UInt32.max) {
                slot.storeBytes(of: UInt32(offset), toByteOffset: foundOffset + 8 * found, as: UInt32.self)
                slot.storeBytes(of: UInt32(bytes), toByteOffset: foundOffset + 8 * found + 4, as: UInt32.self)
            } else {
                fits = false
            }
            found += 1
        }
        guard fits else {
            slot.storeBytes(of: 0, as: UInt32.self)
            return
        }
        slot.storeBytes(of: UInt32(end - start), as: UInt32.self)
        slot.storeBytes(of: UInt32(found), toByteOffset: 4, as: UInt32.self)
        (slot + hostOffset).copyMemory(from: url.baseAddress! + start, byteCount: end - start)
    }

    /// The entries of a candidate whose hash passed the presence bits: out of line, as the
    /// table's own lookup reads them (`DomainTable.probeLine`), the candidates' loop keeping the
    /// test alone.
    @inline(never)
    private static func find(
        _ candidate: Int, _ hash: UInt64, _ url: UnsafeBufferPointer<UInt8>, _ end: Int, _ tables: DomainTable.Tables, folding: Bool
    ) -> (entries: UnsafeRawPointer, bytes: Int)? {
        DomainTable.entries(ofDomainFrom: candidate, hash, url, end, tables, folding: folding)
    }

    /// Whether `slot` holds the host `url[start ..< end]` (a host no longer than a slot holds).
    @inline(__always)
    private static func holds(_ slot: UnsafeMutableRawPointer, _ url: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        let length = end - start
        guard slot.load(as: UInt32.self) == UInt32(length) else { return false }
        let kept = UnsafeRawPointer(slot + hostOffset)
        let host = UnsafeRawPointer(url.baseAddress! + start)
        guard length >= 8 else {
            for at in 0..<length where kept.load(fromByteOffset: at, as: UInt8.self) != host.load(fromByteOffset: at, as: UInt8.self) {
                return false
            }
            return true
        }
        // Word by word, the last word ending at the host's end (overlapping the one before).
        var at = 0
        while at + 8 < length {
            guard kept.loadUnaligned(fromByteOffset: at, as: UInt64.self) == host.loadUnaligned(fromByteOffset: at, as: UInt64.self) else {
                return false
            }
            at += 8
        }
        return kept.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self) == host.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
    }

    /// The slot of the host `url[start ..< end]`: a hash of its length and its first and last
    /// eight bytes (of its bytes alone, so that a host has one slot whatever URL it is in).
    @inline(__always)
    static func slot(_ url: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        let length = end - start
        var first: UInt64 = 0, last: UInt64 = 0
        if length >= 8 {
            let host = UnsafeRawPointer(url.baseAddress! + start)
            first = host.loadUnaligned(as: UInt64.self)
            last = host.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
        } else {
            for at in 0..<length { first |= UInt64(url[start + at]) << UInt64(8 * at) }
            last = first
        }
        var hash = (first &* 0x9E37_79B9_7F4A_7C15) ^ ((last ^ UInt64(length)) &* 0xC2B2_AE3D_27D4_EB4F)
        hash = (hash ^ (hash >> 29)) &* 0x1656_67B1_9E37_79F9
        return Int(truncatingIfNeeded: hash >> slotShift)
    }
}
