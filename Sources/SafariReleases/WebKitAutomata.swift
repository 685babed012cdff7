// WebKitAutomata: WebKit's automata for one of its prefix trees (WebKitShape.Tree), built with
// BlockBench's own NFA, subset construction and minimizer the way WebKit groups the patterns
// (CombinedURLFilters.cpp, `processNFAs`): the patterns that share their terms up to their last
// quantified term make one NFA (an unanchored pattern starts with WebKit's `.*`), cut when it
// passes WebKit's 75,000 NFA nodes (the nodes of the group's prefix tree of terms). A state
// reports WebKit's actions, not patterns (a rule's action offset and flags, WebKitBytecode), so
// the minimizer merges what WebKit's merges: the tails of the patterns of one action.
// The DFAs of fewer than 100 states are merged as WebKit's DFACombiner.cpp merges them: one after
// another in the prefix tree's order, the merge given out once its minimal DFA passes 100 states.
// Each DFA is counted as WebKit writes it (WebKitBytecode): its bytes, and its states and its
// transitions as ranges of bytes leading to one state. A group whose DFA passes the
// construction's limits is counted by its NFA's states instead, and flagged.
// Tested by SafariReleasesTests/WebKitModelTests.swift (WebKitShapeTests).

internal import Automata
internal import URLFilterSyntax

struct WebKitAutomata: Sendable {
    /// Groups (one NFA each, cut at WebKit's size), their DFA states and byte ranges, the NFA
    /// states, and the groups past the limits; WebKit's bytecode of the DFAs.
    var nfas = 0
    var states = 0
    var ranges = 0
    var bytes = 0
    var nfaStates = 0
    var unbuilt = 0
    /// Every DFA's states as built, the merges' included (the construction's work), and the most
    /// any one had (what the compile holds at its peak, beside the prefix trees).
    var builtStates = 0
    var largestStates = 0
    /// The DFAs of fewer than 100 states, their states and byte ranges: WebKit holds them all
    /// until the tree's NFAs are done, then merges them.
    var smallDFAs = 0
    var heldStates = 0
    var heldRanges = 0
    /// The states of the merges as built, and of the DFAs of unanchored patterns (whose
    /// construction carries WebKit's `.*` in every state).
    var mergedStates = 0
    var unanchoredStates = 0
    /// The most nodes one NFA had (WebKit's count), and the most states one minimized DFA had.
    var largestNFA = 0
    var largestMinimal = 0
    /// Per group key: its DFA states, ranges and bytes (what a rule's share of the group's text
    /// costs).
    var byGroup: [String: Figures] = [:]

    struct Figures: Sendable {
        var states = 0
        var ranges = 0
        var bytes = 0
    }

    static let maximumNFASize = 75_000
    static let limits = AutomataLimits(maximumDFAStates: 400_000, maximumTransitionTableEntries: 40_000_000, maximumSubsetEntries: 40_000_000)

    /// The group of a pattern: whether it is anchored, and its text up to and with its last
    /// top-level quantified term.
    static func group(_ filter: URLFilter) -> String {
        guard let last = filter.terms.lastIndex(where: { $0.quantifier != .one }) else { return filter.hasStartAnchor ? "^" : ".*" }
        let end = filter.terms[last].span.upperBound
        let text = String(decoding: filter.source.utf8.prefix(end), as: UTF8.self)
        return filter.hasStartAnchor ? text : ".*" + text
    }

    /// The action sets the patterns report (each a set of WebKit's actions), and the bytes of
    /// each set's action instructions.
    private var actionSets = Numbering<[UInt64]>()

