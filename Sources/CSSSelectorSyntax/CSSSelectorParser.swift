// CSSSelectorParser.swift — CSSSelectorSyntax
//
// A recursive-descent recogniser for <selector-list> (Selectors Level 4, §18 grammar) over the
// tokens of CSSTokenizer (CSS Syntax Level 3), with the accept/reject behaviour WebKit 2.50 shows
// for a selector parsed in an author context with no namespace prefixes declared:
//
//  - <complex-selector-list> with combinators whitespace, `>`, `+`, `~` (no `||`, no `>>`);
//    leading and trailing whitespace allowed, empty items / trailing commas rejected.
//  - <compound-selector>: optional type or universal selector with namespace prefix (`*|`, `|`
//    only: any other prefix is undeclared), then `#id` (id-type hash only), `.class`, attribute
//    selectors (`= ~= |= ^= $= *=`, the `i` flag only), pseudo-classes, pseudo-elements and the
//    nesting selector `&`.
//  - Functional pseudo-classes: `:not()` (non-forgiving), `:is()` `:where()` `:matches()`
//    `:-webkit-any()` (forgiving: they accept any argument), `:has()` (relative selectors, no
//    nested `:has()`), `:host(<compound>)`, `:nth-child(An+B [of S])` and friends (An+B per CSS
//    Syntax §6), `:lang()`, `:dir()`, `:state()`; pseudo-elements `::part()`, `::slotted()`,
//    `::cue()`, `::highlight()`.
//  - No pseudo-elements inside `:not()`, `:has()`, `:nth-*( of S)`, `:host()`, `::slotted()`,
//    `::cue()`; no combinator after a pseudo-element; only the pseudo-classes / pseudo-elements
//    that CSSPseudoSelectors allows may follow a pseudo-element, also inside the arguments of
//    logical pseudo-classes that follow it.
//  - Blocks end at the matching closing token or at the end of input (an unclosed `[a` or
//    `:not(a` is accepted, as WebKit does).
//
// Tested by Tests/CSSSelectorSyntaxTests/WebKitVerdictTests.swift (real-WebKit verdict table) and
// CSSSelectorValidatorTests.swift (diagnostics, robustness).

struct SelectorFailure: Error {
    var offset: Int32
    var message: String
}

struct CSSSelectorParser {
    private let source: String
    private let tokens: [CSSToken]
    private let values: [UInt32]
    private var pos = 0

    // Context of the argument being parsed.
    /// The pseudo-element that precedes the functional pseudo-class whose argument is parsed; its
    /// rules apply to every simple selector of the argument.
    private var inheritedPseudoElement: PseudoElementInfo? = nil
    private var inheritedPseudoElementName = ""
    /// Inside `:has()`: a nested `:has()` is invalid.
    private var insideHas = false
    /// Name of the enclosing pseudo whose argument cannot contain pseudo-elements, if any.
    private var pseudoElementsForbiddenBy: String? = nil
    /// Nesting depth of non-forgiving functional arguments (`:not(:not(...))`).
    private var depth = 0
    /// Deeper nesting is reported instead of parsed, so that the recursion stays far from the
    /// stack limit of any thread (WebKit itself accepts at least 10,000 levels of `:not()` and
    /// crashes at 50,000).
    static let maximumNesting = 200

    init(_ source: String) {
        self.source = source
        let output = CSSTokenizer.tokenize(source)
        tokens = output.tokens
        values = output.values
    }

    // MARK: - Entry point

    /// Parses the whole input as a <selector-list>.
    mutating func parse() throws(SelectorFailure) {
        let end = tokens.count - 1  // the EOF token
        skipWhitespace(end)
        if pos == end {
            throw fail(at: pos, tokens.count == 1 ? "empty selector" : "selector has only whitespace or comments")
        }
        try parseList(end: end, relative: false, what: "selector")
    }

    // MARK: - Helpers

    private func fail(at index: Int, _ message: String) -> SelectorFailure {
        SelectorFailure(offset: tokens[min(index, tokens.count - 1)].start, message: message)
    }

