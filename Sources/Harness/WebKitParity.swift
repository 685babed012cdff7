// WebKitParity.swift — Harness
//
// Verdict parity with the real WebKit compiler: the same rule lists given to our validator and to
// WebKitGTK (WebKitEngine), their verdicts compared. A verdict is accept or reject; a rejection
// carries WebKit's error message (ContentRuleListErrorCode.message) and, for an invalid url-filter,
// the pattern's parse-status message, which WebKit logs as "Error while parsing <pattern>:
// <message>". Two verdicts agree when both accept, or both reject with the same error message and
// the same status messages (as sets: WebKit logs every failing pattern it parsed, we report the
// first). Every difference is a bug of ours or a documented WebKit quirk (`WebKitQuirks`).

internal import ContentRuleList
internal import Foundation
internal import URLFilterSyntax

/// One list to give both sides.
public struct ParityCase: Sendable {
    /// Where it came from and which one ("easylist", "vectors: compile-error 12", "pattern 8812").
    public var id: String
    public var json: [UInt8]

    public init(id: String, json: [UInt8]) {
        self.id = id
        self.json = json
    }

    /// A one-rule list around `pattern` (the form generated patterns and status vectors take).
    public static func pattern(_ pattern: String, id: String) -> ParityCase {
        let escaped = String(decoding: (try? JSONEncoder().encode(pattern)) ?? Data("\"\"".utf8), as: UTF8.self)
        return ParityCase(id: id, json: Array("[{\"trigger\":{\"url-filter\":\(escaped)},\"action\":{\"type\":\"block\"}}]".utf8))
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

/// Differences between WebKit and us that are WebKit's, written down (none known yet).
public enum WebKitQuirks {
    /// (what WebKit does, why we do not follow) for a case, or nil.
    public static func explanation(for case: ParityCase, ours: ParityVerdict, webKit: ParityVerdict) -> String? { nil }
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
    public var webKitSeconds = 0.0

    public var unexplained: Int { differences.filter { $0.quirk == nil }.count }

    public var text: String {
        "\(source): \(HumanReadable.count(cases)) lists, \(HumanReadable.count(bothAccept)) accepted by both, \(HumanReadable.count(bothReject)) rejected by both "
            + "with the same error, \(HumanReadable.count(differences.count)) different (\(HumanReadable.count(unexplained)) unexplained); "
            + String(format: "WebKit compiled for %.1f s", webKitSeconds)
    }
}

public enum WebKitParity {
    /// Gives every case to both sides; `progress` hears (done, total).
    public static func run(
        _ cases: [ParityCase], source: String, webKit: WebKitEngine, progress: ((Int, Int) -> Void)? = nil
    ) throws -> ParityResult {
        var result = ParityResult(source: source)
        for (index, item) in cases.enumerated() {
            if index % 50 == 0 { progress?(index, cases.count) }
            let answer = try webKit.verdict(json: item.json)
            result.webKitSeconds += answer.seconds ?? 0
            let theirs = ParityVerdict.webKit(answer)
            let ours = ParityVerdict.ours(item.json)
            result.cases += 1
            if ours.agrees(withWebKit: theirs) {
                if ours.accepted { result.bothAccept += 1 } else { result.bothReject += 1 }
            } else {
                let text = String(decoding: item.json.prefix(300), as: UTF8.self)
                result.differences.append(
                    ParityDifference(
                        id: item.id, ours: ours, webKit: theirs, quirk: WebKitQuirks.explanation(for: item, ours: ours, webKit: theirs),
                        excerpt: item.json.count > 300 ? text + "…" : text))
            }
        }
        return result
    }
}
