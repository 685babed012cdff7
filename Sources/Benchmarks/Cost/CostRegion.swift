// CostRegion.swift — Benchmarks
//
// The measured side of the exact cost measure (CostCounter.swift runs it): a process under
// Valgrind's callgrind that runs one region of work, serially, and marks where its instructions
// go. Each mark writes the instructions counted since the previous one as a callgrind part
// labelled with what ran:
//
//   compile  the JSON text to the compiled file's bytes, as `blockbench compile` does: a part per
//            phase stretch (PhaseTimer.Phase's names: the marker of the compile's timer), `json`
//            for the JSON reader's stretches inside `parse` (the JSONReadingMarker the compile is
//            given: the text onto tapes, apart from reading the rules and their patterns), and
//            `other` for the work between phases
//   match    the compiled file validated and an evaluator made of it (`load`; several lists asked
//            apart: each), every request answered (`first pass`: empty caches), then every
//            request again (`requests`)
//
// Everything before and after the region (reading files, parsing requests, printing) is not
// instrumented and not counted. Outside Valgrind the marks do nothing and the region runs as is.
// Tested by GateTests (CostGateTests).

public import ContentBlocker
public import ContentRuleList
public import RequestContext
public import Automata
internal import CValgrind
internal import Parallelism
public import Conformance

/// The figures a measured process reports beside its counts (as one JSON line on standard output):
/// what the parent checks before any count is taken.
public struct CostRegionFigures: Codable, Hashable, Sendable {
    /// Whether the markers were built with Valgrind's client requests (nothing is counted without).
    public var markersBuilt: Bool
    /// Whether the process ran under Valgrind.
    public var underValgrind: Bool
    /// The CPU features that select libc's routines, as the process saw them.
    public var cpuFeatures: String
    /// compile: the compiled file's size.
    public var bytes: Int?
    /// compile: the size of the JSON text compiled.
    public var jsonBytes: Int?
    /// match: the answers of the first pass, to be checked against the oracle's.
    public var answers: AnswerCounts?

    public init(bytes: Int? = nil, jsonBytes: Int? = nil, answers: AnswerCounts? = nil) {
        markersBuilt = bb_markers_built() != 0
        underValgrind = bb_running_on_valgrind() != 0
        cpuFeatures = CostRegion.cpuFeatures
        self.bytes = bytes
        self.jsonBytes = jsonBytes
        self.answers = answers
    }
}

public enum CostRegion {
    /// The labels a compile region's parts carry: the phases, the JSON reader's share of `parse`
    /// after it, then the work between phases.
    public static let compileLabels: [String] = {
        var labels = PhaseTimer.Phase.allCases.map(\.rawValue) + [otherLabel]
        labels.insert(jsonLabel, at: labels.firstIndex(of: PhaseTimer.Phase.parse.rawValue)! + 1)
        return labels
    }()
    public static let otherLabel = "other"
    /// The JSON reader's stretches of the `parse` phase (the compile's JSONReadingMarker).
    public static let jsonLabel = "json"
    /// The (empty) part that closes every region: several regions of one process are told apart.
    public static let endLabel = "end of region"
    public static let loadLabel = "load"
    public static let firstPassLabel = "first pass"
    public static let requestsLabel = "requests"

