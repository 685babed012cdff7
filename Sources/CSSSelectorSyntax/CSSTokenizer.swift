// CSSTokenizer.swift — CSSSelectorSyntax
//
// A tokenizer for CSS text following CSS Syntax Module Level 3, §3.3 (preprocessing the input
// stream) and §4 (tokenization): ident, function, at-keyword, hash (id / unrestricted), string,
// bad-string, url, bad-url, delim, number, percentage, dimension, whitespace, CDO, CDC, colon,
// semicolon, comma and the six bracket tokens, with escapes, comments, newline normalisation
// (CR LF, CR, FF -> LF) and NUL -> U+FFFD.
//
// Like WebKit's tokenizer (and the 2014 Candidate Recommendation of CSS Syntax 3), it also emits
// the attribute-matcher tokens `~=` `|=` `^=` `$=` `*=` and the column token `||`. That is
// observable in selectors: WebKit rejects `[*=a]` and `[|=a]` because `*=` / `|=` are one token.
// It has no unicode-range token (`u+a` is the type selector `u`, a `+` combinator and `a`).
//
// The tokenizer works on an array of Unicode scalars and records, for every token, the UTF-8 byte
// range it came from in the original string, so diagnostics can point into the selector.
// Decoded values (idents with escapes resolved, string contents, units) are ranges of that same
// array: the code points they were read from when they hold no escape (most do), otherwise the
// decoded code points appended after the input's end.
//
// Tested by CSSSelectorSyntaxTests (CSSSelectorValidatorTests.swift, and WebKitVerdictTests.swift:
// WebKit's verdicts on real selectors).

/// Kinds of tokens of CSS Syntax Level 3 (plus WebKit's matcher and column tokens).
enum CSSTokenKind: UInt8, Sendable {
    case ident, function, atKeyword, hash, string, badString, url, badURL, delim
    case number, percentage, dimension, whitespace, cdo, cdc
    case colon, semicolon, comma
    case leftBracket, rightBracket, leftParen, rightParen, leftBrace, rightBrace
    case includeMatch  // ~=
    case dashMatch  // |=
    case prefixMatch  // ^=
    case suffixMatch  // $=
    case substringMatch  // *=
    case column  // ||
    case eof
}

/// One token. `start`/`end` are UTF-8 byte offsets into the source string. For ident, function,
/// at-keyword, hash, string, url and the unit of a dimension, the decoded value is
/// `values[valueStart..<valueEnd]` of the owning `CSSTokenizer.Output`. A block-opening token's
/// `closer` is the index of its closing token.
struct CSSToken: Sendable {
    var kind: CSSTokenKind
    /// For number / percentage / dimension: the text started with `+` or `-`.
    var hasSign: Bool = false
    /// For number / dimension: the number had no fraction or exponent (`<integer>`).
    var isInteger: Bool = false
    /// For hash: the name would start an ident sequence (type flag "id").
    var isIDHash: Bool = false
    var start: Int32
    var end: Int32
    var valueStart: Int32 = 0
    var valueEnd: Int32 = 0
    /// The code point of a delim token.
    var delim: UInt32 = 0
    /// Numeric value of number / percentage / dimension.
    var number: Double = 0
    /// For `(`, `[`, `{` and function tokens: the index of the matching closing token, or of the
    /// EOF token if the block is never closed. Closing tokens of another type inside a block are
    /// ordinary tokens of that block (CSS Syntax §5.4.8).
    var closer: Int32 = -1
}

/// CSS Syntax Level 3 tokenizer over Unicode scalars.
struct CSSTokenizer {
    struct Output: Sendable {
        var tokens: [CSSToken]
        /// Decoded values, see `CSSToken.valueStart`: the input's code points, then the values
        /// that differ from the text they were read from.
        var values: [UInt32]
        /// Total UTF-8 length of the source.
        var utf8Count: Int

        func value(_ token: CSSToken) -> ArraySlice<UInt32> {
            values[Int(token.valueStart)..<Int(token.valueEnd)]
        }
    }

