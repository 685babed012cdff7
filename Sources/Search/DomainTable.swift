// DomainTable.swift — Search
//
// Patterns of two exact shapes answered by hashing instead of by an automaton. Converters write
// an ABP rule `||domain^` as
//
//     ^[^:]+:\/\/+([^:/]+\.)?D[/:]        D a literal without `:` or `/` (case-insensitive)
//
// and such rules are most of a real list (EasyList and EasyPrivacy together: 91,652 of their
// 103,482 distinct url-filters). Built as automata they are a trie of a million states behind a
// stage prefix, run from every label of the host. What the shape means is simpler than that
// trie: in a URL whose first `:` is followed by at least two `/`, let A be the bytes after that
// run of `/` up to the next `/` or `:` (the URL must go on with one of them); the pattern matches
// exactly when D equals A from its start, or from the byte after a `.` that is not A's first
// byte. (`[^:]+`, `[^:/]+` and D exclude NUL and bytes from 128 on, so such a byte before A's end
// rules every pattern out.) A URL is then read once up to A's end, and A's candidates, a
// handful, are looked up by a hash computed from A's end backwards.
//
// The second shape has a path: `^[^:]+:\/\/+([^:/]+\.)?D T`, T a sequence of single characters
// or classes (no group, no quantifier), the first of `/` and `:` only (`||domain/ads/`: 6,304
// more in the pair). D holds neither `/` nor `:`, so it can only end where A does, and the
// pattern matches exactly when D is found as above and T matches from A's end. Such an entry
// keeps T, and a domain found checks its T against the bytes from A's end (then the end-of-URL
// NUL), a set a byte. Paths with a loop or an optional part stay with the automata.
//
// The same reading gives the places where the shapes' prefix ends, so a stage with that prefix
// (the other `||` rules) starts its suffixes there without running its prefix program
// (ProgramSet.swift). (Tests: DomainTableTests.)
//
// In a file (at the end of a programs section, ProgramSet.swift):
//
//     count      varint   entries, in increasing pattern order
//     per entry  varint   its pattern minus the previous entry's pattern + 1 (the first: itself);
//                         past the set's patterns, a gate: group g of the set's gated groups is
//                         `patterns + g`, and runs from the host's end where the entry
//                         matches (ProgramSet.swift)
//                varint   D's length << 1, bit 0 set when T follows; then D's bytes: ASCII
//                         1...127 but `/`, `:` and upper-case letters (D is matched with letters
//                         folded to lower case); length 0: D is the previous entry's
//                [varint] T's length in bytes (>= 1), then T, each set in its one shortest form:
//                         0x80 `/` and `:`; a lower-case letter: it in both cases; 0xC1...0xDA,
//                         0xE1...0xFA: the letter minus 0x80 alone; another byte from 1 to 127: it
//                         alone; 0: any other set, in the next 16 bytes (bit b % 8 of byte b / 8
//                         set: byte b is in the set). An end anchor is a last set of NUL alone.
//                         Without T, T is `[/:]`. A last byte 0xFF (after at least one set):
//                         the rest of the URL, up to its first NUL, is ASCII (`.*$`; nothing
//                         when a set has read the URL's end already). In a host context's table
//                         only (HostContextTable.swift), a first byte 0xFE: the context's
//                         splitting set, which the lookup found there already.

internal import Bytecode
public import URLFilterSyntax
internal import Automata

public struct DomainTable: Hashable, Sendable {
    /// Per entry: the pattern it reports (empty once compacted: the index's records hold them,
    /// `expanded()` reads them from there), and its domain's bytes in `bytes`.
    private var entryPatterns: [UInt32] = []
    /// The entries' count (kept apart from `entryPatterns`, which a compacted table lets go).
    public private(set) var count = 0
    private var starts: [UInt32] = [0]
    private var bytes: [UInt8] = []
    /// Per entry: its T's encoding in `tails` (empty: `[/:]`, which A's end already satisfies).
    private var tailStarts: [UInt32] = [0]
    private var tails: [UInt8] = []
    /// The lookup's index: the distinct domains' records in lines (`DomainLines`, DomainSlots.swift),
    /// an entry's its pattern and, when it has a T, T's start and end in `tails`. Derived from the
    /// entries.
    private var index = DomainSlots()
    /// What a lookup reads of `index`'s storage (`Tables`), taken once when the index is made
    /// (nil: no index): a lookup reads it here, not from the storage object at each request.
    /// Valid while the table is: the table holds the storage it points into.
    private var lookup: Tables?
    /// The entries' domains and paths were let go (`compacted()`): the index holds them, and
    /// what reads them reads a table made of it (`expanded()`). (Told by `starts`, which has an
    /// element more than the entries otherwise: no field of its own, so the table a lookup is
    /// handed keeps its layout.)
    private var entriesInIndex: Bool { starts.isEmpty }

    /// Per entry, the pattern it reports, in increasing order. Of a compacted table, the whole
    /// table is expanded to read them (`expanded()`): a caller that reads more reads that instead.
    public func expandedPatterns() -> [UInt32] { entriesInIndex ? expanded().entryPatterns : entryPatterns }
    /// Per entry, the pattern it reports, of a table that holds its entries (not compacted, or
    /// `expanded()`): read in place.
    var patternsOfExpanded: [UInt32] {
        precondition(!entriesInIndex, "a compacted table's patterns are read from expanded()")
        return entryPatterns
    }

    public static func == (lhs: DomainTable, rhs: DomainTable) -> Bool {
        guard lhs.count == rhs.count else { return false }
        let (lhs, rhs) = (lhs.expanded(), rhs.expanded())
        return lhs.entryPatterns == rhs.entryPatterns && lhs.starts == rhs.starts && lhs.bytes == rhs.bytes && lhs.tailStarts == rhs.tailStarts && lhs.tails == rhs.tails
    }

    public func hash(into hasher: inout Hasher) {
        let table = expanded()
        hasher.combine(table.entryPatterns)
        hasher.combine(table.bytes)
    }

    public static let empty = DomainTable()

    private init() {}

    /// The table of `entries` (patterns in increasing order, each domain and tail as `split(_:)`
    /// made them; an empty tail: `[/:]`). Without `indexing`, the lookup's index is made when the
    /// table is first prepared to run (`indexed()`): a table the compiler makes is written, not run.
    public init(_ entries: [(pattern: UInt32, domain: [UInt8], tail: [UInt8])], indexing: Bool = true) {
        // (The entries read in place, not copied out: a copy retains and releases both arrays.
        // Made in locals, not in the stored arrays: each append there is an access to `self`.)
        var (patterns, starts, bytes, tailStarts, tails) = (self.entryPatterns, self.starts, self.bytes, self.tailStarts, self.tails)
        entries.withUnsafeBufferPointer { entries in
            patterns.reserveCapacity(entries.count)
            starts.reserveCapacity(entries.count + 1)
            tailStarts.reserveCapacity(entries.count + 1)
            for index in entries.indices {
                let pattern = entries[index].pattern
                // (Domains and tails come from `split(_:)`, which checked them.)
                precondition(patterns.last.map { $0 < pattern } ?? true)
                precondition(pattern <= DomainLines.patternBits, "patterns below 2^30")
                patterns.append(pattern)
                starts.append(starts.last! + UInt32(entries[index].domain.count))
                tailStarts.append(tailStarts.last! + UInt32(entries[index].tail.count))
            }
            bytes = Self.joined(entries, size: Int(starts.last!)) { $0.domain }
            tails = Self.joined(entries, size: Int(tailStarts.last!)) { $0.tail }
        }
        (self.entryPatterns, self.starts, self.bytes, self.tailStarts, self.tails) = (patterns, starts, bytes, tailStarts, tails)
        count = patterns.count
        if indexing { makeIndex() }
    }

