// VectorFile.swift — Harness
//
// The vector file format (Corpora/conformance/webkit-vectors.json, Corpora/regressions/*.json)
// and its runner. The format is a corpus kind of the manifest (`vectors`), so it lives with the
// corpora; the fuzzer (Fuzzing, which depends on Harness for it) writes its regressions in it and
// its tests replay them; `blockbench conform --vectors` and the main job run every kind through
// the same runner.
//
// Kinds (every key optional):
//  - `requestVectorTests[]`: `{test, vectors: [{rules (JSON text), request {url, mainDocumentURL,
//    frameURL, resourceType, [mainFrameContext], [requestMethod]}, expectedActions,
//    [expectedStylesheetLists], [expectedOutcome], [knownFailure]}]}`; with `expectedOutcome`
//    (`OutcomeText`: actions with their selectors, matching rules, style sheet) the whole outcome
//    is compared, not only the action types;
//  - `compilerErrorVectors[]`: `{test, rules | rulesBase64, expectedError, [expectedPatternStatus],
//    [sameProgramAs]}`: `expectedError` is an error name, or null = compiles; `rulesBase64` gives
//    bytes that are not UTF-8 text; `expectedPatternStatus` is the status of the url-filter that
//    makes the list JSONInvalidRegex; `sameProgramAs` is another list that WebKit compiles to the
//    same actions and bytecode (BlockBench must compile the two to the same file);
//  - `urlFilterParseStatusVectors[]`: `{test, pattern, expectedStatus, [knownFailure]}`;
//  - `urlFilterMatchVectors[]`: `{test, pattern, [caseSensitive], subject, expectedMatch,
//    [knownFailure]}`: one url-filter against one string (the URL's bytes), through the engine's
//    pipeline and through the PCRE2 oracle;
//  - `webViewVectors[]`: what a web view showed for a rule list and pages (WebView/WebViewVector.swift).
// `knownFailure` (a reason) marks a vector that fails: it is counted apart, and fails the run once
// it passes, so the mark goes with the fix.
// Tested by BlockBenchCLITests (VectorRunnerTests) and FuzzingTests (regression replay).

internal import Automata
internal import Bytecode
internal import ContentBlocker
internal import ContentRuleList
internal import Foundation
internal import PCRE2Oracle
internal import RequestContext
internal import URLFilterSyntax

/// The vector file.
public struct VectorFile: Codable, Sendable {
    public struct CompilerErrorVector: Codable, Sendable {
        public var test: String
        /// The list's text; empty when `rulesBase64` gives its bytes.
        public var rules: String
        /// The list's exact bytes, base64-encoded, for input that is not UTF-8 text.
        public var rulesBase64: String?
        public var expectedError: String?
        /// For JSONInvalidRegex: the status of the pattern WebKit logs as failing.
        public var expectedPatternStatus: String?
        /// A list WebKit compiles to the same program (actions and bytecode) as this one.
        public var sameProgramAs: String?

        public init(
            test: String, rules: String, expectedError: String?, rulesBase64: String? = nil, expectedPatternStatus: String? = nil,
            sameProgramAs: String? = nil
        ) {
            self.test = test
            self.rules = rules
            self.rulesBase64 = rulesBase64
            self.expectedError = expectedError
            self.expectedPatternStatus = expectedPatternStatus
            self.sameProgramAs = sameProgramAs
        }

        enum CodingKeys: String, CodingKey { case test, rules, rulesBase64, expectedError, expectedPatternStatus, sameProgramAs }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            test = try container.decode(String.self, forKey: .test)
            rulesBase64 = try container.decodeIfPresent(String.self, forKey: .rulesBase64)
            rules = try container.decodeIfPresent(String.self, forKey: .rules) ?? ""
            if rulesBase64 == nil && !container.contains(.rules) {
                throw DecodingError.keyNotFound(CodingKeys.rules, .init(codingPath: container.codingPath, debugDescription: "a vector needs rules or rulesBase64"))
            }
            if let rulesBase64, Data(base64Encoded: rulesBase64) == nil {
                throw DecodingError.dataCorruptedError(forKey: .rulesBase64, in: container, debugDescription: "not base64")
            }
            // Absent and null both mean "compiles".
            expectedError = try container.decodeIfPresent(String.self, forKey: .expectedError)
            expectedPatternStatus = try container.decodeIfPresent(String.self, forKey: .expectedPatternStatus)
            sameProgramAs = try container.decodeIfPresent(String.self, forKey: .sameProgramAs)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(test, forKey: .test)
            if let rulesBase64 { try container.encode(rulesBase64, forKey: .rulesBase64) } else { try container.encode(rules, forKey: .rules) }
            try container.encode(expectedError, forKey: .expectedError)
            try container.encodeIfPresent(expectedPatternStatus, forKey: .expectedPatternStatus)
            try container.encodeIfPresent(sameProgramAs, forKey: .sameProgramAs)
        }

