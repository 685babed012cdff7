// CaseRunner.swift — Fuzzing
//
// One case of a level, generated from its seed, compared, and (when the two sides disagree)
// shrunk to a small case that still shows the same disagreement:
//  - pattern: a pattern (a third carrying a defect); our status against the model's expectation;
//    when we accept it, the oracle must translate it, PCRE2 must compile the translation, and both
//    must agree on whether it matches everything;
//  - match: a pattern inside the subset and a few subjects walked from it (a fiftieth of the
//    patterns blow the DFA up instead and must end in the typed limit error); every stage of the
//    engine's pipeline against PCRE2 on every subject;
//  - list: a rule list and a few requests aimed at it; the engine (compiled, serialized, loaded)
//    against the reference evaluator trying every rule, and the evaluator's literal prefilter
//    against the same evaluator without it;
//  - dialect: a list of `||` rules re-spelled in random dialects and requests aimed at their
//    domains (DialectCaseGenerator.swift), compared as a list.
// Tested by FuzzingTests.

public import Automata
internal import ContentBlocker
internal import ContentRuleList
internal import Corpus
internal import PCRE2Oracle
internal import RequestContext
internal import URLFilterSyntax

/// Counts of one level.
public struct LevelTally: Sendable, Codable, Equatable {
    /// Cases generated and compared (patterns at the pattern and match levels, lists at the list level).
    public var cases = 0
    /// Comparisons: subjects at the match level, requests at the list level, patterns at the pattern level.
    public var checks = 0
    /// Patterns (or lists) whose automaton hit the limits: the typed error, counted apart.
    public var limits = 0
    /// Patterns we accept and reject (pattern level); patterns matching everything.
    public var accepted = 0
    public var rejected = 0
    public var matchesEverything = 0
    /// Cases whose two sides disagreed (before shrinking and deduplication).
    public var disagreements = 0

    public init() {}

    public static func += (total: inout LevelTally, other: LevelTally) {
        total.cases += other.cases
        total.checks += other.checks
        total.limits += other.limits
        total.accepted += other.accepted
        total.rejected += other.rejected
        total.matchesEverything += other.matchesEverything
        total.disagreements += other.disagreements
    }
}

/// A case's result.
public struct CaseResult: Sendable {
    public var tally = LevelTally()
    public var disagreement: Disagreement?
    /// The case as generated, for `--case`.
    public var text = ""
}

public struct CaseRunner: Sendable {
    public var patternEngine: any PatternPipeline = PatternEngine()
    public var listEngine = ListEngine.blockBench
    public var shrinker = Shrinker()
    public var statusGenerator = PatternGenerator(defectPercent: 35)
    public var matchGenerator = PatternGenerator()
    public var subjects = SubjectGenerator()
    public var lists = RuleListGenerator()
    public var dialects = DialectCaseGenerator()
    public var subjectsPerPattern = 8
    public var requestsPerList = 6
    /// Blow-up patterns per thousand at the match level.
    public var blowUpPerMille = 20

    public init() {}

    /// Case `index` of `level` under `seed`.
    public func run(_ level: FuzzLevel, seed: UInt64, index: Int) -> CaseResult {
        var random = FuzzRandom(seed: FuzzRandom.caseSeed(seed, stream: level.stream, index: UInt64(index)))
        return run(level, &random)
    }

    /// A case of `level` drawn from `random` (a seed's stream or libFuzzer's bytes).
    public func run(_ level: FuzzLevel, _ random: inout FuzzRandom) -> CaseResult {
        var result = CaseResult()
        result.tally.cases = 1
        switch level {
        case .pattern:
            let pattern = statusGenerator.pattern(&random)
            result.text = "pattern \(Quote.text(pattern.source))\(pattern.caseSensitive ? " (case-sensitive)" : ""), expected \(pattern.expectedStatus.name)"
            result.disagreement = checkStatus(pattern, &result.tally)
        case .match:
            let pattern = random.below(1000) < blowUpPerMille ? matchGenerator.blowUp(&random) : matchGenerator.valid(&random)
            let subjects = subjects.subjects(for: pattern, count: subjectsPerPattern, &random)
            result.text = "pattern \(Quote.text(pattern.source))\(pattern.caseSensitive ? " (case-sensitive)" : "") on "
                + subjects.map(Quote.bytes).joined(separator: ", ")
            result.disagreement = checkMatch(pattern, subjects, &result.tally)
        case .list:
            let list = lists.list(&random)
            let requests = (0..<requestsPerList).map { _ in lists.request(for: list, &random) }
            result.text = "rules \(list.json)\n" + requests.map { "  " + Disagreement.describe($0) }.joined(separator: "\n")
            result.disagreement = checkList(list, requests, &result.tally)
        case .dialect:
            let (list, requests) = dialects.dialectCase(&random)
            result.text = "rules \(list.json)\n" + requests.map { "  " + Disagreement.describe($0) }.joined(separator: "\n")
            // Most cases with a table for any prefix, however few its patterns (the host contexts'
            // lookup, which a real list's thousands reach), the others as a real compile sorts them.
            var limits = patternEngine.limits
            if random.chance(3, in: 4) { limits.minimumPatternsPerHostContext = 1 }
            result.text += limits.minimumPatternsPerHostContext == 1 ? "\n  (host contexts of any size)" : ""
            result.disagreement = checkList(list, requests, &result.tally, limits: limits)
        }
        if result.disagreement != nil { result.tally.disagreements = 1 }
        return result
    }

