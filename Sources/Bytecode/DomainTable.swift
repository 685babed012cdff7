// DomainTable.swift — Bytecode
//
// Patterns of one exact shape answered by hashing instead of by an automaton. Converters write
// an ABP rule `||domain^` as
//
//     ^[^:]+:\/\/+([^:/]+\.)?D[/:]        D a literal without `:` or `/` (case-insensitive)
//
// and such rules are most of a real list (EasyList and EasyPrivacy together: 94,777 of 112,805).
// Built as automata they are a trie of a million states behind a stage prefix, run from every
// label of the host. What the shape means is simpler than that trie: in a URL whose first `:` is
// followed by at least two `/`, let A be the bytes after that run of `/` up to the next `/` or `:`
// (the URL must go on with one of them); the pattern matches exactly when D equals A from its
// start, or from the byte after a `.` that is not A's first byte. (`[^:]+`, `[^:/]+` and D exclude
// NUL and bytes from 128 on, so such a byte before A's end rules every pattern out.) A URL is then
// read once up to A's end, and A's candidates, a handful, are looked up by a hash computed from
// A's end backwards. The same reading gives the places where the shape's prefix ends, so a stage
// with that prefix (the `||` patterns with a path) starts its suffixes there without running its
// prefix program (ProgramSet.swift). (Tests: DomainTableTests.)
//
// In a file (at the end of a programs section, ProgramSet.swift):
//
//     count      varint   entries, in increasing pattern order
//     per entry  varint   its pattern minus the previous entry's pattern + 1 (the first: itself)
//                varint   D's length (>= 1), then D's bytes: ASCII 1...127 but `/`, `:` and
//                         upper-case letters (D is matched with letters folded to lower case)

public import URLFilterSyntax

public struct DomainTable: Hashable, Sendable {
    /// Per entry: the pattern it reports, and its domain's bytes in `bytes`.
    public private(set) var patterns: [UInt32] = []
    private var starts: [UInt32] = [0]
    private var bytes: [UInt8] = []
    /// The lookup, derived from the entries: an open-addressing table of 32-bit slots, at most
    /// two thirds full, a slot holding entry + 1 (0: empty) in its low `entryBits` bits and the
    /// top bits of the entry's hash (`hash(_:)`) above them, so that a probe that finds another
    /// domain reads nothing else, and the table is small enough to stay in a core's cache
    /// (EasyList and EasyPrivacy: 512 KB).
    private var slots: [UInt32] = []
    private var shift: UInt64 = 64
    private var entryBits: UInt32 = 32
    private var entryMask: UInt32 = 0

    public static func == (lhs: DomainTable, rhs: DomainTable) -> Bool {
        lhs.patterns == rhs.patterns && lhs.starts == rhs.starts && lhs.bytes == rhs.bytes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(patterns)
        hasher.combine(bytes)
    }

    public static let empty = DomainTable()

    private init() {}

    /// The table of `entries` (patterns in increasing order, each domain `domain(of:)` made).
    public init(_ entries: [(pattern: UInt32, domain: [UInt8])]) {
        for entry in entries {
            // (Domains come from `domain(of:)`, which checked them.)
            precondition(patterns.last.map { $0 < entry.pattern } ?? true)
            patterns.append(entry.pattern)
            bytes += entry.domain
            starts.append(UInt32(bytes.count))
        }
        index()
    }

    public var count: Int { patterns.count }
    public var isEmpty: Bool { patterns.isEmpty }

    /// Entry `entry`'s domain.
    public func domain(_ entry: Int) -> ArraySlice<UInt8> { bytes[Int(starts[entry])..<Int(starts[entry + 1])] }

    // MARK: The shape

    /// The terms before D, as the converters write them (`^` aside: a flag of the filter).
    private static let prefixTerms: [URLFilterTerm] = {
        guard case .success(let filter) = URLFilterParser.parse("^[^:]+://+([^:/]+\\.)?a") else { preconditionFailure() }
        return Array(filter.terms.dropLast())
    }()
    private static let terminator = ASCIISet([0x2F, 0x3A])

