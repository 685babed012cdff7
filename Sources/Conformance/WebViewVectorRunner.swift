// WebViewVectorRunner.swift — Conformance
//
// A web-view vector (Corpus: WebViewVector.swift) as the web view loads it (its `plan`), what WebKit
// did as the vector says (`expected`), and BlockBench's verdicts on its requests without a web
// view, as ViewPlan models them: the vector runner's `web-view vectors` kind.
// Tested by BlockBenchCLITests (VectorRunnerTests: the shipped web-view vectors, a wrong one).

internal import ContentRuleList
public import Corpus
public import Engines
internal import RequestContext
internal import SafariReleases

extension WebViewVector {
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

    /// BlockBench's verdict on each request, without a web view, the list read as `profile`'s
    /// release reads it; nil when the list does not compile.
    func oursWithoutView(profile: SafariProfile = .newest) -> [(load: Page.Load, ours: String)]? {
        guard case .success(let list) = ProfiledCompile.parse(Array(rules.utf8), profile: profile),
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
    static func runWebViewVectors(_ file: VectorFile, profile: SafariProfile = .newest, into outcome: inout Outcome) {
        guard !file.webViewVectors.isEmpty else { return }
        var tally = KindTally()
        for vector in file.webViewVectors {
            guard let answers = vector.oursWithoutView(profile: profile) else {
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
