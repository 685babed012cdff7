// TermBuilder: WebKit's url-filter subset on top of the regular-expression grammar.
//
// PatternReader reports every construct in source order; the builder turns the supported ones
// into terms and remembers the first unsupported one. Like WebKit, it keeps one "floating" term
// that a quantifier may still apply to, and sinks it into the enclosing group (or the top level)
// when the next construct starts. `$` is a term that must never be followed by another sunk
// term; `^` is accepted only before any term and outside groups.
// Tested by URLFilterSyntaxTests/URLFilterParserTests.swift.

struct TermBuilder {
    struct Failure: Error {
        var status: URLFilterParseStatus
        var span: SourceSpan
    }

    struct Parts {
        var hasStartAnchor: Bool
        var hasEndAnchor: Bool
        var terms: [URLFilterTerm]
    }

    private enum Floating {
        case term(URLFilterTerm)
        case endOfLine(SourceSpan)
    }

    let isCaseSensitive: Bool
    private(set) var failure: Failure?
    private var floating: Floating?
    private var sunk: [URLFilterTerm] = []
    private var openGroups: [(start: Int, terms: [URLFilterTerm])] = []
    private var openClass: (start: Int, inverted: Bool, members: ASCIISet)?
    private var hasStartAnchor = false
    private var hasEndAnchor = false
    /// A `$` has been sunk: sinking anything after it is an error.
    private var processedEndOfLine = false

    /// `length`: the pattern's bytes, at least its top-level terms: room for them up front, so that
    /// the terms grow in one allocation, not by doubling from one (then `finish` copies them to
    /// their exact size once).
    init(isCaseSensitive: Bool, length: Int = 0) {
        self.isCaseSensitive = isCaseSensitive
        sunk.reserveCapacity(length)
    }

    private var failed: Bool { failure != nil }

    private mutating func fail(_ status: URLFilterParseStatus, _ span: SourceSpan) {
        if failure == nil { failure = Failure(status: status, span: span) }
    }

    private mutating func sinkFloatingTerm() {
        guard let term = floating else { return }
        floating = nil
        if processedEndOfLine {
            let span: SourceSpan
            switch term {
            case .term(let term): span = term.span
            case .endOfLine(let eolSpan): span = eolSpan
            }
            fail(.misplacedEndOfLine, span)
            return
        }
        switch term {
        case .endOfLine:
            processedEndOfLine = true
            // Inside a group a `$` can never end up last: the group itself must still be sunk,
            // which fails above. Only a top-level `$` becomes the end anchor.
            if openGroups.isEmpty { hasEndAnchor = true }
        case .term(let term):
            // A term matching only NUL is WebKit's end-of-URL marker, which `$` also becomes:
            // nothing may follow it either (`\0a`, `a[\0]b` and `\0*a` are MisplacedEndOfLine);
            // nor may anything follow `[^\0]`, which WebKit places by its written member.
            if term.countsAsEndOfLine { processedEndOfLine = true }
            if openGroups.isEmpty {
                sunk.append(term)
            } else {
                openGroups[openGroups.count - 1].terms.append(term)
            }
        }
    }

    private func matches(_ unit: UInt8) -> ASCIISet {
        let set = ASCIISet(unit)
        return isCaseSensitive ? set : set.caseFolded
    }

    // MARK: Events from the reader

    mutating func character(_ value: UInt32, _ span: SourceSpan) {
        guard !failed else { return }
        guard value < 0x80 else { return fail(.nonASCII, span) }
        sinkFloatingTerm()
        let unit = UInt8(value)
        floating = .term(URLFilterTerm(atom: .character(matches: matches(unit), unit: unit), span: span))
    }

    mutating func character(_ unit: UInt8, _ span: SourceSpan) {
        character(UInt32(unit), span)
    }

    mutating func anyCharacter(_ span: SourceSpan) {
        guard !failed else { return }
        sinkFloatingTerm()
        floating = .term(URLFilterTerm(atom: .anyCharacter, span: span))
    }

    mutating func builtInClass(_ span: SourceSpan) {
        guard !failed else { return }
        sinkFloatingTerm()
        fail(.unsupportedCharacterClass, span)
    }