    @inline(__always) private func kind(_ index: Int) -> CSSTokenKind { tokens[index].kind }

    @inline(__always) private func isDelim(_ index: Int, _ c: Unicode.Scalar) -> Bool {
        tokens[index].kind == .delim && tokens[index].delim == c.value
    }

    private mutating func skipWhitespace(_ end: Int) {
        while pos < end && tokens[pos].kind == .whitespace { pos += 1 }
    }

    /// The source text of tokens `from..<to`, for messages: control characters are escaped and
    /// text longer than 24 characters is cut.
    private func text(_ from: Int, _ to: Int) -> String {
        let utf8 = source.utf8
        let a = utf8.index(utf8.startIndex, offsetBy: Int(tokens[from].start))
        let b = utf8.index(utf8.startIndex, offsetBy: Int(tokens[max(from, to - 1)].end))
        var shown = String.UnicodeScalarView()
        for (n, scalar) in String(decoding: utf8[a..<b], as: UTF8.self).unicodeScalars.enumerated() {
            if n == 24 {
                shown.append("…")
                break
            }
            if scalar.value < 0x20 || scalar.value == 0x7F {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                shown.append(contentsOf: "\\u{\(hex)}".unicodeScalars)
            } else {
                shown.append(scalar)
            }
        }
        return String(shown)
    }

    private func describe(_ index: Int) -> String {
        switch kind(index) {
        case .eof: return "end of selector"
        case .whitespace: return "whitespace"
        default: return "'\(text(index, index + 1))'"
        }
    }

    /// ASCII-lowercased decoded value of an ident-like token. Non-ASCII stays as is, so it never
    /// matches a known name (WebKit compares ASCII case-insensitively).
    private func lowercasedValue(_ token: CSSToken) -> String {
        var scalars = String.UnicodeScalarView()
        for v in values[Int(token.valueStart)..<Int(token.valueEnd)] {
            let lowered = (v >= 0x41 && v <= 0x5A) ? v + 0x20 : v
            scalars.append(Unicode.Scalar(lowered) ?? "\u{FFFD}")
        }
        return String(scalars)
    }

    private func valueEquals(_ token: CSSToken, lowercase name: StaticString) -> Bool {
        let count = Int(token.valueEnd - token.valueStart)
        guard count == name.utf8CodeUnitCount else { return false }
        return name.withUTF8Buffer { buffer in
            var k = Int(token.valueStart)
            for byte in buffer {
                let v = values[k]
                let lowered = (v >= 0x41 && v <= 0x5A) ? v + 0x20 : v
                if lowered != UInt32(byte) { return false }
                k += 1
            }
            return true
        }
    }

    // MARK: - Selector lists

    /// <complex-selector-list> or <relative-selector-list> filling `pos..<end`.
    private mutating func parseList(end: Int, relative: Bool, what: String) throws(SelectorFailure) {
        skipWhitespace(end)
        while true {
            if pos == end || kind(pos) == .comma {
                throw fail(at: pos, pos == end && kind(pos) != .comma ? "expected a \(what)" : "empty \(what) in list")
            }
            try parseComplex(end: end, relative: relative)
            if pos == end { return }
            if kind(pos) == .comma {
                pos += 1
                skipWhitespace(end)
                if pos == end { throw fail(at: pos - 1, "trailing comma in \(what) list") }
                continue
            }
            throw fail(at: pos, "unexpected \(describe(pos))")
        }
    }

    private func canStartCompound(_ index: Int) -> Bool {
        switch kind(index) {
        case .ident, .hash, .leftBracket, .colon: return true
        case .delim:
            let c = tokens[index].delim
            return c == 0x2A || c == 0x7C || c == 0x2E || c == 0x26  // * | . &
        default: return false
        }
    }

    private func combinator(_ index: Int) -> Bool {
        guard kind(index) == .delim else { return false }
        let c = tokens[index].delim
        return c == 0x3E || c == 0x2B || c == 0x7E  // > + ~
    }

