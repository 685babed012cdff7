// CSSPlainSelectorList.swift — CSSSelectorSyntax
//
// A one-pass recogniser over UTF-8 bytes for the selector lists most css-display-none rules are:
// compounds of a type selector (`div`, `*`), ids, classes and attribute selectors (`[a]`,
// `[a="v"]`, `[a^=v i]`, matchers `= ~= |= ^= $= *=`) joined by whitespace, `>`, `+`, `~` and
// commas, and `:has()` / `:not()` whose argument is such a list (relative for `:has()`), not
// nested. It answers "WebKit accepts this" or "not plain": whatever it does not know (any non-
// ASCII byte, backslash, comment, any other pseudo-class, namespace bar, `&`, CR, FF, NUL, an unterminated
// string or bracket, an ident that does not start with a letter, `_` or `-` and a letter...) is
// left to the tokenizer and parser, so it only accepts selectors the general path accepts.
//
// On such input the general path's tokens are exactly the ones read here: an ident is a letter,
// `_` or `-` + letter followed by [A-Za-z0-9_-] (no escape, no non-ASCII to extend it), `#` + ident
// is an id-type hash, `.` before a letter is a delim, `~=` `|=` `^=` `$=` `*=` are one token each.
//
// Tested by CSSPlainSelectorListTests (every selector of the shipped lists and generated ones:
// an accepted selector must be accepted by CSSSelectorParser).

