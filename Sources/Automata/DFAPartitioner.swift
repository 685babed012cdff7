// DFAPartitioner.swift — Automata
//
// Many patterns -> a few minimal DFAs. All patterns are first tried as one automaton; a group
// whose DFA outgrows the limits is split in two halves (patterns built whole stay in the order
// given, which the caller chooses so that related patterns sit together; a stage's suffixes are
// put in the order of their text) and each half is built again. A
// single pattern that outgrows the limits alone is reported, with the numbers, and left out.
// Before that, patterns sharing a looping prefix are set apart in stages (StagePlanner.swift).
// Tested by AutomataTests/AutomataTests.swift (splits, failures) and SearchTests (staged and
// gated programs answer like the whole patterns' NFA).

public import URLFilterSyntax
internal import Parallelism
internal import Synchronization

/// What the partitioner made of each minimal DFA (the DFA itself, or its program: made on the
/// thread that built the DFA, so that a list's dense transition tables are never all in memory).
public struct Partitioned<Product: Sendable>: Sendable {
    /// The products of the patterns built whole, run from the URL's start.
    public var dfas: [Product] = []
    /// A stage (StagePlanner.swift): the prefix's DFA reports pattern 0 wherever a match of the
    /// prefix ends; the suffixes' DFAs run from each such place. Every pattern that does not match
    /// everything is in exactly one DFA, whole or as a suffix.
    public struct Stage: Sendable {
        public var prefix: Product
        public var suffixes: [Product]
    }
    public var stages: [Stage] = []
    /// Gated groups (GatePlanner.swift): the whole patterns' DFAs report pattern `gateBase + g`
    /// wherever group g's gate ends (the gates are built whole with them, one more Aho-Corasick
    /// part); each group's DFAs are of its patterns as it runs them (`GatedGroup.patterns`), in a
    /// URL where its gate was reported, from where `starts` says.
    /// A group gated by a domain (`GatedGroup.domain`) has no gate among the whole patterns: its
    /// gate is the caller's domain table's entry of that domain (Search's `ProgramSet` adds it).
    public struct Gated: Sendable {
        public var gateBase: Int
        public var groups: [[Product]]
        /// Per group: its domain when a domain gates it, nil when its gate is built whole.
        public var domains: [[UInt8]?]
        /// Per group: where its programs run (`GatedGroup.runsFrom`).
        public var starts: [GateRunStart]
    }
    public var gated: Gated?
    /// Patterns whose DFA alone outgrows the limits.
    public var failures: [AutomataError] = []
    /// Sizes, for reports: the NFAs', the DFAs' before minimization and the minimal DFAs'.
    public var nfaStates = 0
    public var statesBeforeMinimization = 0
    public var states = 0
    /// The DFAs' transitions before minimization (what `AutomataLimits.maximumTotalTransitions` holds).
    public var transitions = 0
    /// Every product: the whole patterns', then each stage's prefix and suffixes, then each gated
    /// group's.
    public var all: [Product] { dfas + stages.flatMap { [$0.prefix] + $0.suffixes } + (gated?.groups.flatMap { $0 } ?? []) }
}

public typealias PartitionedDFAs = Partitioned<DFA>

public enum DFAPartitioner {
    /// Builds the DFAs of `patterns`; `phaseTimer` is told the time spent per phase. Without
    /// `minimizing`, each DFA is kept as the subset construction made it (to measure what the
    /// minimizer saves).
    public static func build(
        _ patterns: [(id: PatternID, filter: URLFilter)], limits: AutomataLimits = .default, minimizing: Bool = true,
        phaseTimer: inout PhaseTimer
    ) -> PartitionedDFAs {
        build(patterns, limits: limits, minimizing: minimizing, phaseTimer: &phaseTimer) { $0 }
    }