    /// D, lower case, when `filter` has exactly the shape this table answers; nil otherwise.
    public static func domain(of filter: URLFilter) -> [UInt8]? {
        let terms = filter.terms
        let prefixCount = prefixTerms.count
        guard filter.hasStartAnchor, !filter.hasEndAnchor, terms.count >= prefixCount + 2,
            let last = terms.last, last.quantifier == .one, case .characterClass(let ends, _) = last.atom, ends == terminator,
            zip(terms, prefixTerms).allSatisfy(Self.sameShape)
        else { return nil }
        var domain: [UInt8] = []
        domain.reserveCapacity(terms.count - prefixCount - 1)
        for term in terms[prefixCount..<(terms.count - 1)] {
            guard term.quantifier == .one, case .character(let matches, let unit) = term.atom else { return nil }
            let lower = folded(unit)
            guard matches == ASCIISet(lower).caseFolded else { return nil }
            domain.append(lower)
        }
        return isValid(domain[...]) ? domain : nil
    }

    /// Whether two terms match the same strings the same way, spans aside.
    private static func sameShape(_ a: URLFilterTerm, _ b: URLFilterTerm) -> Bool {
        guard a.quantifier == b.quantifier else { return false }
        switch (a.atom, b.atom) {
        case (.group(let left), .group(let right)): return left.hasSameShape(as: right)
        case (.group, _), (_, .group): return false
        default: return a.characterSet == b.characterSet
        }
    }

    /// A domain the table can hold: not empty, ASCII 1...127 but `/`, `:` and upper-case letters.
    static func isValid(_ domain: ArraySlice<UInt8>) -> Bool {
        guard !domain.isEmpty else { return false }
        let allowed = domainBytes
        for byte in domain where !allowed.contains(byte) { return false }
        return true
    }

    private static let domainBytes = ASCIISet((1...127).filter { $0 != 0x2F && $0 != 0x3A && !(0x41...0x5A).contains($0) })

    @inlinable @inline(__always)
    static func folded(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }

    // MARK: The lookup

