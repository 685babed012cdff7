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

internal import URLFilterSyntax

extension Construction {
    /// The DFA of a tree-shaped unanchored NFA (see above), or nil when the NFA is not one.
    mutating func determinizeTrie() throws(AutomataError) -> DFA? {
        guard isUnanchoredTrie() else { return nil }
        let classCount = byteClasses.count
        let dead = DFAStateID.dead.rawValue
        let loop = Int(nfa.edgeStart[Int(nfa.unanchoredRoot.rawValue)])
        // (Read through locals in the closure below: through `self`, each call would copy the
        // construction.)
        let nfa = nfa, edgeClasses = edgeClasses
        var states = TrieStates(nfaStates: nfa.stateCount, root: nfa.unanchoredRoot.rawValue)
        var rows = DFARows()
        defer {
            rows.deallocate()
            states.heads.deallocate()
        }
        // The start state's rest: the root's loop back to the start state.
        let loopRow = LiveRows(capacity: classCount)
        defer { loopRow.deallocate() }
        var loopLength = 0
        edgeClasses[loop].forEachMember { byteClass in
            loopRow.classes[loopLength] = UInt8(byteClass)
            loopRow.targets[loopLength] = 0
            loopLength += 1
        }

        // H's targets as (class, target) pairs.
        var steps: [(byteClass: Int, target: UInt32)] = []

        var current = 0
        while current < states.count {
            let rest = states.restOf[current]
            // A row has at most a transition per class: room for it now, so that the rest's row
            // read below stays where it is while this one is written.
            rows.beginRow(classCount: classCount)
            states.heads.withSet(Int(states.headOf[current])) { head in
                Self.appendAccepts(of: head, in: nfa, rest: rest, to: &rows)
                Self.read(stepsOf: head, in: nfa, edgeClasses: edgeClasses, loop: loop, into: &steps)
            }
            var restClasses = UnsafePointer(loopRow.classes), restTargets = UnsafePointer(loopRow.targets)
            var restLength = current == 0 ? loopLength : 0
            if rest != dead {
                let from = Int(rows.rowStart[Int(rest)])
                (restClasses, restTargets) = (UnsafePointer(rows.live.classes + from), UnsafePointer(rows.live.targets + from))
                restLength = Int(rows.rowStart[Int(rest) + 1]) - from
            }
            // D's row: the rest's, with the classes H reads leading to (H's targets, the rest's).
            // The rest's transitions on the classes between those are copied a run at a time (a
            // state reads a class or two of the dozens its rest's row holds).
            var copied = 0
            var step = 0
            while step < steps.count {
                let byteClass = steps[step].byteClass
                let past = Self.firstClass(notBelow: byteClass, in: restClasses, from: copied, to: restLength)
                rows.live.append(restClasses + copied, restTargets + copied, count: past - copied)
                var target = dead
                copied = past
                if past < restLength && Int(restClasses[past]) == byteClass {
                    target = restTargets[past]
                    copied += 1
                }
                let first = step
                while step < steps.count && steps[step].byteClass == byteClass { step += 1 }
                let reached = closure(steps[first..<step].lazy.map(\.target))
                if !reached.isEmpty {
                    let (state, isNew) = states.insert(head: reached, rest: target)
                    if isNew { try checkLimits(entries: states.entries, states: states.count) }
                    target = state
                }
                if target != dead { rows.append(byteClass, target) }
            }
            rows.live.append(restClasses + copied, restTargets + copied, count: restLength - copied)
            rows.endRow()
            current += 1
        }
        return rows.dfa(byteClasses)
    }

