// `blockbench conform --vectors FILE`: runs a WebKit vector file (the format of
// Corpora/conformance/webkit-vectors.json) and prints a line per failing vector, a line per kind
// and last `N passed, M failed, K skipped`. Request vectors need the engine and are reported as
// skipped (not run) until it exists: never as passed.

import ArgumentParser
import ContentRuleList
import Foundation
import URLFilterSyntax

struct ConformCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conform",
        abstract: "Check BlockBench's answers against WebKit's: exit 0 when every vector passes, 2 when one fails.")

    @Option(help: "A vector file in the format of Corpora/conformance/webkit-vectors.json.")
    var vectors = "Corpora/conformance/webkit-vectors.json"

    func run() throws {
        let file = try VectorFile.load(vectors)
        let outcome = VectorRunner.run(file)
        for line in outcome.lines { print(line) }
        if outcome.failed > 0 { throw ExitCode(2) }
    }
}

/// The vector file.
public struct VectorFile: Decodable, Sendable {
    public struct CompilerErrorVector: Decodable, Sendable {
        public var test: String
        public var rules: String
        public var expectedError: String?
    }

    public struct ParseStatusVector: Decodable, Sendable {
        public var test: String
        public var pattern: String
        public var expectedStatus: String
    }

    public struct RequestVectorTest: Decodable, Sendable {
        public struct Vector: Decodable, Sendable {
            public var rules: String
            public var expectedActions: [String]
        }
        public var test: String
        public var vectors: [Vector]
    }

    public var requestVectorTests: [RequestVectorTest] = []
    public var compilerErrorVectors: [CompilerErrorVector] = []
    public var urlFilterParseStatusVectors: [ParseStatusVector] = []

    enum CodingKeys: String, CodingKey { case requestVectorTests, compilerErrorVectors, urlFilterParseStatusVectors }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requestVectorTests = try container.decodeIfPresent([RequestVectorTest].self, forKey: .requestVectorTests) ?? []
        compilerErrorVectors = try container.decodeIfPresent([CompilerErrorVector].self, forKey: .compilerErrorVectors) ?? []
        urlFilterParseStatusVectors = try container.decodeIfPresent([ParseStatusVector].self, forKey: .urlFilterParseStatusVectors) ?? []
    }

    public static func load(_ path: String) throws -> VectorFile {
        let bytes = try CorpusFiles.read(path)
        do {
            return try JSONDecoder().decode(VectorFile.self, from: Data(bytes))
        } catch {
            throw ValidationError("\(path) is not a vector file: \(error)")
        }
    }
}

public enum VectorRunner {
    public struct Outcome: Sendable {
        public var passed = 0
        public var failed = 0
        public var skipped = 0
        public var lines: [String] = []
    }

    public static func run(_ file: VectorFile) -> Outcome {
        var outcome = Outcome()

        var kindPassed = 0
        var kindFailed = 0
        for vector in file.compilerErrorVectors {
            let got: String?
            switch RuleListParser.parse(vector.rules) {
            case .success: got = nil
            case .failure(let error): got = error.code.name
            }
            if got == vector.expectedError {
                kindPassed += 1
            } else {
                kindFailed += 1
                outcome.lines.append("FAIL compile-error \(vector.test): rules \(quoted(vector.rules)): expected \(vector.expectedError ?? "no error"), got \(got ?? "no error")")
            }
        }
        outcome.lines.append("compile-error vectors: \(kindPassed) passed, \(kindFailed) failed")
        outcome.passed += kindPassed
        outcome.failed += kindFailed

        kindPassed = 0
        kindFailed = 0
        for vector in file.urlFilterParseStatusVectors {
            let got = URLFilterParser.status(of: vector.pattern).name
            if got == vector.expectedStatus {
                kindPassed += 1
            } else {
                kindFailed += 1
                outcome.lines.append("FAIL url-filter-parse-status \(vector.test): pattern \(quoted(vector.pattern)): expected \(vector.expectedStatus), got \(got)")
            }
        }
        outcome.lines.append("url-filter parse-status vectors: \(kindPassed) passed, \(kindFailed) failed")
        outcome.passed += kindPassed
        outcome.failed += kindFailed

        let requestVectors = file.requestVectorTests.reduce(0) { $0 + $1.vectors.count }
        outcome.skipped += requestVectors
        outcome.lines.append("request vectors: \(requestVectors) not run (they need the engine: rule list -> DFA -> bytecode, not built yet)")

        outcome.lines.append("\(outcome.passed) passed, \(outcome.failed) failed, \(outcome.skipped) skipped")
        return outcome
    }
}
