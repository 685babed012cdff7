// VectorFile.swift — Corpus
//
// The vector file format (Corpora/conformance/webkit-vectors.json, Corpora/regressions/*.json).
// The format is a corpus kind of the manifest (`vectors`), so it lives with the corpora; the
// fuzzer (Fuzzing, which depends on Corpus for it) writes its regressions in it and its tests
// replay them; `blockbench conform --vectors` and the main job run every kind through one runner
// (Conformance: VectorRunner.swift).
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
//  - `webViewVectors[]`: what a web view showed for a rule list and pages (Corpus/WebViewVector.swift).
// `knownFailure` (a reason) marks a vector that fails: it is counted apart, and fails the run once
// it passes, so the mark goes with the fix.
// Tested by BlockBenchCLITests (VectorRunnerTests) and FuzzingTests (regression replay).

internal import Foundation

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

/// A string in double quotes with JSON's escapes, for failure lines; a long one keeps its first
/// 200 and last 60 characters, with `…(N characters)…` between.
package func quoted(_ text: String) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes]) else { return text }
    let whole = String(decoding: data, as: UTF8.self).dropFirst().dropLast()
    guard whole.count > 400 else { return String(whole) }
    return whole.prefix(200) + "…(\(whole.count - 260) characters)…" + whole.suffix(60)
}
