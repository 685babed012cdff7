// StagePlanner.swift — Automata
//
// Splits patterns that share a looping prefix into stages. Real rule lists are made of a few
// idioms: 97% of EasyList's url-filters are `^[^:]+://+([^:/]+\.)?` then a domain, and every
// `if-domain` becomes `[a-z][a-z+.-]*:\/\/` then a domain. In one DFA, the loops of such a prefix
// stay alive beside every domain begun so far, so the DFA tracks every suffix of the host that is
// a prefix of some domain: hundreds of thousands of states that the subset construction, the
// minimizer and the file all pay for.
//
// A stage matches the shared prefix P once and the rest of each pattern apart: `P R` matches a
// URL exactly when P matches the URL's first p bytes (from its start when P is anchored, from
// anywhere otherwise) and R, anchored, matches from byte p on. So a stage is two automata: the
// prefix's, which reports every p where a match of P ends (the "every end" NFA), and the
// suffixes', one anchored DFA (or a few) run from each such p. The suffix DFA is a trie of the
// domains, linear in their length, and the prefix's is a handful of states. In the URL, the
// prefix ends at a few places (after `://`, after each dot of the host), so a request costs a few
// short runs instead of one long one.
//
// Which prefix: per pattern, the deepest prefix that ends with a loop (only loops make the
// combined DFA blow up) and is shared by at least `minimumPatternsPerStage` patterns, extended
// by the terms after it that all those patterns share too (`:\/\/` after `[a-z+.-]*`, so that the
// prefix ends at few places). Patterns that share no such prefix, or whose rest would match
// nothing, are built whole.
// Tested by SearchTests/ProgramSetTests.swift (staged programs answer like the whole patterns),
// DomainTableTests.swift and GatedGroupTests.swift.

public import URLFilterSyntax

/// Patterns that share a prefix, split at its end.
public struct PlannedStage: Sendable {
    /// The shared prefix, with the patterns' start anchor and no end anchor.
    public var prefix: URLFilter
    /// Each pattern's rest, anchored at the start (it runs from where the prefix ended), with the
    /// pattern's own id, end anchor and case sensitivity.
    public var suffixes: [(id: PatternID, filter: URLFilter)]

    /// A pattern as a whole again, from its suffix: the prefix's terms, then the suffix's. It
    /// matches what the pattern matches (the prefix's terms have the pattern's own shapes; its
    /// text and spans are the stage's first pattern's).
    public func whole(_ suffix: URLFilter) -> URLFilter {
        URLFilter(
            source: prefix.source + suffix.source.dropFirst(), isCaseSensitive: suffix.isCaseSensitive,
            hasStartAnchor: prefix.hasStartAnchor, hasEndAnchor: suffix.hasEndAnchor, terms: prefix.terms + suffix.terms)
    }
}

public enum StagePlanner {
    /// Prefixes are looked for among a pattern's first terms only: idioms are short.
    static let searchedTerms = 24

    /// The prefix converters write for ABP's `||`, anchored (`^` is the filter's flag):
    /// `[^:]+:\/\/+([^:/]+\.)?`. Where it ends is read off the URL's host without running its
    /// program (DomainTable.swift and ProgramSet.swift in Search), so a stage with this prefix
    /// costs only its suffixes' runs: it is made for any number of patterns, not only for
    /// `minimumPatternsPerStage`.
    public static var hostLabelPrefix: [URLFilterTerm] { HostPattern.prefixTerms }

