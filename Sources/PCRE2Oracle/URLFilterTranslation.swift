// URLFilterTranslation.swift — PCRE2Oracle
//
// The one place that says how a url-filter (JavaScript legacy regex syntax, WebKit's subset,
// docs/SEMANTICS.md §3) becomes a PCRE2 pattern with the same meaning over canonical URLs. It
// reads the pattern text itself; it shares nothing with the engine's parser. Every choice:
//
//  - The subject is the URL's bytes followed by one NUL, as WebKit's interpreter reads a URL: its
//    bytes, then an "imaginary null character", read once (DFABytecodeInterpreter.cpp). `$` and a
//    NUL in the pattern (`\0`, `\x00`, or in a class) match that NUL and consume it: `[\09]$`
//    does not match an empty URL, since the class and the `$` cannot both read the one NUL.
//  - Options: PCRE2_CASELESS unless the rule is case-sensitive (no UTF, so PCRE2's built-in tables
//    fold ASCII letters only, as WebKit does); PCRE2_DOLLAR_ENDONLY (for the question below).
//  - Every group becomes `(?:...)`: nothing is captured, and named groups lose their names.
//  - Lazy quantifiers (`*?`) lose the `?`: whether a pattern matches does not depend on laziness.
//  - `{` starts a quantifier only as `{n}`, `{n,}` or `{n,m}`; otherwise it is the literal `{`, as
//    are `}` and a `]` outside a class (JavaScript legacy mode). A brace quantifier is written by
//    its meaning: counts saturate at YARR's "infinite" (2^32-1), so `{0,99999999999}` is `*`, and
//    `{0,1}`, `{00,01}`, `{0,}`, `{1,}` become `?`, `*`, `+` (PCRE2 refuses counts above 65535).
//  - `.` is `[\x01-\x7F]` and a negated class also excludes `\x00` and `\x80-\xFF`: both match one
//    character 1..127, never the end of the URL.
//  - Class members are written as `\x{HH}` codes (ranges as `\x{HH}-\x{HH}`), so no PCRE2 class
//    syntax (`[:alpha:]`, `\Q`, a leading `]`) can creep in; `[]` matches nothing:
//    `[^\x{00}-\x{ff}]` (a class, so it can take a quantifier, which `(*FAIL)` cannot).
//  - Escapes follow JavaScript legacy mode (ECMA-262 Annex B): `\t \n \v \f \r`, `\cX` (control
//    letter), `\0`-`\7` start octal escapes of up to three digits (`\1` is never a back-reference),
//    `\8 \9` are the digits, `\xHH` and `\uHHHH` codes (without enough hex digits, the letter
//    itself), `\b` in a class is backspace, and any other escaped character is itself (`\a` is
//    `a`, not PCRE2's BEL). A code above 127 can never match a canonical URL: matches nothing.
//  - A leading `^` anchors at the start (`^^a` is `^a`, as in WebKit); a trailing `$` (outside any
//    group) is the end-of-URL NUL, `\x{00}`, as is a NUL in the pattern, WebKit's end-of-URL
//    marker; a class holding NUL also matches the end (WebKit accepts `a\0` and rejects `\0a`).
//  - "Matches everything": a filter none of whose terms must consume a character. The oracle asks
//    PCRE2 itself: the filter without its anchors matches the empty string (with no NUL after it).
//    For that question the end-of-URL marker is `(?:$)`, which consumes nothing, and a class
//    holding NUL among other characters is only those characters: WebKit counts such a class as
//    consuming a character (`[\09]` does not match everything; `[\0]` alone does). `[^\0]` is
//    counted the same way as `[\0]` there (WebKit looks at the written member, not the
//    inversion), though it matches one character 1..127 like `.`.
//  - The required literal (for the oracle's prefilter): the longest run of plain characters the
//    pattern must contain at its top level, read from this text.
// Tested by PCRE2OracleTests (PCRE2OracleTests.swift, PatternOracleTests.swift: a test per choice).