    /// <complex-selector> (or <relative-selector>) starting at `pos`.
    private mutating func parseComplex(end: Int, relative: Bool) throws(SelectorFailure) {
        if relative && pos < end && combinator(pos) {
            pos += 1
            skipWhitespace(end)
            if pos == end || !canStartCompound(pos) {
                throw fail(at: pos, "expected a selector after '\(text(pos - 1, pos).trimmedWhitespace)' instead of \(describe(pos))")
            }
        }
        guard pos < end, canStartCompound(pos) else {
            throw fail(at: pos, "expected a selector, found \(describe(pos))")
        }
        var pseudoElement = try parseCompound(end: end)
        while pos < end {
            let before = pos
            skipWhitespace(end)
            let sawWhitespace = pos != before
            if pos < end && combinator(pos) {
                let combinatorIndex = pos
                pos += 1
                skipWhitespace(end)
                if pos == end || !canStartCompound(pos) {
                    throw fail(at: pos, "expected a selector after '\(text(combinatorIndex, combinatorIndex + 1))'")
                }
                if let name = pseudoElement {
                    throw fail(at: combinatorIndex, "combinator after pseudo-element '::\(name)'")
                }
            } else if sawWhitespace && pos < end && canStartCompound(pos) {
                if let name = pseudoElement {
                    throw fail(at: pos, "descendant combinator after pseudo-element '::\(name)'")
                }
            } else {
                return
            }
            pseudoElement = try parseCompound(end: end)
        }
    }

    // MARK: - Compound selectors

    /// <compound-selector> at `pos` (the caller checked that one can start here). Returns the name
    /// of the pseudo-element the compound contains, if any.
    private mutating func parseCompound(end: Int) throws(SelectorFailure) -> String? {
        // Constraint from a preceding pseudo-element: inherited into arguments, or set by a
        // pseudo-element of this compound.
        var preceding = inheritedPseudoElement
        var precedingName = inheritedPseudoElementName
        var ownPseudoElement: String? = nil

        if kind(pos) == .ident || isDelim(pos, "*") || isDelim(pos, "|") {
            try parseTypeSelector(end: end)
        }
        while pos < end {
            let start = pos
            switch kind(pos) {
            case .hash:
                if !tokens[pos].isIDHash {
                    throw fail(at: pos, "invalid id selector \(describe(pos)): an id must be an identifier")
                }
                pos += 1
            case .delim where tokens[pos].delim == 0x2E:  // .
                pos += 1
                guard pos < end, kind(pos) == .ident else {
                    throw fail(at: pos, "expected a class name after '.', found \(describe(pos))")
                }
                pos += 1
            case .delim where tokens[pos].delim == 0x26:  // &
                pos += 1
            case .leftBracket:
                try parseAttribute(end: end)
            case .colon:
                if let element = try parsePseudo(end: end, preceding: preceding.map { ($0, precedingName) }) {
                    preceding = element.info
                    precedingName = element.name
                    ownPseudoElement = element.name
                }
                continue
            case .ident:
                throw fail(at: pos, "a type selector must come first in a compound selector")
            case .delim where tokens[pos].delim == 0x2A || tokens[pos].delim == 0x7C:
                throw fail(at: pos, "a type selector must come first in a compound selector")
            default:
                return ownPseudoElement
            }
            if preceding != nil {
                throw fail(at: start, "\(describe(start)) cannot follow pseudo-element '::\(precedingName)'")
            }
        }
        return ownPseudoElement
    }

    /// [ <ns-prefix>? [ <ident> | '*' ] ] where <ns-prefix> = [ <ident> | '*' ]? '|'.
    private mutating func parseTypeSelector(end: Int) throws(SelectorFailure) {
        let first = pos
        if !isDelim(pos, "|") { pos += 1 }
        guard pos < end, isDelim(pos, "|") else { return }
        let bar = pos
        pos += 1
        guard pos < end, kind(pos) == .ident || isDelim(pos, "*") else {
            throw fail(at: pos, "expected a name after '|', found \(describe(pos))")
        }
        pos += 1
        if bar != first && kind(first) == .ident && !valueEquals(tokens[first], lowercase: "*") {
            throw fail(at: first, "undeclared namespace prefix '\(text(first, first + 1))'")
        }
    }

