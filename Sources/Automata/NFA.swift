// NFA.swift — Automata
//
// A nondeterministic automaton over the bytes 0...127 for many url-filters at once. The input it
// reads is the URL's bytes followed by one NUL, WebKit's end-of-URL marker: `$` and any term that
// matches only NUL are transitions on byte 0, and `.` and `[^...]` never match it.
//
// Matching is "does some match exist": a pattern is reported as soon as one of its matches ends,
// so an accept state has no transitions out and trailing terms that may match nothing are
// dropped (`ab*` is reported at the `a`; with `$` they are kept: `ab*$`).
//
// Patterns share their common prefixes, term by term (quantified terms and groups included): the
// terms form a prefix tree from two roots, one for the patterns anchored with `^` (alive at the
// first byte only) and one for the others, which loops on every byte so that they can start
// anywhere. A list's many `^[^:]+://+([^:/]+\.)?` patterns thus begin with one shared
// sub-automaton, and the subset construction's state sets stay small.
// Tested by AutomataTests/StagePropertyTests.swift (the simulated NFA against PCRE2) and
// AutomataTests/AutomataTests.swift (golden dumps, deep nesting).

public import URLFilterSyntax

public struct NFA: Sendable {
    /// Character transitions, grouped by source state: those of state `s` are
    /// `edgeSets[edgeStart[s] ..< edgeStart[s + 1]]` with targets `edgeTargets[...]`.
    public let edgeStart: [UInt32]
    public let edgeSets: [ASCIISet]
    public let edgeTargets: [UInt32]
    /// Epsilon transitions, grouped the same way.
    public let epsilonStart: [UInt32]
    public let epsilonTargets: [UInt32]
    /// For each state, the pattern it accepts, or `UInt32.max`.
    public let acceptedPattern: [UInt32]
    /// The state that holds the `^`-anchored patterns' roots (alive before the first byte only).
    public let anchoredRoot: NFAStateID
    /// The state that loops on every byte and holds the unanchored patterns' roots.
    public let unanchoredRoot: NFAStateID
    /// The patterns this automaton reports.
    public let patterns: [PatternID]

    public var stateCount: Int { acceptedPattern.count }
    public var edgeCount: Int { edgeTargets.count + epsilonTargets.count }

    public func accepted(_ state: NFAStateID) -> PatternID? {
        let raw = acceptedPattern[Int(state.rawValue)]
        return raw == UInt32.max ? nil : PatternID(raw)
    }

    /// Builds the automaton of `patterns`. Patterns that match everything have no automaton (the
    /// caller applies them to every URL) and are skipped.
    public init(patterns: [(id: PatternID, filter: URLFilter)]) {
        var builder = NFABuilder()
        // The prefix tree's table sized once (growing it would rehash every key at each doubling).
        builder.reserve(patterns.reduce(0) { $0 + $1.filter.terms.count })
        var ids: [PatternID] = []
        for (id, filter) in patterns where !filter.matchesEverything {
            builder.add(filter, as: id)
            ids.append(id)
        }
        self = builder.finish(patterns: ids)
    }

    /// The automaton of a stage's shared prefix (StagePlanner.swift): it reports `id` at the end
    /// of every match of `prefix`, not only the first, because each end is a place where the
    /// stage's suffixes start. Trailing terms that may match nothing are kept for the same reason.
    public init(prefix: URLFilter, reportingAs id: PatternID) {
        var builder = NFABuilder()
        builder.add(prefix, as: id, reportingEveryEnd: true)
        self = builder.finish(patterns: [id])
    }

    fileprivate init(
        edgeStart: [UInt32], edgeSets: [ASCIISet], edgeTargets: [UInt32], epsilonStart: [UInt32],
        epsilonTargets: [UInt32], acceptedPattern: [UInt32], patterns: [PatternID]
    ) {
        self.edgeStart = edgeStart
        self.edgeSets = edgeSets
        self.edgeTargets = edgeTargets
        self.epsilonStart = epsilonStart
        self.epsilonTargets = epsilonTargets
        self.acceptedPattern = acceptedPattern
        self.anchoredRoot = NFABuilder.anchoredRoot
        self.unanchoredRoot = NFABuilder.unanchoredRoot
        self.patterns = patterns
    }

