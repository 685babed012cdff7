// DialectTests.swift — the corpus of dialects (Sources/Corpus/Dialects): each documented
// converter's spelling of real `||` rules is one WebKit accepts and the text that converter's own
// tests show; combinations of parts are accepted too and come back from their names; the meaning
// check finds a known difference (`https?://` against `[^:]+://+` on wss:// and ftp:// URLs) and
// none where the spellings mean the same; its index of domain starts misses no URL a pattern
// matches; a benchmark definition may name a dialect.

import Foundation
import Testing
import ContentRuleList
@testable import Benchmarks
@testable import Corpus
@testable import Engines
@testable import SeededRandom
import PCRE2Oracle
import TestSupport

/// Real url-filters of the shipped EasyList and EasyPrivacy (AdGuard's spelling), one of each
/// shape a `||` rule takes there, and one plain pattern that no dialect changes.
private let realPatterns = [
    #"^[^:]+://+([^:/]+\.)?doubleclick\.net[/:]"#,
    #"^[^:]+://+([^:/]+\.)?amazon-adsystem\.com[/:].*\/ads\/"#,
    #"^[^:]+://+([^:/]+\.)?google\.com\/recaptcha\/api\.js"#,
    #"^[^:]+://+([^:/]+\.)?googletagservices\.com\/tag\/js\/gpt\.js"#,
    #"^[^:]+://+([^:/]+\.)?ad\.example\.com\/banner[/:&?]"#,
    #"^[^:]+://+([^:/]+\.)?ad\.example\.com\/banner$"#,
    #"^[^:]+://+([^:/]+\.)?example\.com\/ads[/:&?]track"#,
    #"^[^:]+://+([^:/]+\.)?adform\.net[/:]$"#,
    #"\/adserver\/"#,
]