    /// '[' <wq-name> ']' | '[' <wq-name> <attr-matcher> [ <string> | <ident> ] <attr-modifier>? ']'
    private mutating func parseAttribute(end: Int) throws(SelectorFailure) {
        let open = pos
        let close = min(Int(tokens[open].closer), end)
        pos += 1
        skipWhitespace(close)
        // Attribute name, with optional namespace prefix.
        guard pos < close, kind(pos) == .ident || isDelim(pos, "*") || isDelim(pos, "|") else {
            throw fail(at: pos, "expected an attribute name after '[', found \(describe(pos))")
        }
        let first = pos
        if !isDelim(pos, "|") { pos += 1 }
        if pos < close && isDelim(pos, "|") {
            let bar = pos
            pos += 1
            guard pos < close, kind(pos) == .ident || isDelim(pos, "*") else {
                throw fail(at: pos, "expected an attribute name after '|', found \(describe(pos))")
            }
            pos += 1
            if bar != first && kind(first) == .ident && !valueEquals(tokens[first], lowercase: "*") {
                throw fail(at: first, "undeclared namespace prefix '\(text(first, first + 1))'")
            }
        }
        skipWhitespace(close)
        if pos < close {
            switch kind(pos) {
            case .includeMatch, .dashMatch, .prefixMatch, .suffixMatch, .substringMatch: break
            case .delim where tokens[pos].delim == 0x3D: break
            default: throw fail(at: pos, "expected an attribute matcher or ']', found \(describe(pos))")
            }
            pos += 1
            skipWhitespace(close)
            guard pos < close, kind(pos) == .ident || kind(pos) == .string else {
                throw fail(at: pos, "expected an attribute value (identifier or string), found \(describe(pos))")
            }
            pos += 1
            skipWhitespace(close)
            if pos < close && kind(pos) == .ident {
                if !valueEquals(tokens[pos], lowercase: "i") {
                    throw fail(at: pos, "unsupported attribute flag \(describe(pos)) (only 'i' is supported)")
                }
                pos += 1
                skipWhitespace(close)
            }
            if pos < close {
                throw fail(at: pos, "unexpected \(describe(pos)) in attribute selector")
            }
        }
        pos = kind(close) == .eof ? close : close + 1
    }

    // MARK: - Pseudo-classes and pseudo-elements

    /// A pseudo-class or pseudo-element, resolved by name.
    private struct ResolvedPseudo {
        var colon: Int
        var nameIndex: Int
        var isFunction: Bool
        var name: String
        /// How it was written, e.g. `::part` or `:not`, for messages.
        var shown: String
        var element: PseudoElementInfo?
        var pseudoClass: PseudoClassInfo?
    }