/// A url-filter in PCRE2 terms.
public struct URLFilterTranslation: Hashable, Sendable {
    /// The url-filter as written in the rule list.
    public var source: String
    /// The PCRE2 pattern, anchors included.
    public var pattern: String
    /// The pattern without `^` and `$`, with classes holding NUL among other characters written as
    /// consuming classes: used to ask whether the filter matches everything.
    public var body: String
    public var options: PCRE2Regex.Options
    /// A string every URL the filter matches contains (lower-cased when the filter is
    /// case-insensitive); empty when the filter requires no literal.
    public var requiredLiteral: [UInt8]

    /// Translates an accepted url-filter. Throws for text outside the subset (the rule-list parser
    /// rejects such filters before they get here).
    public static func translate(_ source: String, caseSensitive: Bool) throws(TranslationError) -> URLFilterTranslation {
        var translator = Translator(Array(source.utf8), source: source, caseSensitive: caseSensitive)
        return try translator.run()
    }
}

public struct TranslationError: Error, Hashable, Sendable, CustomStringConvertible {
    public var source: String
    public var offset: Int
    public var reason: String
    public var description: String { "cannot translate \(source) at offset \(offset): \(reason)" }
}

private struct Translator {
    let text: [UInt8]
    let source: String
    let caseSensitive: Bool
    var position = 0
    /// The translation, and the same with NUL-holding classes consuming (for "matches everything").
    var body = ""
    var everythingBody = ""
    var depth = 0

    // Prefilter bookkeeping: the current run of top-level plain characters, and the best so far.
    var currentRun: [UInt8] = []
    var best: [UInt8] = []
    /// The plain character the last top-level atom was, if it was one (a quantifier decides).
    var pendingLiteral: UInt8?

    init(_ text: [UInt8], source: String, caseSensitive: Bool) {
        self.text = text
        self.source = source
        self.caseSensitive = caseSensitive
    }

    func fail(_ reason: String) -> TranslationError { TranslationError(source: source, offset: position, reason: reason) }

    var atEnd: Bool { position >= text.count }
    func peek(_ ahead: Int = 0) -> UInt8? { position + ahead < text.count ? text[position + ahead] : nil }

    mutating func run() throws(TranslationError) -> URLFilterTranslation {
        var anchoredStart = false
        var anchoredEnd = false
        var end = text.count
        // WebKit takes any number of `^` before the first term as one (`^^a` is `^a`).
        while position < text.count, text[position] == UInt8(ascii: "^") {
            anchoredStart = true
            position += 1
        }
        if end > position, text[end - 1] == UInt8(ascii: "$"), !isEscaped(at: end - 1) {
            anchoredEnd = true
            end -= 1
        }
        while position < end {
            try atom(end: end)
        }
        guard depth == 0 else { throw fail("unclosed group") }
        flushLiteral(quantifier: nil)
        endRun()
        var options: PCRE2Regex.Options = [.dollarEndOnly]
        if !caseSensitive { options.insert(.caseless) }
        let pattern = (anchoredStart ? "^" : "") + body + (anchoredEnd ? "\\x{00}" : "")
        let literal = caseSensitive ? best : best.map(Self.lowercased)
        return URLFilterTranslation(source: source, pattern: pattern, body: everythingBody, options: options, requiredLiteral: literal)
    }

    /// Writes PCRE2 text; `everything` is what the "matches everything" body gets instead.
    mutating func emit(_ text: String, everything: String? = nil) {
        body += text
        everythingBody += everything ?? text
    }

