// ResultTables.swift — Reports
//
// One table per benchmark, as aligned text (the terminal) or Markdown (the report's README). Times
// carry their ratio to the best engine of the same run: `1.9 ms (1.00x)`, `212 ms (111x)`. A peer
// engine is named with "(peer)": measured, not conformed; its answers column gives how often its
// block verdicts agree with BlockBench's instead of the oracle check. Lists apart add notes: each
// list's own compile and load, and the lists together beside the largest alone; a match table
// gives each engine's resident memory after load (Engines/ResidentAfterLoad.swift).
// Tested by BenchmarksTests and EnginesTests (BenchTests, AdblockRustEngineTests).

public import Benchmarks
internal import Engines
internal import TerminalText

public struct ResultTable: Sendable {
    public var title: String
    public var header: [String]
    public var rows: [[String]]
    /// Lines under the table (engines that are wrong, failed or unavailable, notes).
    public var notes: [String]

    public init(_ result: BenchmarkResult) {
        title = "\(result.name): \(result.title)"
        header = Self.header(result.model)
        rows = []
        notes = []
        for engine in result.engines {
            let name = engine.peer == true ? engine.engine + " (peer)" : engine.engine
            guard engine.status == .ok else {
                addUnmeasured(engine, name: name)
                continue
            }
            switch result.model {
            case .check: rows.append(Self.checkRow(engine, name: name))
            case .compile: addCompiled(engine, name: name)
            case .match: addMatched(engine, name: name)
            }
        }
        if result.model == .match { addMatchNotes(result.engines) }
    }

    private static func header(_ model: BenchmarkDefinition.Model) -> [String] {
        switch model {
        case .check:
            ["engine", "time", "runs", "verdict", "rules"]
        case .compile:
            ["engine", "time", "runs", "bytes", "peak memory", "automata", "phases"]
        case .match:
            [
                "engine", "requests", "answers = oracle", "median", "p99", "max", "requests/s", "ns/URL byte", "floor", "resident after load",
                "work/request",
            ]
        }
    }

    /// An engine that did not run or was not right: its status in the row, its message under the table.
    private mutating func addUnmeasured(_ engine: EngineResult, name: String) {
        let label = engine.status == .wrong ? "WRONG" : engine.status == .error ? "ERROR" : "not run"
        rows.append([name, label] + Array(repeating: "", count: header.count - 2))
        let message = engine.message ?? ""
        notes.append(message.hasPrefix("not run:") ? "\(name): \(message)" : "\(name): \(label.lowercased()): \(message)")
    }

    /// The time with its ratio to the best engine's: `1.9 ms (1.00x)`.
    private static func ratio(_ engine: EngineResult) -> String {
        engine.timeRatio.map { " (\(HumanReadable.ratio($0)))" } ?? ""
    }

    private static func runs(_ engine: EngineResult) -> String {
        "\(engine.runs)" + (engine.warmupRuns > 0 ? " +\(engine.warmupRuns) warm-up" : "")
    }

    private static func checkRow(_ engine: EngineResult, name: String) -> [String] {
        [
            name, HumanReadable.duration(seconds: engine.seconds ?? 0) + ratio(engine), runs(engine), engine.verdict ?? "",
            HumanReadable.count(Int(engine.counter("rules") ?? 0)),
        ]
    }

    // MARK: Compile

    /// The compile row, and for lists apart a note with each list's own compile.
    private mutating func addCompiled(_ engine: EngineResult, name: String) {
        let bytes = engine.bytes.map { HumanReadable.bytes($0) + (engine.bytesRatio.map { " (\(HumanReadable.ratio($0)))" } ?? "") } ?? ""
        rows.append([
            name, HumanReadable.duration(seconds: engine.seconds ?? 0) + Self.ratio(engine), Self.runs(engine), bytes,
            Self.memory(engine), Self.automata(engine), Self.phases(engine),
        ])
        if let lists = engine.lists {
            notes.append("\(name), each list on its own: " + lists.map { list in
                "\(list.list) (\(HumanReadable.count(list.rules)) rules) \(HumanReadable.duration(seconds: list.seconds)), "
                    + HumanReadable.bytes(list.bytes) + (list.loadSeconds.map { ", load \(HumanReadable.duration(seconds: $0))" } ?? "")
            }.joined(separator: "; "))
        }
    }

    /// Peak memory (with its growth), or the growth its own process gave; the compile alone and the heap after.
    private static func memory(_ engine: EngineResult) -> String {
        (engine.peakMemoryBytes.map { peak in
            HumanReadable.bytes(peak) + (engine.memoryGrowthBytes.map { " (+\(HumanReadable.bytes(max(0, $0))))" } ?? "")
        } ?? engine.memoryGrowthBytes.map { "+\(HumanReadable.bytes(max(0, $0))) in its process" } ?? "n/a")
            + (engine.ownProcessPeakMemoryBytes.map { "; alone \(HumanReadable.bytes($0))" } ?? "")
            + (engine.heapGrowthBytes.map { "; heap +\(HumanReadable.bytes(max(0, $0)))" } ?? "")
    }

    /// DFAs and states of each kind, or a peer's pattern count.
    private static func automata(_ engine: EngineResult) -> String {
        let dfas = ["url", "top-url", "frame-url"].compactMap { kind -> String? in
            guard let count = engine.counter("\(kind) DFAs"), let states = engine.counter("\(kind) states"), count > 0 else { return nil }
            return "\(kind) \(Int(count))/\(HumanReadable.count(Int(states)))"
        }
        return dfas.isEmpty
            ? (engine.counter("patterns").map { "\(HumanReadable.count(Int($0))) patterns" } ?? "")
            : dfas.joined(separator: ", ") + " DFAs/states"
    }

