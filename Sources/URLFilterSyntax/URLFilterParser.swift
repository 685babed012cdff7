// URLFilterParser: url-filter pattern -> URLFilter syntax tree, or WebKit's parse status.
//
// Two layers, as in WebKit:
//  1. Syntax: the JavaScript regular-expression grammar in legacy (non-unicode) mode, with the
//     Annex B quirks WebKit's YARR parser has (octal `\1`-`\7`, literal `{`, `}` and `]`, `\c`
//     fallbacks, `\k` as a literal when the pattern has no named groups, quantifiable lookaheads).
//     WebKit parses with no back-references allowed, so `\1` is always an octal escape. Any syntax
//     error makes the status YarrError, whatever else is wrong with the pattern.
//  2. Semantics (TermBuilder): the subset content blockers support. The first unsupported construct
//     met in source order decides the status; `^` must come first, `$` last, and a pattern none of
//     whose terms must consume a character "matches everything".
// Statuses are checked against WebKit's own vectors (Corpora/conformance/webkit-vectors.json) and
// probes of the real WebKitGTK compiler (Benchmarks/Peers/WebKit). Tested by
// URLFilterSyntaxTests/URLFilterParserTests.swift.

internal import Parallelism

/// A pattern WebKit rejects: the status, its message, and where in the pattern.
public struct URLFilterParseError: Error, Hashable, Sendable, CustomStringConvertible {
    public var status: URLFilterParseStatus
    public var pattern: String
    /// UTF-8 byte offsets of the offending part of the pattern.
    public var span: SourceSpan
    /// For YarrError: the syntax problem, in our words ("nothing to repeat").
    public var detail: String?

    public init(status: URLFilterParseStatus, pattern: String, span: SourceSpan, detail: String? = nil) {
        self.status = status
        self.pattern = pattern
        self.span = span
        self.detail = detail
    }

    /// `Disjunctions are not supported yet. (Disjunction)`, plus the detail for syntax errors.
    public var message: String {
        var text = "\(status.message) (\(status.name))"
        if let detail { text += ": \(detail)" }
        return text
    }

    /// The pattern with a caret line under the offending span; a long pattern is shortened
    /// around the span (`URLFilter.excerpt`), so every message that shows one stays short.
    public var caretDiagram: String {
        let quoted = Array(URLFilter.quote(pattern))
        // Column of a byte offset in the quoted rendering (quotes and escapes widen it).
        func column(_ offset: Int) -> Int {
            URLFilter.quote(String(decoding: pattern.utf8.prefix(offset), as: UTF8.self)).count - 1
        }
        let start = column(span.lowerBound)
        let end = max(column(span.upperBound), start + 1)
        let (shown, mark) = URLFilter.excerpt(quoted, mark: start..<end)
        let caret = mark ?? start..<end
        return shown + "\n" + String(repeating: " ", count: caret.lowerBound) + String(repeating: "^", count: max(caret.count, 1))
    }

    public var description: String { message + "\n" + caretDiagram }
}

public enum URLFilterParser {
    /// Parses a url-filter (or an if-top-url / if-frame-url) pattern the way WebKit does.
    public static func parse(_ pattern: String, isCaseSensitive: Bool = false) -> Result<URLFilter, URLFilterParseError> {
        parse(pattern, isCaseSensitive: isCaseSensitive, flat: true)
    }

