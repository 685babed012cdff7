// BenchSuite.swift — Benchmarks
//
// The benchmarks one command runs, in order, through one runner (so a list compiled or an oracle
// answer computed for one benchmark serves the next).
// Tested by GateTests (GateTests: the main job runs every model through it).

public struct BenchSuite {
    public let runner: BenchmarkRunner
    public var definitions: [BenchmarkDefinition]
    public var progress: ((String) -> Void)? {
        didSet { runner.progress = progress }
    }

    public init(runner: BenchmarkRunner, definitions: [BenchmarkDefinition]) {
        self.runner = runner
        self.definitions = definitions
    }

    /// Runs every definition; `onResult` hears of each as soon as it is done.
    public func run(onResult: (BenchmarkResult) -> Void = { _ in }) throws -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        for (index, definition) in definitions.enumerated() {
            progress?("[\(index + 1)/\(definitions.count)] \(definition.name)")
            let result = try runner.run(definition)
            progress?("")
            onResult(result)
            results.append(result)
        }
        return results
    }
}