        /// The list's bytes: `rulesBase64` decoded, or `rules` as UTF-8.
        public var bytes: [UInt8] {
            if let rulesBase64, let data = Data(base64Encoded: rulesBase64) { return Array(data) }
            return Array(rules.utf8)
        }
    }

    public struct ParseStatusVector: Codable, Sendable {
        public var test: String
        public var pattern: String
        public var expectedStatus: String
        public var knownFailure: String?

        public init(test: String, pattern: String, expectedStatus: String, knownFailure: String? = nil) {
            self.test = test
            self.pattern = pattern
            self.expectedStatus = expectedStatus
            self.knownFailure = knownFailure
        }
    }

    public struct MatchVector: Codable, Sendable {
        public var test: String
        public var pattern: String
        public var caseSensitive: Bool?
        /// The URL's bytes (ASCII 1...127), without the end-of-URL marker.
        public var subject: String
        public var expectedMatch: Bool
        public var knownFailure: String?

        public init(test: String, pattern: String, caseSensitive: Bool, subject: String, expectedMatch: Bool, knownFailure: String? = nil) {
            self.test = test
            self.pattern = pattern
            self.caseSensitive = caseSensitive ? true : nil
            self.subject = subject
            self.expectedMatch = expectedMatch
            self.knownFailure = knownFailure
        }
    }

    public struct RequestVectorTest: Codable, Sendable {
        public struct Vector: Codable, Sendable {
            public struct RequestFields: Codable, Sendable {
                public var url: String
                public var mainDocumentURL: String
                public var frameURL: String
                public var resourceType: String
                public var mainFrameContext: Bool?
                public var requestMethod: String?

                public init(
                    url: String, mainDocumentURL: String, frameURL: String, resourceType: String, mainFrameContext: Bool?,
                    requestMethod: String?
                ) {
                    self.url = url
                    self.mainDocumentURL = mainDocumentURL
                    self.frameURL = frameURL
                    self.resourceType = resourceType
                    self.mainFrameContext = mainFrameContext
                    self.requestMethod = requestMethod
                }
            }
            public var rules: String
            public var request: RequestFields
            public var expectedActions: [String]
            /// 1 when the list's global style sheet applies (the default), 0 when it does not.
            public var expectedStylesheetLists: Int?
            /// The whole outcome (`OutcomeText`); when present it is what is compared.
            public var expectedOutcome: String?
            public var knownFailure: String?

            public init(
                rules: String, request: RequestFields, expectedActions: [String], expectedStylesheetLists: Int?, expectedOutcome: String?,
                knownFailure: String?
            ) {
                self.rules = rules
                self.request = request
                self.expectedActions = expectedActions
                self.expectedStylesheetLists = expectedStylesheetLists
                self.expectedOutcome = expectedOutcome
                self.knownFailure = knownFailure
            }
        }
        public var test: String
        public var vectors: [Vector]

        public init(test: String, vectors: [Vector]) {
            self.test = test
            self.vectors = vectors
        }
    }

    public var requestVectorTests: [RequestVectorTest] = []
    public var compilerErrorVectors: [CompilerErrorVector] = []
    public var urlFilterParseStatusVectors: [ParseStatusVector] = []
    public var urlFilterMatchVectors: [MatchVector] = []
    public var webViewVectors: [WebViewVector] = []

    enum CodingKeys: String, CodingKey { case requestVectorTests, compilerErrorVectors, urlFilterParseStatusVectors, urlFilterMatchVectors, webViewVectors }

    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requestVectorTests = try container.decodeIfPresent([RequestVectorTest].self, forKey: .requestVectorTests) ?? []
        compilerErrorVectors = try container.decodeIfPresent([CompilerErrorVector].self, forKey: .compilerErrorVectors) ?? []
        urlFilterParseStatusVectors = try container.decodeIfPresent([ParseStatusVector].self, forKey: .urlFilterParseStatusVectors) ?? []
        urlFilterMatchVectors = try container.decodeIfPresent([MatchVector].self, forKey: .urlFilterMatchVectors) ?? []
        webViewVectors = try container.decodeIfPresent([WebViewVector].self, forKey: .webViewVectors) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if !requestVectorTests.isEmpty { try container.encode(requestVectorTests, forKey: .requestVectorTests) }
        if !compilerErrorVectors.isEmpty { try container.encode(compilerErrorVectors, forKey: .compilerErrorVectors) }
        if !urlFilterParseStatusVectors.isEmpty { try container.encode(urlFilterParseStatusVectors, forKey: .urlFilterParseStatusVectors) }
        if !urlFilterMatchVectors.isEmpty { try container.encode(urlFilterMatchVectors, forKey: .urlFilterMatchVectors) }
        if !webViewVectors.isEmpty { try container.encode(webViewVectors, forKey: .webViewVectors) }
    }

    public static func decode(_ bytes: [UInt8]) throws -> VectorFile {
        try JSONDecoder().decode(VectorFile.self, from: Data(bytes))
    }

    /// Reads a vector file (gzip or not). A file that is read but does not decode throws
    /// `VectorFileError.notAVectorFile`.
    public static func load(_ path: String) throws -> VectorFile {
        let bytes = try CorpusFiles.read(path)
        do {
            return try decode(bytes)
        } catch {
            throw VectorFileError.notAVectorFile(path: path, reason: "\(error)")
        }
    }

    /// The file's text: sorted keys, one level of indentation per nesting, a final newline.
    public func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// Vectors of every kind.
    public var count: Int {
        requestVectorTests.reduce(0) { $0 + $1.vectors.count } + compilerErrorVectors.count + urlFilterParseStatusVectors.count
            + urlFilterMatchVectors.count + webViewVectors.count
    }
}

