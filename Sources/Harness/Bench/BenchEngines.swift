// BenchEngines.swift — Harness
//
// Engines as runners behind one interface. An engine compiles a rule list's JSON text (the
// `compile` model: one run, timed by the runner) and answers requests with a compiled list (the
// `match` model). Each reports machine-independent work counters beside its times.
//
//   blockbench  this package: JSON -> DFAs -> the bytecode file, answered by `Evaluator`
//   pcre2-jit   one PCRE2 pattern per rule, JIT-compiled, every rule tried on every request: what a
//               developer would write without us (the oracle's semantics without its prefilter)
//   pcre2       the same with PCRE2's interpreter (no JIT)
//   webkit      the real WebKit compiler (WebKitGTK), compile only (WebKitEngine.swift)
//   adblock-rust  Brave's engine over the lists' Adblock Plus text, a peer: measured, not
//               conformed (AdblockRustEngine.swift)
//
// An engine that cannot run here says why in `unavailable` and the runner reports it and goes on.
// A peer engine (`conformed` false) has other semantics: its answers are not compared with the
// oracle's, only its block verdicts counted beside BlockBench's, and it times its own requests
// (`SelfTimedMatcher`).

public import ContentBlocker
public import ContentRuleList
public import RequestContext
public import Automata
internal import Bytecode
internal import Foundation
internal import PCRE2Oracle

/// A rule list as the benchmarks hold it: its name in the manifest and its JSON text.
public struct BenchList: Sendable {
    public var name: String
    public var json: [UInt8]
    /// The file it was read from, when it was.
    public var path: String?
    /// The Adblock Plus filter text the list was converted from, one text per source list (the
    /// manifest's `rules-abp` entries whose `safariList` names it), for engines that read filter
    /// syntax; nil when the manifest has none.
    public var abpTexts: [[UInt8]]?

    public init(name: String, json: [UInt8], abpTexts: [[UInt8]]? = nil) {
        self.name = name
        self.json = json
        self.abpTexts = abpTexts
    }
}

/// A number an engine or a measurement reports, with its name: a phase's seconds, a section's
/// bytes, a counter's count, a phase's instructions. Lists of them keep the order they were given in.
public struct Figure: Codable, Hashable, Sendable {
    public var name: String
    public var value: Double

    public init(_ name: String, _ value: Double) {
        self.name = name
        self.value = value
    }
}

extension Figure {
    /// Several parts' figures added up by name, in the order the names first appear.
    static func added(_ parts: [[Figure]]) -> [Figure] {
        var sums: [Figure] = []
        for figure in parts.joined() {
            if let index = sums.firstIndex(where: { $0.name == figure.name }) {
                sums[index].value += figure.value
            } else {
                sums.append(figure)
            }
        }
        return sums
    }
}

/// What one compile run produced, as the engine reports it.
public struct CompileRun: Sendable {
    /// Seconds per phase, in pipeline order.
    public var phases: [Figure] = []
    /// Everything the engine keeps to match with, in bytes.
    public var bytes: Int = 0
    /// `bytes` by part (file sections for BlockBench).
    public var sections: [Figure] = []
    /// Deterministic counts (DFAs, states, patterns).
    public var counters: [Figure] = []
    /// The compile's time as an engine in another process measured it (the runner's clock would
    /// add the process's start-up and the transfer); the runner then reports no memory figures,
    /// its own process's being beside the point.
    public var ownSeconds: Double?
    /// The other process's resident memory growth across the compile, when it measured it.
    public var ownMemoryGrowthBytes: Int?

    public init() {}

    /// Several lists' compiles as one: seconds and counts added up by name, sections named by list.
    public static func joined(_ runs: [(list: String, run: CompileRun)]) -> CompileRun {
        guard runs.count != 1 else { return runs[0].run }
        var run = CompileRun()
        run.phases = Figure.added(runs.map(\.run.phases))
        run.bytes = runs.reduce(0) { $0 + $1.run.bytes }
        run.sections = runs.flatMap { part in part.run.sections.map { Figure(part.list + " " + $0.name, $0.value) } }
        run.counters = Figure.added(runs.map(\.run.counters))
        let own = runs.compactMap(\.run.ownSeconds)
        run.ownSeconds = own.count == runs.count ? own.reduce(0, +) : nil
        let growth = runs.compactMap(\.run.ownMemoryGrowthBytes)
        run.ownMemoryGrowthBytes = growth.count == runs.count ? growth.reduce(0, +) : nil
        return run
    }
}

/// One request's block verdict and its time, as an engine that times itself measured it.
public struct TimedVerdict: Hashable, Sendable {
    public var blocked: Bool
    public var nanoseconds: UInt64

    public init(blocked: Bool, nanoseconds: UInt64) {
        self.blocked = blocked
        self.nanoseconds = nanoseconds
    }
}

/// A matcher in another process, which times each request itself (so the transfer is not
/// counted) and answers whole batches.
public protocol SelfTimedMatcher: BenchMatcher {
    /// Each request's verdict and time, in order.
    func verdicts(_ requests: [Request]) throws -> [TimedVerdict]
}

