// WebViewVector.swift — Corpus
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
// ViewPlan models them (Conformance: WebViewVectorRunner.swift). Elements need a browser's selector
// engine and are checked only in the web view.
// Tested by BlockBenchCLITests (VectorRunnerTests: the shipped web-view vectors, a wrong one).

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

}
