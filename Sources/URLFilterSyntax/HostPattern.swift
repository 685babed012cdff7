// HostPattern.swift — URLFilterSyntax
//
// The shape converters give ABP's `||domain^` and `||domain/path` rules, most of a real list's
// url-filters (EasyList and EasyPrivacy together: 97,956 of 103,482):
//
//     ^[^:]+:\/\/+([^:/]+\.)?D T
//
// D one or more characters of a host name, each matched as hosts are (a letter in both cases,
// any other byte alone; not NUL, `/` or `:`), and T single characters or classes without
// quantifiers, the first of `/` and `:` only. The compiler answers such patterns by hashing D
// (Search/DomainTable.swift), so what it needs of one is D and T's sets, not a syntax tree.
//
// The parts are read from a syntax tree (`init(_:)`), or straight from a pattern's text
// (`init(source:isCaseSensitive:)`): the flat reader's terms for the text after the prefix are
// taken one at a time and none is kept, so a list's host patterns are never built as trees.
// Both read the same terms in the same way; URLFilterSyntaxTests hold them to each other on every
// shipped pattern and on generated ones.

public struct HostPattern: Hashable, Sendable {
    /// The pattern as written in the rule.
    public var source: String
    public var isCaseSensitive: Bool
    /// D, lower case.
    public var domain: [UInt8]
    /// T's sets, then NUL alone for an end anchor; empty when T is `[/:]` alone (without `$`),
    /// which the end of a host already satisfies.
    public var tail: [ASCIISet]

    /// `/` and `:`.
    public static let terminator = ASCIISet([0x2F, 0x3A])

    /// The terms before D (`^` aside: a flag of the filter).
    public static var prefixTerms: [URLFilterTerm] { FlatPatternReader.hostPrefixTerms }

    /// The parts of `filter`, or nil when it does not have the shape.
    public init?(_ filter: URLFilter) {
        guard let terms = Self.termsAfterPrefix(filter) else { return nil }
        var parts = Parts(capacity: terms.count)
        for term in terms where !parts.take(term) { return nil }
        guard let (domain, tail) = parts.finish(hasEndAnchor: filter.hasEndAnchor) else { return nil }
        self.init(source: filter.source, isCaseSensitive: filter.isCaseSensitive, domain: domain, tail: tail)
    }

