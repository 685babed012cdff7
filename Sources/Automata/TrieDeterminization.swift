// TrieDeterminization.swift — Automata
//
// The subset construction of an unanchored trie, by suffix links. A list's unanchored patterns
// without loops (`/ads/banner.`, `-advert-`, the gates) share one DFA, an Aho-Corasick automaton:
// after any input, the NFA states alive are the unanchored root and, for each suffix of the input
// that some pattern starts with, the trie state that spells it. The general construction finds
// each of those sets by reading all of its states' edges on every byte class (the root's loop
// alone covers every class), then looking each class's targets up: a lookup per state and class,
// the product of two large numbers for a big list's automaton, on one core.
//
// Here each DFA state D is a pair (H, F): H the states of D's set farthest from the root (in a
// tree, those reached by the longest suffix), F the DFA state of the rest of the set, which is
// the state after that suffix less its first byte, found earlier. Then on a class c,
//
//     D --c--> (closure(H's targets on c), F --c-->)     when H has targets on c,
//     D --c--> (F --c-->)                                otherwise,
//
// because the states reached from H lie one level deeper than any reached from F. D's row is
// F's row with the classes H reads replaced: a copy and a handful of lookups per state, where
// the general construction hashes a set per class. The pair is canonical (the deepest states of
// a set, and the state of the rest), so equal sets are one DFA state as before, and states are
// numbered in the same order: the DFA is exactly the one `SubsetConstruction` makes, which
// AutomataTests check on generated and real pattern sets.
//
// It applies when the NFA is such a tree: nothing behind the anchored root, the unanchored root's
// loop its only way back, every other state reached by one edge or epsilon from a state made
// before it, and epsilons only to accept states, which have no way out. Otherwise (a quantifier,
// a group, an anchored pattern) the general construction runs.

extension Construction {
    /// The DFA of a tree-shaped unanchored NFA (see above), or nil when the NFA is not one.
    mutating func determinizeTrie() throws(AutomataError) -> DFA? {
        guard isUnanchoredTrie() else { return nil }
        let classCount = byteClasses.count
        let dead = DFAStateID.dead.rawValue
        let root = nfa.unanchoredRoot.rawValue
        let loop = Int(nfa.edgeStart[Int(root)])
        let loopClasses = edgeClasses[loop]

        // Per DFA state: its H (a number in `heads`), its F (dead for the start state, whose
        // rest is the root's loop), and the size of its set (for the limits, as the general
        // construction counts them).
        var heads = SetTable(nfaStates: nfa.stateCount)
        var headOf: [UInt32] = []
        var restOf: [UInt32] = []
        var sizeOf: [Int] = []
        var pairs = PairTable()
        var entries = 1
        _ = heads.insert(CollectionOfOne(root))
        headOf.append(0)
        restOf.append(dead)
        sizeOf.append(1)

        var rowStart: [UInt32] = [0]
        var liveClasses: [UInt8] = []
        var liveTargets: [UInt32] = []
        var acceptStart: [UInt32] = [0]
        var acceptedPatterns: [PatternID] = []
        liveClasses.reserveCapacity(classCount * 64)
        liveTargets.reserveCapacity(classCount * 64)

        // The rest's target on each class (dense), and H's targets as (class, target) pairs.
        var restRow = [UInt32](repeating: dead, count: classCount)
        var steps: [(byteClass: Int, target: UInt32)] = []
        var targets: [UInt32] = []
        var scratch: [UInt32] = []
        var head: [UInt32] = []

        var current = 0
        while current < headOf.count {
            let rest = restOf[current]
            head.removeAll(keepingCapacity: true)
            head.append(contentsOf: heads[Int(headOf[current])])

            // Accepts: H's patterns and the rest's (no pattern is in both: each has one accept state).
            let acceptsBefore = acceptedPatterns.count
            for state in head where nfa.acceptedPattern[Int(state)] != UInt32.max {
                acceptedPatterns.append(PatternID(nfa.acceptedPattern[Int(state)]))
            }
            if rest != dead {
                for index in Int(acceptStart[Int(rest)])..<Int(acceptStart[Int(rest) + 1]) {
                    acceptedPatterns.append(acceptedPatterns[index])
                }
            }
            if acceptedPatterns.count - acceptsBefore > 1 { acceptedPatterns[acceptsBefore...].sort() }
            acceptStart.append(UInt32(acceptedPatterns.count))

            // The rest's row; for the start state, the root's loop back to itself.
            for byteClass in 0..<classCount { restRow[byteClass] = dead }
            if rest != dead {
                for live in Int(rowStart[Int(rest)])..<Int(rowStart[Int(rest) + 1]) {
                    restRow[Int(liveClasses[live])] = liveTargets[live]
                }
            } else if current == 0 {
                forEachMember(loopClasses) { restRow[$0] = 0 }
            }

            steps.removeAll(keepingCapacity: true)
            for state in head {
                for edge in Int(nfa.edgeStart[Int(state)])..<Int(nfa.edgeStart[Int(state) + 1]) where edge != loop {
                    let target = nfa.edgeTargets[edge]
                    forEachMember(edgeClasses[edge]) { steps.append((byteClass: $0, target: target)) }
                }
            }
            if steps.count > 1 { steps.sort { $0.byteClass < $1.byteClass } }

            var step = 0
            for byteClass in 0..<classCount {
                var target = restRow[byteClass]
                if step < steps.count && steps[step].byteClass == byteClass {
                    targets.removeAll(keepingCapacity: true)
                    while step < steps.count && steps[step].byteClass == byteClass {
                        targets.append(steps[step].target)
                        step += 1
                    }
                    closure(targets, into: &scratch)
                    if !scratch.isEmpty {
                        let (headNumber, _) = heads.insert(scratch)
                        let (state, isNew) = pairs.insert(head: headNumber, rest: target, next: UInt32(headOf.count))
                        if isNew {
                            headOf.append(headNumber)
                            restOf.append(target)
                            let size = scratch.count + (target == dead ? 0 : sizeOf[Int(target)])
                            sizeOf.append(size)
                            entries += size
                            try checkLimits(entries: entries, states: headOf.count)
                        }
                        target = state
                    }
                }
                if target != dead {
                    liveClasses.append(UInt8(byteClass))
                    liveTargets.append(target)
                }
            }
            rowStart.append(UInt32(liveClasses.count))
            current += 1
        }
        return DFA(
            byteClasses: byteClasses, rowStart: rowStart, liveClasses: liveClasses, liveTargets: liveTargets, acceptStart: acceptStart,
            acceptedPatterns: acceptedPatterns)
    }

