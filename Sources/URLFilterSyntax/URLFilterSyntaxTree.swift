// The syntax tree of an accepted url-filter pattern, with source spans, and its dump.
//
// Only what WebKit accepts gets a tree: literals, `.`, classes, groups and the quantifiers
// `?`, `*`, `+` on any of them, with `^` and `$` as flags (WebKit allows `^` only as the first
// term and `$` only as the last top-level term). Case folding is resolved by the parser: every
// atom carries the set of ASCII units it matches under the rule's case sensitivity.
//
// Groups nest as deep as the input says (WebKit accepts 60,000 levels), so nothing here or in the
// compiler walks the tree by recursion: a group carries what the compiler asks of its whole
// subtree, computed once when the parser closes it; equality, teardown and the dump use explicit
// stacks.
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
        case characterClass(matches: ASCIISet, form: ClassForm)
        /// `(...)`, `(?:...)` or `(?<name>...)`; captures mean nothing to a content blocker.
        case group(URLFilterGroup)
    }

    /// How a class was written. WebKit decides where an end-of-line assertion may stand from a
    /// class's written members, before inversion: `[^\0]` counts as one (nothing may follow it,
    /// and it consumes no character for "matches everything") while it matches what `.` matches.
    public enum ClassForm: UInt8, Hashable, Sendable {
        case plain
        case inverted
        /// `[^\0]`: inverted, with NUL as its only member.
        case invertedNUL
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
        case .characterClass(let matches, .plain): matches == .nul
        default: false
        }
    }

    /// A term WebKit places as an end-of-line assertion: an end-of-URL marker, or `[^\0]` (with
    /// any quantifier). Nothing may follow it, and it does not count as consuming a character
    /// when WebKit decides MatchesEverything: `[^\0]` alone matches everything and `[^\0]a` is
    /// MisplacedEndOfLine, yet `a[^\0]` matches as `a.` does, consuming a character (all three
    /// measured with WebKitGTK 2.50.6).
    public var countsAsEndOfLine: Bool {
        if isEndOfURLMarker { return true }
        if case .characterClass(_, .invertedNUL) = atom { return true }
        return false
    }

    /// Whether every match of this term consumes at least one character. A pattern none of whose
    /// terms does "matches everything" (WebKit's MatchesEverything).
    public var mustConsumeCharacter: Bool {
        if quantifier.allowsZero || isEndOfURLMarker { return false }
        switch atom {
        case .character, .anyCharacter, .characterClass: return true
        case .group(let group): return group.mustConsumeCharacter
        }
    }

    /// The term repeats (`*`, `+`), itself or inside its group, at any depth.
    public var containsLoop: Bool {
        if quantifier.allowsMany { return true }
        if case .group(let group) = atom { return group.repeatingTerms > 0 }
        return false
    }

    /// The term can match the end-of-URL NUL, itself or inside its group, at any depth.
    public var containsEndOfURLMarker: Bool {
        if isEndOfURLMarker { return true }
        if case .group(let group) = atom { return group.containsEndOfURLMarker }
        return false
    }
}

extension URLFilterTerm {
    /// Whether the two terms match the same strings the same way, spans aside.
    public func hasSameShape(as other: URLFilterTerm) -> Bool {
        guard quantifier == other.quantifier else { return false }
        switch (atom, other.atom) {
        case (.group(let left), .group(let right)): return left.hasSameShape(as: right)
        case (.group, _), (_, .group): return false
        default: return characterSet == other.characterSet
        }
    }
}

/// The terms of a group, and what the compiler asks of the whole subtree: whether it must consume
/// a character, whether it can match the end-of-URL NUL, how many terms, groups and repeating
/// terms it holds at any depth, and a hash of its shape (its terms without their spans). All of
/// it is computed from the inner groups' own figures when the group is made, so no question about
/// a tree recurses into it.
///
/// One allocation per group: the figures and the terms share it. Tearing a deep tree down is a
/// loop too (a chain of 60,000 nested arrays released one inside the other overflows the stack).
/// Sendable: the storage is never written after it is made (its deinit aside).
public struct URLFilterGroup: RandomAccessCollection, Hashable, @unchecked Sendable, ExpressibleByArrayLiteral {
    struct Figures {
        var count: Int32
        /// Terms at any depth that are not groups, and groups at any depth.
        var leaves: Int32
        var groups: Int32
        /// Terms at any depth whose quantifier is `*` or `+` (groups included).
        var repeating: Int32
        var mustConsumeCharacter: Bool
        var containsEndOfURLMarker: Bool
        var shapeHash: UInt64
    }

