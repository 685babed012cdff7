// WebKitParityTests.swift — verdicts read from WebKit's answers, compared with ours; and, where
// WebKitGTK is installed, the real compiler on a few lists (skipped elsewhere).

import Foundation
import Testing
@testable import Conformance
@testable import Engines

@Suite struct WebKitParityTests {
    private func webKitAnswer(ok: Bool, error: String? = nil, reasons: [String] = []) throws -> WebKitVerdict {
        var object: [String: Any] = ["ok": ok, "reasons": reasons, "seconds": 0.001]
        if let error { object["error"] = error }
        return try JSONDecoder().decode(WebKitVerdict.self, from: JSONSerialization.data(withJSONObject: object))
    }

    @Test func aRegexRejectionAgreesOnTheStatusMessage() throws {
        let ours = ParityVerdict.ours(Array(#"[{"trigger":{"url-filter":"a$b"},"action":{"type":"block"}}]"#.utf8))
        // The pattern holds ": " itself: the message is found by its ending.
        let theirs = ParityVerdict.webKit(try webKitAnswer(
            ok: false, error: "Invalid or unsupported regular expression.",
            reasons: ["Error while parsing a$b: The end of line assertion must be the last term in an expression."]))
        #expect(!ours.accepted)
        #expect(ours.agrees(withWebKit: theirs))
        let otherStatus = ParityVerdict.webKit(try webKitAnswer(
            ok: false, error: "Invalid or unsupported regular expression.",
            reasons: ["Error while parsing x: y: Disjunctions are not supported yet."]))
        #expect(otherStatus.patternMessages == ["Disjunctions are not supported yet."])
        #expect(!ours.agrees(withWebKit: otherStatus))
    }

    @Test func acceptAndRejectNeverAgree() throws {
        let ours = ParityVerdict.ours(Array(#"[{"trigger":{"url-filter":"ab"},"action":{"type":"block"}}]"#.utf8))
        #expect(ours.accepted)
        #expect(ours.agrees(withWebKit: ParityVerdict.webKit(try webKitAnswer(ok: true))))
        #expect(!ours.agrees(withWebKit: ParityVerdict.webKit(try webKitAnswer(ok: false, error: "Invalid trigger flags array."))))
    }

    @Test func aPatternCaseIsAValidOneRuleList() {
        let item = ParityCase.pattern(#"a"b\c"#, id: "x")
        #expect(ParityVerdict.ours(item.json).accepted)
    }

    @Test(.enabled(if: WebKitEngine().unavailable == nil, "needs WebKitGTK (libwebkit2gtk-4.1-dev)"))
    func theRealWebKitAgreesOnAFewLists() throws {
        let cases = ["ab", "a$b", "a|b", "(a)", "^a*", "[a-z]+", "\\d"].enumerated().map { ParityCase.pattern($0.element, id: "\($0.offset)") }
        let result = try WebKitParity.run(cases, source: "test", webKit: WebKitEngine())
        #expect(result.cases == 7)
        #expect(result.differences.isEmpty, "\(result.differences.map { "\($0.id): ours \($0.ours), WebKit \($0.webKit)" })")
        #expect(result.bothReject >= 3)
    }
}
