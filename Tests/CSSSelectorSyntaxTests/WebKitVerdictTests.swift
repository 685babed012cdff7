// WebKitVerdictTests.swift — CSSSelectorSyntaxTests
//
// The validator must give the real WebKit's verdict on every selector of the table in
// WebKitSelectorVerdicts.swift (produced by Benchmarks/WebKit/webkit-compile).

import Testing
@testable import CSSSelectorSyntax

@Suite struct WebKitVerdictTests {
    @Test func agreesWithRealWebKitOnEveryRecordedSelector() {
        #expect(webKitSelectorVerdicts.count > 2_000)
        var disagreements: [String] = []
        for verdict in webKitSelectorVerdicts {
            let accepted = CSSSelectorValidator.validate(verdict.selector) == nil
            if accepted != verdict.accepted {
                disagreements.append(
                    "\(String(reflecting: verdict.selector)): WebKit \(verdict.accepted ? "accepts" : "rejects"), we \(accepted ? "accept" : "reject")")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements:\n\(disagreements.prefix(40).joined(separator: "\n"))")
    }

    @Test func tableHasBothVerdictsInEverySection() {
        let accepted = webKitSelectorVerdicts.filter(\.accepted).count
        let rejected = webKitSelectorVerdicts.count - accepted
        #expect(accepted > 500)
        #expect(rejected > 500)
    }
}