public enum VectorFileError: Error, CustomStringConvertible {
    case notAVectorFile(path: String, reason: String)

    public var description: String {
        switch self {
        case .notAVectorFile(let path, let reason): "\(path) is not a vector file: \(reason)"
        }
    }
}

public enum VectorRunner {
    public struct Outcome: Sendable {
        public var passed = 0
        public var failed = 0
        public var skipped = 0
        /// Vectors marked `knownFailure` that still fail.
        public var knownFailures = 0
        public var lines: [String] = []
    }

    public static func run(_ file: VectorFile) -> Outcome {
        var outcome = Outcome()

        var kindPassed = 0
        var kindFailed = 0
        for vector in file.compilerErrorVectors {
            let got: String?
            var gotStatus: String?
            switch RuleListParser.parse(vector.bytes) {
            case .success: got = nil
            case .failure(let error):
                got = error.code.name
                gotStatus = error.patternError?.status.name
            }
            var problems: [String] = []
            if got != vector.expectedError {
                problems.append("expected \(vector.expectedError ?? "no error"), got \(got ?? "no error")")
            } else if let status = vector.expectedPatternStatus, status != gotStatus {
                problems.append("expected the pattern status \(status), got \(gotStatus ?? "none")")
            }
            if let reference = vector.sameProgramAs, problems.isEmpty, got == nil {
                switch sameProgram(vector.bytes, Array(reference.utf8)) {
                case .success(true): break
                case .success(false): problems.append("expected the same compiled program as \(quoted(reference)), got a different one")
                case .failure(let problem): problems.append("expected the same compiled program as \(quoted(reference)), got \(problem)")
                }
            }
            if problems.isEmpty {
                kindPassed += 1
            } else {
                kindFailed += 1
                outcome.lines.append("FAIL compile-error \(vector.test): rules \(vectorText(vector)): " + problems.joined(separator: "; "))
            }
        }
        outcome.lines.append("compile-error vectors: \(kindPassed) passed, \(kindFailed) failed")
        outcome.passed += kindPassed
        outcome.failed += kindFailed

        var tally = KindTally()
        for vector in file.urlFilterParseStatusVectors {
            let got = URLFilterParser.status(of: vector.pattern).name
            tally.record(
                got == vector.expectedStatus, knownFailure: vector.knownFailure,
                "url-filter-parse-status \(vector.test): pattern \(quoted(vector.pattern)): expected \(vector.expectedStatus), got \(got)")
        }
        tally.close("url-filter parse-status vectors", into: &outcome)

        if !file.urlFilterMatchVectors.isEmpty {
            for (side, answer) in [("engine", engineMatch), ("PCRE2 oracle", oracleMatch)] as [(String, (VectorFile.MatchVector) -> Result<Bool, Problem>)] {
                var tally = KindTally()
                for vector in file.urlFilterMatchVectors {
                    let got: String
                    switch answer(vector) {
                    case .success(let matches): got = matches ? "match" : "no match"
                    case .failure(let problem): got = "error: \(problem)"
                    }
                    let expected = vector.expectedMatch ? "match" : "no match"
                    tally.record(
                        got == expected, knownFailure: vector.knownFailure,
                        "url-filter match (\(side)) \(vector.test): pattern \(quoted(vector.pattern))\(vector.caseSensitive == true ? " case-sensitive" : "") on \(quoted(vector.subject)): expected \(expected), got \(got)")
                }
                tally.close("url-filter match vectors (\(side))", into: &outcome)
            }
        }

        runRequestVectors(file, into: &outcome, label: "request vectors (compiled to bytecode, saved, loaded and run)", failure: "request", answer: answer)
        runRequestVectors(file, into: &outcome, label: "request vectors (PCRE2 oracle, on its own)", failure: "request (oracle)", answer: oracleAnswer)
        runWebViewVectors(file, into: &outcome)

        outcome.lines.append(
            "\(outcome.passed) passed, \(outcome.failed) failed, \(outcome.skipped) skipped"
                + (outcome.knownFailures > 0 ? ", \(outcome.knownFailures) known failures" : ""))
        return outcome
    }