    /// Builds the DFAs of `patterns` and makes `product` of each as soon as it is built (timed
    /// as the emit phase), on the thread that built it: `plan`, then `build` of the plan.
    public static func build<Product: Sendable>(
        _ patterns: consuming [(id: PatternID, filter: URLFilter)], limits: AutomataLimits = .default, minimizing: Bool = true,
        phaseTimer: inout PhaseTimer, product: @escaping @Sendable (DFA) -> Product
    ) -> Partitioned<Product> {
        let planned = plan(consume patterns, limits: limits, phaseTimer: &phaseTimer)
        return build(consume planned, limits: limits, minimizing: minimizing, phaseTimer: &phaseTimer, product: product)
    }

    /// Patterns set apart into stages, or to be built whole (`plan`), before any automaton.
    public struct Plan: Sendable {
        var whole: [(id: PatternID, filter: URLFilter)]
        var stages: [PlannedStage]
        public internal(set) var gated: [GatedGroup]
        /// The first gate's id: the set's pattern count.
        public internal(set) var gateBase: Int

        /// Adds groups whose gates the caller answers (`GatedGroup.callerGate`); returns the id of
        /// the first one's gate (the others follow it).
        public mutating func appendCallerGated(_ groups: [GatedGroup]) -> Int {
            let first = gateBase + gated.count
            gated += groups
            return first
        }
    }

    /// The stages of `patterns` (StagePlanner.swift), those that match everything left out. A
    /// serial step: a caller may build other automata meanwhile.
    ///
    /// The patterns are consumed: a pattern built in a stage is held only as its suffix once the
    /// stages are planned, and each stage's suffixes only until the stage is built (held to the
    /// end, a list's parsed patterns would be a large part of its compile's memory).
    /// `patternCount` is the set's (default: the given ids' largest + 1): gates are reported as the
    /// patterns that follow it.
    public static func plan(
        _ patterns: consuming [(id: PatternID, filter: URLFilter)], patternCount: Int? = nil, limits: AutomataLimits,
        phaseTimer: inout PhaseTimer
    ) -> Plan {
        let gateBase = patternCount ?? patterns.reduce(0) { max($0, Int($1.id.rawValue) + 1) }
        let automatic = (consume patterns).filter { !$0.filter.matchesEverything }
        // (Not in a closure: one capturing `automatic` would keep the patterns' terms shared, and
        // the planner could no longer edit them in place.)
        let planning = phaseTimer.begin(.plan)
        let (whole, stages, gated) = StagePlanner.plan(
            consume automatic, minimumPatternsPerStage: limits.minimumPatternsPerStage,
            maximumUnanchoredTrieTerms: limits.maximumUnanchoredTrieTerms, gating: limits.gatesLoopyPatterns)
        phaseTimer.end(planning)
        return Plan(whole: whole, stages: stages, gated: gated, gateBase: gateBase)
    }

