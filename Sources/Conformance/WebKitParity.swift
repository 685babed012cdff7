// WebKitParity.swift — Conformance
//
// Verdict parity with the real WebKit compiler: the same rule lists given to our validator and to
// WebKitGTK (WebKitEngine), their verdicts compared. A verdict is accept or reject; a rejection
// carries WebKit's error message (ContentRuleListErrorCode.message) and, for an invalid url-filter,
// the pattern's parse-status message, which WebKit logs as "Error while parsing <pattern>:
// <message>". Two verdicts agree when both accept, or both reject with the same error message and
// the same status messages (as sets: WebKit logs every failing pattern it parsed, we report the
// first). Every difference is a bug of ours or a documented WebKit quirk (`WebKitQuirks`).
// Tested by ConformanceTests (WebKitParityTests).

internal import ContentRuleList
internal import Foundation
internal import URLFilterSyntax
public import Corpus
public import Engines
internal import TerminalText

/// What a vector says WebKit answers for its list: checked against WebKit itself, apart from
/// the comparison with our verdict.
public struct ParityExpectation: Sendable {
    public var accepted: Bool
    /// WebKit's error message, when rejected.
    public var error: String?
    /// The status message WebKit logs for the failing url-filter, when there is one.
    public var patternMessage: String?
    /// A list whose compiled program (actions and bytecode) WebKit's must equal, or differ from.
    public var programReference: [UInt8]?
    public var sameProgram = true

    public init(accepted: Bool, error: String? = nil, patternMessage: String? = nil, programReference: [UInt8]? = nil, sameProgram: Bool = true) {
        self.accepted = accepted
        self.error = error
        self.patternMessage = patternMessage
        self.programReference = programReference
        self.sameProgram = sameProgram
    }

    public var description: String {
        var text = accepted ? "accepted" : "rejected: \(error ?? "?")" + (patternMessage.map { " [\($0)]" } ?? "")
        if let programReference {
            let reference = String(decoding: programReference.prefix(120), as: UTF8.self)
            text += sameProgram ? ", compiled like \(reference)" : ", compiled unlike \(reference)"
        }
        return text
    }
}

/// One list to give both sides.
public struct ParityCase: Sendable {
    /// Where it came from and which one ("easylist", "vectors: compile-error 12", "pattern 8812").
    public var id: String
    public var json: [UInt8]
    /// WebKit's answer as a vector records it, when the case comes from one.
    public var expected: ParityExpectation?

    public init(id: String, json: [UInt8], expected: ParityExpectation? = nil) {
        self.id = id
        self.json = json
        self.expected = expected
    }

    /// A one-rule list around `pattern` (the form generated patterns and status vectors take).
    public static func pattern(_ pattern: String, id: String, expected: ParityExpectation? = nil) -> ParityCase {
        ParityCase(id: id, json: patternList(pattern), expected: expected)
    }

    /// `[{"trigger":{"url-filter":<pattern>},"action":{"type":"block"}}]`.
    public static func patternList(_ pattern: String) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let escaped = String(decoding: (try? encoder.encode(pattern)) ?? Data("\"\"".utf8), as: UTF8.self)
        return Array("[{\"trigger\":{\"url-filter\":\(escaped)},\"action\":{\"type\":\"block\"}}]".utf8)
    }
}

extension ParityExpectation {
    /// A compile-error vector's expectation; nil when it names an error we do not know.
    public init?(_ vector: VectorFile.CompilerErrorVector) {
        var expectation = ParityExpectation(accepted: vector.expectedError == nil)
        if let name = vector.expectedError {
            guard let code = ContentRuleListErrorCode(rawValue: name) else { return nil }
            expectation.error = code.message
        }
        if let name = vector.expectedPatternStatus {
            guard let status = URLFilterParseStatus(rawValue: name) else { return nil }
            expectation.patternMessage = status.message
        }
        expectation.programReference = vector.sameProgramAs.map { Array($0.utf8) }
        self = expectation
    }

