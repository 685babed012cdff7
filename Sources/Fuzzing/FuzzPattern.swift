// FuzzPattern.swift — Fuzzing
//
// The generators' own model of a url-filter: a tree of terms that knows how it is written (every
// spelling the legacy JavaScript grammar allows for a character, a class, a group or a
// quantifier) and what WebKit should say about it, independently of URLFilterParser. A tree is
// either inside the subset (docs/SEMANTICS.md §3) or carries exactly one `Defect`, a construct
// just outside it, whose status WebKit gives the whole pattern. Shrinking edits these trees, so
// a shrunk pattern is always rendered by the same rules.
// Tested by FuzzingTests (the status level runs on these trees; the small world renders them).

public import URLFilterSyntax

/// How a literal character is written.
public enum CharacterSpelling: Hashable, Sendable, CaseIterable {
    /// The character itself (escaped anyway where it would mean something else).
    case plain
    /// `\` and the character (an identity escape: `\.`, `\/`, `\a`).
    case identity
    /// `\xHH`.
    case hex
    /// `\uHHHH`.
    case unicode
    /// Three octal digits, `\101` (Annex B legacy octal escape).
    case octal
    /// `\cX` for 1...26.
    case control
    /// `\t \n \v \f \r`, and `\b` (backspace) inside a class.
    case named
}

/// How a quantifier is written; `.one` is no quantifier.
public enum QuantifierSpelling: Hashable, Sendable {
    case one
    case short(URLFilterQuantifier)
    /// `{0,1}`, `{0,}`, `{1,}`, or a rarer form with the same meaning (`{00,01}`, `{0,4294967295}`).
    case braces(String, URLFilterQuantifier)

    public var meaning: URLFilterQuantifier {
        switch self {
        case .one: .one
        case .short(let quantifier), .braces(_, let quantifier): quantifier
        }
    }
}

public enum GroupKind: Hashable, Sendable {
    case capturing
    case nonCapturing
    case named(String)
}

/// An item of a class: a character or a range, each end with its spelling.
public enum ClassItem: Hashable, Sendable {
    case character(UInt8, CharacterSpelling)
    case range(UInt8, CharacterSpelling, UInt8, CharacterSpelling)
}

/// A construct just outside the subset, written as one term, and the status WebKit gives a
/// pattern that is otherwise inside the subset.
public enum Defect: Hashable, Sendable {
    /// `|`: Disjunction.
    case disjunction
    /// `(?=x)`, `(?!x)`, `(?<=x)`, `(?<!x)`: Group.
    case lookaround(String)
    /// `\d \D \s \S \w \W`: UnsupportedCharacterClass.
    case builtInClass(Character)
    /// `[x\d]`: AtomCharacter.
    case builtInClassInClass(Character)
    /// `\b`, `\B`: WordBoundary.
    case wordBoundary(Character)
    /// `(?<n>x)\k<n>`: BackReference.
    case backReference
    /// `x{2}`, `x{1,3}`, `x{2,}`: InvalidQuantifier.
    case invalidQuantifier(String)
    /// `é` or `\u00e9`: NonASCII.
    case nonASCII(String)
    /// `^` anywhere but first: MisplacedStartOfLine.
    case misplacedStart
    /// `$x`, `\0x`: MisplacedEndOfLine.
    case misplacedEnd(String)
    /// Text YARR rejects: `(`, `)`, `x**`, `[b-a]`, `(?x)`, `{1}`: YarrError.
    case syntax(String)
    /// `[` or `\` at the very end: YarrError.
    case trailingSyntax(String)

    public var status: URLFilterParseStatus {
        switch self {
        case .disjunction: .disjunction
        case .lookaround: .group
        case .builtInClass: .unsupportedCharacterClass
        case .builtInClassInClass: .atomCharacter
        case .wordBoundary: .wordBoundary
        case .backReference: .backReference
        case .invalidQuantifier: .invalidQuantifier
        case .nonASCII: .nonASCII
        case .misplacedStart: .misplacedStartOfLine
        case .misplacedEnd: .misplacedEndOfLine
        case .syntax, .trailingSyntax: .yarrError
        }
    }