    /// Builds the DFAs of a plan, making `product` of each as soon as it is built.
    public static func build<Product: Sendable>(
        _ plan: consuming Plan, limits: AutomataLimits = .default, minimizing: Bool = true,
        phaseTimer: inout PhaseTimer, product: @escaping @Sendable (DFA) -> Product
    ) -> Partitioned<Product> {
        var whole = plan.whole
        plan.whole = []
        var stages = plan.stages
        plan.stages = []
        var groups = plan.gated
        plan.gated = []
        // Each stage's prefix first (a few states), then the groups of the whole patterns and of
        // every stage's suffixes in shared rounds on every core: a set built alone (EasyList's
        // whole patterns: mostly one group) would leave a core idle.
        var result = Partitioned<Product>()
        let gateBase = plan.gateBase
        let gatesApart = addGates(of: groups, numberedFrom: gateBase, to: &whole)
        let gates = GateFacts(
            base: gateBase, owners: groups.map { $0.patterns[0].id }, domains: groups.map(\.domain), starts: groups.map(\.runsFrom))
        // Per set: the product of its stage's prefix, nil for patterns built whole.
        var prefixes: [Product?] = [nil]
        var patternSets = [whole]
        whole = []
        for index in stages.indices {
            var stage = stages[index]
            stages[index].suffixes = []
            let suffixes = stage.suffixes
            stage.suffixes = []  // (`suffixes` their only holder: sorted in place, not copied)
            if let prefix = buildPrefix(
                stage.prefix, limits: limits, minimizing: minimizing, phaseTimer: &phaseTimer, product: product, sizes: &result)
            {
                prefixes.append(prefix)
                patternSets.append(Self.inTextOrder(consume suffixes))
            } else {
                // A prefix too big alone (not seen in practice): its patterns are built whole.
                prefixes.append(nil)
                patternSets.append(suffixes.map { (id: $0.id, filter: stage.whole($0.filter)) })
            }
        }
        if !gatesApart.isEmpty {
            prefixes.append(nil)
            patternSets.append(gatesApart)
        }
        let stageSets = patternSets.count
        for index in groups.indices {
            patternSets.append(groups[index].patterns)
            groups[index].patterns = []
        }
        groups = []
        let built = partition(consume patternSets, limits: limits, minimizing: minimizing, phaseTimer: &phaseTimer, product: product)
        let gathering = phaseTimer.begin(.emit)
        gather(built, stageSets: stageSets, prefixes: prefixes, gates: gates, into: &result)
        phaseTimer.end(gathering)
        return result
    }

    /// The gates are patterns built whole, numbered after the set's (from `gateBase`):
    /// unanchored and without loops, they join the Aho-Corasick automaton of the list's other
    /// such patterns (added to `whole`), so the pass over the URL that answers those reports the
    /// gates too. Returns the gates to be built apart, which make whole programs of their own. (A
    /// domain gate is the caller's domain table's to answer, a caller's gate its host context's.)
    private static func addGates(
        of groups: [GatedGroup], numberedFrom gateBase: Int, to whole: inout [(id: PatternID, filter: URLFilter)]
    ) -> [(id: PatternID, filter: URLFilter)] {
        var gatesApart: [(id: PatternID, filter: URLFilter)] = []
        for index in groups.indices where groups[index].domain == nil && !groups[index].callerGate {
            let gate = (id: PatternID(UInt32(gateBase + index)), filter: groups[index].gate)
            if groups[index].gateApart { gatesApart.append(gate) } else { whole.append(gate) }
        }
        return gatesApart
    }

    /// What the result says of the gated groups, read before their patterns are let go.
    private struct GateFacts {
        var base: Int
        /// Per group: its first pattern, as which a gate too big for the limits alone (tiny
        /// limits only) is reported.
        var owners: [PatternID]
        var domains: [[UInt8]?]
        var starts: [GateRunStart]
    }

    /// The minimal DFA of a stage's prefix, made `product` of, its sizes added to `sizes`; nil
    /// when the prefix alone outgrows the limits.
    private static func buildPrefix<Product: Sendable>(
        _ prefix: URLFilter, limits: AutomataLimits, minimizing: Bool, phaseTimer: inout PhaseTimer,
        product: (DFA) -> Product, sizes: inout Partitioned<Product>
    ) -> Product? {
        let nfa = phaseTimer.measure(.nfa) { NFA(prefix: prefix, reportingAs: PatternID(0)) }
        let dfa: DFA
        do {
            dfa = try phaseTimer.measure(.dfa) { () throws(AutomataError) -> DFA in
                try SubsetConstruction.determinize(nfa, limits: limits)
            }
        } catch {
            return nil
        }
        let minimal = minimizing ? phaseTimer.measure(.minimize) { Minimizer.minimize(dfa) } : dfa
        sizes.nfaStates += nfa.stateCount
        sizes.statesBeforeMinimization += dfa.stateCount
        sizes.states += minimal.stateCount
        return phaseTimer.measure(.emit) { product(minimal) }
    }