    final class Storage: ManagedBuffer<Figures, URLFilterTerm> {
        deinit {
            // Each storage this one holds the last reference to is emptied here, in a loop, before
            // it is released: its own deinit then finds nothing left to release.
            var pending: [Storage] = []
            detachTerms(into: &pending)
            while var next = pending.popLast() {
                if isKnownUniquelyReferenced(&next) { next.detachTerms(into: &pending) }
            }
        }

        /// Releases this storage's terms, keeping a reference to each inner group's storage in
        /// `pending` first.
        private func detachTerms(into pending: inout [Storage]) {
            withUnsafeMutablePointers { figures, terms in
                let count = Int(figures.pointee.count)
                for index in 0..<count {
                    if case .group(let inner) = terms[index].atom { pending.append(inner.storage) }
                }
                terms.deinitialize(count: count)
                figures.pointee.count = 0
            }
        }
    }

    let storage: Storage

    public init<Terms: Collection<URLFilterTerm>>(_ terms: Terms) {
        var figures = Figures(
            count: Int32(terms.count), leaves: 0, groups: 0, repeating: 0, mustConsumeCharacter: false,
            containsEndOfURLMarker: false, shapeHash: Self.mix(0x1319_8A2E_0370_7344, UInt64(terms.count)))
        for term in terms {
            if term.quantifier.allowsMany { figures.repeating += 1 }
            if term.mustConsumeCharacter { figures.mustConsumeCharacter = true }
            if term.containsEndOfURLMarker { figures.containsEndOfURLMarker = true }
            figures.shapeHash = Self.mix(figures.shapeHash, term.shapeHash)
            if case .group(let inner) = term.atom {
                let innerFigures = inner.figures
                figures.groups += 1 + innerFigures.groups
                figures.leaves += innerFigures.leaves
                figures.repeating += innerFigures.repeating
            } else {
                figures.leaves += 1
            }
        }
        let storage = Storage.create(minimumCapacity: terms.count) { _ in figures }
        storage.withUnsafeMutablePointerToElements { elements in
            _ = UnsafeMutableBufferPointer(start: elements, count: terms.count).initialize(from: terms)
        }
        self.storage = unsafeDowncast(storage, to: Storage.self)
    }

    public init(arrayLiteral terms: URLFilterTerm...) {
        self.init(terms)
    }

