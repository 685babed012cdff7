// WebViewTests.swift — the web-view comparison without a web view: how requests become pages, the
// markup built for selectors, and the verdicts read from two passes' logs (made up here as a
// server would write them). Running WebKit itself is `blockbench conform --against webkit-view`.

import ContentRuleList
import Foundation
import RequestContext
import Testing
@testable import Conformance
@testable import Corpus
@testable import Engines

@Suite struct WebViewTests {
    static func row(_ url: String, page: String, type: String, row: Int = 1) -> CorpusRequest {
        let pageURL = CanonicalURL(page)
        return CorpusRequest(
            row: row,
            request: Request(url: CanonicalURL(url), mainDocumentURL: pageURL, frameURL: pageURL, resourceType: RequestSets.webRequestTypes[type] ?? .other, isMainFrameContext: true),
            corpusType: type)
    }

    @Test func requestsBecomePageLoadsAsWebKitSeesThem() {
        let plan = ViewPlan.make([
            Self.row("https://ads.example/a.png", page: "https://site.example/", type: "image", row: 1),
            Self.row("https://ads.example/a.png", page: "https://site.example/", type: "script", row: 2),  // the same URL, another type
            Self.row("https://cdn.example/f.html", page: "https://site.example/", type: "subdocument", row: 3),
            Self.row("https://t.example/p", page: "https://", type: "xhr", row: 4),  // no page host
            Self.row("https://other.example/", page: "https://other.example/", type: "script", row: 5),  // its own page
            Self.row("wss://ws.example/", page: "https://site.example/", type: "websocket", row: 6),
            Self.row("https://ads.example/a.png", page: "https://site.example/", type: "image", row: 7),  // row 1 again
        ])
        #expect(plan.leftOut == ["websocket": 1, "repeats an earlier row": 1])
        #expect(plan.loads.map(\.url) == ["https://site.example/", "https://site.example/", "https://\(ViewPlan.neutralHost)/"])
        #expect(plan.loads[0].subresources.map(\.row) == [1, 3])
        #expect(plan.loads[1].subresources.map(\.row) == [2], "one URL once per load")
        #expect(plan.loads[2].subresources.map(\.row) == [4, 5])
        // An iframe's own load comes from a child frame still showing about:blank.
        let frame = plan.loads[0].subresources[1].request
        #expect(frame.resourceType == .childDocument && !frame.isMainFrameContext && frame.frameURL.string == "about:blank")
        // A navigation's frame URL is the page before it; the first page's is itself.
        #expect(plan.loads.map(\.document.request.frameURL.string) == ["https://site.example/", "https://site.example/", "https://site.example/"])
        let shard = plan.shard(2, of: 2)
        #expect(shard.loads.map(\.url) == ["https://\(ViewPlan.neutralHost)/"], "whole pages per shard")
        #expect(shard.loads[0].document.request.frameURL.string == "https://\(ViewPlan.neutralHost)/", "renumbered for the shard's own view")
    }

    @Test func aSampleIsSpreadOverTheSet() {
        let rows = (0..<100).map { Self.row("https://x.example/\($0).png", page: "https://p\($0).example/", type: "image", row: $0 + 1) }
        let sample = ViewPlan.make(rows).sample(requests: 10)
        #expect(sample.loads.count == 10)
        #expect(sample.loads.map(\.url).last == "https://p90.example/")
        #expect(sample.loads.map(\.index) == Array(0..<10))
    }

    @Test func markupMatchesItsSelector() {
        #expect(TargetMarkup.markup(for: ".ad", id: 1) == "<div><div class=\"ad\" data-bb=\"1\"></div></div>")
        #expect(TargetMarkup.markup(for: "aside > a[href^=\"http://ad\"]", id: 2) == "<div><aside><a href=\"http://ad-x\" data-bb=\"2\"></a></aside></div>")
        #expect(TargetMarkup.markup(for: "[lang|=en]", id: 6) == "<div><div lang=\"en-x\" data-bb=\"6\"></div></div>")
        #expect(TargetMarkup.markup(for: "div#top.ad.big", id: 3) == "<div><div id=\"top\" class=\"ad big\" data-bb=\"3\"></div></div>")
        #expect(TargetMarkup.markup(for: ".a + .b", id: 4) == "<div><div class=\"a\"></div><div class=\"b\" data-bb=\"4\"></div></div>")
        #expect(TargetMarkup.markup(for: "[class*=\"sponsor\" i]", id: 5) == "<div><div class=\"x-sponsor-x\" data-bb=\"5\"></div></div>")
        for refused in ["a:not(.b)", "script.ad", "img[src*=ad]", "[hidden]", ".a\\:b", "div, span", ""] {
            #expect(TargetMarkup.markup(for: refused, id: 9) == nil, "\(refused)")
        }
        #expect(WebViewConformance.split("a, b[x=\"1,2\"], :is(c, d)") == ["a", "b[x=\"1,2\"]", ":is(c, d)"])
    }

