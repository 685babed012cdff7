// Minimizer.swift — Automata
//
// DFA minimization. Equivalent states report the same patterns and lead, class by class, nowhere
// alike or to equivalent states; the minimal DFA has one state per class of equivalent states.
//
// A DFA without cycles (the tries of a stage's suffixes without loops: most of EasyList's and
// EasyPrivacy's states) is minimized in one pass (Revuz, "Minimisation of acyclic deterministic
// automata in linear time", 1992): in reverse topological order, a state's successors already
// have their class, so its class is found by hashing its accept list and its row of successor
// classes. Any other DFA by partition refinement (Valmari and Lehtinen, "Efficient minimization of
// DFAs with partial transition functions", 2008): O((n + m) log n) for n states and m defined
// transitions, with no dead state added, the initial partition grouping states by the patterns
// they report. Both find the same (coarsest) partition, and the minimal DFA is numbered from it
// alike, so the choice never changes a byte, only the time: on the tries, which it cannot shrink,
// the refinement would take a sixth of EasyList's compile.
// Tested by AutomataTests/StagePropertyTests.swift (against the subset construction and PCRE2;
// minimal by a refinement written apart) and AutomataTests.swift (both methods alike).

public enum Minimizer {
    public static func minimize(_ dfa: DFA) -> DFA {
        quotient(dfa, by: acyclicClasses(dfa) ?? refinedClasses(dfa))
    }

    /// The same by partition refinement whatever the DFA (for the tests).
    static func minimizeByRefinement(_ dfa: DFA) -> DFA { quotient(dfa, by: refinedClasses(dfa)) }

    /// The classes of equivalent states of a DFA without cycles (nil when it has one): a class
    /// number per state, and how many.
    static func acyclicClasses(_ dfa: DFA) -> (classOf: [Int32], count: Int)? {
        let n = dfa.stateCount
        let classes = dfa.liveClasses, targets = dfa.liveTargets
        // Kahn's topological order; a cycle leaves states out.
        var incoming = [Int32](repeating: 0, count: n)
        for target in targets { incoming[Int(target)] += 1 }
        var order: [Int32] = []
        order.reserveCapacity(n)
        for state in 0..<n where incoming[state] == 0 { order.append(Int32(state)) }
        var head = 0
        while head < order.count {
            let state = Int(order[head])
            head += 1
            for live in dfa.row(state) {
                let target = Int(targets[live])
                incoming[target] -= 1
                if incoming[target] == 0 { order.append(Int32(target)) }
            }
        }
        guard order.count == n else { return nil }

        // Successors first: a state's signature is its accept list and its row of (class,
        // successor's class).
        var classOf = [Int32](repeating: -1, count: n)
        var representative: [Int32] = []
        var hashes: [Int] = []
        var slots = [Int32](repeating: -1, count: hashTableSize(for: n))
        let mask = slots.count - 1
        func sameRows(_ state: Int, _ other: Int) -> Bool {
            let row = dfa.row(state), otherRow = dfa.row(other)
            guard row.count == otherRow.count else { return false }
            return zip(row, otherRow).allSatisfy { live, otherLive in
                classes[live] == classes[otherLive] && classOf[Int(targets[live])] == classOf[Int(targets[otherLive])]
            }
        }
        for state in order.reversed().lazy.map(Int.init) {
            let accepts = dfa.accepted(by: DFAStateID(state))
            var mixed = accepts.reduce(0x9E37_79B9_7F4A_7C15 ^ UInt64(accepts.count)) { mixHash($0, UInt64($1.rawValue)) }
            for live in dfa.row(state) {
                mixed = mixHash(mixed, UInt64(classes[live]) << 32 | UInt64(UInt32(bitPattern: classOf[Int(targets[live])])))
            }
            let hash = Int(truncatingIfNeeded: mixed)
            var slot = hash & mask
            while slots[slot] >= 0 {
                let candidate = Int(slots[slot])
                let other = Int(representative[candidate])
                if hashes[candidate] == hash && dfa.accepted(by: DFAStateID(other)) == accepts && sameRows(state, other) { break }
                slot = (slot + 1) & mask
            }
            if slots[slot] >= 0 {
                classOf[state] = slots[slot]
            } else {
                slots[slot] = Int32(representative.count)
                classOf[state] = Int32(representative.count)
                representative.append(Int32(state))
                hashes.append(hash)
            }
        }
        return (classOf, representative.count)
    }

    /// The classes of equivalent states by partition refinement.
    static func refinedClasses(_ dfa: DFA) -> (classOf: [Int32], count: Int) {
        dfa.liveClasses.withUnsafeBufferPointer { labels in
            dfa.liveTargets.withUnsafeBufferPointer { heads in refinedClasses(dfa, labels: labels, heads: heads) }
        }
    }

