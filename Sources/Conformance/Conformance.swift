// Conformance.swift — Conformance
//
// The engine against the oracle on a rule list and a request set. Both answer every request (of
// the shard); the outcomes must be identical: the actions in order, the rules that match, and
// whether the global style sheet applies. A mismatch is reduced automatically (rules dropped
// while the mismatch persists) to the few rules that show it, with the request and both answers.
//
// The engine enters only through `ConformanceEngine`, so a test can hand in a deliberately broken
// one; the oracle is always PCRE2Oracle.

internal import ContentBlocker
public import ContentRuleList
import Foundation
internal import PCRE2Oracle
public import RequestContext
import Synchronization
public import Corpus
public import Engines

/// Which part of a request set to run: request `i` (0-based) belongs to shard `index` of `count`
/// when `i % count == index - 1`. Shards of one set partition it, so their counts add up.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    public var index: Int
    public var count: Int
    public init(index: Int, count: Int) {
        precondition(count >= 1 && (1...count).contains(index))
        self.index = index
        self.count = count
    }
    public static let whole = Shard(index: 1, count: 1)
    public func contains(_ position: Int) -> Bool { position % count == index - 1 }
    public var description: String { "\(index)/\(count)" }
}

/// A mismatch reduced to what shows it.
public struct Reproduction: Sendable, Codable {
    public var row: Int
    public var url: String
    public var mainDocumentURL: String
    public var frameURL: String
    public var resourceType: String
    /// The reduced rule list (JSON), and how many rules it had before reduction.
    public var rules: String
    public var rulesBeforeReduction: Int
    public var engine: String
    public var oracle: String
}

/// One rule list against one request set.
public struct ConformanceResult: Sendable, Codable {
    public var list: String
    public var requestSet: String
    public var shard: String
    public var rules: Int
    public var requests: Int
    public var requestsWithActions: Int
    public var mismatches: Int
    public var oracleErrors: Int
    /// Oracle work: url-filters PCRE2 was asked about, rules skipped by the literal prefilter,
    /// matches answered by pcre2_dfa_match after a backtracking limit.
    public var oracleTries: Int
    public var prefilterSkips: Int
    public var dfaFallbacks: Int
    /// Sampled matches where PCRE2's JIT and interpreter disagreed (a PCRE2 problem, not ours).
    public var pcre2JITDisagreements: Int
    /// Matching time for this set (both sides, all workers); the list's one-time costs beside it.
    public var seconds: Double
    public var engineCompileSeconds = 0.0
    public var oracleBuildSeconds = 0.0
    /// The Safari release the list was read as, when not the newest (`conform --safari`).
    public var safari: String?
    public var reproductions: [Reproduction]
    public var firstOracleError: String?
    /// The oracle's answer to every request of the set, in order, when the run covered the whole
    /// set without an oracle error: handed to a `BenchmarkRunner` so the benchmarks need not ask
    /// the oracle again. Not part of the JSON.
    package var oracleAnswers: [RequestAnswer]?

    public var passed: Bool { mismatches == 0 && oracleErrors == 0 }

    enum CodingKeys: String, CodingKey {
        case list, requestSet, shard, rules, requests, requestsWithActions, mismatches, oracleErrors, oracleTries, prefilterSkips
        case dfaFallbacks, pcre2JITDisagreements, seconds, engineCompileSeconds, oracleBuildSeconds, safari, reproductions, firstOracleError
    }
}

public struct ConformanceRun: Sendable {
    public var engine: ConformanceEngine = .blockBench
    public var shard: Shard = .whole
    public var workers = 2
    /// Mismatches reduced and reported in full; the rest are counted.
    public var reproductions = 3
    public var usesPrefilter = true
    /// The Safari release the lists are read as (SafariProfile.swift).
    public var profile = SafariProfile.newest
    /// Called now and then with (requests done, requests in all).
    public var progress: (@Sendable (_ requestSet: String, _ done: Int, _ total: Int) -> Void)?

    public init() {}

    /// Runs `list` (its JSON text, for reproductions) against `requests`.
    public func run(listName: String, json: [UInt8], list: RuleList, requests: RequestSet) throws -> ConformanceResult {
        try run(listName: listName, json: json, list: list, requestSets: [requests])[0]
    }