    var figures: Figures { storage.header }

    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(storage.header.count) }
    public subscript(position: Int) -> URLFilterTerm {
        precondition(position >= 0 && position < endIndex, "index out of range")
        return storage.withUnsafeMutablePointerToElements { $0[position] }
    }

    /// Whether every match of the group consumes at least one character.
    public var mustConsumeCharacter: Bool { figures.mustConsumeCharacter }
    /// Whether a term inside, at any depth, can match the end-of-URL NUL.
    public var containsEndOfURLMarker: Bool { figures.containsEndOfURLMarker }
    /// Terms inside at any depth that are not groups.
    public var leafTerms: Int { Int(figures.leaves) }
    /// Groups inside at any depth.
    public var innerGroups: Int { Int(figures.groups) }
    /// Terms inside at any depth that repeat (`*`, `+`), groups included.
    public var repeatingTerms: Int { Int(figures.repeating) }
    /// A hash of the group's shape: equal for groups whose terms match the same strings term by
    /// term, whatever their spans.
    public var shapeHash: UInt64 { figures.shapeHash }

    /// Whether the two groups have the same terms, quantifiers and character sets at every depth,
    /// spans aside: they match the same strings the same way.
    public func hasSameShape(as other: URLFilterGroup) -> Bool {
        Self.compare(self, other, spans: false)
    }

    public static func == (lhs: URLFilterGroup, rhs: URLFilterGroup) -> Bool {
        compare(lhs, rhs, spans: true)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(shapeHash)
    }

    /// The two trees side by side. A stack of the groups still to compare is made only when a
    /// group holds a group: most groups hold characters and classes only, and a prefix tree
    /// compares a group's shape at every lookup.
    private static func compare(_ lhs: URLFilterGroup, _ rhs: URLFilterGroup, spans: Bool) -> Bool {
        var pending: [(URLFilterGroup, URLFilterGroup)] = []
        var next: (URLFilterGroup, URLFilterGroup)? = (lhs, rhs)
        while let (left, right) = next {
            next = pending.popLast()
            if left.storage === right.storage { continue }
            guard left.count == right.count, left.shapeHash == right.shapeHash else { return false }
            for index in 0..<left.count {
                let (a, b) = (left[index], right[index])
                guard a.quantifier == b.quantifier, !spans || a.span == b.span else { return false }
                switch (a.atom, b.atom) {
                case (.group(let innerA), .group(let innerB)): pending.append((innerA, innerB))
                case (.group, _), (_, .group): return false
                default:
                    if spans ? a.atom != b.atom : a.characterSet != b.characterSet { return false }
                }
            }
            if next == nil { next = pending.popLast() }
        }
        return true
    }

    /// One multiply-xorshift step.
    static func mix(_ hash: UInt64, _ value: UInt64) -> UInt64 {
        var mixed = (hash ^ value) &* 0xBF58_476D_1CE4_E5B9
        mixed ^= mixed >> 31
        return mixed
    }
}