    // MARK: Pattern level

    /// Our status against the model's; for an accepted pattern, the oracle's view of it.
    public func checkStatus(_ pattern: FuzzPattern, _ tally: inout LevelTally) -> Disagreement? {
        tally.checks += 1
        let source = pattern.source
        let expected = pattern.expectedStatus
        let ours = URLFilterParser.status(of: source, isCaseSensitive: pattern.caseSensitive)
        if ours.isAccepted { tally.accepted += 1 } else { tally.rejected += 1 }
        if ours == .matchesEverything { tally.matchesEverything += 1 }
        if ours != expected { return .status(pattern, ours: ours, expected: expected) }
        guard ours.isAccepted else { return nil }
        return checkOracle(pattern, ours: ours).disagreement
    }

    /// The oracle's pattern, or why it disagrees with our accepting `pattern`.
    func checkOracle(_ pattern: FuzzPattern, source: String? = nil, ours: URLFilterParseStatus) -> (oracle: PatternOracle?, disagreement: Disagreement?) {
        let oracle: PatternOracle
        do {
            oracle = try PatternOracle(source: source ?? pattern.source, caseSensitive: pattern.caseSensitive)
        } catch {
            return (nil, .oracleRefuses(pattern, reason: error.description))
        }
        if oracle.matchesEverything != (ours == .matchesEverything) {
            return (nil, .matchesEverything(pattern, ours: ours == .matchesEverything, oracle: oracle.matchesEverything))
        }
        return (oracle, nil)
    }

    // MARK: Match level

    /// Every stage of the engine against PCRE2 on every subject.
    public func checkMatch(_ pattern: FuzzPattern, _ subjects: [[UInt8]], _ tally: inout LevelTally) -> Disagreement? {
        let filter: URLFilter
        switch URLFilterParser.parse(pattern.source, isCaseSensitive: pattern.caseSensitive) {
        case .success(let parsed): filter = parsed
        case .failure(let error):
            return .status(pattern, ours: error.status, expected: pattern.expectedStatus)
        }
        if filter.status != pattern.expectedStatus { return .status(pattern, ours: filter.status, expected: pattern.expectedStatus) }
        let (oracle, disagreement) = checkOracle(pattern, ours: filter.status)
        guard let oracle else { return disagreement }
        if filter.matchesEverything { tally.matchesEverything += 1 }
        let built: BuiltPattern
        do {
            built = try patternEngine.build(filter)
        } catch {
            tally.limits += 1
            return nil
        }
        for subject in subjects {
            tally.checks += 1
            let expected: Bool
            do {
                expected = try oracle.matches(subject)
            } catch {
                return .oracleRefuses(pattern, reason: "pcre2 match: \(error.message)")
            }
            // The bytecode's answer is the engine's; the earlier stages name the culprit.
            guard built.matches(subject) != expected else { continue }
            let answers = built.answers(subject)
            let stage = EngineStage.allCases.first { answers[$0] != expected } ?? .bytecode
            return .match(pattern, subject: subject, engine: built.matches(subject), oracle: expected, stage: stage)
        }
        return nil
    }

    // MARK: List level

