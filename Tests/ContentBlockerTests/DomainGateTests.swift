// DomainGateTests.swift — `||` patterns the domain table does not take run only where the domain
// table finds their domain (GatePlanner.groupByDomain) or where their best run occurs; another
// converter's `||` patterns with a loop after D run only where their host context finds D
// (HostContextPlanner.gate): rule lists of every kind of `||` pattern answer like the PCRE2 oracle,
// on URLs built from their pieces.

import Testing
import ContentBlocker
import ContentRuleList
import RequestContext
import PCRE2Oracle
import Bytecode
import Search
import Automata

@Suite struct DomainGateTests {
    /// `||` url-filters as converters write them, by what the compiler makes of each.
    static let filters: [(filter: String, caseSensitive: Bool)] = [
        // Domain gates: a loop after `domain[/:]` or `domain/`, two sharing a domain, one
        // sharing its domain with a table pattern, one with an end anchor.
        (#"^[^:]+:\/\/+([^:\/]+\.)?ads\.test[/:].*\/ga\.js"#, false),
        (#"^[^:]+:\/\/+([^:\/]+\.)?ads\.test\/x.*y"#, false),
        (#"^[^:]+:\/\/+([^:\/]+\.)?cdn\.test\/(ads)?\/p"#, false),
        (#"^[^:]+:\/\/+([^:\/]+\.)?b\.test:.*\.gif$"#, false),
        // The domain table's own: a domain, a domain with a path.
        (#"^[^:]+:\/\/+([^:\/]+\.)?cdn\.test[/:]"#, false),
        (#"^[^:]+:\/\/+([^:\/]+\.)?b\.test\/p"#, false),
        // No domain gate, gated by their best run: the domain does not end the host (`yandex.*`),
        // a case-sensitive letter.
        (#"^[^:]+:\/\/+([^:\/]+\.)?yandex\..*\/clck\/"#, false),
        (#"^[^:]+:\/\/+([^:\/]+\.)?stats.*\.ads\.test[/:]"#, false),
        (#"^[^:]+:\/\/+([^:\/]+\.)?Up\.test[/:].*x"#, true),
        // No gate at all (punctuation): the `||` stage.
        (#"^[^:]+:\/\/+([^:\/]+\.)?-.*&"#, false),
    ]

    static var json: String {
        "[" + filters.map { entry in
            #"{"trigger":{"url-filter":"\#(entry.filter.replacing("\\", with: "\\\\"))","url-filter-is-case-sensitive":\#(entry.caseSensitive)},"action":{"type":"block"}}"#
        }.joined(separator: ",") + "]"
    }

    static func urls() -> [String] {
        let hosts = ["ads.test", "x.ads.test", "xads.test", "ads.test.x", "cdn.test", "b.test", "yandex.ru", "stats1.ads.test",
                     "Up.test", "up.test", "a.b.test", "ADS.TEST", "stats.ads.test", "a-b.test", "x.-.test",
                     // D after no label, after a byte other than `.`, with a port.
                     ".ads.test", "user@ads.test", "user@x.ads.test", "x.ads.test:8080",
                     // A gate after the host prefix (`yandex.`) where a label begins, and elsewhere.
                     "a.yandex.ru", "xyandex.ru", "a.xyandex.ru", ".yandex.ru", "a..yandex.ru", "q.test/yandex.ru", "stats.x.ads.test"]
        let rests = ["/", "/ga.js", "/x/y", "/ads/p", "/p", "//p", ":8080/a.gif", "/a.gif", "/clck/", "/q/x", "/?x", "/x/ga.js", "/?a&b", ""]
        var result: [String] = []
        for host in hosts {
            for rest in rests {
                result.append("https://" + host + rest)
                result.append("http:///" + host + rest)
            }
        }
        return result
    }

    @Test(arguments: [false, true]) func domainGatedPatternsAnswerLikeTheOracle(smallStages: Bool) throws {
        // With the default limits the four `||` patterns left are too few for gates apart: they
        // stay in the stage; with stages of 2, three of them have gates apart.
        let limits = smallStages ? AutomataLimits(minimumPatternsPerStage: 2) : AutomataLimits.default
        let (list, _) = try RuleListCompiler.compile(json: Array(Self.json.utf8), limits: limits)
        let read = try CompiledRuleList(validating: list.serialized())
        // Three domains gate four patterns; the rest are the table's, the stage's and, with small
        // stages, the gates' apart.
        let gated = try #require(read.file.urlPrograms.gated)
        #expect(gated.groups.count == (smallStages ? 3 + 3 : 3))
        #expect(read.file.urlPrograms.domains.count == 2 + 3)
        #expect(read.file.urlPrograms.stages.count == 1, "the `||` patterns without a gate")
        // With gates apart, `||yandex.*/clck/` runs from where `yandex.` begins a host label.
        #expect(gated.starts.contains(.hostLabelGate(length: "yandex.".count)) == smallStages)
        // The compiler's sets are made to be written (no image): run, they answer as the file's.
        let written = list.file.urlPrograms
        #expect(written == read.file.urlPrograms && written.prepared() == written)
        var ends: [Int] = []
        for url in Self.urls().map({ Array(CanonicalURL($0).string.utf8) }) {
            var fromWritten: [UInt32] = [], fromRead: [UInt32] = []
            let runs = url.withUnsafeBufferPointer { bytes in
                (written.run(bytes, ends: &ends) { fromWritten.append($0) }, read.file.urlPrograms.run(bytes, ends: &ends) { fromRead.append($0) })
            }
            #expect(fromWritten == fromRead && runs.0 == runs.1)
        }
        let evaluator = Evaluator(read)
        let oracle = ReferenceEvaluator(try ReferenceRuleList(try RuleListParser.parse(Self.json).get()))
        var blocked = 0
        for url in Self.urls() {
            let page = CanonicalURL("https://page.test/")
            let request = Request(url: CanonicalURL(url), mainDocumentURL: page, frameURL: page, resourceType: .image)
            let expected = try oracle.outcome(for: request)
            #expect(evaluator.outcome(for: request) == expected, "\(url)")
            if !expected.actions.isEmpty { blocked += 1 }
        }
        #expect(blocked > 20, "the URLs reach the patterns")
    }

    /// abp2blocklist's `||D^` (`^https?://([^/]+\.)?D([^-_.%a-z0-9].*)?$`) for enough domains to
    /// make a host context, and its patterns with a loop after D's first separator, some sharing
    /// a D, some of a D of no plain pattern, one with a D that ends no host.
    static let contextJSON: String = {
        let prefix = #"^https?://([^/]+\.)?"#
        let plain = (0..<40).map { prefix + "d\($0)" + #"\.test([^-_.%a-z0-9].*)?$"# }
        let gated = [
            prefix + #"d1\.test[^-_.%a-z0-9].*\/ga\.js"#, prefix + #"d1\.test/.*x"#, prefix + #"ads\.test[^-_.%a-z0-9].*\?a"#,
            prefix + #"ads\.test:.*\.gif$"#, prefix + #"yandex\..*\/clck\/"#, prefix + #"d2\.test/.*"#,
        ]
        return "[" + (plain + gated).map { filter in
            #"{"trigger":{"url-filter":"\#(filter.replacing("\\", with: "\\\\"))"},"action":{"type":"block"}}"#
        }.joined(separator: ",") + "]"
    }()

    @Test func contextGatedPatternsAnswerLikeTheOracle() throws {
        let (list, _) = try RuleListCompiler.compile(json: Array(Self.contextJSON.utf8))
        let read = try CompiledRuleList(validating: list.serialized())
        let programs = read.file.urlPrograms
        #expect(programs.hostContexts.count == 1)
        // D1, ads.test and d2 gate the patterns with a loop; yandex.* (D ends with `.`) is not the
        // context's: an anchored pattern built whole with a loop, gated by its best run after it.
        let gated = try #require(programs.gated)
        #expect(gated.groups.count == 4 && gated.starts.allSatisfy { $0 == .urlStart })
        let hosts = ["d1.test", "x.d1.test", "xd1.test", "d1.test.x", "ads.test", "a.ads.test", "ADS.test", "d2.test", "yandex.ru",
                     "user@d1.test", "d1.test:8080", "u:p@ads.test", "d3.test"]
        let rests = ["/", "/ga.js", "/x/ga.js", "/x", "?a", ":80/?a", ":1/a.gif", "/clck/", "", "/?a&b"]
        let blocked = try Self.answersLikeTheOracle(read, Self.contextJSON, schemes: ["https://", "http://", "ws://"], hosts, rests)
        #expect(blocked > 50, "the URLs reach the patterns")
    }

    /// Asks `read` (compiled from `json`) and the oracle about every scheme, host and rest, expecting
    /// equal outcomes; returns how many requests the oracle gave actions.
    static func answersLikeTheOracle(
        _ read: CompiledRuleList, _ json: String, schemes: [String], _ hosts: [String], _ rests: [String]
    ) throws -> Int {
        let evaluator = Evaluator(read)
        let oracle = ReferenceEvaluator(try ReferenceRuleList(try RuleListParser.parse(json).get()))
        let page = CanonicalURL("https://page.test/")
        var blocked = 0
        for host in hosts {
            for rest in rests {
                for scheme in schemes {
                    let url = scheme + host + rest
                    let request = Request(url: CanonicalURL(url), mainDocumentURL: page, frameURL: page, resourceType: .image)
                    let expected = try oracle.outcome(for: request)
                    #expect(evaluator.outcome(for: request) == expected, "\(url)")
                    if !expected.actions.isEmpty { blocked += 1 }
                }
            }
        }
        return blocked
    }

    /// adblock-rust's spelling: nothing after D (open domains), D then a loop (open gates), D then
    /// a literal `^` and a loop (a gate of the context's other entries), a path, an end anchor.
    static let openJSON: String = {
        let prefix = #"^[^:]+:(//)?([^/]+\.)?"#
        let open = (0..<40).map { prefix + "d\($0)" + #"\.test"# }
        let others = [
            prefix + #"yandex\..*\/clck\/"#, prefix + #"d1\.test.*\/ga\.js"#, prefix + #"ads\.test\^.*\?a"#, prefix + #"d2\.test/x"#,
            prefix + #"d3\.test$"#, prefix + "ad", prefix + #"ads\.test.*\.gif$"#,
        ]
        return "[" + (open + others).map { filter in
            #"{"trigger":{"url-filter":"\#(filter.replacing("\\", with: "\\\\"))"},"action":{"type":"block"}}"#
        }.joined(separator: ",") + "]"
    }()

    @Test func openDomainsAndTheirGatesAnswerLikeTheOracle() throws {
        let (list, _) = try RuleListCompiler.compile(json: Array(Self.openJSON.utf8))
        let read = try CompiledRuleList(validating: list.serialized())
        let programs = read.file.urlPrograms
        #expect(programs.hostContexts.count == 1 && programs.hostContexts[0].open.count >= 41)
        #expect(try #require(programs.gated).groups.count >= 3)
        let hosts = ["d1.test", "x.d1.test", "xd1.test", "d1.testing", "d1.test.x", "d10.test", "D1.TEST", "ads.test", "adserver.x",
                     "a.ads.test", "yandex.ru", "YANDEX.com", "a.yandex", "d2.test", "d3.test", "user@d1.test", "d1.test:8080", "u:p@ads.test"]
        let rests = ["/", "/ga.js", "/x/ga.js", "/x", "?a", "^?a", ":80/?a", ":1/a.gif", "/clck/", "", "/?a&b"]
        let blocked = try Self.answersLikeTheOracle(read, Self.openJSON, schemes: ["https://", "http://", "ws://", "data:"], hosts, rests)
        #expect(blocked > 100, "the URLs reach the patterns")
    }
}