    /// The CPU features libc's string and memory routines are chosen by, as this process sees them.
    public static var cpuFeatures: String {
        var buffer = [CChar](repeating: 0, count: 256)
        bb_cpu_features(&buffer, UInt(buffer.count))
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Compiles `json` as `blockbench compile` does (the file's bytes included), on this thread only,
    /// with a part per phase stretch. Throws what the compiler throws.
    public static func compile(json: consuming [UInt8], limits: AutomataLimits = .default) throws -> CostRegionFigures {
        let json = consume json
        let jsonBytes = json.count
        var figures = try compileRegion { try compiledSize(json: json, limits: limits, marker: $0) }
        figures.jsonBytes = jsonBytes
        return figures
    }

    /// Told a compile's stretches: its phases (as its timers' marker) and the JSON reader's.
    public typealias CompileMarker = PhaseTimer.Marker & JSONReadingMarker

    /// Runs `work`, which compiles and returns the compiled file's size, as a counted region with a
    /// part per phase stretch, serially. `work` is given the marker to compile with: its timers'
    /// (`PhaseTimer(marker:)`), whose phases are marked, and the JSON reader's, whose stretches
    /// are a part of their own.
    public static func compileRegion(_ work: (_ marker: any CompileMarker) throws -> Int) throws -> CostRegionFigures {
        Parallel.isSerial = true
        let markers = Markers()
        bb_callgrind_begin()
        let bytes: Int
        do { bytes = try work(markers) } catch {
            bb_callgrind_end()
            throw error
        }
        markers.finish()
        bb_callgrind_mark(endLabel)
        bb_callgrind_end()
        return CostRegionFigures(bytes: bytes)
    }

    /// The size of `json`'s compiled file, compiled as `blockbench compile` does (`marker`: told
    /// the phases' and the JSON reader's stretches).
    public static func compiledSize(
        json: consuming [UInt8], limits: AutomataLimits = .default, marker: (any CompileMarker)? = nil
    ) throws -> Int {
        let (compiled, compileReport) = try RuleListCompiler.compile(
            json: consume json, limits: limits, timer: PhaseTimer(marker: marker), jsonMarker: marker)
        var report = compileReport
        // (The compiled list let go in emitting's stretch too, as the file's bytes are made.)
        let emitting = report.timer.begin(.emit)
        let size = compiled.serialized().count
        _ = consume compiled
        report.timer.end(emitting)
        return size
    }

    /// Loads the engine with `load` (a compiled file validated and an evaluator made of it), then
    /// answers every request twice, each a part: the first pass as it comes (empty caches), then
    /// the second. The first pass's answers are digested after the region.
    public static func match(
        _ requests: [Request], load: () throws -> (Request) -> MatchOutcome
    ) rethrows -> CostRegionFigures {
        Parallel.isSerial = true
        var outcomes: [MatchOutcome] = []
        outcomes.reserveCapacity(requests.count)
        bb_callgrind_begin()
        let answer: (Request) -> MatchOutcome
        do { answer = try load() } catch {
            bb_callgrind_end()
            throw error
        }
        bb_callgrind_mark(loadLabel)
        counted(requests) { outcomes.append(answer($0)) }
        bb_callgrind_mark(firstPassLabel)
        var sink = 0
        counted(requests) { sink &+= answer($0).actions.count }
        bb_callgrind_mark(requestsLabel)
        bb_callgrind_mark(endLabel)
        bb_callgrind_end()
        withExtendedLifetime(sink) {}
        return CostRegionFigures(answers: RequestAnswer.counts(outcomes.map(RequestAnswer.init)))
    }

    /// `match(_:load:)` for several lists asked apart, as a browser asks each of its content
    /// blockers: `load` makes their `ContentBlockers` (each compiled file validated and read),
    /// and each request is put to every list, the answers joined per request for the digest.
    /// (One list: `match(_:load:)`, an evaluator alone.)
    public static func match(_ requests: [Request], loadingLists load: () throws -> ContentBlockers) rethrows -> CostRegionFigures {
        Parallel.isSerial = true
        bb_callgrind_begin()
        let lists: ContentBlockers
        do { lists = try load() } catch {
            bb_callgrind_end()
            throw error
        }
        var outcomes = [[MatchOutcome]](repeating: [], count: lists.evaluators.count)
        for index in outcomes.indices { outcomes[index].reserveCapacity(requests.count) }
        bb_callgrind_mark(loadLabel)
        counted(requests) { request in lists.outcomes(for: request) { outcomes[$0].append($1) } }
        bb_callgrind_mark(firstPassLabel)
        var sink = 0
        counted(requests) { request in lists.outcomes(for: request) { sink &+= $1.actions.count } }
        bb_callgrind_mark(requestsLabel)
        bb_callgrind_mark(endLabel)
        bb_callgrind_end()
        withExtendedLifetime(sink) {}
        let answers = requests.indices.map { request in RequestAnswer(joining: outcomes.map { RequestAnswer($0[request]) }) }
        return CostRegionFigures(answers: RequestAnswer.counts(answers))
    }

    /// `answer` for each request, only its work counted: the request is taken out of the set before
    /// counting starts and let go after it stops, as `bench` takes it out before its clock starts
    /// (the copy, its reference counts and its reads of the set's array are the harness's, not
    /// the engine's: a cost a request that has nothing to do with the list). The caches are
    /// simulated throughout, the copy's reads included: an answer finds the request where
    /// `bench`'s does, in the caches.
    @inline(__always)
    private static func counted(_ requests: [Request], _ answer: (Request) -> Void) {
        bb_callgrind_toggle()
        for index in requests.indices {
            let request = requests[index]
            withExtendedLifetime(request) {
                bb_callgrind_toggle()
                answer(request)
                bb_callgrind_toggle()
            }
        }
        bb_callgrind_toggle()
    }

    /// The content blockers of compiled files' bytes, each validated and read, its dense tables
    /// within `denseBudgetBytes` (Search/DenseBudget.swift; nil: the default).
    public static func contentBlockers(ofFiles files: [[UInt8]], denseBudgetBytes: Int? = nil) throws -> ContentBlockers {
        ContentBlockers(try files.map { try CompiledRuleList(validating: $0, denseBudget: denseBudgetBytes.map { .init(bytes: $0) } ?? .standard) })
    }

    /// A compiled file's bytes validated and read, and an evaluator made of it: what a browser
    /// loads (BlockBenchEngine.loadSeconds times the same); its dense tables within
    /// `denseBudgetBytes` (nil: the default).
    public static func evaluator(ofFile bytes: [UInt8], denseBudgetBytes: Int? = nil) throws -> (Request) -> MatchOutcome {
        let evaluator = Evaluator(try CompiledRuleList(validating: bytes, denseBudget: denseBudgetBytes.map { .init(bytes: $0) } ?? .standard))
        return { evaluator.outcome(for: $0) }
    }

    /// Marks each phase stretch of a serial compile: the instructions since the last mark go to
    /// the phase that was running (or `other` between phases). Phases may nest; the inner one's
    /// stretch is its own. The JSON reader's stretches are a phase of their own here (`json`).
    final class Markers: CompileMarker, @unchecked Sendable {
        // One thread (Parallel.isSerial) calls these.
        private var running: [String] = []

        func began(_ phase: PhaseTimer.Phase) { began(phase.rawValue) }

        func ended(_ phase: PhaseTimer.Phase) { ended(phase.rawValue) }

        func beganReadingJSON() { began(CostRegion.jsonLabel) }

        func endedReadingJSON() { ended(CostRegion.jsonLabel) }

        private func began(_ label: String) {
            mark(running.last ?? CostRegion.otherLabel)
            running.append(label)
        }

        private func ended(_ label: String) {
            mark(label)
            if let last = running.lastIndex(of: label) { running.remove(at: last) }
        }

        func finish() { mark(running.last ?? CostRegion.otherLabel) }

        private func mark(_ label: String) { label.withCString { bb_callgrind_mark($0) } }
    }
}
