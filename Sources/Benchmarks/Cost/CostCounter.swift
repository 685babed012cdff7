// CostCounter.swift — Benchmarks
//
// The exact cost measure: `blockbench cost … --inside` (CostRegion.swift) run under Valgrind, in a
// process of its own, serially, with deterministic hashing:
//
//   instructions  callgrind's count of the instructions the region executed, per part (compile:
//                 per phase; match: the first pass and the second, per request). Repeatable to a
//                 few instructions in billions on one machine, whatever else runs beside it.
//   data misses   for matching, callgrind's simulation of the data caches (`cacheSimulation`: a
//                 32 KB level 1 and a 1 MB level 2, this machine's, fixed so that no host's
//                 caches enter the count): the reads and writes of a request that miss each
//                 level. Where a request's time goes to memory (a big list's tables are
//                 megabytes), instructions do not see it and these do. The level 2 count repeats
//                 closely; the level 1 count moves with where the process's heap puts things (its
//                 conflict misses), so it has its own tolerance (GateTolerance.l1MissTolerance(requests:)).
//   heap peak     massif's peak of live heap bytes (requested sizes) over the whole compile
//                 process: exact for a serial run, where wall-clock memory (resident pages of a
//                 parallel run) moves with thread timing and the allocator.
//
// Counts depend on the code and on what runs it: the toolchain, libc (whose string and memory
// routines are picked by CPU features) and Valgrind. CostFingerprint names all four; counts with
// different fingerprints are not comparable.
// Tested by GateTests (CostGateTests).

import Foundation
internal import CValgrind
internal import Synchronization
public import Conformance
public import Engines

/// What instruction counts depend on besides the code: counts are comparable only between runs
/// with equal fingerprints.
public struct CostFingerprint: Codable, Hashable, Sendable {
    /// `swift --version`'s first line as the report records it.
    public var toolchain: String
    /// glibc's version.
    public var libc: String
    /// `valgrind --version`.
    public var valgrind: String
    /// The CPU features that select libc's routines, as the measured process saw them (under
    /// Valgrind: its emulated CPU).
    public var cpu: String

    public init(toolchain: String, libc: String, valgrind: String, cpu: String) {
        self.toolchain = toolchain
        self.libc = libc
        self.valgrind = valgrind
        self.cpu = cpu
    }

    public var text: String { "\(toolchain); glibc \(libc); \(valgrind); cpu: \(cpu)" }

    /// What differs from `other`, one phrase per field ("" when equal).
    public func differences(from other: CostFingerprint) -> String {
        var parts: [String] = []
        if toolchain != other.toolchain { parts.append("toolchain \(other.toolchain) -> \(toolchain)") }
        if libc != other.libc { parts.append("glibc \(other.libc) -> \(libc)") }
        if valgrind != other.valgrind { parts.append("\(other.valgrind) -> \(valgrind)") }
        if cpu != other.cpu { parts.append("cpu features \(other.cpu) -> \(cpu)") }
        return parts.joined(separator: "; ")
    }
}

/// A compile's exact cost.
public struct CompileCost: Codable, Hashable, Sendable {
    /// Instructions per part (CostRegion.compileLabels), in that order.
    public var instructions: [Figure]
    public var totalInstructions: Double { instructions.reduce(0) { $0 + $1.value } }
    /// The parts and their `total`, then the JSON reader's instructions per byte of the text, as
    /// a result records them (EngineResult.instructions).
    public var recorded: [Figure] {
        instructions + [Figure("total", totalInstructions)]
            + (jsonInstructionsPerByte.map { [Figure(Self.jsonPerByteName, $0)] } ?? [])
    }
    /// Peak of live heap bytes of the whole compile process (nil: not measured).
    public var heapPeakBytes: Int?
    /// The compiled file's size, as the measured process made it.
    public var bytes: Int
    /// The size of the JSON text compiled (nil: not reported).
    public var jsonBytes: Int?

    /// The JSON reader's instructions (the `json` part) per byte of the text.
    public var jsonInstructionsPerByte: Double? {
        guard let jsonBytes, jsonBytes > 0, let json = instructions.first(where: { $0.name == CostRegion.jsonLabel }) else { return nil }
        return json.value / Double(jsonBytes)
    }
    /// `jsonInstructionsPerByte`'s name among the recorded figures.
    public static let jsonPerByteName = "json per byte"
}

/// A request set's exact cost.
public struct MatchCost: Codable, Hashable, Sendable {
    public var requests: Int
    /// Instructions to validate the compiled file and make an evaluator of it.
    public var load: Double
    /// Instructions per request: the first pass (a fresh evaluator), and the second.
    public var firstPassPerRequest: Double
    public var perRequest: Double
    /// Data-cache misses (reads and writes) per request of the second pass, in the simulation of
    /// `CostCounter.cacheSimulation`: its level 1 (32 KB) and its level 2 (1 MB).
    public var l1DataMissesPerRequest: Double
    public var l2DataMissesPerRequest: Double
    /// The first pass's answers.
    public var answers: AnswerCounts