    /// Splits `patterns` into those built whole (in the order given), stages (each in the
    /// order of its first pattern; suffixes in the order given) and, with `gating`, the groups of
    /// the unanchored loopy patterns that have a gate (GatePlanner.swift). `minimumPatternsPerStage`
    /// 0 or 1 would make every pattern its own stage: anything below 2 turns staging off.
    ///
    /// The patterns are consumed: a staged pattern's terms become its suffix's, its prefix's terms
    /// removed in place (a copy of every staged pattern's rest would be a seventh of EasyList's
    /// compile memory).
    public static func plan(
        _ given: consuming [(id: PatternID, filter: URLFilter)], minimumPatternsPerStage: Int,
        maximumUnanchoredTrieTerms: Int = AutomataLimits.default.maximumUnanchoredTrieTerms, gating: Bool = true
    ) -> (whole: [(id: PatternID, filter: URLFilter)], stages: [PlannedStage], gated: [GatedGroup]) {
        var patterns = consume given
        guard minimumPatternsPerStage >= 2 else { return (patterns, [], []) }
        let tree = PrefixTree(of: &patterns)
        // The node of the `||` prefix, when patterns start with it (its stage has no minimum).
        let hostLabelNode = tree.node(along: Self.hostLabelPrefix)
        var (whole, candidates) = tree.candidateStages(
            of: &patterns, threshold: Int32(minimumPatternsPerStage), hostLabelNode: hostLabelNode)
        var planned: [PlannedStage] = []
        var gated: [GatedGroup] = []
        for var stage in candidates {
            guard stage.members.count >= minimumPatternsPerStage || stage.node == hostLabelNode else {
                whole += stage.members
                continue
            }
            if stage.node == hostLabelNode && gating {
                gate(hostLabelMembers: &stage.members, of: &patterns, minimumPatternsPerStage: minimumPatternsPerStage, into: &gated)
                guard !stage.members.isEmpty else { continue }
            } else if gating && patterns[stage.members[0]].filter.hasStartAnchor && stage.members.count <= maximumGatedStageMembers {
                gate(anchoredMembers: &stage.members, of: &patterns, minimumPatternsPerStage: minimumPatternsPerStage, into: &gated)
                guard !stage.members.isEmpty else { continue }
            }
            planned.append(split(stage.members, after: stage.length, of: &patterns))
        }
        // Patterns built whole keep the order given (the partitioner relies on related patterns
        // sitting together).
        whole.sort()
        if gating { gate(anchoredLoopy: &whole, of: &patterns, into: &gated) }
        if let anywhere = anywhereStage(
            taking: &whole, of: &patterns, minimumPatternsPerStage: minimumPatternsPerStage,
            maximumUnanchoredTrieTerms: maximumUnanchoredTrieTerms, gating: gating, gated: &gated)
        {
            planned.append(anywhere)
        }
        return (whole.map { patterns[$0] }, planned, gated)
    }

    /// The `||` patterns the domain table does not take (a loop or an optional part after
    /// `||domain^`) are tried from every label of every host. Those whose domain ends at the
    /// host's end run only in a URL where the domain table finds their domain
    /// (GatePlanner.groupByDomain); the others (`||yandex.*/clck/`), when there are enough of them
    /// for a stage, where their best run occurs, their gates a whole program apart; those with no
    /// run that makes a gate stay in the stage (`members`).
    private static func gate(
        hostLabelMembers members: inout [Int], of patterns: inout [(id: PatternID, filter: URLFilter)], minimumPatternsPerStage: Int,
        into gated: inout [GatedGroup]
    ) {
        var groups: [GatedGroup]
        (groups, members) = GatePlanner.groupByDomain(members, of: &patterns)
        gated += groups
        // (A few patterns left make a stage that costs less than a whole pass of its own for
        // their gates: a small list's.)
        if members.count >= minimumPatternsPerStage {
            (groups, members) = GatePlanner.group(
                members, of: &patterns, minimumPatternsPerStage: 0,
                maximumGroups: GatePlanner.maximumGroups - gated.count, gatesApart: true)
            gated += groups
        }
    }

