// PCRE2Engine.swift — Engines
//
// PCRE2 as a benchmark engine (BenchEngines.swift), with its JIT or its interpreter: what a
// developer would write without us. Tested by BenchmarksTests (BenchTests).

internal import ContentRuleList
internal import Foundation
internal import PCRE2Oracle
internal import RequestContext

/// One PCRE2 pattern per distinct url-filter and condition, every rule tried in order: the
/// reference semantics (PCRE2Oracle) without the literal prefilter.
public final class PCRE2Engine: BenchEngine {
    public let name: String
    public let about: String
    public let unavailable: String?
    public let models: Set<BenchmarkModel> = [.compile, .match]
    let jit: Bool
    private var prepared: [String: ReferenceRuleList] = [:]

    public init(jit: Bool) {
        self.jit = jit
        name = jit ? "pcre2-jit" : "pcre2"
        about = jit
            ? "PCRE2 \(PCRE2Regex.version), one JIT-compiled pattern per rule, every rule tried on every request"
            : "PCRE2 \(PCRE2Regex.version) interpreter, one pattern per rule, every rule tried on every request"
        unavailable = jit && !PCRE2Regex.jitAvailable ? "this PCRE2 has no JIT" : nil
    }

    public func compile(_ list: BenchList) throws -> CompileRun {
        var run = CompileRun()
        let parseStarted = monotonicNanoseconds()
        let parsed: RuleList
        switch RuleListParser.parse(list.json) {
        case .success(let rules): parsed = rules
        case .failure(let error): throw BenchEngineError.listRejected(error.description)
        }
        let compileStarted = monotonicNanoseconds()
        let reference = try ReferenceRuleList(parsed, jit: jit)
        let done = monotonicNanoseconds()
        prepared[list.name] = reference
        run.phases = [
            Figure("parse", Double(compileStarted - parseStarted) / 1e9),
            Figure(jit ? "pcre2 compile + jit" : "pcre2 compile", Double(done - compileStarted) / 1e9),
        ]
        run.bytes = reference.compiledBytes
        run.sections = [Figure(jit ? "pcre2 code + jit code" : "pcre2 code", Double(reference.compiledBytes))]
        run.counters = [Figure("rules", Double(parsed.rules.count)), Figure("patterns", Double(reference.patternCount))]
        return run
    }

    public func matcher(for list: BenchList) throws -> any BenchMatcher {
        if prepared[list.name] == nil { _ = try compile(list) }
        let evaluator = ReferenceEvaluator(
            prepared[list.name]!, usesPrefilter: false, matcher: jit ? .jit : .interpreter, samplesInterpreter: false)
        return Matcher(evaluator)
    }

    final class Matcher: BenchMatcher {
        let evaluator: ReferenceEvaluator
        init(_ evaluator: ReferenceEvaluator) { self.evaluator = evaluator }
        func outcome(for request: Request) throws -> MatchOutcome { try evaluator.outcome(for: request) }
        var counters: [Figure] { [Figure("url-filters tried", Double(evaluator.urlFiltersTried))] }
    }
}
