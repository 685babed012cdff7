// Engines.swift — Fuzzing
//
// The two sides every level compares, behind small values a test can replace:
//  - `PatternPipeline`: one url-filter through the engine's pipeline (syntax tree -> Thompson NFA
//    -> subset construction under limits -> minimal DFA -> bytecode program), answering at every
//    stage, so a disagreement names the first stage that goes wrong; `PatternEngine` is the
//    engine's own;
//  - `ListEngine`: a whole rule list compiled, serialized and loaded back (validated), answering
//    requests, as a browser runs it;
//  - `PatternOracle` (PCRE2Oracle/PatternOracle.swift): the same url-filter through the PCRE2
//    translation.
// The engine modules are used as they are; a test makes them wrong with a pipeline of its own (a
// seeded bug in the minimal DFA) or a broken `ListEngine`, defined in the test.

public import Automata
internal import Bytecode
internal import ContentBlocker
public import ContentRuleList
internal import PCRE2Oracle
public import RequestContext
public import URLFilterSyntax

/// The stages of the pipeline, in order.
public enum EngineStage: String, Sendable, Codable, CaseIterable {
    /// Syntax tree and Thompson NFA, run by direct simulation.
    case nfa
    /// The subset construction's DFA.
    case determinize
    /// The minimal DFA.
    case minimize
    /// The bytecode program run by the interpreter: the engine's answer.
    case bytecode
}

/// One url-filter through the engine's pipeline: what the match levels and the small world compare
/// with the oracle. `PatternEngine` is the engine's; a test supplies another (its `minimize` wrong
/// on purpose) to check that the fuzzer finds and shrinks the bug.
public protocol PatternPipeline: Sendable {
    /// What the subset construction may spend.
    var limits: AutomataLimits { get }
    /// The minimal DFA of the subset construction's `dfa`: the `minimize` stage.
    func minimize(_ dfa: DFA) -> DFA
}

extension PatternPipeline {
    /// The automata of an accepted pattern; a pattern that matches everything has none.
    public func build(_ filter: URLFilter) throws(AutomataError) -> BuiltPattern {
        guard !filter.matchesEverything else { return BuiltPattern(matchesEverything: true, nfa: nil, dfa: nil, minimal: nil, program: nil) }
        let nfa = NFA(patterns: [(PatternID(0), filter)])
        let dfa = try SubsetConstruction.determinize(nfa, limits: limits)
        let minimal = minimize(dfa)
        return BuiltPattern(matchesEverything: false, nfa: nfa, dfa: dfa, minimal: minimal, program: Program(minimal))
    }
}

/// The engine's pipeline, as the compiler runs it.
public struct PatternEngine: PatternPipeline {
    public var limits: AutomataLimits

    /// Small limits: a pattern whose DFA would need more states ends in the typed limit error
    /// within a few milliseconds, which the fuzzer counts apart.
    /// Any two patterns that share a looping prefix become a stage (StagePlanner.swift), so that
    /// generated lists exercise stages as real lists do.
    public static let fuzzingLimits = AutomataLimits(
        maximumDFAStates: 20_000, maximumTransitionTableEntries: 2_000_000, maximumSubsetEntries: 2_000_000,
        minimumPatternsPerStage: 2)

    public init(limits: AutomataLimits = PatternEngine.fuzzingLimits) {
        self.limits = limits
    }

    public func minimize(_ dfa: DFA) -> DFA { Minimizer.minimize(dfa) }
}

/// A url-filter's automata, ready to answer.
public struct BuiltPattern: Sendable {
    public let matchesEverything: Bool
    let nfa: NFA?
    let dfa: DFA?
    let minimal: DFA?
    let program: Program?

    /// States of the minimal DFA (0 for a pattern that matches everything).
    public var states: Int { minimal?.stateCount ?? 0 }

    /// Every stage's answer for `subject` (the URL's bytes, without the end marker).
    public func answers(_ subject: [UInt8]) -> [EngineStage: Bool] {
        guard let nfa, let dfa, let minimal, let program else {
            return Dictionary(uniqueKeysWithValues: EngineStage.allCases.map { ($0, true) })
        }
        return [
            .nfa: !nfa.matches(subject).isEmpty, .determinize: !dfa.matches(subject).isEmpty,
            .minimize: !minimal.matches(subject).isEmpty, .bytecode: !program.matches(subject).isEmpty,
        ]
    }

    /// The engine's answer: the bytecode's.
    public func matches(_ subject: [UInt8]) -> Bool {
        guard let program else { return true }
        return !program.matches(subject).isEmpty
    }
}

/// A whole rule list on the engine's side.
public struct ListEngine: Sendable {
    public var name: String
    /// Compiles a list (throwing `CompileError`), giving the function that answers requests.
    public var compile: @Sendable (RuleList, AutomataLimits) throws -> (Request) -> MatchOutcome

    public init(name: String, compile: @escaping @Sendable (RuleList, AutomataLimits) throws -> (Request) -> MatchOutcome) {
        self.name = name
        self.compile = compile
    }

    /// BlockBench as a browser runs it: compiled, written to bytes, loaded (validated), evaluated.
    public static let blockBench = ListEngine(name: "blockbench") { list, limits in
        let (compiled, _) = try RuleListCompiler.compile(list, limits: limits)
        let evaluator = Evaluator(try CompiledRuleList(validating: compiled.serialized()))
        return { evaluator.outcome(for: $0) }
    }
}
