// DomainSlots.swift — Search
//
// The hash indexes of a table's distinct domains: the domain condition table's slots and the groups
// they point to (a domain's bytes and its entries side by side, DomainConditionTable.swift), the
// domain table's lines of records (`DomainLines`, DomainTable.swift); derived from the entries
// when a table is made or read, never written to a file; and what both tables read
// domains with (the hashes, letters folded, the check of a domain's bytes). Both hashes
// read a domain from its end, so that a lookup hashes a host's candidates as it reads the host
// backwards, each label adding to the hash of the ones after it: the domain table's by eight-byte
// words (`wordHash`: a URL's host is read once per request), the condition table's a byte at a
// time (`hash`: a page's host, once per page).
// Tested by SearchTests/DomainTableTests.swift and DomainConditionTableTests.swift.

internal import URLFilterSyntax

struct DomainSlots: Sendable {
    /// What a lookup reads, in one allocation (`Storage`): the presence bits, the slots and the
    /// groups. Nil until the index is made (`DomainGroups.index`).
    private(set) var storage: Storage?
    /// Where a hash's bits go (its storage holds a copy).
    private(set) var shape = Shape()
    var valueMask: UInt32 { shape.valueMask }

    /// Where a domain's hash's bits go: its presence bit, its slot, and the fingerprint its slot
    /// holds above the group's place (`valueMask`).
    struct Shape: Sendable {
        /// Below 64 once the index holds an entry (the lookups shift by them with `&>>`; an empty
        /// index is never looked up in).
        fileprivate(set) var presentShift: UInt64 = 64
        fileprivate(set) var shift: UInt64 = 64
        fileprivate(set) var valueMask: UInt32 = 0
        /// A domain table's lines (`DomainLines`): the most lines a record lies past its own, so
        /// that a lookup reads at most this many after its own whatever the lines' flags say.
        fileprivate(set) var linesPast = 0
        /// A domain table's lines' count (any count from 2: the lines are as many as their
        /// records need, not rounded up to a power of two, which would leave most of them empty
        /// as often as not); 0 for slots.
        fileprivate(set) var lines = 0

        /// The word of `hash` in the presence bits (its mixed hash's top bits) and the two bits of
        /// it a domain of that hash sets (two fields of six bits below them).
        @inline(__always)
        func presence(_ hash: UInt64) -> (word: Int, bits: UInt64) {
            let mixed = hash &* 0xC2B2_AE3D_27D4_EB4F
            return (Int(truncatingIfNeeded: mixed &>> presentShift), 1 &<< (mixed &>> 20) | 1 &<< (mixed &>> 26))
        }

        /// Whether the presence bits `bits` hold a domain whose hash is `hash` (maybe: a domain
        /// they do not hold may share its bits).
        @inline(__always)
        func mayHold(_ hash: UInt64, _ bits: UnsafeBufferPointer<UInt64>) -> Bool {
            let (word, mask) = presence(hash)
            return bits[word] & mask == mask
        }

        /// The top bits of `hash` above a slot's entry bits.
        @inline(__always)
        func fingerprint(_ hash: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: hash >> 32) & ~valueMask }

