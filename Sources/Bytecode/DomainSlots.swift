// DomainSlots.swift — Bytecode
//
// The hash index of a domain table's distinct domains (DomainTable.swift, DomainConditionTable.swift)
// and the groups its slots point to (a domain's bytes and its entries side by side): derived from
// the entries when a table is made or read, never written to a file; and what both tables read
// domains with (the hashes, letters folded, the check of a domain's bytes). Both hashes
// read a domain from its end, so that a lookup hashes a host's candidates as it reads the host
// backwards, each label adding to the hash of the ones after it: the domain table's by eight-byte
// words (`wordHash`: a URL's host is read once per request), the condition table's a byte at a
// time (`hash`: a page's host, once per page).

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
    }

    /// An open-addressing table of 32-bit slots, at most two thirds full, one per distinct domain,
    /// a slot holding its domain's group's place + 1 (0: empty; `DomainGroups`) in its low bits
    /// (`valueMask`) and the top bits of the domain's hash above them, so that a probe that finds
    /// another domain reads nothing else (EasyList and EasyPrivacy: 1 MB); and the lookup's first
    /// test, two bits a domain in one word of presence bits (`presence(_:)`: a blocked Bloom
    /// filter), `presenceBitsPerDomain` bits a domain. A label whose bits are not both set is in
    /// no slot; most labels of most hosts are in none, and the bits (64 KB for EasyList and
    /// EasyPrivacy) stay in a core's cache where the slots they spare a read of would miss it.
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
        private let memory: UnsafeMutableRawPointer

        fileprivate init(shape: Shape, presentBits: [UInt64], slots: [UInt32], groups: UnsafeRawBufferPointer, extra: [UInt8]) {
            func lines(_ bytes: Int) -> Int { (bytes + 63) & ~63 }
            let (bitsBytes, slotBytes, groupBytes) = (lines(8 * presentBits.count), lines(4 * slots.count), lines(groups.count))
            memory = .allocate(byteCount: max(1, bitsBytes + slotBytes + groupBytes + extra.count), alignment: 64)
            let bits = memory.bindMemory(to: UInt64.self, capacity: presentBits.count)
            presentBits.withUnsafeBufferPointer { if let base = $0.baseAddress { bits.initialize(from: base, count: $0.count) } }
            let slotStart = (memory + bitsBytes).bindMemory(to: UInt32.self, capacity: slots.count)
            slots.withUnsafeBufferPointer { if let base = $0.baseAddress { slotStart.initialize(from: base, count: $0.count) } }
            let groupStart = memory + bitsBytes + slotBytes
            if let base = groups.baseAddress { groupStart.copyMemory(from: base, byteCount: groups.count) }
            let extraStart = (memory + bitsBytes + slotBytes + groupBytes).bindMemory(to: UInt8.self, capacity: extra.count)
            extra.withUnsafeBufferPointer { if let base = $0.baseAddress { extraStart.initialize(from: base, count: $0.count) } }
            self.shape = shape
            self.presentBits = UnsafeBufferPointer(start: bits, count: presentBits.count)
            self.slots = UnsafeBufferPointer(start: slotStart, count: slots.count)
            self.groups = UnsafeRawPointer(groupStart)
            self.extra = UnsafeBufferPointer(start: extraStart, count: extra.count)
        }

        // (The elements are plain values: nothing to deinitialize.)
        deinit { memory.deallocate() }
    }

    /// The index of `count` entries whose domains `hash` gives, its slots holding a domain's first
    /// entry (until `DomainGroups.index` repoints them to its groups); `same` tells whether two
    /// entries' domains are equal. Returns it and its arrays, with, per entry, the next entry of
    /// the same domain (-1: none): only a domain's first entry has a slot.
    fileprivate static func index(count: Int, hash: (Int) -> UInt64, same: (Int, Int) -> Bool)
        -> (DomainSlots, Building, nextOfDomain: [Int32])
    {
        var index = DomainSlots()
        var next = [Int32](repeating: -1, count: count)
        guard count > 0 else { return (index, Building(slots: [], presentBits: []), next) }
        var capacity = 2
        while 2 * capacity < 3 * count { capacity *= 2 }
        index.shape.shift = UInt64(64 - capacity.trailingZeroBitCount)
        let entryBits = UInt32(UInt32.bitWidth - UInt32(count).leadingZeroBitCount)
        index.shape.valueMask = entryBits == 32 ? .max : (1 << entryBits) - 1
        var slots = [UInt32](repeating: 0, count: capacity)
        var bits = 128
        while bits < DomainSlots.presenceBitsPerDomain * count { bits *= 2 }
        index.shape.presentShift = UInt64(64 - (bits / 64).trailingZeroBitCount)
        var presentBits = [UInt64](repeating: 0, count: bits / 64)
        var lastOfDomain = [Int32](repeating: -1, count: count)
        entries: for entry in 0..<count {
            let hash = hash(entry)
            var slot = index.slot(of: hash)
            while slots[slot] != 0 {
                // An entry whose domain has a slot already is chained after the others.
                let first = Int(slots[slot] & index.valueMask) - 1
                if slots[slot] & ~index.valueMask == index.fingerprint(hash) && same(first, entry) {
                    let last = lastOfDomain[first] < 0 ? first : Int(lastOfDomain[first])
                    next[last] = Int32(entry)
                    lastOfDomain[first] = Int32(entry)
                    continue entries
                }
                slot = (slot + 1) & (capacity - 1)
            }
            slots[slot] = index.fingerprint(hash) | UInt32(entry + 1)
            let (word, mask) = index.shape.presence(hash)
            presentBits[word] |= mask
        }
        return (index, Building(slots: slots, presentBits: presentBits), next)
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

    /// A byte with an upper-case letter folded to lower case.
    @inline(__always)
    static func folded(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }

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
        let (index, building, next) = DomainSlots.index(count: count, hash: { hashes[$0] }, same: { domain($0) == domain($1) })
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
        let domain = group + 8
        if !folding {
            // (Eight bytes at a time, then one: `memcmp` reads ahead of a short D, into a line no
            // lookup needs.)
            let other = UnsafeRawPointer(url.baseAddress! + start)
            var offset = 0
            while offset + 8 <= length {
                guard domain.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == other.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                else { return false }
                offset += 8
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