    var text: String {
        switch self {
        case .disjunction: "|"
        case .lookaround(let text): text
        case .builtInClass(let letter): "\\\(letter)"
        case .builtInClassInClass(let letter): "[x\\\(letter)]"
        case .wordBoundary(let letter): "\\\(letter)"
        case .backReference: "(?<r>x)\\k<r>"
        case .invalidQuantifier(let braces): "x" + braces
        case .nonASCII(let text): text
        case .misplacedStart: "^"
        case .misplacedEnd(let text): text
        case .syntax(let text), .trailingSyntax(let text): text
        }
    }
}

public indirect enum FuzzAtom: Hashable, Sendable {
    case character(UInt8, CharacterSpelling)
    /// `.`
    case any
    case characterClass(negated: Bool, [ClassItem])
    case group(GroupKind, [FuzzTerm])
    /// A NUL (`\0`, `\x00`, `[\0]`): WebKit's end-of-URL marker; generated only as the last term.
    case endMarker(String)
    case defect(Defect)
}

public struct FuzzTerm: Hashable, Sendable {
    public var atom: FuzzAtom
    public var quantifier: QuantifierSpelling
    /// `*?`: a lazy quantifier (same matches).
    public var lazy: Bool

    public init(_ atom: FuzzAtom, _ quantifier: QuantifierSpelling = .one, lazy: Bool = false) {
        self.atom = atom
        self.quantifier = quantifier
        self.lazy = lazy
    }
}

/// A url-filter as the generators build it.
public struct FuzzPattern: Hashable, Sendable {
    public var startAnchor: Bool
    /// `^^`: WebKit takes repeated `^` before the first term as one (probed with WebKitGTK 2.50.6).
    public var doubledStartAnchor = false
    public var endAnchor: Bool
    public var terms: [FuzzTerm]
    public var caseSensitive: Bool

    public init(startAnchor: Bool = false, endAnchor: Bool = false, terms: [FuzzTerm], caseSensitive: Bool = false) {
        self.startAnchor = startAnchor
        self.endAnchor = endAnchor
        self.terms = terms
        self.caseSensitive = caseSensitive
    }

    /// The pattern as written in a rule.
    public var source: String {
        var out = startAnchor ? (doubledStartAnchor ? "^^" : "^") : ""
        Self.render(terms, followedBy: endAnchor ? UInt8(ascii: "$") : nil, into: &out)
        if endAnchor { out += "$" }
        return out
    }

    /// The defect the pattern carries, if any (the first in source order).
    public var defect: Defect? { Self.firstDefect(terms) }

    private static func firstDefect(_ terms: [FuzzTerm]) -> Defect? {
        for term in terms {
            switch term.atom {
            case .defect(let defect): return defect
            case .group(_, let inner): if let defect = firstDefect(inner) { return defect }
            default: break
            }
        }
        return nil
    }

    /// The status WebKit should give the pattern, by this model: the defect's, or for a pattern
    /// inside the subset Ok, or MatchesEverything when no term must consume a character.
    /// (An empty source is EmptyPattern.)
    public var expectedStatus: URLFilterParseStatus {
        if source.isEmpty { return .emptyPattern }
        if let defect { return defect.status }
        // An end-of-URL marker must be the last top-level term, and not followed by `$`.
        if let marker = terms.firstIndex(where: Self.countsAsEndOfLine), marker != terms.count - 1 || endAnchor {
            return .misplacedEndOfLine
        }
        if terms.contains(where: { Self.containsEndMarker($0, nested: false) }) { return .misplacedEndOfLine }
        return terms.contains(where: Self.mustConsume) ? .ok : .matchesEverything
    }

    /// A term that matches only NUL: `\0`, `\x00`, `[\0]`, with any quantifier.
    static func isEndMarker(_ term: FuzzTerm) -> Bool {
        switch term.atom {
        case .endMarker, .character(0, _): return true
        case .characterClass(false, let items):
            return !items.isEmpty && items.allSatisfy {
                if case .character(0, _) = $0 { true } else if case .range(0, _, 0, _) = $0 { true } else { false }
            }
        default: return false
        }
    }

