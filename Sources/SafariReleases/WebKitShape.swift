// WebKitShape: what WebKit's compile of a rule list grows with, counted from the rules as WebKit
// groups them, and which rules make it grow. WebKit (ContentExtensionCompiler.cpp) puts the
// url-filters of the rules without a condition in one prefix tree of terms, those of the rules
// with a condition in another, the conditions' page-URL patterns (an `if-domain` domain becomes
// one) in a third and the frame-URL patterns in a fourth; it cuts each tree into NFAs, makes a DFA
// of each and writes the DFAs as bytecode. The shape counts, per tree, the distinct patterns, the
// nodes of a prefix tree over their text (a case-insensitive pattern lower-cased, the terms
// WebKit compares), and WebKit's automata as BlockBench's own construction builds them
// (WebKitAutomata: NFAs, DFA states, byte ranges).
//
// A rule's cost is the nodes that only its patterns reach (removing the rule removes those and no
// others), each weighed by the DFA states and ranges per node of the automaton its pattern went
// to, and the bytes of its `css-display-none` selector, which WebKit stores as written.
// Tested by SafariReleasesTests/WebKitModelTests.swift (WebKitShapeTests).

public import ContentRuleList
internal import URLFilterSyntax

public struct WebKitShape: Sendable {
    /// WebKit's prefix trees.
    public enum Tree: String, CaseIterable, Codable, Sendable {
        /// The url-filters of rules without a condition, of rules with one, the page-URL patterns
        /// (`if-top-url`, `unless-top-url`, `if-domain`, `unless-domain`), the frame-URL patterns.
        case url, conditionedURL, topURL, frameURL
    }

    /// One tree's figures.
    public struct Counts: Sendable {
        public var patterns = 0
        public var nodes = 0
        /// Patterns not anchored at the start (WebKit reads them as `.*` first), and their nodes.
        public var unanchored = 0
        public var unanchoredNodes = 0
        /// `*` and `+` after a pattern's first term, over its distinct patterns.
        public var repetitions = 0
        /// WebKit's automata (WebKitAutomata): NFAs, DFA states, byte ranges, NFAs past the limits.
        public var nfas = 0
        public var states = 0
        public var ranges = 0
        public var unbuilt = 0
        /// WebKit's bytecode of the automata, counted as its compiler writes it (WebKitBytecode).
        public var bytecode = 0
        /// WebKitAutomata's construction work (states built, merges included) and largest DFA.
        public var builtStates = 0
        public var largestStates = 0
        /// The small DFAs WebKit holds until it merges them (WebKitAutomata), their states and
        /// byte ranges.
        public var smallDFAs = 0
        public var heldStates = 0
        public var heldRanges = 0
        /// The merges' states as built, and the unanchored patterns' DFAs' (WebKitAutomata).
        public var mergedStates = 0
        public var unanchoredStates = 0
        /// The most nodes one NFA had (WebKit's count) and the most states one minimized DFA had.
        public var largestNFA = 0
        public var largestMinimal = 0
    }

    /// One rule's cost: per tree, the nodes only its patterns reach and the DFA states and ranges
    /// they stand for; and its selector's bytes.
    public struct RuleCost: Sendable {
        public var rule: Int
        public var nodes: [Tree: Int] = [:]
        public var states: [Tree: Double] = [:]
        public var ranges: [Tree: Double] = [:]
        public var bytecode: [Tree: Double] = [:]
        public var selectorBytes = 0
        public var totalNodes: Int { nodes.values.reduce(0, +) }
    }

    public var trees: [Tree: Counts]
    public var selectorBytes: Int
    /// WebKit's serialized actions' bytes (WebKitBytecode.Actions).
    public var actionBytes: Int
    /// The rules that own a node or a selector, in rule order.
    public var rules: [RuleCost]

    public func counts(_ tree: Tree) -> Counts { trees[tree] ?? Counts() }

