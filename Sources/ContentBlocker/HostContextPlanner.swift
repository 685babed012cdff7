// HostContextPlanner.swift — ContentBlocker
//
// Sorts a pool's host patterns (Automata/HostShape.swift: a prefix L, a domain D, a tail T) by
// what their prefix means. A pattern whose L matches exactly what the domain table's own prefix
// `^[^:]+:\/\/+([^:/]+\.)?` matches (its minimal automaton is that prefix's), and whose T begins
// with `/` or `:` only, is the domain table's (Search/DomainTable.swift), however it is spelled.
// The others are grouped by L's automaton, a context each (Search/HostContextTable.swift), with
// the patterns of any L but AdGuard's that have nothing after D or whose terms after D do not begin
// with a set ending it (its *open* domains, Search/OpenDomains.swift); a
// context with fewer than `minimumPatterns` patterns (`AutomataLimits.minimumPatternsPerHostContext`)
// would cost every URL a lookup for little,
// and its patterns go back to the automata, as do the domain-table prefix's patterns whose T
// begins otherwise. L's automaton is built once per distinct text of L.
//
// Tested by ContentBlockerTests (HostContextTests: every converter's spelling sorted as its
// meaning says) and by the oracle on the corpora's dialects.

internal import Automata
internal import Search
internal import URLFilterSyntax

struct HostContextPlanner {
    /// The fewest patterns a context takes: below it they stay with the automata.
    let minimumPatterns: Int

    init(minimumPatterns: Int = AutomataLimits.default.minimumPatternsPerHostContext) {
        self.minimumPatterns = max(1, minimumPatterns)
    }

    /// The other shapes, by their prefix's automaton and case sensitivity.
    private var contexts: [ContextKey: Context] = [:]
    /// The distinct automata of the prefixes met, and each text's (per case sensitivity) place
    /// among them (nil: too large to be a context), so that a pattern's prefix is found by its
    /// text and its automaton compared with the others once per text.
    private var distinctStarts: [HostStarts] = []
    /// The place of the domain table's prefix's automaton in `distinctStarts`, once met (compared
    /// once per automaton, not per pattern).
    private var canonicalStarts: Int?
    private var startsOfText = TextMemo<Int?>()
    /// T by the text of the terms after D, per case sensitivity, for those not plain sets (nil:
    /// no tail).
    private var tailOfText = TextMemo<HostTail?>()

    /// A value per text and case sensitivity. The last text looked up is kept apart: a list's
    /// patterns come in runs of one converter's L and R, so most are answered by a comparison
    /// instead of a hash of the text.
    private struct TextMemo<Value> {
        private var byText: [Bool: [Substring: Value]] = [:]
        private var last: (text: Substring, isCaseSensitive: Bool, value: Value)?

        /// The value kept for `text`; nil when there is none.
        mutating func value(of text: Substring, isCaseSensitive: Bool) -> Value? {
            if let last, last.text == text, last.isCaseSensitive == isCaseSensitive { return last.value }
            guard let value = byText[isCaseSensitive]?[text] else { return nil }
            last = (text, isCaseSensitive, value)
            return value
        }

        mutating func keep(_ value: Value, for text: Substring, isCaseSensitive: Bool) {
            byText[isCaseSensitive, default: [:]][text] = value
            last = (text, isCaseSensitive, value)
        }
    }

