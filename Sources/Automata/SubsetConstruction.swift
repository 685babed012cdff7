// SubsetConstruction.swift — Automata
//
// NFA -> DFA by the subset construction over byte classes. A DFA state is the set of NFA states
// alive after some input; only the states that matter for the future are kept in the set (those
// with character transitions, and accept states), so that sets differing in epsilon-only states
// are one DFA state. The construction stops with a typed error when the DFA would outgrow the
// limits.

internal import URLFilterSyntax

public enum SubsetConstruction {
    public static func determinize(_ nfa: NFA, limits: AutomataLimits = .default) throws(AutomataError) -> DFA {
        var construction = Construction(nfa: nfa, limits: limits)
        return try construction.run()
    }
}

private struct Construction {
    let nfa: NFA
    let limits: AutomataLimits
    let byteClasses: ByteClasses
    /// For each NFA edge, the byte classes it covers.
    let edgeClasses: [ASCIISet]
    /// Whether an NFA state matters for the future: it has character transitions or accepts.
    let isImportant: [Bool]

    private var stamp: [UInt32]
    private var generation: UInt32 = 0
    private var stack: [UInt32] = []

    init(nfa: NFA, limits: AutomataLimits) {
        self.nfa = nfa
        self.limits = limits
        var sets = Array(Set(nfa.edgeSets))
        sets.sort { ($0.low, $0.high) < ($1.low, $1.high) }
        byteClasses = ByteClasses(refining: [ASCIISet([0])] + sets)
        var cache: [ASCIISet: ASCIISet] = [:]
        for set in sets { cache[set] = byteClasses.classes(of: set) }
        edgeClasses = nfa.edgeSets.map { cache[$0]! }
        isImportant = (0..<nfa.stateCount).map { state in
            nfa.edgeStart[state] != nfa.edgeStart[state + 1] || nfa.acceptedPattern[state] != UInt32.max
        }
        stamp = [UInt32](repeating: 0, count: nfa.stateCount)
    }

    /// The important states reachable from `seeds` by epsilon transitions, sorted.
    private mutating func closure(_ seeds: [UInt32]) -> [UInt32] {
        generation &+= 1
        var result: [UInt32] = []
        stack.removeAll(keepingCapacity: true)
        for seed in seeds where stamp[Int(seed)] != generation {
            stamp[Int(seed)] = generation
            stack.append(seed)
        }
        while let state = stack.popLast() {
            if isImportant[Int(state)] { result.append(state) }
            for edge in Int(nfa.epsilonStart[Int(state)])..<Int(nfa.epsilonStart[Int(state) + 1]) {
                let target = nfa.epsilonTargets[edge]
                if stamp[Int(target)] != generation {
                    stamp[Int(target)] = generation
                    stack.append(target)
                }
            }
        }
        result.sort()
        return result
    }

    mutating func run() throws(AutomataError) -> DFA {
        let classCount = byteClasses.count
        var seeds: [UInt32] = []
        let anchored = Int(nfa.anchoredRoot.rawValue), unanchored = Int(nfa.unanchoredRoot.rawValue)
        if nfa.edgeStart[anchored] != nfa.edgeStart[anchored + 1] || nfa.epsilonStart[anchored] != nfa.epsilonStart[anchored + 1] {
            seeds.append(nfa.anchoredRoot.rawValue)
        }
        // The unanchored root's own loop is its first edge; it matters only with patterns behind it.
        if Int(nfa.edgeStart[unanchored + 1] - nfa.edgeStart[unanchored]) > 1 || nfa.epsilonStart[unanchored] != nfa.epsilonStart[unanchored + 1] {
            seeds.append(nfa.unanchoredRoot.rawValue)
        }
        var sets: [[UInt32]] = [closure(seeds)]
        var index: [[UInt32]: UInt32] = [sets[0]: 0]
        var transitions: [UInt32] = []
        var acceptStart: [UInt32] = [0]
        var acceptedPatterns: [PatternID] = []
        var buckets = [[UInt32]](repeating: [], count: classCount)
        var distinct: [(class: Int, target: UInt32)] = []
        var current = 0
        var subsetEntries = sets[0].count
        while current < sets.count {
            let set = sets[current]
            for c in 0..<classCount { buckets[c].removeAll(keepingCapacity: true) }
            var accepts: [PatternID] = []
            for state in set {
                let pattern = nfa.acceptedPattern[Int(state)]
                if pattern != UInt32.max { accepts.append(PatternID(pattern)) }
                for edge in Int(nfa.edgeStart[Int(state)])..<Int(nfa.edgeStart[Int(state) + 1]) {
                    let target = nfa.edgeTargets[edge]
                    forEachMember(edgeClasses[edge]) { buckets[$0].append(target) }
                }
            }
            accepts.sort()
            acceptedPatterns.append(contentsOf: accepts)
            acceptStart.append(UInt32(acceptedPatterns.count))
            // Most classes lead to the same few buckets (a `[^/]+` loop covers nearly every
            // class): close each distinct bucket once.
            distinct.removeAll(keepingCapacity: true)
            for c in 0..<classCount {
                if buckets[c].isEmpty {
                    transitions.append(DFAStateID.dead.rawValue)
                    continue
                }
                if let seen = distinct.first(where: { buckets[$0.class] == buckets[c] }) {
                    transitions.append(seen.target)
                    continue
                }
                let next = closure(buckets[c])
                var target = DFAStateID.dead.rawValue
                if let known = index[next] {
                    target = known
                } else if !next.isEmpty {
                    target = UInt32(sets.count)
                    sets.append(next)
                    index[next] = target
                    subsetEntries += next.count
                    if subsetEntries > limits.maximumSubsetEntries {
                        throw .tooManySubsetEntries(limit: limits.maximumSubsetEntries, reached: subsetEntries, patterns: nfa.patterns)
                    }
                    if sets.count > limits.maximumDFAStates {
                        throw .tooManyStates(limit: limits.maximumDFAStates, reached: sets.count, patterns: nfa.patterns)
                    }
                    if sets.count * classCount > limits.maximumTransitionTableEntries {
                        throw .tooManyTransitions(
                            limit: limits.maximumTransitionTableEntries, reached: sets.count * classCount, patterns: nfa.patterns)
                    }
                }
                distinct.append((c, target))
                transitions.append(target)
            }
            sets[current] = []  // no longer needed: frees memory as the construction advances
            current += 1
        }
        return DFA(byteClasses: byteClasses, transitions: transitions, acceptStart: acceptStart, acceptedPatterns: acceptedPatterns)
    }
}

@inline(__always)
func forEachMember(_ set: ASCIISet, _ body: (Int) -> Void) {
    var low = set.low
    while low != 0 {
        body(low.trailingZeroBitCount)
        low &= low - 1
    }
    var high = set.high
    while high != 0 {
        body(64 + high.trailingZeroBitCount)
        high &= high - 1
    }
}
