// DomainConditionTable.swift — Search
//
// Patterns of the shape of a domain condition, answered by hashing instead of by an automaton. A
// rule's `if-domain` and `unless-domain` are tested against the main document's URL, each domain
// as the pattern WebKit gives it (RuleListCompiler's `domainPattern`), case-insensitive and
// anchored nowhere:
//
//     [a-z][a-z+.-]*:\/\/D[:/]              a domain D: that host
//     [a-z][a-z+.-]*:\/\/([^/]*\.)*D[:/]     `*D`: that host or any below it
//
// D a literal without `/` or NUL. (A url-filter or a top-url pattern written so is taken too.)
// Every domain condition of a list is one such pattern (a big list has thousands); built as
// automata they are a trie of a state per byte of every domain that a new page runs over its whole
// URL, most steps a cache miss. What the shape means: the URL holds `://` at some place i whose scheme
// holds (the bytes before i that are letters, `+`, `.` or `-`, back to the first that is not,
// include a letter); let H be the bytes from i + 3 up to the first `/`, NUL or byte from 128 on
// (`[^/]` matches none of those) or the URL's end. The pattern matches exactly when, for such an
// i, D equals the bytes of H from a start S to an end E (letters folded), where E is a `:` of H
// or H's end followed by `/`, and S is H's start or (for `*D`) a byte after a `.` of H. (No
// match reads past a byte from 128 on: the URL is read as if it ended there.) A `://`
// can only begin where the H before it ends (H holds no `/`), so a URL is read about once: each
// H's ends are found, and from each the candidates are hashed backwards, a word at a time as the
// domain table hashes its domains (letters folded eight at once), at most the longest D's length
// (so a host of colons costs its length times that, not its square).
//
// In a file (at the end of a programs section, after the domain table, ProgramSet.swift):
//
//     count      varint   entries, in increasing pattern order
//     per entry  varint   its pattern minus the previous entry's pattern + 1 (the first: itself)
//                varint   D's length << 1, bit 0 set for `*D`; then D's bytes: ASCII 1...127
//                         but `/` and upper-case letters (D is matched with letters folded)
// Tested by SearchTests/DomainConditionTableTests.swift.

internal import Bytecode
public import URLFilterSyntax
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

public struct DomainConditionTable: Hashable, Sendable {
    /// Per entry: the pattern it reports, whether hosts below D match too, and D's bytes in `bytes`.
    public private(set) var patterns: [UInt32] = []
    private var subdomains: [Bool] = []
    private var starts: [UInt32] = [0]
    private var bytes: [UInt8] = []
    /// The lookup's index of the distinct domains and their groups (DomainSlots.swift), an entry's
    /// words in its group its pattern and 1 when hosts below D match (0: not).
    private var index = DomainSlots()
    /// The longest D: how far back from an end a lookup hashes.
    private var longest = 0
    /// The entries' domains were let go (`compacted()`): the index's groups hold them, and what
    /// reads them reads a table made of it (`expanded()`). (Told by `starts`, which has an element
    /// more than the entries otherwise.)
    private var entriesInIndex: Bool { starts.isEmpty }

    public static func == (lhs: DomainConditionTable, rhs: DomainConditionTable) -> Bool {
        guard lhs.patterns == rhs.patterns else { return false }
        let (lhs, rhs) = (lhs.expanded(), rhs.expanded())
        return lhs.subdomains == rhs.subdomains && lhs.starts == rhs.starts && lhs.bytes == rhs.bytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(patterns)
        hasher.combine(expanded().bytes)
    }

    public static let empty = DomainConditionTable()

    private init() {}