    /// Runs `list` against every set: the engine compiles the list once and the oracle prepares it
    /// once. The workers share the oracle's compiled patterns (PCRE2 allows a compiled pattern and
    /// its JIT code to be used by several threads at once) and each has its own evaluator and match
    /// data (which PCRE2 does not allow to be shared). `onResult` hears of each set as soon as it is
    /// done.
    public func run(
        listName: String, json: [UInt8], list: RuleList, requestSets: [RequestSet], onResult: (ConformanceResult) -> Void = { _ in }
    ) throws -> [ConformanceResult] {
        let compileStarted = ContinuousClock.now
        let makeMatcher = try engine.compile(list)
        let engineSeconds = (ContinuousClock.now - compileStarted).seconds
        let oracleStarted = ContinuousClock.now
        let workers = max(1, workers)
        let oracleList = try ReferenceRuleList(list)
        let oracleSeconds = (ContinuousClock.now - oracleStarted).seconds
        var results: [ConformanceResult] = []
        for set in requestSets {
            var result = try run(list: list, json: json, requests: set, makeMatcher: makeMatcher, oracleList: oracleList, workers: workers)
            result.list = listName
            result.engineCompileSeconds = engineSeconds
            result.oracleBuildSeconds = oracleSeconds
            result.safari = profile == .newest ? nil : profile.version
            onResult(result)
            results.append(result)
        }
        return results
    }

    /// One set: the shard's requests answered by both sides on every worker, then the first
    /// mismatches reduced, and the oracle's answers kept in request order for the benchmarks.
    private func run(
        list: RuleList, json: [UInt8], requests: RequestSet, makeMatcher: @Sendable () -> (Request) -> MatchOutcome,
        oracleList: ReferenceRuleList, workers: Int
    ) throws -> ConformanceResult {
        let started = ContinuousClock.now
        let selected = requests.requests.enumerated().filter { shard.contains($0.offset) }.map(\.element)
        let all = answer(selected, setName: requests.name, makeMatcher: makeMatcher, oracleList: oracleList, workers: workers)
        let mismatched = all.flatMap(\.mismatched).sorted { $0.0.row < $1.0.row }.prefix(self.reproductions)
        var reproductions: [Reproduction] = []
        if !mismatched.isEmpty {
            let sources = RuleSources(json: json)
            for (item, ours, reference) in mismatched {
                reproductions.append(reduce(item, list: list, ours: ours, reference: reference, sources: sources))
            }
        }
        var result = ConformanceResult(
            list: "", requestSet: requests.name, shard: shard.description, rules: list.rules.count, requests: selected.count,
            requestsWithActions: all.reduce(0) { $0 + $1.withActions }, mismatches: all.reduce(0) { $0 + $1.mismatches },
            oracleErrors: all.reduce(0) { $0 + $1.oracleErrors }, oracleTries: all.reduce(0) { $0 + $1.tries },
            prefilterSkips: all.reduce(0) { $0 + $1.skips }, dfaFallbacks: all.reduce(0) { $0 + $1.fallbacks },
            pcre2JITDisagreements: all.reduce(0) { $0 + $1.jitDisagreements },
            seconds: (ContinuousClock.now - started).seconds, reproductions: reproductions,
            firstOracleError: all.compactMap(\.firstOracleError).first)
        if selected.count == requests.requests.count {
            result.oracleAnswers = Self.oracleAnswersInOrder(all, count: selected.count)
        }
        return result
    }

    /// What one worker saw: its requests' counts, its first mismatches, the oracle's work, and
    /// the oracle's answers by position.
    private struct WorkerResult: Sendable {
        var withActions = 0
        var mismatched: [(CorpusRequest, MatchOutcome, MatchOutcome)] = []
        var mismatches = 0
        var oracleErrors = 0
        var firstOracleError: String?
        var tries = 0
        var skips = 0
        var fallbacks = 0
        var jitDisagreements = 0
        var answers: [(Int, RequestAnswer)] = []
    }