    /// Counts of one kind of vector, known failures apart.
    struct KindTally {
        var passed = 0
        var failed = 0
        var known = 0
        var lines: [String] = []

        mutating func record(_ passes: Bool, knownFailure: String?, _ what: String) {
            switch (passes, knownFailure) {
            case (true, nil): passed += 1
            case (false, nil):
                failed += 1
                lines.append("FAIL " + what)
            case (false, let reason?):
                known += 1
                lines.append("KNOWN FAILURE " + what + " (" + reason + ")")
            case (true, _?):
                failed += 1
                lines.append("FAIL (marked as a known failure, now passes: remove the mark) " + what)
            }
        }

        func close(_ label: String, into outcome: inout Outcome) {
            outcome.lines += lines
            outcome.lines.append("\(label): \(passed) passed, \(failed) failed" + (known > 0 ? ", \(known) known failures" : ""))
            outcome.passed += passed
            outcome.failed += failed
            outcome.knownFailures += known
        }
    }
}

extension VectorRunner {
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// Whether BlockBench compiles two lists to the same bytes, each rule numbered by its place
    /// among the kept rules: WebKit's program does not number rules, while our file keeps each
    /// rule's index in the source list, which a dropped rule shifts.
    static func sameProgram(_ list: [UInt8], _ reference: [UInt8]) -> Result<Bool, Problem> {
        func compiled(_ json: [UInt8]) throws -> [UInt8] {
            var parsed = try RuleListParser.parse(json).get()
            for position in parsed.rules.indices { parsed.rules[position].index = RuleIndex(position) }
            parsed.droppedRules = []
            return try RuleListCompiler.compile(parsed).0.serialized()
        }
        do {
            return .success(try compiled(list) == compiled(reference))
        } catch {
            return .failure(Problem(description: "\(error)"))
        }
    }

    /// A compile-error vector's list for failure lines: its text, or its base64 form.
    static func vectorText(_ vector: VectorFile.CompilerErrorVector) -> String {
        vector.rulesBase64.map { "base64 " + $0 } ?? quoted(vector.rules)
    }