    /// Reads `:name`, `::name`, `:name(` or `::name(` at `pos` (a colon), checks the name is known
    /// with that shape and may follow `preceding`. Leaves `pos` after the name token.
    @inline(never)
    private mutating func resolvePseudo(
        end: Int, preceding: (PseudoElementInfo, String)?
    ) throws(SelectorFailure) -> ResolvedPseudo {
        let colon = pos
        pos += 1
        var doubleColon = false
        if pos < end && kind(pos) == .colon {
            doubleColon = true
            pos += 1
        }
        guard pos < end, kind(pos) == .ident || kind(pos) == .function else {
            throw fail(at: pos, "expected a pseudo-\(doubleColon ? "element" : "class") name after '\(doubleColon ? "::" : ":")', found \(describe(pos))")
        }
        let nameIndex = pos
        let isFunction = kind(pos) == .function
        let name = lowercasedValue(tokens[pos])
        let shown = (doubleColon ? "::" : ":") + text(nameIndex, nameIndex + 1).trimmingParen

        var element: PseudoElementInfo? = nil
        var pseudoClass: PseudoClassInfo? = nil
        if doubleColon {
            if isFunction {
                element = CSSPseudoSelectors.functionalPseudoElements[name]
                if element == nil && CSSPseudoSelectors.identPseudoElements[name] != nil {
                    throw fail(at: nameIndex, "pseudo-element '\(shown)' takes no argument")
                }
            } else {
                element = CSSPseudoSelectors.identPseudoElements[name]
                if element == nil && name.hasPrefix("-webkit-") {
                    element = PseudoElementInfo(category: .userAgentPart)
                }
                if element == nil && CSSPseudoSelectors.functionalPseudoElements[name] != nil {
                    throw fail(at: nameIndex, "pseudo-element '\(shown)' needs an argument")
                }
            }
            if element == nil {
                throw fail(at: nameIndex, "unknown pseudo-element '\(shown)'")
            }
        } else {
            if !isFunction && CSSPseudoSelectors.legacySingleColonPseudoElements.contains(name) {
                element = CSSPseudoSelectors.identPseudoElements[name]
            } else if isFunction {
                pseudoClass = CSSPseudoSelectors.functionalPseudoClasses[name]
                if pseudoClass == nil && CSSPseudoSelectors.identPseudoClasses[name] != nil {
                    throw fail(at: nameIndex, "pseudo-class '\(shown)' takes no argument")
                }
            } else {
                pseudoClass = CSSPseudoSelectors.identPseudoClasses[name]
                if pseudoClass == nil && CSSPseudoSelectors.functionalPseudoClasses[name] != nil {
                    throw fail(at: nameIndex, "pseudo-class '\(shown)' needs an argument")
                }
            }
            if element == nil && pseudoClass == nil {
                if CSSPseudoSelectors.identPseudoElements[name] != nil
                    || CSSPseudoSelectors.functionalPseudoElements[name] != nil || name.hasPrefix("-webkit-")
                {
                    throw fail(at: nameIndex, "unknown pseudo-class '\(shown)' (pseudo-elements need '::')")
                }
                throw fail(at: nameIndex, "unknown pseudo-class '\(shown)'")
            }
        }

        // What may follow the preceding pseudo-element.
        if let preceding {
            let category = preceding.0.category
            let allowed =
                element.map { CSSPseudoSelectors.pseudoElement($0, allowedAfter: category) }
                ?? CSSPseudoSelectors.pseudoClass(pseudoClass!, allowedAfter: category)
            if !allowed {
                throw fail(at: colon, "'\(shown)' cannot follow pseudo-element '::\(preceding.1)'")
            }
        }
        if element != nil, let context = pseudoElementsForbiddenBy {
            throw fail(at: colon, "pseudo-element '\(shown)' is not allowed inside \(context)")
        }
        pos += 1
        return ResolvedPseudo(
            colon: colon, nameIndex: nameIndex, isFunction: isFunction, name: name, shown: shown,
            element: element, pseudoClass: pseudoClass)
    }

    /// A pseudo-class or pseudo-element at `pos` (a colon). Returns the pseudo-element parsed, if
    /// it is one.
    private mutating func parsePseudo(
        end: Int, preceding: (PseudoElementInfo, String)?
    ) throws(SelectorFailure) -> (info: PseudoElementInfo, name: String)? {
        let pseudo = try resolvePseudo(end: end, preceding: preceding)
        if pseudo.isFunction {
            // The argument: tokens up to the matching ')' (or the end of input).
            let close = min(Int(tokens[pseudo.nameIndex].closer), end)
            try parseArgument(of: pseudo, end: close, preceding: preceding)
            pos = kind(close) == .eof ? close : close + 1
        }
        return pseudo.element.map { ($0, pseudo.name) }
    }

