// SubsetConstruction.swift — Automata
//
// NFA -> DFA by the subset construction over byte classes. A DFA state is the set of NFA states
// alive after some input; only the states that matter for the future are kept in the set (those
// with character transitions, and accept states), so that sets differing in epsilon-only states
// are one DFA state. The construction stops with a typed error when the DFA would outgrow the
// limits.
// Tested by AutomataTests/StagePropertyTests.swift (against the NFA and PCRE2), AutomataTests.swift
// (the typed limit errors) and TrieDeterminizationTests.swift.

internal import URLFilterSyntax

public enum SubsetConstruction {
    public static func determinize(_ nfa: NFA, limits: AutomataLimits = .default) throws(AutomataError) -> DFA {
        try determinize(nfa, limits: limits, readingTries: true)
    }

    /// `readingTries`: an unanchored trie's DFA by suffix links (TrieDeterminization.swift);
    /// false: by the general construction alone (for tests that hold the two to each other).
    static func determinize(_ nfa: NFA, limits: AutomataLimits, readingTries: Bool) throws(AutomataError) -> DFA {
        var construction = Construction(nfa: nfa, limits: limits)
        defer { construction.deallocate() }
        if readingTries, let dfa = try construction.determinizeTrie() { return dfa }
        return try construction.run()
    }
}

struct Construction {
    let nfa: NFA
    let limits: AutomataLimits
    let byteClasses: ByteClasses
    /// For each NFA edge, the byte classes it covers.
    let edgeClasses: [ASCIISet]
    /// Whether an NFA state matters for the future: it has character transitions or accepts.
    let isImportant: [Bool]

    /// Closure's working memory, as raw buffers: writes to an array held by a struct would check
    /// its uniqueness each time, a tenth of the construction. `stamp[s] == generation`
    /// marks the states reached by the closure under way; `stack` holds at most every state once,
    /// and `closed` the closure's result.
    private let stamp: UnsafeMutableBufferPointer<UInt32>
    private let stack: UnsafeMutableBufferPointer<UInt32>
    private let closed: UnsafeMutableBufferPointer<UInt32>
    private var generation: UInt32 = 0

    init(nfa: NFA, limits: AutomataLimits) {
        self.nfa = nfa
        self.limits = limits
        // Each distinct edge set of several characters numbered once, in an open-addressing
        // table with a cheap hash (hashing every edge's set with SipHash, twice, would be a tenth
        // of the construction); a set of one character (most of them) is its character's class.
        var sets: [ASCIISet] = []
        var slots = [Int32](repeating: -1, count: min(1024, hashTableSize(for: nfa.edgeSets.count)))
        var setOfEdge: [Int32] = []
        setOfEdge.reserveCapacity(nfa.edgeSets.count)
        var characters = ASCIISet()
        for set in nfa.edgeSets {
            if set.count == 1 {
                characters = characters.union(set)
                setOfEdge.append(-1)
                continue
            }
            var slot = Int(truncatingIfNeeded: mixHash(mixHash(0, set.low), set.high)) & (slots.count - 1)
            while slots[slot] >= 0 && sets[Int(slots[slot])] != set { slot = (slot + 1) & (slots.count - 1) }
            if slots[slot] < 0 {
                slots[slot] = Int32(sets.count)
                sets.append(set)
                if 2 * sets.count > slots.count {
                    slots = [Int32](repeating: -1, count: 2 * slots.count)
                    for (index, known) in sets.enumerated() {
                        var free = Int(truncatingIfNeeded: mixHash(mixHash(0, known.low), known.high)) & (slots.count - 1)
                        while slots[free] >= 0 { free = (free + 1) & (slots.count - 1) }
                        slots[free] = Int32(index)
                    }
                }
                setOfEdge.append(Int32(sets.count - 1))
            } else {
                setOfEdge.append(slots[slot])
            }
        }
        let refined = ByteClasses(singling: characters.union(.nul), refining: sets)
        byteClasses = refined
        let classesOfSet = sets.map { refined.classes(of: $0) }
        edgeClasses = zip(nfa.edgeSets, setOfEdge).map { set, number in
            number >= 0 ? classesOfSet[Int(number)] : ASCIISet(refined.classOfByte[Int(set.lowest!)])
        }
        isImportant = (0..<nfa.stateCount).map { state in
            nfa.edgeStart[state] != nfa.edgeStart[state + 1] || nfa.acceptedPattern[state] != UInt32.max
        }
        stamp = .allocate(capacity: nfa.stateCount)
        stamp.initialize(repeating: 0)
        stack = .allocate(capacity: nfa.stateCount)
        closed = .allocate(capacity: nfa.stateCount)
    }