    /// Another anchored stage (another converter's `||` prefix, whose host context gates the
    /// patterns with a domain: ContentBlocker's HostContextPlanner): its members with a run that
    /// makes a gate run where it occurs, their gates a whole program apart; the others stay. Its
    /// prefix is a program run over every URL, so when fewer than a stage's minimum lack a gate
    /// scoring enough, those take their best run whatever its score (`||[::]`'s `[::]`), as the
    /// unanchored patterns do, rather than keep that run for a few.
    private static func gate(
        anchoredMembers members: inout [Int], of patterns: inout [(id: PatternID, filter: URLFilter)], minimumPatternsPerStage: Int,
        into gated: inout [GatedGroup]
    ) {
        let groups: [GatedGroup]
        (groups, members) = GatePlanner.group(
            members, of: &patterns, minimumPatternsPerStage: minimumPatternsPerStage,
            maximumGroups: GatePlanner.maximumGroups - gated.count,
            gatesApart: true)
        gated += groups
    }

    /// The anchored patterns built whole with a loop inside (`^https?:/+([^/:]+\.)?taboola`, whose
    /// `[^/:]+` reads the whole host; `^https?://rcm-.*\.amazon\.`, whose `.*` reads the rest
    /// of the URL): such a loop keeps the anchored patterns' program alive where the others' end
    /// within a few bytes, and each byte of that run is a step of the pass beside the list's
    /// search. When every one has a gate scoring `minimumGateScore` after its first loop
    /// (`GatePlanner.hasGateAfterFirstLoop`: not its scheme's `http`), each runs only in a URL
    /// that holds its gate (found by that search), and the anchored program, of the others, dies
    /// early; when some have none, that program lives as long anyway, and they stay whole.
    private static func gate(
        anchoredLoopy whole: inout [Int], of patterns: inout [(id: PatternID, filter: URLFilter)], into gated: inout [GatedGroup]
    ) {
        let loopy = whole.filter { index in
            let filter = patterns[index].filter
            return filter.hasStartAnchor && filter.matchedTerms.contains { $0.containsLoop }
        }
        guard !loopy.isEmpty, loopy.allSatisfy({ GatePlanner.hasGateAfterFirstLoop(patterns[$0].filter) }) else { return }
        // (Every one scores enough: none is weak, whatever the minimum.)
        let (groups, ungated) = GatePlanner.group(
            loopy, of: &patterns, minimumPatternsPerStage: 0, maximumGroups: GatePlanner.maximumGroups - gated.count,
            afterFirstLoop: true)
        gated += groups
        let taken = Set(loopy).subtracting(ungated)
        whole.removeAll { taken.contains($0) }
    }

    /// The most members of an anchored stage other than the `||` one that are gated by their best
    /// run: a stage of thousands (adblock-rust's `||D^`, nothing after D: each pattern's best run is
    /// its domain) would make as many gates, whose pass over every URL costs more than the stage.
    static let maximumGatedStageMembers = 1_024

    /// The stage of `members`, which share their first `length` terms: the first member's terms
    /// make the prefix, and each member's rest, anchored, its suffix (its terms edited in place).
    private static func split(
        _ members: [Int], after length: Int, of patterns: inout [(id: PatternID, filter: URLFilter)]
    ) -> PlannedStage {
        let first = patterns[members[0]].filter
        let prefixTerms = Array(first.terms[..<length])
        let prefixEnd = prefixTerms.last!.span.upperBound
        let prefix = URLFilter(
            source: String(decoding: first.source.utf8.prefix(prefixEnd), as: UTF8.self), isCaseSensitive: first.isCaseSensitive,
            hasStartAnchor: first.hasStartAnchor, hasEndAnchor: false, terms: prefixTerms)
        var suffixes: [(id: PatternID, filter: URLFilter)] = []
        suffixes.reserveCapacity(members.count)
        for member in members {
            var suffix = patterns[member].filter
            patterns[member].filter.terms = []  // the terms' other holder: now unique, edited in place
            let restStart = suffix.terms[length].span.lowerBound
            suffix.source = "^" + String(decoding: suffix.source.utf8.dropFirst(restStart), as: UTF8.self)
            suffix.hasStartAnchor = true
            suffix.terms.removeSubrange(..<length)
            suffixes.append((patterns[member].id, suffix))
        }
        return PlannedStage(prefix: prefix, suffixes: suffixes)
    }

