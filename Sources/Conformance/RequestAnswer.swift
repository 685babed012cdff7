// RequestAnswer.swift — Conformance
//
// A request's answer reduced to what the count check compares (how many actions, a digest of
// them, whether it blocks), and a request set's answers reduced to their counts: what an engine's
// answers must share with the oracle's before its time counts. The digest is FNV-1a, the same in
// every process. Tested by BenchmarksTests and GateTests (BenchTests, CostGateTests).

internal import ContentRuleList
package import RequestContext
internal import TerminalText

/// How many requests got actions and how many actions, plus a digest of every answer in order:
/// what an engine's answers must share with the oracle's before its time counts.
public struct AnswerCounts: Codable, Hashable, Sendable {
    public var requests = 0
    public var requestsWithActions = 0
    public var actions = 0
    /// FNV-1a over each request's actions, in request order (hex).
    public var digest = ""

    public init() {}

    public var text: String {
        "\(HumanReadable.count(requestsWithActions)) with actions, \(HumanReadable.count(actions)) actions"
    }
}

/// One request's answer, reduced to what the count check compares.
package struct RequestAnswer: Hashable, Sendable {
    package var actions: Int
    package var digest: UInt64
    /// Whether the request is blocked (a `block` among its actions).
    package var blocks: Bool

    /// A peer's verdict: a `block` action or none.
    package init(blocked: Bool) {
        self.init(MatchOutcome(actions: blocked ? [.block] : [], matchingRules: [], appliesGlobalStyleSheet: true))
    }

    /// Several lists' answers to one request, in list order: blocked when any list blocks.
    package init(joining answers: [RequestAnswer]) {
        actions = answers.reduce(0) { $0 + $1.actions }
        blocks = answers.contains(where: \.blocks)
        var hash = FNV1a()
        for answer in answers { withUnsafeBytes(of: answer.digest.littleEndian) { hash.add($0) } }
        digest = hash.value
    }

    package init(_ outcome: MatchOutcome) {
        actions = outcome.actions.count
        blocks = outcome.actions.contains { if case .block = $0 { true } else { false } }
        var hash = FNV1a()
        for action in outcome.actions {
            // Each action's type and text (String(describing:) reflects, slowly, on the millions
            // of css-display-none actions of a request set).
            switch action {
            case .cssDisplayNone(let selector):
                hash.add(action.typeName + "\u{2}")
                hash.add(selector)
            case .notify(let notification):
                hash.add(action.typeName + "\u{2}")
                hash.add(notification)
            case .redirect, .modifyHeaders:
                hash.add(String(describing: action))
            case .block, .blockCookies, .ignorePreviousRules, .ignoreFollowingRules, .makeHTTPS:
                hash.add(action.typeName)
            }
            hash.add("\u{1}")
        }
        digest = hash.value
    }

    package static func counts(_ answers: [RequestAnswer]) -> AnswerCounts {
        var counts = AnswerCounts()
        var hash = FNV1a()
        for answer in answers {
            counts.requests += 1
            counts.actions += answer.actions
            if answer.actions > 0 { counts.requestsWithActions += 1 }
            withUnsafeBytes(of: answer.digest.littleEndian) { hash.add($0) }
        }
        counts.digest = String(hash.value, radix: 16)
        return counts
    }
}

/// 64-bit FNV-1a: a digest that is the same in every process (Swift's Hasher is seeded per run).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
    }

    mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { add(UnsafeRawBufferPointer($0)) }
    }
}
