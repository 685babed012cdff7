// ShapedHostPattern.swift — URLFilterSyntax
//
// A host pattern in another converter's words, read without a syntax tree. Every converter writes
// ABP's `||domain^` as a prefix L, a domain D and a rest R (Automata/HostShape.swift reads them by
// meaning); only AdGuard's L has a reader of its own text (HostPattern.swift). A list spelled by
// any other converter repeats its L and a few Rs (`([^-_.%a-z0-9].*)?$`, ...) thousands of times,
// so the reader learns them: once a pattern read whole splits (`hostSplit`) into L, D and R, a
// later pattern whose text is that L's text, then D's characters, then an R already met twice
// is read as those parts, with the whole patterns they were learned from as the models of its L and
// R. Its parse would give exactly that: L's text ends on a term that is not a domain character and
// the next byte begins one, so L parses alike in both; D's characters are terms of their own (R
// does not begin with a quantifier: it begins a term); and R parses alike after any D. A pattern
// read so is Ok: D consumes a character.
//
// Tested by URLFilterSyntaxTests/ShapedHostPatternTests (every pattern of every dialect read both
// ways, its parse split at the same places into the same terms).

/// L, D and R of a parsed pattern: D begins at the first domain character (`domainCharacter`)
/// after a term that is not one, and runs while the terms are domain characters; something
/// follows it. Nil when the filter is not anchored at its start, or has no such D, or nothing
/// follows D.
public struct HostSplit: Hashable, Sendable {
    /// L's terms: the filter's first `prefixCount`.
    public let prefixCount: Int
    /// D, lower case.
    public let domain: [UInt8]
    /// Where the terms after D begin.
    public var restStart: Int { prefixCount + domain.count }

    /// `requiringRest` false: a D that runs to the last term splits too (no rest).
    public init?(_ filter: URLFilter, requiringRest: Bool = true) {
        guard filter.hasStartAnchor else { return nil }
        let caseSensitive = filter.isCaseSensitive
        var start: Int?
        var domain: [UInt8] = []
        var previousIsDomain = true
        for (index, term) in filter.terms.enumerated() {
            let byte = Self.domainCharacter(term, caseSensitive: caseSensitive)
            if let start {
                guard let byte else {
                    self.prefixCount = start
                    self.domain = domain
                    return
                }
                domain.append(byte)
            } else if let byte, !previousIsDomain {
                start = index
                domain.append(byte)
            }
            previousIsDomain = byte != nil
        }
        guard let start, !requiringRest else { return nil }
        self.prefixCount = start
        self.domain = domain
    }