    /// Whether the byte at `index` is escaped by an odd run of backslashes before it.
    func isEscaped(at index: Int) -> Bool {
        var backslashes = 0
        var cursor = index - 1
        while cursor >= 0, text[cursor] == UInt8(ascii: "\\") {
            backslashes += 1
            cursor -= 1
        }
        return backslashes % 2 == 1
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    // MARK: Atoms and quantifiers

    mutating func atom(end: Int) throws(TranslationError) {
        let byte = text[position]
        switch byte {
        case UInt8(ascii: "("):
            flushLiteral(quantifier: nil)
            endRun()
            position += 1
            if peek() == UInt8(ascii: "?") {
                if peek(1) == UInt8(ascii: ":") {
                    position += 2
                } else if peek(1) == UInt8(ascii: "<"), peek(2) != UInt8(ascii: "="), peek(2) != UInt8(ascii: "!") {
                    // A named group: skip the name.
                    while let next = peek(), next != UInt8(ascii: ">") { position += 1 }
                    guard !atEnd else { throw fail("unterminated group name") }
                    position += 1
                } else {
                    throw fail("lookaround groups are outside the subset")
                }
            }
            emit("(?:")
            depth += 1
        case UInt8(ascii: ")"):
            guard depth > 0 else { throw fail("unbalanced )") }
            flushLiteral(quantifier: nil)
            position += 1
            depth -= 1
            emit(")")
            try quantifier(end: end)
            if depth == 0 { endRun() }
        case UInt8(ascii: "["):
            flushLiteral(quantifier: nil)
            endRun()
            try characterClass()
            try quantifier(end: end)
        case UInt8(ascii: "."):
            flushLiteral(quantifier: nil)
            endRun()
            position += 1
            emit("[\\x{01}-\\x{7f}]")
            try quantifier(end: end)
        case UInt8(ascii: "\\"):
            flushLiteral(quantifier: nil)
            let code = try escape(inClass: false)
            character(code)
            try quantifier(end: end)
        case UInt8(ascii: "^"), UInt8(ascii: "$"):
            throw fail("misplaced anchor")
        case UInt8(ascii: "|"):
            throw fail("disjunctions are outside the subset")
        case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"):
            throw fail("quantifier without an atom")
        case UInt8(ascii: "{") where quantifierBraces() != nil:
            throw fail("quantifier without an atom")
        default:
            flushLiteral(quantifier: nil)
            position += 1
            character(UInt32(byte))
            try quantifier(end: end)
        }
    }

    /// Writes one character; a plain top-level character may join the required literal.
    mutating func character(_ code: UInt32) {
        if code == 0 {
            // WebKit's end-of-URL marker (docs/SEMANTICS.md §3).
            emit("\\x{00}", everything: "(?:$)")
            endRun()
            return
        }
        if code > 0x7F {
            emit(Self.nothing)
            endRun()
            return
        }
        emit(Self.literal(UInt8(code)))
        if depth == 0 && code != 0 { pendingLiteral = UInt8(code) } else { endRun() }
    }

    /// A class that matches no byte (without UTF, `\x{00}-\x{ff}` is every byte).
    static let nothing = "[^\\x{00}-\\x{ff}]"

    static func literal(_ byte: UInt8) -> String {
        if isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { return String(Unicode.Scalar(byte)) }
        return "\\x{" + String(byte, radix: 16) + "}"
    }

    /// `{n}`, `{n,}` or `{n,m}` at the current position: its length, or nil when `{` is literal.
    func quantifierBraces() -> Int? {
        guard peek() == UInt8(ascii: "{") else { return nil }
        var cursor = position + 1
        func digits() -> Int {
            let start = cursor
            while cursor < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[cursor]) { cursor += 1 }
            return cursor - start
        }
        guard digits() > 0 else { return nil }
        if cursor < text.count, text[cursor] == UInt8(ascii: ",") {
            cursor += 1
            _ = digits()
        }
        guard cursor < text.count, text[cursor] == UInt8(ascii: "}") else { return nil }
        return cursor + 1 - position
    }