        @inline(__always)
        func slot(of hash: UInt64) -> Int { Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) &>> shift) }

        /// A domain table's line of `hash` (`lines` of them): the mixed hash as a fraction of
        /// 2^64, times the lines' count (its top bits, as `slot(of:)` takes a power of two's).
        @inline(__always)
        func line(of hash: UInt64) -> Int { Self.line(of: hash, lines: lines) }

        @inline(__always)
        static func line(of hash: UInt64, lines: Int) -> Int {
            Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15).multipliedFullWidth(by: UInt64(truncatingIfNeeded: lines)).high)
        }
    }

    /// An open-addressing table of 32-bit slots, at most two thirds full, one per distinct domain,
    /// a slot holding its domain's group's place + 1 (0: empty; `DomainGroups`) in its low bits
    /// (`valueMask`) and the top bits of the domain's hash above them, so that a probe that finds
    /// another domain reads nothing else (EasyList and EasyPrivacy: 1 MB); and the lookup's first
    /// test, two bits a domain in one word of presence bits (`presence(_:)`: a blocked Bloom
    /// filter), `presenceBitsPerDomain` bits a domain. A label whose bits are not both set is in
    /// no slot (nor line, `DomainLines`); most labels of most hosts are in none, and the bits (64
    /// KB for EasyList and EasyPrivacy) stay in a core's cache where the slots or lines they spare
    /// a read of would miss it.
    /// (Fewer bits miss less than sparser ones spare slots. EasyList and EasyPrivacy asked apart,
    /// simulated L2 (1 MB) misses a request: one bit a domain of 4 bits a domain, 6.73; two bits in
    /// a word of 2, 4 and 8 bits a domain, 6.67, 6.56 and 6.95.)
    fileprivate struct Building {
        var slots: [UInt32]
        var presentBits: [UInt64]
    }

    /// The presence bits, the slots, the groups (`DomainGroups`) and the table's other bytes a
    /// lookup reads (the domain table's paths) in one allocation that starts a cache line, with the
    /// index's shape: a lookup reads their addresses from this object, one line, where each
    /// array's header would be a line, mostly evicted between requests. Immutable once made.
    final class Storage: @unchecked Sendable {
        let shape: Shape
        let presentBits: UnsafeBufferPointer<UInt64>
        let slots: UnsafeBufferPointer<UInt32>
        /// The groups, from a cache line's start (`DomainGroups.index` keeps a group within a line
        /// where it fits in one).
        let groups: UnsafeRawPointer
        let extra: UnsafeBufferPointer<UInt8>
        fileprivate let memory: TableMemory

        fileprivate init(shape: Shape, presentBits: [UInt64], slots: [UInt32], groups: UnsafeRawBufferPointer, extra: [UInt8]) {
            func lines(_ bytes: Int) -> Int { (bytes + 63) & ~63 }
            let (bitsBytes, slotBytes, groupBytes) = (lines(8 * presentBits.count), lines(4 * slots.count), lines(groups.count))
            let table = TableMemory(byteCount: max(1, bitsBytes + slotBytes + groupBytes + extra.count), alignment: 64)
            let first = table.base
            let bits = first.bindMemory(to: UInt64.self, capacity: presentBits.count)
            presentBits.withUnsafeBufferPointer { if let base = $0.baseAddress { bits.initialize(from: base, count: $0.count) } }
            let slotStart = (first + bitsBytes).bindMemory(to: UInt32.self, capacity: slots.count)
            slots.withUnsafeBufferPointer { if let base = $0.baseAddress { slotStart.initialize(from: base, count: $0.count) } }
            let groupStart = first + bitsBytes + slotBytes
            if let base = groups.baseAddress { groupStart.copyMemory(from: base, byteCount: groups.count) }
            let extraStart = (first + bitsBytes + slotBytes + groupBytes).bindMemory(to: UInt8.self, capacity: extra.count)
            extra.withUnsafeBufferPointer { if let base = $0.baseAddress { extraStart.initialize(from: base, count: $0.count) } }
            self.shape = shape
            self.memory = table
            self.presentBits = UnsafeBufferPointer(start: bits, count: presentBits.count)
            self.slots = UnsafeBufferPointer(start: slotStart, count: slots.count)
            self.groups = UnsafeRawPointer(groupStart)
            self.extra = UnsafeBufferPointer(start: extraStart, count: extra.count)
        }

        // (The elements are plain values: nothing to deinitialize; `memory` frees itself.)
    }

    /// The index of the entries whose domains' hashes are `hashes`, and its arrays: its presence
    /// bits, its slots when `slots` (each holding a domain's first entry, until
    /// `DomainGroups.index` repoints them to its groups; an index of lines, `DomainLines`, has
    /// none), and per entry the next entry of the same domain (-1: none; `same` tells whether two
    /// entries' domains are equal). The domains are found through a table of entries (at most
    /// half full, each place holding its domain's latest entry + 1, 0: empty) let go once they are.
    fileprivate static func index(hashes: [UInt64], slots withSlots: Bool, same: (Int, Int) -> Bool)
        -> (DomainSlots, Building, next: [Int32])
    {
        var index = DomainSlots()
        let count = hashes.count
        var next = [Int32](repeating: -1, count: count)
        guard count > 0 else { return (index, Building(slots: [], presentBits: []), next) }
        var presentBits = presenceBits(count: count, shape: &index.shape)
        var slots: [UInt32] = []
        if withSlots {
            var capacity = 2
            while 2 * capacity < 3 * count { capacity *= 2 }
            index.shape.shift = UInt64(64 - capacity.trailingZeroBitCount)
            let entryBits = UInt32(UInt32.bitWidth - UInt32(count).leadingZeroBitCount)
            index.shape.valueMask = entryBits == 32 ? .max : (1 << entryBits) - 1
            slots = [UInt32](repeating: 0, count: capacity)
        }
        var capacity = 2
        while capacity < 2 * count { capacity *= 2 }
        let (shape, shift) = (index.shape, UInt64(64 - capacity.trailingZeroBitCount))
        let latest = UnsafeMutableBufferPointer<Int32>.allocate(capacity: capacity)
        latest.initialize(repeating: 0)
        defer { latest.deallocate() }
        // (Through pointers: this runs for every domain of a list at each load.)
        hashes.withUnsafeBufferPointer { hashes in
            next.withUnsafeMutableBufferPointer { next in
                presentBits.withUnsafeMutableBufferPointer { presentBits in
                    entries: for entry in 0..<count {
                        let hash = hashes[entry]
                        var place = Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) &>> shift)
                        while latest[place] != 0 {
                            // An entry of a domain met before: after its latest, which it replaces.
                            let other = Int(latest[place]) - 1
                            if hashes[other] == hash && same(other, entry) {
                                next[other] = Int32(entry)
                                latest[place] = Int32(entry + 1)
                                continue entries
                            }
                            place = (place + 1) & (capacity - 1)
                        }
                        latest[place] = Int32(entry + 1)
                        // A domain met first: its presence bits, and its slot.
                        let (word, mask) = shape.presence(hash)
                        presentBits[word] |= mask
                        guard withSlots else { continue }
                        var slot = shape.slot(of: hash)
                        while slots[slot] != 0 { slot = (slot + 1) & (slots.count - 1) }
                        slots[slot] = shape.fingerprint(hash) | UInt32(entry + 1)
                    }
                }
            }
        }
        return (index, Building(slots: slots, presentBits: presentBits), next)
    }

    /// Presence bits for `count` domains, none set yet, and `shape`'s shift for them.
    fileprivate static func presenceBits(count: Int, shape: inout Shape) -> [UInt64] {
        var bits = 128
        while bits < DomainSlots.presenceBitsPerDomain * count { bits *= 2 }
        shape.presentShift = UInt64(64 - (bits / 64).trailingZeroBitCount)
        return [UInt64](repeating: 0, count: bits / 64)
    }

    /// The index with each slot's entry `e` replaced by `value(e)` (below `bound`), the slots
    /// where they were, and its storage made with `groups`; `hash(e)` is entry `e`'s hash, as the
    /// index was made with. (The fingerprints shrink as the values need more bits.)
    fileprivate func repointed(
        _ building: Building, bound: Int, hash: (Int) -> UInt64, value: (Int) -> Int, groups: UnsafeRawBufferPointer, extra: [UInt8]
    ) -> DomainSlots {
        var index = self
        var slots = building.slots
        let valueBits = UInt32(UInt32.bitWidth - UInt32(bound).leadingZeroBitCount)
        index.shape.valueMask = valueBits == 32 ? .max : (1 << valueBits) - 1
        for slot in slots.indices where slots[slot] != 0 {
            let entry = Int(slots[slot] & valueMask) - 1
            slots[slot] = index.fingerprint(hash(entry)) | UInt32(value(entry) + 1)
        }
        index.storage = Storage(shape: index.shape, presentBits: building.presentBits, slots: slots, groups: groups, extra: extra)
        return index
    }

    /// The presence bits' size: at least this many a domain (a power of two, at least 128).
    static let presenceBitsPerDomain = 4
    @inline(__always) func fingerprint(_ hash: UInt64) -> UInt32 { shape.fingerprint(hash) }
    @inline(__always) func slot(of hash: UInt64) -> Int { shape.slot(of: hash) }

    /// The group's place in the slot of the domain whose hash is `hash` and for which `matches`
    /// holds (it is given each candidate's), nil when there is none. For a lookup of a few
    /// candidates; DomainTable's hot loop reads the storage itself.
    func value(_ hash: UInt64, where matches: (Int) -> Bool) -> Int? {
        guard let storage else { return nil }
        guard shape.mayHold(hash, storage.presentBits) else { return nil }
        let slots = storage.slots
        var slot = slot(of: hash)
        let expected = fingerprint(hash)
        while slots[slot] != 0 {
            if slots[slot] & ~valueMask == expected {
                let value = Int(slots[slot] & valueMask) - 1
                if matches(value) { return value }
            }
            slot = (slot + 1) & (slots.count - 1)
        }
        return nil
    }

    // MARK: The hash

    /// One step of the condition table's hash of a domain read from its end: FNV-1a over its
    /// bytes backwards.
    @inline(__always)
    static func step(_ hash: UInt64, _ byte: UInt8) -> UInt64 { (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    static let seed: UInt64 = 0xCBF2_9CE4_8422_2325

    static func hash(_ domain: ArraySlice<UInt8>) -> UInt64 {
        domain.reversed().reduce(seed) { step($0, $1) }
    }

    /// The domain table's hash of a domain (`DomainTable`): its eight-byte words taken from its
    /// end (little-endian, the first byte lowest), then the bytes before them (fewer than eight,
    /// maybe none) as one word with the length in its top byte. A lookup reads a host's words
    /// once from its end and hashes each label's candidate with one more word (`wordStep`).
    static func wordHash(_ domain: ArraySlice<UInt8>) -> UInt64 {
        domain.withUnsafeBufferPointer { bytes in
            var hash = seed
            var end = bytes.count
            while end >= 8 {
                hash = wordStep(hash, word(UnsafeRawPointer(bytes.baseAddress!), at: end - 8))
                end -= 8
            }
            var first: UInt64 = 0
            for at in 0..<end { first |= UInt64(bytes[at]) << UInt64(8 * at) }
            return lastWordStep(hash, first, length: bytes.count)
        }
    }

    /// The eight bytes at `offset` as a little-endian word (the first lowest), on any machine.
    @inline(__always)
    static func word(_ base: UnsafeRawPointer, at offset: Int) -> UInt64 {
        UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// One word of a domain's hash.
    @inline(__always)
    static func wordStep(_ hash: UInt64, _ word: UInt64) -> UInt64 { (hash ^ word) &* 0x9E37_79B9_7F4A_7C15 }

    /// The last word of a domain's hash: its first bytes (fewer than eight), and its length.
    @inline(__always)
    static func lastWordStep(_ hash: UInt64, _ word: UInt64, length: Int) -> UInt64 {
        wordStep(hash, word | UInt64(truncatingIfNeeded: length) << 56)
    }

    /// Whether `domain` is not empty and all its bytes are in `allowed` (a table's domain bytes).
    static func isDomain(_ domain: ArraySlice<UInt8>, of allowed: ASCIISet) -> Bool {
        guard !domain.isEmpty else { return false }
        // (Every byte tested, the misses gathered in one word: a list's domains are read at each
        // load, a megabyte and more for EasyList and EasyPrivacy.)
        let (low, high) = (~allowed.low, ~allowed.high)
        return domain.withUnsafeBufferPointer { bytes in
            var missing: UInt64 = 0
            for byte in bytes {
                let unit = UInt64(byte)
                missing |= unit >> 7 | (unit < 64 ? low >> (unit & 63) : high >> (unit & 63)) & 1
            }
            return missing == 0
        }
    }

    /// Whether `domain` is not empty and `refused` finds no byte of it that a table refuses: read
    /// eight bytes a step (`refused(word)`, not 0 when a byte of `word` is refused; a domain
    /// shorter than a word filled out with `a`, which no table refuses). A list's domains are
    /// checked so at each load.
    @inline(__always)
    static func isDomain(_ domain: UnsafeBufferPointer<UInt8>, refusing refused: (UInt64) -> UInt64) -> Bool {
        guard let base = domain.baseAddress, !domain.isEmpty else { return false }
        let bytes = UnsafeRawPointer(base)
        var refusals: UInt64 = 0
        var at = 0
        while at + 8 <= domain.count {
            refusals |= refused(bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
            at += 8
        }
        if at < domain.count && domain.count >= 8 {
            // (The last eight bytes, some read already.)
            refusals |= refused(bytes.loadUnaligned(fromByteOffset: domain.count - 8, as: UInt64.self))
        } else if at < domain.count {
            var last = UInt64(0x61) &* 0x0101_0101_0101_0101
            withUnsafeMutableBytes(of: &last) { $0.baseAddress!.copyMemory(from: bytes, byteCount: domain.count) }
            refusals |= refused(last)
        }
        return refusals == 0
    }

    /// A byte with an upper-case letter folded to lower case.
    @inline(__always)
    static func folded(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }

    /// `word`'s bytes with their upper-case letters folded to lower case (`folded` of each byte
    /// below 0x80): a byte from `A` to `Z` is the one whose sum with 0x3F reaches 0x80 and whose
    /// sum with 0x25 does not; 0x20 is that bit shifted down. Only a byte from 0x80 on carries, into
    /// the bytes after it.
    @inline(__always)
    static func folded(word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        return word | ((word &+ 0x3F &* ones) & ~(word &+ 0x25 &* ones) & (0x80 &* ones)) >> 2
    }

    /// D as both tables read it: the bytes of `terms` from `start` on, lower-cased, while each is
    /// a host name's character (`URLFilterTerm.hostCharacter`) of `allowed`; and the position of
    /// the first term that is not.
    static func domain(in terms: [URLFilterTerm], from start: Int, allowed: ASCIISet) -> (domain: [UInt8], end: Int) {
        var domain: [UInt8] = []
        domain.reserveCapacity(terms.count - start)
        var at = start
        while at < terms.count, let byte = terms[at].hostCharacter, allowed.contains(byte) {
            domain.append(byte)
            at += 1
        }
        return (domain, at)
    }
}

/// A table's distinct domains, each with what a lookup that finds it reads, side by side: a
/// cache line, where the entries' places in a table's own arrays are several; a group that fits
/// in a line is placed within one (the groups start a line: `DomainSlots.Storage`), so that a
/// domain found is one line read, not two for the half of them that would cross a line's end. Per
/// group, 32-bit words but for D: D's length, its entries' count, D's bytes (then zeros to a
/// word's end), then `entryWords` words per entry (the table's own), its entries in entry order.
/// Its index's slots hold a group's place in words + 1. Derived from the entries, never written
/// to a file.
enum DomainGroups {
    /// The index of `count` entries, entry `e`'s domain `domains[starts[e] ..< starts[e + 1]]`
    /// (lower case), its hash `hashes[e]`, and its words `words[entryWords * e ..< entryWords *
    /// (e + 1)]`, with its groups in its storage, and `extra` after them (bytes its lookups read).
    static func index(
        starts: [UInt32], domains: [UInt8], hashes: [UInt64], entryWords: Int, words: [UInt32], extra: [UInt8] = []
    ) -> DomainSlots {
        let count = hashes.count
        func domain(_ entry: Int) -> ArraySlice<UInt8> { domains[Int(starts[entry])..<Int(starts[entry + 1])] }
        let (index, building, next) = DomainSlots.index(hashes: hashes, slots: true, same: { domain($0) == domain($1) })
        var isFirst = [Bool](repeating: true, count: count)
        for entry in next where entry >= 0 { isFirst[Int(entry)] = false }
        // Each domain's group at its first entry's place, in words: after the one before, or from
        // the next line's start when it fits in a line but not in what is left of this one.
        var groupOf = [Int](repeating: -1, count: count)
        var size = 0
        for first in 0..<count where isFirst[first] {
            var groupSize = 8 + padded(Int(starts[first + 1] - starts[first]))
            var entry = first
            while entry >= 0 {
                groupSize += 4 * entryWords
                entry = Int(next[entry])
            }
            if groupSize <= 64 && size % 64 + groupSize > 64 { size = (size + 63) & ~63 }
            groupOf[first] = size / 4
            size += groupSize
        }
        var groups = [UInt8](repeating: 0, count: size)
        groups.withUnsafeMutableBytes { groups in
            domains.withUnsafeBytes { domains in
                func store(_ value: UInt32, at offset: Int) {
                    groups.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self)
                }
                for first in 0..<count where isFirst[first] {
                    let at = 4 * groupOf[first]
                    let (start, end) = (Int(starts[first]), Int(starts[first + 1]))
                    store(UInt32(end - start), at: at)
                    groups.baseAddress!.advanced(by: at + 8).copyMemory(from: domains.baseAddress! + start, byteCount: end - start)
                    var member = at + 8 + padded(end - start)
                    var members: UInt32 = 0
                    var entry = first
                    while entry >= 0 {
                        for word in 0..<entryWords { store(words[entryWords * entry + word], at: member + 4 * word) }
                        member += 4 * entryWords
                        members += 1
                        entry = Int(next[entry])
                    }
                    store(members, at: at + 4)
                }
            }
        }
        return groups.withUnsafeBytes { groups in
            index.repointed(building, bound: size / 4 + 1, hash: { hashes[$0] }, value: { groupOf[$0] }, groups: groups, extra: extra)
        }
    }

    /// Tells `body` each group of `groups` (an index's, of `entries` entries in all, each of
    /// `entryWords` words): its domain's bytes and its entries' words, in the groups' order.
    static func forEachGroup(
        _ groups: UnsafeRawPointer, entryWords: Int, entries: Int,
        _ body: (_ domain: UnsafeRawBufferPointer, _ entries: UnsafeRawBufferPointer) -> Void
    ) {
        var (at, told) = (0, 0)
        while told < entries {
            let group = groups + at
            // (A length of 0 is the zeros before the next line, where a group that fits one starts.)
            guard length(group) != 0 else {
                at = (at + 64) & ~63
                continue
            }
            let count = entryCount(group)
            body(UnsafeRawBufferPointer(start: group + 8, count: length(group)),
                 UnsafeRawBufferPointer(start: Self.entries(group), count: 4 * entryWords * count))
            told += count
            at += 8 + padded(length(group)) + 4 * entryWords * count
        }
    }

    /// A domain's bytes in a group: then zeros to a word's end.
    @inline(__always)
    static func padded(_ length: Int) -> Int { (length + 3) & ~3 }

    /// The group at `place` (a slot's value: what its low bits hold - 1).
    @inline(__always)
    static func group(_ groups: UnsafeRawPointer, _ place: Int) -> UnsafeRawPointer { groups + 4 * place }

    /// The 32-bit word at `offset` from `base`.
    @inline(__always)
    static func word(_ base: UnsafeRawPointer, _ offset: Int) -> UInt32 {
        UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// A group's D's length, its entries' count, and where its entries' words start.
    @inline(__always) static func length(_ group: UnsafeRawPointer) -> Int { Int(word(group, 0)) }
    @inline(__always) static func entryCount(_ group: UnsafeRawPointer) -> Int { Int(word(group, 4)) }
    @inline(__always) static func entries(_ group: UnsafeRawPointer) -> UnsafeRawPointer { group + 8 + padded(length(group)) }

    /// Whether the group's D is `url[start ..< start + length]` (`length`: D's), bytes folded to
    /// lower case when `folding`.
    @inline(__always)
    static func holds(_ group: UnsafeRawPointer, _ url: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int, folding: Bool) -> Bool {
        holds(domain: group + 8, url, start, length, folding: folding)
    }

    /// Whether the `length` bytes at `domain` are `url[start ..< start + length]`, bytes folded
    /// to lower case when `folding`.
    @inline(__always)
    static func holds(domain: UnsafeRawPointer, _ url: UnsafeBufferPointer<UInt8>, _ start: Int, _ length: Int, folding: Bool) -> Bool {
        if !folding {
            // (Eight bytes at a time, then one: `memcmp` reads ahead of a short D, into a line no
            // lookup needs.)
            let other = UnsafeRawPointer(url.baseAddress! + start)
            var offset = 0
            // (Places in wrapping arithmetic: a domain's length is far from overflowing.)
            while offset &+ 8 <= length {
                guard domain.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == other.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                else { return false }
                offset &+= 8
            }
            // The bytes past the last whole word: in the word (or the four bytes) that ends D,
            // some compared twice; fewer than four, one at a time.
            guard offset < length else { return true }
            if length >= 8 {
                return domain.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
                    == other.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
            }
            if length >= 4 {
                return domain.loadUnaligned(as: UInt32.self) == other.loadUnaligned(as: UInt32.self)
                    && domain.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
                    == other.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self)
            }
            while offset < length {
                guard domain.load(fromByteOffset: offset, as: UInt8.self) == other.load(fromByteOffset: offset, as: UInt8.self) else { return false }
                offset += 1
            }
            return true
        }
        for offset in 0..<length where domain.load(fromByteOffset: offset, as: UInt8.self) != DomainSlots.folded(url[start + offset]) {
            return false
        }
        return true
    }
}

/// The domain table's index (DomainTable.swift): each distinct domain's record, its bytes and its
/// entries, in a line of 64 bytes its hash picks, so that a domain found is one line read, the
/// line its lookup's probe reads anyway (a slot, then its group, were two). A line holds records
/// from its first byte to its 63rd, the last byte flags (a record of a domain whose hash picks
/// this line or one before it lies after it: the bit of that hash, `passBit`, set; a lookup reads
/// on in the next line when its own hash's bit is, though never more lines past its own than any
/// record lies: `Shape.linesPast`); a record is placed in the first line from its own with room
/// for it, within `reach` lines, a line's own domains before the others (`Layout.placingOrder`).
/// Records, one after another:
///
///     byte       D's length (255: 255 or more), never 0 (0 ends a line's records)
///     byte       its entries' bytes, 4 ... 255; 0: the record lies in the overflow, after the
///                lines, at the 32-bit offset that follows (6 bytes in all: a record too large for
///                a line, or with no room within `reach` lines)
///     D's bytes, then its entries (below)
///
/// An entry is its pattern, a 32-bit word (little-endian, unaligned) with bit 31 set when the
/// entry has a path T and bit 30 when T's filter (the bytes its sets 2 to 5 need, PathFilter.swift)
/// is not 0, then with a path T's start and end in the table's tails, two more words, and the
/// filter, a third, when bit 30 is set (a filter of 0 refuses nothing: a host context's T mostly
/// begins with its splitting set and then reads the rest of the URL). (Most entries
/// have none: a record is then D and four bytes an entry, two or three to a line.) A record in the
/// overflow is D's length and its entries' bytes (32-bit words), then D and its entries. The
/// lines are at most `fill` full, so some line has room for a stub (`stubBytes`).
/// The storage's slots are empty: its groups are the lines, then the overflow. Derived from the
/// entries, never written to a file.
enum DomainLines {
    /// The bytes of a line that hold records (the last is the flag).
    static let recordBytes = 63
    /// A record is placed inline at most this many lines from its own.
    static let reach = 8
    /// A stub's bytes: the length byte, 0, the record's 32-bit offset.
    static let stubBytes = 6
    /// The lines' records fill this much of them (the fewest lines that hold them so): fuller,
    /// absent domains' probes read on through more lines of flags and records spill to the
    /// overflow; emptier, the index outgrows the caches it is read from.
    static let fill = (numerator: 9, denominator: 10)
    /// An index of at most this many lines at half the fill (64 KB: it stays in a core's cache
    /// whatever its size) takes that many, and its probes read on less. An index read forwards
    /// (open domains, OpenDomains.swift), probed at every byte a presence bit passes, not once a
    /// label, takes half as many again.
    static let smallLines = 1024
    /// The bit of a line's flag byte that a record of hash `hash` placed past the line sets
    /// (bits of its mixed hash that neither its presence bits nor its line take): a lookup of
    /// another domain reads on past a line only when its own bit is set, an eighth as often.
    @inline(__always)
    static func passBit(_ hash: UInt64) -> UInt8 { 1 &<< UInt8(truncatingIfNeeded: (hash &* 0xC2B2_AE3D_27D4_EB4F) &>> 32 & 7) }

    /// Bit 31 of an entry's pattern: its path's start and end follow.
    static let hasPath: UInt32 = 1 << 31
    /// Bit 30 of an entry's pattern (with `hasPath`): its path's filter follows them.
    static let hasFilter: UInt32 = 1 << 30
    /// The pattern of an entry's first word (patterns are below 2^30).
    static let patternBits: UInt32 = hasFilter - 1
    /// An entry's bytes: its pattern, with a path its path's two words, with a filter one more.
    @inline(__always)
    static func entryBytes(pathed: Bool, filtered: Bool) -> Int { pathed ? filtered ? 16 : 12 : 4 }
    /// The bytes of the entry whose first word is `word`.
    @inline(__always)
    static func entryBytes(_ word: UInt32) -> Int { entryBytes(pathed: word & hasPath != 0, filtered: word & hasFilter != 0) }

    /// The index of the domain table's `count` entries, entry `e`'s domain `domains[starts[e] ..<
    /// starts[e + 1]]` (lower case), its hash `hashes[e]`, its pattern `patterns[e]` (below 2^30)
    /// and its path `tailStarts[e] ..< tailStarts[e + 1]` in `tails` (empty: none), with `tails`
    /// after the lines in its storage.
    static func index(
        starts: [UInt32], domains: [UInt8], hashes: [UInt64], patterns: [UInt32], tailStarts: [UInt32], tails: [UInt8],
        readForwards: Bool = false
    ) -> DomainSlots {
        let count = hashes.count
        func domain(_ entry: Int) -> ArraySlice<UInt8> { domains[Int(starts[entry])..<Int(starts[entry + 1])] }
        let (index, building, next) = DomainSlots.index(hashes: hashes, slots: false, same: { domain($0) == domain($1) })
        guard count > 0 else { return index }
        var layout = Layout(
            starts: starts, domains: domains, patterns: patterns, tailStarts: tailStarts, tails: tails, next: next, sparse: readForwards)
        defer { layout.deallocate() }
        layout.placeAll(hashes)
        return layout.withGroups { index.placingLines(building, lineCount: layout.lineCount, linesPast: layout.linesPast, lines: $0, extra: tails) }
    }

    /// `index`'s lines as records are placed in them, a domain at a time (its first entry's), and
    /// the overflow. Entry `e`'s next of the same domain is `next[e]` (-1: none). (The lines and
    /// their bytes used are written through their addresses, allocated for the layout and let go
    /// by `deallocate()`: a record is placed for every domain of a list at each load, and an
    /// array's element written through a stored property is a uniqueness check and a bounds check.)
    private struct Layout {
        let records: Records
        /// Per entry, whether it is its domain's first.
        let isFirst: [Bool]
        /// Per domain (its first entry), its entries' bytes.
        let entryBytes: [Int]
        let lineCount: Int
        /// The lines' bytes (`64 * lineCount`, zero where no record is), the overflow after them
        /// once placed (`withGroups`).
        let lines: UnsafeMutableRawPointer
        var overflow: [UInt8] = []
        /// Per line, its bytes used.
        let used: UnsafeMutablePointer<Int>
        var linesPast = 0

        /// Lines enough that the records fill `fill` of them (at least two), or half that for
        /// a small index, two thirds of it for a `sparse` one (`smallLines`).
        init(starts: [UInt32], domains: [UInt8], patterns: [UInt32], tailStarts: [UInt32], tails: [UInt8], next: [Int32], sparse: Bool) {
            records = Records(starts: starts, domains: domains, patterns: patterns, tailStarts: tailStarts, tails: tails, next: next)
            let count = patterns.count
            var isFirst = [Bool](repeating: true, count: count)
            for entry in next where entry >= 0 { isFirst[Int(entry)] = false }
            var entryBytes = [Int](repeating: 0, count: count)
            for first in 0..<count where isFirst[first] {
                var entry = first
                while entry >= 0 {
                    entryBytes[first] += records.entryBytes(entry)
                    entry = Int(next[entry])
                }
            }
            (self.isFirst, self.entryBytes) = (isFirst, entryBytes)
            var total = 0
            for first in 0..<count where isFirst[first] {
                let (length, size) = (Int(starts[first + 1] - starts[first]), entryBytes[first])
                total += Self.inlineSize(length: length, entryBytes: size) ?? stubBytes
            }
            let filled = max(2, (total * fill.denominator + recordBytes * fill.numerator - 1) / (recordBytes * fill.numerator))
            let lineCount = 2 * filled <= smallLines ? 2 * filled : sparse ? filled * 3 / 2 : filled
            self.lineCount = lineCount
            lines = UnsafeMutableRawPointer.allocate(byteCount: 64 * lineCount, alignment: 64)
            lines.initializeMemory(as: UInt8.self, repeating: 0, count: 64 * lineCount)
            used = UnsafeMutablePointer<Int>.allocate(capacity: lineCount)
            used.initialize(repeating: 0, count: lineCount)
        }

        /// Lets go of the lines and their bytes used.
        func deallocate() {
            lines.deallocate()
            used.deallocate()
        }

        /// `body` given the lines, then the overflow, as one run of bytes.
        func withGroups<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
            let size = 64 * lineCount
            let groups = UnsafeMutableRawBufferPointer.allocate(byteCount: size + overflow.count, alignment: 64)
            defer { groups.deallocate() }
            groups.baseAddress!.copyMemory(from: lines, byteCount: size)
            overflow.withUnsafeBytes { if let base = $0.baseAddress { (groups.baseAddress! + size).copyMemory(from: base, byteCount: $0.count) } }
            return body(UnsafeRawBufferPointer(groups))
        }

        /// The domains' first entries in the order their records are placed: by their own lines,
        /// the last line's first, so that a line's own domains take its room before those a
        /// line before it could not hold (placed later, past their own line): a lookup of a
        /// domain the index holds mostly finds it in its own line, first of the records there,
        /// and only the domains a full line turns away are read in a second line. (A counting sort
        /// by line: this runs for every domain of a list at each load.)
        func placingOrder(_ hashes: [UInt64]) -> [Int] {
            var homes = [Int32](repeating: -1, count: isFirst.count)
            var ends = [Int](repeating: 0, count: lineCount + 1)
            for first in 0..<isFirst.count where isFirst[first] {
                let home = DomainSlots.Shape.line(of: hashes[first], lines: lineCount)
                homes[first] = Int32(home)
                ends[lineCount - home] += 1
            }
            for rank in 0..<lineCount { ends[rank + 1] += ends[rank] }
            var order = [Int](repeating: 0, count: ends[lineCount])
            for first in 0..<isFirst.count where homes[first] >= 0 {
                let rank = lineCount - 1 - Int(homes[first])
                order[ends[rank]] = first
                ends[rank] += 1
            }
            return order
        }

        /// A record's bytes in a line, nil when it does not fit one.
        static func inlineSize(length: Int, entryBytes size: Int) -> Int? {
            length < 255 && size <= 255 && 2 + length + size <= recordBytes ? 2 + length + size : nil
        }

        /// Chooses the line of the record of the domain whose first entry is `first` (its hash
        /// `hash`): the first line from its own with room for it within `reach`, or else the first
        /// with room for a stub (its record in the overflow); the lines passed flagged.
        mutating func choose(_ first: Int, hash: UInt64) -> (line: Int, inline: Bool) {
            let length = records.length(first)
            let home = DomainSlots.Shape.line(of: hash, lines: lineCount)
            let inline = Self.inlineSize(length: length, entryBytes: entryBytes[first])
            let found = inline.flatMap { room($0, from: home, within: reach) }
            // (Some line has room for a stub: the lines are at most `fill` full.)
            let line = found ?? room(stubBytes, from: home, within: lineCount)!
            var passed = home
            while passed != line {
                lines.storeBytes(of: lines.load(fromByteOffset: 64 * passed + recordBytes, as: UInt8.self) | DomainLines.passBit(hash),
                                 toByteOffset: 64 * passed + recordBytes, as: UInt8.self)
                passed = passed + 1 == lineCount ? 0 : passed + 1
            }
            // (Both lines below `lineCount`: no remainder taken.)
            linesPast = max(linesPast, line >= home ? line - home : line - home + lineCount)
            return (line, found != nil)
        }

        /// Writes the record of the domain whose first entry is `first` after the records written
        /// in `line`: inline, or in the overflow with a stub in the line.
        mutating func write(_ first: Int, line: Int, inline: Bool) {
            let length = records.length(first)
            let record = lines + 64 * line + used[line]
            if inline {
                record.storeBytes(of: UInt8(length), as: UInt8.self)
                record.storeBytes(of: UInt8(entryBytes[first]), toByteOffset: 1, as: UInt8.self)
                records.write(first, at: record + 2)
                used[line] += 2 + length + entryBytes[first]
            } else {
                let place = overflow.count
                overflow += repeatElement(0, count: 8 + length + entryBytes[first])
                overflow.withUnsafeMutableBytes { overflow in
                    let start = overflow.baseAddress! + place
                    start.storeBytes(of: UInt32(length).littleEndian, as: UInt32.self)
                    start.storeBytes(of: UInt32(entryBytes[first]).littleEndian, toByteOffset: 4, as: UInt32.self)
                    records.write(first, at: start + 8)
                }
                record.storeBytes(of: UInt8(min(length, 255)), as: UInt8.self)
                record.storeBytes(of: 0 as UInt8, toByteOffset: 1, as: UInt8.self)
                record.storeBytes(of: UInt32(64 * lineCount + place).littleEndian, toByteOffset: 2, as: UInt32.self)
                used[line] += stubBytes
            }
        }

        /// Places every domain's record, in `placingOrder`.
        mutating func placeAll(_ hashes: [UInt64]) {
            for first in placingOrder(hashes) {
                let (line, inline) = choose(first, hash: hashes[first])
                write(first, line: line, inline: inline)
            }
        }

        /// The first line from `home` with room for `size` bytes, within `limit` lines.
        func room(_ size: Int, from home: Int, within limit: Int) -> Int? {
            var line = home
            for _ in 0..<limit {
                if used[line] + size <= recordBytes { return line }
                line = line + 1 == lineCount ? 0 : line + 1
            }
            return nil
        }
    }

    /// The domain table's entries, as `index` places their records.
    private struct Records {
        let starts: [UInt32]
        let domains: [UInt8]
        let tailStarts: [UInt32]
        let next: [Int32]
        /// Per entry, its first word: its pattern and flags.
        let words: [UInt32]
        /// Per entry, its path's filter (0: none, or no path).
        let filters: [UInt32]

        /// Each entry's word and filter read once (a record reads them again as it is sized and written).
        init(starts: [UInt32], domains: [UInt8], patterns: [UInt32], tailStarts: [UInt32], tails: [UInt8], next: [Int32]) {
            (self.starts, self.domains, self.tailStarts, self.next) = (starts, domains, tailStarts, next)
            var words = patterns
            var filters = [UInt32](repeating: 0, count: patterns.count)
            for entry in patterns.indices where tailStarts[entry] != tailStarts[entry + 1] {
                let filter = PathFilter.of(tails[Int(tailStarts[entry])..<Int(tailStarts[entry + 1])])
                filters[entry] = filter
                words[entry] |= DomainLines.hasPath | (filter != 0 ? DomainLines.hasFilter : 0)
            }
            (self.words, self.filters) = (words, filters)
        }

        /// Entry `entry`'s domain's length.
        func length(_ entry: Int) -> Int { Int(starts[entry + 1] - starts[entry]) }
        func entryBytes(_ entry: Int) -> Int { DomainLines.entryBytes(words[entry]) }

        /// Writes the domain's D and entries from `record`, D's length and entries' bytes before
        /// them written by the caller.
        func write(_ first: Int, at record: UnsafeMutableRawPointer) {
            let start = Int(starts[first])
            let length = Int(starts[first + 1]) - start
            domains.withUnsafeBytes { record.copyMemory(from: $0.baseAddress! + start, byteCount: length) }
            var at = length
            var entry = first
            while entry >= 0 {
                let word = words[entry]
                record.storeBytes(of: word.littleEndian, toByteOffset: at, as: UInt32.self)
                if word & DomainLines.hasPath != 0 {
                    record.storeBytes(of: tailStarts[entry].littleEndian, toByteOffset: at + 4, as: UInt32.self)
                    record.storeBytes(of: tailStarts[entry + 1].littleEndian, toByteOffset: at + 8, as: UInt32.self)
                }
                if word & DomainLines.hasFilter != 0 { record.storeBytes(of: filters[entry].littleEndian, toByteOffset: at + 12, as: UInt32.self) }
                at += DomainLines.entryBytes(word)
                entry = Int(next[entry])
            }
        }
    }

    /// The entries of the domain `url[candidate ..< candidate + length]` (bytes folded to lower
    /// case when `folding`) in the `lineCount` lines at `base`, from line `first` (its hash's;
    /// `linesPast`: the shape's): where they start and their bytes, nil when
    /// the lines hold no such domain. (The flags alone could send a lookup round every line,
    /// each passed by some record: at most `linesPast` after its own are read.)
    @inline(__always)
    static func find(
        _ base: UnsafeRawPointer, line first: Int, hash: UInt64, lineCount: Int, linesPast: Int, _ url: UnsafeBufferPointer<UInt8>,
        _ candidate: Int, _ length: Int, folding: Bool
    ) -> (entries: UnsafeRawPointer, bytes: Int)? {
        let lengthByte = min(length, 255)
        var line = first
        for _ in 0...linesPast {
            let start = base + 64 &* line
            var at = 0
            while at < recordBytes {
                let recordLength = Int(start.load(fromByteOffset: at, as: UInt8.self))
                guard recordLength != 0 else { break }
                let size = Int(start.load(fromByteOffset: at + 1, as: UInt8.self))
                if size == 0 {
                    if recordLength == lengthByte {
                        let record = base + Int(DomainGroups.word(start, at + 2))
                        if Int(DomainGroups.word(record, 0)) == length
                            && DomainGroups.holds(domain: record + 8, url, candidate, length, folding: folding)
                        {
                            return (record + 8 + length, Int(DomainGroups.word(record, 4)))
                        }
                    }
                    at += stubBytes
                    continue
                }
                if recordLength == lengthByte && DomainGroups.holds(domain: start + at + 2, url, candidate, length, folding: folding) {
                    return (start + at + 2 + length, size)
                }
                at += 2 + recordLength + size
            }
            let passed = start.load(fromByteOffset: recordBytes, as: UInt8.self)
            guard passed != 0, passed & passBit(hash) != 0 else { return nil }
            line = line &+ 1 == lineCount ? 0 : line &+ 1
        }
        return nil
    }
}

extension DomainLines {
    /// Tells `body` each record of the `lineCount` lines at `base` and their overflow (`index`'s
    /// storage's groups): its domain's bytes and its entries' bytes, in the lines' order.
    static func forEachRecord(
        _ base: UnsafeRawPointer, lineCount: Int, _ body: (_ domain: UnsafeRawBufferPointer, _ entries: UnsafeRawBufferPointer) -> Void
    ) {
        for line in 0..<lineCount {
            let start = base + 64 * line
            var at = 0
            while at < recordBytes {
                let length = Int(start.load(fromByteOffset: at, as: UInt8.self))
                guard length != 0 else { break }
                let size = Int(start.load(fromByteOffset: at + 1, as: UInt8.self))
                if size == 0 {
                    let record = base + Int(DomainGroups.word(start, at + 2))
                    let (length, size) = (Int(DomainGroups.word(record, 0)), Int(DomainGroups.word(record, 4)))
                    body(UnsafeRawBufferPointer(start: record + 8, count: length), UnsafeRawBufferPointer(start: record + 8 + length, count: size))
                    at += stubBytes
                } else {
                    body(UnsafeRawBufferPointer(start: start + at + 2, count: length), UnsafeRawBufferPointer(start: start + at + 2 + length, count: size))
                    at += 2 + length + size
                }
            }
        }
    }
}

extension DomainSlots {
    /// The index with its storage's groups `lines` (`DomainLines`: `lineCount` of them, then the
    /// overflow), no slots (a hash's line is `Shape.line(of:)`).
    fileprivate func placingLines(
        _ building: Building, lineCount: Int, linesPast: Int, lines: UnsafeRawBufferPointer, extra: [UInt8]
    ) -> DomainSlots {
        var index = self
        index.shape.lines = lineCount
        index.shape.linesPast = linesPast
        index.storage = Storage(shape: index.shape, presentBits: building.presentBits, slots: [], groups: lines, extra: extra)
        return index
    }
}

extension DomainSlots {
    /// The index's storage (its presence bits, slots, groups and the bytes its lookups read) as
    /// the part `name`.
    func held(_ name: String, into memory: inout HeldMemory) {
        guard let storage else { return }
        storage.memory.held(name, into: &memory)
    }
}