    /// The argument of a functional pseudo-class or pseudo-element, filling `pos..<end`.
    @inline(never)
    private mutating func parseArgument(
        of pseudo: ResolvedPseudo, end close: Int, preceding: (PseudoElementInfo, String)?
    ) throws(SelectorFailure) {
        if pseudo.pseudoClass?.kind == .forgiving {
            // A forgiving selector list: invalid items are dropped, so any argument is accepted.
            pos = close
            return
        }
        let saved = (inheritedPseudoElement, inheritedPseudoElementName, insideHas, pseudoElementsForbiddenBy, depth)
        defer {
            (inheritedPseudoElement, inheritedPseudoElementName, insideHas, pseudoElementsForbiddenBy, depth) = saved
        }
        depth += 1
        if depth > Self.maximumNesting {
            throw fail(at: pseudo.colon, "selector nested more than \(Self.maximumNesting) levels deep")
        }
        if let preceding {
            inheritedPseudoElement = preceding.0
            inheritedPseudoElementName = preceding.1
        }
        let context = pseudo.shown + "()"
        if let element = pseudo.element {
            switch element.argument {
            case .none: break
            case .cue:
                pseudoElementsForbiddenBy = context
                try parseCompoundList(end: close, context: context)
            case .slotted:
                pseudoElementsForbiddenBy = context
                try parseSingleCompound(end: close, context: context)
            case .part:
                try parseIdents(end: close, context: context, atMostOne: false)
            case .highlight:
                try parseIdents(end: close, context: context, atMostOne: true)
            }
        } else if let pseudoClass = pseudo.pseudoClass {
            switch pseudoClass.kind {
            case .plain, .forgiving: break
            case .not:
                pseudoElementsForbiddenBy = context
                try parseList(end: close, relative: false, what: "selector")
            case .has:
                if insideHas {
                    throw fail(at: pseudo.colon, ":has() cannot be nested inside :has()")
                }
                insideHas = true
                pseudoElementsForbiddenBy = context
                try parseList(end: close, relative: true, what: "relative selector")
            case .host:
                pseudoElementsForbiddenBy = context
                try parseSingleCompound(end: close, context: context)
            case .nthChild, .nthOfType:
                try parseANPlusB(end: close, context: context)
                skipWhitespace(close)
                if pos < close {
                    guard pseudoClass.kind == .nthChild, kind(pos) == .ident, valueEquals(tokens[pos], lowercase: "of")
                    else {
                        throw fail(at: pos, "unexpected \(describe(pos)) in \(context)")
                    }
                    pos += 1
                    pseudoElementsForbiddenBy = context
                    try parseList(end: close, relative: false, what: "selector")
                }
            case .lang:
                try parseLangList(end: close, context: context)
            case .singleIdent:
                try parseIdents(end: close, context: context, atMostOne: true)
            }
        }
    }

    /// A single <compound-selector> filling `pos..<end` (whitespace around it allowed).
    private mutating func parseSingleCompound(end: Int, context: String) throws(SelectorFailure) {
        skipWhitespace(end)
        guard pos < end, canStartCompound(pos) else {
            throw fail(at: pos, "expected a compound selector in \(context), found \(describe(pos))")
        }
        _ = try parseCompound(end: end)
        skipWhitespace(end)
        if pos < end {
            throw fail(at: pos, "\(context) takes a single compound selector; unexpected \(describe(pos))")
        }
    }

    /// <compound-selector-list> filling `pos..<end`.
    private mutating func parseCompoundList(end: Int, context: String) throws(SelectorFailure) {
        skipWhitespace(end)
        while true {
            guard pos < end, canStartCompound(pos) else {
                throw fail(at: pos, "expected a compound selector in \(context), found \(describe(pos))")
            }
            _ = try parseCompound(end: end)
            skipWhitespace(end)
            if pos == end { return }
            guard kind(pos) == .comma else {
                throw fail(at: pos, "\(context) takes compound selectors; unexpected \(describe(pos))")
            }
            pos += 1
            skipWhitespace(end)
        }
    }

    /// One ident (`atMostOne`) or a whitespace-separated list of idents filling `pos..<end`.
    private mutating func parseIdents(end: Int, context: String, atMostOne: Bool) throws(SelectorFailure) {
        skipWhitespace(end)
        var count = 0
        while pos < end {
            guard kind(pos) == .ident, !(atMostOne && count == 1) else {
                throw fail(at: pos, "unexpected \(describe(pos)) in \(context)")
            }
            pos += 1
            count += 1
            skipWhitespace(end)
        }
        if count == 0 { throw fail(at: pos, "\(context) needs an identifier") }
    }