    private struct ContextKey: Hashable {
        /// The prefix's automaton's place in `distinctStarts`.
        let starts: Int
        let isCaseSensitive: Bool
    }
    private static let canonical = HostStarts(try! URLFilterParser.parse(#"^[^:]+:\/\/+([^:/]+\.)?"#).get())!

    private struct Context {
        var prefix: String
        var patterns: [(pattern: UInt32, domain: [UInt8], tail: HostTail)] = []
        /// Patterns with nothing after D (its open domains).
        var open: [(pattern: UInt32, domain: [UInt8])] = []
        /// Patterns gated by D (`gate`): D, the set that must follow it (nil: an open domain's gate,
        /// anything may), and the pattern.
        var gated: [(pattern: UInt32, domain: [UInt8], first: ASCIISet?, filter: AcceptedPattern)] = []
        /// All its patterns, gated or not.
        var count: Int { patterns.count + open.count + gated.count }
        /// Its first pattern's id.
        var firstPattern: UInt32 { min(patterns.first?.pattern ?? .max, open.first?.pattern ?? .max, gated.first?.pattern ?? .max) }
        /// The patterns and the open ones taken while they are too few for a table (then they go
        /// back to the automata); dropped once they are enough.
        var filters: [(id: PatternID, filter: URLFilter)] = []
        var openFilters: [(id: PatternID, filter: URLFilter)] = []

        mutating func append(_ pattern: UInt32, _ filter: AcceptedPattern, _ domain: [UInt8], _ tail: HostTail, minimum: Int) {
            patterns.append((pattern, domain, tail))
            Self.keep(pattern, filter, &filters, while: patterns.count < minimum)
        }

        mutating func appendOpen(_ pattern: UInt32, _ filter: AcceptedPattern, _ domain: [UInt8], minimum: Int) {
            open.append((pattern, domain))
            Self.keep(pattern, filter, &openFilters, while: open.count < minimum)
        }

        private static func keep(
            _ pattern: UInt32, _ filter: AcceptedPattern, _ filters: inout [(id: PatternID, filter: URLFilter)], while fewer: Bool
        ) {
            if fewer {
                filters.append((PatternID(pattern), filter.filter))
            } else if !filters.isEmpty {
                filters = []
            }
        }

        /// Gives back the open domains and their gates when they are fewer than `minimum` (a
        /// context's lookup then reads forwards for little): the patterns for the automata.
        mutating func droppingFewOpen(minimum: Int) -> [(id: PatternID, filter: URLFilter)] {
            let openGated = gated.filter { $0.first == nil }
            guard open.count < minimum, !(open.isEmpty && openGated.isEmpty) else { return [] }
            let back = openFilters + openGated.map { (PatternID($0.pattern), $0.filter.filter) }
            open = []
            openFilters = []
            gated.removeAll { $0.first == nil }
            return back
        }
    }

    /// What became of a pattern.
    enum Taken {
        /// The domain table's, with D and T encoded (empty for `[/:]`).
        case domainTable(domain: [UInt8], tail: [UInt8])
        /// A context's (a table, or the automata if the context stays small: `finish`).
        case context
        /// Not a host pattern.
        case none
    }

    /// Takes `filter` (pattern `id`) when it is a host pattern (with or without terms after D).
    mutating func take(_ id: UInt32, _ filter: URLFilter) -> Taken {
        guard let split = HostSplit(filter, requiringRest: false) else { return .none }
        let utf8 = filter.source.utf8
        let prefixText = filter.source[..<utf8.index(utf8.startIndex, offsetBy: filter.terms[split.prefixCount - 1].span.upperBound)]
        let parts = Parts(
            domain: split.domain, prefixText: prefixText, prefixModel: filter, prefixCount: split.prefixCount, restModel: filter,
            restStart: split.restStart, isCaseSensitive: filter.isCaseSensitive)
        return take(id, parts, .filter(filter))
    }

    /// Takes a host pattern read as a learned prefix, D and a learned rest (pattern `id`), as
    /// `take(_:_:)` takes its parse: its L and R are the models', the same text.
    mutating func take(_ id: UInt32, _ shaped: ShapedHostPattern) -> Taken {
        let parts = Parts(
            domain: shaped.domain, prefixText: shaped.prefixText, prefixModel: shaped.prefixModel, prefixCount: shaped.prefixCount,
            restModel: shaped.restModel, restStart: shaped.restStart, isCaseSensitive: shaped.isCaseSensitive)
        return take(id, parts, .shaped(shaped))
    }

    /// A host pattern's parts: D, and its L and R as the terms of patterns with the same text.
    private struct Parts {
        let domain: [UInt8]
        let prefixText: Substring
        let prefixModel: URLFilter
        let prefixCount: Int
        let restModel: URLFilter
        let restStart: Int
        let isCaseSensitive: Bool
    }

    private mutating func take(_ id: UInt32, _ parts: Parts, _ pattern: AcceptedPattern) -> Taken {
        if parts.restStart == parts.restModel.terms.count {
            // (AdGuard's L with nothing after D in terms is its `||` stage's, as before.)
            if Self.isAdGuardsPrefix(parts) { return .none }
            if !parts.restModel.hasEndAnchor { return takeOpen(id, parts, pattern) }
        }
        guard let tail = tail(of: parts.restModel, from: parts.restStart),
            tail.sets[0].isDisjoint(with: HostShape.matchedByDomains(caseSensitive: parts.isCaseSensitive))
        else { return gate(id, parts, pattern) }
        guard let starts = starts(of: parts) else { return .none }
        if starts == canonicalStarts, !parts.isCaseSensitive, !tail.thenRest,
            tail.sets[0].union(HostPattern.terminator) == HostPattern.terminator
        {
            return .domainTable(domain: parts.domain, tail: tail.sets == [HostPattern.terminator] ? [] : DomainTable.encode(tail.sets))
        }
        let key = ContextKey(starts: starts, isCaseSensitive: parts.isCaseSensitive)
        contexts[key, default: Context(prefix: String(parts.prefixText))].append(id, pattern, parts.domain, tail, minimum: minimumPatterns)
        return .context
    }

    /// A host pattern with nothing after D, taken as an open domain of its context: D found where L
    /// ends, whatever follows. AdGuard's L's are left to its `||` stage, as before.
    private mutating func takeOpen(_ id: UInt32, _ parts: Parts, _ pattern: AcceptedPattern) -> Taken {
        guard let starts = starts(of: parts), starts != canonicalStarts || parts.isCaseSensitive else { return .none }
        let key = ContextKey(starts: starts, isCaseSensitive: parts.isCaseSensitive)
        contexts[key, default: Context(prefix: String(parts.prefixText))].appendOpen(id, pattern, parts.domain, minimum: minimumPatterns)
        return .context
    }

    /// A host pattern whose terms after D make no tail ending D (a loop with terms after it:
    /// `||D^*/ads/`; or a first term that is no set ending D: `||D*/ads/`), taken as its context's
    /// gated pattern: the context's entry of D reports a gate, whose group runs the pattern whole
    /// (`settle`). Every URL it matches has D at a place where L ends, followed by a byte of that
    /// first set when there is one: the context's candidate there is D (or D is an open domain
    /// there), so the gate is found. AdGuard's L's patterns whose first set is within `/` and `:`
    /// are left to the domain table's gates (Automata/GatePlanner.swift), and its open ones to its
    /// `||` stage, as before.
    private mutating func gate(_ id: UInt32, _ parts: Parts, _ pattern: AcceptedPattern) -> Taken {
        let first = parts.restModel.terms[parts.restStart]
        var set: ASCIISet?
        if first.quantifier == .one, let firstSet = first.characterSet, !firstSet.isEmpty,
            firstSet.isDisjoint(with: HostShape.matchedByDomains(caseSensitive: parts.isCaseSensitive))
        {
            set = firstSet
        }
        if set == nil && Self.isAdGuardsPrefix(parts) { return .none }
        // (L's automaton is made in `settle`, and only for a text with enough patterns to be a
        // context: most of a small list's such patterns go back to the automata without it.)
        pendingGated[PrefixKey(text: parts.prefixText, isCaseSensitive: parts.isCaseSensitive), default: []].append((id, parts, set, pattern))
        return .context
    }

    /// Gated patterns by the text of their L, until `settle`.
    private var pendingGated: [PrefixKey: [(pattern: UInt32, parts: Parts, first: ASCIISet?, filter: AcceptedPattern)]] = [:]
    private struct PrefixKey: Hashable {
        let text: Substring
        let isCaseSensitive: Bool
    }

    /// The gated patterns of each L's text joined to their context, or back to the automata: a text
    /// whose patterns and every context's could not make a context, and AdGuard's L's patterns whose
    /// first set is within `/` and `:` (the domain table's gates take those).
    private mutating func placePendingGated() -> [(id: PatternID, filter: URLFilter)] {
        var automata: [(id: PatternID, filter: URLFilter)] = []
        let plain = contexts.values.reduce(0) { $0 + $1.patterns.count + $1.open.count }
        for (key, gated) in pendingGated.sorted(by: { $0.value[0].pattern < $1.value[0].pattern }) {
            guard gated.count + plain >= minimumPatterns, let starts = starts(of: gated[0].parts) else {
                automata += gated.map { (PatternID($0.pattern), $0.filter.filter) }
                continue
            }
            let canonical = starts == canonicalStarts && !key.isCaseSensitive
            for pattern in gated {
                if canonical && (pattern.first.map { $0.union(HostPattern.terminator) == HostPattern.terminator } ?? true) {
                    automata.append((PatternID(pattern.pattern), pattern.filter.filter))
                    continue
                }
                contexts[ContextKey(starts: starts, isCaseSensitive: key.isCaseSensitive), default: Context(prefix: String(key.text))]
                    .gated.append((pattern.pattern, pattern.parts.domain, pattern.first, pattern.filter))
            }
        }
        pendingGated = [:]
        return automata
    }

    /// The contexts' tables, and the patterns of contexts too small to be one (their gated
    /// patterns included); the gated patterns have no gates (a caller that runs no gated groups).
    func finish() -> (tables: [HostContextTable], automata: [(id: PatternID, filter: URLFilter)]) {
        var planner = self
        let (automata, groups) = planner.settle()
        return (planner.tables(firstGate: nil), automata + groups.flatMap(\.patterns).sorted { $0.id < $1.id })
    }

    /// Settles which contexts make tables: returns the patterns of those too small to be one
    /// (back to the automata), and the groups the tables' gates gate, one per context and D, in
    /// the order of their first pattern: each the gated patterns of D, whole, from the URL's start.
    mutating func settle() -> (automata: [(id: PatternID, filter: URLFilter)], groups: [GatedGroup]) {
        var automata = placePendingGated()
        var groups: [GatedGroup] = []
        settled = []
        for (key, taken) in contexts.sorted(by: { $0.value.firstPattern < $1.value.firstPattern }) {
            var context = taken
            automata += context.droppingFewOpen(minimum: minimumPatterns)
            guard context.count >= minimumPatterns else {
                automata += context.filters + context.openFilters
                automata += context.gated.map { (PatternID($0.pattern), $0.filter.filter) }
                continue
            }
            // (A D's closed and open gates are apart: one asks for a byte of its set after D.)
            var groupOfDomain: [GateKey: Int] = [:]
            var gates: [(domain: [UInt8], group: Int, isOpen: Bool)] = []
            for gated in context.gated {
                let member = (id: PatternID(gated.pattern), filter: gated.filter.filter)
                let gateKey = GateKey(domain: gated.domain, isOpen: gated.first == nil)
                if let group = groupOfDomain[gateKey] {
                    groups[group].patterns.append(member)
                } else {
                    groupOfDomain[gateKey] = groups.count
                    gates.append((gated.domain, groups.count, gateKey.isOpen))
                    groups.append(GatedGroup(gate: member.filter, patterns: [member], callerGate: true))
                }
            }
            settled.append((key, context, gates))
        }
        return (automata.sorted { $0.id < $1.id }, groups)
    }

    private struct GateKey: Hashable {
        let domain: [UInt8]
        let isOpen: Bool
    }

    /// The contexts `settle` kept, with their gates: D, its group, and whether D is open.
    private var settled: [(key: ContextKey, context: Context, gates: [(domain: [UInt8], group: Int, isOpen: Bool)])] = []

    /// The tables of the contexts `settle` kept; group g's gate is pattern `firstGate + g` (nil: the
    /// gates left out).
    func tables(firstGate: Int?) -> [HostContextTable] {
        settled.map { key, context, gates in
            let splitting = context.patterns.reduce(ASCIISet.empty) { $0.union($1.tail.sets[0]) }
                .union(context.gated.reduce(ASCIISet.empty) { $0.union($1.first ?? .empty) })
            var entries = context.patterns.map { ($0.pattern, $0.domain, Self.encode($0.tail, splitting: splitting)) }
            var open = context.open.map { ($0.pattern, $0.domain, [UInt8]()) }
            if let firstGate {
                entries += gates.filter { !$0.isOpen }.map { (UInt32(firstGate + $0.group), $0.domain, [UInt8]()) }
                open += gates.filter(\.isOpen).map { (UInt32(firstGate + $0.group), $0.domain, [UInt8]()) }
            }
            return HostContextTable(
                prefix: context.prefix, starts: distinctStarts[key.starts], splitting: splitting, isCaseSensitive: key.isCaseSensitive,
                table: DomainTable(entries, indexing: false), open: DomainTable(open.sorted { $0.0 < $1.0 }, indexing: false))
        }
    }

    /// T's encoding in a context's table: its sets (the first, when it is the splitting set S,
    /// as S's code, and T of S alone as nothing: the lookup's split found it), then the rest's code.
    private static func encode(_ tail: HostTail, splitting: ASCIISet) -> [UInt8] {
        guard tail.sets[0] == splitting else { return DomainTable.encode(tail.sets) + (tail.thenRest ? [DomainTable.restCode] : []) }
        if tail.sets.count == 1 && !tail.thenRest { return [] }
        return [DomainTable.splitCode] + DomainTable.encode(Array(tail.sets.dropFirst())) + (tail.thenRest ? [DomainTable.restCode] : [])
    }

    /// T of `filter`'s terms from `restStart` (those after D): the sets of those that are single
    /// sets, then what the rest of them asks, read off its automaton once per text (a path's sets
    /// are the pattern's own; what follows them, such as `([^-_.%a-z0-9].*)?$`, is a converter's,
    /// shared by many patterns).
    private mutating func tail(of filter: URLFilter, from restStart: Int) -> HostTail? {
        let terms = filter.terms
        var sets: [ASCIISet] = []
        var at = restStart
        while at < terms.count, terms[at].quantifier == .one, let set = terms[at].characterSet, !set.isEmpty {
            sets.append(set)
            at += 1
        }
        guard at < terms.count else {
            // (D then the URL's end: T is NUL alone.)
            guard !sets.isEmpty || filter.hasEndAnchor else { return nil }
            return HostTail(sets: filter.hasEndAnchor ? sets + [.nul] : sets, thenRest: false)
        }
        guard let rest = restTail(of: filter, from: at) else { return nil }
        // (Most converters' Rs begin with no single set: their tail is the shared one, not a copy.)
        return sets.isEmpty ? rest : HostTail(sets: sets + rest.sets, thenRest: rest.thenRest)
    }

    /// The tail of `filter`'s terms from `first` on, once per text. (A loop with terms after it
    /// makes no tail: declined before any automaton is built, as most `||D^*/path` patterns are.)
    private mutating func restTail(of filter: URLFilter, from first: Int) -> HostTail? {
        let terms = filter.terms
        if let loop = terms[first...].firstIndex(where: { $0.quantifier.allowsMany }), loop < terms.count - 1 { return nil }
        let utf8 = filter.source.utf8
        let text = filter.source[utf8.index(utf8.startIndex, offsetBy: filter.terms[first].span.lowerBound)...]
        if let known = tailOfText.value(of: text, isCaseSensitive: filter.isCaseSensitive) { return known }
        let tail = HostTail(filter.anchored(from: first))
        tailOfText.keep(tail, for: text, isCaseSensitive: filter.isCaseSensitive)
        return tail
    }

    /// Whether L is AdGuard's own prefix in terms, letters folded: its open domains and their gates
    /// are its `||` stage's, known without making L's automaton (a list of AdGuard's spelling
    /// then makes none for them).
    private static func isAdGuardsPrefix(_ parts: Parts) -> Bool {
        let prefix = HostPattern.prefixTerms
        return !parts.isCaseSensitive && parts.prefixCount == prefix.count
            && zip(parts.prefixModel.terms, prefix).allSatisfy { $0.hasSameShape(as: $1) }
    }

    /// The place of L's automaton in `distinctStarts`, made once per text.
    private mutating func starts(of parts: Parts) -> Int? {
        let (text, caseSensitive) = (parts.prefixText, parts.isCaseSensitive)
        if let known = startsOfText.value(of: text, isCaseSensitive: caseSensitive) { return known }
        let place = newStarts(of: parts)
        startsOfText.keep(place, for: text, isCaseSensitive: caseSensitive)
        return place
    }

    /// L's automaton made, and its place among the distinct ones (nil: too large to be a context).
    private mutating func newStarts(of parts: Parts) -> Int? {
        let prefix = URLFilter(
            source: String(parts.prefixText), isCaseSensitive: parts.isCaseSensitive, hasStartAnchor: true, hasEndAnchor: false,
            terms: Array(parts.prefixModel.terms[..<parts.prefixCount]))
        guard let starts = HostStarts(prefix) else { return nil }
        if let place = distinctStarts.firstIndex(of: starts) { return place }
        if starts == Self.canonical { canonicalStarts = distinctStarts.count }
        distinctStarts.append(starts)
        return distinctStarts.count - 1
    }
}