public protocol BenchEngine: AnyObject {
    var name: String { get }
    /// One line: what the engine is.
    var about: String { get }
    /// Why the engine cannot run here (nil: it can).
    var unavailable: String? { get }
    var models: Set<BenchmarkDefinition.Model> { get }
    /// Compiles `list` from its JSON text, once; the runner times the call.
    func compile(_ list: BenchList) throws -> CompileRun
    /// An answerer over `list`, compiled (untimed) if the engine has not compiled it yet.
    func matcher(for list: BenchList) throws -> any BenchMatcher
    /// Seconds to load what the last compile of `list` made, as a browser does on start; nil
    /// when the engine cannot say. Timed by the engine, outside the compile's time.
    func loadSeconds(_ list: BenchList) throws -> Double?
    /// False for a peer: an engine with other semantics, measured but never compared with the
    /// oracle (its block verdicts are counted beside BlockBench's instead).
    var conformed: Bool { get }
    /// One answerer that asks each of `lists` about every request, for an engine that does that
    /// itself (nil: the runner asks `matcher(for:)` of each list in turn).
    func jointMatcher(for lists: [BenchList]) throws -> (any BenchMatcher)?
}

extension BenchEngine {
    public func loadSeconds(_ list: BenchList) throws -> Double? { nil }
    public var conformed: Bool { true }
    public func jointMatcher(for lists: [BenchList]) throws -> (any BenchMatcher)? { nil }
}

public protocol BenchMatcher: AnyObject {
    func outcome(for request: Request) throws -> MatchOutcome
    /// Deterministic work counters since the matcher was made (interpreter steps, patterns tried).
    var counters: [Figure] { get }
}

/// A joint matcher (`BenchEngine.jointMatcher(for:)`) that tells each list's outcome apart: its
/// answers are joined per request as the oracle's for the lists apart are. (`outcome(for:)` is
/// not asked of it.)
public protocol ListsMatcher: BenchMatcher {
    func outcomes(for request: Request, _ each: (_ list: Int, _ outcome: MatchOutcome) -> Void)
}

public enum BenchEngineError: Error, CustomStringConvertible {
    case listRejected(String)
    case noSuchModel(engine: String, BenchmarkDefinition.Model)
    /// An engine in another process failed or answered something unreadable.
    case externalEngine(String)

    public var description: String {
        switch self {
        case .listRejected(let reason): "the list does not compile: \(reason)"
        case .noSuchModel(let engine, let model): "\(engine) has no \(model.rawValue) model"
        case .externalEngine(let reason): reason
        }
    }
}

// MARK: - BlockBench

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
    public let models: Set<BenchmarkDefinition.Model> = [.check, .compile, .match]
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
        return Matcher(Evaluator(compiled[list.name]!))
    }

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
        return ListsMatcherOfBlockers(ContentBlockers(lists.map { compiled[$0.name]! }))
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

// MARK: - PCRE2

/// One PCRE2 pattern per distinct url-filter and condition, every rule tried in order: the
/// reference semantics (PCRE2Oracle) without the literal prefilter.
public final class PCRE2Engine: BenchEngine {
    public let name: String
    public let about: String
    public let unavailable: String?
    public let models: Set<BenchmarkDefinition.Model> = [.compile, .match]
    let jit: Bool
    private var prepared: [String: ReferenceRuleList] = [:]

    public init(jit: Bool) {
        self.jit = jit
        name = jit ? "pcre2-jit" : "pcre2"
        about = jit
            ? "PCRE2 \(PCRE2Regex.version), one JIT-compiled pattern per rule, every rule tried on every request"
            : "PCRE2 \(PCRE2Regex.version) interpreter, one pattern per rule, every rule tried on every request"
        unavailable = jit && !PCRE2Regex.jitAvailable ? "this PCRE2 has no JIT" : nil
    }

    public func compile(_ list: BenchList) throws -> CompileRun {
        var run = CompileRun()
        let parseStarted = monotonicNanoseconds()
        let parsed: RuleList
        switch RuleListParser.parse(list.json) {
        case .success(let rules): parsed = rules
        case .failure(let error): throw BenchEngineError.listRejected(error.description)
        }
        let compileStarted = monotonicNanoseconds()
        let reference = try ReferenceRuleList(parsed, jit: jit)
        let done = monotonicNanoseconds()
        prepared[list.name] = reference
        run.phases = [
            Figure("parse", Double(compileStarted - parseStarted) / 1e9),
            Figure(jit ? "pcre2 compile + jit" : "pcre2 compile", Double(done - compileStarted) / 1e9),
        ]
        run.bytes = reference.compiledBytes
        run.sections = [Figure(jit ? "pcre2 code + jit code" : "pcre2 code", Double(reference.compiledBytes))]
        run.counters = [Figure("rules", Double(parsed.rules.count)), Figure("patterns", Double(reference.patternCount))]
        return run
    }

    public func matcher(for list: BenchList) throws -> any BenchMatcher {
        if prepared[list.name] == nil { _ = try compile(list) }
        let evaluator = ReferenceEvaluator(
            prepared[list.name]!, usesPrefilter: false, matcher: jit ? .jit : .interpreter, samplesInterpreter: false)
        return Matcher(evaluator)
    }

    final class Matcher: BenchMatcher {
        let evaluator: ReferenceEvaluator
        init(_ evaluator: ReferenceEvaluator) { self.evaluator = evaluator }
        func outcome(for request: Request) throws -> MatchOutcome { try evaluator.outcome(for: request) }
        var counters: [Figure] { [Figure("url-filters tried", Double(evaluator.urlFiltersTried))] }
    }
}

public enum BenchEngines {
    /// The engines this build knows, in table order.
    public static func standard() -> [any BenchEngine] {
        [BlockBenchEngine(), WebKitEngine(), PCRE2Engine(jit: true), PCRE2Engine(jit: false), AdblockRustEngine()]
    }
}
