// BenchmarkRunner.swift — Harness
//
// Runs benchmark definitions against engines, the same way for every engine:
//
//  check    warm-up runs, then measured runs of RuleListParser.check (BlockBench only: the other
//           engines have no validation of their own);
//  compile  warm-up runs, then measured runs, each from the JSON text; peak memory per run; the
//           bytes must come out the same in every run;
//  match    the engine's answers on its requests (all, or its stated sample) are first compared with
//           the oracle's on the same requests (requests with actions, actions, and a digest of every
//           answer); a wrong engine is reported as wrong and never timed. Then warm-up runs and
//           measured runs, every request timed on its own (HdrHistogram); work counters come from
//           the untimed counting pass, which also serves as the first warm-up run.
//
// Runs repeat until `runs` are done or `maxSeconds` of measured time is spent (at least one run).
// The oracle (ReferenceEvaluator with its prefilter, on both cores) answers each list × request
// set once per runner; its answers are kept for every engine and sample.

internal import ContentRuleList
internal import RequestContext
internal import Foundation
internal import PCRE2Oracle
internal import Synchronization

public final class BenchmarkRunner {
    public let manifest: CorpusManifest
    public let engines: [any BenchEngine]
    /// Told what is going on (one line each), for a terminal.
    public var progress: ((String) -> Void)?
    /// Threads the oracle answers with.
    public var oracleWorkers = 2
    /// A `blockbench` executable: when set, each compile benchmark also runs `blockbench compile`
    /// on its list once in a process of its own and records that process's peak memory.
    public var ownProcessCompiler: String?
    /// When set, BlockBench's compile and match benchmarks also get their exact cost (instructions
    /// and heap peak, under Valgrind); a count that fails makes the result an error.
    public var costCounter: CostCounter?

    private var lists: [String: BenchList] = [:]
    private var ruleCounts: [String: Int] = [:]
    private var requestSets: [String: RequestSet] = [:]
    private var oracleAnswers: [String: [RequestAnswer]] = [:]

    public init(manifest: CorpusManifest, engines: [any BenchEngine]) {
        self.manifest = manifest
        self.engines = engines
    }

    public var engineNames: Set<String> { Set(engines.map(\.name)) }

    /// A request set the runner already holds (the main job hands over what it loaded).
    public func provide(_ set: RequestSet) { requestSets[set.name] = set }

    /// The oracle's answers from a conformance run over a whole set (the main job conforms every
    /// list before it benchmarks matching): the runner does not ask the oracle again.
    public func provideOracleAnswers(from result: ConformanceResult) {
        guard let answers = result.oracleAnswers, requestSets[result.requestSet]?.requests.count == answers.count else { return }
        oracleAnswers[result.list + "\u{0}" + result.requestSet] = answers
    }

    // MARK: Corpora

    func list(_ name: String) throws -> BenchList {
        if let list = lists[name] { return list }
        guard let entry = manifest.corpora.first(where: { $0.name == name && $0.kind == "rules" }) else {
            throw BenchmarkDefinitionError.unreadable(path: name, reason: "no rule list of this name in the manifest")
        }
        let path = manifest.path(of: entry)
        var list = BenchList(name: name, json: try CorpusFiles.read(path))
        list.path = path
        lists[name] = list
        return list
    }

    func requestSet(_ name: String) throws -> RequestSet {
        if let set = requestSets[name] { return set }
        guard let entry = manifest.corpora.first(where: { $0.name == name && RequestSets.kinds.contains($0.kind) }) else {
            throw BenchmarkDefinitionError.unreadable(path: name, reason: "no request set of this name in the manifest")
        }
        let set = try RequestSets.load(entry, from: manifest)
        requestSets[name] = set
        return set
    }

    func parsedRuleCount(_ list: BenchList) -> Int {
        if let count = ruleCounts[list.name] { return count }
        let count = RuleListParser.check(list.json, collectingEveryError: false).list.rules.count
        ruleCounts[list.name] = count
        return count
    }

    // MARK: Running