    /// Numbered states with their transitions, one per line.
    public func dump() -> String {
        var lines = ["nfa: \(stateCount) states, \(edgeTargets.count) transitions, \(epsilonTargets.count) epsilons, \(patterns.count) patterns"]
        for state in 0..<stateCount {
            var parts: [String] = []
            if state == Int(anchoredRoot.rawValue) { parts.append("(anchored root)") }
            if state == Int(unanchoredRoot.rawValue) { parts.append("(unanchored root)") }
            if let pattern = accepted(NFAStateID(UInt32(state))) { parts.append("accept \(pattern)") }
            for edge in Int(edgeStart[state])..<Int(edgeStart[state + 1]) {
                parts.append("\(edgeSets[edge]) -> n\(edgeTargets[edge])")
            }
            for edge in Int(epsilonStart[state])..<Int(epsilonStart[state + 1]) {
                parts.append("ε -> n\(epsilonTargets[edge])")
            }
            lines.append("n\(state): " + parts.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Collects states and transitions, then freezes them into the grouped arrays of `NFA`.
struct NFABuilder {
    static let anchoredRoot = NFAStateID(0)
    static let unanchoredRoot = NFAStateID(1)

    /// The set first: 24 bytes an edge rather than 32 (one per term of the pool, reserved up front).
    private var edges: [(set: ASCIISet, from: UInt32, to: UInt32)] = []
    private var epsilons: [(from: UInt32, to: UInt32)] = []
    private var acceptedPattern: [UInt32] = [UInt32.max, UInt32.max]
    /// The prefix tree: (state, term) -> the state where that term's matches end. Every state made
    /// while building a pattern is reached only through that pattern's terms so far, so a later
    /// pattern whose terms are the same up to there can continue from it.
    private var prefixTree = ShapeEdges()

    init() {
        // The unanchored root loops on every URL character: a match may start anywhere.
        edges.append((.anyCharacter, 1, 1))
    }

    /// Room for `terms` terms' states and prefix-tree entries.
    mutating func reserve(_ terms: Int) {
        prefixTree = ShapeEdges(capacity: terms)
        acceptedPattern.reserveCapacity(terms)
        edges.reserveCapacity(terms)
    }

    private mutating func newState() -> UInt32 {
        acceptedPattern.append(UInt32.max)
        return UInt32(acceptedPattern.count - 1)
    }

    mutating func add(_ filter: URLFilter, as id: PatternID, reportingEveryEnd: Bool = false) {
        let terms = reportingEveryEnd ? filter.terms[...] : filter.matchedTerms
        var state = filter.hasStartAnchor ? Self.anchoredRoot.rawValue : Self.unanchoredRoot.rawValue
        for term in terms {
            let shape = TermShape(term)
            let hash = ShapeEdges.hash(state, shape)
            if let shared = prefixTree.child(state, shape, hash: hash) {
                state = shared
            } else {
                let next = build(term, from: state)
                prefixTree.insert(state, shape, hash: hash, child: next)
                state = next
            }
        }
        if filter.hasEndAnchor {
            let end = newState()
            edges.append((.nul, state, end))
            state = end
        }
        // Every pattern gets its own accept state, so that patterns with the same text stay apart.
        let accept = newState()
        epsilons.append((state, accept))
        acceptedPattern[Int(accept)] = id.rawValue
    }

    /// Thompson's construction for one term starting at `from`; returns the state where the
    /// term's matches end. Groups are entered and left with a stack of open groups, in the order
    /// a recursive construction would take: the same states, edges and epsilons in the same order.
    private mutating func build(_ term: URLFilterTerm, from: UInt32) -> UInt32 {
        guard case .group(let group) = term.atom else { return buildSingle(term, from: from) }
        var open: [OpenGroup] = []
        open.append(enter(group, term.quantifier, from: from))
        while true {
            let top = open.count - 1
            if open[top].next < open[top].group.count {
                let inner = open[top].group[open[top].next]
                open[top].next += 1
                if case .group(let innerGroup) = inner.atom {
                    open.append(enter(innerGroup, inner.quantifier, from: open[top].state))
                } else {
                    open[top].state = buildSingle(inner, from: open[top].state)
                }
                continue
            }
            let closed = open.removeLast()
            let end = leave(quantifier: closed.quantifier, entry: closed.entry, end: closed.state)
            if open.isEmpty { return end }
            open[open.count - 1].state = end
        }
    }

    /// A group being built: its next term, and the state the terms built so far end at.
    private struct OpenGroup {
        var group: URLFilterGroup
        var quantifier: URLFilterQuantifier
        var entry: UInt32
        var next = 0
        var state: UInt32
    }

    /// A group's entry state (a new one unless the group is unquantified), where its terms start.
    private mutating func enter(_ group: URLFilterGroup, _ quantifier: URLFilterQuantifier, from: UInt32) -> OpenGroup {
        guard quantifier != .one else { return OpenGroup(group: group, quantifier: quantifier, entry: from, state: from) }
        let entry = newState()
        epsilons.append((from, entry))
        return OpenGroup(group: group, quantifier: quantifier, entry: entry, state: entry)
    }

    /// The quantifier's states and epsilons around a group's terms, which end at `end`; returns
    /// where the group's matches end.
    private mutating func leave(quantifier: URLFilterQuantifier, entry: UInt32, end: UInt32) -> UInt32 {
        switch quantifier {
        case .one:
            return end
        case .zeroOrOne:
            let exit = newState()
            epsilons.append((end, exit))
            epsilons.append((entry, exit))
            return exit
        case .zeroOrMore:
            epsilons.append((end, entry))
            return entry
        case .oneOrMore:
            let exit = newState()
            epsilons.append((end, exit))
            epsilons.append((exit, entry))
            return exit
        }
    }

    /// A single-character term (character, `.` or class) with its quantifier.
    private mutating func buildSingle(_ term: URLFilterTerm, from: UInt32) -> UInt32 {
        let set = term.characterSet!
        switch term.quantifier {
        case .one:
            let to = newState()
            edges.append((set, from, to))
            return to
        case .zeroOrOne:
            let to = newState()
            edges.append((set, from, to))
            epsilons.append((from, to))
            return to
        case .zeroOrMore:
            let loop = newState()
            epsilons.append((from, loop))
            edges.append((set, loop, loop))
            return loop
        case .oneOrMore:
            let loop = newState()
            edges.append((set, from, loop))
            edges.append((set, loop, loop))
            return loop
        }
    }

    /// The edges and epsilons grouped by source state (a counting sort straight into the final
    /// arrays: no copy of a pool's edges is made on the way).
    consuming func finish(patterns: [PatternID]) -> NFA {
        let count = acceptedPattern.count
        func starts<C: Collection>(_ items: C, from: (C.Element) -> UInt32) -> [UInt32] {
            var start = [UInt32](repeating: 0, count: count + 1)
            for item in items { start[Int(from(item)) + 1] += 1 }
            for index in 0..<count { start[index + 1] += start[index] }
            return start
        }
        let edgeStart = starts(edges) { $0.from }
        var cursor = edgeStart
        var edgeSets = [ASCIISet](repeating: ASCIISet(), count: edges.count)
        var edgeTargets = [UInt32](repeating: 0, count: edges.count)
        for edge in edges {
            let at = Int(cursor[Int(edge.from)])
            edgeSets[at] = edge.set
            edgeTargets[at] = edge.to
            cursor[Int(edge.from)] += 1
        }
        edges = []
        let epsilonStart = starts(epsilons) { $0.from }
        cursor = epsilonStart
        var epsilonTargets = [UInt32](repeating: 0, count: epsilons.count)
        for epsilon in epsilons {
            epsilonTargets[Int(cursor[Int(epsilon.from)])] = epsilon.to
            cursor[Int(epsilon.from)] += 1
        }
        return NFA(
            edgeStart: edgeStart, edgeSets: edgeSets, edgeTargets: edgeTargets, epsilonStart: epsilonStart,
            epsilonTargets: epsilonTargets, acceptedPattern: acceptedPattern, patterns: patterns)
    }
}