    /// An optional quantifier after an atom.
    mutating func quantifier(end: Int) throws(TranslationError) {
        guard position < end else { return }
        var written: String?
        var minimumIsZero = false
        switch text[position] {
        case UInt8(ascii: "*"):
            written = "*"
            minimumIsZero = true
            position += 1
        case UInt8(ascii: "+"):
            written = "+"
            position += 1
        case UInt8(ascii: "?"):
            written = "?"
            minimumIsZero = true
            position += 1
        case UInt8(ascii: "{"):
            if let length = quantifierBraces() {
                let (minimum, maximum) = Self.braceCounts(text[(position + 1)..<(position + length - 1)])
                switch (minimum, maximum) {
                case (0, 1): written = "?"
                case (0, nil): written = "*"
                case (1, nil): written = "+"
                default: written = "{\(minimum)," + (maximum.map(String.init) ?? "") + "}"
                }
                minimumIsZero = minimum == 0
                position += length
            }
        default:
            break
        }
        guard let written else { return }
        emit(written)
        // A lazy form matches the same URLs.
        if position < end, text[position] == UInt8(ascii: "?") { position += 1 }
        if position < end, text[position] == UInt8(ascii: "*") || text[position] == UInt8(ascii: "+")
            || text[position] == UInt8(ascii: "?") || quantifierBraces() != nil {
            throw fail("nothing to repeat")
        }
        flushLiteral(quantifier: minimumIsZero ? .optional : .repeated)
    }

    /// The counts of `n`, `n,` or `n,m` (the text between the braces), saturating at YARR's
    /// "infinite" 2^32-1, which means no upper bound (nil).
    static func braceCounts(_ inner: ArraySlice<UInt8>) -> (minimum: UInt64, maximum: UInt64?) {
        let infinite = UInt64(UInt32.max)
        func number(_ digits: ArraySlice<UInt8>) -> UInt64 {
            digits.reduce(0) { min($0 * 10 + UInt64($1 - UInt8(ascii: "0")), infinite) }
        }
        guard let comma = inner.firstIndex(of: UInt8(ascii: ",")) else {
            let count = number(inner)
            return (count, count == infinite ? nil : count)
        }
        let minimum = number(inner[..<comma])
        let upper = inner[(comma + 1)...]
        let maximum = upper.isEmpty ? infinite : number(upper)
        return (minimum, maximum == infinite ? nil : maximum)
    }

    enum LiteralQuantifier { case optional, repeated }

    /// Settles the last plain character: it joins the run unless optional; a repeat ends the run.
    mutating func flushLiteral(quantifier: LiteralQuantifier?) {
        guard let byte = pendingLiteral else {
            if quantifier == .optional || quantifier == .repeated { endRun() }
            return
        }
        pendingLiteral = nil
        switch quantifier {
        case nil:
            currentRun.append(byte)
        case .repeated:
            currentRun.append(byte)
            endRun()
        case .optional:
            endRun()
        }
    }

    mutating func endRun() {
        if let byte = pendingLiteral {
            pendingLiteral = nil
            currentRun.append(byte)
        }
        if currentRun.count > best.count { best = currentRun }
        currentRun.removeAll()
    }

    // MARK: Escapes and classes