    /// The parts of the pattern `source`, read from its text; nil when it does not have the shape
    /// or is not written flat (its parse may still have the shape: `init(_:)` of the parse then
    /// says). A pattern read here is one WebKit accepts, with the status Ok.
    public init?(source: String, isCaseSensitive: Bool) {
        func read(_ bytes: UnsafeBufferPointer<UInt8>) -> (domain: [UInt8], tail: [ASCIISet])? {
            guard var index = FlatPatternReader.hostPrefixLength(bytes) else { return nil }
            var parts = Parts()
            // D's common characters taken straight from the bytes, each what the flat reader's
            // term for it would give: a letter (unless case-sensitive, when its term matches one
            // case only), a digit, `-`, `_`, or `\.`. The rest of the pattern from the first other byte.
            // (Written to a buffer on the stack, then D made of it at once: an append per byte
            // is most of the work otherwise. No byte of D is more than one of the pattern's.)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count - index) { domain in
                var count = 0
                // A unit's value in `domainUnits` less one is below `limit` less one when D takes it
                // (0, not one of D's units, wraps to 255; a letter's is at least `a`).
                let limit: UInt8 = isCaseSensitive ? UInt8(ascii: "a") : 0x80
                // (Through pointers, without overflow checks: no byte of D is more than one of the
                // pattern's, and the room is the pattern's bytes after the prefix.)
                if let first = domain.baseAddress, let base = bytes.baseAddress {
                    Self.domainUnits.withUnsafeBufferPointer { units in
                        let table = units.baseAddress!
                        let end = base + bytes.count
                        var at = base + index
                        var to = first
                        while at < end {
                            let unit = table[Int(at.pointee)]
                            if unit &- 1 < limit &- 1 {
                                to.pointee = unit
                                to += 1
                                at += 1
                            } else if at.pointee == UInt8(ascii: "\\") && at + 1 < end && at[1] == UInt8(ascii: ".") {
                                to.pointee = UInt8(ascii: ".")
                                to += 1
                                at += 2
                            } else {
                                break
                            }
                        }
                        count = to - first
                        index = at - base
                    }
                }
                parts.domain = Array(UnsafeBufferPointer(start: domain.baseAddress, count: count))
            }
            // T is most often `[/:]` alone (a converted `||domain^`): its term is the terminator,
            // which the end of a host already satisfies, as `finish` says.
            if bytes.count - index == 4, bytes[index] == UInt8(ascii: "["), bytes[index + 1] == UInt8(ascii: "/"),
                bytes[index + 2] == UInt8(ascii: ":"), bytes[index + 3] == UInt8(ascii: "]")
            {
                return parts.domain.isEmpty ? nil : (parts.domain, [])
            }
            guard let hasEndAnchor = FlatPatternReader.read(bytes, from: index, isCaseSensitive: isCaseSensitive, into: &parts) else {
                return nil
            }
            return parts.finish(hasEndAnchor: hasEndAnchor)
        }
        guard let (domain, tail) = source.utf8.withContiguousStorageIfAvailable(read) ?? Array(source.utf8).withUnsafeBufferPointer(read)
        else { return nil }
        self.init(source: source, isCaseSensitive: isCaseSensitive, domain: domain, tail: tail)
    }

    /// Each byte as D takes it straight from a pattern's text, 0 when it is none of them: a
    /// letter lower case (a case-sensitive pattern's letters are not taken: their terms match
    /// one case only), a digit, `-` or `_` as it is.
    private static let domainUnits: [UInt8] = (0..<0x100).map { unit -> UInt8 in
        guard unit < 0x80 else { return 0 }
        let lower = UInt8(unit) | 0x20
        if lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z") { return lower }
        let isOther = (UInt8(unit) >= UInt8(ascii: "0") && UInt8(unit) <= UInt8(ascii: "9")) || unit == 0x2D || unit == 0x5F
        return isOther ? UInt8(unit) : 0
    }

    public init(source: String, isCaseSensitive: Bool, domain: [UInt8], tail: [ASCIISet]) {
        self.source = source
        self.isCaseSensitive = isCaseSensitive
        self.domain = domain
        self.tail = tail
    }

    /// D of a pattern that starts as a host pattern does, `^[^:]+:\/\/+([^:/]+\.)?D`, then a
    /// character of `/` and `:` only, whatever follows it (a loop, an optional part): every URL
    /// the pattern matches holds D where a host pattern of D with T `[/:]` finds it, so that host
    /// pattern is a gate of the pattern (Automata/GatePlanner.swift). Nil for any other pattern.
    public static func domainGate(of filter: URLFilter) -> [UInt8]? {
        guard let terms = termsAfterPrefix(filter) else { return nil }
        // The parts as a host pattern's, up to T's first set.
        var parts = Parts(capacity: terms.count)
        for term in terms {
            guard parts.take(term) else { return nil }
            if !parts.tail.isEmpty { return parts.domain }
        }
        return nil
    }

    /// What a pattern with a domain gate (`domainGate(of:)`) matches after D, as a pattern of its
    /// own anchored where D ends: its terms from the `[/:]` character on. A URL whose host ends
    /// with D (D whole or after a `.` and a label, followed by `/` or `:`: where the domain table
    /// finds a gate) matches the pattern exactly when its bytes from the host's end match this.
    /// (D can end nowhere else: the prefix's `([^:/]+\.)?D` holds no `/` or `:`, and the next
    /// character is one.) Nil for a pattern without a domain gate.
    public static func afterDomainGate(of filter: URLFilter) -> URLFilter? {
        guard let domain = domainGate(of: filter) else { return nil }
        return filter.anchored(from: prefixTerms.count + domain.count)
    }

    /// The terms of `filter` after the prefix, when it is anchored and starts with the prefix and
    /// something follows it.
    public static func termsAfterPrefix(_ filter: URLFilter) -> ArraySlice<URLFilterTerm>? {
        let prefix = Self.prefixTerms
        guard filter.hasStartAnchor, filter.terms.count > prefix.count,
            zip(filter.terms, prefix).allSatisfy({ $0.hasSameShape(as: $1) })
        else { return nil }
        return filter.terms[prefix.count...]
    }

    /// D and T from the terms after the prefix, one at a time.
    private struct Parts: FlatPatternReader.TermSink {
        var domain: [UInt8] = []
        var tail: [ASCIISet] = []

        init() {}

        init(capacity: Int) {
            domain.reserveCapacity(capacity)
        }

        /// Takes the next term; false when the terms so far cannot be a host pattern's.
        mutating func take(_ term: URLFilterTerm) -> Bool {
            if tail.isEmpty, let byte = term.hostCharacter, byte != 0x2F, byte != 0x3A {
                domain.append(byte)
                return true
            }
            guard !domain.isEmpty, term.quantifier == .one, let set = term.characterSet, !set.isEmpty,
                !tail.isEmpty || set.union(HostPattern.terminator) == HostPattern.terminator
            else { return false }
            tail.append(set)
            return true
        }

        func finish(hasEndAnchor: Bool) -> (domain: [UInt8], tail: [ASCIISet])? {
            guard !domain.isEmpty, !tail.isEmpty else { return nil }
            if tail == [HostPattern.terminator] && !hasEndAnchor { return (domain, []) }
            return (domain, hasEndAnchor ? tail + [.nul] : tail)
        }
    }
}