    /// `flat`: try `FlatPatternReader` first (false: the general reader alone, for tests that
    /// hold the two to each other).
    static func parse(_ pattern: String, isCaseSensitive: Bool, flat: Bool) -> Result<URLFilter, URLFilterParseError> {
        let bytes = Array(pattern.utf8)
        if let firstNonASCII = bytes.firstIndex(where: { $0 >= 0x80 }) {
            var end = firstNonASCII + 1
            while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
            return .failure(URLFilterParseError(status: .nonASCII, pattern: pattern, span: SourceSpan(firstNonASCII, end)))
        }
        if bytes.isEmpty {
            return .failure(URLFilterParseError(status: .emptyPattern, pattern: pattern, span: SourceSpan(0, 0)))
        }
        if flat, let parts = FlatPatternReader.read(bytes, isCaseSensitive: isCaseSensitive) {
            return .success(URLFilter(
                source: pattern, isCaseSensitive: isCaseSensitive, hasStartAnchor: parts.hasStartAnchor,
                hasEndAnchor: parts.hasEndAnchor, terms: parts.terms))
        }
        var reader = PatternReader(bytes: bytes, builder: TermBuilder(isCaseSensitive: isCaseSensitive, length: bytes.count))
        do {
            try reader.parse()
        } catch {
            return .failure(URLFilterParseError(status: .yarrError, pattern: pattern, span: error.span, detail: error.detail))
        }
        switch reader.builder.finish() {
        case .failure(let failure):
            return .failure(URLFilterParseError(status: failure.status, pattern: pattern, span: failure.span))
        case .success(let parts):
            return .success(URLFilter(
                source: pattern, isCaseSensitive: isCaseSensitive, hasStartAnchor: parts.hasStartAnchor,
                hasEndAnchor: parts.hasEndAnchor, terms: parts.terms))
        }
    }

    /// A pattern as a compiler takes it: a host or domain pattern's parts when its text has
    /// that shape (no syntax tree made), its parse otherwise.
    public static func read(_ pattern: String, isCaseSensitive: Bool = false) -> Result<AcceptedPattern, URLFilterParseError> {
        if let host = HostPattern(source: pattern, isCaseSensitive: isCaseSensitive) { return .success(.host(host)) }
        if let domain = DomainPattern(source: pattern, isCaseSensitive: isCaseSensitive) { return .success(.domain(domain)) }
        return parse(pattern, isCaseSensitive: isCaseSensitive).map(AcceptedPattern.filter)
    }

    /// `read(_:isCaseSensitive:)`, with what `learner` learned of the patterns read before: a host
    /// pattern whose prefix and rest it met is read as their parts (ShapedHostPattern.swift); a
    /// pattern parsed whole teaches it.
    static func read(_ pattern: String, isCaseSensitive: Bool, learner: inout HostShapeLearner) -> Result<AcceptedPattern, URLFilterParseError> {
        if let host = HostPattern(source: pattern, isCaseSensitive: isCaseSensitive) { return .success(.host(host)) }
        if let domain = DomainPattern(source: pattern, isCaseSensitive: isCaseSensitive) { return .success(.domain(domain)) }
        if let shaped = learner.read(pattern, isCaseSensitive: isCaseSensitive) { return .success(.shaped(shaped)) }
        let parsed = parse(pattern, isCaseSensitive: isCaseSensitive)
        if case .success(let filter) = parsed { learner.learn(filter) }
        return parsed.map(AcceptedPattern.filter)
    }

    /// Reads many patterns (`read(_:isCaseSensitive:)`, learning host patterns' prefixes and rests
    /// as it goes), in chunks on every core; the results in the patterns' order.
    public static func read(_ patterns: [(source: String, isCaseSensitive: Bool)]) -> [Result<AcceptedPattern, URLFilterParseError>] {
        let chunk = 1_024
        let count = patterns.count
        let chunkCount = (count + chunk - 1) / chunk
        guard chunkCount > 1 else {
            var learner = HostShapeLearner()
            return patterns.map { read($0.source, isCaseSensitive: $0.isCaseSensitive, learner: &learner) }
        }
        // Each worker initializes only its own chunk of the result, in place: results gathered
        // from per-chunk arrays would be copied once more, a retain and a release per pattern, on
        // one core.
        return [Result<AcceptedPattern, URLFilterParseError>](unsafeUninitializedCapacity: count) { buffer, initialized in
            nonisolated(unsafe) let results = buffer
            Parallel.forEach(iterations: chunkCount) { index in
                var learner = HostShapeLearner()
                for position in index * chunk..<min(index * chunk + chunk, count) {
                    (results.baseAddress! + position).initialize(
                        to: read(patterns[position].source, isCaseSensitive: patterns[position].isCaseSensitive, learner: &learner))
                }
            }
            initialized = count
        }
    }

    /// WebKit's status for a pattern.
    public static func status(of pattern: String, isCaseSensitive: Bool = false) -> URLFilterParseStatus {
        switch parse(pattern, isCaseSensitive: isCaseSensitive) {
        case .success(let filter): filter.status
        case .failure(let error): error.status
        }
    }
}