/// A list of one rule per pattern, the last with an if-frame-url condition in AdGuard's spelling.
private func listJSON(_ patterns: [String] = realPatterns) -> [UInt8] {
    func quoted(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\\", with: "\\\\") + "\"" }
    var rules = patterns.map { #"{"trigger":{"url-filter":\#(quoted($0))},"action":{"type":"block"}}"# }
    rules.append(#"{"trigger":{"url-filter":".*","if-frame-url":[\#(quoted(#"^[^:]+://+([^:/]+\.)?tripadvisor\.[^/:]+([/:?#].*)?$"#))]},"action":{"type":"ignore-previous-rules"}}"#)
    return Array(("[" + rules.joined(separator: ",") + "]").utf8)
}

@Suite struct DialectTests {
    @Test(arguments: Dialect.documented + (1...8).map { Dialect.combination(seed: $0) })
    func everyDialectRespellsRealRulesIntoAListWebKitAccepts(dialect: Dialect) throws {
        let list = try dialect.respell(json: listJSON())
        #expect(list.ruleCount == realPatterns.count + 1)
        #expect(list.respelledCount == realPatterns.count - 1 + 1)
        let parsed = try RuleListParser.parse(list.json).get()
        #expect(parsed.rules.count == realPatterns.count + 1)
        for pattern in list.patterns {
            #expect(pattern.respelled.hasPrefix(dialect.prefix))
            #expect(URLFilterParserStatus.isAccepted(pattern.respelled), "\(dialect.name): \(pattern.respelled)")
        }
        // The plain pattern is left as it is.
        #expect(list.patterns.allSatisfy { $0.original != #"\/adserver\/"# })
    }

    /// The texts the converters' own tests show for these rules.
    @Test func documentedDialectsWriteWhatTheirConvertersWrite() {
        let host = #"^[^:]+://+([^:/]+\.)?example\.com[/:]"#
        #expect(Dialect.abp2blocklist.respell(host) == #"^https?://([^/]+\.)?example\.com([^-_.%a-z0-9].*)?$"#)
        #expect(Dialect.abp2blocklist.respell(#"^[^:]+://+([^:/]+\.)?example\.com\/path[/:&?]"#)
            == #"^https?://([^/]+\.)?example\.com/path([^-_.%A-Za-z0-9].*)?$"#)
        #expect(Dialect.abp2blocklistAnyScheme.respell(#"^[^:]+://+([^:/]+\.)?test\.com[/:]"#)
            == #"^[^:]+:(//)?([^/]+\.)?test\.com([^-_.%a-z0-9].*)?$"#)
        #expect(Dialect.adblockRust.respell(#"^[^:]+://+([^:/]+\.)?007-gateway\.com[/:]"#) == #"^[^:]+:(//)?([^/]+\.)?007-gateway\.com"#)
        #expect(Dialect.adblockRust.respell(#"^[^:]+://+([^:/]+\.)?amazonaws\.com\/newscloud-production\/.*\/backgrounds\/"#)
            == #"^[^:]+:(//)?([^/]+\.)?amazonaws\.com/newscloud-production/.*/backgrounds/"#)
        #expect(Dialect.adguard1x.respell(host) == #"^[htpsw]+:\/\/([a-z0-9-]+\.)?example\.com([\/:&\?].*)?$"#)
        #expect(Dialect.webkitDNR.respell(host) == #"^[^:]+://+([^:/]+\.)?example\.com[^a-zA-Z0-9_.%-]"#)
        #expect(Dialect.duckduckgo.respell(host) == #"^[^:]+://+([^:/]+\.)?example\.com[:/]"#)
        #expect(Dialect.ublockWebKit.respell(host) == #"^[a-z-]+://(?:[^/?#]+\.)?example\.com[^%.0-9a-z_-]"#)
        #expect(Dialect.ublockWebKit.respell(#"^[^:]+://+([^:/]+\.)?example\.com[/:].*path"#)
            == #"^[a-z-]+://(?:[^/?#]+\.)?example\.com[^%.0-9a-z_-].*path"#)
        #expect(Dialect.adguard.respell(host) == host)
        // DuckDuckGo's shipped list writes the host's end `[:/]`: the same set, re-spelled too.
        #expect(Dialect.webkitDNR.respell(#"^[^:]+://+([^:/]+\.)?robustness1\.test[:/]"#) == #"^[^:]+://+([^:/]+\.)?robustness1\.test[^a-zA-Z0-9_.%-]"#)
        #expect(Dialect.abp2blocklist.respell(#"^https?://example\.com"#) == nil)
    }

    @Test func aCombinationComesBackFromItsName() {
        let mix = Dialect.combination(seed: 42)
        #expect(mix.name == "mix-42")
        #expect(Dialect.named("mix-42") == mix)
        #expect(Dialect.named("abp2blocklist") == .abp2blocklist)
        #expect(Dialect.named("nonsense") == nil)
        let parts = Set((0..<64).map { Dialect.combination(seed: $0).scheme })
        #expect(parts == Set(Dialect.forms(\.scheme)))
    }

    @Test func theShippedSpellingIsTheIdentityAndMeansTheSame() throws {
        let list = try Dialect.adguard.respell(json: listJSON())
        #expect(try JSONSerialization.jsonObject(with: Data(list.json)) as? NSArray == JSONSerialization.jsonObject(with: Data(listJSON())) as? NSArray)
        let urls = ["https://doubleclick.net/x", "wss://ad.example.com/banner?x", "ftp://adform.net:21/", "https://tripadvisor.co.uk/"]
        #expect(DialectMeaningCheck.run(list, urls: urls).differences.isEmpty)
        // The same set written in the other order: another text, the same meaning.
        let ddg = try Dialect.duckduckgo.respell(json: listJSON())
        #expect(ddg.json != list.json)
        #expect(DialectMeaningCheck.run(ddg, urls: urls).differences.isEmpty)
    }

    @Test func theMeaningCheckSetsApartAPatternOnlyOneSpellingMatches() throws {
        let list = try Dialect.abp2blocklist.respell(json: listJSON([#"^[^:]+://+([^:/]+\.)?example\.com[/:]"#]))
        let urls = ["https://example.com/", "wss://example.com/socket", "ftp://files.example.com/a", "https://other.net/"]
        let meaning = DialectMeaningCheck.run(list, urls: urls)
        #expect(meaning.patterns == 2)  // with the if-frame-url pattern every test list has
        #expect(meaning.differences.count == 1)
        #expect(meaning.differences.first?.onlyOriginal == 2)
        #expect(meaning.differences.first?.onlyRespelled == 0)
        #expect(meaning.differences.first?.example == "wss://example.com/socket")
        #expect(meaning.summary.contains("1 set apart"))
    }

    @Test func theMeaningCheckFindsWhereADroppedSeparatorWidensARule() throws {
        let list = try Dialect.adblockRust.respell(json: listJSON([#"^[^:]+://+([^:/]+\.)?t\.co[/:]"#]))
        let meaning = DialectMeaningCheck.run(list, urls: ["https://t.co/abc", "http://t.collect.example.com/"])
        #expect(meaning.differences.first?.onlyRespelled == 1)
        #expect(meaning.differences.first?.onlyOriginal == 0)
    }

    /// Every URL a pattern matches, in any dialect, is among the index's candidates for it.
    @Test func theDomainStartIndexMissesNoMatch() throws {
        var random = SplitMix64(seed: 59)
        let schemes = ["http://", "https://", "wss://", "ftp://", "http:///", "data:", "blob:https://"]
        let hosts = ["example.com", "ads.example.com", "a.b.example.com", "example.community", "user@example.com", "EXAMPLE.com", "t.co", "x.t.co:8080"]
        let tails = ["/", "/path?q=1", ":443/", "?x", "", "/ads/x.js", "#f"]
        let urls = (0..<400).map { _ in schemes.randomElement(using: &random)! + hosts.randomElement(using: &random)! + tails.randomElement(using: &random)! }
        let index = DomainStartIndex(urls)
        let originals = [#"^[^:]+://+([^:/]+\.)?example\.com[/:]"#, #"^[^:]+://+([^:/]+\.)?t\.co[/:]"#, #"^[^:]+://+([^:/]+\.)?example\.com\/ads\/"#]
        for dialect in Dialect.documented + (1...6).map({ Dialect.combination(seed: $0) }) {
            for original in originals {
                let oracle = try PatternOracle(source: dialect.respell(original)!, caseSensitive: false)
                let candidates = Set(index.candidates(DialectMeaningCheck.domain(of: original)) ?? [])
                for (number, url) in urls.enumerated() where try oracle.matches(Array(url.utf8)) {
                    #expect(candidates.contains(Int32(number)), "\(dialect.name) \(original) on \(url)")
                }
            }
        }
    }

    @Test func aBenchmarkDefinitionMayNameADialect() throws {
        let text = #"{"rules": "easylist", "dialect": "abp2blocklist", "model": "compile", "engines": ["blockbench"]}"#
        var definition = try JSONDecoder().decode(BenchmarkDefinition.self, from: Data(text.utf8))
        #expect(definition.dialect == "abp2blocklist")
        #expect(definition.listName == "easylist@abp2blocklist")
        #expect(definition.problems(engines: ["blockbench", "adblock-rust"]).isEmpty)
        let again = try JSONDecoder().decode(BenchmarkDefinition.self, from: JSONEncoder().encode(definition))
        #expect(again.dialect == "abp2blocklist")
        definition.dialect = "nonsense"
        #expect(definition.problems(engines: ["blockbench"]).contains { $0.contains("unknown dialect") })
        definition.dialect = "webkit-dnr"
        definition.engines = ["blockbench", "adblock-rust"]
        #expect(definition.problems(engines: ["blockbench", "adblock-rust"]).contains { $0.contains("adblock-rust") })
    }

    /// The runner re-spells the list before the engine and the oracle read it.
    @Test func theRunnerAppliesADialectBeforeTheEngineAndTheOracle() throws {
        var definition = BenchmarkDefinition(
            name: "test-dialect", rules: "ddg-tds-reference", requests: "adblock-rust-regressions", model: .match, engines: ["blockbench"],
            runs: 1, warmupRuns: 0)
        definition.dialect = "webkit-dnr"
        let runner = BenchmarkRunner(manifest: try CorpusManifest.load(root: repositoryRoot + "/Corpora"), engines: [BlockBenchEngine()])
        let result = try runner.run(definition)
        #expect(result.rules == "ddg-tds-reference@webkit-dnr")
        let engine = try #require(result.engines.first)
        #expect(engine.status == .ok)
        #expect(engine.answers == engine.oracleAnswers)
        let list = try runner.list("ddg-tds-reference@webkit-dnr")
        #expect(list.path == nil && list.abpTexts == nil)
        #expect(String(decoding: list.json, as: UTF8.self).contains("[^a-zA-Z0-9_.%-]"))
    }

    /// The shipped dialect benchmarks name documented dialects (or a seeded mix of their parts) and
    /// run BlockBench alone.
    @Test func theShippedDialectBenchmarksAreValid() throws {
        let definitions = try BenchmarkDefinition.loadAll(from: repositoryRoot + "/Benchmarks", engines: ["blockbench", "webkit", "pcre2-jit", "pcre2", "adblock-rust", "ublock-origin"])
        let dialects = definitions.filter { $0.dialect != nil }
        #expect(!dialects.isEmpty)
        for definition in dialects {
            #expect(Dialect.named(definition.dialect!) != nil)
            #expect(definition.engines == ["blockbench"])
            #expect(definition.name.contains("@" + definition.dialect!))
        }
    }
}

/// WebKit's status of a pattern, through the project's parser.
private enum URLFilterParserStatus {
    static func isAccepted(_ pattern: String) -> Bool {
        let json = #"[{"trigger":{"url-filter":"\#(pattern.replacingOccurrences(of: "\\", with: "\\\\"))"},"action":{"type":"block"}}]"#
        return (try? RuleListParser.parse(Array(json.utf8)).get()) != nil
    }
}
