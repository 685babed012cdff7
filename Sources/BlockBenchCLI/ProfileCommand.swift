// `blockbench profile RULES`: where a request's matching time goes, program by program. Each url
// program of the compiled list is run alone (in a program set of its own, as the evaluator runs
// the whole set) over every URL of a request set, and timed; then the whole set, then the
// evaluator's full answer. docs/DESIGN.md (Where the time goes) says how to read it.
// Tested by BlockBenchCLITests/CLITests.swift (ProfileCommandTests).

import ArgumentParser
import Bytecode
import Search
import ContentBlocker
import ContentRuleList
import Foundation
import Benchmarks
import Corpus
import Engines
import RequestContext

struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Time each url program of a rule list alone over a request set's URLs.",
        discussion: """
            RULES is a rule list (JSON, optionally gzip-compressed) or a file written by `blockbench compile`.
            For each url program (the whole-pattern DFAs, then each stage: its prefix alone, then the
            stage with its suffixes; then the gated groups, run where the whole programs report their
            gates), one line: its code bytes and states, how many of its programs run from a dense
            table, and per URL the mean nanoseconds, interpreter steps and program runs. Then every url
            program together, and the evaluator's whole answer per request (median, p99 and mean: all,
            on pages kept, on pages made for the request), then each request asked again at once (the
            same work with warm caches: the difference is memory). Program times are the best of
            --rounds passes over every URL; steps and runs are exact. --slowest N lists the requests
            whose fastest time over the rounds is longest.
            """)

    @Argument(help: "A rule list, or a file written by `blockbench compile`.")
    var rules: String

    @Option(help: "The request set (a file of Corpora/urls).")
    var requests = "Corpora/urls/adblock-rust-matching-test-requests.json.gz"

    @Option(help: "Its kind: \(RequestSets.kinds.joined(separator: ", ")).")
    var kind = "requests-json"

    @Option(help: "Timed passes over every URL; the fastest counts.")
    var rounds = 5

    @Option(help: "List this many requests whose fastest time over the rounds is longest (the tail's own cost, without the machine's noise).")
    var slowest = 0

    @Flag(help: "Only the whole answer, with the tables in huge pages and in 4 KB pages: the lists loaded both ways in this process, their passes over the requests taken in turn (a pass unmeasured, then one measured, each round), so that both meet the same stretch of the machine.")
    var comparePages = false

    @Option(name: .customLong("and"), help: "With --compare-pages: another list asked with RULES, each apart, as Safari asks several extensions (repeatable).")
    var others: [String] = []

    func run() throws {
        guard rounds > 0 else { throw ValidationError("--rounds must be at least 1") }
        guard comparePages || others.isEmpty else { throw ValidationError("--and goes with --compare-pages") }
        let set = try RequestSets.load(path: requests, kind: kind, name: requests)
        let requestList = set.requests.map(\.request)
        guard !requestList.isEmpty else { throw ValidationError("\(requests): no requests") }
        if comparePages { return try compareTablePages(requestList) }
        let compiled = try RuleListInput.load(rules)
        let urls = requestList.map { Array($0.url.string.utf8) }
        let urlBytes = urls.reduce(0) { $0 + $1.count }
        print("\(rules) over \(requests): \(urls.count) URLs, \(String(format: "%.1f", Double(urlBytes) / Double(urls.count))) bytes each")
        print("  program                         code bytes   states        dense  dense KB    ns/URL  steps/URL  runs/URL")
        for row in Self.rows(compiled.file.urlPrograms, urls: urls, rounds: rounds) {
            let count = Double(urls.count)
            print(
                "  " + row.name.padding(toLength: 30, withPad: " ", startingAt: 0) + pad(row.codeBytes.map(String.init) ?? "", 12)
                    + pad(row.states.map(String.init) ?? "", 9) + pad("\(row.densePrograms) of \(row.programs)", 13)
                    + pad(String(row.denseBytes / 1024), 10)
                    + pad(String(format: "%.0f", Double(row.nanoseconds) / count), 10)
                    + pad(String(format: "%.1f", Double(row.steps) / count), 11) + pad(String(format: "%.2f", Double(row.runs) / count), 10))
        }

        var sink = 0
        // The evaluator's whole answer, each request timed on its own as `blockbench bench` times
        // it (pages made as they come); the requests that made their page also apart, since the
        // tail is theirs.
        let evaluator = Evaluator(compiled)
        var latencies = LatencyHistogram()
        var onNewPages = LatencyHistogram()
        var onKeptPages = LatencyHistogram()
        // Per request, its fastest time over the rounds and whether it made its page then.
        var fastest = [(nanoseconds: UInt64, madePage: Bool)](repeating: (.max, false), count: requestList.count)
        for _ in 0..<rounds {
            for (index, request) in requestList.enumerated() {
                let pagesBefore = evaluator.pagesMade
                let started = monotonicNanoseconds()
                sink &+= evaluator.outcome(for: request).actions.count
                let elapsed = monotonicNanoseconds() - started
                latencies.record(nanoseconds: elapsed)
                let madePage = evaluator.pagesMade != pagesBefore
                if madePage { onNewPages.record(nanoseconds: elapsed) } else { onKeptPages.record(nanoseconds: elapsed) }
                if elapsed < fastest[index].nanoseconds { fastest[index] = (elapsed, madePage) }
            }
        }
        consumeMeasured(sink)
        func figures(_ histogram: LatencyHistogram) -> String {
            "median \(Int(histogram.percentile(50))) ns, p99 \(Int(histogram.percentile(99))) ns, mean \(String(format: "%.0f", histogram.mean)) ns"
        }
        print("  evaluator, whole answer: \(figures(latencies)) per request")
        print("    on a page kept:        \(figures(onKeptPages)) (\(Int(onKeptPages.count) / rounds) requests a round)")
        print("    on a page made for it: \(figures(onNewPages)) (\(Int(onNewPages.count) / rounds) requests a round)")
        // Each request answered twice in a row, the second timed: the same work with its code and
        // data in the caches. What a request takes in sequence beyond this is its memory's.
        var again = LatencyHistogram()
        for _ in 0..<rounds {
            for request in requestList {
                sink &+= evaluator.outcome(for: request).actions.count
                let started = monotonicNanoseconds()
                sink &+= evaluator.outcome(for: request).actions.count
                again.record(nanoseconds: monotonicNanoseconds() - started)
            }
        }
        consumeMeasured(sink)
        print("    asked again at once:   \(figures(again)) (caches warm: the rest of a request's time is its memory's)")
        guard slowest > 0 else { return }
        print("  slowest requests (fastest of \(rounds) rounds; * made its page):")
        for index in fastest.indices.sorted(by: { fastest[$0].nanoseconds > fastest[$1].nanoseconds }).prefix(slowest) {
            let request = requestList[index]
            let type = ResourceTypes.jsonNames.first { $0.types == request.resourceType }?.name ?? "types \(request.resourceType.rawValue)"
            print(
                pad("\(fastest[index].nanoseconds)", 9) + " ns " + (fastest[index].madePage ? "*" : " ") + " #\(index) "
                    + "\(type) \(request.url.string.prefix(70))  on \(request.mainDocumentURL.string.prefix(50))")
        }
    }

    /// The whole answer with the lists' tables in huge pages and in 4 KB pages (`TablePages`),
    /// both loaded here and timed in turn, the first form alternating from round to round.
    func compareTablePages(_ requestList: [Request]) throws {
        func load(huge: Bool) throws -> ContentBlockers {
            TablePages.huge = huge
            defer { TablePages.huge = true }
            return ContentBlockers(try ([rules] + others).map { try RuleListInput.load($0) })
        }
        let forms = [(name: "huge pages", blockers: try load(huge: true)), (name: "4 KB pages", blockers: try load(huge: false))]
        var latencies = [LatencyHistogram](repeating: LatencyHistogram(), count: 2)
        var passMeans: [[Double]] = [[], []]
        var sink = 0
        for round in 0..<rounds {
            for form in round % 2 == 0 ? [0, 1] : [1, 0] {
                let blockers = forms[form].blockers
                for request in requestList { blockers.outcomes(for: request) { sink &+= $1.actions.count } }
                var total: UInt64 = 0
                for request in requestList {
                    let started = monotonicNanoseconds()
                    blockers.outcomes(for: request) { sink &+= $1.actions.count }
                    let elapsed = monotonicNanoseconds() - started
                    latencies[form].record(nanoseconds: elapsed)
                    total += elapsed
                }
                passMeans[form].append(Double(total) / Double(requestList.count))
            }
        }
        consumeMeasured(sink)
        print("\(([rules] + others).joined(separator: " + ")) over \(requests), \(rounds) rounds, whole answer per request:")
        for (form, latency) in latencies.enumerated() {
            let means = passMeans[form].sorted()
            print(
                "  " + forms[form].name.padding(toLength: 11, withPad: " ", startingAt: 0)
                    + "median \(Int(latency.percentile(50))) ns, p99 \(Int(latency.percentile(99))) ns, mean \(String(format: "%.0f", latency.mean)) ns"
                    + " (a pass's mean: median \(String(format: "%.0f", means[means.count / 2])) ns)")
        }
    }

    /// One line of the profile: a program (or a stage, or every url program) run alone over every
    /// URL. Steps and runs are totals over one pass; `nanoseconds` the fastest pass.
    struct Row {
        var name: String
        var codeBytes: Int?
        var states: Int?
        var programs: Int
        var densePrograms: Int
        var denseBytes: Int
        var nanoseconds: UInt64
        var steps: Int
        var runs: Int
    }

    /// The rows of `urlPrograms`: its domain table, each run of the whole programs (a program, or a
    /// product of several), each stage's prefix (unless it ends everywhere:
    /// then it is never run) and each stage with its suffixes, the gated groups' runs, then every
    /// program together.
    static func rows(_ urlPrograms: ProgramSet, urls: [[UInt8]], rounds: Int) -> [Row] {
        // (A list compiled here has its sets made to be written: prepared once, not at each run.)
        let urlPrograms = urlPrograms.prepared()
        var sink = 0
        // The host labels are read once per URL for the domain table and a stage with the domain
        // shape's prefix: counted in the table's row when there is one, else in the stage's.
        let labelsCounted = !urlPrograms.domains.isEmpty
        func row(_ name: String, _ programs: ProgramSet, code: Int?, states: Int?, readingLabelsElsewhere: Bool = false) -> Row {
            var steps = 0
            var runs = 0
            var ends: [Int] = []
            let best = fastestPass(rounds: rounds) { round in
                for url in urls {
                    let (urlSteps, urlRuns) = url.withUnsafeBufferPointer { programs.run($0, ends: &ends) { sink &+= Int($0) } }
                    if round == 0 {
                        steps += urlSteps
                        runs += urlRuns
                    }
                }
            }
            if readingLabelsElsewhere {
                for url in urls { url.withUnsafeBufferPointer { var read = 0; _ = DomainTable.hostLabels($0, steps: &read); steps -= read } }
            }
            return Row(
                name: name, codeBytes: code, states: states, programs: programs.allPrograms.count,
                densePrograms: programs.denseProgramCount, denseBytes: programs.denseTableBytes, nanoseconds: best, steps: steps, runs: runs)
        }
        var rows: [Row] = []
        if !urlPrograms.domains.isEmpty {
            rows.append(row(
                "domain table, \(urlPrograms.domains.count) entries", ProgramSet(programs: [], domains: urlPrograms.domains), code: nil, states: nil))
        }
        // Each run of the whole programs: a program's, or a product's of several (its states the
        // product's).
        for (members, states) in urlPrograms.wholeRuns {
            let programs = members.map { urlPrograms.programs[$0] }
            let name = members.count == 1 ? "whole \(members[0]), \(programs[0].classCount) classes" : "whole " + members.map(String.init).joined(separator: " x ")
            rows.append(row(name, ProgramSet(programs: programs), code: programs.reduce(0) { $0 + $1.code.count }, states: states))
        }
        for (index, stage) in urlPrograms.stages.enumerated() {
            // (A prefix that ends everywhere is never run; nor is the domain shape's: the host labels say where it ends.)
            if !stage.prefix.reportsAtEveryPosition && stage.prefix != ProgramSet.hostLabelPrefix {
                rows.append(row("stage \(index) prefix", ProgramSet(programs: [stage.prefix]), code: stage.prefix.code.count, states: stage.prefix.stateCount))
            }
            rows.append(row(
                "stage \(index), \(stage.suffixes.count) suffix DFAs", ProgramSet(programs: [], stages: [stage]),
                code: stage.suffixes.reduce(0) { $0 + $1.code.count }, states: stage.suffixes.reduce(0) { $0 + $1.stateCount },
                readingLabelsElsewhere: labelsCounted && stage.prefix == ProgramSet.hostLabelPrefix))
        }
        if let gated = urlPrograms.gated {
            // The groups run where the whole programs or the domain table report their gates: their
            // row is the whole programs and the table with them, less the two alone.
            let programs = gated.groups.joined()
            let with = row("", ProgramSet(programs: urlPrograms.programs, gated: gated, domains: urlPrograms.domains), code: nil, states: nil)
            let without = row("", ProgramSet(programs: urlPrograms.programs, domains: urlPrograms.domains), code: nil, states: nil)
            rows.append(Row(
                name: "gated, \(gated.groups.count) groups", codeBytes: programs.reduce(0) { $0 + $1.code.count },
                states: programs.reduce(0) { $0 + $1.stateCount }, programs: with.programs - without.programs,
                densePrograms: with.densePrograms - without.densePrograms, denseBytes: with.denseBytes - without.denseBytes, nanoseconds: with.nanoseconds > without.nanoseconds ? with.nanoseconds - without.nanoseconds : 0,
                steps: with.steps - without.steps, runs: with.runs - without.runs))
        }
        rows.append(row("every url program", urlPrograms, code: nil, states: nil))
        consumeMeasured(sink)
        return rows
    }

    private func pad(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }
}