    /// Preprocessed code points; 0 marks the end (NUL itself was replaced by U+FFFD). After the
    /// input and its sentinels: the decoded values that are not a range of the input.
    private var cps: [UInt32]
    /// UTF-8 offset of each code point in the original string; one extra entry for the end.
    /// Empty when each code point is one byte (plain ASCII): its offset is its index.
    private var offsets: [Int32]
    /// The number of code points of the input.
    private let count: Int
    private var i = 0

    init(_ source: String) {
        // Most selectors are ASCII without CR, FF or NUL: each byte is its code point at its
        // own offset, copied in one pass (an append per code point is most of the work otherwise).
        if let plain = source.utf8.withContiguousStorageIfAvailable(Self.plainASCII), let cps = plain {
            self.cps = cps
            self.offsets = []
            self.count = source.utf8.count
            return
        }
        var cps: [UInt32] = []
        var offsets: [Int32] = []
        cps.reserveCapacity(source.utf8.count + 3)
        offsets.reserveCapacity(source.utf8.count + 3)
        var offset: Int32 = 0
        var previousWasCR = false
        for scalar in source.unicodeScalars {
            let v = scalar.value
            let width: Int32 = v < 0x80 ? 1 : v < 0x800 ? 2 : v < 0x10000 ? 3 : 4
            defer { offset += width }
            // §3.3: CR LF -> LF, CR -> LF, FF -> LF, NUL -> U+FFFD.
            if v == 0x0A && previousWasCR {
                previousWasCR = false
                continue
            }
            previousWasCR = v == 0x0D
            cps.append(v == 0x0D || v == 0x0C ? 0x0A : v == 0 ? 0xFFFD : v)
            offsets.append(offset)
        }
        offsets.append(offset)
        // Sentinels so that look-ahead of up to three code points never leaves the array.
        cps.append(contentsOf: [0, 0, 0, 0])
        offsets.append(contentsOf: [offset, offset, offset])
        self.count = cps.count - 4
        self.cps = cps
        self.offsets = offsets
    }