    /// Comma-separated idents or strings filling `pos..<end`.
    private mutating func parseLangList(end: Int, context: String) throws(SelectorFailure) {
        skipWhitespace(end)
        while true {
            guard pos < end, kind(pos) == .ident || kind(pos) == .string else {
                throw fail(at: pos, "expected a language tag (identifier or string) in \(context), found \(describe(pos))")
            }
            pos += 1
            skipWhitespace(end)
            if pos == end { return }
            guard kind(pos) == .comma else {
                throw fail(at: pos, "unexpected \(describe(pos)) in \(context)")
            }
            pos += 1
            skipWhitespace(end)
        }
    }

    // MARK: - An+B (CSS Syntax Level 3, §6)

    private func isInteger(_ index: Int, signed: Bool?) -> Bool {
        let t = tokens[index]
        guard t.kind == .number, t.isInteger else { return false }
        if let signed { return t.hasSign == signed }
        return true
    }

    /// Classifies the "n" part of an ident value or dimension unit (after an optional leading '-'
    /// for idents): 0 = not An+B, 1 = `n`, 2 = `n-`, 3 = `n-<digits>`.
    private func nShape(_ token: CSSToken, allowLeadingDash: Bool) -> Int {
        var k = Int(token.valueStart)
        let e = Int(token.valueEnd)
        if allowLeadingDash && k < e && values[k] == 0x2D { k += 1 }
        guard k < e, values[k] | 0x20 == 0x6E else { return 0 }  // n / N
        k += 1
        if k == e { return 1 }
        guard values[k] == 0x2D else { return 0 }
        k += 1
        if k == e { return 2 }
        while k < e {
            if values[k] &- 0x30 >= 10 { return 0 }
            k += 1
        }
        return 3
    }

    private mutating func parseANPlusB(end: Int, context: String) throws(SelectorFailure) {
        skipWhitespace(end)
        guard pos < end else { throw fail(at: pos, "\(context) needs an An+B argument") }
        let bad = fail(at: pos, "invalid An+B expression in \(context)")
        let t = tokens[pos]
        var shape = 0
        switch t.kind {
        case .ident:
            if valueEquals(t, lowercase: "odd") || valueEquals(t, lowercase: "even") {
                pos += 1
                return
            }
            shape = nShape(t, allowLeadingDash: true)
            pos += 1
        case .number:
            guard t.isInteger else { throw bad }
            pos += 1
            return
        case .dimension:
            guard t.isInteger else { throw bad }
            shape = nShape(t, allowLeadingDash: false)
            pos += 1
        case .delim where t.delim == 0x2B:  // '+' immediately followed by an ident
            pos += 1
            guard pos < end, kind(pos) == .ident else { throw bad }
            shape = nShape(tokens[pos], allowLeadingDash: false)
            pos += 1
        default:
            throw bad
        }
        switch shape {
        case 1:  // An, then optional B
            let save = pos
            skipWhitespace(end)
            if pos < end && (isDelim(pos, "+") || isDelim(pos, "-")) {
                pos += 1
                skipWhitespace(end)
                guard pos < end, isInteger(pos, signed: false) else { throw bad }
                pos += 1
            } else if pos < end && isInteger(pos, signed: true) {
                pos += 1
            } else {
                pos = save
            }
        case 2:  // An- B
            skipWhitespace(end)
            guard pos < end, isInteger(pos, signed: false) else { throw bad }
            pos += 1
        case 3:
            break
        default:
            throw bad
        }
    }
}

extension String {
    fileprivate var trimmingParen: String {
        hasSuffix("(") ? String(dropLast()) : self
    }
    fileprivate var trimmedWhitespace: String {
        String(String.UnicodeScalarView(unicodeScalars.filter { $0 != " " && $0 != "\n" && $0 != "\t" }))
    }
}
