// The syntax tree of an accepted url-filter pattern, with source spans, and its dump.
//
// Only what WebKit accepts gets a tree: literals, `.`, classes, groups and the quantifiers
// `?`, `*`, `+` on any of them, with `^` and `$` as flags (WebKit allows `^` only as the first
// term and `$` only as the last top-level term). Case folding is resolved by the parser: every
// atom carries the set of ASCII units it matches under the rule's case sensitivity.
// Tested by URLFilterSyntaxTests/URLFilterParserTests.swift (golden dumps).

/// A half-open range of UTF-8 byte offsets into the pattern. Stored in 32 bits (a pattern is a
/// JSON string, far shorter): a term is then 32 bytes, where two 64-bit offsets would make it 40,
/// and a compiler keeps every parsed term of a list until its automata are built.
public struct SourceSpan: Hashable, Sendable, CustomStringConvertible {
    private var lower: Int32
    private var upper: Int32
    public var lowerBound: Int { Int(lower) }
    public var upperBound: Int { Int(upper) }

    public init(_ lowerBound: Int, _ upperBound: Int) {
        precondition(0 <= lowerBound && lowerBound <= upperBound && upperBound <= Int(Int32.max))
        lower = Int32(lowerBound)
        upper = Int32(upperBound)
    }

    public var description: String { "\(lowerBound)..<\(upperBound)" }
}

/// How many times a term repeats.
public enum URLFilterQuantifier: String, Hashable, Sendable {
    case one = ""
    case zeroOrOne = "?"
    case zeroOrMore = "*"
    case oneOrMore = "+"

    /// Whether the quantifier lets its atom match nothing.
    public var allowsZero: Bool { self == .zeroOrOne || self == .zeroOrMore }
    /// Whether the quantifier lets its atom repeat.
    public var allowsMany: Bool { self == .zeroOrMore || self == .oneOrMore }
}

/// One term of a pattern: an atom and its quantifier.
public struct URLFilterTerm: Hashable, Sendable {
    /// (The set comes first in each payload: a byte after 16 bytes leaves room for the case tag,
    /// the quantifier and the span in 32 bytes a term, where a byte before them would make 40; a
    /// compiler holds every term of a list while it builds the first automata.)
    public enum Atom: Hashable, Sendable {
        /// One character of the pattern (after escapes), and what it matches (both cases of a
        /// letter unless the rule is case-sensitive).
        case character(matches: ASCIISet, unit: UInt8)
        /// `.`: any character but NUL.
        case anyCharacter
        /// `[...]` or `[^...]`; `matches` is final (folded, then complemented when inverted).
        case characterClass(matches: ASCIISet, inverted: Bool)
        /// `(...)`, `(?:...)` or `(?<name>...)`; captures mean nothing to a content blocker.
        case group([URLFilterTerm])
    }

    public var atom: Atom
    public var quantifier: URLFilterQuantifier
    public var span: SourceSpan

    public init(atom: Atom, quantifier: URLFilterQuantifier = .one, span: SourceSpan) {
        self.atom = atom
        self.quantifier = quantifier
        self.span = span
    }

    /// The characters a single-character atom matches; nil for a group.
    public var characterSet: ASCIISet? {
        switch atom {
        case .character(let matches, _), .characterClass(let matches, _): matches
        case .anyCharacter: .anyCharacter
        case .group: nil
        }
    }

    /// A term that matches only NUL (`\0`, `\x00`, `[\0]`, with any quantifier). WebKit ends every
    /// URL with a NUL and reads `$` as matching it, so such a term is an end-of-URL assertion:
    /// nothing may follow it, and it consumes no character of the URL.
    public var isEndOfURLMarker: Bool {
        switch atom {
        case .character(_, 0): true
        case .characterClass(let matches, false): matches == .nul
        default: false
        }
    }