    /// Whether the NFA is a tree under the unanchored root (the file's comment): read in one pass
    /// over the states, each state's ways out.
    func isUnanchoredTrie() -> Bool {
        let anchored = Int(nfa.anchoredRoot.rawValue), root = Int(nfa.unanchoredRoot.rawValue)
        guard nfa.edgeStart[anchored] == nfa.edgeStart[anchored + 1], nfa.epsilonStart[anchored] == nfa.epsilonStart[anchored + 1],
            nfa.epsilonStart[root] == nfa.epsilonStart[root + 1], nfa.edgeStart[root + 1] - nfa.edgeStart[root] > 1,
            nfa.edgeTargets[Int(nfa.edgeStart[root])] == UInt32(root)
        else { return false }
        var reached = [Bool](repeating: false, count: nfa.stateCount)
        for state in 0..<nfa.stateCount {
            let firstEdge = Int(nfa.edgeStart[state]) + (state == root ? 1 : 0)
            for edge in firstEdge..<Int(nfa.edgeStart[state + 1]) {
                let target = Int(nfa.edgeTargets[edge])
                guard target > state, !reached[target] else { return false }
                reached[target] = true
            }
            for edge in Int(nfa.epsilonStart[state])..<Int(nfa.epsilonStart[state + 1]) {
                let target = Int(nfa.epsilonTargets[edge])
                guard target > state, !reached[target], nfa.acceptedPattern[target] != UInt32.max,
                    nfa.edgeStart[target] == nfa.edgeStart[target + 1], nfa.epsilonStart[target] == nfa.epsilonStart[target + 1]
                else { return false }
                reached[target] = true
            }
        }
        return true
    }
}

/// DFA states by their (H, F) pair: an open-addressing table (linear probing, at most half full).
private struct PairTable {
    private var keys: [UInt64] = []
    private var values: [UInt32] = []
    private var count = 0

    init() {
        keys = [UInt64](repeating: .max, count: 1024)
        values = [UInt32](repeating: 0, count: 1024)
    }

    /// The state of (head, rest), `next` (and true) when the pair is new.
    mutating func insert(head: UInt32, rest: UInt32, next: UInt32) -> (UInt32, Bool) {
        let key = UInt64(head) << 32 | UInt64(rest)
        let mask = keys.count - 1
        var slot = Int(truncatingIfNeeded: mixHash(0x9E37_79B9_7F4A_7C15, key)) & mask
        while keys[slot] != .max {
            if keys[slot] == key { return (values[slot], false) }
            slot = (slot + 1) & mask
        }
        keys[slot] = key
        values[slot] = next
        count += 1
        if 2 * count > keys.count { grow() }
        return (next, true)
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = [UInt64](repeating: .max, count: 2 * oldKeys.count)
        values = [UInt32](repeating: 0, count: 2 * oldKeys.count)
        let mask = keys.count - 1
        for (index, key) in oldKeys.enumerated() where key != .max {
            var slot = Int(truncatingIfNeeded: mixHash(0x9E37_79B9_7F4A_7C15, key)) & mask
            while keys[slot] != .max { slot = (slot + 1) & mask }
            keys[slot] = key
            values[slot] = oldValues[index]
        }
    }
}