    /// The table of `entries` (patterns in increasing order, each domain as `split(_:)` made it).
    public init(_ entries: [(pattern: UInt32, domain: [UInt8], subdomains: Bool)]) {
        // (The entries read in place, not copied out: a copy retains and releases the domain.
        // Made in locals, not in the stored arrays: each append there is an access to `self`.)
        var (patterns, subdomains, starts, bytes) = (self.patterns, self.subdomains, self.starts, self.bytes)
        entries.withUnsafeBufferPointer { entries in
            patterns.reserveCapacity(entries.count)
            subdomains.reserveCapacity(entries.count)
            starts.reserveCapacity(entries.count + 1)
            bytes.reserveCapacity(entries.reduce(0) { $0 + $1.domain.count })
            for index in entries.indices {
                let pattern = entries[index].pattern
                precondition(patterns.last.map { $0 < pattern } ?? true)
                precondition(Self.isValid(entries[index].domain[...]))
                patterns.append(pattern)
                subdomains.append(entries[index].subdomains)
                bytes.append(bytesOf: entries[index].domain)
                starts.append(UInt32(bytes.count))
            }
        }
        (self.patterns, self.subdomains, self.starts, self.bytes) = (patterns, subdomains, starts, bytes)
        makeIndex()
    }

    public var count: Int { patterns.count }
    @inlinable public var isEmpty: Bool { patterns.isEmpty }

    /// Entry `entry`'s domain. (Of a compacted table: read from its index, every entry; a caller
    /// that reads many reads them from `expanded()`.)
    public func domain(_ entry: Int) -> ArraySlice<UInt8> {
        guard !entriesInIndex else { return expanded().domain(entry) }
        return bytes[Int(starts[entry])..<Int(starts[entry + 1])]
    }

    /// This table without its entries' domains and flags beside the index, whose groups hold
    /// them (a loaded list's table: the entries are read again only to write, compare or print
    /// the table, from `expanded()`).
    public func compacted() -> DomainConditionTable {
        guard !isEmpty, !entriesInIndex else { return self }
        var table = self
        (table.subdomains, table.starts, table.bytes) = ([], [], [])
        return table
    }

    /// This table with its entries' domains and flags, read from its index's groups when it was
    /// compacted (`DomainGroups.forEachGroup`), each entry found by its pattern, which no other
    /// entry has.
    public func expanded() -> DomainConditionTable {
        guard entriesInIndex, let storage = index.storage else { return self }
        var domains = [UnsafeRawBufferPointer](repeating: UnsafeRawBufferPointer(start: nil, count: 0), count: count)
        var table = self
        table.subdomains = [Bool](repeating: false, count: count)
        DomainGroups.forEachGroup(storage.groups, entryWords: 2, entries: count) { domain, entries in
            for member in 0..<entries.count / 8 {
                let entry = DomainTable.entry(ofPattern: DomainGroups.word(entries.baseAddress!, 8 * member), in: patterns)
                domains[entry] = domain
                table.subdomains[entry] = DomainGroups.word(entries.baseAddress!, 8 * member + 4) != 0
            }
        }
        table.starts = [0]
        table.starts.reserveCapacity(count + 1)
        for domain in domains {
            table.bytes += domain
            table.starts.append(UInt32(table.bytes.count))
        }
        return table
    }

    // MARK: The shape

    /// What the table makes of `filter`: D, lower case, and whether hosts below it match; nil
    /// when `filter` has neither shape.
    public static func split(_ filter: URLFilter) -> (domain: [UInt8], subdomains: Bool)? {
        DomainPattern(filter).map { ($0.domain, $0.subdomains) }
    }

    /// A domain the table can hold: not empty, ASCII 1...127 but `/` and upper-case letters.
    static func isValid(_ domain: ArraySlice<UInt8>) -> Bool { DomainSlots.isDomain(domain, of: domainBytes) }

    /// `isValid(_:)` of a file's domain, read eight bytes a step (`refusedBytes(word:)`: a list's
    /// domain conditions are checked at each load). (Held to `isValid(_:)` by
    /// DomainConditionTableTests.)
    static func isValid(_ domain: UnsafeBufferPointer<UInt8>) -> Bool { DomainSlots.isDomain(domain, refusing: refusedBytes(word:)) }

