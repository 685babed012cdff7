// DomainPattern.swift — URLFilterSyntax
//
// The pattern WebKit tests a domain of an `if-domain` or `unless-domain` condition with, over the
// main document's URL, case-insensitive and anchored nowhere:
//
//     [a-z][a-z+.-]*:\/\/D[:/]              a domain D: that host
//     [a-z][a-z+.-]*:\/\/([^/]*\.)*D[:/]     `*D`: that host or any below it
//
// D one or more characters of a host name, each matched as hosts are (a letter in both cases,
// any other byte alone; not NUL or `/`). A compiler makes one such pattern per domain of a list
// and answers them by hashing D (Search's
// DomainConditionTable.swift); a url-filter or top-url pattern written so is taken too. As with
// host patterns (HostPattern.swift), the parts are read from a syntax tree or straight from the
// text (the scheme's part has quantifiers: without this, each domain's pattern would go through
// the general reader, and be built as a tree only to be taken apart).

public struct DomainPattern: Hashable, Sendable {
    /// The pattern as written.
    public var source: String
    /// D, lower case.
    public var domain: [UInt8]
    /// `*D`: hosts below D match too.
    public var subdomains: Bool

    /// The pattern of a condition's domain (lower case, ASCII: as the rule-list parser keeps
    /// domains), `*` first for its subdomains too.
    public static func source(forDomain domain: String) -> String {
        // Written byte by byte to a buffer on the stack, then made a string at once: a list has a
        // pattern per domain.
        func source(_ domain: UnsafeBufferPointer<UInt8>) -> String {
            let subdomains = domain.first == UInt8(ascii: "*")
            let special = specialUnits
            return text(prefix: subdomains ? subdomainPrefix : hostPrefix, name: UnsafeBufferPointer(rebasing: domain[(subdomains ? 1 : 0)...]),
                        accepts: { _ in true }, escapes: special.contains)!
        }
        return domain.utf8.withContiguousStorageIfAvailable(source) ?? Array(domain.utf8).withUnsafeBufferPointer(source)
    }