    /// The automata of `filters` (distinct patterns), pattern `i` reporting the actions
    /// `actions[i]` (one action of its own each when not given).
    init(_ filters: [URLFilter], actions: [[UInt64]] = []) {
        // The groups in the order their first patterns come, each with its patterns.
        var groups = Numbering<String>()
        var entries: [[(PatternID, URLFilter)]] = []
        for (index, filter) in filters.enumerated() where !filter.matchesEverything {
            let set = index < actions.count ? actions[index].sorted() : [UInt64(index)]
            let number = UInt32(actionSets.number(of: set))
            let group = groups.number(of: Self.group(filter))
            if group == entries.count { entries.append([]) }
            entries[group].append((PatternID(number), filter))
        }
        // WebKit makes its NFAs walking its prefix tree (a node's children in the order they
        // came); the small DFAs are merged in that order.
        var merged: DFA?
        var mergedKeys: [String] = []
        var groupTree = TermTree()
        let paths = entries.map { groupTree.add(TermTree.groupTerms($0[0].1)) }
        for group in entries.indices.sorted(by: { paths[$0] == paths[$1] ? $0 < $1 : paths[$0].lexicographicallyPrecedes(paths[$1]) }) {
            let key = groups.keys[group]
            var total = Figures()
            for (chunk, nodes) in Self.chunks(entries[group]) {
                largestNFA = max(largestNFA, nodes)
                let nfa = NFA(patterns: chunk.map { (id: $0.0, filter: $0.1) })
                nfas += 1
                let nfaCount = nfa.edgeStart.count - 1
                nfaStates += nfaCount
                guard let built = try? SubsetConstruction.determinize(nfa, limits: Self.limits) else {
                    unbuilt += 1
                    total.states += nfaCount
                    total.ranges += nfaCount
                    total.bytes += 10 * nfaCount
                    continue
                }
                let dfa = Self.reportingSets(built)
                builtStates += dfa.stateCount
                largestStates = max(largestStates, dfa.stateCount)
                if key.hasPrefix(".*") { unanchoredStates += dfa.stateCount }
                guard dfa.stateCount < Self.smallDFASize else {
                    let figures = counted(Minimizer.minimize(dfa))
                    total.states += figures.states
                    total.ranges += figures.ranges
                    total.bytes += figures.bytes
                    continue
                }
                mergedKeys.append(key)
                smallDFAs += 1
                heldStates += dfa.stateCount
                heldRanges += Self.ranges(dfa)
                guard let previous = merged else {
                    merged = dfa
                    continue
                }
                // A merge is minimized once it passes the threshold, and given out if it still does.
                var union = Self.union(previous, dfa)
                builtStates += union.stateCount
                mergedStates += union.stateCount
                largestStates = max(largestStates, union.stateCount)
                if union.stateCount > Self.smallDFASize { union = Minimizer.minimize(union) }
                if union.stateCount > Self.smallDFASize {
                    add(counted(union), sharedBy: mergedKeys)
                    (merged, mergedKeys) = (nil, [])
                } else {
                    merged = union
                }
            }
            add(total, sharedBy: [key])
        }
        if let last = merged { add(counted(Minimizer.minimize(last)), sharedBy: mergedKeys) }
    }

    /// WebKit's threshold: DFAs of fewer states are merged (its `graphSize`).
    static let smallDFASize = 100

    /// The DFA of what `a` or `b` reports (DFACombiner.cpp's merge): a state per pair of states
    /// reached together, reporting what either reports.
    static func union(_ a: DFA, _ b: DFA) -> DFA {
        // A class per pair of classes met together (`a`'s class << 8 | `b`'s), a state per pair of
        // states (`a`'s << 32 | `b`'s), the start states' pair first.
        var classOfByte = [UInt8](repeating: 0, count: 128)
        var pairs = Numbering<Int>()
        for byte in 0..<128 {
            let pair = Int(a.byteClasses.classOfByte[byte]) << 8 | Int(b.byteClasses.classOfByte[byte])
            classOfByte[byte] = UInt8(pairs.number(of: pair))
        }
        let dead = DFAStateID.dead.rawValue
        var states = Numbering<UInt64>()
        _ = states.number(of: 0)
        var rowStart: [UInt32] = [0], liveClasses: [UInt8] = [], liveTargets: [UInt32] = []
        var acceptStart: [UInt32] = [0], accepted: [PatternID] = []
        var rowA = [UInt32](repeating: dead, count: a.classCount), rowB = [UInt32](repeating: dead, count: b.classCount)
        var next = 0
        while next < states.count {
            let (stateA, stateB) = (UInt32(states.keys[next] >> 32), UInt32(truncatingIfNeeded: states.keys[next]))
            next += 1
            if stateA == dead { rowA = [UInt32](repeating: dead, count: a.classCount) } else {
                rowA.withUnsafeMutableBufferPointer { a.write(row: Int(stateA), into: $0) }
            }
            if stateB == dead { rowB = [UInt32](repeating: dead, count: b.classCount) } else {
                rowB.withUnsafeMutableBufferPointer { b.write(row: Int(stateB), into: $0) }
            }
            for (number, pair) in pairs.keys.enumerated() {
                let targetA = rowA[pair >> 8], targetB = rowB[pair & 0xFF]
                guard targetA != dead || targetB != dead else { continue }
                liveClasses.append(UInt8(number))
                liveTargets.append(UInt32(states.number(of: UInt64(targetA) << 32 | UInt64(targetB))))
            }
            rowStart.append(UInt32(liveClasses.count))
            var reports = Set<PatternID>()
            if stateA != dead { reports.formUnion(a.accepted(by: DFAStateID(stateA))) }
            if stateB != dead { reports.formUnion(b.accepted(by: DFAStateID(stateB))) }
            accepted += reports.sorted()
            acceptStart.append(UInt32(accepted.count))
        }
        return DFA(
            byteClasses: ByteClasses(classOfByte: classOfByte), rowStart: rowStart, liveClasses: liveClasses, liveTargets: liveTargets,
            acceptStart: acceptStart, acceptedPatterns: accepted)
    }