    /// The phases that took time, then load and end-to-end times.
    private static func phases(_ engine: EngineResult) -> String {
        (engine.phases ?? []).filter { $0.value >= 0.0005 }
            .map { "\($0.name) \(HumanReadable.duration(seconds: $0.value))" }.joined(separator: ", ")
            + (engine.loadSeconds.map { "; load \(HumanReadable.duration(seconds: $0))" } ?? "")
            + (engine.endToEndSeconds.map { "; end to end \(HumanReadable.duration(seconds: $0))" } ?? "")
    }

    // MARK: Match

    /// The match row, then notes: the lists together beside the largest alone, and the engine's message.
    private mutating func addMatched(_ engine: EngineResult, name: String) {
        rows.append(Self.matchRow(engine, name: name))
        if let alone = engine.largestAlone, let times = engine.timesLargestAlone, let latency = engine.latency {
            notes.append(
                "\(name): the lists together \(HumanReadable.duration(nanoseconds: latency.medianNanoseconds)) a request (median), "
                    + "\(HumanReadable.ratio(times)) \(alone.list) alone (\(HumanReadable.count(alone.rules)) rules, "
                    + ([HumanReadable.duration(nanoseconds: alone.medianNanoseconds)] + alone.counters.map(Self.work))
                    .joined(separator: ", ") + "), timed in the same rounds")
        }
        if let message = engine.message { notes.append("\(name): \(message)") }
    }

    private static func matchRow(_ engine: EngineResult, name: String) -> [String] {
        let requests = HumanReadable.count(engine.requests ?? 0)
            + ((engine.sampled ?? false) ? " (sample)" : "")
        let answers = engine.peer == true
            ? "not conformed; " + (engine.agreement?.text ?? "")
            : engine.answers.map { $0.text + ($0 == engine.oracleAnswers ? " ✓" : " ✗") } ?? ""
        let latency = engine.latency
        return [
            name, requests, answers,
            latency.map { HumanReadable.duration(nanoseconds: $0.medianNanoseconds) + ratio(engine) } ?? "",
            latency.map { HumanReadable.duration(nanoseconds: $0.p99Nanoseconds) } ?? "",
            latency.map { HumanReadable.duration(nanoseconds: $0.maxNanoseconds) } ?? "",
            engine.requestsPerSecond.map { compact($0) } ?? "",
            engine.nanosecondsPerURLByte.map { compact($0) } ?? "",
            engine.floorNanoseconds.map { floor in
                HumanReadable.duration(nanoseconds: floor) + (engine.timesFloor.map { " (median \(compact($0))x)" } ?? "")
            } ?? "",
            engine.residentAfterLoad.map(residentText) ?? "",
            engine.counters.map(work).joined(separator: ", "),
        ]
    }

    /// What the resident column means, and how each peer that ran was timed.
    private mutating func addMatchNotes(_ engines: [EngineResult]) {
        if engines.contains(where: { $0.residentAfterLoad != nil }) {
            notes.append(
                "resident after load: what loading the lists added to a fresh process's anonymous resident memory (RssAnon; "
                    + "its ratio to the bytes loaded: BlockBench's compiled files, a peer's serialized engines), and to all of it (VmRSS); "
                    + "held: the bytes BlockBench's loaded structures allocated and keep, the same on every run (the gate's figure)")
        }
        for peer in engines where peer.peer == true && peer.status == .ok {
            notes.append(
                "\(peer.engine) (peer): measured, not conformed (Adblock Plus semantics); its times are measured inside its own process, "
                    + "per request" + (peer.endToEndSeconds.map { ", a run end to end \(HumanReadable.duration(seconds: $0)) with the pipe" } ?? ""))
        }
    }

    /// A work counter per request, as the last column gives it.
    static func work(_ counter: Figure) -> String {
        "\(compact(counter.value)) \(counter.name.replacingOccurrences(of: " per request", with: ""))"
    }

    static func residentText(_ figures: ResidentAfterLoad) -> String {
        "+" + HumanReadable.bytes(max(0, figures.anonymousGrowth))
            + (figures.timesLoadedBytes.map { " (\(String(format: "%.2f", $0))x loaded)" } ?? "")
            + ", RSS +" + HumanReadable.bytes(max(0, figures.residentGrowth))
            + (figures.heldBytes.map { held in
                "; held " + HumanReadable.bytes(held) + (figures.heldTimesLoadedBytes.map { " (\(String(format: "%.2f", $0))x)" } ?? "")
            } ?? "")
    }

    static func compact(_ value: Double) -> String {
        switch value {
        case ..<10: return String(format: "%.2f", value)
        case ..<1000: return String(format: "%.1f", value)
        default: return HumanReadable.count(Int(value.rounded()))
        }
    }

    /// Aligned columns for a terminal.
    public var text: String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        var lines = ["== " + title]
        for row in all {
            let cells = row.indices.map { column in
                column == row.count - 1 ? row[column] : row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            lines.append("  " + cells.joined(separator: "  ").trimmingTrailingSpaces())
        }
        lines += notes.map { "  " + $0 }
        return lines.joined(separator: "\n")
    }

    /// A Markdown table under a heading.
    public var markdown: String {
        func line(_ cells: [String]) -> String {
            "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
        }
        var lines = ["### " + title, "", line(header), line(header.map { _ in "---" })]
        lines += rows.map(line)
        if !notes.isEmpty { lines += [""] + notes.map { "- " + $0 } }
        return lines.joined(separator: "\n")
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
