// ViewWorldGenerator.swift — Fuzzing
//
// Small rule lists and the pages to try them on, for `blockbench conform --against webkit-view
// --generated N`: every action (block, block-cookies, css-display-none, make-https,
// ignore-previous-rules, ignore-following-rules, css-display-none matching every URL), flags and
// conditions over a small world of hosts, paths and selectors, so that a web view shows holes no
// vector was written for. One seed gives one world, the same on every machine.
// No unit test: its worlds are loaded in a real web view by `conform --against webkit-view
// --generated` (.ci/run).

import ContentRuleList
import Foundation
public import Corpus
import RequestContext

public struct ViewWorldGenerator {
    static let pages = ["http://www.alpha.test/", "https://www.beta.test/news", "http://gamma.test/", "https://shop.alpha.test/"]
    static let hosts = ["ads.alpha.test", "cdn.delta.test", "tracker.epsilon.test", "www.alpha.test", "img.beta.test"]
    static let paths = ["/ad.png", "/banner.js", "/site.css", "/frame.html", "/api?id=1", "/track.gif", "/pixel.png?x=ad"]
    static let types = ["image", "script", "stylesheet", "subdocument", "xhr", "fetch"]
    static let selectors = [".ad", "#banner", "div.sponsor", "span.promo", ".content", "[data-ad]", "aside > .promo", "div#top.ad"]
    static let filters = [".*", "ad", "^https?://ads\\.", "track", "\\.png", "banner", "^http://", "alpha", "^https://", "api\\?id=1$", "cdn"]
    static let domains = ["www.alpha.test", "*alpha.test", "beta.test", "*beta.test", "gamma.test", "delta.test"]
    static let topURLs = ["^http://", "alpha", "beta\\.test/news"]

    public init() {}

    /// A rule list of 2 to 9 rules (JSON text) and the requests of 2 to 4 page loads, as corpus
    /// rows (`sourceUrl` the page), and the selectors every page holds targets for.
    public func world(seed: UInt64) -> (rules: String, requests: [CorpusRequest], selectors: [String]) {
        var random = FuzzRandom(seed: seed)
        var rules: [[String: Any]] = []
        for _ in 0..<random.int(2...9) {
            var trigger: [String: Any] = ["url-filter": random.pick(Self.filters)]
            if random.chance(1, in: 4) {
                let count = random.int(1...2)
                trigger["resource-type"] = (0..<count).map { _ in random.pick(["image", "script", "style-sheet", "document", "fetch", "raw"]) }
            }
            if random.chance(1, in: 6) { trigger["load-type"] = [random.pick(["first-party", "third-party"])] }
            switch random.below(8) {
            case 0: trigger["if-domain"] = [random.pick(Self.domains)]
            case 1: trigger["unless-domain"] = [random.pick(Self.domains)]
            case 2: trigger["if-top-url"] = [random.pick(Self.topURLs)]
            case 3: trigger["unless-top-url"] = [random.pick(Self.topURLs)]
            default: break
            }
            let action: [String: Any] = random.weighted([
                (6, ["type": "block"]), (3, ["type": "block-cookies"]), (3, ["type": "make-https"]),
                (5, ["type": "css-display-none", "selector": random.pick(Self.selectors)]),
                (2, ["type": "ignore-previous-rules"]), (2, ["type": "ignore-following-rules"]),
            ])
            // A block or make-https that reaches the page's own load leaves nothing else of the
            // page to compare: most such rules keep to subresources.
            let type = action["type"] as? String
            if (type == "block" || type == "make-https") && trigger["resource-type"] == nil && random.chance(2, in: 3) {
                trigger["resource-type"] = ["image", "script", "style-sheet", "fetch", "raw", "media", "font"].filter { _ in random.chance(2, in: 3) }
                if (trigger["resource-type"] as? [String])?.isEmpty == true { trigger["resource-type"] = ["image"] }
            }
            rules.append(["trigger": trigger, "action": action])
        }
        // Now and then a css-display-none that matches every URL: the global style sheet, or a
        // listed action when it stands after an ignore rule.
        if random.chance(1, in: 2) {
            let at = random.int(0...rules.count)
            rules.insert(["trigger": ["url-filter": ".*"], "action": ["type": "css-display-none", "selector": random.pick(Self.selectors)]], at: at)
        }
        let data = (try? JSONSerialization.data(withJSONObject: rules, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        var requests: [CorpusRequest] = []
        for _ in 0..<random.int(2...4) {
            let page = random.pick(Self.pages)
            let scheme = page.hasPrefix("https") ? "https" : random.pick(["http", "https"])
            for _ in 0..<random.int(3...8) {
                let url = "\(scheme)://\(random.pick(Self.hosts))\(random.pick(Self.paths))"
                let type = random.pick(Self.types)
                guard let resourceType = RequestSets.webRequestTypes[type] else { continue }
                requests.append(CorpusRequest(
                    row: requests.count + 1,
                    request: Request(url: CanonicalURL(url), mainDocumentURL: CanonicalURL(page), frameURL: CanonicalURL(page), resourceType: resourceType, isMainFrameContext: true),
                    corpusType: type))
            }
        }
        return (String(decoding: data, as: UTF8.self), requests, Self.selectors)
    }
}