    /// `[actions] stylesheets N`, the form both sides of a request vector are compared in (or the
    /// vector's `expectedOutcome`, when it has one).
    static func expectedAnswer(_ vector: VectorFile.RequestVectorTest.Vector) -> String {
        vector.expectedOutcome ?? "[\(vector.expectedActions.joined(separator: ", "))] stylesheets \(vector.expectedStylesheetLists ?? 1)"
    }

    /// Every request vector answered by `answer` and compared with WebKit's expectation.
    static func runRequestVectors(
        _ file: VectorFile, into outcome: inout Outcome, label: String, failure: String,
        answer: (VectorFile.RequestVectorTest.Vector) -> Result<MatchOutcome, Problem>
    ) {
        var tally = KindTally()
        for test in file.requestVectorTests {
            for vector in test.vectors {
                let got: String
                switch answer(vector) {
                case .success(let answer): got = vector.expectedOutcome == nil ? answerText(answer) : OutcomeText.describe(answer)
                case .failure(let problem): got = "error: \(problem)"
                }
                let expected = expectedAnswer(vector)
                tally.record(
                    got == expected, knownFailure: vector.knownFailure,
                    "\(failure) \(test.test): rules \(quoted(vector.rules)), url \(quoted(vector.request.url)): expected \(expected), got \(got)")
            }
        }
        tally.close(label, into: &outcome)
    }

    /// An outcome in the form request vectors are compared in.
    static func answerText(_ outcome: MatchOutcome) -> String {
        "[\(outcome.actions.map(\.typeName).joined(separator: ", "))] stylesheets \(outcome.appliesGlobalStyleSheet ? 1 : 0)"
    }

    static func answer(_ vector: VectorFile.RequestVectorTest.Vector) -> Result<MatchOutcome, Problem> {
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
        return .success(compiled.outcome(for: request))
    }

    static func oracleAnswer(_ vector: VectorFile.RequestVectorTest.Vector) -> Result<MatchOutcome, Problem> {
        do {
            let list = try RuleListParser.parse(vector.rules).get()
            guard let request = request(vector.request) else {
                return .failure(Problem(description: "unknown resource type or method in \(vector.request)"))
            }
            return .success(try ReferenceEvaluator(try ReferenceRuleList(list)).outcome(for: request))
        } catch {
            return .failure(Problem(description: "\(error)"))
        }
    }

    /// The engine's answer for a match vector: the pattern alone through the engine's pipeline
    /// (Thompson NFA, subset construction under the default limits, minimal DFA, bytecode
    /// program), the subject run through the program. A pattern that matches everything has no
    /// program and matches.
    static func engineMatch(_ vector: VectorFile.MatchVector) -> Result<Bool, Problem> {
        switch URLFilterParser.parse(vector.pattern, isCaseSensitive: vector.caseSensitive ?? false) {
        case .failure(let error): return .failure(Problem(description: "rejected: \(error.message)"))
        case .success(let filter):
            guard !filter.matchesEverything else { return .success(true) }
            do {
                let dfa = try SubsetConstruction.determinize(NFA(patterns: [(PatternID(0), filter)]), limits: .default)
                let program = Program(Minimizer.minimize(dfa))
                return .success(!program.matches(Array(vector.subject.utf8)).isEmpty)
            } catch {
                return .failure(Problem(description: "\(error)"))
            }
        }
    }

    static func oracleMatch(_ vector: VectorFile.MatchVector) -> Result<Bool, Problem> {
        do {
            return .success(try PatternOracle(source: vector.pattern, caseSensitive: vector.caseSensitive ?? false).matches(Array(vector.subject.utf8)))
        } catch {
            return .failure(Problem(description: "\(error)"))
        }
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

/// A string in double quotes with JSON's escapes, for failure lines; a long one keeps its first
/// 200 and last 60 characters, with `…(N characters)…` between.
func quoted(_ text: String) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes]) else { return text }
    let whole = String(decoding: data, as: UTF8.self).dropFirst().dropLast()
    guard whole.count > 400 else { return String(whole) }
    return whole.prefix(200) + "…(\(whole.count - 260) characters)…" + whole.suffix(60)
}