extension URLFilterTerm {
    /// A hash of the term without its span (`URLFilterGroup.shapeHash` for a group's terms).
    public var shapeHash: UInt64 {
        let quantifierCode: UInt64 = switch quantifier {
        case .one: 0
        case .zeroOrOne: 1
        case .zeroOrMore: 2
        case .oneOrMore: 3
        }
        switch atom {
        case .group(let group):
            return URLFilterGroup.mix(URLFilterGroup.mix(0x243F_6A88_85A3_08D3, group.shapeHash), quantifierCode)
        default:
            let set = characterSet!
            return URLFilterGroup.mix(URLFilterGroup.mix(URLFilterGroup.mix(0xA409_3822_299F_31D0, set.low), set.high), quantifierCode)
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
    /// every URL (anchors notwithstanding: `^$` and `^a?$` match every URL too). A last `[^\0]`
    /// does not count: WebKit takes it for an end-of-line assertion here.
    public var matchesEverything: Bool { !terms.contains { $0.mustConsumeCharacter && !$0.countsAsEndOfLine } }

    /// The status WebKit gives this accepted pattern.
    public var status: URLFilterParseStatus { matchesEverything ? .matchesEverything : .ok }

    /// The pattern's terms from `first` on (one at least), as a pattern anchored where they
    /// begin: what a run from a place where a match of the terms before them ends must match.
    /// Its text is `^` and this one's from that term on; the end anchor and case are kept.
    public func anchored(from first: Int) -> URLFilter {
        let rest = Array(terms[first...])
        let utf8 = source.utf8
        let text = utf8.index(utf8.startIndex, offsetBy: rest[0].span.lowerBound)..<utf8.endIndex
        return URLFilter(
            source: "^" + String(source[text]), isCaseSensitive: isCaseSensitive, hasStartAnchor: true, hasEndAnchor: hasEndAnchor,
            terms: rest)
    }
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
        Self.dump(terms, into: &out)
        out += "status \(status.name)\n"
        return out
    }

    /// Terms in order, each group's terms after its own line (a stack of the groups being
    /// printed). Beyond `shownLevels` levels a line shows the first and last parts of its number
    /// and keeps the indent of that level, so the dump grows with the pattern, not with the
    /// square of its depth.
    private static func dump(_ terms: [URLFilterTerm], into out: inout String) {
        let shownLevels = 8
        var pending: [(terms: URLFilterGroup, next: Int)] = [(URLFilterGroup(terms), 0)]
        var path: [Int] = []
        while !pending.isEmpty {
            let (group, index) = pending[pending.count - 1]
            guard index < group.count else {
                pending.removeLast()
                _ = path.popLast()
                continue
            }
            pending[pending.count - 1].next += 1
            let term = group[index]
            let depth = pending.count - 1
            let indent = String(repeating: "  ", count: min(depth, shownLevels))
            let number: String
            if depth < shownLevels {
                number = (path + [index]).map(String.init).joined(separator: ".")
            } else {
                number = path.prefix(2).map(String.init).joined(separator: ".") + ".(\(depth - 3) levels)."
                    + (path.suffix(1) + [index]).map(String.init).joined(separator: ".")
            }
            let quantifier = term.quantifier == .one ? "" : " " + term.quantifier.rawValue
            let span = " @\(term.span)"
            switch term.atom {
            case .character(let matches, let unit):
                out += "\(indent)\(number) char \(quoteUnit(unit)) \(matches)\(quantifier)\(span)\n"
            case .anyCharacter:
                out += "\(indent)\(number) any .\(quantifier)\(span)\n"
            case .characterClass(let matches, let form):
                let written = switch form {
                case .plain: ""
                case .inverted: " inverted"
                case .invertedNUL: " inverted NUL"
                }
                out += "\(indent)\(number) class\(written) \(matches)\(quantifier)\(span)\n"
            case .group(let inner):
                out += "\(indent)\(number) group\(quantifier)\(span)\n"
                path.append(index)
                pending.append((inner, 0))
            }
        }
    }

    /// A pattern in double quotes, as a message shows it (shortened when long: `excerpt`).
    public static func quotedForMessage(_ pattern: String) -> String {
        excerpt(Array(quote(pattern)), mark: nil).text
    }

    /// Characters a shortened pattern keeps at each end, and on each side of its marked part.
    static let excerptEdge = 60
    static let excerptContext = 20

    /// `text` (a quoted pattern) as a message shows it: whole up to `4 × excerptEdge` characters;
    /// longer, its first and last `excerptEdge` characters and the marked columns with
    /// `excerptContext` on each side, every part left out written `…(N characters)…`. A message
    /// about a 2 MB url-filter then stays a line long. Returns the mark's columns in the result
    /// (the mark is cut to `excerptEdge` characters).
    static func excerpt(_ text: [Character], mark: Range<Int>?) -> (text: String, mark: Range<Int>?) {
        let count = text.count
        guard count > 4 * excerptEdge else { return (String(text), mark) }
        var mark = mark.map { $0.clamped(to: 0..<count) }
        if let shown = mark { mark = shown.lowerBound..<min(shown.upperBound, shown.lowerBound + excerptEdge) }
        var kept = [0..<excerptEdge, count - excerptEdge..<count]
        if let mark { kept.append(max(0, mark.lowerBound - excerptContext)..<min(count, mark.upperBound + excerptContext)) }
        kept.sort { $0.lowerBound < $1.lowerBound }
        // Parts closer than a marker's width are joined: leaving out a few characters saves nothing.
        var merged: [Range<Int>] = []
        for range in kept {
            if let last = merged.last, range.lowerBound <= last.upperBound + excerptContext {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        var out = ""
        var column = 0
        var shownMark: Range<Int>?
        var previousEnd = 0
        for range in merged {
            if range.lowerBound > previousEnd {
                let gap = "…(\(range.lowerBound - previousEnd) characters)…"
                out += gap
                column += gap.count
            }
            if let mark, shownMark == nil, range.contains(mark.lowerBound) {
                let start = column + mark.lowerBound - range.lowerBound
                shownMark = start..<(column + min(mark.upperBound, range.upperBound) - range.lowerBound)
            }
            out += String(text[range])
            column += range.count
            previousEnd = range.upperBound
        }
        return (out, shownMark)
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