    /// The engine against the reference evaluator (trying every rule), and the evaluator's
    /// prefilter against itself, on every request.
    public func checkList(
        _ fuzzList: FuzzRuleList, _ requests: [FuzzRequest], _ tally: inout LevelTally, limits: AutomataLimits? = nil
    ) -> Disagreement? {
        let list: RuleList
        switch RuleListParser.parse(fuzzList.json) {
        case .success(let parsed): list = parsed
        case .failure(let error): return .listRejected(fuzzList, reason: "\(error)")
        }
        let engine: (Request) -> MatchOutcome
        do {
            engine = try listEngine.compile(list, limits ?? patternEngine.limits)
        } catch CompileError.patternTooComplex, CompileError.listTooComplex {
            tally.limits += 1
            return nil
        } catch {
            return .engineRefuses(fuzzList, reason: "\(error)")
        }
        let reference: ReferenceRuleList
        do {
            reference = try ReferenceRuleList(list, jit: false)
        } catch {
            return .oracleFails(fuzzList, requests.first ?? FuzzRequest(url: "", mainDocumentURL: "", frameURL: ""), reason: "\(error)")
        }
        let full = ReferenceEvaluator(reference, usesPrefilter: false, matcher: .interpreter, samplesInterpreter: false)
        let fast = ReferenceEvaluator(reference, usesPrefilter: true, matcher: .interpreter, samplesInterpreter: false)
        for fuzzRequest in requests {
            tally.checks += 1
            let request = fuzzRequest.request
            let expected: MatchOutcome
            let prefiltered: MatchOutcome
            do {
                expected = try full.outcome(for: request)
                prefiltered = try fast.outcome(for: request)
            } catch {
                return .oracleFails(fuzzList, fuzzRequest, reason: "\(error)")
            }
            let ours = engine(request)
            if ours != expected { return .outcome(fuzzList, fuzzRequest, engine: ours, oracle: expected) }
            if prefiltered != expected { return .prefilter(fuzzList, fuzzRequest, withPrefilter: prefiltered, without: expected) }
        }
        return nil
    }

    // MARK: Shrinking

    /// The smallest case the shrinker finds that shows the same disagreement.
    public func shrink(_ disagreement: Disagreement) -> Disagreement {
        var scratch = LevelTally()
        switch disagreement {
        case .status(let pattern, let ours, let expected):
            let smallest = shrinker.shrink(pattern, candidates: Shrinker.candidates) {
                if case .status(_, ours, expected) = checkStatus($0, &scratch) { true } else { false }
            }
            return checkStatus(smallest, &scratch) ?? disagreement
        case .oracleRefuses(let pattern, let reason):
            let stage = reason.prefix { $0 != ":" }
            let smallest = shrinker.shrink(pattern, candidates: Shrinker.candidates) {
                if case .oracleRefuses(_, let other) = checkStatus($0, &scratch), other.hasPrefix(stage) { true } else { false }
            }
            return checkStatus(smallest, &scratch) ?? disagreement
        case .matchesEverything(let pattern, let ours, let oracle):
            let smallest = shrinker.shrink(pattern, candidates: Shrinker.candidates) {
                if case .matchesEverything(_, ours, oracle) = checkStatus($0, &scratch) { true } else { false }
            }
            return checkStatus(smallest, &scratch) ?? disagreement
        case .match(let pattern, let subject, let engine, let oracle, _):
            func same(_ candidate: (pattern: FuzzPattern, subject: [UInt8])) -> Bool {
                if case .match(_, _, engine, oracle, _) = checkMatch(candidate.pattern, [candidate.subject], &scratch) { true } else { false }
            }
            let smallest = shrinker.shrink((pattern: pattern, subject: subject), candidates: { current in
                Shrinker.candidates(current.subject).map { (current.pattern, $0) } + Shrinker.candidates(current.pattern).map { ($0, current.subject) }
            }, stillFails: same)
            return checkMatch(smallest.pattern, [smallest.subject], &scratch) ?? disagreement
        case .listRejected(let list, _):
            let smallest = shrinker.shrink(list, candidates: Shrinker.candidates) {
                if case .listRejected = checkList($0, [], &scratch) { true } else { false }
            }
            return checkList(smallest, [], &scratch) ?? disagreement
        case .engineRefuses(let list, _):
            let smallest = shrinker.shrink(list, candidates: Shrinker.candidates) {
                if case .engineRefuses = checkList($0, [], &scratch) { true } else { false }
            }
            return checkList(smallest, [], &scratch) ?? disagreement
        case .oracleFails(let list, let request, _), .outcome(let list, let request, _, _), .prefilter(let list, let request, _, _):
            func same(_ candidate: (list: FuzzRuleList, request: FuzzRequest)) -> Bool {
                switch (checkList(candidate.list, [candidate.request], &scratch), disagreement) {
                case (.oracleFails?, .oracleFails), (.outcome?, .outcome), (.prefilter?, .prefilter): true
                default: false
                }
            }
            let smallest = shrinker.shrink((list: list, request: request), candidates: { current in
                Shrinker.candidates(current.list).map { ($0, current.request) } + Shrinker.candidates(current.request).map { (current.list, $0) }
            }, stillFails: same)
            return checkList(smallest.list, [smallest.request], &scratch) ?? disagreement
        }
    }
}