    func deallocate() {
        stamp.deallocate()
        stack.deallocate()
        closed.deallocate()
    }

    /// The important states reachable from `seeds` by epsilon transitions, sorted: valid until
    /// the next closure.
    mutating func closure<Seeds: Sequence<UInt32>>(_ seeds: Seeds) -> UnsafeBufferPointer<UInt32> {
        generation &+= 1
        if generation == 0 {
            // Wrapped around: old marks could look current.
            stamp.update(repeating: 0)
            generation = 1
        }
        var count = 0
        var height = 0
        for seed in seeds where stamp[Int(seed)] != generation {
            stamp[Int(seed)] = generation
            stack[height] = seed
            height += 1
        }
        while height > 0 {
            height -= 1
            let state = stack[height]
            if isImportant[Int(state)] {
                closed[count] = state
                count += 1
            }
            for edge in Int(nfa.epsilonStart[Int(state)])..<Int(nfa.epsilonStart[Int(state) + 1]) {
                let target = nfa.epsilonTargets[edge]
                if stamp[Int(target)] != generation {
                    stamp[Int(target)] = generation
                    stack[height] = target
                    height += 1
                }
            }
        }
        var result = UnsafeMutableBufferPointer(rebasing: closed[..<count])
        if count > 1 { result.sort() }
        return UnsafeBufferPointer(result)
    }

    /// The limits, checked after each new DFA state: the NFA states in all sets together, the
    /// DFA states, their transitions.
    func checkLimits(entries: Int, states: Int) throws(AutomataError) {
        if entries > limits.maximumSubsetEntries {
            throw .tooManySubsetEntries(limit: limits.maximumSubsetEntries, reached: entries, patterns: nfa.patterns)
        }
        if states > limits.maximumDFAStates {
            throw .tooManyStates(limit: limits.maximumDFAStates, reached: states, patterns: nfa.patterns)
        }
        if states * byteClasses.count > limits.maximumTransitionTableEntries {
            throw .tooManyTransitions(limit: limits.maximumTransitionTableEntries, reached: states * byteClasses.count, patterns: nfa.patterns)
        }
    }

    mutating func run() throws(AutomataError) -> DFA {
        let dead = DFAStateID.dead.rawValue
        // The DFA states' NFA-state sets, end to end in one buffer, found again through an
        // open-addressing table of set numbers keyed by the sets' contents: no allocation per
        // DFA state.
        var sets = SetTable(nfaStates: nfa.stateCount)
        _ = sets.insert(closure(startSeeds()))
        var rows = DFARows()
        var buckets = ClassBuckets(classCount: byteClasses.count)
        defer {
            rows.deallocate()
            buckets.deallocate()
            sets.deallocate()
        }
        // Every bucket closed so far, as read (before its closure), and the DFA state it led to:
        // most of a DFA's transitions on a class lead from many states to one bucket (in an
        // Aho-Corasick automaton, the unanchored root's child on that class), whose closure and
        // set are then found once, not once per state.
        var closedBuckets = SetTable(nfaStates: nfa.stateCount)
        defer { closedBuckets.deallocate() }
        var targetOfBucket: [UInt32] = []
        // (What `read` needs, held apart: the closure below, reading `self`, would copy the whole
        // construction for each state.)
        let nfa = nfa, edgeClasses = edgeClasses
        var current = 0
        while current < sets.count {
            // Read in place: the set is done with before the inserts below.
            sets.withSet(current) { Self.read($0, of: nfa, edgeClasses: edgeClasses, accepts: &rows, buckets: &buckets) }
            rows.beginRow(classCount: byteClasses.count)
            // Each class's bucket closed into the DFA state it leads to. (Neighbouring classes
            // often have the same bucket, a loop's target and little else: compared with the
            // previous one first, it is not looked up again.)
            var previous = 0..<0
            var previousTarget = dead
            let touched = buckets.touched
            try touched.forEachMember { (byteClass) throws(AutomataError) in
                let bucket = buckets.take(byteClass)
                if buckets.holdSameTargets(bucket, previous) {
                    if previousTarget != dead { rows.append(byteClass, previousTarget) }
                    return
                }
                let (number, isNew) = closedBuckets.insert(buckets.targets(bucket))
                var target = dead
                if !isNew {
                    target = targetOfBucket[Int(number)]
                } else {
                    let reached = closure(buckets.targets(bucket))
                    if !reached.isEmpty {
                        let (id, isNew) = sets.insert(reached)
                        target = id
                        if isNew { try checkLimits(entries: sets.entries, states: sets.count) }
                    }
                    targetOfBucket.append(target)
                }
                (previous, previousTarget) = (bucket, target)
                if target != dead { rows.append(byteClass, target) }
            }
            rows.endRow()
            current += 1
        }
        return rows.dfa(byteClasses)
    }