    /// The code points of `bytes` as `init` makes them (with the sentinels), when every byte is
    /// ASCII and none is one the preprocessing changes (CR, FF, NUL); nil otherwise.
    private static func plainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt32]? {
        for byte in bytes where byte >= 0x80 || byte == 0x0D || byte == 0x0C || byte == 0 { return nil }
        // reserveCapacity, not `unsafeUninitializedCapacity:`: the latter allocates through
        // the standard library's unspecialized path, several times the cost of this copy.
        var cps: [UInt32] = []
        cps.reserveCapacity(bytes.count + 4)
        for byte in bytes { cps.append(UInt32(byte)) }
        for _ in 0..<4 { cps.append(0) }
        return cps
    }

    /// The UTF-8 offset of code point `index` (`count` for the end).
    @inline(__always) private func offset(_ index: Int) -> Int32 {
        offsets.isEmpty ? Int32(index) : offsets[index]
    }

    static func tokenize(_ source: String) -> Output {
        var tokenizer = CSSTokenizer(source)
        return tokenizer.run()
    }

    mutating func run() -> Output {
        var tokens: [CSSToken] = []
        tokens.reserveCapacity(count / 3 + 2)
        // The open blocks, innermost last.
        var open: [Int32] = []
        while true {
            let token = next()
            let index = Int32(tokens.count)
            tokens.append(token)
            switch token.kind {
            case .leftParen, .leftBracket, .leftBrace, .function:
                open.append(index)
            case .rightParen, .rightBracket, .rightBrace:
                if let top = open.last {
                    let opening = tokens[Int(top)].kind
                    let matches =
                        (token.kind == .rightParen && (opening == .leftParen || opening == .function))
                        || (token.kind == .rightBracket && opening == .leftBracket)
                        || (token.kind == .rightBrace && opening == .leftBrace)
                    if matches {
                        tokens[Int(top)].closer = index
                        open.removeLast()
                    }
                }
            case .eof:
                for block in open { tokens[Int(block)].closer = index }
                return Output(tokens: tokens, values: cps, utf8Count: Int(offset(count)))
            default: break
            }
        }
    }

    // MARK: - Code point classes (§4.2)

    @inline(__always) private static func isDigit(_ c: UInt32) -> Bool { c &- 0x30 < 10 }
    @inline(__always) private static func isHexDigit(_ c: UInt32) -> Bool {
        c &- 0x30 < 10 || (c | 0x20) &- 0x61 < 6
    }
    @inline(__always) private static func isLetter(_ c: UInt32) -> Bool { (c | 0x20) &- 0x61 < 26 }
    /// ident-start code point: letter, non-ASCII, `_`.
    @inline(__always) private static func isNameStart(_ c: UInt32) -> Bool {
        isLetter(c) || c >= 0x80 || c == 0x5F
    }
    @inline(__always) private static func isName(_ c: UInt32) -> Bool {
        isNameStart(c) || isDigit(c) || c == 0x2D
    }
    @inline(__always) private static func isWhitespace(_ c: UInt32) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A
    }
    @inline(__always) private static func isNonPrintable(_ c: UInt32) -> Bool {
        c <= 0x08 || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F
    }

    @inline(__always) private func peek(_ k: Int = 0) -> UInt32 { cps[i + k] }
    @inline(__always) private var atEnd: Bool { i >= count }

    /// §4.3.8: two code points are a valid escape.
    @inline(__always) private static func isValidEscape(_ a: UInt32, _ b: UInt32) -> Bool {
        a == 0x5C && b != 0x0A
    }

    /// §4.3.8 check at `i + k`: a backslash not followed by a newline. A backslash at the end of
    /// the input is a valid escape (it yields U+FFFD), as the spec says and WebKit does.
    @inline(__always) private func validEscape(at k: Int) -> Bool {
        cps[i + k] == 0x5C && cps[i + k + 1] != 0x0A
    }

    /// §4.3.9: three code points would start an ident sequence.
    private func wouldStartIdent(at k: Int) -> Bool {
        let a = cps[i + k]
        if a == 0x2D {
            let b = cps[i + k + 1]
            return Self.isNameStart(b) || b == 0x2D || Self.isValidEscape(b, cps[i + k + 2])
        }
        if Self.isNameStart(a) { return true }
        if a == 0x5C { return validEscape(at: k) }
        return false
    }

    /// §4.3.10: three code points would start a number.
    private func wouldStartNumber(at k: Int) -> Bool {
        let a = cps[i + k]
        if a == 0x2B || a == 0x2D {
            let b = cps[i + k + 1]
            if Self.isDigit(b) { return true }
            return b == 0x2E && Self.isDigit(cps[i + k + 2])
        }
        if a == 0x2E { return Self.isDigit(cps[i + k + 1]) }
        return Self.isDigit(a)
    }

    // MARK: - Token production

    private func make(_ kind: CSSTokenKind, from startIndex: Int) -> CSSToken {
        CSSToken(kind: kind, start: offset(startIndex), end: offset(min(i, count)))
    }

    /// §4.3.1 consume a token: comments skipped, then by the first code point: a token of its
    /// own, a match operator (`$=`, `|=`, `||`...) or a delim, or the longer tokens.
    private mutating func next() -> CSSToken {
        skipComments()
        let start = i
        if atEnd { return make(.eof, from: start) }
        let c = peek()
        switch c {
        case 0x28, 0x29, 0x2C, 0x3A, 0x3B, 0x5B, 0x5D, 0x7B, 0x7D:  // ( ) , : ; [ ] { }
            i += 1
            return make(Self.singleCodePointToken(c), from: start)
        case 0x24, 0x2A, 0x5E, 0x7C, 0x7E:  // $ * ^ | ~
            guard let kind = matchOperator(c) else { return delim(start) }
            i += 2
            return make(kind, from: start)
        case 0x09, 0x0A, 0x20:
            while Self.isWhitespace(peek()) && !atEnd { i += 1 }
            return make(.whitespace, from: start)
        case 0x22, 0x27:  // " '
            return consumeString(ending: c, start: start)
        case 0x23:  // #
            if Self.isName(peek(1)) || validEscape(at: 1) {
                i += 1
                let isID = wouldStartIdent(at: 0)
                var token = make(.hash, from: start)
                (token.valueStart, token.valueEnd) = consumeIdentSequence()
                token.end = offset(i)
                token.isIDHash = isID
                return token
            }
            return delim(start)
        case 0x2B, 0x2E:  // + .
            if wouldStartNumber(at: 0) { return consumeNumeric(start: start) }
            return delim(start)
        case 0x2D:  // -
            if wouldStartNumber(at: 0) { return consumeNumeric(start: start) }
            if peek(1) == 0x2D && peek(2) == 0x3E {
                i += 3
                return make(.cdc, from: start)
            }
            if wouldStartIdent(at: 0) { return consumeIdentLike(start: start) }
            return delim(start)
        case 0x3C:  // <
            if peek(1) == 0x21 && peek(2) == 0x2D && peek(3) == 0x2D {
                i += 4
                return make(.cdo, from: start)
            }
            return delim(start)
        case 0x40:  // @
            if wouldStartIdent(at: 1) {
                i += 1
                var token = make(.atKeyword, from: start)
                (token.valueStart, token.valueEnd) = consumeIdentSequence()
                token.end = offset(i)
                return token
            }
            return delim(start)
        case 0x5C:  // backslash
            if validEscape(at: 0) { return consumeIdentLike(start: start) }
            return delim(start)
        default:
            if Self.isDigit(c) { return consumeNumeric(start: start) }
            if Self.isNameStart(c) { return consumeIdentLike(start: start) }
            return delim(start)
        }
    }

    /// §4.3.2 consume comments.
    private mutating func skipComments() {
        while peek() == 0x2F && peek(1) == 0x2A {
            i += 2
            while !atEnd && !(peek() == 0x2A && peek(1) == 0x2F) { i += 1 }
            i = min(i + 2, count)
        }
    }

    /// The token of `c`, one of `( ) , : ; [ ] { }`: each a token alone, whatever follows.
    @inline(__always)
    private static func singleCodePointToken(_ c: UInt32) -> CSSTokenKind {
        switch c {
        case 0x28: .leftParen
        case 0x29: .rightParen
        case 0x2C: .comma
        case 0x3A: .colon
        case 0x3B: .semicolon
        case 0x5B: .leftBracket
        case 0x5D: .rightBracket
        case 0x7B: .leftBrace
        default: .rightBrace
        }
    }

    /// The two-code-point operator `c` starts here (`$= *= ^= |= ~=`, `||`), if any; alone, these
    /// code points are delims.
    @inline(__always)
    private func matchOperator(_ c: UInt32) -> CSSTokenKind? {
        let following = peek(1)
        switch c {
        case 0x24 where following == 0x3D: return .suffixMatch  // $=
        case 0x2A where following == 0x3D: return .substringMatch  // *=
        case 0x5E where following == 0x3D: return .prefixMatch  // ^=
        case 0x7C where following == 0x3D: return .dashMatch  // |=
        case 0x7C where following == 0x7C: return .column  // ||
        case 0x7E where following == 0x3D: return .includeMatch  // ~=
        default: return nil
        }
    }

    private mutating func delim(_ start: Int) -> CSSToken {
        i += 1
        var token = make(.delim, from: start)
        token.delim = cps[start]
        return token
    }

    /// §4.3.7 consume an escaped code point (the backslash already consumed).
    private mutating func consumeEscape() -> UInt32 {
        if atEnd { return 0xFFFD }
        let c = peek()
        if Self.isHexDigit(c) {
            var value: UInt32 = 0
            var n = 0
            while n < 6 && Self.isHexDigit(peek()) && !atEnd {
                let d = peek()
                value = value &* 16 &+ (Self.isDigit(d) ? d - 0x30 : (d | 0x20) - 0x61 + 10)
                i += 1
                n += 1
            }
            if Self.isWhitespace(peek()) && !atEnd { i += 1 }
            if value == 0 || (value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF {
                return 0xFFFD
            }
            return value
        }
        i += 1
        return c
    }

    /// §4.3.11 consume an ident sequence; returns the range of its decoded value.
    private mutating func consumeIdentSequence() -> (Int32, Int32) {
        // Name code points alone are their own value: the range read.
        let start = i
        while Self.isName(cps[i]) && !atEnd { i += 1 }
        guard validEscape(at: 0) else { return (Int32(start), Int32(i)) }
        // With an escape, the value is decoded after the input.
        let valueStart = cps.count
        for k in start..<i { cps.append(cps[k]) }
        while !atEnd {
            let c = peek()
            if Self.isName(c) {
                cps.append(c)
                i += 1
            } else if validEscape(at: 0) {
                i += 1
                let escaped = consumeEscape()
                cps.append(escaped)
            } else {
                break
            }
        }
        return (Int32(valueStart), Int32(cps.count))
    }

    /// §4.3.4 consume an ident-like token: ident, function, url or bad-url.
    private mutating func consumeIdentLike(start: Int) -> CSSToken {
        let (vs, ve) = consumeIdentSequence()
        var kind = CSSTokenKind.ident
        if peek() == 0x28 && !atEnd {
            i += 1
            kind = .function
            if isURL(vs, ve) {
                // Skip whitespace as long as two code points of it follow.
                while Self.isWhitespace(peek()) && Self.isWhitespace(peek(1)) && i + 1 < count { i += 1 }
                let c0 = peek()
                let c1 = Self.isWhitespace(c0) ? peek(1) : c0
                if !(c1 == 0x22 || c1 == 0x27) {
                    return consumeURL(start: start)
                }
            }
        }
        var token = make(kind, from: start)
        token.valueStart = vs
        token.valueEnd = ve
        return token
    }

    private func isURL(_ vs: Int32, _ ve: Int32) -> Bool {
        guard ve - vs == 3 else { return false }
        let v = cps
        return v[Int(vs)] | 0x20 == 0x75 && v[Int(vs) + 1] | 0x20 == 0x72 && v[Int(vs) + 2] | 0x20 == 0x6C
    }

    /// §4.3.6 consume a url token (after `url(` and leading whitespace handling).
    private mutating func consumeURL(start: Int) -> CSSToken {
        while Self.isWhitespace(peek()) && !atEnd { i += 1 }
        let valueStart = Int32(cps.count)
        while true {
            if atEnd { break }
            let c = peek()
            if c == 0x29 { i += 1; break }
            if Self.isWhitespace(c) {
                while Self.isWhitespace(peek()) && !atEnd { i += 1 }
                if atEnd { break }
                if peek() == 0x29 { i += 1; break }
                return consumeBadURL(start: start)
            }
            if c == 0x22 || c == 0x27 || c == 0x28 || Self.isNonPrintable(c) {
                return consumeBadURL(start: start)
            }
            if c == 0x5C {
                if validEscape(at: 0) {
                    i += 1
                    let escaped = consumeEscape()
                    cps.append(escaped)
                    continue
                }
                return consumeBadURL(start: start)
            }
            cps.append(c)
            i += 1
        }
        var token = make(.url, from: start)
        token.valueStart = valueStart
        token.valueEnd = Int32(cps.count)
        return token
    }

    /// §4.3.14 consume the remnants of a bad url.
    private mutating func consumeBadURL(start: Int) -> CSSToken {
        while !atEnd {
            let c = peek()
            if c == 0x29 { i += 1; break }
            if validEscape(at: 0) {
                i += 1
                _ = consumeEscape()
            } else {
                i += 1
            }
        }
        return make(.badURL, from: start)
    }

    /// §4.3.5 consume a string token.
    private mutating func consumeString(ending: UInt32, start: Int) -> CSSToken {
        i += 1
        // Up to its first backslash, a string's value is the range read.
        let first = i
        while !atEnd && peek() != ending && peek() != 0x0A && peek() != 0x5C { i += 1 }
        if atEnd || peek() == ending {
            var token = make(.string, from: start)
            token.valueStart = Int32(first)
            token.valueEnd = Int32(i)
            if !atEnd { i += 1 }
            token.end = offset(min(i, count))
            return token
        }
        if peek() == 0x0A { return make(.badString, from: start) }
        // A backslash: the value is decoded after the input.
        let valueStart = Int32(cps.count)
        for k in first..<i { cps.append(cps[k]) }
        while !atEnd {
            let c = peek()
            if c == ending { i += 1; break }
            if c == 0x0A {
                // Newline: bad-string, the newline is not consumed.
                return make(.badString, from: start)
            }
            if c == 0x5C {
                if i + 1 >= count { i += 1; continue }  // backslash at EOF: nothing
                if peek(1) == 0x0A { i += 2; continue }  // escaped newline: line continuation
                i += 1
                let escaped = consumeEscape()
                cps.append(escaped)
                continue
            }
            cps.append(c)
            i += 1
        }
        var token = make(.string, from: start)
        token.valueStart = valueStart
        token.valueEnd = Int32(cps.count)
        return token
    }

    /// §4.3.12 consume a number, §4.3.3 consume a numeric token.
    private mutating func consumeNumeric(start: Int) -> CSSToken {
        var isInteger = true
        var hasSign = false
        var sign = 1.0
        if peek() == 0x2B || peek() == 0x2D {
            hasSign = true
            if peek() == 0x2D { sign = -1 }
            i += 1
        }
        var value = 0.0
        while Self.isDigit(peek()) && !atEnd {
            value = value * 10 + Double(peek() - 0x30)
            i += 1
        }
        if peek() == 0x2E && Self.isDigit(peek(1)) && i + 1 < count {
            isInteger = false
            i += 1
            var scale = 0.1
            while Self.isDigit(peek()) && !atEnd {
                value += Double(peek() - 0x30) * scale
                scale /= 10
                i += 1
            }
        }
        if peek() | 0x20 == 0x65 && i + 1 < count {
            let n1 = peek(1)
            if Self.isDigit(n1) || ((n1 == 0x2B || n1 == 0x2D) && Self.isDigit(peek(2)) && i + 2 < count) {
                isInteger = false
                i += 1
                var expSign = 1.0
                if peek() == 0x2B || peek() == 0x2D {
                    if peek() == 0x2D { expSign = -1 }
                    i += 1
                }
                var exponent = 0.0
                while Self.isDigit(peek()) && !atEnd {
                    exponent = min(exponent * 10 + Double(peek() - 0x30), 100_000)
                    i += 1
                }
                value *= pow10(expSign * exponent)
            }
        }
        value *= sign
        var kind = CSSTokenKind.number
        var unit: (Int32, Int32) = (0, 0)
        if wouldStartIdent(at: 0) {
            kind = .dimension
            unit = consumeIdentSequence()
        } else if peek() == 0x25 && !atEnd {
            i += 1
            kind = .percentage
        }
        var token = make(kind, from: start)
        token.hasSign = hasSign
        token.isInteger = isInteger
        token.number = value
        (token.valueStart, token.valueEnd) = unit
        return token
    }

    private func pow10(_ e: Double) -> Double {
        // Enough precision for validation; avoids importing Foundation.
        if e > 400 { return .infinity }
        if e < -400 { return 0 }
        var result = 1.0
        var n = Int(e.magnitude)
        var base = 10.0
        while n > 0 {
            if n & 1 == 1 { result *= base }
            base *= base
            n >>= 1
        }
        return e < 0 ? 1 / result : result
    }
}
