// BenchmarkRunner.swift — Benchmarks
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
// A peer engine (`BenchEngine.conformed` false) skips the comparison with the oracle: its block
// verdicts are counted beside BlockBench's in the same benchmark (`VerdictAgreement`), as
// information. An engine that times its own requests (`SelfTimedMatcher`) answers each run's
// requests in batches and its times go into the histogram; the runner's clock gives the end-to-end
// time beside them.
//
// Several lists (`BenchmarkDefinition.lists`) are one list, their JSON arrays concatenated, or,
// `apart`, each compiled by itself and each asked about every request (an engine's joint matcher
// may ask them together: BlockBench's `ContentBlockers`), the answers joined in list order (the
// oracle's likewise).
//
// Lists asked apart are also reported one by one: a compile gives each list's own compile time,
// bytes and load time (`EngineResult.lists`); a match times the largest list (the most rules)
// asked alone, in the same rounds as the lists together (`EngineResult.largestAlone`), so that
// what each more content blocker costs is a ratio of one run. Lists a definition draws
// (`BenchmarkDefinition.draw`) are written to a scratch folder (`drawnFolder`) before it runs.
// A match also gets each engine's resident memory after loading what it matches with, in a fresh
// process (`EngineResult.residentAfterLoad`): BlockBench's through `blockbench load` (when
// `ownProcessCompiler` names the executable), a peer's through its own child.
//
// BlockBench's exact counts (`costCounter`: instructions, data misses, heap peaks under Valgrind)
// are asked for as each benchmark runs and taken by `takeCounts` once the timed work is over, as
// many at a time as there are cores (CostQueue.swift); each must find what the measured run found
// (the same bytes, the oracle's answers).
//
// Runs repeat until `runs` are done or `maxSeconds` of measured time is spent (at least one run).
// The oracle (ReferenceEvaluator with its prefilter, on both cores) answers each list × request
// set once per runner; its answers are kept for every engine and sample.
// Tested by BenchmarksTests, EnginesTests, CorpusTests and GateTests (BenchTests,
// AdblockRustEngineTests, DialectTests, CostGateTests).

