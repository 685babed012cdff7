// GatePlanner.swift — Automata
//
// Unanchored patterns with a loop inside (`\/ezoic\/.*\.js`, `:\/\/analytics\..*\/collect`) are
// the costliest to run: one DFA of them multiplies their states (every loop stays alive beside
// every match begun since), and as anchored tries of the empty prefix (StagePlanner.swift) they
// are tried at every byte that may start them, each try that enters a loop walking to the URL's
// end. Yet most of them contain a run of plain characters that few URLs contain (`/ezoic/`).
//
// A gate is such a run: terms that any match of the pattern matches, one after another, so a URL
// in which the gate occurs nowhere cannot match the pattern. The patterns are grouped by their
// gate. The gates, without loops, are built whole with the other unanchored loop-free patterns
// (one Aho-Corasick automaton), numbered after the set's patterns (DFAPartitioner.swift), and
// each group whose gate the whole programs report runs its own DFA, of its patterns whole, over
// the URL. A URL pays no pass for the gates, and a whole run only for the rare groups whose gate
// it holds (the adblock-rust requests and EasyList with EasyPrivacy: measured in docs/DESIGN.md).
//
// The gate of a pattern: among its runs of single-character terms between its other terms, the
// one most likely to be rare, by a score that counts letters and digits in full and punctuation
// that every URL holds (`/`, `.`, `:`) by a quarter. A pattern whose best run scores below
// `minimumGateScore` (`\/`, `:\/\/`) is better tried at every byte, in the every-position stage,
// when there are enough such patterns for a stage; the few left of a real list are gated by
// their best run, whatever it scores (a pass of the every-position stage's places costs more
// than a weak gate's rare runs).
// Tested by SearchTests/GatedGroupTests.swift and ContentBlockerTests/DomainGateTests.swift.

public import URLFilterSyntax

/// Patterns run only in a URL where their gate occurs (GatePlanner.swift).
public struct GatedGroup: Sendable {
    /// The run of terms every match of each pattern matches: unanchored, without loops, with the
    /// patterns' case sensitivity. For a domain gate, the host pattern of `domain`.
    public var gate: URLFilter
    /// The patterns, whole; in a group a domain gates, each pattern's part after D
    /// (`HostPattern.afterDomainGate(of:)`), which runs from the host's end.
    public var patterns: [(id: PatternID, filter: URLFilter)]
    /// For a group of `||` patterns gated by their domain (`HostPattern.domainGate(of:)`): D.
    /// The caller's domain table answers such a gate, not an automaton, and it finds D at the
    /// host's end: the only place where the patterns' D can end, so that their parts after D run
    /// from there (the host's bytes, which a whole pattern's DFA reads in states of its own, are
    /// not read again).
    public var domain: [UInt8]?
    /// Whether the gate is built with the other gates apart, in a whole program of their own,
    /// not in the Aho-Corasick automaton of the list's unanchored patterns (the `||` patterns'
    /// gates: they would widen its rows).
    public var gateApart: Bool
    /// Where the group's programs run when its gate is found (`GateRunStart`); `.urlStart` for a
    /// group a domain gates, whose programs run from the host's end.
    public var runsFrom: GateRunStart
    /// Whether the caller answers the gate, not an automaton: a host context's entry of D for `||`
    /// patterns of another converter's prefix with a loop after D (ContentBlocker's
    /// HostContextPlanner). The group holds its patterns whole, run from the URL's start.
    public var callerGate: Bool

    public init(
        gate: URLFilter, patterns: [(id: PatternID, filter: URLFilter)], domain: [UInt8]? = nil, gateApart: Bool = false,
        runsFrom: GateRunStart = .urlStart, callerGate: Bool = false
    ) {
        self.gate = gate
        self.patterns = patterns
        self.domain = domain
        self.gateApart = gateApart
        self.runsFrom = runsFrom
        self.callerGate = callerGate
    }
}

/// Where a gated group's programs run when a whole program reports its gate. A pattern that
/// begins with its gate matches only where the gate begins: its group's programs (its patterns,
/// anchored) run from there, once for each place the gate ends, instead of over the whole URL
/// (where an unanchored pattern's DFA keeps a state for every match begun since, each a cold row
/// at the rare request that runs the group).
public enum GateRunStart: Hashable, Sendable {
    /// The patterns whole, from the URL's start, once.
    case urlStart
    /// Unanchored patterns that begin with their gate: anchored, from where each occurrence of the
    /// gate (`length` characters) begins.
    case gate(length: Int)
    /// `||` patterns whose terms after the host prefix (`^[^:]+:\/\/+([^:\/]+\.)?`) begin with
    /// their gate: those terms, anchored, from where each occurrence of the gate begins when it
    /// begins a label of the host (the host's first byte, or a byte after a `.` that a label
    /// precedes): the only places where the prefix can end.
    case hostLabelGate(length: Int)
}