    /// One step of the hash of a domain read from its end: FNV-1a over its bytes backwards.
    @inlinable @inline(__always)
    static func step(_ hash: UInt64, _ byte: UInt8) -> UInt64 { (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    @usableFromInline static let seed: UInt64 = 0xCBF2_9CE4_8422_2325

    static func hash(_ domain: ArraySlice<UInt8>) -> UInt64 {
        domain.reversed().reduce(seed) { step($0, $1) }
    }

    private mutating func index() {
        guard !isEmpty else { return }
        var capacity = 2
        while 2 * capacity < 3 * count { capacity *= 2 }
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        entryBits = UInt32(UInt32.bitWidth - UInt32(count).leadingZeroBitCount)
        entryMask = entryBits == 32 ? .max : (1 << entryBits) - 1
        slots = [UInt32](repeating: 0, count: capacity)
        for entry in 0..<count {
            let hash = Self.hash(domain(entry))
            var slot = slot(of: hash)
            while slots[slot] != 0 { slot = (slot + 1) & (capacity - 1) }
            slots[slot] = fingerprint(hash) | UInt32(entry + 1)
        }
    }

    /// The top bits of `hash` above a slot's entry bits.
    private func fingerprint(_ hash: UInt64) -> UInt32 { UInt32(truncatingIfNeeded: hash >> 32) & ~entryMask }

    private func slot(of hash: UInt64) -> Int { Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> shift) }

    /// Where the shape's prefix `^[^:]+:\/\/+([^:/]+\.)?` ends in a URL: after each `/` of the
    /// run after the first `:` from its second on (`slashesEnd` ... `start`), and after each `.`
    /// of A but its first byte, A being `start ..< end`, up to the first `/`, `:`, NUL or byte from
    /// 128 on. The domains are looked up only when A ends at a `/` or `:` (`terminated`).
    public struct HostLabels: Sendable {
        public var slashesEnd: Int
        public var start: Int
        public var end: Int
        public var terminated: Bool

        /// The places where the prefix ends, in increasing order: where a stage's suffixes start.
        @inlinable
        public func appendEnds(_ url: UnsafeBufferPointer<UInt8>, to ends: inout [Int]) {
            for place in slashesEnd...start { ends.append(place) }
            var at = start + 1
            while at < end {
                if url[at] == 0x2E { ends.append(at + 1) }
                at += 1
            }
        }
    }

    /// The host labels of `url` (without its end-of-URL NUL), nil when the prefix cannot match
    /// (no scheme, a NUL or a byte from 128 in it, fewer than two `/` after it); `steps` is
    /// told the bytes read.
    public static func hostLabels(_ url: UnsafeBufferPointer<UInt8>, steps: inout Int) -> HostLabels? {
        let colon = 0x3A as UInt8, slash = 0x2F as UInt8
        var at = 0
        // `[^:]+:`: the scheme.
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
        // `\/\/+`, then A.
        var start = at + 3
        while start < url.count && url[start] == slash { start += 1 }
        var end = start
        while end < url.count {
            let byte = url[end]
            guard byte != slash && byte != colon && byte != 0 && byte < 0x80 else { break }
            end += 1
        }
        steps += end + 1
        return HostLabels(slashesEnd: at + 3, start: start, end: end, terminated: end < url.count && (url[end] == slash || url[end] == colon))
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
    public func lookUp(_ url: UnsafeBufferPointer<UInt8>, _ labels: HostLabels, report: (UInt32) -> Void) {
        let (start, end) = (labels.start, labels.end)
        guard labels.terminated, end > start, !isEmpty else { return }
        slots.withUnsafeBufferPointer { slots in
            var hash = Self.seed
            var candidate = end
            while candidate > start {
                candidate -= 1
                hash = Self.step(hash, Self.folded(url[candidate]))
                guard candidate == start || (candidate >= start + 2 && url[candidate - 1] == 0x2E) else { continue }
                var slot = slot(of: hash)
                let expected = fingerprint(hash)
                while slots[slot] != 0 {
                    if slots[slot] & ~entryMask == expected {
                        let entry = Int(slots[slot] & entryMask) - 1
                        if matches(entry, url, candidate..<end) { report(patterns[entry]) }
                    }
                    slot = (slot + 1) & (slots.count - 1)
                }
            }
        }
    }

    private func matches(_ entry: Int, _ url: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        let start = Int(starts[entry])
        guard Int(starts[entry + 1]) - start == range.count else { return false }
        for offset in 0..<range.count where bytes[start + offset] != Self.folded(url[range.lowerBound + offset]) { return false }
        return true
    }

    // MARK: The file

    func write(to writer: inout ByteWriter) {
        writer.varint(UInt32(count))
        var next: UInt32 = 0
        for entry in 0..<count {
            writer.varint(patterns[entry] - next)
            next = patterns[entry] + 1
            let domain = domain(entry)
            writer.varint(UInt32(domain.count))
            writer.append(contentsOf: domain)
        }
    }

    /// Reads and validates a table whose patterns are below `patternCount`.
    static func read(from reader: inout ByteReader, patternCount: Int) throws(BytecodeError) -> DomainTable {
        let count = try reader.varintCount(of: "domains", itemBytes: 3)
        var table = DomainTable()
        var next = 0
        for _ in 0..<count {
            let at = reader.offset
            let pattern = next + Int(try reader.varint())
            guard pattern < patternCount else { throw .malformed(at: at, "domain table: pattern \(pattern) of \(patternCount)") }
            let lengthAt = reader.offset
            let length = Int(try reader.varint())
            let domain = try reader.take(length)
            guard isValid(domain) else { throw .malformed(at: lengthAt, "domain table: a domain of \(length) bytes with a byte it cannot match") }
            table.patterns.append(UInt32(pattern))
            table.bytes += domain
            table.starts.append(UInt32(table.bytes.count))
            next = pattern + 1
        }
        table.index()
        return table
    }

    /// The entries as text: `p<pattern> <domain>`, a line each.
    public func disassemble() -> String {
        (0..<count).map { "p\(patterns[$0]) \(String(decoding: domain($0), as: UTF8.self))" }.joined(separator: "\n")
    }
}