    /// The partitioned sets into the result: the first `stageSets` are the whole patterns' and
    /// the stages' (a prefix's product says which), the rest the gated groups'; every set's
    /// failures (a gate's under its group's first pattern) and sizes.
    private static func gather<Product: Sendable>(
        _ built: [Partitioned<Product>], stageSets: Int, prefixes: [Product?], gates: GateFacts, into result: inout Partitioned<Product>
    ) {
        if stageSets < built.count {
            result.gated = Partitioned<Product>.Gated(
                gateBase: gates.base, groups: built[stageSets...].map(\.dfas), domains: gates.domains, starts: gates.starts)
        }
        for (index, part) in built.enumerated() {
            // (The sets after `stageSets` are the gated groups': their DFAs are in `result.gated`.)
            if index < stageSets {
                if let prefix = prefixes[index] {
                    result.stages.append(Partitioned<Product>.Stage(prefix: prefix, suffixes: part.dfas))
                } else {
                    result.dfas += part.dfas
                }
            }
            result.failures += part.failures.map { failure in
                failure.renaming { Int($0.rawValue) >= gates.base ? gates.owners[Int($0.rawValue) - gates.base] : $0 }
            }
            result.statesBeforeMinimization += part.statesBeforeMinimization
            result.nfaStates += part.nfaStates
            result.states += part.states
            result.transitions += part.transitions
        }
    }

    /// A stage's suffixes in the order of their text, letters folded (ties in the order given).
    /// The groups split from them in halves then each hold a range of first bytes: from a place
    /// where the prefix ends, only the suffix DFAs whose range holds the next bytes run (the rest
    /// are skipped by their first and second bytes), and suffixes that start alike share states
    /// in one trie instead of repeating them in several.
    static func inTextOrder(_ suffixes: consuming [(id: PatternID, filter: URLFilter)]) -> [(id: PatternID, filter: URLFilter)] {
        // Every key folded into one buffer, and its first 8 bytes as a number that compares
        // alike: most comparisons end there. (An array per key, compared as arrays, with the
        // suffixes copied into the new order, takes more than twice as long, on one core while
        // the other waits.)
        var folded: [UInt8] = []
        var keyStart: [Int] = [0]
        var leads: [UInt64] = []
        keyStart.reserveCapacity(suffixes.count + 1)
        leads.reserveCapacity(suffixes.count)
        for suffix in copy suffixes {
            var lead: UInt64 = 0
            var length = 0
            for byte in suffix.filter.source.utf8 {
                let key = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                folded.append(key)
                if length < 8 { lead |= UInt64(key) << (56 - 8 * length) }
                length += 1
            }
            keyStart.append(folded.count)
            leads.append(lead)
        }
        var order = Array(suffixes.indices)
        folded.withUnsafeBufferPointer { bytes in
            // Leads differ: they decide (a key shorter than 8 bytes is padded with zeros, and
            // comes first, as a prefix does). Equal leads: the whole keys decide.
            func precedes(_ a: Int, _ b: Int) -> Bool {
                if leads[a] != leads[b] { return leads[a] < leads[b] }
                let first = bytes[keyStart[a]..<keyStart[a + 1]]
                let second = bytes[keyStart[b]..<keyStart[b + 1]]
                if first.elementsEqual(second) { return a < b }
                return first.lexicographicallyPrecedes(second)
            }
            order.sort(by: precedes)
        }
        var source = consume suffixes
        return taking(order, from: &source)
    }

    static let blowUpFactor = 8
    static let smallestGroupLimit = 4_096

    /// A group of patterns to build as one DFA: the set it came from, where it starts in that
    /// set's order (the DFAs are put in that order), and its patterns, which it alone holds.
    struct Group: Sendable {
        var origin: Int
        var start: Int
        var patterns: [(id: PatternID, filter: URLFilter)]

        /// The two halves, the second first (rounds are taken from the end).
        consuming func halves() -> [Group] {
            let middle = patterns.count / 2
            return [
                Group(origin: origin, start: start + middle, patterns: Array(patterns[middle...])),
                Group(origin: origin, start: start, patterns: Array(patterns[..<middle])),
            ]
        }
    }