    /// The shape of `list` as WebKit reads it.
    public init(_ list: RuleList) {
        var builders = Dictionary(uniqueKeysWithValues: Tree.allCases.map { ($0, TreeBuilder()) })
        var selectorBytes = 0
        var costs: [Int: RuleCost] = [:]
        let actions = WebKitBytecode.Actions(list)
        actionBytes = actions.bytes
        for (position, rule) in list.rules.enumerated() {
            let trigger = rule.trigger, action = actions.values[position]
            let urlTree: Tree = trigger.condition == nil ? .url : .conditionedURL
            builders[urlTree]?.add(trigger.urlFilter, caseSensitive: trigger.urlFilterIsCaseSensitive, rule: position, action: action)
            switch trigger.condition {
            case .ifDomain(let domains), .unlessDomain(let domains):
                for domain in domains { builders[.topURL]?.add(Self.domainPattern(domain), caseSensitive: false, rule: position, action: action) }
            case .ifTopURL(let patterns), .unlessTopURL(let patterns):
                for pattern in patterns {
                    builders[.topURL]?.add(pattern, caseSensitive: trigger.topURLFilterIsCaseSensitive, rule: position, action: action)
                }
            case .ifFrameURL(let patterns), .unlessFrameURL(let patterns):
                for pattern in patterns {
                    builders[.frameURL]?.add(pattern, caseSensitive: trigger.frameURLFilterIsCaseSensitive, rule: position, action: action)
                }
            case nil: break
            }
            if case .cssDisplayNone(let selector) = rule.action {
                selectorBytes += selector.utf8.count
                costs[position, default: RuleCost(rule: position)].selectorBytes = selector.utf8.count
            }
        }
        self.selectorBytes = selectorBytes
        var trees: [Tree: Counts] = [:]
        for (tree, builder) in builders {
            let automata = WebKitAutomata(builder.filters, actions: builder.filterActions)
            var counts = builder.counts
            (counts.nfas, counts.states, counts.ranges, counts.unbuilt) = (automata.nfas, automata.states, automata.ranges, automata.unbuilt)
            counts.bytecode = automata.bytes
            (counts.builtStates, counts.largestStates) = (automata.builtStates, automata.largestStates)
            (counts.smallDFAs, counts.heldStates, counts.heldRanges) = (automata.smallDFAs, automata.heldStates, automata.heldRanges)
            (counts.mergedStates, counts.unanchoredStates) = (automata.mergedStates, automata.unanchoredStates)
            (counts.largestNFA, counts.largestMinimal) = (automata.largestNFA, automata.largestMinimal)
            trees[tree] = counts
            let nodesByGroup = builder.nodesByGroup()
            for (rule, owned) in builder.ownedNodes() {
                var cost = costs[rule, default: RuleCost(rule: rule)]
                for (group, nodes) in owned {
                    let key = builder.groups.keys[group]
                    guard let built = automata.byGroup[key], let all = nodesByGroup[group], all > 0 else { continue }
                    cost.nodes[tree, default: 0] += nodes
                    cost.states[tree, default: 0] += Double(nodes) * Double(built.states) / Double(all)
                    cost.ranges[tree, default: 0] += Double(nodes) * Double(built.ranges) / Double(all)
                    cost.bytecode[tree, default: 0] += Double(nodes) * Double(built.bytes) / Double(all)
                }
                costs[rule] = cost
            }
        }
        self.trees = trees
        rules = costs.values.filter { $0.totalNodes > 0 || $0.selectorBytes > 0 }.sorted { $0.rule < $1.rule }
    }

    /// The page-URL pattern WebKit makes of an `if-domain` entry (SEMANTICS.md §2): its text
    /// stands for the terms of WebKit's pattern.
    static func domainPattern(_ domain: String) -> String {
        let prefix = "^[a-z][a-z+.-]*:\\/\\/"
        let escaped = domain.drop(while: { $0 == "*" }).map { "\\^$.*+?()[]{}|/".contains($0) ? "\\\($0)" : String($0) }.joined()
        return domain.hasPrefix("*") ? prefix + "([^/]*\\.)*" + escaped + "[:/]" : prefix + escaped + "[:/]"
    }

