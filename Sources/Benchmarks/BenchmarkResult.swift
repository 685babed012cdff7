// BenchmarkResult.swift — Benchmarks
//
// What a benchmark measured, per engine: the form of results.json, the CSV rows, the tables and
// the report page. Times are medians over the measured runs; counters are machine-independent.
// Tested by BenchmarksTests and GateTests (BenchTests, CostGateTests).

public import Conformance
public import Engines
internal import TerminalText

/// How a peer engine's block verdicts compare with BlockBench's on the same requests: information
/// about two semantics, never a pass or a failure.
public struct VerdictAgreement: Codable, Hashable, Sendable {
    /// What the peer was compared with: "blockbench" (its answers in the same benchmark), or
    /// "oracle" when BlockBench did not run there (its answers equal the oracle's when it does).
    public var comparedWith: String
    public var requests = 0
    public var bothBlock = 0
    public var neitherBlocks = 0
    /// Requests only the peer blocks, and only BlockBench blocks.
    public var onlyPeerBlocks = 0
    public var onlyBlockBenchBlocks = 0

    public init(comparedWith: String) { self.comparedWith = comparedWith }

    public var agreeing: Int { bothBlock + neitherBlocks }

    public var text: String {
        let share = requests > 0 ? Double(agreeing) / Double(requests) * 100 : 0
        return String(format: "%.1f", share) + "% agree with \(comparedWith) on block (both \(HumanReadable.count(bothBlock)), "
            + "only \(comparedWith) \(HumanReadable.count(onlyBlockBenchBlocks)), only this \(HumanReadable.count(onlyPeerBlocks)))"
    }
}

public struct LatencySummary: Codable, Hashable, Sendable {
    public var medianNanoseconds: Double
    public var p90Nanoseconds: Double
    public var p99Nanoseconds: Double
    public var maxNanoseconds: Double
    public var meanNanoseconds: Double
    /// Every measured request of every run.
    public var samples: Int
    public var distribution: [LatencyPoint]

    init(_ histogram: LatencyHistogram) {
        medianNanoseconds = histogram.percentile(50)
        p90Nanoseconds = histogram.percentile(90)
        p99Nanoseconds = histogram.percentile(99)
        maxNanoseconds = histogram.max
        meanNanoseconds = histogram.mean
        samples = Int(histogram.count)
        distribution = histogram.distribution()
    }
}

/// One of several lists compiled apart, on its own (the median of the measured runs).
public struct ListFigures: Codable, Hashable, Sendable {
    public var list: String
    public var rules: Int
    /// Its compile's seconds and bytes, and loading what it made (`BenchEngine.loadSeconds`).
    public var seconds: Double
    public var bytes: Int
    public var loadSeconds: Double?
}

/// The largest of several lists asked apart (the most rules), asked alone in the same rounds as
/// the lists together.
public struct AloneFigures: Codable, Hashable, Sendable {
    public var list: String
    public var rules: Int
    /// Its median request.
    public var medianNanoseconds: Double
    /// Its work per request (the engine's counters, as the lists together give theirs).
    public var counters: [Figure] = []
}

public struct EngineResult: Codable, Hashable, Sendable {
    public enum Status: String, Codable, Hashable, Sendable {
        /// Measured, and (match) its answers agreed with the oracle's.
        case ok
        /// Its answers differ from the oracle's: reported, never timed.
        case wrong
        /// It failed (the list did not compile, an exception); `message` says how.
        case error
        /// It cannot run here; `message` says why.
        case unavailable
    }

    public var engine: String
    public var status: Status
    public var message: String?
    public var warmupRuns = 0
    public var runs = 0
    /// Wall time of each measured run (the whole list, or every request of the sample).
    public var runSeconds: [Double] = []
    /// The median of `runSeconds`.
    public var seconds: Double?
    /// A peer engine (`BenchEngine.conformed` false): measured, not conformed.
    public var peer: Bool?
    /// A compile an engine in another process timed itself (`seconds`): the median of the same
    /// runs timed by the runner around the call, transfer and all.
    public var endToEndSeconds: Double?

    // compile and check
    public var phases: [Figure]?
    public var bytes: Int?
    public var sections: [Figure]?
    /// The process's peak resident memory during the median run, and its growth over the memory
    /// resident when the run started.
    public var peakMemoryBytes: Int?
    public var memoryGrowthBytes: Int?
    /// A peer's garbage-collected heap growth across the median run (`CompileRun.ownHeapGrowthBytes`).
    public var heapGrowthBytes: Int?
    /// BlockBench's peak resident memory compiling the list with `blockbench compile` in a process
    /// of its own (`BenchmarkRunner.ownProcessCompiler`): the figure a user of the command sees.
    public var ownProcessPeakMemoryBytes: Int?
    /// BlockBench's exact cost, counted under Valgrind in a serial run of its own (CostCounter):
    /// compile, instructions per phase part and `total`; match, instructions per request (the
    /// second pass) and per request of the first pass (a fresh evaluator).
    public var instructions: [Figure]?
    /// Match: BlockBench's data-cache misses per request in the same counted run, in callgrind's
    /// simulation of a 32 KB level 1 and a 1 MB level 2 (`CostCounter.cacheSimulation`): where
    /// a request's time goes to memory, which instructions do not see.
    public var dataMisses: [Figure]?
    /// BlockBench's peak of live heap bytes compiling the list serially (massif).
    public var heapPeakBytes: Int?
    /// Loading what the compile made (`BenchEngine.loadSeconds`), the median of as many loads as
    /// there were measured compile runs; nil for an engine that cannot say.
    public var loadSeconds: Double?
    /// Lists compiled apart: each list's own figures, in order.
    public var lists: [ListFigures]?
    public var verdict: String?