    /// An end marker, or `[^\0]`: WebKit places a class by its written members, so `[^\0]` must
    /// be last and consumes no character for "matches everything", though it matches like `.`.
    static func countsAsEndOfLine(_ term: FuzzTerm) -> Bool {
        if isEndMarker(term) { return true }
        guard case .characterClass(true, let items) = term.atom else { return false }
        return !items.isEmpty && items.allSatisfy {
            if case .character(0, _) = $0 { true } else if case .range(0, _, 0, _) = $0 { true } else { false }
        }
    }

    /// Whether an end marker (or `[^\0]`) sits inside a group (where it can never be last).
    static func containsEndMarker(_ term: FuzzTerm, nested: Bool) -> Bool {
        if nested && countsAsEndOfLine(term) { return true }
        if case .group(_, let inner) = term.atom { return inner.contains { containsEndMarker($0, nested: true) } }
        return false
    }

    static func mustConsume(_ term: FuzzTerm) -> Bool {
        let quantifier = term.quantifier.meaning
        guard quantifier == .one || quantifier == .oneOrMore, !countsAsEndOfLine(term) else { return false }
        switch term.atom {
        case .character, .any, .characterClass: return true
        case .group(_, let inner): return inner.contains(where: mustConsume)
        case .endMarker, .defect: return false
        }
    }

    /// The number of nodes (terms, at every depth) and characters: what shrinking reduces.
    public var size: Int { Self.size(terms) + (startAnchor ? 1 : 0) + (endAnchor ? 1 : 0) }

    static func size(_ terms: [FuzzTerm]) -> Int {
        terms.reduce(0) { total, term in
            var node = 1 + (term.quantifier == .one ? 0 : 1)
            if case .group(_, let inner) = term.atom { node += size(inner) }
            if case .characterClass(_, let items) = term.atom { node += items.count }
            return total + node
        }
    }
}

// MARK: - Rendering

extension FuzzPattern {
    /// Characters with a meaning of their own outside a class.
    static let syntaxCharacters = Set("\\^$.|?*+()[]{}".utf8)
    /// Letters whose escape means something (`\d`, `\b`, `\x`, ...), and digits (octal, `\8`).
    static let meaningfulEscapes = Set("bBdDsSwWcxuktnrvf0123456789".utf8)

    static func render(_ terms: [FuzzTerm], followedBy after: UInt8?, into out: inout String) {
        for (index, term) in terms.enumerated() {
            // What the next term's text starts with decides whether a plain `{` stays literal.
            render(term, followedBy: index + 1 < terms.count ? firstByte(of: terms[index + 1]) : after, into: &out)
        }
    }

    /// The first byte of a term's text.
    static func firstByte(of term: FuzzTerm) -> UInt8? {
        switch term.atom {
        case .character(let unit, let spelling):
            return character(unit, spelling, inClass: false, followedBy: nil).utf8.first
        case .any: return UInt8(ascii: ".")
        case .characterClass: return UInt8(ascii: "[")
        case .group: return UInt8(ascii: "(")
        case .endMarker(let text): return text.utf8.first
        case .defect(let defect): return defect.text.utf8.first
        }
    }

    static func render(_ term: FuzzTerm, followedBy next: UInt8?, into out: inout String) {
        switch term.atom {
        case .character(let unit, let spelling):
            let followed = term.quantifier == .one ? next : nil
            out += character(unit, spelling, inClass: false, followedBy: followed)
        case .any:
            out += "."
        case .characterClass(let negated, let items):
            out += "[" + (negated ? "^" : "")
            for (index, item) in items.enumerated() {
                out += classItem(item, first: index == 0 && !negated, last: index == items.count - 1)
            }
            out += "]"
        case .group(let kind, let inner):
            switch kind {
            case .capturing: out += "("
            case .nonCapturing: out += "(?:"
            case .named(let name): out += "(?<\(name)>"
            }
            render(inner, followedBy: UInt8(ascii: ")"), into: &out)
            out += ")"
        case .endMarker(let text):
            out += text
        case .defect(let defect):
            out += defect.text
        }
        switch term.quantifier {
        case .one: break
        case .short(let quantifier): out += quantifier.rawValue
        case .braces(let text, _): out += text
        }
        if term.lazy && term.quantifier != .one { out += "?" }
    }

