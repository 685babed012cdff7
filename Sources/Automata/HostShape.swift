// HostShape.swift — Automata
//
// A url-filter read by what it matches, not by how a converter spelled it: a *host prefix* L,
// then a domain D, then a tail T,
//
//     L  the pattern's terms before D, anchored at the URL's start: any language at all (the
//        scheme part and the subdomain group, in whatever words a converter chose);
//     D  one or more host-name characters (letters in both cases, digits, `.`, `-`, `_`);
//     T  what the bytes from D's end must be (`HostTail`): a set a byte, the first holding no
//        byte D can match (so it ends D), possibly the URL's end, and possibly "the rest of
//        the URL" (`.*$`), read off the automaton of the terms after D, so that
//        `[^a-z0-9_.%-]`, `([/:&?].*)?$` and `[/:]$` are each one meaning whatever their text.
//
// Every converter writes ABP's `||domain^` and `||domain/path` in this form; what differs is L
// (`^[^:]+://+([^:/]+\.)?`, `^[^:]+:(//)?([^/]+\.)?`, `^https?://([a-z0-9-]+\.)*`, ...) and T's
// first set (`[/:]`, `[^a-z0-9_.%-]`, `/`, ...). Those are differences of meaning, kept exactly:
// where L may end in a URL is L's own minimal automaton (`HostStarts`), run over the URL, and
// two spellings of L are the same prefix exactly when their automata are equal. Since T's first
// set holds no character of D, a match of L ending at p makes D, if anywhere, the bytes from p
// to the first byte of that set: one candidate per place L ends, looked up by hashing
// (Search/HostContextTable.swift), whatever L is.
//
// Tested by ContentBlockerTests/HostContextTests (every converter's spelling sorted by meaning;
// equal prefixes found equal, different ones different; tails by meaning; the tables' answers,
// which walk these automata, against the NFA of the patterns on generated URLs).

public import URLFilterSyntax

public struct HostShape: Sendable {
    /// The filter read.
    public let filter: URLFilter
    /// L's terms: the filter's first `prefixCount`.
    public let prefixCount: Int
    /// D, lower case.
    public let domain: [UInt8]

    /// Where the terms after D begin.
    public var restStart: Int { prefixCount + domain.count }

    /// L's text (the filter's up to D), for a caller that keeps what it made of each L.
    public var prefixText: Substring {
        let utf8 = filter.source.utf8
        return filter.source[..<utf8.index(utf8.startIndex, offsetBy: filter.terms[prefixCount - 1].span.upperBound)]
    }

    /// L as a pattern of its own, anchored as the filter is.
    public var prefix: URLFilter {
        URLFilter(
            source: String(prefixText), isCaseSensitive: filter.isCaseSensitive, hasStartAnchor: true, hasEndAnchor: false,
            terms: Array(filter.terms[..<prefixCount]))
    }