    /// The DFAs of each set of patterns (each built whole from the URL's start, or from where a
    /// stage's prefix ends), the groups of all sets built in shared rounds. The sets are consumed:
    /// each group's patterns are let go as soon as its DFA is built, not when every group is.
    static func partition<Product: Sendable>(
        _ sets: consuming [[(id: PatternID, filter: URLFilter)]], limits: AutomataLimits, minimizing: Bool,
        phaseTimer: inout PhaseTimer, product: @escaping @Sendable (DFA) -> Product
    ) -> [Partitioned<Product>] {
        var results = [Partitioned<Product>](repeating: Partitioned<Product>(), count: sets.count)
        // (Grouping and splitting the patterns is planning; putting the products in order, emitting.)
        let grouping = phaseTimer.begin(.plan)
        var (round, setOfOrigin) = firstGroups(of: consume sets)
        phaseTimer.end(grouping)
        // Groups are built in rounds, each round's groups in parallel (they share nothing); a
        // group that turns out too big comes back in the next round as two halves. The DFAs are
        // then put in a fixed order (group, then position in it), whatever the timing.
        var built: [BuiltGroup<Product>] = []
        // The transitions built so far, in every round: once past the limit, the groups not yet
        // started are not built (which ones depends on timing; that the limit is passed does not).
        let transitions = Atomic<Int>(0)
        var overLimit = false
        while !round.isEmpty && !overLimit {
            let splitting = phaseTimer.begin(.plan)
            var groups = splitBySize(taking: &round, limits: limits)
            // The costliest first (estimated as the states times the loops, which multiply the
            // subset construction's work), so that the small groups fill the cores' last gaps: in
            // the order the groups are split, a list's loopy patterns can come last and be built
            // alone on one core while the other idles; by cost they come after the biggest suffix
            // tries and before the small groups, and the round ends sooner. The results are put
            // back in order below.
            groups.sort { $0.cost > $1.cost || $0.cost == $1.cost && ($0.group.origin, $0.group.start) < ($1.group.origin, $1.group.start) }
            let places = groups.map { (origin: $0.group.origin, start: $0.group.start) }
            let items = groups.map(\.group)
            groups = []  // (`items` the groups' only holder: each is let go once built)
            phaseTimer.end(splitting)
            let outcomes = Parallel.map(handingOver: consume items) { [marker = phaseTimer.marker] _, group in
                var timer = PhaseTimer(marker: marker)
                guard transitions.load(ordering: .relaxed) <= limits.maximumTotalTransitions else {
                    return (GroupOutcome<Product>.skipped, timer)
                }
                let outcome = Self.build(group, limits: limits, minimizing: minimizing, phaseTimer: &timer, product: product)
                if case .built(_, let sizes) = outcome { transitions.add(sizes.transitions, ordering: .relaxed) }
                return (outcome, timer)
            }
            for (place, (outcome, timer)) in zip(places, outcomes) {
                phaseTimer.add(timer)
                switch outcome {
                case .built(let made, let sizes):
                    built.append(BuiltGroup(origin: place.origin, start: place.start, product: made, sizes: sizes))
                case .split(let group):
                    round += group.halves()
                case .failed(let error):
                    results[setOfOrigin[place.origin]].failures.append(error)
                case .skipped:
                    break
                }
            }
            let total = transitions.load(ordering: .relaxed)
            if total > limits.maximumTotalTransitions {
                overLimit = true
                results[0].failures.append(.tooManyTransitionsInAll(limit: limits.maximumTotalTransitions, reached: total))
            }
        }
        let gathering = phaseTimer.begin(.emit)
        gather(built, setOfOrigin: setOfOrigin, into: &results)
        phaseTimer.end(gathering)
        return results
    }