    /// A DFA's states, ranges and WebKit's bytes.
    mutating func counted(_ dfa: DFA) -> Figures {
        largestMinimal = max(largestMinimal, dfa.stateCount)
        let bytes = WebKitBytecode.size(dfa) { state in
            let accepted = dfa.accepted(by: DFAStateID(state))
            guard !accepted.isEmpty else { return 0 }
            var actions = Set<UInt64>()
            for set in accepted { actions.formUnion(actionSets.keys[Int(set.rawValue)]) }
            return actions.reduce(0) { $0 + WebKitBytecode.actionBytes($1) }
        }
        return Figures(states: dfa.stateCount, ranges: Self.ranges(dfa), bytes: bytes)
    }

    /// `dfa` with each state's reports each once (patterns of one action set report one
    /// number), so that the minimizer tells states apart by what they report.
    static func reportingSets(_ dfa: DFA) -> DFA {
        var acceptStart: [UInt32] = [0]
        var accepted: [PatternID] = []
        acceptStart.reserveCapacity(dfa.stateCount + 1)
        for state in 0..<dfa.stateCount {
            var previous: PatternID?
            for pattern in dfa.accepted(by: DFAStateID(state)) where pattern != previous {
                accepted.append(pattern)
                previous = pattern
            }
            acceptStart.append(UInt32(accepted.count))
        }
        return DFA(
            byteClasses: dfa.byteClasses, rowStart: dfa.rowStart, liveClasses: dfa.liveClasses, liveTargets: dfa.liveTargets,
            acceptStart: acceptStart, acceptedPatterns: accepted)
    }

    /// Adds a DFA's figures, shared evenly by the groups merged into it.
    mutating func add(_ figures: Figures, sharedBy keys: [String]) {
        states += figures.states
        ranges += figures.ranges
        bytes += figures.bytes
        let share = Double(keys.count)
        for key in keys {
            byGroup[key, default: Figures()].states += Int((Double(figures.states) / share).rounded(.up))
            byGroup[key, default: Figures()].ranges += Int((Double(figures.ranges) / share).rounded(.up))
            byGroup[key, default: Figures()].bytes += Int((Double(figures.bytes) / share).rounded(.up))
        }
    }

    /// The group's patterns in runs of about WebKit's NFA size, in the order WebKit walks its
    /// prefix tree. An NFA's nodes (CombinedURLFilters.cpp, `generateNFAForSubtree`): the group's
    /// terms, then each pattern's terms up to the last place where its path branches or another
    /// pattern ends, its remaining terms shared with the other patterns of its actions that end
    /// alike (WebKit's reverse suffix tree); WebKit ends an NFA at the pattern that takes it past
    /// its size.
    static func chunks(_ entries: [(PatternID, URLFilter)]) -> [(patterns: [(PatternID, URLFilter)], nodes: Int)] {
        guard let first = entries.first else { return [] }
        var tree = TermTree()
        let terms = entries.map { TermTree.terms($0.1) }
        let paths = terms.map { tree.add($0) }
        let ordered = entries.indices.sorted { paths[$0].lexicographicallyPrecedes(paths[$1]) }
        let start = TermTree.groupTerms(first.1).count
        struct Tail: Hashable {
            var node: Int
            var term: String
        }
        var chunks: [(patterns: [(PatternID, URLFilter)], nodes: Int)] = []
        var position = 0
        while position < ordered.count {
            // The tree as the NFA finds it: the patterns not yet in an NFA.
            var children: [Int32: Int] = [:]
            var ends = Set<Int32>()
            for index in ordered[position...] {
                ends.insert(paths[index].last ?? 0)
                var parent: Int32 = 0
                for node in paths[index] {
                    if !tree.seen(parent, node) { children[parent, default: 0] += 1 }
                    parent = node
                }
            }
            tree.forget()
            var generated = Set<Int32>()
            var tails: [Tail: Int] = [:]
            var roots: [PatternID: Int] = [:]
            var size = 1 + start
            var chunk: [(PatternID, URLFilter)] = []
            while position < ordered.count {
                let index = ordered[position]
                position += 1
                chunk.append(entries[index])
                let path = paths[index], leaf = path.count - 1
                var cut = start - 1
                var vertex = leaf - 1
                while vertex >= start {
                    if generated.contains(path[vertex]) {
                        cut = vertex
                        break
                    }
                    if (children[path[vertex]] ?? 0) > 1 || ends.contains(path[vertex]) {
                        var made = vertex
                        while made >= start && !generated.contains(path[made]) {
                            generated.insert(path[made])
                            size += 1
                            made -= 1
                        }
                        cut = vertex
                        break
                    }
                    vertex -= 1
                }
                var node: Int
                if let root = roots[entries[index].0] {
                    node = root
                } else {
                    size += 1
                    node = -1 - roots.count
                    roots[entries[index].0] = node
                }
                if leaf > cut + 1 {
                    for edge in stride(from: leaf, to: cut + 1, by: -1) {
                        let tail = Tail(node: node, term: terms[index][edge])
                        if let known = tails[tail] {
                            node = known
                        } else {
                            size += 1
                            node = tails.count + 1
                            tails[tail] = node
                        }
                    }
                }
                if size > maximumNFASize { break }
            }
            chunks.append((chunk, size))
        }
        return chunks
    }