    // match
    /// Requests answered per run, and whether they are a sample of the set.
    public var requests: Int?
    public var sampled: Bool?
    public var answers: AnswerCounts?
    public var oracleAnswers: AnswerCounts?
    /// A peer's block verdicts beside BlockBench's.
    public var agreement: VerdictAgreement?
    public var latency: LatencySummary?
    public var requestsPerSecond: Double?
    public var nanosecondsPerURLByte: Double?
    /// The floor of one request (engines that count interpreter steps): the mean bytes their DFA
    /// passes read per request x the nanoseconds per byte of a plain table walk in cache
    /// (`TableWalk`), measured in the same run.
    public var floorNanoseconds: Double?
    /// The median latency over that floor.
    public var timesFloor: Double? {
        guard let floorNanoseconds, floorNanoseconds > 0, let latency else { return nil }
        return latency.medianNanoseconds / floorNanoseconds
    }
    /// Lists asked apart: the largest asked alone, timed in the same rounds.
    public var largestAlone: AloneFigures?
    /// The median request of the lists together over the largest's alone.
    public var timesLargestAlone: Double? {
        guard let largestAlone, largestAlone.medianNanoseconds > 0, let latency else { return nil }
        return latency.medianNanoseconds / largestAlone.medianNanoseconds
    }
    /// A fresh process's resident memory after loading what the engine answers with.
    public var residentAfterLoad: ResidentAfterLoad?

    /// Deterministic counts: compile (DFAs, states, patterns) or per request (interpreter steps).
    public var counters: [Figure] = []

    /// This engine's headline figure over the best engine's in the same run (time: compile and
    /// check seconds, match median latency; bytes: compile output).
    public var timeRatio: Double?
    public var bytesRatio: Double?

    public init(engine: String, status: Status, message: String? = nil) {
        self.engine = engine
        self.status = status
        self.message = message
    }

    /// The figure the time ratio compares.
    public var headlineTime: Double? {
        guard status == .ok else { return nil }
        return latency?.medianNanoseconds ?? seconds.map { $0 * 1e9 }
    }

    public func counter(_ name: String) -> Double? { counters.first { $0.name == name }?.value }
}

public struct BenchmarkResult: Codable, Hashable, Sendable {
    public var name: String
    public var about: String?
    public var model: BenchmarkDefinition.Model
    public var rules: String
    public var ruleCount: Int
    /// Several lists, each compiled on its own and asked about every request (`BenchmarkDefinition.apart`).
    public var apart: Bool?
    /// BlockBench's lists loaded within this many bytes of dense tables (`BenchmarkDefinition.denseBudget`).
    public var denseBudget: Int?
    public var requests: String?
    public var requestCount: Int?
    public var engines: [EngineResult]

    package init(
        name: String, about: String? = nil, model: BenchmarkDefinition.Model, rules: String, ruleCount: Int, apart: Bool? = nil,
        requests: String? = nil, requestCount: Int? = nil, engines: [EngineResult]
    ) {
        self.name = name
        self.about = about
        self.model = model
        self.rules = rules
        self.ruleCount = ruleCount
        self.apart = apart
        self.requests = requests
        self.requestCount = requestCount
        self.engines = engines
    }

    /// The lists as a summary names them: `rules`, with "(apart)" for lists asked apart and the
    /// dense budget they were loaded within, if any.
    public var listsLabel: String {
        rules + (apart == true ? " (apart)" : "") + (denseBudget.map { " (dense budget \(HumanReadable.count($0)) bytes)" } ?? "")
    }

    /// Whether every engine that ran gave the oracle's answers (unavailable engines aside).
    public var passed: Bool { engines.allSatisfy { $0.status == .ok || $0.status == .unavailable } }

    public var title: String {
        switch model {
        case .match:
            "\(rules) × \(requests ?? "?") (match, \(HumanReadable.count(requestCount ?? 0)) requests\(apart == true ? ", each list asked apart" : "")"
                + (denseBudget.map { ", dense tables within \(HumanReadable.count($0)) bytes" } ?? "") + ")"
        case .compile: "\(rules) (compile, \(HumanReadable.count(ruleCount)) rules\(apart == true ? ", each list apart" : ""))"
        case .check: "\(rules) (check, \(HumanReadable.count(ruleCount)) rules)"
        }
    }

    /// Fills in each engine's ratios to the best engine of this benchmark.
    mutating func computeRatios() {
        let bestTime = engines.compactMap(\.headlineTime).filter { $0 > 0 }.min()
        let bestBytes = engines.filter { $0.status == .ok }.compactMap(\.bytes).filter { $0 > 0 }.min()
        for index in engines.indices {
            if let time = engines[index].headlineTime, let bestTime { engines[index].timeRatio = time / bestTime }
            if engines[index].status == .ok, let bytes = engines[index].bytes, let bestBytes {
                engines[index].bytesRatio = Double(bytes) / Double(bestBytes)
            }
        }
    }
}
