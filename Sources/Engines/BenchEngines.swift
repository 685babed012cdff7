// BenchEngines.swift — Engines
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
//   ublock-origin  uBlock Origin's static network filtering engine over the same text, under
//               Node.js, a peer likewise (UBlockOriginEngine.swift)
//
// An engine that cannot run here says why in `unavailable` and the runner reports it and goes on.
// A peer engine (`conformed` false) has other semantics: its answers are not compared with the
// oracle's, only its block verdicts counted beside BlockBench's, and it times its own requests
// (`SelfTimedMatcher`).
// Tested by BenchmarksTests, EnginesTests and GateTests (BenchTests, AdblockRustEngineTests,
// UBlockOriginEngineTests, CostGateTests).

internal import ContentBlocker
internal import ContentRuleList
public import RequestContext
internal import Automata
internal import Bytecode
internal import Foundation
internal import PCRE2Oracle

/// How a benchmark runs an engine: `check` parses and validates the list, `compile` turns it into
/// what the engine matches with, `match` answers a request set with it (BenchmarkDefinition.swift).
public enum BenchmarkModel: String, Codable, Hashable, Sendable, CaseIterable {
    case check, compile, match
}

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
    /// BlockBench's dense tables' budget in bytes as a benchmark loads the list
    /// (`BenchmarkDefinition.denseBudget`, Search/DenseBudget.swift; nil: the default). Other
    /// engines load as they do.
    public var denseBudgetBytes: Int?

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
    package static func added(_ parts: [[Figure]]) -> [Figure] {
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
    /// The growth of the other process's garbage-collected heap across the compile, read after a
    /// collection each side, when it has one (uBlock Origin under Node.js).
    public var ownHeapGrowthBytes: Int?

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
        let heap = runs.compactMap(\.run.ownHeapGrowthBytes)
        run.ownHeapGrowthBytes = heap.count == runs.count ? heap.reduce(0, +) : nil
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
    var models: Set<BenchmarkModel> { get }
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
    case noSuchModel(engine: String, BenchmarkModel)
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

public enum BenchEngines {
    /// The engines this build knows, in table order.
    public static func standard() -> [any BenchEngine] {
        [BlockBenchEngine(), WebKitEngine(), PCRE2Engine(jit: true), PCRE2Engine(jit: false), AdblockRustEngine(), UBlockOriginEngine()]
    }
}