    /// A parse-status vector's expectation for its one-rule list. WebKit's verdict shows only
    /// accept or reject; a pattern that matches everything compiles to the same program as `.*`,
    /// and any other accepted pattern to a different one.
    public init?(_ vector: VectorFile.ParseStatusVector) {
        guard let status = URLFilterParseStatus(rawValue: vector.expectedStatus) else { return nil }
        switch status {
        case .ok, .matchesEverything:
            self.init(accepted: true, programReference: ParityCase.patternList(".*"), sameProgram: status == .matchesEverything)
        case .emptyPattern:
            // An empty url-filter is refused by the rule-list reader, before any pattern parse.
            self.init(accepted: false, error: ContentRuleListErrorCode.jsonInvalidURLFilterInTrigger.message)
        default:
            self.init(accepted: false, error: ContentRuleListErrorCode.jsonInvalidRegex.message, patternMessage: status.message)
        }
    }

    /// Whether WebKit's answer is this one (the program comparison is made by the caller).
    func matches(_ webKit: ParityVerdict) -> Bool {
        guard accepted == webKit.accepted else { return false }
        if accepted { return true }
        guard error == webKit.error else { return false }
        if let patternMessage { return webKit.patternMessages.contains(patternMessage) }
        return true
    }
}

/// One side's verdict.
public struct ParityVerdict: Hashable, Sendable, CustomStringConvertible {
    public var accepted: Bool
    /// The error message WebKit's API gives (nil when accepted).
    public var error: String?
    /// Parse-status messages of the url-filters that failed.
    public var patternMessages: Set<String>

    public var description: String {
        guard !accepted else { return "accepted" }
        let statuses = patternMessages.sorted().joined(separator: " | ")
        return "rejected: \(error ?? "?")" + (statuses.isEmpty ? "" : " [\(statuses)]")
    }

    /// Our validator's verdict.
    public static func ours(_ json: [UInt8]) -> ParityVerdict {
        switch RuleListParser.parse(json) {
        case .success: return ParityVerdict(accepted: true, error: nil, patternMessages: [])
        case .failure(let error):
            return ParityVerdict(accepted: false, error: error.code.message, patternMessages: Set([error.patternError?.status.message].compactMap { $0 }))
        }
    }

    /// WebKit's verdict, from the tool's answer.
    public static func webKit(_ verdict: WebKitVerdict) -> ParityVerdict {
        if verdict.ok == true { return ParityVerdict(accepted: true, error: nil, patternMessages: []) }
        var messages: Set<String> = []
        for reason in verdict.reasons ?? [] {
            // "Error while parsing <pattern>: <message>": the pattern may hold ": " too, so the
            // message is found by its known endings.
            if let status = URLFilterParseStatus.allCases.first(where: { reason.hasSuffix(": " + $0.message) }) {
                messages.insert(status.message)
            } else {
                messages.insert(reason)
            }
        }
        return ParityVerdict(accepted: false, error: verdict.error ?? verdict.inputError, patternMessages: messages)
    }

    /// Whether `other` is the same verdict: both accept, or both reject with the same error and
    /// our pattern's status among WebKit's logged ones.
    func agrees(withWebKit webKit: ParityVerdict) -> Bool {
        if accepted || webKit.accepted { return accepted == webKit.accepted }
        return error == webKit.error && patternMessages.isSubset(of: webKit.patternMessages)
            && (patternMessages.isEmpty == webKit.patternMessages.isEmpty)
    }
}

/// Differences between WebKit and us that are WebKit's, written down.
public enum WebKitQuirks {
    /// WebKitGTK's API refuses an empty source before WebKit's rule-list reader sees it.
    static let gtkEmptySource = "Source JSON rule set cannot be empty"

    /// (what WebKit does, why we do not follow) for a case, or nil.
    public static func explanation(for case: ParityCase, ours: ParityVerdict, webKit: ParityVerdict) -> String? {
        if `case`.json.isEmpty && webKit.error == gtkEmptySource {
            return "WebKitGTK's API (webkit_user_content_filter_store_save) refuses an empty source with its own message before "
                + "WebKit's rule-list reader runs; the reader itself, which we follow, fails to parse it as JSON (JSONInvalid)"
        }
        return nil
    }
}