    /// A prefix tree of terms (their text), each node numbered as it is made: the paths of node
    /// numbers order the patterns as WebKit walks its prefix tree, each node's children in the
    /// order they were made.
    struct TermTree {
        struct Edge: Hashable {
            var node: Int32
            var term: String
        }
        var children: [Edge: Int32] = [:]
        var count: Int { children.count }
        /// The edges counted so far (`seen`), cleared by `forget`.
        private var counted = Set<Int64>()

        /// Whether the edge from `parent` to `child` was seen before (and now is).
        mutating func seen(_ parent: Int32, _ child: Int32) -> Bool {
            !counted.insert(Int64(parent) << 32 | Int64(child)).inserted
        }

        mutating func forget() { counted = [] }

        /// Adds a pattern's terms; the path of its nodes.
        mutating func add(_ terms: [String]) -> [Int32] {
            var node: Int32 = 0
            var path: [Int32] = []
            path.reserveCapacity(terms.count)
            for term in terms {
                let edge = Edge(node: node, term: term)
                if let child = children[edge] {
                    node = child
                } else {
                    node = Int32(children.count + 1)
                    children[edge] = node
                }
                path.append(node)
            }
            return path
        }

        /// A pattern's terms as WebKit's prefix tree has them (`.*` first when unanchored).
        static func terms(_ filter: URLFilter) -> [String] {
            let source = Array(filter.source.utf8)
            let texts = filter.terms.map { String(decoding: source[$0.span.lowerBound..<$0.span.upperBound], as: UTF8.self) }
            return filter.hasStartAnchor ? texts : [".*"] + texts
        }

        /// The terms of a pattern's group (WebKitAutomata.group).
        static func groupTerms(_ filter: URLFilter) -> [String] {
            let count = (filter.terms.lastIndex { $0.quantifier != .one } ?? -1) + 1
            return Array(terms(filter).prefix(count + (filter.hasStartAnchor ? 0 : 1)))
        }
    }

    /// Every state's runs of bytes leading to one live state.
    static func ranges(_ dfa: DFA) -> Int {
        var count = 0
        var target = [UInt32](repeating: 0, count: dfa.classCount)
        let dead = UInt32.max
        for state in 0..<dfa.stateCount {
            for index in target.indices { target[index] = dead }
            for live in dfa.row(state) { target[Int(dfa.liveClasses[live])] = dfa.liveTargets[live] }
            var previous = dead
            for byte in 0..<128 {
                let next = target[Int(dfa.byteClasses.classOfByte[byte])]
                if next != previous && next != dead { count += 1 }
                previous = next
            }
        }
        return count
    }
}

/// Keys numbered in the order they are first met: a key's number is its place in `keys`.
struct Numbering<Key: Hashable & Sendable>: Sendable {
    private(set) var keys: [Key] = []
    private var numbers: [Key: Int] = [:]

    var count: Int { keys.count }

    /// `key`'s number; a new key takes the next one.
    mutating func number(of key: Key) -> Int {
        if let known = numbers[key] { return known }
        numbers[key] = keys.count
        keys.append(key)
        return keys.count - 1
    }
}
