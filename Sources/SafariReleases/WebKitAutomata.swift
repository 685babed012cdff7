// WebKitAutomata: WebKit's automata for one of its prefix trees (WebKitShape.Tree), built with
// BlockBench's own NFA, subset construction and minimizer the way WebKit groups the patterns
// (CombinedURLFilters.cpp, `processNFAs`): the patterns that share their terms up to their last
// quantified term make one NFA (an unanchored pattern starts with WebKit's `.*`), cut when it
// passes WebKit's 75,000 NFA nodes. Each group's DFA is counted as WebKit's bytecode grows with it:
// its states, and its transitions as ranges of bytes leading to one state (what WebKit's
// bytecode tests a byte against). A group whose DFA passes the construction's limits is counted by
// its NFA's states instead, and flagged.
// Tested by SafariReleasesTests/WebKitModelTests.swift (WebKitShapeTests).

internal import Automata
internal import URLFilterSyntax

struct WebKitAutomata: Sendable {
    /// Groups (one NFA each, cut at WebKit's size), their DFA states and byte ranges, the NFA
    /// states, and the groups past the limits.
    var nfas = 0
    var states = 0
    var ranges = 0
    var nfaStates = 0
    var unbuilt = 0
    /// Every DFA's states as built, the merges' included (the construction's work), and the most
    /// any one had (what the compile holds at its peak, beside the prefix trees).
    var builtStates = 0
    var largestStates = 0
    /// Per group key: its DFA states and ranges (what a rule's share of the group's text costs).
    var byGroup: [String: (states: Int, ranges: Int)] = [:]

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

    /// The automata of `filters` (distinct patterns).
    init(_ filters: [URLFilter]) {
        var groups: [String: [URLFilter]] = [:]
        var order: [String] = []
        for filter in filters where !filter.matchesEverything {
            let key = Self.group(filter)
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(filter)
        }
        // WebKit merges the DFAs smaller than its threshold one after another (DFACombiner.cpp),
        // emitting the merged DFA once it passes the threshold: a merge is the DFA of the union.
        var small: [URLFilter] = []
        var smallKeys: [String] = []
        for key in order {
            var total = (states: 0, ranges: 0)
            for chunk in Self.chunks(groups[key] ?? []) {
                let nfa = NFA(patterns: chunk.enumerated().map { (PatternID(UInt32($0.offset)), $0.element) })
                nfas += 1
                let nfaCount = nfa.edgeStart.count - 1
                nfaStates += nfaCount
                guard let dfa = try? SubsetConstruction.determinize(nfa, limits: Self.limits) else {
                    unbuilt += 1
                    total.states += nfaCount
                    total.ranges += nfaCount
                    continue
                }
                builtStates += dfa.stateCount
                largestStates = max(largestStates, dfa.stateCount)
                if dfa.stateCount < Self.smallDFASize {
                    small += chunk
                    smallKeys.append(key)
                    let merged = Self.built(small)
                    builtStates += merged.built
                    largestStates = max(largestStates, merged.built)
                    if merged.built > Self.smallDFASize {
                        self.add((merged.states, merged.ranges), sharedBy: smallKeys)
                        (small, smallKeys) = ([], [])
                    }
                    continue
                }
                let minimal = Minimizer.minimize(dfa)
                total.states += minimal.stateCount
                total.ranges += Self.ranges(minimal)
            }
            states += total.states
            ranges += total.ranges
            byGroup[key, default: (0, 0)].states += total.states
            byGroup[key, default: (0, 0)].ranges += total.ranges
        }
        if !small.isEmpty {
            let merged = Self.built(small)
            add((merged.states, merged.ranges), sharedBy: smallKeys)
        }
    }

    /// WebKit's threshold: DFAs of fewer states are merged (its `graphSize`).
    static let smallDFASize = 100

    /// The DFA of `filters`: its states as built (what WebKit holds against its threshold), and
    /// minimized, its states and ranges; by its NFA's states when past the limits.
    static func built(_ filters: [URLFilter]) -> (built: Int, states: Int, ranges: Int) {
        let nfa = NFA(patterns: filters.enumerated().map { (PatternID(UInt32($0.offset)), $0.element) })
        let nfaCount = nfa.edgeStart.count - 1
        guard let dfa = try? SubsetConstruction.determinize(nfa, limits: limits) else { return (nfaCount, nfaCount, nfaCount) }
        let minimal = Minimizer.minimize(dfa)
        return (dfa.stateCount, minimal.stateCount, ranges(minimal))
    }

    /// A merged DFA's figures, shared evenly by the groups merged into it.
    mutating func add(_ merged: (states: Int, ranges: Int), sharedBy keys: [String]) {
        states += merged.states
        ranges += merged.ranges
        let share = Double(keys.count)
        for key in keys {
            byGroup[key, default: (0, 0)].states += Int((Double(merged.states) / share).rounded(.up))
            byGroup[key, default: (0, 0)].ranges += Int((Double(merged.ranges) / share).rounded(.up))
        }
    }

    /// The group's patterns in runs of about WebKit's NFA size (a pattern's terms stand for its
    /// nodes).
    static func chunks(_ filters: [URLFilter]) -> [[URLFilter]] {
        var chunks: [[URLFilter]] = [[]]
        var size = 0
        for filter in filters {
            let nodes = max(1, filter.terms.count)
            if size + nodes > maximumNFASize && !(chunks.last?.isEmpty ?? true) {
                chunks.append([])
                size = 0
            }
            chunks[chunks.count - 1].append(filter)
            size += nodes
        }
        return chunks.filter { !$0.isEmpty }
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