public struct ParityDifference: Sendable {
    public var id: String
    public var ours: ParityVerdict
    public var webKit: ParityVerdict
    /// Set when the difference is a documented WebKit quirk.
    public var quirk: String?
    /// The list, shortened for printing.
    public var excerpt: String
}

/// Parity over a batch of cases.
public struct ParityResult: Sendable {
    public var source: String
    public var cases = 0
    public var bothAccept = 0
    public var bothReject = 0
    public var differences: [ParityDifference] = []
    /// Cases with an expectation.
    public var expected = 0
    /// Cases where WebKit's answer is not the one their vector records.
    public var wrongExpectations: [WrongExpectation] = []
    public var webKitSeconds = 0.0

    public var unexplained: Int { differences.filter { $0.quirk == nil }.count + wrongExpectations.filter { $0.quirk == nil }.count }

    public var text: String {
        var text = "\(source): \(HumanReadable.count(cases)) lists, \(HumanReadable.count(bothAccept)) accepted by both, \(HumanReadable.count(bothReject)) rejected by both "
            + "with the same error, \(HumanReadable.count(differences.count)) different (\(HumanReadable.count(differences.filter { $0.quirk == nil }.count)) unexplained); "
        if expected > 0 {
            text += "WebKit gave the vector's answer for \(HumanReadable.count(expected - wrongExpectations.count)) of \(HumanReadable.count(expected)); "
        }
        return text + String(format: "WebKit compiled for %.1f s", webKitSeconds)
    }
}

/// A vector whose recorded answer is not WebKit's.
public struct WrongExpectation: Sendable {
    public var id: String
    public var expected: String
    public var webKit: String
    public var quirk: String?
    public var excerpt: String
}

public enum WebKitParity {
    /// Gives every case to both sides; `progress` hears (done, total).
    public static func run(
        _ cases: [ParityCase], source: String, webKit: WebKitEngine, progress: ((Int, Int) -> Void)? = nil
    ) throws -> ParityResult {
        var result = ParityResult(source: source)
        // WebKit's program digest of each reference list, compiled once.
        var referenceDigests: [[UInt8]: String?] = [:]
        for (index, item) in cases.enumerated() {
            if index % 50 == 0 { progress?(index, cases.count) }
            let answer = try webKit.verdict(json: item.json)
            result.webKitSeconds += answer.seconds ?? 0
            let theirs = ParityVerdict.webKit(answer)
            let ours = ParityVerdict.ours(item.json)
            let text = String(decoding: item.json.prefix(300), as: UTF8.self)
            let excerpt = item.json.count > 300 ? text + "…" : text
            let quirk = WebKitQuirks.explanation(for: item, ours: ours, webKit: theirs)
            result.cases += 1
            if ours.agrees(withWebKit: theirs) {
                if ours.accepted { result.bothAccept += 1 } else { result.bothReject += 1 }
            } else {
                result.differences.append(ParityDifference(id: item.id, ours: ours, webKit: theirs, quirk: quirk, excerpt: excerpt))
            }
            guard let expected = item.expected else { continue }
            result.expected += 1
            var got = theirs.description
            var matches = expected.matches(theirs)
            if matches, theirs.accepted, let reference = expected.programReference {
                if referenceDigests[reference] == nil {
                    let referenceAnswer = try webKit.verdict(json: reference)
                    result.webKitSeconds += referenceAnswer.seconds ?? 0
                    referenceDigests[reference] = .some(referenceAnswer.compiledSha256)
                }
                let referenceDigest = referenceDigests[reference] ?? nil
                let same = answer.compiledSha256 != nil && answer.compiledSha256 == referenceDigest
                if same != expected.sameProgram {
                    matches = false
                    got += same ? ", compiled like the reference" : ", compiled unlike the reference"
                }
            }
            if !matches {
                result.wrongExpectations.append(WrongExpectation(id: item.id, expected: expected.description, webKit: got, quirk: quirk, excerpt: excerpt))
            }
        }
        return result
    }
}
