// Finding.swift — Fuzzing
//
// What a level found: the disagreement (each side's answer and the case that shows it, shrunk),
// where it came from (seed, level, case number: `blockbench fuzz --seed S --level L --case I`
// replays it), and how much shrinking took away.
// Tested by FuzzingTests (FuzzerTests).

internal import ContentRuleList
internal import Corpus
public import RequestContext
public import URLFilterSyntax

public enum FuzzLevel: String, CaseIterable, Sendable, Codable {
    /// Parse status: ours against the generator's expectation, and against PCRE2 taking the translation.
    case pattern
    /// One pattern's matches: the engine's pipeline against PCRE2.
    case match
    /// A whole rule list's outcomes: the engine against the reference evaluator.
    case list
    /// Lists of `||` rules re-spelled as other converters write them (DialectCaseGenerator.swift),
    /// compared as the list level compares.
    case dialect

    /// The stream of case seeds of the level.
    var stream: UInt64 {
        switch self {
        case .pattern: 1
        case .match: 2
        case .list: 3
        case .dialect: 4
        }
    }
}

public enum Disagreement: Hashable, Sendable {
    /// Our parse status is not the one the generator's model expects.
    case status(FuzzPattern, ours: URLFilterParseStatus, expected: URLFilterParseStatus)
    /// We accept the pattern; the oracle cannot translate it or PCRE2 cannot compile the translation.
    case oracleRefuses(FuzzPattern, reason: String)
    /// We and PCRE2 disagree on whether the pattern matches every URL.
    case matchesEverything(FuzzPattern, ours: Bool, oracle: Bool)
    /// The engine and PCRE2 disagree on a subject; `stage` is the first stage of the pipeline whose
    /// answer differs from PCRE2's.
    case match(FuzzPattern, subject: [UInt8], engine: Bool, oracle: Bool, stage: EngineStage)
    /// Our rule-list parser rejects a list built valid.
    case listRejected(FuzzRuleList, reason: String)
    /// The engine does not compile a valid list for another reason than the limits.
    case engineRefuses(FuzzRuleList, reason: String)
    /// The reference evaluator fails (translation, PCRE2) on a valid list.
    case oracleFails(FuzzRuleList, FuzzRequest, reason: String)
    /// The engine and the reference evaluator give different outcomes.
    case outcome(FuzzRuleList, FuzzRequest, engine: MatchOutcome, oracle: MatchOutcome)
    /// The reference evaluator's literal prefilter changes its answer (the oracle's own fast path).
    case prefilter(FuzzRuleList, FuzzRequest, withPrefilter: MatchOutcome, without: MatchOutcome)

    /// A short name for what broke, used in file names: `match-minimize`, `status-Ok-vs-Group`.
    public var name: String {
        switch self {
        case .status(_, let ours, let expected): "status-\(ours.name)-expected-\(expected.name)"
        case .oracleRefuses: "oracle-refuses"
        case .matchesEverything: "matches-everything"
        case .match(_, _, _, _, let stage): "match-\(stage.rawValue)"
        case .listRejected: "list-rejected"
        case .engineRefuses: "engine-refuses"
        case .oracleFails: "oracle-fails"
        case .outcome: "outcome"
        case .prefilter: "oracle-prefilter"
        }
    }

    /// What shrinking minimizes.
    public var size: Int {
        switch self {
        case .status(let pattern, _, _), .oracleRefuses(let pattern, _), .matchesEverything(let pattern, _, _):
            pattern.source.utf8.count
        case .match(let pattern, let subject, _, _, _):
            pattern.source.utf8.count + subject.count
        case .listRejected(let list, _), .engineRefuses(let list, _):
            list.size
        case .oracleFails(let list, let request, _), .outcome(let list, let request, _, _), .prefilter(let list, let request, _, _):
            list.size + request.size
        }
    }

    /// The disagreement in a few lines.
    public var description: String {
        func pattern(_ pattern: FuzzPattern) -> String {
            "pattern \(Quote.text(pattern.source))\(pattern.caseSensitive ? " (case-sensitive)" : "")"
        }
        switch self {
        case .status(let fuzzPattern, let ours, let expected):
            return "\(pattern(fuzzPattern)): our status \(ours.name), expected \(expected.name)"
        case .oracleRefuses(let fuzzPattern, let reason):
            return "\(pattern(fuzzPattern)): accepted by us, refused by the oracle: \(reason)"
        case .matchesEverything(let fuzzPattern, let ours, let oracle):
            return "\(pattern(fuzzPattern)): matches everything: ours \(ours), PCRE2 \(oracle)"
        case .match(let fuzzPattern, let subject, let engine, let oracle, let stage):
            return "\(pattern(fuzzPattern)) on \(Quote.bytes(subject)): engine \(engine ? "matches" : "does not match"), PCRE2 \(oracle ? "matches" : "does not match") (first wrong stage: \(stage.rawValue))"
        case .listRejected(let list, let reason):
            return "rules \(list.json)\n  rejected by our parser: \(reason)"
        case .engineRefuses(let list, let reason):
            return "rules \(list.json)\n  not compiled by the engine: \(reason)"
        case .oracleFails(let list, let request, let reason):
            return "rules \(list.json)\n  \(Self.describe(request))\n  oracle error: \(reason)"
        case .outcome(let list, let request, let engine, let oracle):
            return "rules \(list.json)\n  \(Self.describe(request))\n  engine: \(OutcomeText.describe(engine))\n  oracle: \(OutcomeText.describe(oracle))"
        case .prefilter(let list, let request, let with, let without):
            return "rules \(list.json)\n  \(Self.describe(request))\n  oracle with its prefilter: \(OutcomeText.describe(with))\n  oracle trying every rule:  \(OutcomeText.describe(without))"
        }
    }

    static func describe(_ request: FuzzRequest) -> String {
        "request \(request.resourceType) \(Quote.text(request.url)), page \(Quote.text(request.mainDocumentURL)), frame \(Quote.text(request.frameURL))"
            + (request.isMainFrameContext ? ", main frame" : "") + (request.method.map { ", \($0)" } ?? "")
    }
}

/// A disagreement, shrunk, with where it came from.
public struct Finding: Sendable {
    public var level: FuzzLevel
    public var seed: UInt64
    public var caseIndex: Int
    public var disagreement: Disagreement
    /// `Disagreement.size` before shrinking.
    public var originalSize: Int

    public init(level: FuzzLevel, seed: UInt64, caseIndex: Int, disagreement: Disagreement, originalSize: Int) {
        self.level = level
        self.seed = seed
        self.caseIndex = caseIndex
        self.disagreement = disagreement
        self.originalSize = originalSize
    }

    /// The command line that replays the case.
    public var replay: String { "blockbench fuzz --seed \(seed) --level \(level.rawValue) --case \(caseIndex)" }
}