    /// The figures as a result records them (EngineResult.instructions).
    public var recorded: [Figure] {
        [Figure("per request", perRequest), Figure("per request, first pass", firstPassPerRequest), Figure("to load", load)]
    }

    /// The misses as a result records them (EngineResult.dataMisses), by these names.
    public var recordedMisses: [Figure] {
        [Figure(Self.l1MissesName, l1DataMissesPerRequest), Figure(Self.l2MissesName, l2DataMissesPerRequest)]
    }
    public static let l1MissesName = "L1 data misses per request"
    public static let l2MissesName = "L2 data misses per request"
}

public enum CostCounterError: Error, CustomStringConvertible {
    case unavailable(String)
    case failed(command: String, reason: String)

    public var description: String {
        switch self {
        case .unavailable(let reason): "instruction counts unavailable: \(reason)"
        case .failed(let command, let reason): "`\(command)`: \(reason)"
        }
    }
}

/// Runs measured regions of a `blockbench` executable under Valgrind and reads their counts.
/// Several counts may run at once, each in a process of its own (CostQueue).
public final class CostCounter: @unchecked Sendable {
    /// The `blockbench` executable whose regions are counted.
    public let executable: String
    public var valgrind = "valgrind"
    /// Whether compiles also get massif's heap peak (a second, faster Valgrind run).
    public var measuresHeap = true
    /// A measured process that runs longer is stopped and the count fails.
    public var timeoutSeconds: Double = 1_800
    /// The fingerprint of the counts taken so far (all must agree).
    public var fingerprint: CostFingerprint? { seenFingerprint.withLock { $0 } }
    private let seenFingerprint = Mutex<CostFingerprint?>(nil)
    private let toolchain: String

    /// `toolchain` is the fingerprint's first part (ReportMeta's).
    public init(executable: String, toolchain: String) {
        self.executable = executable
        self.toolchain = toolchain
    }

    /// Why counts cannot be taken on this machine (nil: they can).
    public static func unavailableReason(valgrind: String = "valgrind") -> String? {
        guard let version = try? run([valgrind, "--version"]).output, version.hasPrefix("valgrind") else {
            return "no valgrind on this machine (Debian: apt-get install valgrind)"
        }
        return nil
    }

    /// Instructions per phase and the heap peak of compiling the rule list at `rules`.
    public func compile(rules: String) throws -> CompileCost {
        let arguments = ["cost", "compile", rules, "--inside"]
        let (parts, figures) = try count(arguments)
        guard let bytes = figures.bytes else { throw CostCounterError.failed(command: command(arguments), reason: "reported no file size") }
        var instructions: [Figure] = []
        for label in CostRegion.compileLabels { instructions.append(Figure(label, Double(parts[label]?["Ir"] ?? 0))) }
        let unknown = Set(parts.keys).subtracting(CostRegion.compileLabels)
        if !unknown.isEmpty {
            throw CostCounterError.failed(command: command(arguments), reason: "unknown parts \(unknown.sorted())")
        }
        var cost = CompileCost(instructions: instructions, bytes: bytes, jsonBytes: figures.jsonBytes)
        if measuresHeap { cost.heapPeakBytes = try heapPeak(arguments) }
        return cost
    }

    /// Instructions per request of answering the request set `requests` (a manifest name under
    /// `corpora`) with the compiled file at `file`.
    public func match(file: String, corpora: String, requests: String) throws -> MatchCost {
        try match(files: [file], corpora: corpora, requests: requests)
    }

    /// The instructions (and simulated data-cache misses) of answering `requests` with the
    /// compiled `files`, lists asked apart (`CostRegion.match(_:loadingLists:)`): every request
    /// put to each; their dense tables within `denseBudgetBytes` (nil: the default).
    public func match(files: [String], corpora: String, requests: String, denseBudgetBytes: Int? = nil) throws -> MatchCost {
        let budget = denseBudgetBytes.map { ["--dense-budget", String($0)] } ?? []
        let arguments = ["cost", "match"] + files + ["--requests", requests, "--corpora", corpora] + budget + ["--inside"]
        let (parts, figures) = try count(arguments, simulatingCaches: true)
        guard let answers = figures.answers, answers.requests > 0, let load = parts[CostRegion.loadLabel]?["Ir"],
            let first = parts[CostRegion.firstPassLabel]?["Ir"], let second = parts[CostRegion.requestsLabel], let requests = second["Ir"]
        else { throw CostCounterError.failed(command: command(arguments), reason: "reported no answers or no parts") }
        let count = Double(answers.requests)
        func misses(_ events: [String]) throws -> Double {
            guard events.allSatisfy({ second[$0] != nil }) else {
                throw CostCounterError.failed(command: command(arguments), reason: "callgrind counted no \(events.joined(separator: " or "))")
            }
            return Double(events.reduce(0) { $0 + second[$1]! }) / count
        }
        return MatchCost(
            requests: answers.requests, load: Double(load), firstPassPerRequest: Double(first) / count,
            perRequest: Double(requests) / count, l1DataMissesPerRequest: try misses(["D1mr", "D1mw"]),
            l2DataMissesPerRequest: try misses(["DLmr", "DLmw"]), answers: answers)
    }