    public func run(_ definition: BenchmarkDefinition) throws -> BenchmarkResult {
        let list = try list(definition.rules)
        var result = BenchmarkResult(
            name: definition.name, about: definition.about, model: definition.model, rules: definition.rules,
            ruleCount: parsedRuleCount(list), requests: definition.requests, engines: [])
        var requests: [Request] = []
        if definition.model == .match, let setName = definition.requests {
            requests = try requestSet(setName).requests.map(\.request)
            result.requestCount = requests.count
        }
        for name in definition.engines {
            guard let engine = engines.first(where: { $0.name == name }) else {
                result.engines.append(EngineResult(engine: name, status: .unavailable, message: "not an engine of this build"))
                continue
            }
            if let reason = engine.unavailable {
                result.engines.append(EngineResult(engine: name, status: .unavailable, message: reason))
                continue
            }
            guard engine.models.contains(definition.model) else {
                result.engines.append(
                    EngineResult(engine: name, status: .unavailable, message: "has no \(definition.model.rawValue) model"))
                continue
            }
            progress?("\(definition.name): \(name)")
            do {
                switch definition.model {
                case .check: result.engines.append(measureCheck(list, definition: definition, engine: name))
                case .compile: result.engines.append(try measureCompile(list, definition: definition, engine: engine))
                case .match:
                    result.engines.append(
                        try measureMatch(list, requestSet: definition.requests!, requests: requests, definition: definition, engine: engine))
                }
            } catch {
                result.engines.append(EngineResult(engine: name, status: .error, message: "\(error)"))
            }
        }
        result.computeRatios()
        return result
    }

    /// Runs `body` for the warm-ups, then measured runs within the budget; returns each measured
    /// run's seconds with what `body` returned.
    private func repeatRuns<T>(
        _ definition: BenchmarkDefinition, warmups: Int? = nil, _ body: (_ measured: Bool) throws -> T
    ) rethrows -> [(seconds: Double, value: T)] {
        for _ in 0..<(warmups ?? definition.warmups) { _ = try body(false) }
        var runs: [(Double, T)] = []
        var spent = 0.0
        while runs.count < definition.measuredRuns && (runs.isEmpty || spent < definition.budgetSeconds) {
            let started = monotonicNanoseconds()
            let value = try body(true)
            let seconds = Double(monotonicNanoseconds() - started) / 1e9
            runs.append((seconds, value))
            spent += seconds
        }
        return runs
    }

    private func measureCheck(_ list: BenchList, definition: BenchmarkDefinition, engine: String) -> EngineResult {
        let runs = repeatRuns(definition) { _ in RuleListParser.check(list.json) }
        var result = EngineResult(engine: engine, status: .ok)
        result.warmupRuns = definition.warmups
        result.runs = runs.count
        result.runSeconds = runs.map(\.seconds)
        result.seconds = median(result.runSeconds)
        let check = runs.last!.value
        switch check.verdict {
        case .success: result.verdict = "compiles"
        case .failure(let error): result.verdict = "rejected: \(error.code.name)"
        }
        result.counters = [Figure("rules", Double(check.list.rules.count)), Figure("errors", Double(check.errors.count))]
        return result
    }

    private func measureCompile(_ list: BenchList, definition: BenchmarkDefinition, engine: any BenchEngine) throws -> EngineResult {
        struct Measured {
            var run: CompileRun
            var peak: Int?
            var growth: Int?
        }
        let runs = try repeatRuns(definition) { _ throws -> Measured in
            let canMeasure = PeakMemory.reset()
            let before = PeakMemory.read()
            let run = try engine.compile(list)
            let after = PeakMemory.read()
            guard canMeasure, let before, let after, run.ownSeconds == nil else { return Measured(run: run) }
            return Measured(run: run, peak: after.peak, growth: after.peak - before.current)
        }
        let timed = runs.map { (seconds: $0.value.run.ownSeconds ?? $0.seconds, value: $0.value) }
        var result = EngineResult(engine: engine.name, status: .ok)
        result.warmupRuns = definition.warmups
        result.runs = runs.count
        result.runSeconds = timed.map(\.seconds)
        result.seconds = median(result.runSeconds)
        let medianRun = timed.sorted { $0.seconds < $1.seconds }[(timed.count - 1) / 2].value
        let sizes = Set(runs.map(\.value.run.bytes))
        if sizes.count > 1 {
            return EngineResult(
                engine: engine.name, status: .wrong,
                message: "its output size changed from run to run: \(sizes.sorted().map(String.init).joined(separator: ", ")) bytes")
        }
        result.phases = medianRun.run.phases.indices.map { index in
            Figure(medianRun.run.phases[index].name, median(runs.map { $0.value.run.phases[index].value }))
        }
        result.bytes = medianRun.run.bytes
        result.sections = medianRun.run.sections
        result.counters = medianRun.run.counters
        let loads = try (0..<runs.count).compactMap { _ in try engine.loadSeconds(list) }
        result.loadSeconds = loads.isEmpty ? nil : median(loads)
        result.peakMemoryBytes = medianRun.peak
        result.memoryGrowthBytes = medianRun.growth
        if engine.name == "blockbench", let compiler = ownProcessCompiler, let path = list.path {
            progress?("\(list.name): blockbench compile in a process of its own")
            guard let peak = OwnProcessMemory.peakOfCompile(compiler, rules: path) else {
                return EngineResult(
                    engine: engine.name, status: .wrong, message: "`\(compiler) compile \(path) --json` failed in its own process")
            }
            result.ownProcessPeakMemoryBytes = peak
        }
        if engine.name == "blockbench", let counter = costCounter, let path = list.path {
            progress?("\(list.name): instructions and heap peak of a serial compile, under Valgrind")
            let cost: CompileCost
            do { cost = try counter.compile(rules: path) } catch {
                return EngineResult(engine: engine.name, status: .error, message: "\(error)")
            }
            guard cost.bytes == result.bytes else {
                return EngineResult(
                    engine: engine.name, status: .wrong,
                    message: "its counted compile made \(cost.bytes) bytes, not \(result.bytes ?? 0)")
            }
            result.instructions = cost.recorded
            result.heapPeakBytes = cost.heapPeakBytes
        }
        return result
    }

