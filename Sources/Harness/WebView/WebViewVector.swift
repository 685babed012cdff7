// WebViewVector.swift — Harness
//
// A vector of what a web view showed (the `webViewVectors` kind of the vector file format): a rule
// list, pages loaded one after another, and for each page what WebKit did with each request it
// made and each element it held:
//
//   {"test": "...", "rules": "<rule list JSON>",
//    "pages": [{"url": "http://www.alpha.test/",
//               "requests": [{"url": "https://ads.alpha.test/ad.png", "type": "image",
//                             "webKit": "blocked" | "sent" | "made https" (+ " without cookies")}],
//               "elements": [{"selector": ".ad", "webKit": "hidden" | "shown"}]}],
//    "knownFailure": "..."}
//
// `type` is a webRequest type (image, script, stylesheet, subdocument, xhr, fetch, media, font,
// other). `blockbench conform --against webkit-view --vectors FILE` loads the pages in WebKit and
// checks that WebKit still does what the vector says and that BlockBench does the same; the vector
// runner without a web view (`conform --vectors`, the tests) checks BlockBench's requests, as
// ViewPlan models them. Elements need a browser's selector engine and are checked only in the web
// view.

internal import ContentRuleList
internal import RequestContext

public struct WebViewVector: Codable, Sendable {
    public struct Page: Codable, Sendable {
        public struct Load: Codable, Sendable {
            public var url: String
            public var type: String
            public var webKit: String

            public init(url: String, type: String, webKit: String) {
                self.url = url
                self.type = type
                self.webKit = webKit
            }
        }
        public struct Element: Codable, Sendable {
            public var selector: String
            public var webKit: String

            public init(selector: String, webKit: String) {
                self.selector = selector
                self.webKit = webKit
            }
        }
        public var url: String
        public var requests: [Load]
        public var elements: [Element]

        public init(url: String, requests: [Load], elements: [Element]) {
            self.url = url
            self.requests = requests
            self.elements = elements
        }
    }

    public var test: String
    public var rules: String
    public var pages: [Page]
    public var knownFailure: String?

    public init(test: String, rules: String, pages: [Page], knownFailure: String? = nil) {
        self.test = test
        self.rules = rules
        self.pages = pages
        self.knownFailure = knownFailure
    }

    /// The pages as one web view loads them, each page's elements as its targets.
    public var plan: ViewPlan {
        var plan = ViewPlan.make(pages: pages.map { page in
            (page.url, page.requests.enumerated().map { offset, load in
                CorpusRequest(
                    row: offset + 1,
                    request: Request(
                        url: CanonicalURL(load.url), mainDocumentURL: CanonicalURL(page.url), frameURL: CanonicalURL(page.url),
                        resourceType: RequestSets.webRequestTypes[load.type] ?? .other, isMainFrameContext: true),
                    corpusType: load.type)
            })
        })
        for (index, page) in pages.enumerated() {
            plan.loads[index].targetSelectors = page.elements.map(\.selector)
        }
        return plan
    }

    /// What WebKit did, as the vector says, in the order `WebViewResult.verdicts` lists it.
    public var expected: [ViewVerdict] {
        var verdicts: [ViewVerdict] = []
        for (index, page) in pages.enumerated() {
            for load in page.requests {
                verdicts.append(ViewVerdict(page: index, url: load.url, type: ViewElementKind(webRequestType: load.type).map { "\($0)" } ?? load.type, webKit: load.webKit, ours: ""))
            }
            for element in page.elements {
                verdicts.append(ViewVerdict(page: index, url: element.selector, type: "element", webKit: element.webKit, ours: ""))
            }
        }
        return verdicts
    }

    /// BlockBench's verdict on each request, without a web view; nil when the list does not
    /// compile.
    func oursWithoutView() -> [(load: Page.Load, ours: String)]? {
        guard case .success(let list) = RuleListParser.parse(Array(rules.utf8)),
            let matcher = try? ConformanceEngine.blockBench.compile(list)()
        else { return nil }
        var answers: [(Page.Load, String)] = []
        let plan = self.plan
        for (index, page) in pages.enumerated() {
            for (load, request) in zip(page.requests, plan.loads[index].subresources) {
                let actions = matcher(request.request).actions.flattened
                let blocks = actions.contains(.block)
                // Every host has a cookie in the web view, and every request kind sends it.
                let strips = !blocks && actions.contains(.blockCookies)
                answers.append((load, WebViewConformance.verdict(blocks: blocks, upgrades: !blocks && actions.contains(.makeHTTPS), stripsCookies: strips)))
            }
        }
        return answers
    }
}

extension VectorRunner {
    /// The web-view vectors' requests through BlockBench alone.
    static func runWebViewVectors(_ file: VectorFile, into outcome: inout Outcome) {
        guard !file.webViewVectors.isEmpty else { return }
        var tally = KindTally()
        for vector in file.webViewVectors {
            guard let answers = vector.oursWithoutView() else {
                tally.record(false, knownFailure: vector.knownFailure, "web-view \(vector.test): the list does not compile")
                continue
            }
            let wrong = answers.filter { $0.ours != $0.load.webKit }
            tally.record(
                wrong.isEmpty, knownFailure: vector.knownFailure,
                "web-view \(vector.test): " + wrong.map { "\($0.load.url) (\($0.load.type)): WebKit \($0.load.webKit), ours \($0.ours)" }.joined(separator: "; "))
        }
        tally.close("web-view vectors (requests, without a web view)", into: &outcome)
    }
}