    /// The roots the DFA's start state is the closure of: each only when patterns are behind it.
    private func startSeeds() -> [UInt32] {
        var seeds: [UInt32] = []
        let anchored = Int(nfa.anchoredRoot.rawValue), unanchored = Int(nfa.unanchoredRoot.rawValue)
        if nfa.edgeStart[anchored] != nfa.edgeStart[anchored + 1] || nfa.epsilonStart[anchored] != nfa.epsilonStart[anchored + 1] {
            seeds.append(nfa.anchoredRoot.rawValue)
        }
        // The unanchored root's own loop is its first edge; it matters only with patterns behind it.
        if Int(nfa.edgeStart[unanchored + 1] - nfa.edgeStart[unanchored]) > 1 || nfa.epsilonStart[unanchored] != nfa.epsilonStart[unanchored + 1] {
            seeds.append(nfa.unanchoredRoot.rawValue)
        }
        return seeds
    }

    /// A DFA state's NFA states read: the patterns they accept into `rows` (the state's accept
    /// list, sorted), and their edges' targets into `buckets` by byte class, counted first, then
    /// placed end to end (two passes over the edges, no array per class).
    @inline(__always)
    private static func read(
        _ set: UnsafeBufferPointer<UInt32>, of nfa: NFA, edgeClasses: [ASCIISet], accepts rows: inout DFARows, buckets: inout ClassBuckets
    ) {
        buckets.touched = ASCIISet()
        let acceptsBefore = rows.acceptedPatterns.count
        let count = buckets.count
        for state in set {
            let pattern = nfa.acceptedPattern[Int(state)]
            if pattern != UInt32.max { rows.acceptedPatterns.append(PatternID(pattern)) }
            for edge in Int(nfa.edgeStart[Int(state)])..<Int(nfa.edgeStart[Int(state) + 1]) {
                buckets.touched.formUnion(edgeClasses[edge])
                edgeClasses[edge].forEachMember { count[$0] += 1 }
            }
        }
        rows.endAccepts(from: acceptsBefore)
        let start = buckets.start
        var total = 0
        buckets.touched.forEachMember { byteClass in
            start[byteClass] = total
            total += count[byteClass]
        }
        buckets.reserveTargets(total)
        let targets = buckets.allTargets
        for state in set {
            for edge in Int(nfa.edgeStart[Int(state)])..<Int(nfa.edgeStart[Int(state) + 1]) {
                let target = nfa.edgeTargets[edge]
                edgeClasses[edge].forEachMember { byteClass in
                    targets[start[byteClass]] = target
                    start[byteClass] += 1
                }
            }
        }
    }
}

/// Per DFA state, the NFA states each byte class leads to (a bucket per class), end to end in
/// `allTargets`. (Raw memory: written once per edge and class, where array writes would each pay
/// a uniqueness check.)
struct ClassBuckets {
    /// Per class: its bucket's size (0 once taken), and where its next target goes (once
    /// placed: where its bucket ends).
    let count: UnsafeMutableBufferPointer<Int>
    let start: UnsafeMutableBufferPointer<Int>
    /// The buckets of the state under way; its room grows, never shrinks.
    private(set) var allTargets = UnsafeMutablePointer<UInt32>.allocate(capacity: 64)
    private var capacity = 64
    /// The classes whose bucket is not empty (a set of class numbers).
    var touched = ASCIISet()

    init(classCount: Int) {
        count = .allocate(capacity: max(classCount, 1))
        start = .allocate(capacity: max(classCount, 1))
        count.initialize(repeating: 0)
        start.initialize(repeating: 0)
    }

    func deallocate() {
        count.deallocate()
        start.deallocate()
        allTargets.deallocate()
    }

    /// Room for `total` targets, the last state's let go.
    @inline(__always)
    mutating func reserveTargets(_ total: Int) {
        guard total > capacity else { return }
        allTargets.deallocate()
        capacity = max(total, 2 * capacity)
        allTargets = .allocate(capacity: capacity)
    }