    /// The first round's groups, each set's patterns moved into them, and each group's set (by
    /// the group's `origin`).
    ///
    /// Anchored and unanchored patterns never share a DFA: the unanchored ones run at every
    /// position of the URL, and their states would multiply with the anchored ones'. Among the
    /// unanchored, patterns with more loops than the most common count (`.*` inside, say) go
    /// apart too: each such loop stays alive to the end of the URL and multiplies the states of
    /// whatever runs beside it (below: not among the anchored).
    private static func firstGroups(of sets: consuming [[(id: PatternID, filter: URLFilter)]]) -> (round: [Group], setOfOrigin: [Int]) {
        var setOfOrigin: [Int] = []
        var round: [Group] = []
        var sets = sets
        for set in sets.indices {
            // Each pattern's side and loops read once, then each pattern moved to its group.
            // (Loops the automaton drops, like a trailing `.*`, do not count.)
            var patterns = sets[set]
            sets[set] = []  // (`patterns` their only holder: moved out below, not copied)
            let loops = patterns.map { loopCount($0.filter.matchedTerms) }
            for anchored in [false, true] {
                let side = patterns.indices.filter { patterns[$0].filter.hasStartAnchor == anchored }
                guard !side.isEmpty else { continue }
                var histogram: [Int: Int] = [:]
                for index in side { histogram[loops[index], default: 0] += 1 }
                let common = histogram.max { ($0.value, -$0.key) < ($1.value, -$1.key) }!.key
                // (Whole patterns stay in the list's order: sorted by their text before splitting,
                // unrelated patterns land in one group and multiply more states. A stage's
                // suffixes, anchored tries, are sorted:
                // `inTextOrder`.) Anchored patterns are not split so: the loop-free ones die within
                // a few bytes, so their states hardly multiply the loopy ones', and together they
                // cost one run instead of two (a stage's suffixes: from each place its prefix ends).
                for wantsLoopy in [true, false] {
                    let members = side.filter { (!anchored && loops[$0] > common) == wantsLoopy }
                    guard !members.isEmpty else { continue }
                    round.append(Group(origin: setOfOrigin.count, start: 0, patterns: taking(members, from: &patterns)))
                    setOfOrigin.append(set)
                }
            }
        }
        return (round, setOfOrigin)
    }

    /// The groups of `round` (taken), each surely too big for one DFA split in halves, and
    /// halves of halves, before a construction is spent on it, with each part's estimated cost.
    /// (The estimate is the NFA's states before prefixes are shared: an upper bound, and cheap;
    /// read once per pattern, the halves found on its sums.)
    private static func splitBySize(taking round: inout [Group], limits: AutomataLimits) -> [(group: Group, cost: Int)] {
        var groups: [(group: Group, cost: Int)] = []
        while var group = round.popLast() {
            var patterns = group.patterns
            group.patterns = []  // (`patterns` the only holder: each pattern moved out below)
            var states = [0]
            var cost = [0]
            states.reserveCapacity(patterns.count + 1)
            cost.reserveCapacity(patterns.count + 1)
            for pattern in patterns {
                let estimate = pattern.filter.terms.stateEstimate
                states.append(states.last! + estimate)
                cost.append(cost.last! + estimate * (1 + loopCount(pattern.filter.terms)))
            }
            var ranges: [Range<Int>] = []
            func split(_ range: Range<Int>) {
                if range.count > 1 && states[range.upperBound] - states[range.lowerBound] > 2 * limits.preferredNFAStatesPerDFA {
                    let middle = range.lowerBound + range.count / 2
                    split(range.lowerBound..<middle)
                    split(middle..<range.upperBound)
                } else {
                    ranges.append(range)
                }
            }
            split(patterns.indices)
            for range in ranges {
                let part = Group(origin: group.origin, start: group.start + range.lowerBound, patterns: taking(range, from: &patterns))
                groups.append((part, cost[range.upperBound] - cost[range.lowerBound]))
            }
        }
        return groups
    }

    /// A group's product, where the group came from (to put the products in order) and its sizes.
    struct BuiltGroup<Product: Sendable> {
        var origin: Int
        var start: Int
        var product: Product
        var sizes: GroupSizes
    }