    /// The pattern of a condition's domain with its parts, when the domain (after its `*`) is
    /// one or more lower-case letters, digits, `-`, `_` and `.`: the parts its text
    /// (`source(forDomain:)`) is read as (`init?(source:isCaseSensitive:)`), taken from the domain
    /// itself, so that a list's domains need not be read back. Nil for any other domain (its text
    /// is read as any pattern's). Tested by DomainPatternTests.
    public init?(plainDomain domain: String) {
        // (The domain's bytes read in place and once: its text written on the stack as
        // `source(forDomain:)` writes it, while its units are checked. A list has a pattern per domain.)
        func parts(_ bytes: UnsafeBufferPointer<UInt8>) -> (source: String, name: [UInt8])? {
            let start = bytes.first == UInt8(ascii: "*") ? 1 : 0
            guard start < bytes.count else { return nil }
            let name = UnsafeBufferPointer(rebasing: bytes[start...])
            // Of the plain units, `.` and `-` are special units (`specialUnits`): escaped.
            guard let source = Self.text(prefix: start == 1 ? Self.subdomainPrefix : Self.hostPrefix, name: name,
                                         accepts: Self.isPlainDomainUnit,
                                         escapes: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") })
            else { return nil }
            return (source, Array(name))
        }
        guard let (source, name) = domain.utf8.withContiguousStorageIfAvailable(parts) ?? Array(domain.utf8).withUnsafeBufferPointer(parts)
        else { return nil }
        self.init(source: source, domain: name, subdomains: name.count < domain.utf8.count)
    }

    /// A domain's pattern text: `prefix`, D's units (a backslash before each that `escapes` names), then
    /// `[:/]`, written on the stack and made a string at once; nil when `accepts` refuses a unit.
    @inline(__always)
    private static func text(prefix: StaticString, name: UnsafeBufferPointer<UInt8>,
                             accepts: (UInt8) -> Bool, escapes: (UInt8) -> Bool) -> String? {
        let terminator: StaticString = "[:/]"
        let capacity = prefix.utf8CodeUnitCount + 2 * name.count + terminator.utf8CodeUnitCount
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { pattern -> String? in
            let first = pattern.baseAddress!
            first.initialize(from: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
            var end = first + prefix.utf8CodeUnitCount
            for unit in name {
                guard accepts(unit) else { return nil }
                if escapes(unit) {
                    end.initialize(to: UInt8(ascii: "\\"))
                    end += 1
                }
                end.initialize(to: unit)
                end += 1
            }
            end.initialize(from: terminator.utf8Start, count: terminator.utf8CodeUnitCount)
            end += terminator.utf8CodeUnitCount
            return String(decoding: UnsafeBufferPointer(start: first, count: end - first), as: UTF8.self)
        }
    }

    /// A unit a plain domain is made of (`init?(plainDomain:)`).
    @inline(__always)
    private static func isPlainDomainUnit(_ unit: UInt8) -> Bool {
        (unit >= UInt8(ascii: "a") && unit <= UInt8(ascii: "z")) || (unit >= UInt8(ascii: "0") && unit <= UInt8(ascii: "9"))
            || unit == UInt8(ascii: "-") || unit == UInt8(ascii: "_") || unit == UInt8(ascii: ".")
    }

    /// The units a domain's pattern escapes.
    private static let specialUnits = ASCIISet(".*+?^$()[]{}|\\/-".utf8)
    private static let hostPrefix: StaticString = #"[a-z][a-z+.-]*:\/\/"#
    private static let subdomainPrefix: StaticString = #"[a-z][a-z+.-]*:\/\/([^/]*\.)*"#
    /// The terms before D, case-insensitive (a case-sensitive pattern never has the shape).
    private static let hostTerms = terms(of: "\(hostPrefix)")
    private static let subdomainTerms = terms(of: "\(subdomainPrefix)")

    private static func terms(of prefix: String) -> [URLFilterTerm] {
        guard case .success(let filter) = URLFilterParser.parse(prefix, isCaseSensitive: false) else { preconditionFailure(prefix) }
        return filter.terms
    }

    /// The parts of `filter`, or nil when it does not have the shape.
    public init?(_ filter: URLFilter) {
        guard !filter.hasStartAnchor, !filter.hasEndAnchor else { return nil }
        let terms = filter.terms
        let subdomains: Bool
        if terms.count >= Self.subdomainTerms.count + 2 && zip(terms, Self.subdomainTerms).allSatisfy({ $0.hasSameShape(as: $1) }) {
            subdomains = true
        } else if terms.count >= Self.hostTerms.count + 2 && zip(terms, Self.hostTerms).allSatisfy({ $0.hasSameShape(as: $1) }) {
            subdomains = false
        } else {
            return nil
        }
        var parts = Parts(capacity: terms.count)
        for term in terms[(subdomains ? Self.subdomainTerms.count : Self.hostTerms.count)...] where !parts.take(term) { return nil }
        guard let domain = parts.finish() else { return nil }
        self.init(source: filter.source, domain: domain, subdomains: subdomains)
    }

    /// The parts of the pattern `source`, read from its text; nil when it does not have the shape
    /// or is not written flat after its scheme's part (its parse may still have the shape). A
    /// pattern read here is one WebKit accepts, with the status Ok.
    public init?(source: String, isCaseSensitive: Bool) {
        guard !isCaseSensitive else { return nil }
        func read(_ bytes: UnsafeBufferPointer<UInt8>) -> (domain: [UInt8], subdomains: Bool)? {
            // (The `*D` prefix first: the other is a prefix of it, after which `(` is not flat.)
            let subdomains = FlatPatternReader.starts(bytes, with: Self.subdomainPrefixBytes)
            guard subdomains || FlatPatternReader.starts(bytes, with: Self.hostPrefixBytes) else { return nil }
            var parts = Parts(capacity: bytes.count)
            let start = subdomains ? Self.subdomainPrefixBytes.count : Self.hostPrefixBytes.count
            // D's common characters taken straight from the bytes, each what the flat reader's term
            // for it gives `Parts` (the pattern is case-insensitive): a letter, lower case; a digit,
            // `-` or `_`; `\.` or `\-` (as `source(forDomain:)` writes them). Then either the
            // pattern's usual end, `[:/]` alone, or the rest for the flat reader from there.
            var index = start
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\\") && index + 1 < bytes.count
                    && (bytes[index + 1] == UInt8(ascii: ".") || bytes[index + 1] == UInt8(ascii: "-"))
                {
                    parts.domain.append(bytes[index + 1])
                    index += 2
                    continue
                }
                let lower = byte | 0x20
                let isLetter = lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
                guard isLetter || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                else { break }
                parts.domain.append(isLetter ? lower : byte)
                index += 1
            }
            if bytes.count - index == 4, bytes[index] == UInt8(ascii: "["), bytes[index + 1] == UInt8(ascii: ":"),
                bytes[index + 2] == UInt8(ascii: "/"), bytes[index + 3] == UInt8(ascii: "]")
            {
                return parts.domain.isEmpty ? nil : (parts.domain, subdomains)
            }
            guard let hasEndAnchor = FlatPatternReader.read(bytes, from: index, isCaseSensitive: false, into: &parts), !hasEndAnchor,
                let domain = parts.finish()
            else { return nil }
            return (domain, subdomains)
        }
        guard let (domain, subdomains) = source.utf8.withContiguousStorageIfAvailable(read) ?? Array(source.utf8).withUnsafeBufferPointer(read)
        else { return nil }
        self.init(source: source, domain: domain, subdomains: subdomains)
    }

    private static let hostPrefixBytes = Array("\(hostPrefix)".utf8)
    private static let subdomainPrefixBytes = Array("\(subdomainPrefix)".utf8)

    public init(source: String, domain: [UInt8], subdomains: Bool) {
        self.source = source
        self.domain = domain
        self.subdomains = subdomains
    }

    /// D, then `[:/]` ending the pattern, from the terms after the prefix, one at a time.
    private struct Parts: FlatPatternReader.TermSink {
        var domain: [UInt8] = []
        var ended = false

        init(capacity: Int) {
            domain.reserveCapacity(capacity)
        }

        /// Takes the next term; false when the terms so far cannot be a domain pattern's.
        mutating func take(_ term: URLFilterTerm) -> Bool {
            guard !ended else { return false }
            if let byte = term.hostCharacter, byte != 0x2F {
                domain.append(byte)
                return true
            }
            guard !domain.isEmpty, term.quantifier == .one, term.characterSet == HostPattern.terminator else { return false }
            ended = true
            return true
        }

        func finish() -> [UInt8]? { ended ? domain : nil }
    }
}