    /// BlockBench's instructions per request on the whole set, counted by answering it from the
    /// list's compiled file in a process of its own; its answers must be the oracle's.
    private func countMatch(_ list: BenchList, requestSet: String, engine: any BenchEngine, oracle: [RequestAnswer]) throws -> [Figure]? {
        guard engine.name == "blockbench", let counter = costCounter,
            let compiled = (engine as? any CompiledListEngine)?.compiledList(named: list.name)
        else { return nil }
        progress?("\(list.name) × \(requestSet): instructions per request, under Valgrind")
        let folder = try CostCounter.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = folder + "/\(list.name).bbc"
        try Data(compiled.serialized()).write(to: URL(fileURLWithPath: file))
        let cost = try counter.match(file: file, corpora: manifest.root, requests: requestSet)
        let expected = RequestAnswer.counts(oracle)
        guard cost.answers == expected else {
            throw BenchmarkRunnerError.counted("its counted answers differ from the oracle's (counted: \(cost.answers.text); oracle: \(expected.text))")
        }
        return cost.recorded
    }

    private func measureMatch(
        _ list: BenchList, requestSet: String, requests: [Request], definition: BenchmarkDefinition, engine: any BenchEngine
    ) throws -> EngineResult {
        let indices = Self.sample(count: requests.count, size: definition.sample(for: engine.name))
        let oracle = try oracleAnswers(list, requestSet: requestSet, requests: requests)
        let expected = RequestAnswer.counts(indices.map { oracle[$0] })

        let matcher = try engine.matcher(for: list)
        // The counting pass: answers first, compared with the oracle's; its counters are the work.
        let countersBefore = matcher.counters
        var answers: [RequestAnswer] = []
        answers.reserveCapacity(indices.count)
        for index in indices { answers.append(RequestAnswer(try matcher.outcome(for: requests[index]))) }
        let countersAfter = matcher.counters
        let counts = RequestAnswer.counts(answers)
        var result = EngineResult(engine: engine.name, status: .ok)
        result.requests = indices.count
        result.sampled = indices.count < requests.count
        result.answers = counts
        result.oracleAnswers = expected
        guard counts == expected else {
            result.status = .wrong
            let first = zip(indices, zip(answers, indices.map { oracle[$0] })).first { $0.1.0 != $0.1.1 }
            result.message = "answers differ from the oracle's (engine: \(counts.text); oracle: \(expected.text))"
                + (first.map { "; first at request \($0.0)" } ?? "")
            return result
        }
        result.counters = zip(countersBefore, countersAfter).map { before, after in
            Figure(before.name + " per request", (after.value - before.value) / Double(max(1, indices.count)))
        }
        do {
            result.instructions = try countMatch(list, requestSet: requestSet, engine: engine, oracle: oracle)
        } catch {
            return EngineResult(engine: engine.name, status: error is BenchmarkRunnerError ? .wrong : .error, message: "\(error)")
        }

        let urlBytes = indices.reduce(0) { $0 + requests[$1].url.string.utf8.count }
        var histogram = LatencyHistogram()
        var sink = 0
        // The counting pass above was the first warm-up.
        let runs = try repeatRuns(definition, warmups: max(0, definition.warmups - 1)) { measured throws -> Void in
            for index in indices {
                let started = monotonicNanoseconds()
                let outcome = try matcher.outcome(for: requests[index])
                let elapsed = monotonicNanoseconds() - started
                sink &+= outcome.actions.count
                if measured { histogram.record(nanoseconds: elapsed) }
            }
        }
        withExtendedLifetime(sink) {}
        result.warmupRuns = definition.warmups
        result.runs = runs.count
        result.runSeconds = runs.map(\.seconds)
        let medianSeconds = median(result.runSeconds)
        result.seconds = medianSeconds
        result.latency = LatencySummary(histogram)
        result.requestsPerSecond = Double(indices.count) / max(medianSeconds, 1e-9)
        result.nanosecondsPerURLByte = medianSeconds * 1e9 / Double(max(1, urlBytes))
        if let steps = result.counters.first(where: { $0.name == "interpreter steps per request" })?.value {
            let perByte = TableWalk.nanosecondsPerByte(over: indices.map { Array(requests[$0].url.string.utf8) })
            result.floorNanoseconds = steps * perByte
        }
        return result
    }