    @Test func verdictsComeFromTheTwoPasses() throws {
        let rules = """
            [{"trigger": {"url-filter": "blocked"}, "action": {"type": "block"}},
             {"trigger": {"url-filter": "^http://up"}, "action": {"type": "make-https"}},
             {"trigger": {"url-filter": "crumb"}, "action": {"type": "block-cookies"}},
             {"trigger": {"url-filter": "pixel"}, "action": {"type": "css-display-none", "selector": ".ad"}}]
            """
        let list = try RuleListParser.parse(Array(rules.utf8)).get()
        let matcher = try ConformanceEngine.blockBench.compile(list)()
        var plan = ViewPlan.make([
            Self.row("http://a.example/blocked.png", page: "http://site.example/", type: "image", row: 1),
            Self.row("http://up.example/x.js", page: "http://site.example/", type: "script", row: 2),
            Self.row("http://a.example/crumb.gif", page: "http://site.example/", type: "image", row: 3),
            Self.row("http://a.example/pixel.gif", page: "http://site.example/", type: "image", row: 4),
            Self.row("http://a.example/never.gif", page: "http://site.example/", type: "image", row: 5),
        ])
        plan.loads[0].targets = [ViewTarget(id: 1, selector: ".ad", html: ""), ViewTarget(id: 2, selector: ".other", html: "")]
        plan.loads[0].candidates = [[".ad"]]
        let outcomes = plan.loads.map { load in ([load.document] + load.subresources).map { matcher($0.request) } }
        func logged(_ url: String, cookie: Bool = true) -> ViewLoggedRequest {
            ViewLoggedRequest(page: 0, method: "GET", url: url, cookie: cookie ? "bb=1" : nil)
        }
        let sent = ["http://site.example/", "http://a.example/blocked.png", "http://up.example/x.js", "http://a.example/crumb.gif", "http://a.example/pixel.gif"]
        let control = ViewPass(
            requestsByPage: [0: sent.map { logged($0) }],
            pages: [0: ViewPageReport(loaded: true, hidden: [], matches: [[1]], reported: true)], seconds: 0)
        let withList = ViewPass(
            requestsByPage: [0: [logged("http://site.example/"), logged("https://up.example/x.js"), logged("http://a.example/crumb.gif", cookie: false), logged("http://a.example/pixel.gif")]],
            pages: [0: ViewPageReport(loaded: true, hidden: [1], matches: [[1]], reported: true)], seconds: 0)
        var conformance = WebViewConformance(runner: WebViewRunner(), scratch: "/nonexistent")
        conformance.recordsVerdicts = true
        let result = conformance.compare(plan: plan, outcomes: outcomes, control: control, withList: withList)
        #expect(result.differences.isEmpty, "\(result.differences)")
        #expect(result.compared == 4 && result.leftOut == ["not sent in the control run (image)": 1])
        #expect(result.blockedByBoth == 1 && result.madeHTTPSByBoth == 1 && result.cookiesBlockedByBoth == 1)
        #expect(result.elements == 2 && result.hiddenByBoth == 1)
        #expect(result.verdicts.map(\.webKit) == ["sent", "blocked", "made https", "sent without cookies", "sent", "hidden", "shown"])

        // WebKit sending what BlockBench blocks, and hiding what it shows, are differences.
        let leaky = ViewPass(
            requestsByPage: [0: sent.map { logged($0) }],
            pages: [0: ViewPageReport(loaded: true, hidden: [1, 2], matches: [[1]], reported: true)], seconds: 0)
        let different = conformance.compare(plan: plan, outcomes: outcomes, control: control, withList: leaky)
        #expect(different.differences.map(\.row) == [1, 2, 3, -1])
        #expect(different.differences.last?.url == ".other")
    }
}