    /// What D may hold: host-name characters, letters lower case (a case-insensitive D matches
    /// either case; a case-sensitive one holds lower-case letters only, as a canonical host has).
    public static let domainBytes = ASCIISet(
        Array(UInt8(ascii: "a")...UInt8(ascii: "z")) + Array(UInt8(ascii: "0")...UInt8(ascii: "9"))
            + [UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_")])

    /// The lower-case byte of a term that is one domain character (`domainBytes`), matched as
    /// hosts are (case-insensitive: a letter in both cases; case-sensitive: a lower-case letter
    /// alone); nil for any other term.
    public static func domainCharacter(_ term: URLFilterTerm, caseSensitive: Bool) -> UInt8? {
        if !caseSensitive {
            guard let byte = term.hostCharacter, domainBytes.contains(byte) else { return nil }
            return byte
        }
        guard term.quantifier == .one, case .character(let matches, let unit) = term.atom, domainBytes.contains(unit),
            matches == ASCIISet(unit)
        else { return nil }
        return unit
    }
}

/// A host pattern read as a learned L, D and a learned R (see the file's header).
public struct ShapedHostPattern: Hashable, Sendable {
    /// The pattern as written in the rule.
    public let source: String
    public let isCaseSensitive: Bool
    /// D, lower case.
    public let domain: [UInt8]
    /// A pattern read whole whose L (its first `prefixCount` terms) has this one's text.
    public let prefixModel: URLFilter
    public let prefixCount: Int
    /// A pattern read whole whose R (its terms from `restStart`) has this one's text.
    public let restModel: URLFilter
    public let restStart: Int

    /// L's text: the source's first bytes, as many as the prefix model's L has.
    public var prefixText: Substring {
        let length = prefixModel.terms[prefixCount - 1].span.upperBound
        return source[..<source.utf8.index(source.utf8.startIndex, offsetBy: length)]
    }

    public static func == (lhs: ShapedHostPattern, rhs: ShapedHostPattern) -> Bool {
        lhs.source == rhs.source && lhs.isCaseSensitive == rhs.isCaseSensitive
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
        hasher.combine(isCaseSensitive)
    }
}

/// What a reader has learned of the patterns it read whole: the Ls and Rs of their host splits.
/// One per chunk of patterns (`URLFilterParser.read`), so that chunks read in parallel share
/// nothing.
struct HostShapeLearner {
    /// The most distinct Ls and Rs learned (a list has a few of each; the bound keeps a hostile
    /// list from making the lookups slow).
    static let maximumPrefixes = 8
    static let maximumRests = 256

    private struct Prefix {
        let bytes: [UInt8]
        let isCaseSensitive: Bool
        let model: URLFilter
        let count: Int
        /// AdGuard's L in terms (`HostPattern.prefixTerms`): its Rs that the domain table reads
        /// from a parse (`HostPattern(_:)`: T's first set within `/` and `:`) are not learned.
        let isAdGuards: Bool
    }
    private struct RestKey: Hashable {
        let bytes: [UInt8]
        let isCaseSensitive: Bool
    }
    private var prefixes: [Prefix] = []
    /// Patterns split by their parse to find an L (at most `maximumTries` a chunk).
    private var triedPrefixes = 0
    static let maximumTries = 64
    /// Rs met once (learned when met again: a path's R, met once, is not kept).
    private var restsMet: Set<RestKey> = []
    private var rests: [RestKey: (model: URLFilter, start: Int)] = [:]

    /// `source` read as a learned L, D and a learned R; nil when it is not.
    func read(_ source: String, isCaseSensitive: Bool) -> ShapedHostPattern? {
        guard !prefixes.isEmpty, !rests.isEmpty else { return nil }
        var text = source
        return text.withUTF8 { bytes in
            for prefix in prefixes where prefix.isCaseSensitive == isCaseSensitive && bytes.starts(with: prefix.bytes) {
                let (domain, restAt) = Self.domain(bytes, from: prefix.bytes.count, isCaseSensitive: isCaseSensitive)
                guard !domain.isEmpty, let rest = rests[RestKey(bytes: Array(bytes[restAt...]), isCaseSensitive: isCaseSensitive)]
                else { return nil }
                return ShapedHostPattern(
                    source: source, isCaseSensitive: isCaseSensitive, domain: domain, prefixModel: prefix.model,
                    prefixCount: prefix.count, restModel: rest.model, restStart: rest.start)
            }
            return nil
        }
    }

    /// D's characters from `start`, as the parser's terms for them are domain characters: a
    /// letter (lower-case only when case-sensitive), a digit, `-`, `_`, or `\.`; and where the
    /// first other byte is.
    private static func domain(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, isCaseSensitive: Bool) -> ([UInt8], Int) {
        var domain: [UInt8] = []
        let end = domainEnd(bytes, from: start, isCaseSensitive: isCaseSensitive) { domain.append($0) }
        return (domain, end)
    }

    /// Where D's characters from `start` end, each told to `body` (lower case).
    @inline(__always)
    private static func domainEnd(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, isCaseSensitive: Bool, _ body: (UInt8) -> Void = { _ in }
    ) -> Int {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: ".") {
                body(UInt8(ascii: "."))
                index += 2
                continue
            }
            let lower = byte | 0x20
            let isLetter = lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")
            guard (isLetter && (!isCaseSensitive || byte == lower)) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            else { break }
            body(isLetter ? lower : byte)
            index += 1
        }
        return index
    }

