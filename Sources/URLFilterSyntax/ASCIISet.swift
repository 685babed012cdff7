// ASCIISet: a set of ASCII code units (0...127) in two machine words.
//
// The url-filter subset only ever matches ASCII (docs/SEMANTICS.md §3 and §5: WebKit rejects
// non-ASCII patterns and matches canonical, ASCII-only URLs), so every character, `.` and every
// class of a pattern is one of these sets. The automata build their byte classes from them.
// Tested by URLFilterSyntaxTests/ASCIISetTests.swift.

/// A set of ASCII code units, 0 through 127.
public struct ASCIISet: Hashable, Sendable {
    /// Bits for code units 0...63 and 64...127 (any two words are a set: settable, so that the
    /// inlinable members below can write them).
    public var low: UInt64
    public var high: UInt64

    @inlinable
    public init() { low = 0; high = 0 }

    public init<S: Sequence>(_ units: S) where S.Element == UInt8 {
        self.init()
        for unit in units { insert(unit) }
    }

    /// The set of one unit.
    @inlinable
    public init(_ unit: UInt8) {
        self.init()
        insert(unit)
    }

    public init(_ range: ClosedRange<UInt8>) {
        self.init()
        insert(range)
    }

    /// The empty set: what `[]` matches.
    public static let empty = ASCIISet()

    /// NUL alone: what WebKit's end-of-URL marker matches.
    public static let nul = ASCIISet(UInt8(0))

    /// What `.` matches: every ASCII character but NUL, which never occurs in a URL.
    public static let anyCharacter = ASCIISet(1...127)

    @inlinable
    public var isEmpty: Bool { low == 0 && high == 0 }
    @inlinable
    public var count: Int { low.nonzeroBitCount + high.nonzeroBitCount }

    @inlinable
    public func contains(_ unit: UInt8) -> Bool {
        guard unit < 128 else { return false }
        return unit < 64 ? (low >> unit) & 1 == 1 : (high >> (unit - 64)) & 1 == 1
    }

    @inlinable
    public mutating func insert(_ unit: UInt8) {
        precondition(unit < 128, "ASCIISet holds ASCII only")
        if unit < 64 { low |= 1 << unit } else { high |= 1 << (unit - 64) }
    }

    public mutating func insert(_ range: ClosedRange<UInt8>) {
        for unit in range { insert(unit) }
    }

    @inlinable
    public func union(_ other: ASCIISet) -> ASCIISet {
        var result = self
        result.formUnion(other)
        return result
    }

    @inlinable
    public mutating func formUnion(_ other: ASCIISet) {
        low |= other.low
        high |= other.high
    }

    /// Whether no unit is in both sets.
    public func isDisjoint(with other: ASCIISet) -> Bool { low & other.low == 0 && high & other.high == 0 }

    /// The complement within what `.` matches (1...127): how `[^...]` is read.
    public var complementWithinAnyCharacter: ASCIISet {
        var result = ASCIISet()
        result.low = ~low & ASCIISet.anyCharacter.low
        result.high = ~high & ASCIISet.anyCharacter.high
        return result
    }

    /// The set with the other case of every ASCII letter added (ASCII case folding only).
    public var caseFolded: ASCIISet {
        // Letters sit at 0x41...0x5A and 0x61...0x7A, both in the high word, 32 bits apart.
        let upper: UInt64 = 0x07FF_FFFE          // bits of 0x41...0x5A relative to 64
        let lower: UInt64 = 0x07FF_FFFE << 32    // bits of 0x61...0x7A relative to 64
        var result = self
        result.high |= (high & upper) << 32
        result.high |= (high & lower) >> 32
        return result
    }

    /// Members in increasing order.
    public var members: [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count)
        forEachMember { result.append(UInt8($0)) }
        return result
    }

    /// `body` on each member, in increasing order: the one walk over a set's bits, a loop a word
    /// (the automata's inner loops read every edge's classes through it; an iterator's `next()`
    /// would test both words for each member). A throw from `body` ends the walk; a `return` goes
    /// on to the next member.
    @inlinable @inline(__always)
    public func forEachMember<Failure: Error>(_ body: (Int) throws(Failure) -> Void) throws(Failure) {
        var word = low
        while word != 0 {
            try body(word.trailingZeroBitCount)
            word &= word &- 1
        }
        word = high
        while word != 0 {
            try body(64 &+ word.trailingZeroBitCount)
            word &= word &- 1
        }
    }

    /// The smallest member; nil when the set is empty.
    public var lowest: UInt8? {
        if low != 0 { return UInt8(low.trailingZeroBitCount) }
        if high != 0 { return 64 + UInt8(high.trailingZeroBitCount) }
        return nil
    }
}

extension ASCIISet: CustomStringConvertible {
    /// A compact class syntax: `[a-cx]`, `.` for anyCharacter, `[]` when empty; escapes
    /// non-printable units as `\xHH`.
    public var description: String {
        if self == .anyCharacter { return "." }
        var parts = ""
        var unit = 0
        while unit < 128 {
            guard contains(UInt8(unit)) else { unit += 1; continue }
            var end = unit
            while end + 1 < 128 && contains(UInt8(end + 1)) { end += 1 }
            parts += Self.show(UInt8(unit))
            if end > unit + 1 { parts += "-" }
            if end > unit { parts += Self.show(UInt8(end)) }
            unit = end + 1
        }
        return "[" + parts + "]"
    }

    static func show(_ unit: UInt8) -> String {
        switch unit {
        case 0x21...0x7E where !"[]\\-^".utf8.contains(unit):
            return String(UnicodeScalar(unit))
        case 0x5B, 0x5D, 0x5C, 0x2D, 0x5E:
            return "\\" + String(UnicodeScalar(unit))
        default:
            let hex = String(unit, radix: 16, uppercase: true)
            return "\\x" + (hex.count == 1 ? "0" + hex : hex)
        }
    }
}
