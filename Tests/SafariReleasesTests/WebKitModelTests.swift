// WebKit's figures without WebKit: the shape of a list as WebKit's prefix trees hold it and the
// rules that own their nodes, the lists the model is fitted on, the fit (leave one family out)
// and the committed model file.
// Covers Sources/SafariReleases/WebKitShape.swift, WebKitAutomata.swift, WebKitBytecode.swift,
// WebKitModelCorpus.swift, WebKitModelFit.swift and WebKitSizeModel.swift.

import ContentBlocker
import ContentRuleList
import URLFilterSyntax
import Foundation
@testable import Corpus
@testable import SafariReleases
import Testing
import TestSupport

@Suite struct WebKitShapeTests {
    func shape(_ json: String) throws -> WebKitShape {
        guard case .success(let list) = RuleListParser.parse(Array(json.utf8)) else { throw CancellationError() }
        return WebKitShape(list)
    }

    /// Shared prefixes are one set of nodes; a rule owns the nodes only it reaches; a domain
    /// becomes a page-URL pattern; a selector is its rule's; each tree has its automata.
    @Test func countsPrefixTreeNodesAndTheRulesThatOwnThem() throws {
        let shape = try shape(
            #"[{"trigger":{"url-filter":"abc"},"action":{"type":"block"}},"#
                + #"{"trigger":{"url-filter":"abd"},"action":{"type":"block"}},"#
                + #"{"trigger":{"url-filter":"ABC"},"action":{"type":"block"}},"#
                + #"{"trigger":{"url-filter":"^x.*y","if-domain":["a.com","*b.com"]},"action":{"type":"css-display-none","selector":".ad"}}]"#)
        #expect(shape.counts(.url).nodes == 4, "a, b, c, d: ABC is abc case-insensitively")
        #expect(shape.counts(.url).patterns == 2)
        #expect(shape.counts(.url).unanchoredNodes == 4)
        #expect(shape.counts(.conditionedURL).nodes == 5)
        #expect(shape.counts(.conditionedURL).unanchoredNodes == 0)
        #expect(shape.counts(.conditionedURL).repetitions == 1)
        let (a, b) = (WebKitShape.domainPattern("a.com"), WebKitShape.domainPattern("*b.com"))
        #expect(a == #"^[a-z][a-z+.-]*:\/\/a\.com[:/]"#)
        #expect(b == #"^[a-z][a-z+.-]*:\/\/([^/]*\.)*b\.com[:/]"#)
        let shared = zip(a.utf8, b.utf8).prefix { $0 == $1 }.count
        #expect(shape.counts(.topURL).nodes == a.utf8.count + b.utf8.count - shared)
        #expect(shape.selectorBytes == 3)
        for tree in [WebKitShape.Tree.url, .conditionedURL, .topURL] {
            #expect(shape.counts(tree).nfas >= 1 && shape.counts(tree).states > 0 && shape.counts(tree).ranges > 0, "\(tree)")
        }
        let costs = Dictionary(uniqueKeysWithValues: shape.rules.map { ($0.rule, $0) })
        #expect(costs[0] == nil, "rules 0 and 2 share every node of abc: removing either removes none")
        #expect(costs[1]?.nodes[.url] == 1, "d")
        #expect(costs[2] == nil)
        #expect(costs[3]?.nodes[.topURL] == shape.counts(.topURL).nodes, "one rule's two domains")
        #expect(costs[3]?.nodes[.conditionedURL] == 5)
        #expect(costs[3]?.selectorBytes == 3)
        #expect((costs[3]?.states[.topURL] ?? 0) > 0)
    }

    /// WebKit's grouping: patterns that share their terms up to the last quantified one.
    @Test func groupsPatternsAsWebKitMakesItsNFAs() throws {
        func group(_ pattern: String) throws -> String {
            guard case .success(let filter) = URLFilterParser.parse(pattern) else { throw CancellationError() }
            return WebKitAutomata.group(filter)
        }
        #expect(try group(#"^[^:]+://+([^:/]+\.)?ads\.com[/:]"#) == #"^[^:]+://+([^:/]+\.)?"#)
        #expect(try group("ads") == ".*")
        #expect(try group("^https://a") == "^")
        #expect(try group("a.*b") == ".*a.*")
    }

    /// The url automata's bytecode counted as WebKit writes it: the bytes of WebKitGTK 2.50's url
    /// section for each list (`webkit-compile`, its header's `url`), to the byte.
    @Test func countsTheBytecodeAsWebKitWritesIt() throws {
        func list(_ filters: [String]) -> String {
            "[" + filters.map { #"{"trigger":{"url-filter":"\#($0)"},"action":{"type":"block"}}"# }.joined(separator: ",") + "]"
        }
        let host = #"^[^:]+://+([^:/]+\\.)?"#
        let lists: [([String], Int)] = [
            ([host + #"example\\.com[/:]"#], 413),
            ([host + #"example\\.com[/:]"#, host + #"exbmple\\.org[/:]"#, host + #"track\\.net[/:]"#], 981),
            (["tracker", "/ads/", "banner"], 245),
            ([#"tracker\\.js"#, "/ads/", "banner", #"pixel\\.gif"#, "&utm_"], 814),
            ([#"^https?://example\\.com/ad"#], 98),
        ]
        for (filters, bytes) in lists {
            #expect(try shape(list(filters)).counts(.url).bytecode == bytes, "\(filters)")
        }
    }

    /// A rule with a condition has an action of its own; the others share one per type and flags;
    /// selectors of one trigger are joined.
    @Test func serializesTheActionsAsWebKitDoes() throws {
        let shape = try shape(
            #"[{"trigger":{"url-filter":"a"},"action":{"type":"block"}},"#
                + #"{"trigger":{"url-filter":"b"},"action":{"type":"block"}},"#
                + #"{"trigger":{"url-filter":"c","resource-type":["script"]},"action":{"type":"block"}},"#
                + #"{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":".x"}},"#
                + #"{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":".yy"}},"#
                + #"{"trigger":{"url-filter":"d","if-domain":["a.com"]},"action":{"type":"block"}}]"#)
        // block, block with its flags, the conditioned block, then ".x,.yy" (type, length, width, text).
        #expect(shape.actionBytes == 1 + 1 + 1 + (1 + 4 + 1 + 6))
    }
}

@Suite struct WebKitModelCorpusTests {
    /// Every family is made, from seeded subsets: the same lists every time, each a JSON array of
    /// the named size.
    @Test func makesFamiliesOfListsFromTheShippedRules() throws {
        let rules = (0..<2_000).map { #"{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?d\#($0)\\.com[/:]"},"action":{"type":"block"}}"# }
        let json = Array(("[" + rules.joined(separator: ",") + "]").utf8)
        let small = Array(("[" + rules.prefix(400).joined(separator: ",") + "]").utf8)
        let lists = WebKitModelCorpus.lists(shipped: [("easylist", json), ("small", small)])
        #expect(lists.map(\.name) == WebKitModelCorpus.lists(shipped: [("easylist", json), ("small", small)]).map(\.name))
        #expect(lists.contains { $0.name == "easylist[:1000]" && JSONElementCount.count($0.json) == 1_000 })
        #expect(lists.contains { $0.name == "easylist~0.3" && JSONElementCount.count($0.json) == 600 })
        #expect(lists.contains { $0.name == "small~0.6" && JSONElementCount.count($0.json) == 240 })
        #expect(!lists.contains { $0.name == "small~0.1" }, "40 rules: too few to fit on")
        #expect(lists.contains { $0.family == "easylist@abp2blocklist" && $0.json != json })
        #expect(!lists.contains { $0.family == "mix" }, "no mix as big as the pool, and no easyprivacy to follow easylist")
        let drawn = try #require(lists.first { $0.name == "easylist~0.3" })
        #expect(drawn.json == WebKitModelCorpus.lists(shipped: [("easylist", json)]).first { $0.name == "easylist~0.3" }?.json)
        for list in lists { #expect(RuleListParser.check(list.json, collectingEveryError: false).verdict.isSuccess, "\(list.name)") }
    }
}

extension Result {
    fileprivate var isSuccess: Bool { if case .success = self { true } else { false } }
}
@Suite struct WebKitSizeModelTests {
    /// The least relative squares recover exact coefficients and drop a negative one.
    @Test func fitsALinearSumToTheLeastRelativeError() {
        let rows = [[1.0, 10], [2, 5], [3, 30], [10, 1]]
        let exact = WebKitSizeModel.linear(rows, rows.map { 4 * $0[0] + 0.5 * $0[1] })
        #expect(abs(exact[0] - 4) < 1e-9 && abs(exact[1] - 0.5) < 1e-9)
        let negative = WebKitSizeModel.linear(rows, rows.map { 4 * $0[0] - 0.1 * $0[1] + 2 })
        #expect(negative[1] == 0 && negative[0] > 0)
    }

    /// The fit recovers an exact power law; the committed model loads and states, for each
    /// figure, its error on every shipped list left out of its fit.
    @Test func fitsAPowerLawAndTheCommittedModelLoads() throws {
        let law = WebKitSizeModel.fit([(10, 30), (100, 300), (1_000, 3_000)].map { (x: Double($0.0), y: Double($0.1)) })
        #expect(abs(law.slope - 1) < 1e-9)
        #expect(abs(law.predict(50) - 150) < 1e-6)
        let model = try #require(WebKitSizeModel.load(corpora: repositoryRoot + "/Corpora"))
        let lists = try CorpusManifest.load(root: repositoryRoot + "/Corpora").entries(ofKind: "rules").map(\.name)
        #expect(Set(lists).isSubset(of: model.families))
        for figure in WebKitSizeModel.Figure.allCases {
            let stated = try #require(model.law(figure), "\(figure)")
            #expect(stated.unseen.count == model.samples.count, "every sample predicted once, by terms fitted without its list")
            #expect(stated.worstUnseenError.isFinite)
            #expect(model.tried.filter { $0.figure == figure }.count == WebKitModelFit.candidates(figure).count)
        }
        let values = Dictionary(uniqueKeysWithValues: WebKitSizeModel.Predictor.allCases.map { ($0, 1_000.0) })
        let prediction = model.predict(ListFigures(values: values))
        #expect(prediction.bytesError == model.bytes.worstUnseenError(rules: 1_000))
        #expect(prediction.seconds != nil && prediction.memoryBytes != nil)
    }

    /// Leave one list out: with WebKit's bytes an exact power law of the patterns, every unseen
    /// list is predicted exactly and the fit predicts from the patterns, and the time, a law of
    /// the bytes, from the predicted bytes; with one list off the law, its error shows it.
    @Test func eachListIsPredictedByALawFittedWithoutIt() throws {
        func sample(_ source: String, _ patterns: Double, bytes: Double) -> WebKitModelFit.Sample {
            var values = Dictionary(uniqueKeysWithValues: WebKitSizeModel.Predictor.allCases.map { ($0, 3.0) })
            values[.patterns] = patterns
            values[.jsonBytes] = patterns * 37 + patterns * patterns
            values[.webKitBytes] = nil
            return WebKitModelFit.Sample(
                list: source, family: source, figures: ListFigures(values: values),
                webKit: [.bytes: bytes, .seconds: 1e-6 * pow(bytes, 0.9)], webKitParts: (bytes, 1, 1))
        }
        let exact = [("a", 100.0), ("b", 1_000), ("c", 10_000), ("d", 100_000)].map { sample($0.0, $0.1, bytes: 20 * pow($0.1, 1.2)) }
        let model = try #require(WebKitModelFit.fit(exact, webKit: "test"))
        #expect(model.bytes.terms.map(\.from) == [.patterns])
        #expect(model.bytes.worstUnseenError < 1e-6)
        #expect(model.seconds.worstUnseenError < 1e-6)
        #expect(model.memory == nil)
        var bent = exact
        bent[3].webKit[.bytes] = 2 * (bent[3].webKit[.bytes] ?? 0)
        let patterns = try #require(WebKitModelFit.candidates(.bytes).first { $0.from == [.patterns] })
        let unseen = WebKitModelFit.unseenErrors(bent, .bytes, patterns, bytes: nil)
        #expect(abs((unseen.first { $0.list == "d" }?.error ?? 0) + 50) < 1e-6, "d, unseen, is twice what the others' law says")
        #expect(unseen.contains { $0.list != "d" && abs($0.error) > 1 }, "a law fitted with d misses the others")
        #expect(WebKitModelFit.fit(Array(exact.prefix(1)), webKit: "test") == nil)
    }
}
