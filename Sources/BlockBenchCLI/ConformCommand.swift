// `blockbench conform --vectors FILE`: runs a WebKit vector file (the format of
// Corpora/conformance/webkit-vectors.json) and prints a line per failing vector, a line per kind
// and last `N passed, M failed, K skipped`. Request vectors run through the real path: the rule
// list is compiled, its file written to bytes and loaded back (validated), and the evaluator answers
// the request from that file.

import ArgumentParser
import ContentBlocker
import ContentRuleList
import Foundation
import RequestContext
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
            public struct RequestFields: Decodable, Sendable {
                public var url: String
                public var mainDocumentURL: String
                public var frameURL: String
                public var resourceType: String
                public var mainFrameContext: Bool?
                public var requestMethod: String?
            }
            public var rules: String
            public var request: RequestFields
            public var expectedActions: [String]
            /// 1 when the list's global style sheet applies (the default), 0 when it does not.
            public var expectedStylesheetLists: Int?
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

        kindPassed = 0
        kindFailed = 0
        for test in file.requestVectorTests {
            for vector in test.vectors {
                let got: String
                switch answer(vector) {
                case .success(let answer): got = answer
                case .failure(let problem): got = "error: \(problem)"
                }
                let expected = expectedAnswer(vector)
                if got == expected {
                    kindPassed += 1
                } else {
                    kindFailed += 1
                    outcome.lines.append(
                        "FAIL request \(test.test): rules \(quoted(vector.rules)), url \(quoted(vector.request.url)): expected \(expected), got \(got)")
                }
            }
        }
        outcome.lines.append("request vectors (compiled to bytecode, saved, loaded and run): \(kindPassed) passed, \(kindFailed) failed")
        outcome.passed += kindPassed
        outcome.failed += kindFailed

        outcome.lines.append("\(outcome.passed) passed, \(outcome.failed) failed, \(outcome.skipped) skipped")
        return outcome
    }
}

extension VectorRunner {
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// `[actions] stylesheets N`, the form both sides of a request vector are compared in.
    static func expectedAnswer(_ vector: VectorFile.RequestVectorTest.Vector) -> String {
        "[\(vector.expectedActions.joined(separator: ", "))] stylesheets \(vector.expectedStylesheetLists ?? 1)"
    }

    static func answer(_ vector: VectorFile.RequestVectorTest.Vector) -> Result<String, Problem> {
        let compiled: CompiledRuleList
        do {
            let (list, _) = try RuleListCompiler.compile(json: Array(vector.rules.utf8))
            compiled = try CompiledRuleList(validating: list.serialized())
        } catch {
            return .failure(Problem(description: "\(error)"))
        }
        guard let request = request(vector.request) else {
            return .failure(Problem(description: "unknown resource type or method in \(vector.request)"))
        }
        let outcome = compiled.outcome(for: request)
        let names = outcome.actions.map(\.typeName)
        return .success("[\(names.joined(separator: ", "))] stylesheets \(outcome.appliesGlobalStyleSheet ? 1 : 0)")
    }

    static func request(_ fields: VectorFile.RequestVectorTest.Vector.RequestFields) -> Request? {
        guard let type = ResourceTypes.requestNames.first(where: { $0.name == fields.resourceType })?.type else { return nil }
        var method: RequestMethod?
        if let name = fields.requestMethod {
            guard let known = RequestMethod(rawValue: name.lowercased()) else { return nil }
            method = known
        }
        return Request(
            url: CanonicalURL(fields.url), mainDocumentURL: CanonicalURL(fields.mainDocumentURL),
            frameURL: CanonicalURL(fields.frameURL), resourceType: type, isMainFrameContext: fields.mainFrameContext ?? false,
            method: method)
    }
}