    /// The caches callgrind simulates for data misses: this machine's level 1 data cache (32 KB,
    /// 8-way) and level 2 (1 MB, 16-way; callgrind's last level), 64-byte lines, and a level 1
    /// instruction cache like the data one. Fixed, so that counts on another host compare.
    public static let cacheSimulation = ["--cache-sim=yes", "--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,16,64"]

    // MARK: Running Valgrind

    private func command(_ arguments: [String]) -> String { ([executable] + arguments).joined(separator: " ") }

    /// callgrind's parts of one run, their events summed per label, and what the process reported.
    private func count(_ arguments: [String], simulatingCaches: Bool = false) throws -> (parts: [String: [String: UInt64]], figures: CostRegionFigures) {
        let (ordered, figures) = try countPartEvents(arguments, simulatingCaches: simulatingCaches)
        var parts: [String: [String: UInt64]] = [:]
        for part in ordered where part.label != CostRegion.endLabel { parts[part.label, default: [:]].merge(part.events, uniquingKeysWith: +) }
        return (parts, figures)
    }

    /// callgrind's marked parts of `executable` run with `arguments` (and `environment` added to
    /// this process's), in the order the process marked them, and the figures it printed last.
    public func countParts(
        _ arguments: [String], environment: [String: String] = [:]
    ) throws -> (parts: [(label: String, instructions: UInt64)], figures: CostRegionFigures) {
        let (parts, figures) = try countPartEvents(arguments, environment: environment, simulatingCaches: false)
        return (parts.map { ($0.label, $0.events["Ir"] ?? 0) }, figures)
    }

    /// `countParts`, each part with every event callgrind counted (`Ir`: instructions; with
    /// `simulatingCaches`, the misses of `cacheSimulation`'s caches too: `D1mr`, `DLmw`, ...).
    private func countPartEvents(
        _ arguments: [String], environment: [String: String] = [:], simulatingCaches: Bool
    ) throws -> (parts: [(label: String, events: [String: UInt64])], figures: CostRegionFigures) {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = folder + "/callgrind.out"
        let figures = try measure(
            ["--tool=callgrind", "--callgrind-out-file=" + out, "--combine-dumps=yes", "--instr-atstart=no", "--dump-line=no"]
                + (simulatingCaches ? Self.cacheSimulation : []),
            arguments, environment: environment, folder: folder)
        guard let text = try? String(contentsOfFile: out, encoding: .utf8) else {
            throw CostCounterError.failed(command: command(arguments), reason: "callgrind wrote no counts")
        }
        let parts = Self.callgrindPartEvents(text).compactMap { part in part.label.map { (label: $0, events: part.events) } }
        if parts.isEmpty {
            throw CostCounterError.failed(command: command(arguments), reason: "no marked part in callgrind's output")
        }
        if let wrapped = parts.first(where: { $0.events.values.contains { $0 > UInt64(Int64.max) } }) {
            throw CostCounterError.failed(command: command(arguments), reason: "callgrind counted a negative number of events for \(wrapped.label)")
        }
        return (parts, figures)
    }

    /// massif's peak of live heap bytes over the whole run.
    private func heapPeak(_ arguments: [String]) throws -> Int {
        let folder = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let out = folder + "/massif.out"
        _ = try measure(
            ["--tool=massif", "--massif-out-file=" + out, "--depth=1", "--peak-inaccuracy=0", "--detailed-freq=1000000"],
            arguments, folder: folder)
        guard let text = try? String(contentsOfFile: out, encoding: .utf8), let peak = Self.massifPeak(text) else {
            throw CostCounterError.failed(command: command(arguments), reason: "massif wrote no heap snapshot")
        }
        return peak
    }