    /// The same, the defined transitions read in place: transition t (a DFA's live transition,
    /// row after row) leads from its row's state on class `labels[t]` to state `heads[t]`.
    private static func refinedClasses(
        _ dfa: DFA, labels: UnsafeBufferPointer<UInt8>, heads: UnsafeBufferPointer<UInt32>
    ) -> (classOf: [Int32], count: Int) {
        let n = dfa.stateCount, k = dfa.classCount, m = heads.count
        // Scratch in raw memory (written once per transition each, where array writes would pay
        // a uniqueness check apiece): the tails, then the transitions by label and by head.
        let tails = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(m, 1))
        let incoming = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(m, 1))
        let incomingStart = UnsafeMutableBufferPointer<Int32>.allocate(capacity: n + 1)
        defer {
            tails.deallocate()
            incoming.deallocate()
            incomingStart.deallocate()
        }
        for state in 0..<n {
            for t in dfa.row(state) { tails[t] = Int32(truncatingIfNeeded: state) }
        }

        // Blocks of states, seeded by accept sets.
        let blocks = RefinablePartition(count: n)
        var acceptGroups: [ArraySlice<PatternID>: [Int32]] = [:]
        for state in 0..<n {
            let accepts = dfa.accepted(by: DFAStateID(state))
            if !accepts.isEmpty { acceptGroups[accepts, default: []].append(Int32(state)) }
        }
        for group in acceptGroups.values.sorted(by: { $0[0] < $1[0] }) {
            for state in group { blocks.mark(Int(state)) }
            blocks.split()
        }

        // Cords of transitions, seeded by label: a counting sort (labels are byte classes, fewer
        // than 257), where a comparison sort would be a sixth of KaBlock's compile.
        let cords = RefinablePartition(count: m)
        if m > 0 {
            var labelStart = [Int](repeating: 0, count: k + 1)
            for t in 0..<m { labelStart[Int(labels[t]) + 1] += 1 }
            for label in 0..<k { labelStart[label + 1] += labelStart[label] }
            // (The incoming list's memory, free until the transitions by head are placed.)
            for t in 0..<m {
                incoming[labelStart[Int(labels[t])]] = Int32(t)
                labelStart[Int(labels[t])] += 1
            }
            cords.setInitial(order: UnsafeBufferPointer(incoming)) { Int32(labels[$0]) }
        }

        // Incoming transitions of each state: counted, then placed (a counting sort by head).
        incomingStart.initialize(repeating: 0)
        for t in 0..<m { incomingStart[Int(heads[t]) + 1] += 1 }
        for s in 0..<n { incomingStart[s + 1] += incomingStart[s] }
        for t in 0..<m {
            let head = Int(heads[t])
            incoming[Int(incomingStart[head])] = Int32(t)
            incomingStart[head] += 1
        }
        // Each start was moved to the next one's: shifted back.
        for s in stride(from: n, to: 0, by: -1) { incomingStart[s] = incomingStart[s - 1] }
        incomingStart[0] = 0

        var nextBlock = 1, nextCord = 0
        while nextCord < cords.setCount {
            for i in cords.members(nextCord) {
                blocks.mark(Int(tails[Int(cords.elements[i])]))
            }
            blocks.split()
            nextCord += 1
            while nextBlock < blocks.setCount {
                for i in blocks.members(nextBlock) {
                    let state = Int(blocks.elements[i])
                    for j in Int(incomingStart[state])..<Int(incomingStart[state + 1]) { cords.mark(Int(incoming[j])) }
                }
                cords.split()
                nextBlock += 1
            }
        }

        return (blocks.classes, blocks.setCount)
    }

    /// The DFA of the classes: the start state's class is state 0, the others follow in order of
    /// their first state.
    static func quotient(_ dfa: DFA, by classes: (classOf: [Int32], count: Int)) -> DFA {
        let n = dfa.stateCount
        // Every state its own class: the DFA is minimal already, and the numbering below would
        // give each state its own number. (The tries of a stage's suffixes: minimal as built,
        // and a copy of their tables would be a large part of the compile's memory.)
        if classes.count == n { return dfa }
        let classOf = classes.classOf
        var number = [Int](repeating: -1, count: classes.count)
        var order: [Int] = []
        for state in 0..<n where number[Int(classOf[state])] < 0 {
            number[Int(classOf[state])] = order.count
            order.append(state)
        }
        var rowStart: [UInt32] = [0]
        var liveClasses: [UInt8] = []
        var liveTargets: [UInt32] = []
        var acceptStart: [UInt32] = [0]
        var acceptedPatterns: [PatternID] = []
        for representative in order {
            for live in dfa.row(representative) {
                liveClasses.append(dfa.liveClasses[live])
                liveTargets.append(UInt32(number[Int(classOf[Int(dfa.liveTargets[live])])]))
            }
            rowStart.append(UInt32(liveClasses.count))
            acceptedPatterns.append(contentsOf: dfa.accepted(by: DFAStateID(representative)))
            acceptStart.append(UInt32(acceptedPatterns.count))
        }
        return DFA(
            byteClasses: dfa.byteClasses, rowStart: rowStart, liveClasses: liveClasses, liveTargets: liveTargets,
            acceptStart: acceptStart, acceptedPatterns: acceptedPatterns)
    }
}

