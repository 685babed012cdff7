// FaultyEngines.swift — HarnessTestSupport: test-only faults in BlockBench, which the benchmarks
// and the gate must catch (BenchmarksTests, GateTests): BlockBenchEngine wrapped, each fault
// applied on the way out. The engine itself has no switch for them.

package import ContentBlocker
package import ContentRuleList
package import Benchmarks
package import Engines
package import RequestContext

/// BlockBench with seeded faults; without any it answers as BlockBenchEngine does. It keeps the
/// engine's name, so the runner treats it as BlockBench (own-process memory, instruction counts).
package final class FaultyEngine: CompiledListEngine {
    let base = BlockBenchEngine()
    /// A change to every outcome, in benchmarks and in conformance (a deliberately wrong engine).
    package var alteringOutcomes: (@Sendable (MatchOutcome) -> MatchOutcome)?
    /// DFAs kept as the subset construction made them: a bigger file with the same answers.
    package var minimizesDFAs = true
    /// Every benchmark answer computed this many times, the work counted once: an interpreter that
    /// does the same steps, slower.
    package var slowdown = 1

    package init(
        alteringOutcomes: (@Sendable (MatchOutcome) -> MatchOutcome)? = nil, minimizingDFAs: Bool = true, slowdown: Int = 1
    ) {
        self.alteringOutcomes = alteringOutcomes
        minimizesDFAs = minimizingDFAs
        self.slowdown = max(1, slowdown)
    }

    package var name: String { base.name }
    package var about: String { base.about + " (with test faults)" }
    package var unavailable: String? { base.unavailable }
    package var models: Set<BenchmarkDefinition.Model> { base.models }

    package func compile(_ list: BenchList) throws -> CompileRun {
        guard !minimizesDFAs else { return try base.compile(list) }
        let (compiled, report) = try RuleListCompiler.compile(json: list.json, limits: base.limits, minimizingDFAs: false)
        return base.keep(compiled, report: report, as: list.name)
    }

    package func loadSeconds(_ list: BenchList) throws -> Double? {
        if base.compiledList(named: list.name) == nil { _ = try compile(list) }
        return try base.loadSeconds(list)
    }

    package func matcher(for list: BenchList) throws -> any BenchMatcher {
        if base.compiledList(named: list.name) == nil { _ = try compile(list) }
        let repeats = slowdown > 1 ? try base.matcher(for: list) : nil
        return Matcher(try base.matcher(for: list), altering: alteringOutcomes, repeats: repeats, times: slowdown - 1)
    }

    package func compiledList(named name: String) -> CompiledRuleList? { base.compiledList(named: name) }

    package func adopt(_ list: CompiledRuleList, as name: String) { base.adopt(list, as: name) }

    package func conformanceEngine(for list: RuleList, file: CompiledRuleList) -> ConformanceEngine {
        let real = base.conformanceEngine(for: list, file: file)
        guard let alter = alteringOutcomes else { return real }
        return ConformanceEngine(name: real.name) { candidate in
            let makeAnswerer = try real.compile(candidate)
            return {
                let answer = makeAnswerer()
                return { alter(answer($0)) }
            }
        }
    }

    final class Matcher: BenchMatcher {
        let real: any BenchMatcher
        let altering: (@Sendable (MatchOutcome) -> MatchOutcome)?
        /// A second matcher (its counters unread) that answers again, `times` times.
        let repeats: (any BenchMatcher)?
        let times: Int

        init(_ real: any BenchMatcher, altering: (@Sendable (MatchOutcome) -> MatchOutcome)?, repeats: (any BenchMatcher)?, times: Int) {
            self.real = real
            self.altering = altering
            self.repeats = repeats
            self.times = times
        }

        func outcome(for request: Request) throws -> MatchOutcome {
            let outcome = try real.outcome(for: request)
            if let repeats {
                for _ in 0..<times { withExtendedLifetime(try repeats.outcome(for: request)) {} }
            }
            return altering.map { $0(outcome) } ?? outcome
        }

        var counters: [Figure] { real.counters }
    }
}