    /// Runs `arguments` under Valgrind with `tool` options; the figures the process printed.
    private func measure(_ tool: [String], _ arguments: [String], environment added: [String: String] = [:], folder: String) throws -> CostRegionFigures {
        let log = folder + "/valgrind.log"
        let argv = [valgrind] + tool + ["--log-file=" + log, executable] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_DETERMINISTIC_HASHING"] = "1"
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment.merge(added) { _, new in new }
        let result = try Self.run(argv, environment: environment, timeout: timeoutSeconds)
        let valgrindLog = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        guard result.status == 0 else {
            let said = (result.output + "\n" + valgrindLog).split(separator: "\n").suffix(6).joined(separator: "\n")
            throw CostCounterError.failed(command: command(arguments), reason: "exit \(result.status)\n\(said)")
        }
        // The last line that reads as figures (a test runner may print after them).
        let decoder = JSONDecoder()
        guard let figures = result.output.split(separator: "\n").reversed().lazy
            .compactMap({ try? decoder.decode(CostRegionFigures.self, from: Data($0.utf8)) }).first
        else { throw CostCounterError.failed(command: command(arguments), reason: "printed no figures") }
        guard figures.markersBuilt else {
            throw CostCounterError.unavailable("\(executable) was built without Valgrind's headers (Debian: valgrind), so it marks nothing")
        }
        guard figures.underValgrind else { throw CostCounterError.failed(command: command(arguments), reason: "did not run under Valgrind") }
        let seen = CostFingerprint(
            toolchain: toolchain, libc: Self.libcVersion, valgrind: Self.valgrindVersion(valgrindLog, fallback: valgrind),
            cpu: figures.cpuFeatures)
        let earlier = seenFingerprint.withLock { known in
            if known == nil { known = seen }
            return known!
        }
        if earlier != seen {
            throw CostCounterError.failed(
                command: command(arguments), reason: "counted on another fingerprint than the runs before: \(seen.differences(from: earlier))")
        }
        return figures
    }

    // MARK: Reading Valgrind's files

    /// The parts of a combined callgrind output, in order: each part's label (the text of the
    /// client request that wrote it; nil for a part written otherwise, such as the one at exit)
    /// and its instructions, from the part's `totals:` line (its `summary:` header can be off:
    /// seen wrapped below zero after instrumentation was stopped and started again).
    public static func callgrindParts(_ text: String) -> [(label: String?, instructions: UInt64)] {
        callgrindPartEvents(text).map { ($0.label, $0.events["Ir"] ?? 0) }
    }

    /// `callgrindParts` with every event of each part's `totals:` line, by the names of its
    /// `events:` line (`Ir`, then with the cache simulation `Dr`, `D1mr`, `DLmr`, ...); an event
    /// the totals leave out counts 0, as callgrind writes it.
    public static func callgrindPartEvents(_ text: String) -> [(label: String?, events: [String: UInt64])] {
        var parts: [(String?, [String: UInt64])] = []
        var label: String?
        var names: [Substring] = ["Ir"]
        var inPart = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("part:") {
                inPart = true
                label = nil
            } else if line.hasPrefix("desc: Trigger: ") {
                let trigger = line.dropFirst("desc: Trigger: ".count)
                let prefix = "Client Request: "
                label = trigger.hasPrefix(prefix) ? String(trigger.dropFirst(prefix.count)) : nil
            } else if line.hasPrefix("events:") {
                names = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().map { $0 }
            } else if inPart, line.hasPrefix("totals:") {
                let values = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().map { UInt64($0) ?? 0 }
                var events: [String: UInt64] = [:]
                for (index, name) in names.enumerated() { events[String(name)] = index < values.count ? values[index] : 0 }
                parts.append((label, events))
                inPart = false
            }
        }
        return parts
    }

    /// The largest `mem_heap_B` of a massif output (its peak snapshot, exact with
    /// --peak-inaccuracy=0).
    public static func massifPeak(_ text: String) -> Int? {
        text.split(separator: "\n").compactMap { line -> Int? in
            line.hasPrefix("mem_heap_B=") ? Int(line.dropFirst("mem_heap_B=".count)) : nil
        }.max()
    }

    static func valgrindVersion(_ log: String, fallback: String) -> String {
        // The log's second line: "==PID== Using Valgrind-3.19.0 and LibVEX; rerun with -h for copyright info"
        for line in log.split(separator: "\n").prefix(4) {
            if let range = line.range(of: "Using Valgrind-") {
                let rest = line[range.upperBound...]
                return "valgrind-" + rest.prefix { $0 != " " }
            }
        }
        return (try? run([fallback, "--version"]).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? "valgrind"
    }

    static var libcVersion: String { String(cString: bb_libc_version()) }

    package static func scratchFolder() throws -> String {
        let folder = NSTemporaryDirectory() + "/blockbench-cost-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Runs a command to its end (stopped after `timeout` seconds); its exit status and standard
    /// output (with its standard error when `mergingErrors`).
    package static func run(
        _ argv: [String], environment: [String: String]? = nil, timeout: Double = 60, mergingErrors: Bool = false
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: argv[0].hasPrefix("/") ? argv[0] : "/usr/bin/env")
        process.arguments = argv[0].hasPrefix("/") ? Array(argv.dropFirst()) : argv
        if let environment { process.environment = environment }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = mergingErrors ? output : FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let timer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        timer.cancel()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