// MARK: - Syntax

/// A syntax error in the regular-expression grammar (WebKit: YarrError).
struct SyntaxError: Error {
    var detail: String
    var span: SourceSpan
}

/// Whether the token just read can take a quantifier.
private enum TokenKind {
    case notAtom, atom, lookbehind
}

private enum ParenthesesKind {
    case subpattern, lookahead, lookbehind
}

/// Reads the pattern with the legacy JavaScript grammar and reports each construct to the builder.
private struct PatternReader {
    let bytes: [UInt8]
    var builder: TermBuilder
    var index = 0
    var parentheses: [(kind: ParenthesesKind, start: Int)] = []
    var names = NamedGroupScopes()
    /// `\k` was read as a literal `k`: then the pattern must have no named group at all.
    var literalKSeen: SourceSpan?

    init(bytes: [UInt8], builder: TermBuilder) {
        self.bytes = bytes
        self.builder = builder
    }

    var atEnd: Bool { index == bytes.count }
    func peek() -> UInt8 { bytes[index] }
    func peekIs(_ unit: Unicode.Scalar) -> Bool { !atEnd && bytes[index] == UInt8(ascii: unit) }
    var peekIsDigit: Bool { !atEnd && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) }

    mutating func consume() -> UInt8 {
        defer { index += 1 }
        return bytes[index]
    }

    mutating func tryConsume(_ unit: Unicode.Scalar) -> Bool {
        guard peekIs(unit) else { return false }
        index += 1
        return true
    }

    func error(_ detail: String, from start: Int) -> SyntaxError {
        SyntaxError(detail: detail, span: SourceSpan(start, max(index, start + (atEnd && start == index ? 0 : 1))))
    }

    mutating func parse() throws(SyntaxError) {
        var last = TokenKind.notAtom
        while !atEnd {
            let start = index
            switch peek() {
            case UInt8(ascii: "|"):
                index += 1
                builder.disjunction(SourceSpan(start, index))
                names.nextAlternative()
                last = .notAtom
            case UInt8(ascii: "("):
                try parseParenthesesBegin()
                last = .notAtom
            case UInt8(ascii: ")"):
                last = try parseParenthesesEnd()
            case UInt8(ascii: "^"):
                index += 1
                builder.startOfLine(SourceSpan(start, index))
                last = .notAtom
            case UInt8(ascii: "$"):
                index += 1
                builder.endOfLine(SourceSpan(start, index))
                last = .notAtom
            case UInt8(ascii: "."):
                index += 1
                builder.anyCharacter(SourceSpan(start, index))
                last = .atom
            case UInt8(ascii: "["):
                try parseCharacterClass()
                last = .atom
            case UInt8(ascii: "\\"):
                last = try parseAtomEscape()
            case UInt8(ascii: "*"):
                index += 1
                try quantify(last, min: 0, max: PatternReaderLimits.unbounded, from: start)
                last = .notAtom
            case UInt8(ascii: "+"):
                index += 1
                try quantify(last, min: 1, max: PatternReaderLimits.unbounded, from: start)
                last = .notAtom
            case UInt8(ascii: "?"):
                index += 1
                try quantify(last, min: 0, max: 1, from: start)
                last = .notAtom
            case UInt8(ascii: "{") where try parseBraceQuantifier(last, from: start):
                last = .notAtom
            default:
                // Includes a `{` that does not start a complete quantifier, and lone `}` and `]`.
                let unit = consume()
                builder.character(unit, SourceSpan(start, index))
                last = .atom
            }
        }
        if let open = parentheses.last {
            throw SyntaxError(detail: "missing )", span: SourceSpan(open.start, open.start + 1))
        }
        if let literalK = literalKSeen, !names.isEmpty {
            throw SyntaxError(detail: "\\k is not a reference to a named group", span: literalK)
        }
    }

    /// `{n}`, `{n,}` or `{n,m}` after an atom. Returns false (index unchanged) when the brace
    /// does not start a complete quantifier: then it is a literal `{` in legacy mode.
    mutating func parseBraceQuantifier(_ last: TokenKind, from start: Int) throws(SyntaxError) -> Bool {
        index += 1
        guard peekIsDigit else { index = start; return false }
        let minimum = consumeNumber()
        var maximum = minimum
        if tryConsume(",") { maximum = peekIsDigit ? consumeNumber() : PatternReaderLimits.unbounded }
        guard tryConsume("}") else { index = start; return false }
        if minimum > maximum { throw error("numbers out of order in {} quantifier", from: start) }
        try quantify(last, min: minimum, max: maximum, from: start)
        return true
    }

    /// Decimal digits, saturating at YARR's "infinite" (2^32-1): `a{0,99999999999}` is `a*`.
    mutating func consumeNumber() -> UInt64 {
        var value: UInt64 = 0
        while peekIsDigit {
            value = Swift.min(value * 10 + UInt64(consume() - UInt8(ascii: "0")), PatternReaderLimits.unbounded)
        }
        return value
    }

    mutating func quantify(_ last: TokenKind, min: UInt64, max: UInt64, from start: Int) throws(SyntaxError) {
        switch last {
        case .atom:
            _ = tryConsume("?")  // lazy: same matches for a content blocker
            builder.quantify(min: min, max: max, SourceSpan(start, index))
        case .lookbehind:
            throw error("a lookbehind cannot be quantified", from: start)
        case .notAtom:
            throw error("nothing to repeat", from: start)
        }
    }

    // MARK: Parentheses

    mutating func parseParenthesesBegin() throws(SyntaxError) {
        let start = index
        index += 1
        var kind = ParenthesesKind.subpattern
        if tryConsume("?") {
            guard !atEnd else { throw error("incomplete group", from: start) }
            switch peek() {
            case UInt8(ascii: ":"):
                index += 1
                builder.groupBegin(at: start)
            case UInt8(ascii: "="), UInt8(ascii: "!"):
                index += 1
                builder.lookaround(SourceSpan(start, index))
                kind = .lookahead
            case UInt8(ascii: "<"):
                index += 1
                let nameStart = index
                if let name = try tryConsumeGroupName() {
                    if let literalK = literalKSeen {
                        throw SyntaxError(detail: "\\k is not a reference to a named group", span: literalK)
                    }
                    guard names.add(name) else {
                        throw SyntaxError(detail: "duplicate group name '\(name)'", span: SourceSpan(nameStart, index))
                    }
                    builder.groupBegin(at: start)
                } else if tryConsume("=") || tryConsume("!") {
                    builder.lookaround(SourceSpan(start, index))
                    kind = .lookbehind
                } else {
                    throw error("invalid group name", from: nameStart)
                }
            case UInt8(ascii: "-"), UInt8(ascii: "i"), UInt8(ascii: "m"), UInt8(ascii: "s"):
                try parseModifiers(from: start)
                builder.lookaround(SourceSpan(start, index))
            default:
                throw error("unknown group type", from: start)
            }
        } else {
            builder.groupBegin(at: start)
        }
        parentheses.append((kind, start))
        names.pushParenthesis()
    }

    /// `(?ims-ims:`: modifiers (WebKit accepts the syntax and rejects the group as unsupported).
    mutating func parseModifiers(from start: Int) throws(SyntaxError) {
        var enabled = Set<UInt8>()
        var disabled = Set<UInt8>()
        var negated = false
        while !atEnd {
            let unit = consume()
            if unit == UInt8(ascii: ":") { break }
            switch unit {
            case UInt8(ascii: "-"):
                if negated { throw error("invalid regular expression modifier", from: start) }
                negated = true
            case UInt8(ascii: "i"), UInt8(ascii: "m"), UInt8(ascii: "s"):
                let inserted = negated ? disabled.insert(unit).inserted : enabled.insert(unit).inserted
                guard inserted else {
                    throw error("invalid regular expression modifier", from: start)
                }
            default:
                throw error("unknown group type", from: start)
            }
        }
        if !enabled.isDisjoint(with: disabled) || (enabled.isEmpty && disabled.isEmpty) {
            throw error("invalid regular expression modifier", from: start)
        }
    }

    mutating func parseParenthesesEnd() throws(SyntaxError) -> TokenKind {
        let start = index
        index += 1
        guard let open = parentheses.popLast() else { throw error("unmatched )", from: start) }
        builder.groupEnd(SourceSpan(start, index))
        names.popParenthesis()
        // In legacy mode a lookahead can take a quantifier; a lookbehind cannot.
        return open.kind == .lookbehind ? .lookbehind : .atom
    }

    /// `name>` after `(?<` or `\k<`: an identifier, possibly with `\u` escapes, then `>`.
    /// Returns nil (index unchanged) when there is none.
    mutating func tryConsumeGroupName() throws(SyntaxError) -> String? {
        let start = index
        guard !atEnd else { return nil }
        var name = String.UnicodeScalarView()
        var scalar = try consumeIdentifierCharacter()
        if let first = scalar, Self.isIdentifierStart(first) {
            name.append(first)
            while !atEnd {
                scalar = try consumeIdentifierCharacter()
                if scalar == ">" { return String(name) }
                guard let part = scalar, Self.isIdentifierPart(part) else { break }
                name.append(part)
            }
        }
        index = start
        return nil
    }

    /// One identifier character of a group name; a `\` must start a valid `\u` escape.
    mutating func consumeIdentifierCharacter() throws(SyntaxError) -> Unicode.Scalar? {
        let start = index
        guard tryConsume("\\") else { return Unicode.Scalar(consume()) }
        guard tryConsume("u"), !atEnd else { throw error("invalid Unicode escape in group name", from: start) }
        if tryConsume("{") {
            var value: UInt32 = 0
            repeat {
                guard !atEnd, let digit = Self.hexValue(peek()) else {
                    throw error("invalid Unicode code point escape", from: start)
                }
                index += 1
                value = value << 4 | UInt32(digit)
                if value > 0x10FFFF { throw error("invalid Unicode code point escape", from: start) }
            } while !atEnd && !peekIs("}")
            guard tryConsume("}") else { throw error("invalid Unicode code point escape", from: start) }
            return Unicode.Scalar(value)
        }
        guard let unit = tryConsumeHex(4) else { throw error("invalid Unicode escape in group name", from: start) }
        if (0xD800...0xDBFF).contains(unit), bytes.count - index >= 6, peekIs("\\") {
            let save = index
            index += 1
            if tryConsume("u"), let trail = tryConsumeHex(4), (0xDC00...0xDFFF).contains(trail) {
                return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (trail - 0xDC00))
            }
            index = save
        }
        return Unicode.Scalar(unit)  // nil for a lone surrogate: never part of a name
    }

    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar.properties.isAlphabetic || scalar == "_" || scalar == "$" }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return true
        default: return false
        }
    }

    static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        if isIdentifierStart(scalar) || scalar == "\u{200C}" || scalar == "\u{200D}" { return true }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .decimalNumber, .connectorPunctuation: return true
        default: return false
        }
    }

    static func hexValue(_ unit: UInt8) -> UInt8? {
        switch unit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): unit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): unit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): unit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Exactly `count` hex digits, or nil with the index unchanged.
    mutating func tryConsumeHex(_ count: Int) -> UInt32? {
        let start = index
        var value: UInt32 = 0
        for _ in 0..<count {
            guard !atEnd, let digit = Self.hexValue(peek()) else { index = start; return nil }
            index += 1
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Up to `count` octal digits, stopping once the value reaches 32 (Annex B
    /// LegacyOctalEscapeSequence: `\377` is 255, `\400` is `\40` then `0`).
    mutating func consumeOctal(_ count: Int) -> UInt32 {
        var value: UInt32 = 0
        var remaining = count
        while remaining > 0, value < 32, !atEnd, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(peek()) {
            value = value * 8 + UInt32(consume() - UInt8(ascii: "0"))
            remaining -= 1
        }
        return value
    }

    // MARK: Escapes

    /// What an escape stands for.
    enum Escape {
        case character(UInt32)
        /// `\d \D \s \S \w \W`.
        case builtInClass
        /// `\b` or `\B` outside a class.
        case wordBoundary
        /// `\k<name>` naming a group defined before it.
        case backReference
    }

    mutating func parseAtomEscape() throws(SyntaxError) -> TokenKind {
        let start = index
        let escape = try parseEscape(inClass: false)
        let span = SourceSpan(start, index)
        switch escape {
        case .character(let value): builder.character(value, span)
        case .builtInClass: builder.builtInClass(span)
        case .wordBoundary:
            builder.wordBoundary(span)
            return .notAtom
        case .backReference: builder.backReference(span)
        }
        return .atom
    }

    mutating func parseEscape(inClass: Bool) throws(SyntaxError) -> Escape {
        let start = index
        index += 1  // the backslash
        guard !atEnd else { throw error("\\ at end of pattern", from: start) }
        let letter = peek()
        switch letter {
        case UInt8(ascii: "b"):
            index += 1
            return inClass ? .character(0x08) : .wordBoundary
        case UInt8(ascii: "B"):
            index += 1
            return inClass ? .character(UInt32(letter)) : .wordBoundary
        case UInt8(ascii: "d"), UInt8(ascii: "D"), UInt8(ascii: "s"), UInt8(ascii: "S"), UInt8(ascii: "w"), UInt8(ascii: "W"):
            index += 1
            return .builtInClass
        case UInt8(ascii: "0"):
            index += 1
            return .character(peekIsDigit ? consumeOctal(2) : 0)
        case UInt8(ascii: "1")...UInt8(ascii: "9"):
            // WebKit allows no back-references: `\1`-`\7` start octal escapes, `\8` and `\9` are digits.
            if letter >= UInt8(ascii: "8") { return .character(UInt32(consume())) }
            return .character(consumeOctal(3))
        case UInt8(ascii: "f"): index += 1; return .character(0x0C)
        case UInt8(ascii: "n"): index += 1; return .character(0x0A)
        case UInt8(ascii: "r"): index += 1; return .character(0x0D)
        case UInt8(ascii: "t"): index += 1; return .character(0x09)
        case UInt8(ascii: "v"): index += 1; return .character(0x0B)
        case UInt8(ascii: "c"):
            index += 1
            if !atEnd {
                let control = consume()
                let isLetter = (control | 0x20) >= UInt8(ascii: "a") && (control | 0x20) <= UInt8(ascii: "z")
                let isClassExtra = inClass && ((UInt8(ascii: "0")...UInt8(ascii: "9")).contains(control) || control == UInt8(ascii: "_"))
                if isLetter || isClassExtra { return .character(UInt32(control & 0x1F)) }
            }
            // Not a control escape: the backslash is a literal and `c` is read again.
            index = start + 1
            return .character(UInt32(UInt8(ascii: "\\")))
        case UInt8(ascii: "x"):
            index += 1
            return .character(tryConsumeHex(2) ?? UInt32(letter))
        case UInt8(ascii: "u"):
            index += 1
            guard !atEnd, let unit = tryConsumeHex(4) else { return .character(UInt32(letter)) }
            return .character(unit)
        case UInt8(ascii: "k"):
            index += 1
            let afterK = index
            if !inClass && tryConsume("<") {
                if let name = try tryConsumeGroupName(), names.contains(name) { return .backReference }
            }
            // WebKit allows no forward references: `\k` is a literal `k`, which is an error once
            // the pattern has any named group.
            index = afterK
            literalKSeen = literalKSeen ?? SourceSpan(start, afterK)
            return .character(UInt32(letter))
        default:
            return .character(UInt32(consume()))
        }
    }

    // MARK: Character classes

    /// Where a class stands between its members, for Annex B's ranges (`a-z`): nothing waiting,
    /// a character that may begin a range (`cached`), such a character and a `-` after it, or a
    /// class escape (`\d`), after which a `-` is literal, and that `-`.
    private enum ClassState {
        case empty
        case cached(UInt32)
        case cachedHyphen(UInt32)
        case afterBuiltIn
        case afterBuiltInHyphen

        /// A character, with Annex B's ranges: `a-z`; a `-` after `\d` or before a class escape is literal.
        @inline(__always)
        mutating func add(_ character: UInt32, hyphenIsRange: Bool, span: SourceSpan, to builder: inout TermBuilder) throws(SyntaxError) {
            let isHyphen = hyphenIsRange && character == UInt32(UInt8(ascii: "-"))
            switch self {
            case .afterBuiltIn where isHyphen:
                builder.classCharacter(character, span)
                self = .afterBuiltInHyphen
            case .empty, .afterBuiltIn:
                self = .cached(character)
            case .cached(let cached):
                if isHyphen {
                    self = .cachedHyphen(cached)
                } else {
                    builder.classCharacter(cached, span)
                    self = .cached(character)
                }
            case .cachedHyphen(let low):
                guard character >= low else {
                    throw SyntaxError(detail: "range out of order in character class", span: SourceSpan(span.lowerBound, span.upperBound))
                }
                builder.classRange(low, character, span)
                self = .empty
            case .afterBuiltInHyphen:
                builder.classCharacter(character, span)
                self = .empty
            }
        }

        /// A class escape (`\d`): a character waiting, and its `-`, are literal; no range ends
        /// or begins at it.
        mutating func addBuiltIn(span: SourceSpan, to builder: inout TermBuilder) {
            switch self {
            case .cached(let cached):
                builder.classCharacter(cached, span)
                builder.classBuiltIn(span)
                self = .afterBuiltIn
            case .empty, .afterBuiltIn:
                builder.classBuiltIn(span)
                self = .afterBuiltIn
            case .cachedHyphen(let cached):
                builder.classCharacter(cached, span)
                builder.classCharacter(UInt32(UInt8(ascii: "-")), span)
                builder.classBuiltIn(span)
                self = .empty
            case .afterBuiltInHyphen:
                builder.classBuiltIn(span)
                self = .empty
            }
        }

        /// The closing `]`: a character waiting, and its `-`, are literal.
        func close(span: SourceSpan, to builder: inout TermBuilder) {
            switch self {
            case .cached(let cached):
                builder.classCharacter(cached, span)
            case .cachedHyphen(let cached):
                builder.classCharacter(cached, span)
                builder.classCharacter(UInt32(UInt8(ascii: "-")), span)
            default: break
            }
        }
    }

    mutating func parseCharacterClass() throws(SyntaxError) {
        let start = index
        index += 1
        builder.classBegin(inverted: tryConsume("^"), at: start)
        var state = ClassState.empty
        while !atEnd {
            let elementStart = index
            switch peek() {
            case UInt8(ascii: "]"):
                index += 1
                state.close(span: SourceSpan(elementStart, index), to: &builder)
                builder.classEnd(SourceSpan(start, index))
                return
            case UInt8(ascii: "\\"):
                let escape = try parseEscape(inClass: true)
                let span = SourceSpan(elementStart, index)
                switch escape {
                case .character(let value):
                    try state.add(value, hyphenIsRange: false, span: span, to: &builder)
                case .builtInClass:
                    state.addBuiltIn(span: span, to: &builder)
                case .wordBoundary, .backReference:
                    preconditionFailure("not produced inside a class")
                }
            default:
                let unit = consume()
                try state.add(UInt32(unit), hyphenIsRange: true, span: SourceSpan(elementStart, index), to: &builder)
            }
        }
        throw SyntaxError(detail: "missing ] to close the character class", span: SourceSpan(start, start + 1))
    }
}

/// The names of named groups visible at each nesting level, per alternative: a name may repeat
/// only in another alternative.
private struct NamedGroupScopes {
    private var all: Set<String> = []
    private var active: [Set<String>] = [[]]
    private var nested: [Set<String>] = [[]]

    var isEmpty: Bool { all.isEmpty }
    func contains(_ name: String) -> Bool { all.contains(name) }

    /// Records a name; false when it is already visible in this alternative.
    mutating func add(_ name: String) -> Bool {
        all.insert(name)
        return active[active.count - 1].insert(name).inserted
    }

    mutating func nextAlternative() {
        nested[nested.count - 1].formUnion(active[active.count - 1])
        active[active.count - 1] = active.count > 1 ? active[active.count - 2] : []
    }

    mutating func pushParenthesis() {
        nested.append([])
        active.append(active[active.count - 1])
    }

    mutating func popParenthesis() {
        nested[nested.count - 1].formUnion(active[active.count - 1])
        active[active.count - 2].formUnion(nested[nested.count - 1])
        nested.removeLast()
        active.removeLast()
    }
}