    /// `size` evenly spaced indices of `0..<count` (all of them without a size).
    static func sample(count: Int, size: Int?) -> [Int] {
        guard let size, size < count else { return Array(0..<count) }
        return (0..<size).map { $0 * count / size }
    }

    /// The oracle's answer to every request of the set, computed once.
    private func oracleAnswers(_ list: BenchList, requestSet: String, requests: [Request]) throws -> [RequestAnswer] {
        let key = list.name + "\u{0}" + requestSet
        if let known = oracleAnswers[key] { return known }
        progress?("oracle: \(list.name) × \(requestSet), \(HumanReadable.count(requests.count)) requests")
        let parsed: RuleList
        switch RuleListParser.parse(list.json) {
        case .success(let rules): parsed = rules
        case .failure(let error): throw BenchEngineError.listRejected(error.description)
        }
        let workers = max(1, oracleWorkers)
        let answers = Mutex<[Int: RequestAnswer]>([:])
        let failure = Mutex<String?>(nil)
        // One prepared list shared by the workers (PCRE2 allows that), one evaluator each.
        let reference = try ReferenceRuleList(parsed)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            do {
                let evaluator = ReferenceEvaluator(reference)
                var mine: [Int: RequestAnswer] = [:]
                for index in stride(from: worker, to: requests.count, by: workers) {
                    mine[index] = RequestAnswer(try evaluator.outcome(for: requests[index]))
                }
                answers.withLock { $0.merge(mine) { first, _ in first } }
            } catch {
                failure.withLock { $0 = $0 ?? "the oracle failed: \(error)" }
            }
        }
        if let message = failure.withLock({ $0 }) { throw BenchmarkRunnerError.oracle(message) }
        let all = answers.withLock { table in (0..<requests.count).map { table[$0]! } }
        oracleAnswers[key] = all
        return all
    }
}

public enum BenchmarkRunnerError: Error, CustomStringConvertible {
    case oracle(String)
    /// A counted run (CostCounter) answered or made something else than the measured one.
    case counted(String)
    public var description: String {
        switch self {
        case .oracle(let message), .counted(let message): message
        }
    }
}

/// One request's answer, reduced to what the count check compares.
struct RequestAnswer: Hashable, Sendable {
    var actions: Int
    var digest: UInt64

    init(_ outcome: MatchOutcome) {
        actions = outcome.actions.count
        var hash = FNV1a()
        for action in outcome.actions {
            // Each action's type and text (String(describing:) reflects, slowly, on the millions
            // of css-display-none actions of a request set).
            switch action {
            case .cssDisplayNone(let selector):
                hash.add(action.typeName + "\u{2}")
                hash.add(selector)
            case .notify(let notification):
                hash.add(action.typeName + "\u{2}")
                hash.add(notification)
            case .redirect, .modifyHeaders:
                hash.add(String(describing: action))
            case .block, .blockCookies, .ignorePreviousRules, .ignoreFollowingRules, .makeHTTPS:
                hash.add(action.typeName)
            }
            hash.add("\u{1}")
        }
        digest = hash.value
    }

    static func counts(_ answers: [RequestAnswer]) -> AnswerCounts {
        var counts = AnswerCounts()
        var hash = FNV1a()
        for answer in answers {
            counts.requests += 1
            counts.actions += answer.actions
            if answer.actions > 0 { counts.requestsWithActions += 1 }
            withUnsafeBytes(of: answer.digest.littleEndian) { hash.add($0) }
        }
        counts.digest = String(hash.value, radix: 16)
        return counts
    }
}

/// 64-bit FNV-1a: a digest that is the same in every process (Swift's Hasher is seeded per run).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
    }

    mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { add(UnsafeRawBufferPointer($0)) }
    }
}