    /// The products into their sets' results, in a fixed order (group, then position in it), and
    /// each set's failures in the order of their first pattern.
    private static func gather<Product: Sendable>(
        _ built: consuming [BuiltGroup<Product>], setOfOrigin: [Int], into results: inout [Partitioned<Product>]
    ) {
        // (Their places sorted, not the products: each product moved in a sort is a generic
        // copy, many times a place's.)
        let places = built.map { (origin: $0.origin, start: $0.start) }
        let order = places.indices.sorted { places[$0] < places[$1] }
        for index in results.indices {
            results[index].failures.sort { $0.patterns.first ?? PatternID(0) < $1.patterns.first ?? PatternID(0) }
        }
        for index in order {
            let item = built[index]
            let set = setOfOrigin[item.origin]
            results[set].dfas.append(item.product)
            results[set].nfaStates += item.sizes.nfa
            results[set].statesBeforeMinimization += item.sizes.beforeMinimization
            results[set].states += item.sizes.minimal
            results[set].transitions += item.sizes.transitions
        }
    }

    struct GroupSizes: Sendable {
        var nfa: Int
        var beforeMinimization: Int
        var minimal: Int
        var transitions: Int
    }

    enum GroupOutcome<Product: Sendable>: Sendable {
        case built(Product, GroupSizes)
        /// Too big for one DFA: build its halves (the group is handed back).
        case split(Group)
        /// One pattern too big alone.
        case failed(AutomataError)
        /// Not built: the DFAs built before it passed `maximumTotalTransitions`.
        case skipped
    }

    /// One group's minimal DFA, or why not. The group is consumed: its patterns are let go once
    /// its DFA is built (or handed back to be split).
    static func build<Product: Sendable>(
        _ group: consuming Group, limits: AutomataLimits, minimizing: Bool, phaseTimer: inout PhaseTimer,
        product: (DFA) -> Product
    ) -> GroupOutcome<Product> {
        let count = group.patterns.count
        // Unanchored patterns without loops make an Aho-Corasick automaton, which the subset
        // construction makes minimal or nearly: of literals, each state is the longest suffix of
        // the input that begins a pattern, and two such suffixes tell apart by the pattern one of
        // them completes; classes and optional terms let a few states agree (AutomataTests).
        // Refining such a DFA, a list's largest, would be the compile's longest step on one core:
        // not minimized, at the cost of a rare state in a file, never of an answer
        // (docs/decisions/DECISIONS.md).
        let isAhoCorasick = group.patterns.allSatisfy { !$0.filter.hasStartAnchor && loopCount($0.filter.matchedTerms) == 0 }
        let nfa = phaseTimer.measure(.nfa) { NFA(patterns: group.patterns) }
        if nfa.stateCount > limits.preferredNFAStatesPerDFA && count > 1 { return .split(group) }
        // Patterns whose loops multiply one another's states are better apart: a group's DFA
        // may have at most `blowUpFactor` times its NFA's states (a trie or an Aho-Corasick
        // automaton has about as many), else the group is split. A pattern alone gets the
        // whole limit.
        var groupLimits = limits
        if count > 1 {
            groupLimits.maximumDFAStates = min(limits.maximumDFAStates, max(Self.smallestGroupLimit, Self.blowUpFactor * nfa.stateCount))
        }
        let dfa: DFA
        do {
            dfa = try phaseTimer.measure(.dfa) { () throws(AutomataError) -> DFA in
                try SubsetConstruction.determinize(nfa, limits: groupLimits)
            }
        } catch {
            return count == 1 ? .failed(error) : .split(group)
        }
        let nfaStates = nfa.stateCount
        let letting = phaseTimer.begin(.nfa)  // (the NFA and its patterns let go: the NFA's stretch)
        _ = consume group
        _ = consume nfa
        phaseTimer.end(letting)
        let minimal = minimizing && !isAhoCorasick ? phaseTimer.measure(.minimize) { Minimizer.minimize(dfa) } : dfa
        let sizes = GroupSizes(
            nfa: nfaStates, beforeMinimization: dfa.stateCount, minimal: minimal.stateCount, transitions: dfa.liveTargets.count)
        return .built(phaseTimer.measure(.emit) { product(minimal) }, sizes)
    }
}