enum CSSPlainSelectorList {
    /// True when `selector` is a plain selector list (see above), which WebKit accepts; false when
    /// it is not plain (it may still be valid).
    static func accepts(_ selector: String) -> Bool {
        var selector = selector
        return selector.withUTF8 { bytes in
            var reader = Reader(bytes: bytes)
            return reader.selectorList()
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0
        /// Inside the argument of `:has()` or `:not()`: `)` ends it, and no pseudo-class nests.
        var insideArgument = false

        /// The byte at `i`, 0 at the end (a NUL in the input is not plain: it stops the reading
        /// there, and the callers then find no end where they need one).
        @inline(__always) func peek(_ k: Int = 0) -> UInt8 {
            i + k < bytes.count ? bytes[i + k] : 0
        }
        var atEnd: Bool { i >= bytes.count }

        @inline(__always) static func isLetter(_ c: UInt8) -> Bool { (c | 0x20) &- 0x61 < 26 }
        @inline(__always) static func isName(_ c: UInt8) -> Bool {
            isLetter(c) || c &- 0x30 < 10 || c == 0x5F || c == 0x2D
        }
        @inline(__always) static func isWhitespace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A }
        /// `>`, `+` or `~` not starting `~=`.
        func atCombinator() -> Bool {
            let c = peek()
            return c == 0x3E || c == 0x2B || (c == 0x7E && peek(1) != 0x3D)
        }
        /// The end of a complex selector: the end of input, a comma, or `)` in an argument.
        func atComplexEnd() -> Bool {
            atEnd || peek() == 0x2C || (insideArgument && peek() == 0x29)
        }

        /// Skips whitespace; whether there was some.
        @discardableResult
        mutating func whitespace() -> Bool {
            let start = i
            while !atEnd && Self.isWhitespace(bytes[i]) { i += 1 }
            return i != start
        }

        /// An ident: a letter or `_`, or `-` and a letter, then name bytes.
        mutating func ident() -> Bool {
            let c = peek()
            if c == 0x2D {
                guard Self.isLetter(peek(1)) else { return false }
            } else if !(Self.isLetter(c) || c == 0x5F) {
                return false
            }
            i += 1
            while !atEnd && Self.isName(bytes[i]) { i += 1 }
            return true
        }

        /// <selector-list>: complex selectors separated by commas, whitespace around them.
        mutating func selectorList() -> Bool {
            whitespace()
            while true {
                guard complex() else { return false }
                if atEnd { return true }
                guard peek() == 0x2C else { return false }  // ,
                i += 1
                whitespace()
            }
        }

        /// After `:`, `has(` or `not(` and their argument up to its `)`: a relative (`:has()`) or
        /// a complex (`:not()`) selector list.
        mutating func pseudoClassArgument() -> Bool {
            guard !insideArgument, i + 4 < bytes.count, bytes[i + 3] == 0x28 else { return false }  // (
            let name = (bytes[i], bytes[i + 1], bytes[i + 2])
            let relative = name == (0x68, 0x61, 0x73)  // has
            guard relative || name == (0x6E, 0x6F, 0x74) else { return false }  // not
            i += 4
            insideArgument = true
            defer { insideArgument = false }
            whitespace()
            while true {
                if relative && atCombinator() {
                    i += 1
                    whitespace()
                }
                guard complex() else { return false }
                if peek() == 0x29 && !atEnd {  // )
                    i += 1
                    return true
                }
                guard peek() == 0x2C else { return false }  // ,
                i += 1
                whitespace()
            }
        }

        /// <complex-selector>: compounds joined by combinators; ends before a comma or the end.
        mutating func complex() -> Bool {
            guard compound() else { return false }
            while true {
                let sawWhitespace = whitespace()
                if atComplexEnd() { return true }
                if atCombinator() {
                    i += 1
                    whitespace()
                } else if !sawWhitespace {
                    return false
                }
                guard compound() else { return false }
            }
        }

        /// <compound-selector>: an optional type selector (ident or `*` not before `=` or `|`),
        /// then ids, classes and attribute selectors; at least one of them.
        mutating func compound() -> Bool {
            let start = i
            if peek() == 0x2A {  // *
                if peek(1) == 0x3D || peek(1) == 0x7C { return false }
                i += 1
            } else if Self.isLetter(peek()) || peek() == 0x5F || peek() == 0x2D {
                guard ident() else { return false }
            }
            while true {
                switch peek() {
                case 0x23, 0x2E:  // # .
                    i += 1
                    guard ident() else { return false }
                case 0x5B:  // [
                    guard attribute() else { return false }
                case 0x3A:  // :
                    i += 1
                    guard pseudoClassArgument() else { return false }
                default:
                    return i != start && followsCompound()
                }
            }
        }

        /// What may follow a compound here: the end of a complex selector, whitespace or a
        /// combinator.
        func followsCompound() -> Bool {
            atComplexEnd() || Self.isWhitespace(peek()) || atCombinator()
        }

        /// '[' ident ']' or '[' ident matcher (ident | string) ('i' | 'I')? ']', whitespace
        /// allowed between the parts.
        mutating func attribute() -> Bool {
            i += 1
            whitespace()
            guard ident() else { return false }
            whitespace()
            if peek() == 0x5D {  // ]
                i += 1
                return true
            }
            guard matcher() else { return false }
            whitespace()
            let quote = peek()
            if quote == 0x22 || quote == 0x27 {
                guard string(quote) else { return false }
            } else {
                guard ident() else { return false }
            }
            whitespace()
            if peek() | 0x20 == 0x69 && !Self.isName(peek(1)) {  // the flag i
                i += 1
                whitespace()
            }
            guard peek() == 0x5D else { return false }
            i += 1
            return true
        }

        /// `=` or one of `~= |= ^= $= *=`.
        mutating func matcher() -> Bool {
            let c = peek()
            if c == 0x3D {
                i += 1
                return true
            }
            guard c == 0x7E || c == 0x7C || c == 0x5E || c == 0x24 || c == 0x2A, peek(1) == 0x3D else { return false }
            i += 2
            return true
        }

        /// A string closed by `quote` on printable ASCII, with no backslash and no newline.
        mutating func string(_ quote: UInt8) -> Bool {
            i += 1
            while !atEnd {
                let c = bytes[i]
                i += 1
                if c == quote { return true }
                if c < 0x20 || c >= 0x7F || c == 0x5C { return false }
            }
            return false
        }
    }
}