    static func hexValue(_ byte: UInt8?) -> UInt32? {
        guard let byte else { return nil }
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    static func isOctal(_ byte: UInt8?) -> Bool { byte.map { (UInt8(ascii: "0")...UInt8(ascii: "7")).contains($0) } ?? false }
    static func isLetter(_ byte: UInt8?) -> Bool {
        guard let byte else { return false }
        return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// The character code of the escape at `position` (a backslash), JavaScript legacy rules.
    mutating func escape(inClass: Bool) throws(TranslationError) -> UInt32 {
        position += 1
        guard let byte = peek() else { throw fail("\\ at end of pattern") }
        position += 1
        switch byte {
        case UInt8(ascii: "t"): return 9
        case UInt8(ascii: "n"): return 10
        case UInt8(ascii: "v"): return 11
        case UInt8(ascii: "f"): return 12
        case UInt8(ascii: "r"): return 13
        case UInt8(ascii: "b") where inClass: return 8
        case UInt8(ascii: "d"), UInt8(ascii: "D"), UInt8(ascii: "w"), UInt8(ascii: "W"), UInt8(ascii: "s"), UInt8(ascii: "S"):
            throw fail("character class escapes are outside the subset")
        case UInt8(ascii: "b"), UInt8(ascii: "B"):
            // `\b` in a class was handled above; `\B` in a class is the letter itself.
            if inClass { return UInt32(byte) }
            throw fail("word boundaries are outside the subset")
        case UInt8(ascii: "c"):
            let next = peek()
            if Self.isLetter(next) || (inClass && (next.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_") } ?? false)) {
                position += 1
                return UInt32(next! % 32)
            }
            // `\c` without a control letter: the backslash is itself, and `c` is read next.
            position -= 1
            return UInt32(UInt8(ascii: "\\"))
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            var value = UInt32(byte - UInt8(ascii: "0"))
            let maxDigits = byte <= UInt8(ascii: "3") ? 2 : 1
            var taken = 0
            while taken < maxDigits, Self.isOctal(peek()) {
                value = value * 8 + UInt32(peek()! - UInt8(ascii: "0"))
                position += 1
                taken += 1
            }
            return value
        case UInt8(ascii: "x"):
            if let high = Self.hexValue(peek()), let low = Self.hexValue(peek(1)) {
                position += 2
                return high * 16 + low
            }
            return UInt32(byte)
        case UInt8(ascii: "u"):
            if let a = Self.hexValue(peek()), let b = Self.hexValue(peek(1)), let c = Self.hexValue(peek(2)), let d = Self.hexValue(peek(3)) {
                position += 4
                return ((a * 16 + b) * 16 + c) * 16 + d
            }
            return UInt32(byte)
        default:
            return UInt32(byte)
        }
    }

    /// One class member: a character code.
    mutating func classMember() throws(TranslationError) -> UInt32 {
        if text[position] == UInt8(ascii: "\\") { return try escape(inClass: true) }
        defer { position += 1 }
        return UInt32(text[position])
    }

    /// `[...]` or `[^...]` at `position`.
    mutating func characterClass() throws(TranslationError) {
        position += 1
        var negated = false
        if peek() == UInt8(ascii: "^") {
            negated = true
            position += 1
        }
        var members: [ClosedRange<UInt32>] = []
        while true {
            guard let byte = peek() else { throw fail("unterminated class") }
            if byte == UInt8(ascii: "]") {
                position += 1
                break
            }
            let low = try classMember()
            if peek() == UInt8(ascii: "-"), let after = peek(1), after != UInt8(ascii: "]") {
                position += 1
                let high = try classMember()
                guard low <= high else { throw fail("range out of order") }
                members.append(low...high)
            } else {
                members.append(low...low)
            }
        }
        // A NUL in a class is WebKit's end-of-URL marker: the class also matches the end.
        let matchesEnd = !negated && members.contains { $0.lowerBound == 0 }
        let endMember = "\\x{00}"
        // Only codes 0..255 can be written without UTF; above 127 nothing in a URL matches anyway.
        let written = members.compactMap { range -> String? in
            var range = range
            if range.lowerBound == 0 && !negated {
                guard range.upperBound > 0 else { return nil }
                range = 1...range.upperBound
            }
            guard range.lowerBound <= 0xFF else { return nil }
            let upper = min(range.upperBound, 0xFF)
            let low = "\\x{" + String(range.lowerBound, radix: 16) + "}"
            return range.lowerBound == upper ? low : low + "-\\x{" + String(upper, radix: 16) + "}"
        }
        if negated {
            // `[^\0]` matches what `.` matches, but WebKit counts it as an end-of-line assertion
            // (by its written member), which consumes no character for "matches everything".
            let onlyNUL = !members.isEmpty && members.allSatisfy { $0 == 0...0 }
            emit("[^" + written.joined() + "\\x{00}\\x{80}-\\x{ff}]", everything: onlyNUL ? "(?:)" : nil)
        } else if matchesEnd {
            // With other members WebKit counts the class as consuming a character (Term's
            // matchesAtLeastOneCharacter); NUL alone is the end-of-URL marker.
            emit("[" + endMember + written.joined() + "]", everything: written.isEmpty ? "(?:$)" : "[" + written.joined() + "]")
        } else if written.isEmpty {
            emit(Self.nothing)
        } else {
            emit("[" + written.joined() + "]")
        }
    }
}