    /// One prefix tree over patterns' text, each node knowing the first rule that reached it
    /// (-1 once a second rule did) and the automaton group of the pattern that made it.
    struct TreeBuilder {
        struct Edge: Hashable {
            var node: Int32
            var byte: UInt8
        }
        var children: [Edge: Int32] = [:]
        /// Per node (the root is node 0).
        var owners: [Int32] = [-1]
        var nodeGroups: [Int32] = [-1]
        var seen: [String: Int32] = [:]
        var counts = Counts()
        /// The distinct patterns WebKit accepts, parsed; the groups (WebKitAutomata.group).
        var filters: [URLFilter] = []
        /// Per filter, WebKit's actions of the rules that have it (WebKitBytecode.Actions).
        var filterActions: [[UInt64]] = []
        var filterNumbers: [String: Int] = [:]
        /// The groups of the patterns (WebKitAutomata.group), numbered as met.
        var groups = Numbering<String>()

        mutating func add(_ pattern: String, caseSensitive: Bool, rule: Int, action: UInt64) {
            let text = caseSensitive ? pattern : pattern.lowercased()
            let group: Int32
            if let known = seen[text] {
                group = known
            } else {
                counts.patterns += 1
                if !text.hasPrefix("^") { counts.unanchored += 1 }
                counts.repetitions += Self.innerRepetitions(text)
                if case .success(let filter) = URLFilterParser.parse(pattern, isCaseSensitive: caseSensitive) {
                    filterNumbers[text] = filters.count
                    filters.append(filter)
                    filterActions.append([])
                    group = Int32(groups.number(of: WebKitAutomata.group(filter)))
                } else {
                    group = -1
                }
                seen[text] = group
            }
            if let number = filterNumbers[text], !filterActions[number].contains(action) { filterActions[number].append(action) }
            let anchored = text.hasPrefix("^")
            var node: Int32 = 0
            for byte in text.utf8 {
                let edge = Edge(node: node, byte: byte)
                if let child = children[edge] {
                    node = child
                    if owners[Int(node)] != Int32(rule) { owners[Int(node)] = -1 }
                } else {
                    node = Int32(owners.count)
                    children[edge] = node
                    owners.append(Int32(rule))
                    nodeGroups.append(group)
                    if !anchored { counts.unanchoredNodes += 1 }
                }
            }
            counts.nodes = owners.count - 1
        }

        /// The nodes each rule alone reaches, by group.
        func ownedNodes() -> [Int: [Int: Int]] {
            var owned: [Int: [Int: Int]] = [:]
            for (owner, group) in zip(owners, nodeGroups).dropFirst() where owner >= 0 && group >= 0 {
                owned[Int(owner), default: [:]][Int(group), default: 0] += 1
            }
            return owned
        }

        /// The nodes each group's patterns made.
        func nodesByGroup() -> [Int: Int] {
            var nodes: [Int: Int] = [:]
            for group in nodeGroups.dropFirst() where group >= 0 { nodes[Int(group), default: 0] += 1 }
            return nodes
        }

        /// Unescaped `*` and `+` outside a class, a leading `.*` not counted.
        static func innerRepetitions(_ text: String) -> Int {
            var count = 0, escaped = false, inClass = false
            for (offset, byte) in text.utf8.enumerated() {
                if escaped { escaped = false; continue }
                switch byte {
                case UInt8(ascii: "\\"): escaped = true
                case UInt8(ascii: "["): inClass = true
                case UInt8(ascii: "]"): inClass = false
                case UInt8(ascii: "*"), UInt8(ascii: "+"):
                    if !inClass && !(offset == 1 && text.utf8.first == UInt8(ascii: ".")) { count += 1 }
                default: break
                }
            }
            return count
        }
    }
}