    /// The targets of a bucket (`take`'s range).
    @inline(__always)
    func targets(_ bucket: Range<Int>) -> UnsafeBufferPointer<UInt32> {
        UnsafeBufferPointer(start: allTargets + bucket.lowerBound, count: bucket.count)
    }

    /// Whether buckets `a` and `b` hold the same targets in the same order.
    @inline(__always)
    func holdSameTargets(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        guard a.count == b.count, !a.isEmpty else { return false }
        for offset in 0..<a.count where allTargets[a.lowerBound + offset] != allTargets[b.lowerBound + offset] { return false }
        return true
    }

    /// Where class `byteClass`'s bucket is in `targets`, its count cleared for the next state.
    @inline(__always)
    func take(_ byteClass: Int) -> Range<Int> {
        let size = count[byteClass]
        count[byteClass] = 0
        return start[byteClass] - size..<start[byteClass]
    }
}

/// A DFA as it is built, state by state: each state's accept list, then its row of live
/// transitions (DFA.swift). Its rows' memory is raw: `deallocate()` when done.
struct DFARows {
    var rowStart: [UInt32] = [0]
    var live = LiveRows(capacity: 1024)
    var acceptStart: [UInt32] = [0]
    var acceptedPatterns: [PatternID] = []

    /// Ends the accept list of the state under way, begun at `start`, sorted.
    @inline(__always)
    mutating func endAccepts(from start: Int) {
        if acceptedPatterns.count - start > 1 { acceptedPatterns[start...].sort() }
        acceptStart.append(UInt32(acceptedPatterns.count))
    }

    func deallocate() { live.deallocate() }

    /// Room for the row of the state under way: a row has at most a transition per class.
    @inline(__always)
    mutating func beginRow(classCount: Int) { live.reserve(classCount) }

    /// A transition of the row under way (begun by `beginRow`), after those so far.
    @inline(__always)
    mutating func append(_ byteClass: Int, _ target: UInt32) { live.append(byteClass, target) }

    /// Ends the row of the state under way.
    @inline(__always)
    mutating func endRow() { rowStart.append(UInt32(live.count)) }

    func dfa(_ byteClasses: ByteClasses) -> DFA {
        let (liveClasses, liveTargets) = live.arrays()
        return DFA(
            byteClasses: byteClasses, rowStart: rowStart, liveClasses: liveClasses, liveTargets: liveTargets, acceptStart: acceptStart,
            acceptedPatterns: acceptedPatterns)
    }
}

/// The live transitions of the rows built so far (DFA.swift), in raw memory: a row's room is made
/// once, not checked per transition as an array's append does, and the suffix-link construction
/// copies runs of an earlier row within the same buffers (an array's slice appended to that array
/// would copy the whole array first).
struct LiveRows {
    private(set) var classes: UnsafeMutablePointer<UInt8>
    private(set) var targets: UnsafeMutablePointer<UInt32>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
        classes = .allocate(capacity: self.capacity)
        targets = .allocate(capacity: self.capacity)
    }

    func deallocate() {
        classes.deallocate()
        targets.deallocate()
    }

    /// Room for `extra` more transitions (the appends below write without checking).
    mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        capacity = max(2 * capacity, count + extra)
        let (oldClasses, oldTargets) = (classes, targets)
        classes = .allocate(capacity: capacity)
        targets = .allocate(capacity: capacity)
        classes.initialize(from: oldClasses, count: count)
        targets.initialize(from: oldTargets, count: count)
        oldClasses.deallocate()
        oldTargets.deallocate()
    }

    @inline(__always)
    mutating func append(_ byteClass: Int, _ target: UInt32) {
        assert(count < capacity, "a row's room is made by reserve(_:) first")
        classes[count] = UInt8(byteClass)
        targets[count] = target
        count += 1
    }

    /// `length` transitions from `fromClasses` and `fromTargets` (an earlier row's, or outside).
    @inline(__always)
    mutating func append(_ fromClasses: UnsafePointer<UInt8>, _ fromTargets: UnsafePointer<UInt32>, count length: Int) {
        guard length > 0 else { return }
        assert(count + length <= capacity, "a row's room is made by reserve(_:) first")
        // As raw bytes, one memmove each: the typed update copies element by element.
        UnsafeMutableRawPointer(classes + count).copyMemory(from: fromClasses, byteCount: length)
        UnsafeMutableRawPointer(targets + count).copyMemory(from: fromTargets, byteCount: length * MemoryLayout<UInt32>.stride)
        count += length
    }

    func arrays() -> ([UInt8], [UInt32]) {
        (Array(UnsafeBufferPointer(start: classes, count: count)), Array(UnsafeBufferPointer(start: targets, count: count)))
    }
}

