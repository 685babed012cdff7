// VectorRunner.swift — Conformance
//
// Runs a vector file (Corpus: VectorFile.swift) kind by kind: compile-error vectors through the
// validator (and `sameProgramAs` through the compiler), parse-status vectors through the parser,
// match vectors through the engine's pipeline and through the PCRE2 oracle, request vectors
// compiled, saved, loaded and run, and again through the oracle alone, and the web-view vectors'
// requests without a web view (WebViewVectorRunner.swift). A vector marked `knownFailure` that
// still fails is counted apart; one that passes fails the run, so the mark goes with the fix.
// With a Safari profile (`conform --vectors FILE --safari VERSION`) every vector's list is read as
// that release reads it (SafariReleases/ProfiledCompile.swift), as `check` and `compile` do; the
// patterns' own vectors are the same at every profiled release (Corpora/safari/profiles.json).
// Tested by BlockBenchCLITests (VectorRunnerTests) and FuzzingTests (regression replay).

internal import Automata
internal import Bytecode
internal import ContentBlocker
public import ContentRuleList
public import Corpus
internal import Foundation
internal import PCRE2Oracle
internal import RequestContext
internal import SafariReleases
internal import URLFilterSyntax

public enum VectorRunner {
    public struct Outcome: Sendable {
        public var passed = 0
        public var failed = 0
        public var skipped = 0
        /// Vectors marked `knownFailure` that still fail.
        public var knownFailures = 0
        public var lines: [String] = []
    }

    /// Every vector of `file`, each list read as `profile`'s release reads it.
    public static func run(_ file: VectorFile, profile: SafariProfile = .newest) -> Outcome {
        var outcome = Outcome()
        if profile != .newest { outcome.lines.append("lists read as Safari \(profile.version) reads them") }

        var kindPassed = 0
        var kindFailed = 0
        for vector in file.compilerErrorVectors {
            let got: String?
            var gotStatus: String?
            switch ProfiledCompile.parse(vector.bytes, profile: profile) {
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
                switch sameProgram(vector.bytes, Array(reference.utf8), profile: profile) {
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

        runRequestVectors(
            file, into: &outcome, label: "request vectors (compiled to bytecode, saved, loaded and run)", failure: "request",
            answer: { answer($0, profile: profile) })
        runRequestVectors(
            file, into: &outcome, label: "request vectors (PCRE2 oracle, on its own)", failure: "request (oracle)",
            answer: { oracleAnswer($0, profile: profile) })
        runWebViewVectors(file, profile: profile, into: &outcome)

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
    static func sameProgram(_ list: [UInt8], _ reference: [UInt8], profile: SafariProfile = .newest) -> Result<Bool, Problem> {
        func compiled(_ json: [UInt8]) throws -> [UInt8] {
            var parsed = try ProfiledCompile.parse(json, profile: profile).get()
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

    static func answer(_ vector: VectorFile.RequestVectorTest.Vector, profile: SafariProfile = .newest) -> Result<MatchOutcome, Problem> {
        let compiled: CompiledRuleList
        do {
            let (list, _) = try ProfiledCompile.compile(json: Array(vector.rules.utf8), profile: profile)
            compiled = try CompiledRuleList(validating: list.serialized())
        } catch {
            return .failure(Problem(description: "\(error)"))
        }
        guard let request = request(vector.request) else {
            return .failure(Problem(description: "unknown resource type or method in \(vector.request)"))
        }
        return .success(compiled.outcome(for: request))
    }

    static func oracleAnswer(_ vector: VectorFile.RequestVectorTest.Vector, profile: SafariProfile = .newest) -> Result<MatchOutcome, Problem> {
        do {
            let list = try ProfiledCompile.parse(Array(vector.rules.utf8), profile: profile).get()
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
