// DialectLevelTests.swift — the dialect level (Sources/Fuzzing/DialectCaseGenerator.swift and
// FuzzPatternReader.swift): every documented dialect's re-spelling reads into the generators'
// model and means there what its text means; a case's lists are valid and hold re-spelled `||`
// rules; the level runs clean on a fixed seed. (Its determinism is DeterminismTests', which runs
// every level.)

import Testing
import Foundation
import ContentRuleList
import Fuzzing
import Corpus
import PCRE2Oracle

@Suite struct DialectLevelTests {
    static let bases = [
        #"^[^:]+://+([^:/]+\.)?doubleclick\.net[/:]"#, #"^[^:]+://+([^:/]+\.)?ex\.com\/ads[/:&?]x"#,
        #"^[^:]+://+([^:/]+\.)?ex\.com\/a[/:&?]"#, #"^[^:]+://+([^:/]+\.)?ex\.com[/:].*\.js"#,
    ]
    static let urls = [
        "https://doubleclick.net/", "wss://a.b.doubleclick.net:8/x", "https://doubleclick.network/", "http://ex.com/ads?x",
        "ftp://ex.com/a", "https://ex.com/a/b.js", "foo:ex.com/a&", "https://x.ex.com/ads^x",
    ]

    @Test(arguments: Dialect.documented + (1...8).map { Dialect.combination(seed: $0) })
    func aRespellingReadsIntoTheModelWithItsMeaning(dialect: Dialect) throws {
        for base in Self.bases {
            let text = try #require(dialect.respell(base))
            let pattern = try #require(FuzzPatternReader.read(text), "\(dialect.name): \(text)")
            let written = try PatternOracle(source: text, caseSensitive: false)
            let read = try PatternOracle(source: pattern.source, caseSensitive: false)
            for url in Self.urls {
                #expect(try written.matches(Array(url.utf8)) == read.matches(Array(url.utf8)), "\(text) / \(pattern.source) on \(url)")
            }
        }
    }

    @Test func theReaderRefusesWhatItDoesNotTake() {
        #expect(FuzzPatternReader.read("a|b") == nil)
        #expect(FuzzPatternReader.read("(a") == nil)
        #expect(FuzzPatternReader.read("a)") == nil)
        #expect(FuzzPatternReader.read("[a") == nil)
        #expect(FuzzPatternReader.read(#"^a\/b$"#)?.source == #"^a\/b$"#)
    }

    @Test func aCaseIsAValidListOfRespelledRules() throws {
        var random = FuzzRandom(seed: 7)
        for _ in 0..<50 {
            let (list, requests) = DialectCaseGenerator().dialectCase(&random)
            #expect(!list.rules.isEmpty)
            #expect(requests.count == DialectCaseGenerator().requestsPerList)
            #expect((try? RuleListParser.parse(list.json).get()) != nil, "\(list.json)")
        }
    }

    /// The requests hit: a good share of them get actions from the oracle, and a good share none.
    @Test func theRequestsAreAimedAtTheRules() throws {
        var random = FuzzRandom(seed: 11)
        var hit = 0
        var total = 0
        for _ in 0..<100 {
            let (list, requests) = DialectCaseGenerator().dialectCase(&random)
            let reference = ReferenceEvaluator(try ReferenceRuleList(RuleListParser.parse(list.json).get(), jit: false), matcher: .interpreter)
            for request in requests {
                total += 1
                if try !reference.outcome(for: request.request).matchingRules.isEmpty { hit += 1 }
            }
        }
        #expect(hit > total / 10 && hit < total * 9 / 10, "\(hit) of \(total)")
    }

    @Test func theLevelRunsClean() {
        var options = FuzzOptions()
        options.seed = 59
        options.levels = [.dialect]
        options.cases = 400
        let report = Fuzzer(options: options).run()[0]
        #expect(report.tally.cases == 400)
        #expect(report.tally.disagreements == 0, "\(report.findings.map(\.disagreement.description))")
    }
}