/// A partition of 0..<count into sets, refined by marking elements and splitting each touched set
/// into its marked and unmarked parts (the smaller part becomes the new set). Stored as Int32: the
/// partition of transitions has an entry per transition in six arrays, and with 8-byte entries
/// the minimizer would be a large part of a big list's compile memory. The arrays are raw memory
/// the partition owns: `mark` runs once per transition and more, and as array writes each of its
/// six stores would pay a uniqueness check and a bounds check, most of the refinement's time.
private final class RefinablePartition {
    private(set) var setCount: Int
    private let count: Int
    private let capacity: Int
    /// The elements, each set's members side by side; `location` is each element's place there.
    let elements: UnsafeMutablePointer<Int32>
    private let location: UnsafeMutablePointer<Int32>
    let setOf: UnsafeMutablePointer<Int32>
    /// Each set's members are `elements[first[set]..<past[set]]`, its marked ones first.
    private let first: UnsafeMutablePointer<Int32>
    private let past: UnsafeMutablePointer<Int32>
    private let marked: UnsafeMutablePointer<Int32>
    /// The sets with a marked member (each once: at most one per set).
    private let touched: UnsafeMutablePointer<Int32>
    private var touchedCount = 0

    init(count: Int) {
        self.count = count
        capacity = max(count, 1)
        setCount = count > 0 ? 1 : 0
        func allocate(_ size: Int) -> UnsafeMutablePointer<Int32> {
            let pointer = UnsafeMutablePointer<Int32>.allocate(capacity: size)
            pointer.initialize(repeating: 0, count: size)
            return pointer
        }
        elements = allocate(capacity)
        location = allocate(capacity)
        setOf = allocate(capacity)
        first = allocate(capacity)
        past = allocate(capacity)
        marked = allocate(capacity + 1)
        touched = allocate(capacity)
        for element in 0..<count {
            elements[element] = Int32(element)
            location[element] = Int32(element)
        }
        if count > 0 { past[0] = Int32(count) }
    }

    deinit {
        for pointer in [elements, location, setOf, first, past, marked, touched] { pointer.deallocate() }
    }

    /// The set of each element.
    var classes: [Int32] { Array(UnsafeBufferPointer(start: setOf, count: count)) }

    /// Replaces the single initial set by the runs of `order` with equal keys.
    func setInitial(order: UnsafeBufferPointer<Int32>, key: (Int) -> Int32) {
        setCount = 0
        var current: Int32? = nil
        for (position, element) in order.enumerated() {
            elements[position] = element
            let value = key(Int(element))
            if value != current {
                if setCount > 0 { past[setCount - 1] = Int32(position) }
                first[setCount] = Int32(position)
                setCount += 1
                current = value
            }
            setOf[Int(element)] = Int32(setCount - 1)
            location[Int(element)] = Int32(position)
        }
        past[setCount - 1] = Int32(order.count)
    }

    @inline(__always)
    func members(_ set: Int) -> Range<Int> { Int(first[set])..<Int(past[set]) }

    @inline(__always)
    func mark(_ element: Int) {
        let set = Int(setOf[element])
        let i = Int(location[element])
        let j = Int(first[set] &+ marked[set])
        guard i >= j else { return }  // already marked
        let moved = elements[j]
        elements[i] = moved
        location[Int(moved)] = Int32(truncatingIfNeeded: i)
        elements[j] = Int32(truncatingIfNeeded: element)
        location[element] = Int32(truncatingIfNeeded: j)
        if marked[set] == 0 {
            touched[touchedCount] = Int32(truncatingIfNeeded: set)
            touchedCount += 1
        }
        marked[set] &+= 1
    }

    func split() {
        while touchedCount > 0 {
            touchedCount -= 1
            let set = Int(touched[touchedCount])
            let j = first[set] + marked[set]
            if j == past[set] {
                marked[set] = 0
                continue
            }
            let new = setCount
            if marked[set] <= past[set] - j {
                first[new] = first[set]
                past[new] = j
                first[set] = j
            } else {
                past[new] = past[set]
                first[new] = j
                past[set] = j
            }
            for i in members(new) { setOf[Int(elements[i])] = Int32(new) }
            marked[set] = 0
            marked[new] = 0
            setCount += 1
        }
    }
}