    /// The stage of the empty prefix, of the unanchored patterns among `whole` (taken out of it)
    /// that multiply one another's states in one unanchored DFA; nil when there are too few.
    ///
    /// Unanchored patterns with a loop inside (`\/site=.*\/size=`) multiply one another's states
    /// in an unanchored DFA: every loop stays alive to the end of the URL beside every match begun
    /// since. As suffixes of the empty prefix, which ends at every byte, they are anchored: a DFA
    /// of them is a trie whose loops meet only where patterns share a start.
    private static func anywhereStage(
        taking whole: inout [Int], of patterns: inout [(id: PatternID, filter: URLFilter)], minimumPatternsPerStage: Int,
        maximumUnanchoredTrieTerms: Int, gating: Bool, gated: inout [GatedGroup]
    ) -> PlannedStage? {
        var loopy = whole.filter { index in
            let filter = patterns[index].filter
            return !filter.hasStartAnchor && filter.matchedTerms.contains { $0.containsLoop }
        }
        // Unanchored patterns without loops make an Aho-Corasick automaton: about a state per
        // term of their trie, and from each state a transition on every byte that starts a
        // pattern. Real lists' make a few tens of thousands of states; a list of a hundred
        // thousand unrelated literals would make millions, each with dozens of transitions,
        // past any budget. Past `maximumUnanchoredTrieTerms` (AutomataLimits) they are anchored
        // tries of the empty prefix too: about a transition a term, tried at every byte.
        let unanchored = whole.filter { !patterns[$0].filter.hasStartAnchor }
        if unanchored.reduce(0, { $0 + patterns[$1].filter.terms.count }) > maximumUnanchoredTrieTerms {
            loopy = unanchored
        } else if gating {
            // The loopy patterns with a gate run only where it occurs (GatePlanner.swift).
            let staying = loopy
            let groups: [GatedGroup]
            (groups, loopy) = GatePlanner.group(
                staying, of: &patterns, minimumPatternsPerStage: minimumPatternsPerStage,
                maximumGroups: GatePlanner.maximumGroups - gated.count)
            gated += groups
            let taken = Set(staying).subtracting(loopy)
            whole.removeAll { taken.contains($0) }
        }
        guard loopy.count >= minimumPatternsPerStage else { return nil }
        let staged = Set(loopy)
        whole.removeAll { staged.contains($0) }
        let anywhere = URLFilter(source: "", isCaseSensitive: false, hasStartAnchor: false, hasEndAnchor: false, terms: [])
        return PlannedStage(prefix: anywhere, suffixes: loopy.map { index in
            let (id, filter) = patterns[index]
            var suffix = filter
            suffix.source = "^" + filter.source
            suffix.hasStartAnchor = true
            return (id, suffix)
        })
    }
}

/// The prefix tree of the patterns' first terms (up to a few terms past each one's last loop
/// among the searched terms): node ids, how many patterns pass each node, and each pattern's path
/// of nodes. Node 0 is the anchored root, 1 the unanchored root.
private struct PrefixTree {
    let nodes: ShapeEdges
    let passing: [Int32]
    /// Every pattern's path, end to end: pattern i's is `pathNodes[pathStart[i] ..< pathStart[i + 1]]`.
    let pathNodes: [Int32]
    let pathStart: [Int]

    /// A stage to be: a prefix ending in a loop (`length` terms, ending at `node`) and the
    /// patterns whose deepest shared such prefix it is.
    struct Candidate {
        var node: Int32
        var length: Int
        var members: [Int]
    }