/// The patterns at `indices`, in that order, moved out of `patterns` (an empty pattern is left in
/// each place): not copied, so that each keeps its terms' only reference and is freed with the
/// group that takes it.
func taking<Indices: Sequence<Int>>(
    _ indices: Indices, from patterns: inout [(id: PatternID, filter: URLFilter)]
) -> [(id: PatternID, filter: URLFilter)] {
    indices.map { index in
        var taken = (id: PatternID(0), filter: URLFilter(source: "", isCaseSensitive: false, hasStartAnchor: false, hasEndAnchor: false, terms: []))
        swap(&taken, &patterns[index])
        return taken
    }
}

extension [URLFilterTerm] {
    /// The states Thompson's construction makes for these terms, at most 3 per term (a group's
    /// terms counted inside it, 4 more per group), plus 2 for a pattern's end.
    var stateEstimate: Int {
        reduce(2) { count, term in
            if case .group(let group) = term.atom { return count + 4 + group.leafTerms + 4 * group.innerGroups }
            return count + 1
        }
    }
}

/// The terms that repeat (`*`, `+`), groups included, at any depth.
func loopCount<Terms: Collection<URLFilterTerm>>(_ terms: Terms) -> Int {
    terms.reduce(0) { count, term in
        var inner = 0
        if case .group(let group) = term.atom { inner = group.repeatingTerms }
        return count + inner + (term.quantifier.allowsMany ? 1 : 0)
    }
}

/// Wall time per compilation phase. Each phase's start and end are also told to the timer's
/// `marker` when it has one: an instruction counter's region markers (Benchmarks/Cost/CostRegion.swift).
public struct PhaseTimer: Sendable {
    public enum Phase: String, CaseIterable, Sendable {
        case parse, plan, nfa, dfa, minimize, emit
    }

    /// Told where each phase starts and ends, on the thread that runs it.
    public protocol Marker: AnyObject, Sendable {
        func began(_ phase: Phase)
        func ended(_ phase: Phase)
    }

    /// Told each phase's start and end (nil: none). A timer made for a sub-task's time, to be
    /// added back (`add`), is made with its parent's marker: `PhaseTimer(marker: parent.marker)`.
    public let marker: (any Marker)?

    /// A phase under way (`begin`), for a phase whose start and end are not in one closure.
    public struct Started: Sendable {
        let phase: Phase
        let instant: ContinuousClock.Instant
    }

    public private(set) var nanoseconds: [Phase: UInt64] = [:]

    public init(marker: (any Marker)? = nil) {
        self.marker = marker
    }

    public mutating func measure<T, E: Error>(_ phase: Phase, _ body: () throws(E) -> T) throws(E) -> T {
        let started = begin(phase)
        defer { end(started) }
        return try body()
    }

    /// Starts `phase`; `end` adds its time.
    public func begin(_ phase: Phase) -> Started {
        marker?.began(phase)
        return Started(phase: phase, instant: ContinuousClock.now)
    }

    /// Adds the time since `started` to its phase.
    public mutating func end(_ started: Started) {
        let (seconds, attoseconds) = started.instant.duration(to: ContinuousClock.now).components
        nanoseconds[started.phase, default: 0] += UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        marker?.ended(started.phase)
    }

    public func seconds(_ phase: Phase) -> Double { Double(nanoseconds[phase] ?? 0) / 1e9 }

    /// Adds another timer's time (work done on another thread: phases then add up to more than
    /// the wall time). Its marker is not taken: this timer's stays.
    public mutating func add(_ other: PhaseTimer) {
        for (phase, time) in other.nanoseconds { nanoseconds[phase, default: 0] += time }
    }
}