    /// Not 0 when some byte of `word` is not in `domainBytes`: from 128 on (its top bit), NUL or
    /// `/` (a byte 0 of the word or of it xor `/`, each found exactly: a borrow starts only at a
    /// zero byte), or `A` to `Z` (`DomainSlots.folded(word:)`'s test, exact when no byte is from
    /// 128 on, which the first term tells).
    @inline(__always)
    static func refusedBytes(word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func zeroByte(_ word: UInt64) -> UInt64 { (word &- ones) & ~word & highs }
        return word & highs | zeroByte(word) | zeroByte(word ^ (0x2F &* ones)) | (word &+ 0x3F &* ones) & ~(word &+ 0x25 &* ones) & highs
    }

    static let domainBytes = ASCIISet((1...127).filter { $0 != 0x2F && !(0x41...0x5A).contains($0) })

    // MARK: The lookup

    private mutating func makeIndex() {
        longest = (0..<count).map { Int(starts[$0 + 1] - starts[$0]) }.max() ?? 0
        var words: [UInt32] = []
        words.reserveCapacity(2 * count)
        for entry in 0..<count {
            words.append(patterns[entry])
            words.append(subdomains[entry] ? 1 : 0)
        }
        // (The entries' own bytes: a table is indexed before it is compacted.)
        index = DomainGroups.index(
            starts: starts, domains: bytes, hashes: (0..<count).map { DomainSlots.wordHash(bytes[Int(starts[$0])..<Int(starts[$0 + 1])]) },
            entryWords: 2, words: words)
    }

    /// Reports the pattern of every entry that matches `url` (without its end-of-URL NUL), each
    /// at least once; returns the bytes read (0 when the table is empty).
    public func run(_ whole: UnsafeBufferPointer<UInt8>, report: (UInt32) -> Void) -> Int {
        guard !isEmpty, let base = whole.baseAddress else { return 0 }
        // (A byte from 128 on ends every match of the url's patterns: nothing after it counts.)
        let url = UnsafeBufferPointer(start: base, count: Self.asciiPrefix(whole))
        let colon = 0x3A as UInt8, slash = 0x2F as UInt8
        var steps = url.count
        var at = 0
        // Each `:` (found by `memchr`: most URLs have one or two) that starts `://` after a scheme.
        while at + 2 < url.count, let found = memchr(base + at, Int32(colon), url.count - 2 - at) {
            at = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base
            guard url[at + 1] == slash, url[at + 2] == slash, Self.hasScheme(url, before: at) else {
                at += 1
                continue
            }
            // H: from `start` up to `end`; D ends at one of its `:` (but one at its first byte) or
            // at its end before a `/`. Both read in one pass, past the words that hold no `/`,
            // `:` or NUL (`DomainTable.firstStop`; the URL is ASCII here).
            let start = at + 3
            var end = start
            while true {
                end = DomainTable.firstStop(url, from: end)
                while end < url.count && url[end] != slash && url[end] != 0 && url[end] != colon { end += 1 }
                guard end < url.count && url[end] == colon else { break }
                if end > start { steps += lookUp(url, start: start, end: end, report: report) }
                end += 1
            }
            steps += end - start
            if end > start && end < url.count && url[end] == slash { steps += lookUp(url, start: start, end: end, report: report) }
            // (The next `://` can begin at H's last byte at the earliest.)
            at = max(end - 1, at + 1)
        }
        return steps
    }