    static func hex2(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 2 - digits.count)) + digits
    }

    /// One character in the given spelling, falling back to a spelling that means that character
    /// where the asked one cannot (a plain `*`, `\c` for 0x41).
    static func character(_ unit: UInt8, _ spelling: CharacterSpelling, inClass: Bool, followedBy next: UInt8?) -> String {
        switch spelling {
        case .plain:
            let special: Bool
            if inClass {
                special = unit == UInt8(ascii: "\\") || unit == UInt8(ascii: "]") || unit == UInt8(ascii: "^") || unit == UInt8(ascii: "-")
            } else if unit == UInt8(ascii: "]") || unit == UInt8(ascii: "}") {
                special = false  // literal in legacy mode
            } else if unit == UInt8(ascii: "{") {
                special = next.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false
            } else {
                special = syntaxCharacters.contains(unit)
            }
            if unit == 0 || unit >= 0x80 { return character(unit, .hex, inClass: inClass, followedBy: next) }
            if special { return character(unit, .identity, inClass: inClass, followedBy: next) }
            return String(UnicodeScalar(unit))
        case .identity:
            // In legacy mode any character but the meaningful letters and digits escapes to itself
            // (`\-`, `\a`, `\8`).
            guard unit >= 0x21 && unit <= 0x7E, !meaningfulEscapes.contains(unit) || unit == UInt8(ascii: "8") || unit == UInt8(ascii: "9")
            else { return character(unit, .hex, inClass: inClass, followedBy: next) }
            return "\\" + String(UnicodeScalar(unit))
        case .hex:
            return "\\x" + hex2(UInt32(unit)).uppercased(with: unit)
        case .unicode:
            return "\\u00" + hex2(UInt32(unit)).uppercased(with: unit &+ 1)
        case .octal:
            let value = UInt32(unit)
            return "\\" + String(value / 64) + String(value / 8 % 8) + String(value % 8)
        case .control:
            guard (1...26).contains(unit) else { return character(unit, .hex, inClass: inClass, followedBy: next) }
            let letter = (unit % 2 == 0 ? UInt8(ascii: "a") : UInt8(ascii: "A")) + unit - 1
            return "\\c" + String(UnicodeScalar(letter))
        case .named:
            switch unit {
            case 0x09: return "\\t"
            case 0x0A: return "\\n"
            case 0x0B: return "\\v"
            case 0x0C: return "\\f"
            case 0x0D: return "\\r"
            case 0x08 where inClass: return "\\b"
            default: return character(unit, .hex, inClass: inClass, followedBy: next)
            }
        }
    }

    static func classItem(_ item: ClassItem, first: Bool, last: Bool) -> String {
        switch item {
        case .character(let unit, let spelling):
            // A plain `-` is literal first or last; `^` only not first.
            if spelling == .plain && unit == UInt8(ascii: "-") && (first || last) { return "-" }
            if spelling == .plain && unit == UInt8(ascii: "^") && !first { return "^" }
            return character(unit, spelling, inClass: true, followedBy: nil)
        case .range(let low, let lowSpelling, let high, let highSpelling):
            return character(low, lowSpelling, inClass: true, followedBy: nil) + "-" + character(high, highSpelling, inClass: true, followedBy: nil)
        }
    }
}

private extension String {
    /// Upper-cases the hex digits for some characters: both cases are valid and both are tried.
    func uppercased(with unit: UInt8) -> String { unit % 3 == 0 ? uppercased() : self }
}

// MARK: - What a term matches

extension FuzzPattern {
    /// The characters a single-character atom matches under the pattern's case sensitivity
    /// (the generators' own reading, used to walk to matching strings).
    func characters(of atom: FuzzAtom) -> ASCIISet? {
        func fold(_ set: ASCIISet) -> ASCIISet { caseSensitive ? set : set.caseFolded }
        switch atom {
        case .character(let unit, _):
            return unit < 0x80 ? fold(ASCIISet(unit)) : ASCIISet()
        case .any:
            return .anyCharacter
        case .characterClass(let negated, let items):
            var set = ASCIISet()
            for item in items {
                switch item {
                case .character(let unit, _): if unit < 0x80 { set.insert(unit) }
                case .range(let low, _, let high, _): if high < 0x80 && low <= high { set.insert(low...high) }
                }
            }
            set = fold(set)
            return negated ? set.complementWithinAnyCharacter : set
        default:
            return nil
        }
    }
}