    /// Learns L and R of `filter`, a pattern read whole, when it splits. A pattern that begins with
    /// a learned L is split by its text, as `read` would (its parse confirms the split when its R
    /// is learned); another is split by its parse. After AdGuard's L, an R that the domain table
    /// would read from the parse is not learned: those patterns are read as before.
    mutating func learn(_ filter: URLFilter) {
        guard filter.hasStartAnchor else { return }
        let caseSensitive = filter.isCaseSensitive
        var text = filter.source
        let known: (prefix: Int, restAt: Int)? = text.withUTF8 { bytes in
            for (index, prefix) in prefixes.enumerated() where prefix.isCaseSensitive == caseSensitive && bytes.starts(with: prefix.bytes) {
                return (index, Self.domainEnd(bytes, from: prefix.bytes.count, isCaseSensitive: caseSensitive))
            }
            return nil
        }
        if let known {
            let prefix = prefixes[known.prefix]
            guard known.restAt > prefix.bytes.count else { return }
            learnRest(of: filter, at: known.restAt, prefixCount: prefix.count, afterAdGuards: prefix.isAdGuards)
            return
        }
        // (A list whose anchored patterns are not host patterns tries each once, up to a bound.)
        guard triedPrefixes < Self.maximumTries else { return }
        triedPrefixes += 1
        // (L learned from a pattern with nothing after D too: a list may write most `||` rules so.)
        guard prefixes.count < Self.maximumPrefixes, filter.status == .ok, let split = HostSplit(filter, requiringRest: false) else { return }
        let prefixEnd = filter.terms[split.prefixCount - 1].span.upperBound
        let isAdGuards = split.prefixCount == HostPattern.prefixTerms.count && HostPattern.termsAfterPrefix(filter) != nil
        prefixes.append(Prefix(
            bytes: Array(filter.source.utf8.prefix(prefixEnd)), isCaseSensitive: caseSensitive, model: filter, count: split.prefixCount,
            isAdGuards: isAdGuards))
        if split.restStart < filter.terms.count {
            learnRest(of: filter, at: filter.terms[split.restStart].span.lowerBound, prefixCount: split.prefixCount, afterAdGuards: isAdGuards)
        } else if !filter.hasEndAnchor {
            learnRest(of: filter, at: filter.source.utf8.count, prefixCount: split.prefixCount, afterAdGuards: isAdGuards)
        }
    }

    /// Meets R of `filter` (its text from byte `restAt`, after a learned L of `prefixCount` terms
    /// and D): learned the second time it is met, when the parse splits there too. R may be empty
    /// (nothing after D, as adblock-rust writes `||D^`), but not after AdGuard's L, whose patterns
    /// without R its `||` stage takes from a parse.
    private mutating func learnRest(of filter: URLFilter, at restAt: Int, prefixCount: Int, afterAdGuards: Bool) {
        let utf8 = filter.source.utf8
        let isEmpty = restAt == utf8.count
        guard restAt <= utf8.count, !(isEmpty && afterAdGuards) else { return }
        let key = RestKey(bytes: Array(utf8.dropFirst(restAt)), isCaseSensitive: filter.isCaseSensitive)
        guard rests[key] == nil, rests.count < Self.maximumRests, !restsMet.insert(key).inserted else { return }
        guard filter.status == .ok, let split = HostSplit(filter, requiringRest: !isEmpty), split.prefixCount == prefixCount else { return }
        if isEmpty {
            guard split.restStart == filter.terms.count, !filter.hasEndAnchor else { return }
            rests[key] = (filter, split.restStart)
            return
        }
        guard filter.terms[split.restStart].span.lowerBound == restAt else { return }
        if afterAdGuards {
            let first = filter.terms[split.restStart]
            if first.quantifier == .one, let set = first.characterSet, set.union(HostPattern.terminator) == HostPattern.terminator { return }
        }
        rests[key] = (filter, split.restStart)
    }
}