    mutating func quantify(min: UInt64, max: UInt64, _ span: SourceSpan) {
        guard !failed, case .term(var term) = floating else { return }
        switch (min, max) {
        case (0, 1): term.quantifier = .zeroOrOne
        case (0, PatternReaderLimits.unbounded): term.quantifier = .zeroOrMore
        case (1, PatternReaderLimits.unbounded): term.quantifier = .oneOrMore
        default: return fail(.invalidQuantifier, span)
        }
        term.span = SourceSpan(term.span.lowerBound, span.upperBound)
        floating = .term(term)
    }

    mutating func backReference(_ span: SourceSpan) {
        fail(.backReference, span)
    }

    mutating func startOfLine(_ span: SourceSpan) {
        guard !failed else { return }
        if floating != nil || !sunk.isEmpty || !openGroups.isEmpty {
            return fail(.misplacedStartOfLine, span)
        }
        hasStartAnchor = true
    }

    mutating func endOfLine(_ span: SourceSpan) {
        guard !failed else { return }
        sinkFloatingTerm()
        floating = .endOfLine(span)
    }

    mutating func wordBoundary(_ span: SourceSpan) {
        fail(.wordBoundary, span)
    }

    mutating func disjunction(_ span: SourceSpan) {
        fail(.disjunction, span)
    }

    mutating func lookaround(_ span: SourceSpan) {
        fail(.group, span)
    }

    mutating func groupBegin(at start: Int) {
        guard !failed else { return }
        sinkFloatingTerm()
        openGroups.append((start, []))
    }

    mutating func groupEnd(_ span: SourceSpan) {
        guard !failed else { return }
        sinkFloatingTerm()
        guard let group = openGroups.popLast() else { return }
        floating = .term(URLFilterTerm(atom: .group(URLFilterGroup(group.terms)), span: SourceSpan(group.start, span.upperBound)))
    }

    mutating func classBegin(inverted: Bool, at start: Int) {
        guard !failed else { return }
        sinkFloatingTerm()
        openClass = (start, inverted, ASCIISet())
    }

    mutating func classCharacter(_ value: UInt32, _ span: SourceSpan) {
        guard !failed, openClass != nil else { return }
        guard value < 0x80 else { return fail(.nonASCII, span) }
        openClass!.members = openClass!.members.union(matches(UInt8(value)))
    }

    mutating func classRange(_ low: UInt32, _ high: UInt32, _ span: SourceSpan) {
        guard !failed, openClass != nil else { return }
        guard high < 0x80 else { return fail(.nonASCII, span) }
        for unit in low...high { classCharacter(unit, span) }
    }

    mutating func classBuiltIn(_ span: SourceSpan) {
        fail(.atomCharacter, span)
    }

    mutating func classEnd(_ span: SourceSpan) {
        guard !failed, let open = openClass else { return }
        openClass = nil
        let members = open.inverted ? open.members.complementWithinAnyCharacter : open.members
        let form: URLFilterTerm.ClassForm = !open.inverted ? .plain : open.members == .nul ? .invertedNUL : .inverted
        floating = .term(URLFilterTerm(atom: .characterClass(matches: members, form: form), span: span))
    }

    /// The terms, or the first unsupported construct.
    mutating func finish() -> Result<Parts, Failure> {
        if let failure { return .failure(failure) }
        sinkFloatingTerm()
        if let failure { return .failure(failure) }
        return .success(Parts(hasStartAnchor: hasStartAnchor, hasEndAnchor: hasEndAnchor, terms: sunk.exactlySized))
    }
}

extension Array {
    /// A copy without the room appending left: a compiler keeps a list's parsed patterns until
    /// their automata are built, and the slack of growth by doubling would be a quarter of them.
    var exactlySized: [Element] {
        capacity == count ? self : withUnsafeBufferPointer { Array($0) }
    }
}

enum PatternReaderLimits {
    /// YARR's "infinite" repeat count: `*`, `+`, `{n,}`, and any bound of 2^32-1 or more.
    static let unbounded = UInt64(UInt32.max)
}