    /// The characters a host name's label holds, in either case.
    public static let hostNameCharacters = ASCIISet(
        Array(UInt8(ascii: "a")...UInt8(ascii: "z")) + Array(UInt8(ascii: "A")...UInt8(ascii: "Z"))
            + Array(UInt8(ascii: "0")...UInt8(ascii: "9")) + [UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_")])
    /// What D may hold: host-name characters, letters lower case (a case-insensitive D matches
    /// either case; a case-sensitive one holds lower-case letters only, as a canonical host has).
    public static var domainBytes: ASCIISet { HostSplit.domainBytes }

    /// The bytes a D of a filter with this case sensitivity can match: T's first set must hold
    /// none of them, so that D ends at the first byte of that set.
    public static func matchedByDomains(caseSensitive: Bool) -> ASCIISet { caseSensitive ? domainBytes : hostNameCharacters }

    /// The parts of `filter`, or nil when it is not of the form: not anchored at its start, L
    /// empty, or nothing after D. D begins at the first domain character that follows a term of
    /// L that is not one (`HostSplit`).
    public init?(_ filter: URLFilter) {
        guard let split = HostSplit(filter) else { return nil }
        self.filter = filter
        self.prefixCount = split.prefixCount
        self.domain = split.domain
    }
}

/// What a host pattern asks of the bytes from where D ends, read off the automaton of the terms
/// after D, so that any spelling of one meaning gives one tail: a sequence of
/// sets, a byte each (NUL: the URL's end), then, when `thenRest`, the rest of the URL up to its
/// end (its first NUL) must be ASCII, as `.*$` asks. Nil when the terms ask anything else (a
/// choice of lengths, a loop that is not the whole rest).
public struct HostTail: Hashable, Sendable {
    public let sets: [ASCIISet]
    public let thenRest: Bool

    /// The most sets a tail may have.
    public static let maximumSets = 256

    public init(sets: [ASCIISet], thenRest: Bool) {
        self.sets = sets
        self.thenRest = thenRest
    }

    /// The tail of `rest`: straight from its terms when they are single sets, else from its
    /// minimal automaton.
    public init?(_ rest: URLFilter) {
        if let sets = Self.plainSets(rest.terms[...], hasEndAnchor: rest.hasEndAnchor) {
            self.init(sets: sets, thenRest: false)
            return
        }
        guard let nfaTail = Self.walk(rest) else { return nil }
        self = nfaTail
    }

    /// The sets of terms that are all one character or class each (then NUL for an end anchor).
    static func plainSets(_ terms: ArraySlice<URLFilterTerm>, hasEndAnchor: Bool) -> [ASCIISet]? {
        var sets: [ASCIISet] = []
        for term in terms {
            guard term.quantifier == .one, let set = term.characterSet, !set.isEmpty else { return nil }
            sets.append(set)
        }
        guard !sets.isEmpty else { return nil }
        return hasEndAnchor ? sets + [.nul] : sets
    }

    /// The tail read off `rest`'s minimal automaton: a chain of states each leading to one next
    /// state, ending where it reports (anything may follow), or at a state that reads the rest of
    /// the URL (`isRest`), or at a state whose NUL reports and whose other bytes lead to such a state.
    private static func walk(_ rest: URLFilter) -> HostTail? {
        // (Built as a prefix is, reporting at every end, so that terms which may match nothing,
        // such as `([/:].*)?$`, still make an automaton; the walk stops at the first report.)
        guard let built = try? SubsetConstruction.determinize(NFA(prefix: rest, reportingAs: PatternID(0)), limits: .default) else { return nil }
        let dfa = Minimizer.minimize(built)
        var state = DFA.start
        var sets: [ASCIISet] = []
        while sets.count <= maximumSets {
            if !dfa.accepted(by: state).isEmpty { return sets.isEmpty ? nil : HostTail(sets: sets, thenRest: false) }
            if isRest(dfa, state) { return sets.isEmpty ? nil : HostTail(sets: sets, thenRest: true) }
            let targets = Self.targets(dfa, state)
            if targets.count == 1 {
                sets.append(targets[0].bytes)
                state = targets[0].state
                continue
            }
            // NUL reports; the other bytes lead to the rest: after the URL's end there is no rest.
            guard targets.count == 2, let end = targets.first(where: { $0.bytes == .nul }), !dfa.accepted(by: end.state).isEmpty,
                let other = targets.first(where: { $0.bytes != .nul }), isRest(dfa, other.state)
            else { return nil }
            return HostTail(sets: sets + [other.bytes.union(.nul)], thenRest: true)
        }
        return nil
    }

    /// The live transitions of `state`, grouped by target, in increasing order of target.
    private static func targets(_ dfa: DFA, _ state: DFAStateID) -> [(state: DFAStateID, bytes: ASCIISet)] {
        var byTarget: [DFAStateID: ASCIISet] = [:]
        for byte in 0..<128 {
            let target = dfa.next(state, ByteClassID(dfa.byteClasses.classOfByte[byte]))
            if !target.isDead { byTarget[target, default: .empty].insert(UInt8(byte)) }
        }
        return byTarget.map { ($0.key, $0.value) }.sorted { $0.state.rawValue < $1.state.rawValue }
    }

    /// Whether `state` is `.*$`'s: every byte 1...127 leads back to it and NUL to a state that reports.
    private static func isRest(_ dfa: DFA, _ state: DFAStateID) -> Bool {
        let targets = Self.targets(dfa, state)
        guard targets.count == 2, let end = targets.first(where: { $0.bytes == .nul }), !dfa.accepted(by: end.state).isEmpty,
            let loop = targets.first(where: { $0.bytes != .nul })
        else { return false }
        return loop.state == state && loop.bytes == .anyCharacter
    }
}

/// Where a host prefix L may end in a URL: L's minimal automaton over the bytes 0...127, reporting
/// at every end of a match of L, its states numbered in the order a breadth-first walk from the
/// start meets them (bytes in increasing order), so that two prefixes have equal `HostStarts`
/// exactly when they match the same strings. A byte from 128 on matches nothing: the walk stops.
public struct HostStarts: Hashable, Sendable {
    /// `next[state << 7 | byte]`: the next state, or `dead`.
    public let next: [UInt16]
    /// Per state: whether L has matched up to here (D may begin at this place).
    public let ends: [Bool]

    public static let dead = UInt16.max
    /// The most states a prefix's automaton may have.
    public static let maximumStates = 256

    public var stateCount: Int { ends.count }

    /// The automaton of `prefix`; nil when it has more than `maximumStates` states.
    public init?(_ prefix: URLFilter) {
        var limits = AutomataLimits.default
        limits.maximumDFAStates = 4 * Self.maximumStates
        let nfa = NFA(prefix: prefix, reportingAs: PatternID(0))
        guard let built = try? SubsetConstruction.determinize(nfa, limits: limits) else { return nil }
        let dfa = Minimizer.minimize(built)
        guard dfa.stateCount <= Self.maximumStates else { return nil }
        (next, ends) = Self.numbered(dfa)
    }

    /// An automaton read from a file: valid when every target is a state or `dead`.
    public init?(next: [UInt16], ends: [Bool]) {
        guard !ends.isEmpty, ends.count <= Self.maximumStates, next.count == ends.count << 7,
            next.allSatisfy({ $0 == Self.dead || Int($0) < ends.count })
        else { return nil }
        self.next = next
        self.ends = ends
    }

    /// `dfa`'s states renumbered breadth-first from its start, as dense rows of 128 bytes.
    private static func numbered(_ dfa: DFA) -> (next: [UInt16], ends: [Bool]) {
        var number = [Int: UInt16]()
        var order: [Int] = [0]
        number[0] = 0
        var next: [UInt16] = []
        var index = 0
        while index < order.count {
            let state = order[index]
            for byte in 0..<128 {
                let target = dfa.next(DFAStateID(UInt32(state)), ByteClassID(dfa.byteClasses.classOfByte[byte]))
                guard !target.isDead else {
                    next.append(dead)
                    continue
                }
                let raw = Int(target.rawValue)
                if number[raw] == nil {
                    number[raw] = UInt16(order.count)
                    order.append(raw)
                }
                next.append(number[raw]!)
            }
            index += 1
        }
        return (next, order.map { !dfa.accepted(by: DFAStateID(UInt32($0))).isEmpty })
    }
}