    /// `selected` answered by the engine and the oracle on `workers` threads, worker `w` taking
    /// every `workers`-th request from `w`; each worker keeps its first `reproductions` mismatches.
    private func answer(
        _ selected: [CorpusRequest], setName: String, makeMatcher: @Sendable () -> (Request) -> MatchOutcome, oracleList: ReferenceRuleList,
        workers: Int
    ) -> [WorkerResult] {
        let results = Mutex<[WorkerResult]>([])
        let done = Atomic<Int>(0)
        let keep = reproductions
        let usesPrefilter = self.usesPrefilter
        let progress = self.progress
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var result = WorkerResult()
            let match = makeMatcher()
            let oracle = ReferenceEvaluator(oracleList, usesPrefilter: usesPrefilter)
            var position = worker
            while position < selected.count {
                let item = selected[position]
                let ours = match(item.request)
                do {
                    let reference = try oracle.outcome(for: item.request)
                    result.answers.append((position, RequestAnswer(reference)))
                    if !reference.actions.isEmpty { result.withActions += 1 }
                    if ours != reference {
                        result.mismatches += 1
                        if result.mismatched.count < keep { result.mismatched.append((item, ours, reference)) }
                    }
                } catch {
                    result.oracleErrors += 1
                    if result.firstOracleError == nil { result.firstOracleError = "row \(item.row): \(error)" }
                }
                position += workers
                let count = done.wrappingAdd(1, ordering: .relaxed).newValue
                if count % 256 == 0 { progress?(setName, count, selected.count) }
            }
            result.tries = oracle.urlFiltersTried
            result.skips = oracle.skippedByPrefilter
            result.fallbacks = oracle.dfaFallbacks
            result.jitDisagreements = oracle.jitDisagreements
            results.withLock { $0.append(result) }
        }
        progress?(setName, selected.count, selected.count)
        return results.withLock { $0 }
    }

    /// The oracle's answer to each of `count` requests in order, when every worker answered
    /// without an oracle error; nil otherwise.
    private static func oracleAnswersInOrder(_ all: [WorkerResult], count: Int) -> [RequestAnswer]? {
        guard all.allSatisfy({ $0.oracleErrors == 0 }) else { return nil }
        var ordered = [RequestAnswer?](repeating: nil, count: count)
        for (position, answer) in all.flatMap(\.answers) { ordered[position] = answer }
        let answers = ordered.compactMap { $0 }
        return answers.count == count ? answers : nil
    }

    // MARK: Reduction

    /// Whether `rules` (a sub-list) still makes the engine and the oracle disagree on `request`.
    func disagrees(_ rules: [Rule], on request: Request) -> Bool {
        guard !rules.isEmpty else { return false }
        let list = RuleList(rules: rules)
        guard let makeMatcher = try? engine.compile(list), let oracleList = try? ReferenceRuleList(list) else { return false }
        let ours = makeMatcher()(request)
        guard let reference = try? ReferenceEvaluator(oracleList).outcome(for: request) else { return false }
        return ours != reference
    }

    /// Drops rules while the mismatch persists: first to the rules either side says match (with
    /// the ignore rules, which act without matching themselves in the outcome), then chunk by chunk
    /// down to single rules.
    func reduce(_ item: CorpusRequest, list: RuleList, ours: MatchOutcome, reference: MatchOutcome, sources: RuleSources) -> Reproduction {
        let request = item.request
        let matched = Set(ours.matchingRules + reference.matchingRules)
        var current = list.rules
        let starts: [[Rule]] = [
            list.rules.filter { matched.contains($0.index) },
            list.rules.filter {
                matched.contains($0.index) || $0.action == .ignorePreviousRules || $0.action == .ignoreFollowingRules
            },
        ]
        for start in starts where start.count < current.count && disagrees(start, on: request) {
            current = start
            break
        }
        var chunk = max(1, current.count / 2)
        while current.count > 1 {
            var removedAny = false
            var offset = 0
            while offset < current.count && current.count > 1 {
                var candidate = current
                candidate.removeSubrange(offset..<min(current.count, offset + chunk))
                if disagrees(candidate, on: request) {
                    current = candidate
                    removedAny = true
                } else {
                    offset += chunk
                }
            }
            if chunk == 1 && !removedAny { break }
            if !removedAny { chunk = max(1, chunk / 2) }
        }
        let reducedList = RuleList(rules: current)
        let finalOurs = (try? engine.compile(reducedList)).map { $0()(request) } ?? ours
        let finalReference = (try? ReferenceRuleList(reducedList)).flatMap { try? ReferenceEvaluator($0).outcome(for: request) } ?? reference
        return Reproduction(
            row: item.row, url: request.url.string, mainDocumentURL: request.mainDocumentURL.string, frameURL: request.frameURL.string,
            resourceType: ResourceTypes.requestNames.first { $0.type == request.resourceType }?.name ?? "?",
            rules: sources.json(for: current), rulesBeforeReduction: list.rules.count,
            engine: Self.describe(finalOurs), oracle: Self.describe(finalReference))
    }

    /// An outcome in one line: `[block, css-display-none ".a,.b"] rules [3, 17] style sheet yes`.
    public static func describe(_ outcome: MatchOutcome) -> String {
        let actions = outcome.actions.map { action -> String in
            switch action {
            case .cssDisplayNone(let selector): "css-display-none \"\(selector)\""
            case .notify(let notification): "notify \"\(notification)\""
            default: action.typeName
            }
        }
        return "[\(actions.joined(separator: ", "))] rules \(outcome.matchingRules.map(\.rawValue)) style sheet "
            + (outcome.appliesGlobalStyleSheet ? "yes" : "no")
    }
}

/// The JSON text of each rule of a list, for reproductions.
struct RuleSources {
    let elements: [Any]

    init(json: [UInt8]) {
        elements = (try? JSONSerialization.jsonObject(with: Data(json), options: [.fragmentsAllowed])) as? [Any] ?? []
    }

    func json(for rules: [Rule]) -> String {
        let texts = rules.map { rule -> String in
            guard rule.index.rawValue < elements.count,
                let data = try? JSONSerialization.data(withJSONObject: elements[rule.index.rawValue], options: [.sortedKeys, .withoutEscapingSlashes])
            else { return "{\"rule\": \(rule.index.rawValue)}" }
            return String(decoding: data, as: UTF8.self)
        }
        return "[" + texts.joined(separator: ",\n ") + "]"
    }
}