    /// Whether every match of this term consumes at least one character. A pattern none of whose
    /// terms does "matches everything" (WebKit's MatchesEverything).
    public var mustConsumeCharacter: Bool {
        if quantifier.allowsZero || isEndOfURLMarker { return false }
        switch atom {
        case .character, .anyCharacter, .characterClass: return true
        case .group(let terms): return terms.contains { $0.mustConsumeCharacter }
        }
    }
}

/// An accepted url-filter pattern.
public struct URLFilter: Hashable, Sendable {
    /// The pattern as written in the rule.
    public var source: String
    public var isCaseSensitive: Bool
    /// The pattern starts with `^`: it matches at the start of the URL only.
    public var hasStartAnchor: Bool
    /// The pattern ends with `$`: it matches at the end of the URL only.
    public var hasEndAnchor: Bool
    /// The terms between the anchors.
    public var terms: [URLFilterTerm]

    public init(source: String, isCaseSensitive: Bool, hasStartAnchor: Bool, hasEndAnchor: Bool, terms: [URLFilterTerm]) {
        self.source = source
        self.isCaseSensitive = isCaseSensitive
        self.hasStartAnchor = hasStartAnchor
        self.hasEndAnchor = hasEndAnchor
        self.terms = terms
    }

    /// WebKit's MatchesEverything: no term must consume a character, so the pattern matches
    /// every URL (anchors notwithstanding: `^$` and `^a?$` match every URL too).
    public var matchesEverything: Bool { !terms.contains { $0.mustConsumeCharacter } }

    /// The status WebKit gives this accepted pattern.
    public var status: URLFilterParseStatus { matchesEverything ? .matchesEverything : .ok }
}

// MARK: - Dump

extension URLFilter {
    /// A readable, stable rendering of the tree, one term per line, for `blockbench dump` and
    /// golden tests:
    ///
    ///     pattern "^a[b-c]+(d.)?$" case-insensitive, anchored at start and end
    ///     0 char 'a' [Aa] @1..<2
    ///     1 class [BCbc] + @2..<8
    ///     2 group ? @8..<13
    ///       2.0 char 'd' [Dd] @9..<10
    ///       2.1 any . @10..<11
    ///     status Ok
    public func dump() -> String {
        var anchors: [String] = []
        if hasStartAnchor { anchors.append("start") }
        if hasEndAnchor { anchors.append("end") }
        var out = "pattern \(Self.quote(source)) \(isCaseSensitive ? "case-sensitive" : "case-insensitive")"
        if !anchors.isEmpty { out += ", anchored at " + anchors.joined(separator: " and ") }
        out += "\n"
        Self.dump(terms, prefix: "", indent: "", into: &out)
        out += "status \(status.name)\n"
        return out
    }

    private static func dump(_ terms: [URLFilterTerm], prefix: String, indent: String, into out: inout String) {
        for (index, term) in terms.enumerated() {
            let number = prefix + String(index)
            let quantifier = term.quantifier == .one ? "" : " " + term.quantifier.rawValue
            let span = " @\(term.span)"
            switch term.atom {
            case .character(let matches, let unit):
                out += "\(indent)\(number) char \(quoteUnit(unit)) \(matches)\(quantifier)\(span)\n"
            case .anyCharacter:
                out += "\(indent)\(number) any .\(quantifier)\(span)\n"
            case .characterClass(let matches, let inverted):
                out += "\(indent)\(number) class\(inverted ? " inverted" : "") \(matches)\(quantifier)\(span)\n"
            case .group(let inner):
                out += "\(indent)\(number) group\(quantifier)\(span)\n"
                dump(inner, prefix: number + ".", indent: indent + "  ", into: &out)
            }
        }
    }

    static func quote(_ text: String) -> String {
        var out = "\""
        for unit in text.utf8 {
            switch unit {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            case 0x20...0x7E: out += String(UnicodeScalar(unit))
            default: out += ASCIISet.show(unit)
            }
        }
        return out + "\""
    }

    static func quoteUnit(_ unit: UInt8) -> String {
        (0x20...0x7E).contains(unit) && unit != UInt8(ascii: "'") ? "'\(UnicodeScalar(unit))'" : ASCIISet.show(unit)
    }
}