    /// (Terms are read through borrowed buffers and the paths kept end to end: copying each
    /// pattern and slicing its terms would retain and release them, a quarter of this step.)
    init(of patterns: inout [(id: PatternID, filter: URLFilter)]) {
        // (Built in local variables, then stored: the closure below reaches them directly.)
        var nodes = ShapeEdges()
        var passing: [Int32] = [0, 0]
        var pathNodes: [Int32] = []
        var pathStart: [Int] = [0]
        pathStart.reserveCapacity(patterns.count + 1)
        for index in patterns.indices {
            let hasStartAnchor = patterns[index].filter.hasStartAnchor
            patterns[index].filter.terms.withUnsafeBufferPointer { terms in
                // Only a prefix that can end before the end-of-URL marker, within the searched terms,
                // and ends with a loop is worth a stage; walk a few terms past the last loop to see
                // what the patterns sharing it share after it.
                var searched = 0
                var lastLoop = -1
                while searched < min(terms.count, StagePlanner.searchedTerms) && !terms[searched].containsEndOfURLMarker {
                    if terms[searched].containsLoop { lastLoop = searched }
                    searched += 1
                }
                guard lastLoop >= 0 else { return }
                var node: Int32 = hasStartAnchor ? 0 : 1
                for term in terms[..<min(searched, lastLoop + 1 + 8)] {
                    let shape = TermShape(term)
                    let hash = ShapeEdges.hash(UInt32(node), shape)
                    if let known = nodes.child(UInt32(node), shape, hash: hash) {
                        node = Int32(known)
                    } else {
                        nodes.insert(UInt32(node), shape, hash: hash, child: UInt32(passing.count))
                        node = Int32(passing.count)
                        passing.append(0)
                    }
                    passing[Int(node)] += 1
                    pathNodes.append(node)
                }
            }
            pathStart.append(pathNodes.count)
        }
        self.nodes = nodes
        self.passing = passing
        self.pathNodes = pathNodes
        self.pathStart = pathStart
    }

    /// The node reached from the anchored root along `terms`, -1 when no pattern passes it.
    func node(along terms: [URLFilterTerm]) -> Int32 {
        var node: UInt32 = 0
        for term in terms {
            let shape = TermShape(term)
            guard let child = nodes.child(node, shape, hash: ShapeEdges.hash(node, shape)) else { return -1 }
            node = child
        }
        return Int32(node)
    }

    /// Each pattern's stage to be, if any: the patterns without one (in the order given), and the
    /// candidates (each in the order of its first pattern), which may have too few members yet.
    func candidateStages(
        of patterns: inout [(id: PatternID, filter: URLFilter)], threshold: Int32, hostLabelNode: Int32
    ) -> (whole: [Int], candidates: [Candidate]) {
        let passing = passing, pathNodes = pathNodes, pathStart = pathStart
        var whole: [Int] = []
        var candidateOfNode: [Int32: Int] = [:]
        var candidates: [Candidate] = []
        for index in patterns.indices {
            let path = pathNodes[pathStart[index]..<pathStart[index + 1]]
            let stagedLength = patterns[index].filter.terms.withUnsafeBufferPointer { terms -> Int? in
                // The deepest loop-ending prefix shared widely enough...
                guard var length = (0..<path.count).last(where: {
                    let node = path[path.startIndex + $0]
                    return terms[$0].containsLoop && (passing[Int(node)] >= threshold || node == hostLabelNode)
                }).map({ $0 + 1 })
                else { return nil }
                // ...extended by what all of its patterns share next (not the `||` prefix: its
                // ends are read off the host only as it is).
                while path[path.startIndex + length - 1] != hostLabelNode && length < path.count
                    && passing[Int(path[path.startIndex + length])] == passing[Int(path[path.startIndex + length - 1])] {
                    length += 1
                }
                // The rest would match everything at the prefix's end: the pattern stays whole.
                return terms[length...].contains(where: { $0.mustConsumeCharacter }) ? length : nil
            }
            guard let length = stagedLength else {
                whole.append(index)
                continue
            }
            let node = path[path.startIndex + length - 1]
            if let candidate = candidateOfNode[node] {
                candidates[candidate].members.append(index)
            } else {
                candidateOfNode[node] = candidates.count
                candidates.append(Candidate(node: node, length: length, members: [index]))
            }
        }
        return (whole, candidates)
    }
}