    /// The first index in `from..<to` of sorted `classes` whose class is `byteClass` or more
    /// (`to` when none is), by halves: a row holds dozens of classes, of which a state reads one
    /// or two.
    @inline(__always)
    private static func firstClass(notBelow byteClass: Int, in classes: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        var (low, high) = (from, to)
        while low < high {
            let middle = (low + high) / 2
            if Int(classes[middle]) < byteClass { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// A state's accepts: H's patterns and the rest's (no pattern is in both: each has one accept
    /// state).
    @inline(__always)
    private static func appendAccepts(of head: UnsafeBufferPointer<UInt32>, in nfa: NFA, rest: UInt32, to rows: inout DFARows) {
        let acceptsBefore = rows.acceptedPatterns.count
        for state in head where nfa.acceptedPattern[Int(state)] != UInt32.max {
            rows.acceptedPatterns.append(PatternID(nfa.acceptedPattern[Int(state)]))
        }
        if rest != DFAStateID.dead.rawValue {
            for index in Int(rows.acceptStart[Int(rest)])..<Int(rows.acceptStart[Int(rest) + 1]) {
                rows.acceptedPatterns.append(rows.acceptedPatterns[index])
            }
        }
        rows.endAccepts(from: acceptsBefore)
    }

    /// H's edges (but the root's loop) as (class, target) pairs, by class.
    @inline(__always)
    private static func read(
        stepsOf head: UnsafeBufferPointer<UInt32>, in nfa: NFA, edgeClasses: [ASCIISet], loop: Int,
        into steps: inout [(byteClass: Int, target: UInt32)]
    ) {
        steps.removeAll(keepingCapacity: true)
        for state in head {
            for edge in Int(nfa.edgeStart[Int(state)])..<Int(nfa.edgeStart[Int(state) + 1]) where edge != loop {
                let target = nfa.edgeTargets[edge]
                edgeClasses[edge].forEachMember { steps.append((byteClass: $0, target: target)) }
            }
        }
        // A state reads a class or two: sorted by insertion (a comparison sort's set-up would
        // cost more), but for a state with many edges (the root).
        guard steps.count <= 16 else { return steps.sort { $0.byteClass < $1.byteClass } }
        var sorted = 1
        while sorted < steps.count {
            let step = steps[sorted]
            var place = sorted
            while place > 0 && steps[place - 1].byteClass > step.byteClass {
                steps[place] = steps[place - 1]
                place -= 1
            }
            steps[place] = step
            sorted += 1
        }
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

/// The DFA states of the suffix-link construction, numbered as made: per state, its H (a number
/// in `heads`), its F (dead for the start state, whose rest is the root's loop), and the size of
/// its set (for the limits, as the general construction counts them).
private struct TrieStates {
    var heads: SetTable
    var headOf: [UInt32] = [0]
    var restOf: [UInt32] = [DFAStateID.dead.rawValue]
    var sizeOf: [Int] = [1]
    var pairs: PairTable
    /// NFA states in all sets together.
    var entries = 1

    /// The start state: the root alone.
    init(nfaStates: Int, root: UInt32) {
        heads = SetTable(nfaStates: nfaStates)
        // Sized for about a DFA state per NFA state, as a trie's DFA has (rehashing the table at
        // each doubling would cost more than its slots' memory).
        pairs = PairTable(capacity: nfaStates)
        _ = withUnsafePointer(to: root) { heads.insert(UnsafeBufferPointer(start: $0, count: 1)) }
    }

    var count: Int { headOf.count }

    /// The state of (H, F) for H the states `head`, and whether it is new.
    @inline(__always)
    mutating func insert(head: UnsafeBufferPointer<UInt32>, rest: UInt32) -> (UInt32, Bool) {
        let (headNumber, _) = heads.insert(head)
        let (state, isNew) = pairs.insert(head: headNumber, rest: rest, next: UInt32(headOf.count))
        if isNew {
            headOf.append(headNumber)
            restOf.append(rest)
            let size = head.count + (rest == DFAStateID.dead.rawValue ? 0 : sizeOf[Int(rest)])
            sizeOf.append(size)
            entries += size
        }
        return (state, isNew)
    }
}

/// DFA states by their (H, F) pair: an open-addressing table (linear probing, at most half full).
private struct PairTable {
    private var keys: [UInt64] = []
    private var values: [UInt32] = []
    private var count = 0

    /// Room for `capacity` pairs before the table grows.
    init(capacity: Int) {
        keys = [UInt64](repeating: .max, count: hashTableSize(for: capacity))
        values = [UInt32](repeating: 0, count: keys.count)
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