    /// How many bytes `url` has before its first from 128 on, read a word at a time.
    private static func asciiPrefix(_ url: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = url.baseAddress else { return 0 }
        var at = 0
        let raw = UnsafeRawPointer(base)
        while at + 8 <= url.count && raw.loadUnaligned(fromByteOffset: at, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { at += 8 }
        while at < url.count && url[at] < 0x80 { at += 1 }
        return at
    }

    /// Whether the bytes before `colon` end a scheme: a run of letters, `+`, `.` and `-` with a letter.
    private static func hasScheme(_ url: UnsafeBufferPointer<UInt8>, before colon: Int) -> Bool {
        var at = colon - 1
        while at >= 0 {
            let byte = url[at]
            if DomainSlots.folded(byte) &- 0x61 < 26 { return true }
            guard byte == 0x2B || byte == 0x2E || byte == 0x2D else { return false }
            at -= 1
        }
        return false
    }

    /// Reports the entries whose D ends at `end` (exclusive) in H, which starts at `start`;
    /// returns the bytes read back. Each candidate (H's start, or a byte after a `.`) is hashed as
    /// the domain table hashes a domain (`DomainSlots.wordHash`), letters folded: the words after
    /// it, each read and hashed once for every candidate before it, then its first bytes as one
    /// more word. (Hashed a byte at a time, a byte would cost about what a whole word does.) The
    /// candidates are found from the last back by their dots, eight bytes a step (`lastDot`): a
    /// new page's host is looked up so, and most of its bytes are no candidate's.
    private func lookUp(_ url: UnsafeBufferPointer<UInt8>, start: Int, end: Int, report: (UInt32) -> Void) -> Int {
        let lowest = max(start, end - longest)
        guard end > lowest else { return 0 }
        // (An indexed table has its storage: every table is indexed when made or read.)
        let groups = index.storage!.groups
        let base = UnsafeRawPointer(url.baseAddress!)
        // The words from `hashed` to `end`, hashed.
        var hash = DomainSlots.seed
        var hashed = end
        // The candidates below `above` are left: a byte after a `.` (the dot at `start` or later),
        // then H's start when no more than the longest D before `end`.
        let firstDot = max(lowest, start + 1) - 1
        var above = end
        while true {
            let candidate: Int
            if let dot = Self.lastDot(base, from: firstDot, to: above - 1) {
                candidate = dot + 1
            } else if lowest == start && above > start {
                candidate = start
            } else {
                break
            }
            above = candidate
            let atStart = candidate == start
            while hashed - candidate >= 8 {
                hashed -= 8
                hash = DomainSlots.wordStep(hash, DomainSlots.folded(word: DomainSlots.word(base, at: hashed)))
            }
            let length = end - candidate
            let candidateHash = DomainSlots.lastWordStep(hash, Self.firstBytes(base, from: candidate, to: hashed), length: length)
            let found = index.value(candidateHash) { value in
                let group = DomainGroups.group(groups, value)
                return DomainGroups.length(group) == length && DomainGroups.holds(group, url, candidate, length, folding: true)
            }
            guard let found else { continue }
            let group = DomainGroups.group(groups, found)
            var member = DomainGroups.entries(group)
            for _ in 0..<DomainGroups.entryCount(group) {
                if atStart || DomainGroups.word(member, 4) != 0 { report(DomainGroups.word(member, 0)) }
                member += 8
            }
        }
        return end - lowest
    }

    /// The place of the last `.` among the bytes from `low` up to `high` (exclusive), nil when none
    /// is: eight bytes a word, each `.` a zero byte of the word less dots (a zero found exactly,
    /// with no carry between bytes), the last eight read together where fewer are left.
    @inline(__always)
    private static func lastDot(_ base: UnsafeRawPointer, from low: Int, to high: Int) -> Int? {
        @inline(__always) func dots(_ word: UInt64) -> UInt64 {
            let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
            let x = word ^ 0x2E2E_2E2E_2E2E_2E2E
            return ~(((x & low7) &+ low7) | x) & 0x8080_8080_8080_8080
        }
        var high = high
        while high - low >= 8 {
            let found = dots(DomainSlots.word(base, at: high - 8))
            if found != 0 { return high - 8 + (63 - found.leadingZeroBitCount) / 8 }
            high -= 8
        }
        guard high > low else { return nil }
        if high >= 8 {
            // (The word ending at `high`, its bytes before `low` left out: one to seven are wanted.)
            let found = dots(DomainSlots.word(base, at: high - 8)) & (~0 << UInt64(8 * (low - high + 8)))
            return found != 0 ? high - 8 + (63 - found.leadingZeroBitCount) / 8 : nil
        }
        while high > low {
            high -= 1
            if base.load(fromByteOffset: high, as: UInt8.self) == 0x2E { return high }
        }
        return nil
    }

    /// The bytes from `start` up to `end` (fewer than eight) as a word, the first lowest, letters
    /// folded. (One load when eight bytes end at `end`; the URL's bytes are ASCII up to there.)
    @inline(__always)
    private static func firstBytes(_ base: UnsafeRawPointer, from start: Int, to end: Int) -> UInt64 {
        let count = end - start
        guard count > 0 else { return 0 }
        if end >= 8 { return DomainSlots.folded(word: DomainSlots.word(base, at: end - 8)) >> UInt64(8 * (8 - count)) }
        var word: UInt64 = 0
        for at in 0..<count { word |= UInt64(DomainSlots.folded(base.load(fromByteOffset: start + at, as: UInt8.self))) << UInt64(8 * at) }
        return word
    }

    // MARK: The file

    /// About the bytes `write(to:)` takes: each entry's domain and varints.
    var writtenSizeEstimate: Int { 5 + expanded().bytes.count + 3 * count }

    func write(to writer: inout ByteWriter) {
        guard !entriesInIndex else { return expanded().write(to: &writer) }
        writer.varint(UInt32(count))
        var next: UInt32 = 0
        // (The domains read through a pointer: a slice of `bytes` per entry would retain and
        // release it.)
        bytes.withUnsafeBufferPointer { bytes in
            for entry in 0..<count {
                writer.increasingPattern(patterns[entry], after: &next)
                let domain = UnsafeBufferPointer(rebasing: bytes[Int(starts[entry])..<Int(starts[entry + 1])])
                writer.varint(UInt32(domain.count) << 1 | (subdomains[entry] ? 1 : 0))
                writer.append(contentsOf: domain)
            }
        }
    }

    /// Reads and validates a table whose patterns are below `patternCount`.
    static func read(from reader: inout ByteReader, patternCount: Int) throws(BytecodeError) -> DomainConditionTable {
        let count = try reader.varintCount(of: "domain conditions", itemBytes: 3)
        var table = DomainConditionTable()
        table.patterns.reserveCapacity(count)
        table.subdomains.reserveCapacity(count)
        table.starts.reserveCapacity(count + 1)
        // (The domains checked and copied from the file's bytes through a pointer, a word at a
        // time: a slice of the file per domain would be checked a byte at a time and appended by
        // the array's generic path.)
        let file = reader.bytes
        try file.withUnsafeBufferPointer { file throws(BytecodeError) in
            var next = 0
            for _ in 0..<count {
                let pattern = try reader.increasingPattern(after: &next, below: patternCount, table: "domain condition table")
                let lengthAt = reader.offset
                let word = try reader.varint()
                let start = try reader.skip(Int(word >> 1))
                let domain = UnsafeBufferPointer(rebasing: file[start..<start + Int(word >> 1)])
                guard isValid(domain) else {
                    throw .malformed(at: lengthAt, "domain condition table: a domain of \(word >> 1) bytes with a byte it cannot match")
                }
                table.patterns.append(pattern)
                table.subdomains.append(word & 1 == 1)
                table.bytes.append(contentsOf: domain)
                table.starts.append(UInt32(table.bytes.count))
            }
        }
        table.bytes = table.bytes.fitted()
        table.makeIndex()
        return table
    }

    /// The entries as text: `p<pattern> <domain>`, `*<domain>` when hosts below it match, a line each.
    public func disassemble() -> String {
        guard !entriesInIndex else { return expanded().disassemble() }
        return (0..<count).map { entry in "p\(patterns[entry]) \(subdomains[entry] ? "*" : "")\(String(decoding: domain(entry), as: UTF8.self))" }
            .joined(separator: "\n")
    }
}

extension DomainConditionTable {
    /// The entries (patterns, domains) as the part `entries`, the lookup's index as `index`.
    func held(entries: String, index name: String, into memory: inout HeldMemory) {
        memory.add(entries, array: patterns)
        memory.add(entries, array: subdomains)
        memory.add(entries, array: starts)
        memory.add(entries, array: bytes)
        index.held(name, into: &memory)
    }
}
