// AutomataLimits.swift — Automata
//
// What the construction may spend, and how it plans. A pattern or a group of patterns whose DFA would outgrow the
// limits ends in a typed error carrying the numbers, reached within a bounded amount of work:
// the subset construction counts states as it makes them and stops at the limit.
// Tested by AutomataTests/AutomataTests.swift (the typed limit error).

public struct AutomataLimits: Hashable, Sendable {
    /// The most states one DFA may have while it is built (before minimization).
    public var maximumDFAStates: Int
    /// The most states × byte classes one DFA's transition table may hold while it is built.
    public var maximumTransitionTableEntries: Int

    /// The most NFA states all the DFA states' sets may hold together while it is built: the
    /// construction's memory.
    public var maximumSubsetEntries: Int

    /// The most transitions all the DFAs of one set of patterns (a list's url, top-url or
    /// frame-url patterns) may hold together, counted as each DFA is built (before minimization):
    /// the compile's memory and the compiled file grow with it (about 4 bytes of program per
    /// transition). Past it the compile stops with `tooManyTransitionsInAll`, whichever DFA
    /// crossed it.
    public var maximumTotalTransitions: Int

    /// Groups of patterns whose NFA has more states are split before any DFA is built for them.
    public var preferredNFAStatesPerDFA: Int

    /// Patterns that share a looping prefix are split into a stage (StagePlanner.swift) when at
    /// least this many share it; below 2, never.
    public var minimumPatternsPerStage: Int

    /// The most terms the unanchored patterns built whole may have together. Those without loops
    /// make an Aho-Corasick automaton, with a transition from each state on every byte that starts
    /// a pattern; past this they all are anchored tries tried at every byte (StagePlanner.swift).
    /// Real lists stay far below it; a hostile list of random literals passes it
    /// (`blockbench hostile --case size/literals`).
    public var maximumUnanchoredTrieTerms: Int

    /// Host patterns of a prefix other than the domain table's get a table of their own (a host
    /// context, ContentBlocker/HostContextPlanner.swift) when at least this many share the prefix;
    /// fewer stay with the automata (a context costs every URL a walk of its prefix's automaton).
    public var minimumPatternsPerHostContext: Int

    /// Unanchored patterns with a loop inside are run only where their gate occurs (GatePlanner.swift);
    /// without, they are the every-position stage's tries (or built whole).
    public var gatesLoopyPatterns: Bool

    public init(
        maximumDFAStates: Int = 300_000, maximumTransitionTableEntries: Int = 16_000_000, maximumSubsetEntries: Int = 10_000_000,
        maximumTotalTransitions: Int = 16_000_000, preferredNFAStatesPerDFA: Int = 200_000, minimumPatternsPerStage: Int = 32,
        maximumUnanchoredTrieTerms: Int = 1_000_000, gatesLoopyPatterns: Bool = true, minimumPatternsPerHostContext: Int = 32
    ) {
        self.minimumPatternsPerHostContext = minimumPatternsPerHostContext
        self.gatesLoopyPatterns = gatesLoopyPatterns
        self.maximumUnanchoredTrieTerms = maximumUnanchoredTrieTerms
        self.maximumTotalTransitions = maximumTotalTransitions
        self.preferredNFAStatesPerDFA = preferredNFAStatesPerDFA
        self.minimumPatternsPerStage = minimumPatternsPerStage
        self.maximumDFAStates = maximumDFAStates
        self.maximumTransitionTableEntries = maximumTransitionTableEntries
        self.maximumSubsetEntries = maximumSubsetEntries
    }

    public static let `default` = AutomataLimits()
}

public enum AutomataError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The DFA of `patterns` needs more than `limit` states; `reached` were made when it stopped.
    case tooManyStates(limit: Int, reached: Int, patterns: [PatternID])
    /// The DFA's transition table needs more than `limit` entries (states × byte classes).
    case tooManyTransitions(limit: Int, reached: Int, patterns: [PatternID])
    /// The DFA's states together hold more than `limit` NFA states.
    case tooManySubsetEntries(limit: Int, reached: Int, patterns: [PatternID])
    /// The DFAs of a whole set of patterns need more than `limit` transitions together; `reached`
    /// were built when it stopped. No one pattern is to blame.
    case tooManyTransitionsInAll(limit: Int, reached: Int)

    public var description: String {
        switch self {
        case .tooManyStates(let limit, let reached, let patterns):
            "too many DFA states: limit \(limit), reached \(reached) for \(Self.describe(patterns))"
        case .tooManyTransitions(let limit, let reached, let patterns):
            "too many DFA transitions: limit \(limit), reached \(reached) for \(Self.describe(patterns))"
        case .tooManySubsetEntries(let limit, let reached, let patterns):
            "too many NFA states in the DFA's subsets: limit \(limit), reached \(reached) for \(Self.describe(patterns))"
        case .tooManyTransitionsInAll(let limit, let reached):
            "too many DFA transitions for the patterns together: limit \(limit), reached \(reached)"
        }
    }

    /// The same error with each pattern renamed by `rename`.
    func renaming(_ rename: (PatternID) -> PatternID) -> AutomataError {
        switch self {
        case .tooManyStates(let limit, let reached, let patterns): .tooManyStates(limit: limit, reached: reached, patterns: patterns.map(rename))
        case .tooManyTransitions(let limit, let reached, let patterns):
            .tooManyTransitions(limit: limit, reached: reached, patterns: patterns.map(rename))
        case .tooManySubsetEntries(let limit, let reached, let patterns):
            .tooManySubsetEntries(limit: limit, reached: reached, patterns: patterns.map(rename))
        case .tooManyTransitionsInAll: self
        }
    }

    public var patterns: [PatternID] {
        switch self {
        case .tooManyStates(_, _, let patterns), .tooManyTransitions(_, _, let patterns), .tooManySubsetEntries(_, _, let patterns): patterns
        case .tooManyTransitionsInAll: []
        }
    }

    private static func describe(_ patterns: [PatternID]) -> String {
        patterns.count == 1 ? "pattern \(patterns[0])" : "\(patterns.count) patterns"
    }
}