public enum GatePlanner {
    /// A run scoring less than this (2 letters or digits; `:\/\/` scores 0.75) is no gate.
    public static let minimumGateScore = 2.0
    /// The most groups: each is a program of its own, and past a few thousand distinct gates the
    /// patterns are better tried as the every-position stage's tries (a list of random patterns).
    static let maximumGroups = 4_096

    /// The groups of the patterns of `candidates` (indices into `patterns`) that have a gate, in
    /// the order of their first pattern, and the indices of those that have none: those whose
    /// best run scores less than `minimumGateScore`, when there are at least
    /// `minimumPatternsPerStage` of them. The gated patterns are moved out of `patterns` (an empty
    /// pattern left in their place). At most `maximumGroups` groups are made: the patterns of the
    /// gates past them are left ungated.
    /// `afterFirstLoop`: each pattern's gate among its terms after its first loop
    /// (`runsAfterFirstLoop`).
    static func group(
        _ candidates: [Int], of patterns: inout [(id: PatternID, filter: URLFilter)], minimumPatternsPerStage: Int,
        maximumGroups: Int = GatePlanner.maximumGroups, gatesApart: Bool = false, afterFirstLoop: Bool = false
    ) -> (groups: [GatedGroup], ungated: [Int]) {
        let best = candidates.map { Self.bestRun(patterns[$0].filter.terms, from: afterFirstLoop ? Self.firstLoopEnd(patterns[$0].filter.terms) : 0) }
        let weak = best.count { ($0?.score ?? 0) < Self.minimumGateScore }
        let minimumScore = weak >= minimumPatternsPerStage ? Self.minimumGateScore : .leastNonzeroMagnitude
        var groups: [GatedGroup] = []
        var groupOfGate: [GateKey: Int] = [:]
        var ungated: [Int] = []
        for (index, run) in zip(candidates, best) {
            guard let run, run.score >= minimumScore else {
                ungated.append(index)
                continue
            }
            let filter = patterns[index].filter
            let gate = Self.gate(filter, run.range)
            // A pattern that begins with its gate (after the host prefix, for a `||` pattern)
            // runs from where the gate begins.
            let runsFrom: GateRunStart
            if !filter.hasStartAnchor && run.range.lowerBound == 0 {
                runsFrom = .gate(length: run.range.count)
            } else if let afterPrefix = HostPattern.termsAfterPrefix(filter), run.range.lowerBound == afterPrefix.startIndex,
                afterPrefix.first!.hostCharacter.map({ $0 != UInt8(ascii: "/") }) == true
            {
                // (A gate that may begin with `/` might begin inside the `\/+` before the host.)
                runsFrom = .hostLabelGate(length: run.range.count)
            } else {
                runsFrom = .urlStart
            }
            let key = GateKey(text: gate.source, isCaseSensitive: gate.isCaseSensitive, runsFrom: runsFrom)
            /// The pattern taken out of `patterns`, as its group runs it.
            func taken() -> [(id: PatternID, filter: URLFilter)] {
                taking([index], from: &patterns).map { ($0.id, Self.fromGate($0.filter, runsFrom)) }
            }
            if let group = groupOfGate[key] {
                groups[group].patterns += taken()
            } else if groups.count < maximumGroups {
                groupOfGate[key] = groups.count
                groups.append(GatedGroup(gate: gate, patterns: taken(), gateApart: gatesApart, runsFrom: runsFrom))
            } else {
                ungated.append(index)
            }
        }
        return (groups, ungated)
    }

    /// `filter` as a group that runs from `start` runs it: whole from the URL's start; anchored
    /// where its gate begins (for a `||` pattern, its terms after the host prefix).
    static func fromGate(_ filter: URLFilter, _ start: GateRunStart) -> URLFilter {
        switch start {
        case .urlStart: filter
        case .gate: filter.anchored(from: 0)
        case .hostLabelGate: filter.anchored(from: HostPattern.prefixTerms.count)
        }
    }