/// Sets of NFA states numbered in insertion order: stored end to end, found by content through
/// an open-addressing hash table (linear probing, at most half full). A set of one state is found
/// by that state instead, in an array: a suffix trie's NFA is nearly deterministic, so most of its
/// DFA's states are one NFA state (a big list's suffix groups have nearly as many DFA states as
/// NFA states), and each lookup through the hash table reads four arrays of cold memory, where the
/// array is one read. The sets' states are raw memory (`deallocate()` when done): every lookup
/// hashes and compares a set, and through an array each read would be checked against its bounds.
struct SetTable {
    private var storage: UnsafeMutablePointer<UInt32>
    private var capacity: Int
    /// NFA states in all sets together.
    private(set) var entries = 0
    private var start: [Int] = [0]
    private var hashes: [Int] = []
    /// Sized to the NFA up to 1,024 slots (a small NFA's construction makes a few sets; a large
    /// one's table grows).
    private var slots: [Int32]
    /// By NFA state: the number of the set of that state alone, -1 before it is added.
    private var singletons: [Int32]
    /// Sets in the hash table (the others are singletons).
    private var hashed = 0

    init(nfaStates: Int) {
        singletons = [Int32](repeating: -1, count: nfaStates)
        slots = [Int32](repeating: -1, count: min(1024, hashTableSize(for: nfaStates)))
        capacity = 64
        storage = .allocate(capacity: capacity)
    }

    func deallocate() { storage.deallocate() }

    var count: Int { start.count - 1 }

    /// `body` on set `set`'s states, read in place: valid until the next insert.
    @inline(__always)
    func withSet<Result>(_ set: Int, _ body: (UnsafeBufferPointer<UInt32>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: storage + start[set], count: start[set + 1] - start[set]))
    }

    static func hash(_ states: UnsafeBufferPointer<UInt32>) -> Int {
        var mixed = 0x9E37_79B9_7F4A_7C15 ^ UInt64(states.count)
        for state in states { mixed = mixHash(mixed, UInt64(state)) }
        return Int(truncatingIfNeeded: mixed)
    }

    /// The number of `states` (non-empty; sorted, for a set of NFA states), and whether it was
    /// added now.
    mutating func insert(_ states: UnsafeBufferPointer<UInt32>) -> (UInt32, Bool) {
        let id = count
        if states.count == 1 {
            let state = Int(states[0])
            if singletons[state] >= 0 { return (UInt32(singletons[state]), false) }
            singletons[state] = Int32(id)
            append(states)
            hashes.append(0)  // (never read: a singleton is not in the hash table)
            return (UInt32(id), true)
        }
        let hash = Self.hash(states)
        let mask = slots.count - 1
        var slot = hash & mask
        while slots[slot] >= 0 {
            let candidate = Int(slots[slot])
            if hashes[candidate] == hash && holds(candidate, states) { return (UInt32(candidate), false) }
            slot = (slot + 1) & mask
        }
        slots[slot] = Int32(id)
        append(states)
        hashes.append(hash)
        hashed += 1
        if hashed * 2 > slots.count { grow() }
        return (UInt32(id), true)
    }

    /// `states` stored as the next set.
    @inline(__always)
    private mutating func append(_ states: UnsafeBufferPointer<UInt32>) {
        if entries + states.count > capacity {
            capacity = max(2 * capacity, entries + states.count)
            let old = storage
            storage = .allocate(capacity: capacity)
            storage.initialize(from: old, count: entries)
            old.deallocate()
        }
        (storage + entries).initialize(from: states.baseAddress!, count: states.count)
        entries += states.count
        start.append(entries)
    }

    /// Whether set `candidate` is `states`.
    @inline(__always)
    private func holds(_ candidate: Int, _ states: UnsafeBufferPointer<UInt32>) -> Bool {
        let from = start[candidate]
        guard start[candidate + 1] - from == states.count else { return false }
        let stored = storage + from
        for offset in 0..<states.count where stored[offset] != states[offset] { return false }
        return true
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for (id, hash) in hashes.enumerated() where start[id + 1] - start[id] > 1 {
            var slot = hash & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(id)
        }
    }
}
