// FullRunOutcome.swift — Gate
//
// What one full run (the main job: FullRun.swift) found, in `blockbench run` or in `blockbench
// gate`, which compares it with the baseline: each shipped list's verdict, conformance, WebKit's
// vectors and every benchmark result. The gate's metrics are read from it (Gate/GateMetrics.swift).
// Tested by GateTests (GateTests, CostGateTests).

public import Benchmarks

/// One shipped rule list in the main job.
public struct ListOutcome: Codable, Hashable, Sendable {
    public var name: String
    public var rules: Int
    /// Whether WebKit compiles it (our validator's verdict) and BlockBench compiled it.
    public var compiles: Bool
    /// "compiles" or "rejected: <WebKit's error>", or why it did not compile here.
    public var verdict: String
    /// The compiled file's size (read back and validated).
    public var bytes: Int?
    /// Requests of every shipped set answered by the engine and the oracle, and how many differed.
    public var conformRequests = 0
    public var conformMismatches = 0

    public init(name: String, rules: Int, compiles: Bool, verdict: String) {
        self.name = name
        self.rules = rules
        self.compiles = compiles
        self.verdict = verdict
    }
}

public struct FullRunOutcome: Sendable {
    public var lists: [ListOutcome] = []
    public var results: [BenchmarkResult] = []
    public var vectorsPassed = 0
    public var vectorsFailed = 0
    /// What the instruction and heap counts were taken on (nil: none were counted).
    public var costFingerprint: CostFingerprint?
    /// Everything that went wrong, one line each (empty: the job passed).
    public var failures: [String] = []

    public init() {}

    public var conformRequests: Int { lists.reduce(0) { $0 + $1.conformRequests } }
    public var conformMismatches: Int { lists.reduce(0) { $0 + $1.conformMismatches } }
}