extension URLFilterTerm {
    /// The byte of a term that is one character matched as a host name's characters are (a
    /// letter in both cases, any other byte alone), lower case; nil for any other term. NUL is
    /// never one: it is the end of a URL. (Tested without making a set per term: the domain
    /// tables test it on every term of a list's host patterns.)
    public var hostCharacter: UInt8? {
        guard quantifier == .one, case .character(let matches, let unit) = atom, unit != 0, unit < 0x80 else { return nil }
        let lower = unit &- 0x41 < 26 ? unit | 0x20 : unit
        // The set of `lower` and, for a letter, its upper case (letters lie in the high word).
        var low: UInt64 = 0, high: UInt64 = 0
        if lower < 64 { low = 1 << lower } else { high = 1 << (lower - 64) }
        if lower &- 0x61 < 26 { high |= 1 << (lower - 0x20 - 64) }
        guard matches.low == low, matches.high == high else { return nil }
        return lower
    }
}

/// An accepted pattern as a compiler takes it (`URLFilterParser.read`): a host pattern's or a
/// domain pattern's parts, read from its text without a syntax tree, or the syntax tree of any
/// other.
public enum AcceptedPattern: Hashable, Sendable {
    case host(HostPattern)
    case domain(DomainPattern)
    /// A host pattern in another converter's words (ShapedHostPattern.swift); boxed, so that the
    /// others (a compiler holds one per pattern) stay as small as they were.
    indirect case shaped(ShapedHostPattern)
    case filter(URLFilter)

    /// The pattern as written in the rule.
    public var source: String {
        switch self {
        case .host(let host): host.source
        case .domain(let domain): domain.source
        case .shaped(let shaped): shaped.source
        case .filter(let filter): filter.source
        }
    }

    /// The status WebKit gives it (a host or domain pattern's is Ok).
    public var status: URLFilterParseStatus {
        switch self {
        case .host, .domain, .shaped: .ok
        case .filter(let filter): filter.status
        }
    }

    /// Its syntax tree (a host or domain pattern's parsed now).
    public var filter: URLFilter {
        // (Their texts parse: they were read as the parser reads them; a domain pattern's are
        // case-insensitive.)
        switch self {
        case .host(let host): try! URLFilterParser.parse(host.source, isCaseSensitive: host.isCaseSensitive).get()
        case .domain(let domain): try! URLFilterParser.parse(domain.source, isCaseSensitive: false).get()
        case .shaped(let shaped): try! URLFilterParser.parse(shaped.source, isCaseSensitive: shaped.isCaseSensitive).get()
        case .filter(let filter): filter
        }
    }
}