internal import ContentRuleList
internal import RequestContext
internal import Foundation
internal import PCRE2Oracle
internal import Synchronization
public import Conformance
public import Corpus
public import Engines
internal import TerminalText

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
    /// and heap peak, under Valgrind), asked for as they run and taken by `takeCounts` once the
    /// timed work is done; a count that fails makes the result an error.
    public var costCounter: CostCounter?
    /// The counts asked for and not yet taken.
    private let counts = CostQueue()
    /// Where drawn lists are written and kept (nil: a scratch folder, removed with the runner).
    public var drawnFolder: String?
    private var scratchDrawnFolder: String?
    /// The draw each drawn list came from, by list name.
    private var draws: [String: RuleDraw] = [:]
    /// Resident memory after load, by engine and lists.
    private var residentFigures: [String: ResidentAfterLoad?] = [:]

    private var lists: [String: BenchList] = [:]
    private var ruleCounts: [String: Int] = [:]
    private var requestSets: [String: RequestSet] = [:]
    private var oracleAnswers: [String: [RequestAnswer]] = [:]
    /// BlockBench's block verdicts in the benchmark running now, by request index (for a peer's
    /// agreement).
    private var blockBenchBlocks: [Int: Bool] = [:]

    public init(manifest: CorpusManifest, engines: [any BenchEngine]) {
        self.manifest = manifest
        self.engines = engines
    }

    deinit {
        if let scratchDrawnFolder { try? FileManager.default.removeItem(atPath: scratchDrawnFolder) }
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
        if let at = name.firstIndex(of: "@") { return try respelled(String(name[..<at]), dialect: String(name[name.index(after: at)...])) }
        guard let entry = manifest.corpora.first(where: { $0.name == name && $0.kind == "rules" }) else {
            throw BenchmarkDefinitionError.unreadable(path: name, reason: "no rule list of this name in the manifest")
        }
        let path = manifest.path(of: entry)
        var list = BenchList(name: name, json: try CorpusFiles.read(path))
        list.path = path
        let abp = manifest.corpora.filter { $0.kind == "rules-abp" && $0.safariList == name }
        if !abp.isEmpty { list.abpTexts = try abp.map { try CorpusFiles.read(manifest.path(of: $0)) } }
        lists[name] = list
        return list
    }

    /// The list `name` with its `||` patterns in `dialect`, named `name@dialect`: no file (the
    /// extras that compile a list's file in a process of their own skip it) and no filter text.
    func respelled(_ name: String, dialect: String) throws -> BenchList {
        guard let spelling = Dialect.named(dialect) else {
            throw BenchmarkDefinitionError.unreadable(path: name, reason: "no dialect \(dialect)")
        }
        progress?("\(name): its || patterns in the dialect \(dialect)")
        let list = BenchList(name: name + "@" + dialect, json: try spelling.respell(json: try self.list(name).json).json)
        lists[list.name] = list
        return list
    }

    /// The lists `definition` draws, made once (each written to the drawn lists' folder, which a
    /// compile in a process of its own reads) and kept by name.
    func drawLists(_ definition: BenchmarkDefinition) throws {
        guard let draw = definition.draw else { return }
        if definition.lists.allSatisfy({ draws[$0] == draw && lists[$0] != nil }) { return }
        if let other = definition.lists.first(where: { draws[$0] != nil && draws[$0] != draw }) {
            throw BenchmarkDefinitionError.unreadable(path: other, reason: "drawn by two benchmarks with different draws")
        }
        progress?("\(definition.rules): \(draw.lists) lists of \(HumanReadable.count(draw.rules)) rules drawn from \(draw.from.joined(separator: ", "))")
        let texts = try draw.draw(pool: draw.from.map { try list($0).json })
        let folder: String
        if let drawnFolder {
            folder = drawnFolder
        } else if let scratchDrawnFolder {
            folder = scratchDrawnFolder
        } else {
            folder = NSTemporaryDirectory() + "/blockbench-drawn-" + UUID().uuidString
            scratchDrawnFolder = folder
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (name, json) in zip(definition.lists, texts) {
            var drawn = BenchList(name: name, json: json)
            drawn.path = folder + "/\(name).json"
            try Data(json).write(to: URL(fileURLWithPath: drawn.path!))
            lists[name] = drawn
            draws[name] = draw
        }
    }

    /// Several lists as one: their rules in order, their filter texts in order.
    func joinedList(_ parts: [BenchList]) -> BenchList {
        let name = parts.map(\.name).joined(separator: "+")
        if let list = lists[name] { return list }
        let texts = parts.compactMap(\.abpTexts)
        let list = BenchList(
            name: name, json: Self.concatenatedJSON(parts.map(\.json)), abpTexts: texts.count == parts.count ? texts.flatMap { $0 } : nil)
        lists[name] = list
        return list
    }

    /// One JSON array of every element of `arrays`, in order (an empty array adds nothing).
    static func concatenatedJSON(_ arrays: [[UInt8]]) -> [UInt8] {
        var joined: [UInt8] = [UInt8(ascii: "[")]
        for json in arrays {
            guard let open = json.firstIndex(of: UInt8(ascii: "[")), let close = json.lastIndex(of: UInt8(ascii: "]")), open < close else {
                continue
            }
            let elements = json[(open + 1)..<close]
            guard elements.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { continue }
            if joined.count > 1 { joined.append(UInt8(ascii: ",")) }
            joined += elements
        }
        joined.append(UInt8(ascii: "]"))
        return joined
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
        try drawLists(definition)
        var parts = try definition.lists.map { name in try self.list(definition.dialect.map { name + "@" + $0 } ?? name) }
        var list = parts.count == 1 ? parts[0] : joinedList(parts)
        if let budget = definition.denseBudget {
            for index in parts.indices { parts[index].denseBudgetBytes = budget }
            list.denseBudgetBytes = budget
        }
        // What each engine compiles and asks: the one list, or each list apart.
        let compiled = definition.apart ? parts : [list]
        var result = BenchmarkResult(
            name: definition.name, about: definition.about, model: definition.model, rules: definition.listName,
            ruleCount: parts.reduce(0) { $0 + parsedRuleCount($1) }, requests: definition.requests, engines: [])
        if definition.apart { result.apart = true }
        result.denseBudget = definition.denseBudget
        blockBenchBlocks = [:]
        var requests: [Request] = []
        if definition.model == .match, let setName = definition.requests {
            requests = try requestSet(setName).requests.map(\.request)
            result.requestCount = requests.count
        }
        // Match engines are timed after all of them are ready, their runs interleaved (with, for
        // lists apart, each engine asking the largest list alone).
        var timed: [(slot: Int, match: TimedMatch)] = []
        var alone: [(slot: Int, match: TimedMatch)] = []
        let largest = compiled.count > 1 ? compiled.max { parsedRuleCount($0) < parsedRuleCount($1) } : nil
        for name in definition.engines {
            let engine: any BenchEngine
            switch self.engine(named: name, for: definition.model) {
            case .success(let found): engine = found
            case .failure(let unavailable):
                result.engines.append(EngineResult(engine: name, status: .unavailable, message: unavailable.reason))
                continue
            }
            progress?("\(definition.name): \(name)")
            do {
                switch definition.model {
                case .check: result.engines.append(measureCheck(list, definition: definition, engine: name))
                case .compile: result.engines.append(try measureCompile(list, parts: compiled, definition: definition, engine: engine))
                case .match:
                    let prepared = try prepareMatches(
                        list, parts: compiled, largest: largest, requests: requests, definition: definition, engine: engine)
                    let slot = result.engines.count
                    result.engines.append(prepared.together.result)
                    guard prepared.together.result.status == .ok else { break }
                    timed.append((slot, prepared.together))
                    if let asked = prepared.alone { alone.append((slot, asked)) }
                }
            } catch {
                var failed = EngineResult(engine: name, status: .error, message: "\(error)")
                if !engine.conformed { failed.peer = true }
                result.engines.append(failed)
            }
        }
        timeMatches(timed, alone: alone, largest: largest, definition: definition, into: &result)
        result.computeRatios()
        return result
    }

    /// Why an engine cannot run a benchmark here.
    private struct Unavailable: Error {
        var reason: String
    }

    /// The engine named `name`, when this build has it, it can run here and it has `model`.
    private func engine(named name: String, for model: BenchmarkDefinition.Model) -> Result<any BenchEngine, Unavailable> {
        guard let engine = engines.first(where: { $0.name == name }) else {
            return .failure(Unavailable(reason: "not an engine of this build"))
        }
        if let reason = engine.unavailable { return .failure(Unavailable(reason: reason)) }
        guard engine.models.contains(model) else { return .failure(Unavailable(reason: "has no \(model.rawValue) model")) }
        return .success(engine)
    }

    /// Readies an engine's match of `parts` for timing and, for lists apart, its match of the
    /// largest list alone. What fails beside the match (the list alone, resident memory after
    /// load) is said in its message, and its figures stand.
    private func prepareMatches(
        _ list: BenchList, parts: [BenchList], largest: BenchList?, requests: [Request], definition: BenchmarkDefinition,
        engine: any BenchEngine
    ) throws -> (together: TimedMatch, alone: TimedMatch?) {
        let prepared = try prepareMatch(
            list, parts: parts, requestSet: definition.requests!, requests: requests, definition: definition, engine: engine)
        guard prepared.result.status == .ok else { return (prepared, nil) }
        var unmeasured: [String] = []
        var alone: TimedMatch?
        if let largest {
            do {
                let asked = try prepareMatch(
                    largest, parts: [largest], requestSet: definition.requests!, requests: requests, definition: definition,
                    engine: engine, alone: true)
                if asked.result.status == .ok {
                    alone = asked
                } else {
                    unmeasured.append("\(largest.name) alone: \(asked.result.message ?? asked.result.status.rawValue)")
                }
            } catch {
                unmeasured.append("\(largest.name) alone: \(error)")
            }
        }
        do {
            prepared.result.residentAfterLoad = try residentAfterLoad(parts, engine: engine)
        } catch {
            unmeasured.append("resident memory after load: \(error)")
        }
        if !unmeasured.isEmpty { prepared.result.message = "not measured: " + unmeasured.joined(separator: "; ") }
        return (prepared, alone)
    }

    /// Times the prepared matches, interleaved, and puts each engine's figures in its slot, the
    /// largest list alone beside the lists together.
    private func timeMatches(
        _ timed: [(slot: Int, match: TimedMatch)], alone: [(slot: Int, match: TimedMatch)], largest: BenchList?,
        definition: BenchmarkDefinition, into result: inout BenchmarkResult
    ) {
        let finished = timeInterleaved(timed.map(\.match) + alone.map(\.match), definition: definition)
        for (slot, together) in zip(timed.map(\.slot), finished) {
            result.engines[slot] = together
        }
        for ((slot, _), asked) in zip(alone, finished.dropFirst(timed.count)) {
            guard let largest, let median = asked.latency?.medianNanoseconds, asked.status == .ok else { continue }
            result.engines[slot].largestAlone = AloneFigures(
                list: largest.name, rules: parsedRuleCount(largest), medianNanoseconds: median, counters: asked.counters)
        }
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

    /// One compile run: the compiled bytes and figures, the process's peak memory and its growth
    /// over the run (when they can be read), and each list's own compile (lists apart).
    private struct CompileMeasure {
        var run: CompileRun
        var peak: Int?
        var growth: Int?
        /// Each list's own compile (lists apart): its seconds and bytes.
        var each: [(seconds: Double, bytes: Int)] = []
    }

    /// Compiles `parts` (the list, or each list apart) in every run.
    private func measureCompile(
        _ list: BenchList, parts: [BenchList], definition: BenchmarkDefinition, engine: any BenchEngine
    ) throws -> EngineResult {
        let runs = try repeatRuns(definition) { _ in try compileOnce(parts, engine: engine) }
        let timed = runs.map { (seconds: $0.value.run.ownSeconds ?? $0.seconds, value: $0.value) }
        var result = EngineResult(engine: engine.name, status: .ok)
        if !engine.conformed { result.peer = true }
        result.warmupRuns = definition.warmups
        result.runs = runs.count
        result.runSeconds = timed.map(\.seconds)
        result.seconds = median(result.runSeconds)
        if runs.allSatisfy({ $0.value.run.ownSeconds != nil }) { result.endToEndSeconds = median(runs.map(\.seconds)) }
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
        let eachLoads = try (0..<runs.count).compactMap { _ -> [Double]? in
            let each = try parts.map { try engine.loadSeconds($0) }
            return each.contains(nil) ? nil : each.map { $0! }
        }
        result.loadSeconds = eachLoads.isEmpty ? nil : median(eachLoads.map { $0.reduce(0, +) })
        if parts.count > 1 {
            result.lists = parts.indices.map { index in
                ListFigures(
                    list: parts[index].name, rules: parsedRuleCount(parts[index]), seconds: median(runs.map { $0.value.each[index].seconds }),
                    bytes: medianRun.each[index].bytes, loadSeconds: eachLoads.isEmpty ? nil : median(eachLoads.map { $0[index] }))
            }
        }
        result.peakMemoryBytes = medianRun.peak
        result.memoryGrowthBytes = medianRun.growth ?? medianRun.run.ownMemoryGrowthBytes
        result.heapGrowthBytes = medianRun.run.ownHeapGrowthBytes
        guard engine.name == "blockbench", let path = list.path else { return result }
        return addingOwnProcessFigures(to: result, list: list, path: path, engine: engine, benchmark: definition.name)
    }

    /// Compiles each of `parts` once, reading the process's peak memory around it (none when the
    /// engine measures its own run, in a process of its own).
    private func compileOnce(_ parts: [BenchList], engine: any BenchEngine) throws -> CompileMeasure {
        let canMeasure = PeakMemory.reset()
        let before = PeakMemory.read()
        var each: [(seconds: Double, bytes: Int)] = []
        let run = CompileRun.joined(try parts.map { part in
            let started = monotonicNanoseconds()
            let compiled = try engine.compile(part)
            each.append((compiled.ownSeconds ?? Double(monotonicNanoseconds() - started) / 1e9, compiled.bytes))
            return (part.name, compiled)
        })
        let after = PeakMemory.read()
        guard canMeasure, let before, let after, run.ownSeconds == nil else { return CompileMeasure(run: run, each: each) }
        return CompileMeasure(run: run, peak: after.peak, growth: after.peak - before.current, each: each)
    }

    /// Adds to BlockBench's compile `result` the peak memory of `blockbench compile` in a process of
    /// its own, and asks for the exact cost of a serial compile, when the runner is set to measure
    /// them; a failure makes the result wrong.
    private func addingOwnProcessFigures(
        to result: EngineResult, list: BenchList, path: String, engine: any BenchEngine, benchmark: String
    ) -> EngineResult {
        var result = result
        if let compiler = ownProcessCompiler {
            progress?("\(list.name): blockbench compile in a process of its own")
            guard let peak = OwnProcessMemory.peakOfCompile(compiler, rules: path) else {
                return EngineResult(
                    engine: engine.name, status: .wrong, message: "`\(compiler) compile \(path) --json` failed in its own process")
            }
            result.ownProcessPeakMemoryBytes = peak
        }
        if costCounter != nil {
            counts.ask(PendingCount(benchmark: benchmark, engine: engine.name, work: .compile(rules: path, bytes: result.bytes)))
        }
        return result
    }

    /// The engine's resident memory after loading what it answers `parts` with, in a fresh process:
    /// BlockBench's compiled files loaded by `blockbench load` (when `ownProcessCompiler` names
    /// the executable), a peer's loaded by its own child; nil when the engine cannot say.
    private func residentAfterLoad(_ parts: [BenchList], engine: any BenchEngine) throws -> ResidentAfterLoad? {
        // Measured once per engine, lists and budget (several request sets ask the same lists).
        let key = ([engine.name, parts[0].denseBudgetBytes.map(String.init) ?? ""] + parts.map(\.name)).joined(separator: "\u{0}")
        if let known = residentFigures[key] { return known }
        let figures = try measureResidentAfterLoad(parts, engine: engine)
        residentFigures[key] = figures
        return figures
    }

    private func measureResidentAfterLoad(_ parts: [BenchList], engine: any BenchEngine) throws -> ResidentAfterLoad? {
        if let measuring = engine as? any ResidentLoadMeasuring { return try measuring.residentAfterLoad(parts) }
        guard let executable = ownProcessCompiler, let engine = engine as? any CompiledListEngine else { return nil }
        return try withCompiledFiles(
            parts, of: engine, saying: "\(parts.map(\.name).joined(separator: " + ")): resident memory after loading, in a process of its own"
        ) { try OwnProcessMemory.residentAfterLoad(executable, files: $0, denseBudgetBytes: parts[0].denseBudgetBytes) }
    }

    /// `body` given the files of `parts` as `engine` compiled them, written to a scratch folder
    /// that is removed after it (`saying` is said first); nil when the engine has not compiled
    /// them all.
    private func withCompiledFiles<Value>(
        _ parts: [BenchList], of engine: any CompiledListEngine, saying: String, _ body: ([String]) throws -> Value
    ) throws -> Value? {
        guard parts.allSatisfy({ engine.compiledList(named: $0.name) != nil }) else { return nil }
        progress?(saying)
        let folder = try CostCounter.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        return try writeCompiledFiles(parts, of: engine, into: folder).map(body)
    }

    /// The files of `parts` as `engine` compiled them, written into `folder`; nil when the engine
    /// has not compiled them all.
    private func writeCompiledFiles(_ parts: [BenchList], of engine: any CompiledListEngine, into folder: String) throws -> [String]? {
        let lists = parts.compactMap { engine.compiledList(named: $0.name) }
        guard lists.count == parts.count else { return nil }
        var files: [String] = []
        for (part, compiled) in zip(parts, lists) {
            files.append(folder + "/\(part.name).bbc")
            try Data(compiled.serialized()).write(to: URL(fileURLWithPath: files.last!))
        }
        return files
    }

    /// Asks for BlockBench's instructions per request on the whole set, counted by answering it
    /// from the lists' compiled files (one, or each list of `parts` asked apart) in a process of
    /// its own; its answers must be the oracle's.
    private func askMatchCount(
        _ parts: [BenchList], requestSet: String, engine: any BenchEngine, oracle: [RequestAnswer], benchmark: String
    ) throws {
        guard engine.name == "blockbench", costCounter != nil, let engine = engine as? any CompiledListEngine,
            parts.allSatisfy({ engine.compiledList(named: $0.name) != nil }),
            let files = try writeCompiledFiles(parts, of: engine, into: try counts.keptFolder())
        else { return }
        counts.ask(
            PendingCount(
                benchmark: benchmark, engine: engine.name,
                work: .match(
                    files: files, requests: requestSet, denseBudgetBytes: parts[0].denseBudgetBytes, expected: RequestAnswer.counts(oracle))))
    }

    /// Takes the counts the benchmarks run so far asked for (every core's worth at a time) and
    /// gives each result its figures; a line for each count that failed, its result now an error
    /// or wrong. Call it when nothing is being timed.
    public func takeCounts(into results: inout [BenchmarkResult]) -> [String] {
        guard let costCounter, !counts.pending.isEmpty else { return [] }
        progress?("\(counts.pending.count) exact counts under Valgrind")
        defer { progress?("") }
        let corpora = manifest.root
        return counts.take(into: &results) { try CostQueue.count($0, with: costCounter, corpora: corpora) }
    }

    /// How many counts are asked for and not yet taken.
    public var pendingCounts: Int { counts.pending.count }

    /// A match engine ready to be timed: its answers checked, its counters read, and one run of
    /// its requests (`run`: the run's seconds as the engine's result counts them, its requests'
    /// times recorded when measured).
    final class TimedMatch {
        var result: EngineResult
        var histogram = LatencyHistogram()
        var runs: [(seconds: Double, value: Double)] = []
        var failure: (any Error)?
        let run: (_ measured: Bool, _ histogram: inout LatencyHistogram) throws -> Double
        let selfTimed: Bool
        let requestCount: Int
        let urlBytes: Int
        let urls: [[UInt8]]

        init(
            result: EngineResult, selfTimed: Bool, requestCount: Int, urlBytes: Int, urls: [[UInt8]],
            run: @escaping (_ measured: Bool, _ histogram: inout LatencyHistogram) throws -> Double
        ) {
            self.result = result
            self.selfTimed = selfTimed
            self.requestCount = requestCount
            self.urlBytes = urlBytes
            self.urls = urls
            self.run = run
        }
    }

    /// The engines' warm-ups, then measured rounds of one run of each engine in turn, so that
    /// every engine is timed in the same stretch of the machine's state (its speed drifts by a
    /// third within the hour on these VMs: timed one after the other, two engines' ratio moved with
    /// it); rounds go on to the definition's runs, and past the first while the engines together
    /// are within their budgets. With several engines, each measured run follows an unmeasured
    /// one of the same engine: it starts from the engine's own warm caches, as when the engines
    /// were timed one after the other (after another engine's run, a set of 12 requests took
    /// five times as long).
    private func timeInterleaved(_ matches: [TimedMatch], definition: BenchmarkDefinition) -> [EngineResult] {
        // An engine whose run fails is reported so and timed no more.
        func attempt(_ match: TimedMatch, _ body: () throws -> Void) {
            guard match.failure == nil else { return }
            do { try body() } catch { match.failure = error }
        }
        // (The counting pass was each engine's first warm-up.)
        for match in matches {
            for _ in 0..<max(0, definition.warmups - 1) { attempt(match) { _ = try match.run(false, &match.histogram) } }
        }
        var rounds = 0
        var spent = 0.0
        while rounds < definition.measuredRuns && (rounds == 0 || spent < definition.budgetSeconds * Double(matches.count)) {
            for match in matches {
                attempt(match) {
                    if matches.count > 1 {
                        let warming = monotonicNanoseconds()
                        _ = try match.run(false, &match.histogram)
                        spent += Double(monotonicNanoseconds() - warming) / 1e9
                    }
                    let started = monotonicNanoseconds()
                    let value = try match.run(true, &match.histogram)
                    let seconds = Double(monotonicNanoseconds() - started) / 1e9
                    match.runs.append((seconds, value))
                    spent += seconds
                }
            }
            rounds += 1
        }
        return matches.map(finishMatch)
    }

    /// An engine's result from its timed runs.
    private func finishMatch(_ match: TimedMatch) -> EngineResult {
        if let failure = match.failure {
            var failed = EngineResult(engine: match.result.engine, status: .error, message: "\(failure)")
            failed.peer = match.result.peer
            return failed
        }
        var result = match.result
        if match.selfTimed {
            result.runSeconds = match.runs.map(\.value)
            result.endToEndSeconds = median(match.runs.map(\.seconds))
        } else {
            result.runSeconds = match.runs.map(\.seconds)
        }
        result.runs = match.runs.count
        let medianSeconds = median(result.runSeconds)
        result.seconds = medianSeconds
        result.latency = LatencySummary(match.histogram)
        result.requestsPerSecond = Double(match.requestCount) / max(medianSeconds, 1e-9)
        result.nanosecondsPerURLByte = medianSeconds * 1e9 / Double(max(1, match.urlBytes))
        if let steps = result.counters.first(where: { $0.name == "interpreter steps per request" })?.value {
            result.floorNanoseconds = steps * TableWalk.nanosecondsPerByte(over: match.urls)
        }
        return result
    }

    /// A match engine made ready to be timed, in the order a match benchmark checks it: its
    /// answerers, the counting pass (answers and work counters), the answers checked, then the
    /// timed run.
    /// (`alone`: one of several lists asked by itself, beside them: its answers are not
    /// BlockBench's in this benchmark, and its cost is not counted.)
    private func prepareMatch(
        _ list: BenchList, parts: [BenchList], requestSet: String, requests: [Request], definition: BenchmarkDefinition,
        engine: any BenchEngine, alone: Bool = false
    ) throws -> TimedMatch {
        let indices = Self.sample(count: requests.count, size: definition.sample(for: engine.name))
        var result = EngineResult(engine: engine.name, status: .ok)
        result.requests = indices.count
        result.sampled = indices.count < requests.count
        if !engine.conformed { result.peer = true }

        let answerers = try Answerers(engine: engine, parts: parts)
        let pass = try answerers.countingPass(requests, at: indices)
        result.answers = RequestAnswer.counts(pass.answers)
        if engine.name == "blockbench" && !alone {
            for (index, answer) in zip(indices, pass.answers) { blockBenchBlocks[index] = answer.blocks }
        }
        if let untimed = try check(
            pass.answers, at: indices, of: engine, parts: parts, requestSet: requestSet, requests: requests,
            countedAs: alone ? nil : definition.name, into: &result)
        {
            return untimed
        }
        if answerers.selfTimed != nil {
            result.counters = pass.after
        } else {
            result.counters = zip(pass.before, pass.after).map { before, after in
                Figure(before.name + " per request", (after.value - before.value) / Double(max(1, indices.count)))
            }
        }
        result.warmupRuns = definition.warmups
        return Self.timedMatch(result, answerers, requests: requests, at: indices)
    }

    /// An engine's answerers for a benchmark's lists: one per list asked, or one that asks every
    /// list itself; one that times itself, or tells the lists apart, is asked as such.
    private struct Answerers {
        let matchers: [any BenchMatcher]
        let selfTimed: (any SelfTimedMatcher)?
        let lists: (any ListsMatcher)?

        init(engine: any BenchEngine, parts: [BenchList]) throws {
            matchers =
                parts.count == 1
                ? [try engine.matcher(for: parts[0])]
                : try engine.jointMatcher(for: parts).map { [$0] } ?? parts.map { try engine.matcher(for: $0) }
            selfTimed = matchers.count == 1 ? matchers[0] as? any SelfTimedMatcher : nil
            lists = matchers.count == 1 ? matchers[0] as? any ListsMatcher : nil
        }

        func answer(_ request: Request) throws -> RequestAnswer {
            if let lists {
                var answers: [RequestAnswer] = []
                lists.outcomes(for: request) { answers.append(RequestAnswer($1)) }
                return RequestAnswer(joining: answers)
            }
            if matchers.count == 1 { return RequestAnswer(try matchers[0].outcome(for: request)) }
            return RequestAnswer(joining: try matchers.map { RequestAnswer(try $0.outcome(for: request)) })
        }

        /// Work of every list asked, added up by name.
        func counters() -> [Figure] { Figure.added(matchers.map(\.counters)) }

        /// The counting pass: the sampled requests' answers, first; the counters around it are
        /// the work.
        func countingPass(_ requests: [Request], at indices: [Int]) throws -> (answers: [RequestAnswer], before: [Figure], after: [Figure]) {
            let before = counters()
            var answers: [RequestAnswer] = []
            answers.reserveCapacity(indices.count)
            if let selfTimed {
                for verdict in try selfTimed.verdicts(indices.map { requests[$0] }) { answers.append(RequestAnswer(blocked: verdict.blocked)) }
            } else {
                for index in indices { answers.append(try answer(requests[index])) }
            }
            return (answers, before, counters())
        }
    }

    /// A conformed engine's answers against the oracle's (and its exact cost asked for, as
    /// `benchmark`'s, when counted); a peer's block verdicts beside BlockBench's. Returns the
    /// untimed result when the answers are wrong or its count could not be asked for, nil when
    /// the engine goes on to be timed.
    private func check(
        _ answers: [RequestAnswer], at indices: [Int], of engine: any BenchEngine, parts: [BenchList], requestSet: String,
        requests: [Request], countedAs benchmark: String?, into result: inout EngineResult
    ) throws -> TimedMatch? {
        guard engine.conformed else {
            result.agreement = try agreement(of: answers, at: indices, parts: parts, requestSet: requestSet, requests: requests)
            return nil
        }
        let counts = RequestAnswer.counts(answers)
        let oracle = try oracleAnswers(parts, requestSet: requestSet, requests: requests)
        let expected = RequestAnswer.counts(indices.map { oracle[$0] })
        result.oracleAnswers = expected
        guard counts == expected else {
            result.status = .wrong
            let first = zip(indices, zip(answers, indices.map { oracle[$0] })).first { $0.1.0 != $0.1.1 }
            result.message = "answers differ from the oracle's (engine: \(counts.text); oracle: \(expected.text))"
                + (first.map { "; first at request \($0.0)" } ?? "")
            return Self.untimed(result)
        }
        guard let benchmark else { return nil }
        do {
            try askMatchCount(parts, requestSet: requestSet, engine: engine, oracle: oracle, benchmark: benchmark)
        } catch {
            return Self.untimed(EngineResult(engine: engine.name, status: .error, message: "\(error)"))
        }
        return nil
    }

    /// The timed run of the sampled requests: an engine that times itself answers the batch and
    /// its times are the run's; any other is timed here, request by request.
    private static func timedMatch(_ result: EngineResult, _ answerers: Answerers, requests: [Request], at indices: [Int]) -> TimedMatch {
        let urlBytes = indices.reduce(0) { $0 + requests[$1].url.string.utf8.count }
        let urls = indices.map { Array(requests[$0].url.string.utf8) }
        if let selfTimed = answerers.selfTimed {
            let batch = indices.map { requests[$0] }
            // A run's value: the sum of its requests' times as the engine measured them.
            return TimedMatch(result: result, selfTimed: true, requestCount: indices.count, urlBytes: urlBytes, urls: urls) { measured, histogram in
                let verdicts = try selfTimed.verdicts(batch)
                if measured { for verdict in verdicts { histogram.record(nanoseconds: verdict.nanoseconds) } }
                return Double(verdicts.reduce(0) { $0 + $1.nanoseconds }) / 1e9
            }
        }
        let matchers = answerers.matchers
        let lists = answerers.lists
        return TimedMatch(result: result, selfTimed: false, requestCount: indices.count, urlBytes: urlBytes, urls: urls) { measured, histogram in
            var sink = 0
            let only = matchers.count == 1 && lists == nil ? matchers[0] : nil
            for index in indices {
                // The request is taken out of the set before the clock starts and let go after it
                // stops, and one engine is asked without a loop: passing an element of the array,
                // or looping over the engines, copies them (retains and releases that are the
                // harness's, which `cost match` leaves out of its counts too).
                let request = requests[index]
                try withExtendedLifetime(request) {
                    let started = monotonicNanoseconds()
                    if let only {
                        sink &+= try only.outcome(for: request).actions.count
                    } else if let lists {
                        lists.outcomes(for: request) { sink &+= $1.actions.count }
                    } else {
                        for matcher in matchers { sink &+= try matcher.outcome(for: request).actions.count }
                    }
                    let elapsed = monotonicNanoseconds() - started
                    if measured { histogram.record(nanoseconds: elapsed) }
                }
            }
            withExtendedLifetime(sink) {}
            return 0
        }
    }

    /// A result that is not timed (its answers were wrong, or counting them failed).
    private static func untimed(_ result: EngineResult) -> TimedMatch {
        TimedMatch(result: result, selfTimed: false, requestCount: 0, urlBytes: 0, urls: []) { _, _ in 0 }
    }

    /// A peer's block verdicts beside BlockBench's in this benchmark, or the oracle's when
    /// BlockBench did not answer these requests here.
    private func agreement(
        of answers: [RequestAnswer], at indices: [Int], parts: [BenchList], requestSet: String, requests: [Request]
    ) throws -> VerdictAgreement {
        let ours: [Bool]
        var agreement: VerdictAgreement
        if indices.allSatisfy({ blockBenchBlocks[$0] != nil }) {
            ours = indices.map { blockBenchBlocks[$0]! }
            agreement = VerdictAgreement(comparedWith: "blockbench")
        } else {
            let oracle = try oracleAnswers(parts, requestSet: requestSet, requests: requests)
            ours = indices.map { oracle[$0].blocks }
            agreement = VerdictAgreement(comparedWith: "oracle")
        }
        for (peer, ours) in zip(answers.map(\.blocks), ours) {
            agreement.requests += 1
            switch (peer, ours) {
            case (true, true): agreement.bothBlock += 1
            case (false, false): agreement.neitherBlocks += 1
            case (true, false): agreement.onlyPeerBlocks += 1
            case (false, true): agreement.onlyBlockBenchBlocks += 1
            }
        }
        return agreement
    }

    /// `size` evenly spaced indices of `0..<count` (all of them without a size).
    static func sample(count: Int, size: Int?) -> [Int] {
        guard let size, size < count else { return Array(0..<count) }
        return (0..<size).map { $0 * count / size }
    }

    /// The oracle's answer to every request of the set for `parts` asked apart (one list: its
    /// answers), computed once per list.
    private func oracleAnswers(_ parts: [BenchList], requestSet: String, requests: [Request]) throws -> [RequestAnswer] {
        if parts.count == 1 { return try oracleAnswers(parts[0], requestSet: requestSet, requests: requests) }
        let each = try parts.map { try oracleAnswers($0, requestSet: requestSet, requests: requests) }
        return requests.indices.map { index in RequestAnswer(joining: each.map { $0[index] }) }
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
    public var description: String {
        switch self {
        case .oracle(let message): message
        }
    }
}

