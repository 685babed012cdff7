// WebKitVerdictTests.swift — CSSSelectorSyntaxTests
//
// The validator must give the real WebKit's verdict on every selector of the table in
// WebKitSelectorVerdicts.json, a resource of this target (produced by Benchmarks/Peers/WebKit/webkit-compile;
// its "about" says how).

import Foundation
import Testing
@testable import CSSSelectorSyntax

/// WebKitSelectorVerdicts.json: sections of selectors, each with WebKit's verdict.
struct WebKitSelectorVerdicts: Decodable {
    struct Verdict: Decodable {
        var selector: String
        var accepted: Bool
    }

    struct Section: Decodable {
        var name: String
        var verdicts: [Verdict]
    }

    var sections: [Section]

    static func load() throws -> WebKitSelectorVerdicts {
        let url = try #require(Bundle.module.url(forResource: "WebKitSelectorVerdicts", withExtension: "json"))
        return try JSONDecoder().decode(WebKitSelectorVerdicts.self, from: Data(contentsOf: url))
    }
}

@Suite struct WebKitVerdictTests {
    @Test func agreesWithRealWebKitOnEveryRecordedSelector() throws {
        let verdicts = try WebKitSelectorVerdicts.load().sections.flatMap(\.verdicts)
        #expect(verdicts.count > 2_000)
        var disagreements: [String] = []
        for verdict in verdicts {
            let accepted = CSSSelectorValidator.validate(verdict.selector) == nil
            if accepted != verdict.accepted {
                disagreements.append(
                    "\(String(reflecting: verdict.selector)): WebKit \(verdict.accepted ? "accepts" : "rejects"), we \(accepted ? "accept" : "reject")")
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements:\n\(disagreements.prefix(40).joined(separator: "\n"))")
    }

    @Test func tableHasBothVerdictsInEverySection() throws {
        let sections = try WebKitSelectorVerdicts.load().sections
        #expect(sections.count > 1)
        for section in sections {
            #expect(section.verdicts.contains { $0.accepted }, "\(section.name)")
            #expect(section.verdicts.contains { !$0.accepted }, "\(section.name)")
        }
        let verdicts = sections.flatMap(\.verdicts)
        let accepted = verdicts.filter(\.accepted).count
        #expect(accepted > 500)
        #expect(verdicts.count - accepted > 500)
    }
}