    /// Each entry's `part` (`size` bytes in all) one after another, copied in place: an append
    /// per entry would check the array's room and uniqueness each time.
    private static func joined(
        _ entries: UnsafeBufferPointer<(pattern: UInt32, domain: [UInt8], tail: [UInt8])>, size: Int,
        _ part: (borrowing (pattern: UInt32, domain: [UInt8], tail: [UInt8])) -> [UInt8]
    ) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            for index in entries.indices {
                part(entries[index]).withUnsafeBufferPointer { bytes in
                    guard let source = bytes.baseAddress else { return }
                    precondition(count + bytes.count <= size, "entries longer than their size")
                    (buffer.baseAddress! + count).initialize(from: source, count: bytes.count)
                    count += bytes.count
                }
            }
            precondition(count == size, "entries shorter than their size")
        }
    }

    /// Whether the lookup's index is made (an empty table needs none).
    public var isIndexed: Bool { isEmpty || index.storage != nil }

    /// This table with its lookup's index made.
    public func indexed() -> DomainTable {
        guard !isIndexed else { return self }
        var table = self
        table.makeIndex()
        return table
    }

    /// This table with its index made by another hash of the domains (`hash`, of a domain's bytes):
    /// a table whose domains are found where they begin (OpenDomains.swift) hashes them forwards.
    func indexed(hashing hash: (ArraySlice<UInt8>) -> UInt64) -> DomainTable {
        var table = expanded()
        table.makeIndex(hashing: hash, readForwards: true)
        return table
    }

    /// This table with an entry for each gate a domain gates (`domains[g]`: gate `base + g`'s
    /// domain, nil for a gate built whole) that it lacks. Gates come after every pattern.
    public func includingGates(from base: UInt32, _ domains: [[UInt8]?]) -> DomainTable {
        let table = expanded()
        let patterns = table.entryPatterns
        let missing = domains.enumerated().compactMap { group, domain -> (pattern: UInt32, domain: [UInt8], tail: [UInt8])? in
            guard let domain else { return nil }
            let gate = base + UInt32(group)
            var low = 0
            var high = patterns.count
            while low < high {
                let middle = (low + high) / 2
                if patterns[middle] < gate { low = middle + 1 } else { high = middle }
            }
            return low < patterns.count && patterns[low] == gate ? nil : (gate, domain, [])
        }
        guard !missing.isEmpty else { return self }
        let entries = (0..<count).map { (pattern: table.entryPatterns[$0], domain: Array(table.domain($0)), tail: Array(table.tail($0))) } + missing
        return DomainTable(entries.sorted { $0.pattern < $1.pattern }, indexing: isIndexed)
    }

    /// The table of entries without tails.
    public init(_ entries: [(pattern: UInt32, domain: [UInt8])]) {
        self.init(entries.map { (pattern: $0.pattern, domain: $0.domain, tail: []) })
    }

    @inlinable public var isEmpty: Bool { count == 0 }

    /// Entry `entry`'s domain. (Of a compacted table: read from its index, every entry; a caller
    /// that reads many reads them from `expanded()`.)
    public func domain(_ entry: Int) -> ArraySlice<UInt8> {
        guard !entriesInIndex else { return expanded().domain(entry) }
        return bytes[Int(starts[entry])..<Int(starts[entry + 1])]
    }
    /// Entry `entry`'s T, encoded (empty: `[/:]`).
    public func tail(_ entry: Int) -> ArraySlice<UInt8> {
        guard !entriesInIndex else { return expanded().tail(entry) }
        return tails[Int(tailStarts[entry])..<Int(tailStarts[entry + 1])]
    }

    /// This table, indexed, without its entries' domains and paths beside the index, which holds
    /// them (a loaded list's table: the entries are read again only to write, compare or print
    /// the table, from `expanded()`).
    /// (An empty table: `empty`, whose arrays every empty table shares.)
    public func compacted() -> DomainTable {
        guard !isEmpty else { return .empty }
        guard !entriesInIndex else { return self }
        var table = indexed()
        (table.entryPatterns, table.starts, table.bytes, table.tailStarts, table.tails) = ([], [], [], [], [])
        return table
    }

    /// The entry whose pattern is `pattern` in `patterns` (sorted, each pattern an entry's
    /// alone): how a compacted table's index names the entries it holds.
    static func entry(ofPattern pattern: UInt32, in patterns: [UInt32]) -> Int {
        var (low, high) = (0, patterns.count)
        while low < high {
            let middle = (low + high) / 2
            if patterns[middle] < pattern { low = middle + 1 } else { high = middle }
        }
        precondition(low < patterns.count && patterns[low] == pattern, "an index's entry that the table lacks")
        return low
    }

    /// This table with its entries' patterns, domains and paths, read from its index when it was
    /// compacted: the index's entries (`forEachEntry`), the patterns sorted (the entries' order),
    /// each entry found by its pattern, which no other entry has.
    public func expanded() -> DomainTable {
        guard entriesInIndex, let storage = index.storage else { return self }
        var patterns: [UInt32] = []
        patterns.reserveCapacity(count)
        forEachEntry(storage) { _, pattern, _ in patterns.append(pattern) }
        patterns.sort()
        precondition(patterns.count == count, "an index that holds another count of entries than its table")
        var domains = [UnsafeRawBufferPointer](repeating: UnsafeRawBufferPointer(start: nil, count: 0), count: count)
        var paths = [(start: UInt32, end: UInt32)?](repeating: nil, count: count)
        forEachEntry(storage) { domain, pattern, path in
            let entry = Self.entry(ofPattern: pattern, in: patterns)
            (domains[entry], paths[entry]) = (domain, path)
        }
        var table = self
        table.entryPatterns = patterns
        table.tails = Array(storage.extra)
        (table.starts, table.tailStarts) = ([0], [0])
        table.starts.reserveCapacity(count + 1)
        table.tailStarts.reserveCapacity(count + 1)
        table.bytes.reserveCapacity(domains.reduce(0) { $0 + $1.count })
        for entry in 0..<count {
            table.bytes += domains[entry]
            table.starts.append(UInt32(table.bytes.count))
            if let path = paths[entry] {
                precondition(path.start == table.tailStarts[entry], "paths out of entry order")
                table.tailStarts.append(path.end)
            } else {
                table.tailStarts.append(table.tailStarts[entry])
            }
        }
        return table
    }

    /// Tells `body` each entry the index's records (`storage`'s, `DomainLines.forEachRecord`)
    /// hold, in the records' order: its domain's bytes, its pattern and its path's start and end
    /// in `tails` (nil: none).
    private func forEachEntry(
        _ storage: DomainSlots.Storage,
        _ body: (_ domain: UnsafeRawBufferPointer, _ pattern: UInt32, _ path: (start: UInt32, end: UInt32)?) -> Void
    ) {
        DomainLines.forEachRecord(storage.groups, lineCount: index.shape.lines) { domain, entries in
            var at = 0
            while at < entries.count {
                let word = UInt32(littleEndian: entries.loadUnaligned(fromByteOffset: at, as: UInt32.self))
                guard word & DomainLines.hasPath != 0 else {
                    body(domain, word, nil)
                    at += 4
                    continue
                }
                let path = (
                    start: UInt32(littleEndian: entries.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self)),
                    end: UInt32(littleEndian: entries.loadUnaligned(fromByteOffset: at + 8, as: UInt32.self)))
                body(domain, word & DomainLines.patternBits, path)
                at += DomainLines.entryBytes(word)
            }
        }
    }

    // MARK: The shape

    /// What the table makes of `filter`: D, lower case, and T encoded (empty when T is `[/:]`);
    /// nil when `filter` has neither shape.
    public static func split(_ filter: URLFilter) -> (domain: [UInt8], tail: [UInt8])? {
        HostPattern(filter).map { ($0.domain, encode($0.tail)) }
    }

    /// T's sets as the file holds them (empty: `[/:]`).
    public static func encode(_ tail: [ASCIISet]) -> [UInt8] {
        guard !tail.isEmpty else { return [] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(17 * tail.count)  // (room for the longest: one allocation, no growth)
        for set in tail { encode(set, into: &bytes) }
        return bytes
    }

    /// D, lower case, when `filter` has the shape without a path (T is `[/:]`); nil otherwise.
    public static func domain(of filter: URLFilter) -> [UInt8]? {
        guard let (domain, tail) = split(filter), tail.isEmpty else { return nil }
        return domain
    }

    /// A set of T as its bytes (see the file's layout above): each set in one way only, the
    /// shortest.
    static func encode(_ set: ASCIISet, into tail: inout [UInt8]) {
        if let code = shortCode(set) {
            tail.append(code)
            return
        }
        // (Bit b of byte i is code unit 8i + b: the set's two words, little-endian.)
        tail.append(0)
        withUnsafeBytes(of: set.low.littleEndian) { tail.append(contentsOf: $0) }
        withUnsafeBytes(of: set.high.littleEndian) { tail.append(contentsOf: $0) }
    }

    /// The one-byte code of `set`, when it has one: `/` and `:`; a letter in both cases (lower
    /// case); another byte but NUL alone (itself); a letter alone (with 0x80).
    /// (The set's members taken lowest first, not counted: a count is two population counts,
    /// done in software by this build, for each of a path's characters.)
    private static func shortCode(_ set: ASCIISet) -> UInt8? {
        if set == HostPattern.terminator { return 0x80 }
        guard let lowest = set.lowest else { return nil }
        let others = set.withoutLowest
        guard let second = others.lowest else { return lowest == 0 ? nil : isLetter(lowest) ? lowest | 0x80 : lowest }
        guard others.withoutLowest.isEmpty else { return nil }
        return (0x41...0x5A).contains(lowest) && second == lowest + 0x20 ? lowest + 0x20 : nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }

    /// Whether T's encoding `tail` matches `url` from `start` (the end-of-URL NUL after its last
    /// byte). Only for an encoding `encode` made or `read` checked.
    static func tailMatches(_ tail: ArraySlice<UInt8>, _ url: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        tail.withUnsafeBufferPointer { tailMatches($0, 0..<$0.count, url, from: start) }
    }

    /// Whether T's encoding `tails[range]` matches `url` from `start` (`tailMatches(_:_:from:)`):
    /// a run of one-byte codes of single bytes below 128 read up to eight at a time
    /// (`literalStep`), the other codes one at a time.
    static func tailMatches(_ tails: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ url: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        var at = range.lowerBound
        var place = start
        while at < range.upperBound {
            let read = literalStep(tails, at, range.upperBound, url, place)
            if read < 0 { return false }
            if read > 0 {
                at += read
                place += read
                continue
            }
            let code = tails[at]
            // (The rest is nothing once a set has read the URL's end, or a NUL in it, which the
            // automata read as the end too.)
            if code == Self.restCode {
                return place > url.count || (place > start && url[place - 1] == 0) || Self.isASCIIUpToNUL(url, from: place)
            }
            guard place <= url.count else { return false }
            let byte = place < url.count ? url[place] : 0
            let matches: Bool
            switch code {
            case 0:
                matches = byte < 128 && tails[at + 1 + Int(byte >> 3)] >> (byte & 7) & 1 == 1
                at += 16
            case 0x80: matches = byte == 0x2F || byte == 0x3A
            case Self.splitCode: matches = true
            case 0x81...: matches = byte == code & 0x7F
            default: matches = byte != 0 && DomainSlots.folded(byte) == code
            }
            guard matches else { return false }
            at += 1
            place += 1
        }
        return true
    }

    /// The codes of `tails` from `at` (before `end`) read at once against `url`'s bytes from
    /// `place`: those of its first eight that lead with a code from 1 to 127 (one byte, or a
    /// letter in both cases), their count when all match, -1 when one does not; 0 when none is
    /// read so (the first code another, or eight bytes of `tails` or of a short URL not
    /// loadable). A byte matches such a code when it equals it folded to lower case: the URL's
    /// word is folded by `DomainSlots.folded(word:)` (a byte from 128 on keeps its high bit and
    /// matches none, whatever its carry makes of the bytes after it, which the word then refuses
    /// too).
    /// Codes that need bytes past the URL's end are refused (NUL, there, matches none).
    @inline(__always)
    static func literalStep(_ tails: UnsafeBufferPointer<UInt8>, _ at: Int, _ end: Int, _ url: UnsafeBufferPointer<UInt8>, _ place: Int) -> Int {
        guard at + 8 <= tails.count, let codes = tails.baseAddress, let base = url.baseAddress, UInt64(1).littleEndian == 1 else { return 0 }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let word = DomainSlots.word(UnsafeRawPointer(codes), at: at)
        // The first code that is 0 or from 128 on (the lowest flagged byte is exact).
        let others = (word & highs) | ((word &- ones) & ~word & highs)
        let count = min(others == 0 ? 8 : others.trailingZeroBitCount / 8, end - at)
        guard count > 0 else { return 0 }
        guard place + count <= url.count else { return -1 }
        let bytes: UInt64
        if place + 8 <= url.count {
            bytes = DomainSlots.word(UnsafeRawPointer(base), at: place)
        } else if url.count >= 8 {
            bytes = DomainSlots.word(UnsafeRawPointer(base), at: url.count - 8) >> UInt64(8 * (place + 8 - url.count))
        } else {
            return 0
        }
        let folded = DomainSlots.folded(word: bytes)
        let mask = count == 8 ? UInt64.max : (1 << UInt64(8 * count)) - 1
        return (folded ^ word) & mask == 0 ? count : -1
    }

    /// T's last code when the rest of the URL must be ASCII (`.*$`).
    public static let restCode: UInt8 = 0xFF
    /// T's first code, in a host context's table, when its first set is the context's splitting set.
    public static let splitCode: UInt8 = 0xFE

    /// Whether `url`'s bytes from `start` up to its first NUL (or its end) are all below 128.
    static func isASCIIUpToNUL(_ url: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        var at = start
        while at < url.count {
            let byte = url[at]
            if byte == 0 { return true }
            if byte >= 128 { return false }
            at += 1
        }
        return true
    }

    /// Whether `tail` is an encoding `encode` makes: whole sets, none empty, each in its one form
    /// (so `tailMatches` may read it, and a changed byte is more often refused than read), the
    /// rest's code last and after a set.
    static func isValidTail(_ tail: ArraySlice<UInt8>, splitting: Bool = false) -> Bool {
        var at = tail.startIndex
        while at < tail.endIndex {
            let code = tail[at]
            if code == Self.splitCode {
                guard splitting, at == tail.startIndex else { return false }
            } else if code == Self.restCode {
                guard at > tail.startIndex, at == tail.endIndex - 1 else { return false }
            } else if code == 0 {
                guard tail.endIndex - at > 16 else { return false }
                let set = Self.set(in: tail, at: at)
                guard !set.isEmpty, shortCode(set) == nil else { return false }
                at += 16
            } else if code < 0x80 ? (0x41...0x5A).contains(code) : code > 0x80 && !isLetter(code & 0x7F) {
                return false
            }
            at += 1
        }
        return !tail.isEmpty
    }

    /// The set whose code starts at `at` in the valid encoding `tail`.
    private static func set(in tail: ArraySlice<UInt8>, at: Int) -> ASCIISet {
        switch tail[at] {
        case 0: ASCIISet((0..<128).filter { tail[at + 1 + $0 / 8] >> ($0 % 8) & 1 == 1 }.map(UInt8.init))
        case 0x80: HostPattern.terminator
        case let code where code > 0x80: ASCIISet(code & 0x7F)
        case let code: ASCIISet(code).caseFolded
        }
    }

    /// A domain the table can hold: not empty, its bytes in `domainBytes`. Read eight bytes a
    /// step (`refusedBytes(word:)`; a domain shorter than a word filled out with `a`): a list's
    /// domains are checked at each load, a megabyte and more for EasyList and EasyPrivacy. (Held
    /// to `DomainSlots.isDomain(_:of: domainBytes)` by DomainTableTests.)
    static func isValid(_ domain: UnsafeBufferPointer<UInt8>) -> Bool { DomainSlots.isDomain(domain, refusing: refusedBytes(word:)) }

    /// ASCII 1...127 but `/`, `:` and upper-case letters.
    static let domainBytes = ASCIISet((1...127).filter { $0 != 0x2F && $0 != 0x3A && !(0x41...0x5A).contains($0) })

    private static let ones: UInt64 = 0x0101_0101_0101_0101

    /// Not 0 when some byte of `word` is not in `domainBytes`: a byte a condition table refuses
    /// (`DomainConditionTable.refusedBytes(word:)`), or `:` (a byte 0 of the word xor `:`, found
    /// exactly: a borrow starts only at a zero byte).
    @inline(__always)
    static func refusedBytes(word: UInt64) -> UInt64 {
        let colons = word ^ (0x3A &* ones)
        return DomainConditionTable.refusedBytes(word: word) | (colons &- ones) & ~colons & (0x80 &* ones)
    }

    // MARK: The lookup

    private mutating func makeIndex(hashing hash: (ArraySlice<UInt8>) -> UInt64 = DomainSlots.wordHash, readForwards: Bool = false) {
        // (Each domain sliced from the bytes here: `domain(_:)` asks first whether the table was compacted.)
        let hashes = (0..<count).map { hash(bytes[Int(starts[$0])..<Int(starts[$0 + 1])]) }
        index = DomainLines.index(
            starts: starts, domains: bytes, hashes: hashes, patterns: entryPatterns,
            tailStarts: tailStarts, tails: tails, readForwards: readForwards)
        lookup = index.storage.map { Tables(shape: $0.shape, presentBits: $0.presentBits, lines: $0.groups, tails: $0.extra) }
    }

    /// Where the shape's prefix `^[^:]+:\/\/+([^:/]+\.)?` ends in a URL: after each `/` of the
    /// run after the first `:` from its second on (`slashesEnd` ... `start`), and after each `.`
    /// of A but its first byte, A being `start ..< end`, up to the first `/`, `:`, NUL or byte from
    /// 128 on. The domains are looked up only when A ends at a `/` or `:` (`terminated`).
    public struct HostLabels: Sendable {
        public var slashesEnd: Int
        public var start: Int
        public var end: Int
        public var terminated: Bool
        /// A is terminated and holds an upper-case letter (read with A: the domains are then
        /// matched with letters folded; a canonical URL's host has none).
        public var hasUpperCase: Bool
        /// A holds plain host bytes only (lower-case letters, digits, `-` and `.`; read with A):
        /// a host context's lookup may take its labels for candidates (HostLabelStarts.swift).
        public var isPlain: Bool

        // The places where the prefix ends, where a stage's suffixes start, are told one at a
        // time by `HostLabelEnds` (ProgramSet.swift).
    }

    /// A URL's host labels as `hostLabels(_:steps:)` reads them, with the bytes it read: read
    /// once and given to each program set run over the URL (several lists asked about one request).
    public struct HostReading: Sendable {
        public let labels: HostLabels?
        public let steps: Int

        /// The reading of `url` (without its end-of-URL NUL).
        public init(_ url: UnsafeBufferPointer<UInt8>) {
            var steps = 0
            labels = DomainTable.hostLabels(url, steps: &steps)
            self.steps = steps
        }
    }

    /// The host labels of `url` (without its end-of-URL NUL), nil when the prefix cannot match
    /// (no scheme, a NUL or a byte from 128 in it, fewer than two `/` after it); `steps` is
    /// told the bytes read.
    public static func hostLabels(_ url: UnsafeBufferPointer<UInt8>, steps: inout Int) -> HostLabels? {
        let colon = 0x3A as UInt8, slash = 0x2F as UInt8
        // `[^:]+:\/\/`: the scheme and two `/` (`https://`, which most URLs begin with, as a word:
        // its `:` is at 5, as `schemeColon` finds).
        let at: Int
        if url.count >= 8 && UnsafeRawPointer(url.baseAddress!).loadUnaligned(as: UInt64.self) == Self.httpsWord {
            at = 5
        } else {
            guard let found = schemeColon(url, steps: &steps) else { return nil }
            at = found
        }
        // `\/\/+`, then A: past its plain bytes (a canonical URL's host is all of them: it then has
        // no upper-case letter to look for, and a host context takes its labels without reading it
        // again), then, if another byte stops them, past any but a stop.
        var start = at + 3
        while start < url.count && url[start] == slash { start += 1 }
        var end = LabelStartStates.plainHostEnd(url, from: start)
        let isPlain = end == url.count || url[end] == slash || url[end] == colon || url[end] == 0 || url[end] >= 0x80
        if !isPlain {
            end = Self.firstStop(url, from: end)
            while end < url.count {
                let byte = url[end]
                guard byte != slash && byte != colon && byte != 0 && byte < 0x80 else { break }
                end += 1
            }
        }
        steps += end + 1
        let terminated = end < url.count && (url[end] == slash || url[end] == colon)
        return HostLabels(
            slashesEnd: at + 3, start: start, end: end, terminated: terminated,
            hasUpperCase: terminated && !isPlain && Self.hasUpperCase(url, from: start, to: end), isPlain: isPlain)
    }

    /// `https://` as a little-endian word (its first byte lowest).
    static var httpsWord: UInt64 { 0x2F2F_3A73_7074_7468 }

    /// The place of the `:` of `url`'s prefix `[^:]+:\/\/`, nil (`steps` told the bytes read) when
    /// it has none: no `:`, an empty scheme, a NUL or a byte from 128 on before it, or fewer than
    /// two `/` after it.
    static func schemeColon(_ url: UnsafeBufferPointer<UInt8>, steps: inout Int) -> Int? {
        let colon = 0x3A as UInt8, slash = 0x2F as UInt8
        // `[^:]+:`: the scheme (past the words that hold no `:`, NUL or byte from 128 on).
        var at = Self.firstStop(url, from: 0, atSlash: false)
        while at < url.count && url[at] != colon {
            guard url[at] != 0 && url[at] < 0x80 else {
                steps += at + 1
                return nil
            }
            at += 1
        }
        guard at > 0, at + 2 < url.count, url[at + 1] == slash, url[at + 2] == slash else {
            steps += min(at + 3, url.count + 1)
            return nil
        }
        return at
    }

    /// A place at or before the first byte of `url` from `start` on that is `/` (unless not
    /// `atSlash`: a scheme may hold one), `:`, NUL or from 128 on: past the eight-byte words that
    /// hold none (a byte b is NUL when (b - 1) & ~b has its high bit set, and `/` or `:` when b
    /// xor it is NUL; the lowest flagged byte of a word is exact). The caller reads on from there a
    /// byte at a time. (A URL's scheme and host are read so on every request.)
    @inline(__always)
    static func firstStop(_ url: UnsafeBufferPointer<UInt8>, from start: Int, atSlash: Bool = true) -> Int {
        guard let base = UnsafeRawPointer(url.baseAddress), UInt64(1).littleEndian == 1 else { return start }
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func nul(_ word: UInt64) -> UInt64 { (word &- ones) & ~word & highs }
        var at = start
        while at + 8 <= url.count {
            let word = base.loadUnaligned(fromByteOffset: at, as: UInt64.self)
            let stops = nul(word) | (atSlash ? nul(word ^ (0x2F &* ones)) : 0) | nul(word ^ (0x3A &* ones)) | (word & highs)
            if stops != 0 { return at + stops.trailingZeroBitCount / 8 }
            at += 8
        }
        return at
    }

    /// Reports the pattern of every entry that matches `url` (without its end-of-URL NUL); returns
    /// the bytes read (0 when the table is empty).
    public func run(_ url: UnsafeBufferPointer<UInt8>, report: (UInt32) -> Void) -> Int {
        guard !isEmpty else { return 0 }
        var steps = 0
        if let labels = Self.hostLabels(url, steps: &steps) { lookUp(url, labels, report: report) }
        return steps
    }

    /// Reports the pattern of every entry that matches `url`, whose labels are `labels`.
    /// (The candidates read in this function's frame, `lookUpCandidates` inlined: a call per
    /// request fewer than calling the static lookup with the tables.)
    public func lookUp(_ url: UnsafeBufferPointer<UInt8>, _ labels: HostLabels, report: (UInt32) -> Void) {
        guard let lookup else {
            // (An empty table finds nothing; a table not prepared, looked up all the same: indexed
            // for this lookup.)
            if !isEmpty && !isIndexed { indexed().lookUp(url, labels, report: report) }
            return
        }
        Self.lookUpCandidates(lookup, url, labels, report: report)
    }

    /// What a lookup of this table reads (nil for an empty table or one not indexed), for lookups
    /// made apart from the table (`ProgramSet.WholeTogether`), which holds the table meanwhile.
    var lookupTables: Tables? { lookup }

    /// The lookup of `url`'s host in the table `tables` are of.
    static func lookUp(_ tables: Tables, _ url: UnsafeBufferPointer<UInt8>, _ labels: HostLabels, report: (UInt32) -> Void) {
        lookUpCandidates(tables, url, labels, report: report)
    }

    /// The body of both lookups of one table, the table's own (`lookUp(_:_:report:)`) and the
    /// static one given its tables.
    @inline(__always)
    private static func lookUpCandidates(_ tables: Tables, _ url: UnsafeBufferPointer<UInt8>, _ labels: HostLabels, report: (UInt32) -> Void) {
        let (start, end) = (labels.start, labels.end)
        guard labels.terminated, end > start else { return }
        // A canonical URL's host is lower case already: its bytes are then hashed and compared as
        // they are, not each folded (a fifth of a lookup's instructions; a constant at each call
        // below: two loops, neither testing it).
        if labels.hasUpperCase {
            forEachCandidate(url, start, end, folding: true) { probe($0, $1, url, end, tables, folding: true, report: report) }
        } else {
            forEachCandidate(url, start, end, folding: false) { probe($0, $1, url, end, tables, folding: false, report: report) }
        }
    }

    /// Looks `url`'s host up in two tables at once (two lists asked about one URL; `a` and `b`
    /// their `lookupTables`), reporting as each one's `lookUp` does: the candidates read and
    /// hashed once, each probed in both tables, so that one table's misses are waited for beside
    /// the other's.
    static func lookUp(
        _ a: Tables, _ b: Tables, _ url: UnsafeBufferPointer<UInt8>, _ labels: HostLabels, reportA: (UInt32) -> Void,
        reportB: (UInt32) -> Void
    ) {
        let (start, end) = (labels.start, labels.end)
        guard labels.terminated, end > start else { return }
        if labels.hasUpperCase {
            forEachCandidate(url, start, end, folding: true) { candidate, hash in
                probe(candidate, hash, url, end, a, folding: true, report: reportA)
                probe(candidate, hash, url, end, b, folding: true, report: reportB)
            }
        } else {
            forEachCandidate(url, start, end, folding: false) { candidate, hash in
                probe(candidate, hash, url, end, a, folding: false, report: reportA)
                probe(candidate, hash, url, end, b, folding: false, report: reportB)
            }
        }
    }

    /// Looks `url`'s host up in several tables at once (several lists asked about one URL),
    /// reporting each table's patterns with its index, as each one's `lookUp` does: the candidates
    /// read and hashed once (the hash does not depend on the table), each probed in every table.
    /// `tables`: the domain tables' `lookupTables` (the first `domainCount`), then host contexts'
    /// tables (`HostContextLookup.tables`), group by group, group g's ending at `groupEnds[g]`
    /// (each begins where the one before ends); a group's are probed when its bit of `reading` is
    /// set: its contexts take the host's labels for candidates (`labelReading`), which are then
    /// the domain tables' candidates, hashed alike (a plain host: no letter to fold).
    static func lookUp(
        _ tables: UnsafeBufferPointer<Tables>, domainCount: Int, groupEnds: UnsafeBufferPointer<Int>, reading: UInt64,
        _ url: UnsafeBufferPointer<UInt8>, _ labels: HostLabels, report: (_ table: Int, _ pattern: UInt32) -> Void
    ) {
        let (start, end) = (labels.start, labels.end)
        guard labels.terminated, end > start, let first = tables.baseAddress else { return }
        // (Each table probed where it lies, `first + table`: an element of `tables` handed as a
        // value is copied to the stack at every probe of every candidate.)
        if labels.hasUpperCase {
            forEachCandidate(url, start, end, folding: true) { candidate, hash in
                for table in 0..<domainCount { probe(candidate, hash, url, end, at: first + table, folding: true) { report(table, $0) } }
            }
        } else {
            forEachCandidate(url, start, end, folding: false) { candidate, hash in
                for table in 0..<domainCount { probe(candidate, hash, url, end, at: first + table, folding: false) { report(table, $0) } }
                var groups = reading
                while groups != 0 {
                    let group = groups.trailingZeroBitCount
                    groups &= groups - 1
                    for table in (group == 0 ? domainCount : groupEnds[group - 1])..<groupEnds[group] {
                        probe(candidate, hash, url, end, at: first + table, folding: false) { report(table, $0) }
                    }
                }
            }
        }
    }

    /// What a lookup reads: the index's storage's shape and addresses (plain values: a closure
    /// that holds them retains nothing), valid while the table is. (Sendable as the table is:
    /// the storage they point into is immutable once made.)
    struct Tables: @unchecked Sendable {
        let shape: DomainSlots.Shape
        let presentBits: UnsafeBufferPointer<UInt64>
        /// The lines (`DomainLines`, `shape.lines` of them), then the overflow.
        let lines: UnsafeRawPointer
        /// T's encodings (`tails`).
        let tails: UnsafeBufferPointer<UInt8>
    }

    /// Reports the entries of the candidate `url[candidate ..< end]` (A from a candidate to its end)
    /// whose hash is `hash`, its bytes folded to lower case when `folding`.
    @inline(__always)
    private static func probe(
        _ candidate: Int, _ hash: UInt64, _ url: UnsafeBufferPointer<UInt8>, _ end: Int, _ tables: Tables, folding: Bool,
        report: (UInt32) -> Void
    ) {
        guard tables.shape.mayHold(hash, tables.presentBits) else { return }
        probeLine(candidate, hash, url, end, tables, folding: folding, report: report)
    }

    /// `probe` of the tables at `tables`, read where they lie (a loop over several tables').
    @inline(__always)
    private static func probe(
        _ candidate: Int, _ hash: UInt64, _ url: UnsafeBufferPointer<UInt8>, _ end: Int, at tables: UnsafePointer<Tables>, folding: Bool,
        report: (UInt32) -> Void
    ) {
        guard tables.pointee.shape.mayHold(hash, tables.pointee.presentBits) else { return }
        probeLine(candidate, hash, url, end, at: tables, folding: folding, report: report)
    }

    /// `probeLine` of the tables at `tables`.
    @inline(never)
    private static func probeLine(
        _ candidate: Int, _ hash: UInt64, _ url: UnsafeBufferPointer<UInt8>, _ end: Int, at tables: UnsafePointer<Tables>, folding: Bool,
        report: (UInt32) -> Void
    ) {
        reportEntries(ofDomainFrom: candidate, hash, url, end, tables.pointee, folding: folding, report: report)
    }

    /// `probe`'s reads past the presence bits (a few candidates pass them): out of line, so that
    /// the candidates' loop, which calls `probe` at two places, keeps the test alone.
    @inline(never)
    private static func probeLine(
        _ candidate: Int, _ hash: UInt64, _ url: UnsafeBufferPointer<UInt8>, _ end: Int, _ tables: Tables, folding: Bool,
        report: (UInt32) -> Void
    ) {
        reportEntries(ofDomainFrom: candidate, hash, url, end, tables, folding: folding, report: report)
    }

    /// Reports the entries of the domain `url[start ..< end]`, whose hash is `hash`, if any: those
    /// with no T, and those whose T matches from `end`. The body of both out-of-line probes, this
    /// table's (`probeLine`) and the open domains' (`probeOpen`, OpenDomains.swift), each called
    /// with what its caller's loop holds (the open lookup calling `probeLine` itself, its `Tables`
    /// spread into the arguments, costs that loop more instructions).
    @inline(__always)
    static func reportEntries(
        ofDomainFrom start: Int, _ hash: UInt64, _ url: UnsafeBufferPointer<UInt8>, _ end: Int, _ tables: Tables, folding: Bool,
        report: (UInt32) -> Void
    ) {
        guard let (entries, bytes) = DomainLines.find(
            tables.lines, line: tables.shape.line(of: hash), hash: hash, lineCount: tables.shape.lines, linesPast: tables.shape.linesPast, url, start,
            end &- start, folding: folding)
        else { return }
        // The domain's entries: each reports unless its path does not match (read only where
        // its filter admits the URL's bytes from `end`).
        // (The URL's bytes the filters read, the same for every entry: read at the first filter.)
        var pathBytes = PathFilter.unread
        // The entry at `at`, with a path, reported when its path matches from `end`.
        @inline(__always) func reportIfPathMatches(_ at: Int, _ word: UInt32) {
            let (tailStart, tailEnd) = (Int(DomainGroups.word(entries, at &+ 4)), Int(DomainGroups.word(entries, at &+ 8)))
            if tailMatches(tables.tails, tailStart..<tailEnd, url, from: end) { report(word & DomainLines.patternBits) }
        }
        // (An entry with a filter, both flags set, tested first: a domain of many paths, stepped over
        // at most of its requests, has mostly those, and most refuse the URL. Places in wrapping
        // arithmetic: a record's bytes are far from overflowing.)
        let filtered = DomainLines.hasPath | DomainLines.hasFilter
        var at = 0
        while at < bytes {
            let word = DomainGroups.word(entries, at)
            if word >= filtered {
                if pathBytes == PathFilter.unread { pathBytes = PathFilter.bytes(url, pathFrom: end) }
                if PathFilter.admits(DomainGroups.word(entries, at &+ 12), bytes: pathBytes) { reportIfPathMatches(at, word) }
                at &+= DomainLines.entryBytes(pathed: true, filtered: true)
            } else if word >= DomainLines.hasPath {
                reportIfPathMatches(at, word)
                at &+= DomainLines.entryBytes(pathed: true, filtered: false)
            } else {
                report(word)
                at &+= DomainLines.entryBytes(pathed: false, filtered: false)
            }
        }
    }

    /// Tells `body` each candidate of A = `url[start ..< end]` (a place D may begin: A's start, and
    /// after each `.` of A but its first byte), from the last, with its hash
    /// (`DomainSlots.wordHash` of `url[candidate ..< end]`, bytes folded to lower case when
    /// `folding`). A is read eight bytes at a time from its end, each word once: its `.`s give the
    /// candidates in it, and a candidate's hash is the hash of the words after it and one step for
    /// its bytes in this word. (The URL's bytes up to A's end are ASCII and not NUL: the host
    /// labels were read so.)
    @inline(__always)
    static func forEachCandidate(
        _ url: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, folding: Bool, _ body: (_ candidate: Int, _ hash: UInt64) -> Void
    ) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        // (The URL's address read once: A is not empty.)
        let base = UnsafeRawPointer(url.baseAddress!)
        @inline(__always) func word(endingAt wordEnd: Int) -> UInt64 {
            guard wordEnd >= 8 else { return foldedWord(url, endingAt: wordEnd, folding: folding) }
            let word = DomainSlots.word(base, at: wordEnd &- 8)
            return folding ? DomainSlots.folded(word: word) : word
        }
        // The hash of the words after `wordEnd`, which every candidate before it covers whole.
        var wordsHash = DomainSlots.seed
        var wordEnd = end
        while true {
            let word = word(endingAt: wordEnd)
            // (Places and shifts in wrapping arithmetic: a host's places are far from overflowing,
            // and each shift is below 64, so that no test of either is made at each candidate.)
            let lowest = wordEnd &- 8
            // Its `.`s (a byte b is `.` when b xor `.` is NUL: (x - 1) & ~x has its high bit set;
            // exact here, the bytes above a `.` being neither `.` nor `/`), those after A's first
            // byte, each followed by a candidate.
            let x = word ^ (0x2E &* ones)
            var dots = (x &- ones) & ~x & (0x80 &* ones)
            let skipped = start &+ 1 &- lowest
            if skipped > 0 { dots = skipped >= 8 ? 0 : dots & (UInt64.max &<< UInt64(truncatingIfNeeded: 8 &* skipped)) }
            while dots != 0 {
                // (The highest flag, bit 7 of its byte: that byte is the bit's place over 8.)
                let bit = 63 &- dots.leadingZeroBitCount
                dots &= ~(1 &<< UInt64(truncatingIfNeeded: bit))
                let byte = bit &>> 3
                let candidate = lowest &+ byte &+ 1
                guard candidate < end else { continue }
                // The candidate's bytes in this word, 0 to 7 of its top ones (none: 0, the word
                // shifted down by a byte and then by 56).
                let first = wordEnd &- candidate
                body(candidate, DomainSlots.lastWordStep(
                    wordsHash, (word &>> 8) &>> UInt64(truncatingIfNeeded: 56 &- 8 &* first), length: end &- candidate))
            }
            if lowest <= start {
                // A's first byte is in this word: the last candidate.
                let first = wordEnd &- start
                body(start, first == 8
                    ? DomainSlots.lastWordStep(DomainSlots.wordStep(wordsHash, word), 0, length: end &- start)
                    : DomainSlots.lastWordStep(wordsHash, word &>> UInt64(truncatingIfNeeded: 64 &- 8 &* first), length: end &- start))
                return
            }
            wordsHash = DomainSlots.wordStep(wordsHash, word)
            wordEnd = lowest
        }
    }

    /// Reports the pattern of every entry of `context`'s table that matches `url` (without its
    /// end-of-URL NUL): D begins where the context's automaton says a match of L ends and ends at
    /// the first byte of its splitting set after it (the end-of-URL NUL when the set holds NUL),
    /// where the entry's T must then match. A candidate that meets NUL or a byte from 128 on before
    /// its end is none (no D holds either).
    ///
    /// Candidates that end at one place (every L-end before the first splitting byte: a host's
    /// labels) are gathered, then hashed together from their common end, each word once, as the
    /// domain table hashes a host's candidates (`forEachCandidate`), and probed in URL order.
    /// A context with open domains reads every entry forwards from each place L ends instead
    /// (`lookUpForward`). Where a plain host's labels are L's ends (`lookUpLabels`; `labels`, the
    /// URL's host labels, nil when not read), they are the candidates.
    /// (`context` by its address: a lookup is read where it lies, not copied out at each call.)
    @inline(__always)
    static func lookUp(
        _ context: UnsafePointer<HostContextLookup>, _ url: UnsafeBufferPointer<UInt8>, labels: HostLabels?, report: (UInt32) -> Void
    ) {
        if let labels, let flags = context.pointee.labelStarts, let tables = context.pointee.tables,
            lookUpLabels(context, flags, url, labels, probe: { candidate, hash, end in
                probe(candidate, hash, url, end, tables, folding: false, report: report)
            })
        {
            return
        }
        lookUp(context.pointee, url, report: report)
    }

    /// `lookUp(_:_:labels:report:)` with L's automaton reading the URL.
    @inline(__always)
    static func lookUp(_ context: HostContextLookup, _ url: UnsafeBufferPointer<UInt8>, report: (UInt32) -> Void) {
        if let open = context.open {
            lookUpForward(context, open.pointee, url, report: report)
            return
        }
        guard let tables = context.tables else { return }
        let folding = context.folding
        CandidateBatch.withBatch { batch in
            lookUp(context, url, &batch) { candidate, hash, end in
                probe(candidate, hash, url, end, tables, folding: folding, report: report)
            }
        }
    }

    /// Looks up several contexts of one automaton, splitting set and case (several lists' contexts
    /// of one L; `contexts`, none with open domains) at once, reporting each context's patterns
    /// with its index, as each one's lookup does: L's automaton run, the candidates split and
    /// hashed once (none depends on the table), each probed in every context's table.
    static func lookUp(
        _ contexts: UnsafeBufferPointer<HostContextLookup>, _ url: UnsafeBufferPointer<UInt8>, labels: HostLabels?,
        report: (Int, UInt32) -> Void
    ) {
        guard let first = contexts.first else { return }
        if let labels, let flags = first.labelStarts,
            lookUpLabels(contexts.baseAddress!, flags, url, labels, probe: { candidate, hash, end in
                for index in contexts.indices {
                    guard let tables = contexts[index].tables else { continue }
                    probe(candidate, hash, url, end, tables, folding: false) { report(index, $0) }
                }
            })
        {
            return
        }
        let folding = first.folding
        CandidateBatch.withBatch { batch in
            lookUp(first, url, &batch) { candidate, hash, end in
                for index in contexts.indices {
                    guard let tables = contexts[index].tables else { continue }
                    probe(candidate, hash, url, end, tables, folding: folding) { report(index, $0) }
                }
            }
        }
    }

    /// The lookup of `context`, whose automaton's states have the flags `flags`
    /// (`LabelStartStates`), with a plain host's labels for candidates (HostLabelStarts.swift):
    /// L run over the scheme part, then, when the state it reaches has the flag of the byte that
    /// ends the host, each candidate the domain table reads told `probe` with its hash and D's end
    /// (the host's). Returns false, having told nothing, where the automaton must read the URL:
    /// a host not plain, a state without the flag, an end in the scheme part not facing a byte
    /// of S. (A plain host has no upper-case letter: folded or not, its bytes are the same.)
    /// (Out of line: the automaton's reading, the fallback, keeps its own code.)
    @inline(never)
    private static func lookUpLabels(
        _ context: UnsafePointer<HostContextLookup>, _ flags: UnsafePointer<UInt8>, _ url: UnsafeBufferPointer<UInt8>, _ labels: HostLabels,
        probe: (_ candidate: Int, _ hash: UInt64, _ end: Int) -> Void
    ) -> Bool {
        switch labelReading(context, flags, url, labels) {
        case .automaton: return false
        case .nothing: return true
        case .labels:
            let end = labels.end
            forEachCandidate(url, labels.start, end, folding: false) { candidate, hash in probe(candidate, hash, end) }
            return true
        }
    }

    /// How a context's lookup reads a URL whose host labels are `labels` (`lookUpLabels`).
    enum LabelReading {
        /// The host's labels are the candidates.
        case labels
        /// L's automaton dies in the scheme part: no candidate.
        case nothing
        /// L's automaton reads the URL.
        case automaton
    }

    /// The reading of `url` by `context`, whose automaton's states have the flags `flags`: the
    /// labels where the host is plain and the state L reaches over the scheme part has the flag of
    /// the byte that ends the host (`lookUpLabels`).
    @inline(__always)
    static func labelReading(
        _ context: UnsafePointer<HostContextLookup>, _ flags: UnsafePointer<UInt8>, _ url: UnsafeBufferPointer<UInt8>, _ labels: HostLabels
    ) -> LabelReading {
        let (start, end) = (labels.start, labels.end)
        guard labels.terminated, labels.slashesEnd == start, end > start else { return .automaton }
        // (`https://`, as a word: its state read, not run.)
        let state = start == 8 && UnsafeRawPointer(url.baseAddress!).loadUnaligned(as: UInt64.self) == httpsWord
            ? context.pointee.httpsState
            : schemeState(context.pointee.next, context.pointee.ends, context.pointee.splitting, UnsafeBufferPointer(rebasing: url[..<start]))
        guard state >= 0 else { return state == schemeDies ? .nothing : .automaton }
        let flag = url[end] == UInt8(ascii: "/") ? LabelStartStates.endedBySlash : LabelStartStates.endedByColon
        guard flags[state] & flag != 0, labels.isPlain else { return .automaton }
        return .labels
    }

    /// `schemeState`'s answer where L's automaton dies in the scheme part (no candidate).
    static var schemeDies: Int { -2 }

    /// The state L's automaton (`next`, `ends`) reaches over `scheme` (a URL's bytes before its
    /// host, below 128), or -1 where L ends in it facing a byte not in `splitting` (a candidate
    /// the labels do not stand for), or `schemeDies`.
    static func schemeState(
        _ next: UnsafePointer<UInt16>, _ ends: UnsafePointer<UInt8>, _ splitting: ASCIISet, _ scheme: UnsafeBufferPointer<UInt8>
    ) -> Int {
        var state = 0
        for byte in scheme {
            if ends[state] != 0 && !splitting.contains(byte) { return -1 }
            let target = next[state << 7 | Int(byte)]
            // (L ends nowhere from here on: no candidate.)
            guard target != HostStarts.dead else { return schemeDies }
            state = Int(target)
        }
        return state
    }

    /// The most candidates hashed together (more, as in a hostile host of many labels, are hashed
    /// in several batches).
    static let candidateBatch = 16

    /// Candidates of one end waiting to be hashed: their places in URL order, then their hashes.
    struct CandidateBatch {
        let candidates: UnsafeMutablePointer<Int>
        let hashes: UnsafeMutablePointer<UInt64>
        var count = 0
        var end = 0

        /// `body` given an empty batch in temporary storage (on the stack: a lookup allocates nothing).
        @inline(__always)
        static func withBatch(_ body: (inout CandidateBatch) -> Void) {
            withUnsafeTemporaryAllocation(of: Int.self, capacity: candidateBatch) { candidates in
                withUnsafeTemporaryAllocation(of: UInt64.self, capacity: candidateBatch) { hashes in
                    var batch = CandidateBatch(candidates: candidates.baseAddress!, hashes: hashes.baseAddress!)
                    body(&batch)
                }
            }
        }
    }

    /// `lookUp(_:_:report:)`'s reading of `url`: each candidate told `probe` with its hash and end.
    @inline(__always)
    private static func lookUp(
        _ context: HostContextLookup, _ url: UnsafeBufferPointer<UInt8>, _ batch: inout CandidateBatch,
        probe: (_ candidate: Int, _ hash: UInt64, _ end: Int) -> Void
    ) {
        // The end of the last candidate: every candidate up to it ends there (none when not usable).
        var end = -1
        var usable = false
        var state = 0
        var at = 0
        while true {
            if context.ends[state] != 0 {
                if end < at {
                    flush(&batch, context, url, probe: probe)
                    (end, usable) = Self.split(url, from: at, context.splitting)
                    batch.end = end
                }
                if usable && end > at {
                    if batch.count == candidateBatch { flush(&batch, context, url, probe: probe) }
                    batch.candidates[batch.count] = at
                    batch.count += 1
                }
            }
            guard at < url.count, url[at] < 128 else { break }
            let next = context.next[state << 7 | Int(url[at])]
            guard next != HostStarts.dead else { break }
            state = Int(next)
            at += 1
        }
        flush(&batch, context, url, probe: probe)
    }

    /// The lookup of a context with open domains: from each place L ends, its entries read
    /// forwards (`lookUpOpen`).
    private static func lookUpForward(
        _ context: HostContextLookup, _ open: OpenDomainLookup, _ url: UnsafeBufferPointer<UInt8>, report: (UInt32) -> Void
    ) {
        var state = 0
        var at = 0
        while true {
            if context.ends[state] != 0 { lookUpOpen(open, url, from: at, report: report) }
            guard at < url.count, url[at] < 128 else { break }
            let next = context.next[state << 7 | Int(url[at])]
            guard next != HostStarts.dead else { break }
            state = Int(next)
            at += 1
        }
    }

    /// Hashes the batch's candidates from their common end and probes each, in URL order; empties
    /// the batch. (The bytes before the end are ASCII: the automaton read those before the last
    /// candidate, the split those after it; so folding eight at a time carries into no other byte.)
    private static func flush(
        _ batch: inout CandidateBatch, _ context: HostContextLookup, _ url: UnsafeBufferPointer<UInt8>,
        probe: (_ candidate: Int, _ hash: UInt64, _ end: Int) -> Void
    ) {
        guard batch.count > 0 else { return }
        let (end, folding) = (batch.end, context.folding)
        var wordsHash = DomainSlots.seed
        var wordEnd = end
        var index = batch.count - 1
        while index >= 0 {
            let candidate = batch.candidates[index]
            while wordEnd - candidate >= 8 {
                wordsHash = DomainSlots.wordStep(wordsHash, foldedWord(url, endingAt: wordEnd, folding: folding))
                wordEnd -= 8
            }
            let first = wordEnd - candidate
            let bytes = first == 0 ? 0 : foldedWord(url, endingAt: wordEnd, folding: folding) >> UInt64(64 - 8 * first)
            batch.hashes[index] = DomainSlots.lastWordStep(wordsHash, bytes, length: end - candidate)
            index -= 1
        }
        for index in 0..<batch.count { probe(batch.candidates[index], batch.hashes[index], end) }
        batch.count = 0
    }

    /// The eight bytes of `url` before `wordEnd` as a word (the first lowest; NULs before the URL's
    /// start), letters folded to lower case when `folding` (`DomainSlots.folded(word:)`).
    @inline(__always)
    private static func foldedWord(_ url: UnsafeBufferPointer<UInt8>, endingAt wordEnd: Int, folding: Bool) -> UInt64 {
        var word: UInt64 = 0
        if wordEnd >= 8 {
            word = DomainSlots.word(UnsafeRawPointer(url.baseAddress!), at: wordEnd - 8)
        } else {
            for at in 0..<wordEnd { word |= UInt64(url[at]) << UInt64(8 * (8 - wordEnd + at)) }
        }
        return folding ? DomainSlots.folded(word: word) : word
    }

    /// The first place from `start` whose byte (NUL past the URL's end) is in `splitting`, and
    /// whether the bytes before it are all ASCII without NUL.
    private static func split(_ url: UnsafeBufferPointer<UInt8>, from start: Int, _ splitting: ASCIISet) -> (Int, Bool) {
        var at = start
        while true {
            let byte = at < url.count ? url[at] : 0
            if byte < 128 && splitting.contains(byte) { return (at, true) }
            if byte == 0 || byte >= 128 { return (at, false) }
            at += 1
        }
    }

    /// Whether `url[start ..< end]` (bytes below 128, as A's are) holds an upper-case letter:
    /// eight bytes at a time, a byte's high bit set by adding 0x3F when it is at least `A` and by
    /// adding 0x25 when it is past `Z` (no carry leaves a byte below 128).
    static func hasUpperCase(_ url: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        var at = start
        if let base = UnsafeRawPointer(url.baseAddress), end - start >= 8 {
            let ones: UInt64 = 0x0101_0101_0101_0101
            @inline(__always) func upper(_ word: UInt64) -> Bool { (word &+ 0x3F &* ones) & ~(word &+ 0x25 &* ones) & (0x80 &* ones) != 0 }
            while at + 8 <= end {
                if upper(base.loadUnaligned(fromByteOffset: at, as: UInt64.self)) { return true }
                at += 8
            }
            // The last bytes in the word that ends with A (some read twice).
            return at < end && upper(base.loadUnaligned(fromByteOffset: end - 8, as: UInt64.self))
        }
        while at < end {
            if url[at] &- 0x41 < 26 { return true }
            at += 1
        }
        return false
    }

    // MARK: The file

    /// About the bytes `write(to:)` takes: each entry's domain, tail and varints (of a table whose
    /// entries its index holds, the varints alone: such a table is written rarely).
    var writtenSizeEstimate: Int { 5 + bytes.count + tails.count + 3 * count }

    func write(to writer: inout ByteWriter) {
        guard !entriesInIndex else { return expanded().write(to: &writer) }
        writer.varint(UInt32(count))
        // (The domains and tails read through pointers: a slice of the arrays per entry would
        // retain and release them, and comparing slices costs more than their few bytes.)
        bytes.withUnsafeBufferPointer { bytes in
            tails.withUnsafeBufferPointer { tails in
                var next: UInt32 = 0
                var previous = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
                for entry in 0..<count {
                    writer.increasingPattern(entryPatterns[entry], after: &next)
                    let domain = UnsafeBufferPointer(rebasing: bytes[Int(starts[entry])..<Int(starts[entry + 1])])
                    let tail = UnsafeBufferPointer(rebasing: tails[Int(tailStarts[entry])..<Int(tailStarts[entry + 1])])
                    // (A domain the entry before has too is written as length 0: paths of one
                    // domain are mostly neighbours.)
                    var repeated = entry > 0 && previous.count == domain.count
                    var index = 0
                    while repeated && index < domain.count {
                        repeated = previous[index] == domain[index]
                        index += 1
                    }
                    writer.varint(UInt32(repeated ? 0 : domain.count) << 1 | (tail.isEmpty ? 0 : 1))
                    if !repeated { writer.append(contentsOf: domain) }
                    if !tail.isEmpty {
                        writer.varint(UInt32(tail.count))
                        writer.append(contentsOf: tail)
                    }
                    previous = domain
                }
            }
        }
    }

    /// Reads and validates a table whose patterns are below `patternCount`.
    /// `splitting`: a host context's table, whose T may begin with `splitCode`. Without `indexing`,
    /// the index is left to the caller (`indexed(hashing:)`).
    static func read(
        from reader: inout ByteReader, patternCount: Int, splitting: Bool = false, indexing: Bool = true
    ) throws(BytecodeError) -> DomainTable {
        let count = try reader.varintCount(of: "domains", itemBytes: 2)
        var table = DomainTable()
        // (Read into locals, not the table's arrays: each append there is an access to `table`.
        // The domains checked and copied from the file's bytes through a pointer, into a writer:
        // a slice of the file per domain would retain and release its array, and an array's
        // append of them takes its generic path. They take at most the bytes left but for
        // repeated domains: the writer's first capacity.)
        var (patterns, starts, tailStarts, tails) = (table.entryPatterns, table.starts, table.tailStarts, table.tails)
        patterns.reserveCapacity(count)
        starts.reserveCapacity(count + 1)
        tailStarts.reserveCapacity(count + 1)
        let file = reader.bytes
        table.bytes = try file.withUnsafeBufferPointer { file throws(BytecodeError) -> [UInt8] in
            var bytes = ByteWriter(capacity: reader.remaining)
            var next = 0
            for _ in 0..<count {
                // (Patterns below 2^30: the index flags an entry's path and filter in bits 31 and 30,
                // `DomainLines`.)
                let pattern = try reader.increasingPattern(
                    after: &next, below: min(patternCount, Int(DomainLines.hasFilter)), table: "domain table")
                let lengthAt = reader.offset
                let word = try reader.varint()
                let length = Int(word >> 1)
                if length == 0 {
                    guard !patterns.isEmpty else { throw .malformed(at: lengthAt, "domain table: the first entry repeats a domain") }
                    // (Copied out first: appending may move the writer's bytes.)
                    let previous = bytes.withUnsafeBytes { Array($0[Int(starts[starts.count - 2])..<Int(starts[starts.count - 1])]) }
                    previous.withUnsafeBufferPointer { bytes.append(contentsOf: $0) }
                } else {
                    let start = try reader.skip(length)
                    let domain = UnsafeBufferPointer(rebasing: file[start..<start + length])
                    guard isValid(domain) else { throw .malformed(at: lengthAt, "domain table: a domain of \(length) bytes with a byte it cannot match") }
                    bytes.append(contentsOf: domain)
                }
                if word & 1 == 1 {
                    let tailAt = reader.offset
                    let tail = try reader.take(Int(try reader.varint()))
                    guard isValidTail(tail, splitting: splitting) else { throw .malformed(at: tailAt, "domain table: a path that is not a sequence of sets") }
                    tails += tail
                }
                patterns.append(pattern)
                starts.append(UInt32(bytes.count))
                tailStarts.append(UInt32(tails.count))
            }
            return bytes.bytes
        }
        (table.entryPatterns, table.starts, table.tailStarts, table.tails) = (patterns, starts, tailStarts, tails.fitted())
        table.count = patterns.count
        if indexing { table.makeIndex() }
        return table
    }

    /// The entries as text: `p<pattern> <domain>`, then its path's sets when it has one, a line each.
    public func disassemble() -> String {
        guard !entriesInIndex else { return expanded().disassemble() }
        return (0..<count).map { entry in
            var line = "p\(entryPatterns[entry]) \(String(decoding: domain(entry), as: UTF8.self))"
            let tail = tail(entry)
            var at = tail.startIndex
            while at < tail.endIndex {
                guard tail[at] != Self.restCode else {
                    line += " .*$"
                    break
                }
                guard tail[at] != Self.splitCode else {
                    line += " S"
                    at += 1
                    continue
                }
                line += " " + Self.set(in: tail, at: at).description
                at += tail[at] == 0 ? 17 : 1
            }
            return line
        }.joined(separator: "\n")
    }
}

extension DomainTable {
    /// The entries (patterns, domains, tails) as the part `entries`, the lookup's index as `index`.
    /// (An empty table holds nothing of its own: `compacted()` made it `empty`.)
    func held(entries: String, index name: String, into memory: inout HeldMemory) {
        guard !isEmpty else { return }
        for array in [entryPatterns, starts, tailStarts] { memory.add(entries, array: array) }
        memory.add(entries, array: bytes)
        memory.add(entries, array: tails)
        index.held(name, into: &memory)
    }
}

extension ASCIISet {
    /// The set without its lowest member (empty stays empty).
    fileprivate var withoutLowest: ASCIISet {
        var rest = self
        if low != 0 { rest.low &= low &- 1 } else { rest.high &= high &- 1 }
        return rest
    }
}

extension [UInt8] {
    /// `other`'s bytes appended, read in place (`+=` of an array takes a generic path, with a
    /// retain and a release of it).
    @inline(__always)
    mutating func append(bytesOf other: [UInt8]) {
        other.withUnsafeBufferPointer { append(contentsOf: $0) }
    }
}
