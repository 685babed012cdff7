// ConformanceEngine.swift — Engines
//
// The engine under test as conformance sees it (Conformance): a name, and a compile that makes one
// matcher per worker. BlockBench as a browser runs it is `blockBench`; the benchmarks' engines
// hand theirs over (`CompiledListEngine.conformanceEngine`), and tests hand in broken ones.
// Tested by ConformanceTests/ConformanceTests.swift.

internal import ContentBlocker
public import ContentRuleList
public import RequestContext

/// The engine under test: compiles a rule list into something that answers requests.
public struct ConformanceEngine: Sendable {
    public var name: String
    /// Compiles; the result makes one matcher per worker thread.
    public var compile: @Sendable (RuleList) throws -> @Sendable () -> (Request) -> MatchOutcome

    public init(name: String, compile: @escaping @Sendable (RuleList) throws -> @Sendable () -> (Request) -> MatchOutcome) {
        self.name = name
        self.compile = compile
    }

    /// BlockBench as a browser runs it: compiled, written to bytes, loaded (validated), evaluated.
    public static let blockBench = ConformanceEngine(name: "blockbench") { list in
        let (compiled, _) = try RuleListCompiler.compile(list)
        let loaded = try CompiledRuleList(validating: compiled.serialized())
        return {
            let evaluator = Evaluator(loaded)
            return { evaluator.outcome(for: $0) }
        }
    }
}