    /// The groups of the patterns of `candidates` (indices into `patterns`) that have a domain
    /// gate (`HostPattern.domainGate(of:)`), a group per domain, in the order of their first
    /// pattern, and the indices of the others. At most `maximumGroups` groups. The gated patterns
    /// are moved out of `patterns`; a group holds their parts after D.
    static func groupByDomain(
        _ candidates: [Int], of patterns: inout [(id: PatternID, filter: URLFilter)], maximumGroups: Int = GatePlanner.maximumGroups
    ) -> (groups: [GatedGroup], ungated: [Int]) {
        var groups: [GatedGroup] = []
        var groupOfDomain: [[UInt8]: Int] = [:]
        var ungated: [Int] = []
        for index in candidates {
            let filter = patterns[index].filter
            guard let domain = HostPattern.domainGate(of: filter) else {
                ungated.append(index)
                continue
            }
            /// The pattern taken out of `patterns`, as its part after D.
            func afterDomain() -> [(id: PatternID, filter: URLFilter)] {
                taking([index], from: &patterns).map { ($0.id, HostPattern.afterDomainGate(of: $0.filter)!) }
            }
            if let group = groupOfDomain[domain] {
                groups[group].patterns += afterDomain()
            } else if groups.count < maximumGroups {
                groupOfDomain[domain] = groups.count
                // The gate as a pattern: the prefix, D and the character after it.
                let gate = Self.gate(filter, 0..<(HostPattern.prefixTerms.count + domain.count + 1), anchored: true)
                groups.append(GatedGroup(gate: gate, patterns: afterDomain(), domain: domain))
            } else {
                ungated.append(index)
            }
        }
        return (groups, ungated)
    }

    private struct GateKey: Hashable {
        var text: String
        var isCaseSensitive: Bool
        var runsFrom: GateRunStart
    }

    /// The gate of `filter`, nil when no run scores `minimumScore`. A run is of top-level terms
    /// that match one character each (a character or a class, no quantifier, not the end-of-URL
    /// NUL): every match of the pattern matches each term of such a run in turn.
    public static func gate(of filter: URLFilter, minimumScore: Double = minimumGateScore) -> URLFilter? {
        guard let run = bestRun(filter.terms), run.score >= minimumScore else { return nil }
        return gate(filter, run.range)
    }

    /// Whether `filter` (anchored) has a gate scoring `minimumGateScore` among its terms after its
    /// first loop: those before it are read from the URL's start, where a run (`http`) tells
    /// nothing of how rare the pattern's URLs are, and the anchored program answers them within a
    /// few bytes.
    static func hasGateAfterFirstLoop(_ filter: URLFilter) -> Bool {
        (bestRun(filter.terms, from: firstLoopEnd(filter.terms))?.score ?? 0) >= minimumGateScore
    }

    /// The place after `terms`' first term with a loop (`terms.count` when none has one).
    private static func firstLoopEnd(_ terms: [URLFilterTerm]) -> Int {
        (terms.firstIndex { $0.containsLoop } ?? terms.count - 1) + 1
    }

    /// The first of the highest-scoring runs of `terms` from `first` on that score more than 0.
    private static func bestRun(_ terms: [URLFilterTerm], from first: Int = 0) -> (range: Range<Int>, score: Double)? {
        var best: (range: Range<Int>, score: Double)?
        var start = first
        var score = 0.0
        for index in first...terms.count {
            let weight = index < terms.count ? Self.weight(terms[index]) : nil
            guard let weight else {
                if index > start && score > best?.score ?? 0 { best = (start..<index, score) }
                start = index + 1
                score = 0
                continue
            }
            score += weight
        }
        return best
    }

    /// The gate made of `filter`'s terms in `range`, its text their source (after `^` when
    /// `anchored`: the range then starts at the first term).
    private static func gate(_ filter: URLFilter, _ range: Range<Int>, anchored: Bool = false) -> URLFilter {
        let gateTerms = Array(filter.terms[range])
        let utf8 = filter.source.utf8
        let text = utf8.index(utf8.startIndex, offsetBy: gateTerms.first!.span.lowerBound)..<utf8.index(
            utf8.startIndex, offsetBy: gateTerms.last!.span.upperBound)
        return URLFilter(
            source: (anchored ? "^" : "") + String(filter.source[text]), isCaseSensitive: filter.isCaseSensitive,
            hasStartAnchor: anchored, hasEndAnchor: false, terms: gateTerms)
    }

    /// What `term` adds to a run's score, nil when it cannot be in a run.
    private static func weight(_ term: URLFilterTerm) -> Double? {
        guard term.quantifier == .one, !term.isEndOfURLMarker else { return nil }
        switch term.atom {
        case .character(_, let unit):
            let lower = unit &- 0x41 < 26 ? unit | 0x20 : unit
            if (0x61...0x7A).contains(lower) || (0x30...0x39).contains(lower) { return 1 }
            return unit == 0x2F || unit == 0x2E || unit == 0x3A ? 0.25 : 0.5
        case .characterClass: return 0
        case .anyCharacter, .group: return nil
        }
    }
}
