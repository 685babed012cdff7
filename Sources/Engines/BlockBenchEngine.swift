// BlockBenchEngine.swift — Engines
//
// BlockBench as a benchmark engine (BenchEngines.swift): rule list -> minimal DFAs -> bytecode
// file, answered by `Evaluator`; several lists asked together as a browser asks its content
// blockers. Tested by BenchmarksTests and GateTests (BenchTests, CostGateTests).

public import Automata
internal import Search
public import ContentBlocker
public import ContentRuleList
internal import Foundation
internal import RequestContext

/// An engine that answers from BlockBench's compiled files: the main job reads each list it
/// compiled back from its bytes (validated) and conforms the file read back; the cost counter
/// answers a match benchmark's requests from the same file. `BlockBenchEngine` is the one; tests
/// wrap it to seed faults the gate must catch.
public protocol CompiledListEngine: BenchEngine {
    /// The list compiled last under `name`.
    func compiledList(named name: String) -> CompiledRuleList?
    /// Hands the engine a list compiled elsewhere (the main job's file read back), to match with.
    func adopt(_ list: CompiledRuleList, as name: String)
    /// The engine as conformance runs it: `list` answered by `file`, one evaluator per worker; the
    /// sub-lists a mismatch is reduced to are compiled afresh.
    func conformanceEngine(for list: RuleList, file: CompiledRuleList) -> ConformanceEngine
}

/// Our engine. Keeps the last compiled list per name, so a `match` benchmark reuses the bytecode a
/// `compile` benchmark (or the main job) made.
public final class BlockBenchEngine: CompiledListEngine {
    public let name = "blockbench"
    public let about = "BlockBench: rule list -> minimal DFAs -> bytecode file, run by the bytecode interpreter"
    public let unavailable: String? = nil
    public let models: Set<BenchmarkModel> = [.check, .compile, .match]
    private var compiled: [String: CompiledRuleList] = [:]
    /// What the automata construction may spend (and how patterns are grouped into DFAs).
    public let limits: AutomataLimits

    public init(limits: AutomataLimits = .default) {
        self.limits = limits
    }

    public func adopt(_ list: CompiledRuleList, as name: String) { compiled[name] = list }

    public func compiledList(named name: String) -> CompiledRuleList? { compiled[name] }

    public func compile(_ list: BenchList) throws -> CompileRun {
        let (compiledList, report) = try RuleListCompiler.compile(json: list.json, limits: limits)
        return keep(compiledList, report: report, as: list.name)
    }

    /// Keeps `compiledList` as the list `name` and says what its compile made: the report's phases
    /// (with `emit`, the file's bytes written, timed here), the file's sections and the automata's
    /// counts. `compile` ends here; so does a test's engine that compiles differently.
    public func keep(_ compiledList: CompiledRuleList, report compileReport: CompilationReport, as name: String) -> CompileRun {
        var report = compileReport
        let bytes = report.timer.measure(.emit) { compiledList.serialized() }
        compiled[name] = compiledList
        var run = CompileRun()
        run.phases = PhaseTimer.Phase.allCases.map { Figure($0.rawValue, report.timer.seconds($0)) }
        run.bytes = bytes.count
        run.sections = CompiledFile.sectionSizes(in: bytes).map { Figure("\($0.kind)", Double($0.bytes)) }
        for (kind, automata) in [("url", report.url), ("top-url", report.topURL), ("frame-url", report.frameURL)] {
            run.counters.append(Figure("\(kind) DFAs", Double(automata.dfas)))
            run.counters.append(Figure("\(kind) states", Double(automata.states)))
            run.counters.append(Figure("\(kind) states before minimization", Double(automata.statesBeforeMinimization)))
        }
        run.counters.append(Figure("rules", Double(report.rules)))
        run.counters.append(Figure("url patterns", Double(report.urlPatterns)))
        return run
    }

    public func loadSeconds(_ list: BenchList) throws -> Double? {
        if compiled[list.name] == nil { _ = try compile(list) }
        return try Self.loadSeconds(of: compiled[list.name]!.serialized())
    }

    /// What loading a compiled file costs a browser on start: its bytes validated and read, then
    /// an evaluator made of them (also `blockbench compile`'s `load` line).
    public static func loadSeconds(of bytes: [UInt8]) throws -> Double {
        let started = monotonicNanoseconds()
        let loaded = try CompiledRuleList(validating: bytes)
        withExtendedLifetime(Evaluator(loaded)) {}
        return Double(monotonicNanoseconds() - started) / 1e9
    }

    public func matcher(for list: BenchList) throws -> any BenchMatcher {
        if compiled[list.name] == nil { _ = try compile(list) }
        return Matcher(Evaluator(compiled[list.name]!, denseBudget: Self.denseBudget(list)))
    }

    /// The dense tables' budget a benchmark loads `list` within (nil: the list's own).
    static func denseBudget(_ list: BenchList) -> DenseBudget? { list.denseBudgetBytes.map(DenseBudget.init(bytes:)) }

    public func conformanceEngine(for list: RuleList, file: CompiledRuleList) -> ConformanceEngine {
        let limits = limits
        return ConformanceEngine(name: name) { candidate in
            let answering = candidate == list ? file : try CompiledRuleList(validating: RuleListCompiler.compile(candidate, limits: limits).0.serialized())
            return {
                let evaluator = Evaluator(answering)
                return { evaluator.outcome(for: $0) }
            }
        }
    }

    /// Several lists asked together, as a browser asks its content blockers (`ContentBlockers`:
    /// each request's page, third party and host labels found once for all the lists).
    public func jointMatcher(for lists: [BenchList]) throws -> (any BenchMatcher)? {
        for list in lists where compiled[list.name] == nil { _ = try compile(list) }
        let budgets = Set(lists.map(\.denseBudgetBytes))
        precondition(budgets.count == 1, "lists asked together are loaded within one dense budget")
        return ListsMatcherOfBlockers(ContentBlockers(lists.map { compiled[$0.name]! }, denseBudget: Self.denseBudget(lists[0])))
    }

    final class Matcher: BenchMatcher {
        let evaluator: Evaluator

        init(_ evaluator: Evaluator) { self.evaluator = evaluator }

        func outcome(for request: Request) -> MatchOutcome { evaluator.outcome(for: request) }

        var counters: [Figure] { Self.counters(of: evaluator) }

        static func counters(of evaluator: Evaluator) -> [Figure] {
            [Figure("interpreter steps", Double(evaluator.steps)), Figure("program runs", Double(evaluator.programRuns))]
        }
    }

    final class ListsMatcherOfBlockers: ListsMatcher {
        let blockers: ContentBlockers

        init(_ blockers: ContentBlockers) { self.blockers = blockers }

        func outcomes(for request: Request, _ each: (Int, MatchOutcome) -> Void) { blockers.outcomes(for: request, each) }

        func outcome(for request: Request) -> MatchOutcome {
            preconditionFailure("a matcher of several lists tells each list's outcome (outcomes(for:_:))")
        }

        var counters: [Figure] { Figure.added(blockers.evaluators.map(Matcher.counters(of:))) }
    }
}
