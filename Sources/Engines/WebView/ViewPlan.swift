// ViewPlan.swift — Engines
//
// The pages a web view loads to show what WebKit does with a request set: each request becomes an
// element of a generated page whose URL is the request's page, and WebKit loads that element as
// it would on a real site. A page load holds at most `requestsPerLoad` requests and never the same
// URL twice; a page with more requests is loaded again.
//
// Requests are modelled as WebKit sees them from such a page, not as the corpus row says:
//  - a row without a page host (`https://`, `about:blank`), and a row whose URL is its page's
//    URL, is loaded from a neutral page on a host no list names (`ViewPlan.neutralHost`), so it is
//    a third-party subresource there;
//  - the page's own top-document load has, as its frame URL, the document the view held before
//    it (the previous page load; the page itself for the first), as WebKit evaluates frame-url
//    conditions of a navigation;
//  - a subresource's page and frame are the page, from the main frame; an iframe's own load is a
//    child-document load from a child frame whose document is still `about:blank`.
// Each row's webRequest type chooses the element (`ViewElementKind`); rows of a type no element
// produces (websocket, ping, main_frame) are left out and counted, and so is a row that repeats
// an earlier one (the same URL, page and type: the same request).
// Tested by ConformanceTests (WebViewTests).

public import ContentRuleList
public import RequestContext
public import Corpus

/// How a page makes one request.
public enum ViewElementKind: String, Sendable, CaseIterable {
    case image, script, styleSheet, childDocument, xhr, fetch, media, font, eventSource

    /// The element for a corpus row's webRequest type; nil when no element makes it.
    public init?(webRequestType: String) {
        switch webRequestType {
        case "image", "imageset": self = .image
        case "script": self = .script
        case "stylesheet": self = .styleSheet
        case "sub_frame", "subdocument": self = .childDocument
        case "xmlhttprequest", "xhr": self = .xhr
        case "fetch": self = .fetch
        case "media": self = .media
        case "font": self = .font
        case "other": self = .eventSource
        default: return nil
        }
    }

    /// The webRequest type that chooses this element.
    public var webRequestType: String {
        switch self {
        case .image: "image"
        case .script: "script"
        case .styleSheet: "stylesheet"
        case .childDocument: "subdocument"
        case .xhr: "xhr"
        case .fetch: "fetch"
        case .media: "media"
        case .font: "font"
        case .eventSource: "other"
        }
    }

    /// The resource type WebKit gives the load this element makes.
    public var resourceType: ResourceTypes {
        switch self {
        case .image: .image
        case .script: .script
        case .styleSheet: .styleSheet
        case .childDocument: .childDocument
        case .xhr, .fetch: .fetch
        case .media: .media
        case .font: .font
        case .eventSource: .other
        }
    }
}

/// One request a page load makes, as WebKit sees it.
public struct ViewRequest: Sendable {
    /// The corpus row (0 for the page's own document load).
    public var row: Int
    public var kind: ViewElementKind?
    public var request: Request
    /// The URL as the page writes it.
    public var url: String
}

/// An element whose style is read back: built to match `selector` (one complex selector).
public struct ViewTarget: Sendable {
    public var id: Int
    public var selector: String
    /// The markup: the element (with `data-bb="id"`) inside whatever ancestors and siblings the
    /// selector needs.
    public var html: String

    package init(id: Int, selector: String, html: String) {
        self.id = id
        self.selector = selector
        self.html = html
    }
}

/// One page load.
public struct ViewPageLoad: Sendable {
    public var index: Int
    public var url: String
    /// The page's own top-document load.
    public var document: ViewRequest
    public var subresources: [ViewRequest]
    public var targets: [ViewTarget] = []
    /// When set, the selectors the targets are built from (generated worlds, vectors); otherwise
    /// they are chosen from the list.
    public var targetSelectors: [String]?
    /// Selectors the page tests its targets against, read back with the targets each matches: a
    /// candidate of one entry is one selector list (one action's), read whole; a candidate of
    /// several is a set of separate rules (a share of the global style sheet), each read alone
    /// when the browser refuses them joined.
    public var candidates: [[String]] = []
    /// The candidates that hold the global style sheet.
    public var globalCandidates: Range<Int> = 0..<0
}

public struct ViewPlan: Sendable {
    public static let neutralHost = "www.blockbench-view.test"
    public var loads: [ViewPageLoad]
    /// Rows left out: by the webRequest type no element makes, or as a repeat of an earlier row.
    public var leftOut: [String: Int]

    /// Pages for `requests`, in the order their pages first appear.
    public static func make(_ requests: [CorpusRequest], requestsPerLoad: Int = 40) -> ViewPlan {
        var leftOut: [String: Int] = [:]
        // Page URL -> its loads' subresources, in first-appearance order.
        var pageOrder: [String] = []
        var pages: [String: [[ViewRequest]]] = [:]
        var urlsOfLoads: [String: [Set<String>]] = [:]
        var rowsSeen = Set<[String]>()
        for corpusRequest in requests {
            guard let kind = ViewElementKind(webRequestType: corpusRequest.corpusType) else {
                leftOut[corpusRequest.corpusType, default: 0] += 1
                continue
            }
            let (page, viewRequest) = Self.modelled(corpusRequest, kind: kind)
            let url = viewRequest.url
            // A row that repeats an earlier one (the same URL, page and type) is the same request.
            guard rowsSeen.insert([url, page, corpusRequest.corpusType]).inserted else {
                leftOut["repeats an earlier row", default: 0] += 1
                continue
            }
            if pages[page] == nil {
                pageOrder.append(page)
                pages[page] = []
                urlsOfLoads[page] = []
            }
            if let slot = urlsOfLoads[page]!.firstIndex(where: { !$0.contains(url) && $0.count < requestsPerLoad }) {
                pages[page]![slot].append(viewRequest)
                urlsOfLoads[page]![slot].insert(url)
            } else {
                pages[page]!.append([viewRequest])
                urlsOfLoads[page]!.append([url])
            }
        }
        var loads: [ViewPageLoad] = []
        for page in pageOrder {
            let pageURL = CanonicalURL(page)
            for subresources in pages[page]! {
                let document = Request(url: pageURL, mainDocumentURL: pageURL, frameURL: pageURL, resourceType: .topDocument, isMainFrameContext: true)
                loads.append(ViewPageLoad(
                    index: loads.count, url: page, document: ViewRequest(row: 0, kind: nil, request: document, url: page), subresources: subresources))
            }
        }
        return ViewPlan(loads: loads, leftOut: leftOut).sequenced()
    }

    /// The plan as one view loads it: loads numbered in order, and each top-document load's frame
    /// URL the page before it (the page itself for the first).
    package func sequenced() -> ViewPlan {
        var plan = self
        var previous: CanonicalURL?
        for index in plan.loads.indices {
            plan.loads[index].index = index
            let pageURL = plan.loads[index].document.request.url
            plan.loads[index].document.request.frameURL = previous ?? pageURL
            previous = pageURL
        }
        return plan
    }

    /// One load per page, in order, each making its requests (a page's requests name it as
    /// their page); pages may repeat.
    public static func make(pages: [(url: String, requests: [CorpusRequest])]) -> ViewPlan {
        var leftOut: [String: Int] = [:]
        var loads: [ViewPageLoad] = []
        for (url, requests) in pages {
            let pageURL = CanonicalURL(url)
            var subresources: [ViewRequest] = []
            for corpusRequest in requests {
                guard let kind = ViewElementKind(webRequestType: corpusRequest.corpusType) else {
                    leftOut[corpusRequest.corpusType, default: 0] += 1
                    continue
                }
                subresources.append(modelled(corpusRequest, kind: kind).request)
            }
            let document = Request(url: pageURL, mainDocumentURL: pageURL, frameURL: pageURL, resourceType: .topDocument, isMainFrameContext: true)
            loads.append(ViewPageLoad(
                index: loads.count, url: url, document: ViewRequest(row: 0, kind: nil, request: document, url: url), subresources: subresources))
        }
        return ViewPlan(loads: loads, leftOut: leftOut).sequenced()
    }

    /// The page a corpus row is loaded from, and the request as WebKit sees it from there.
    static func modelled(_ corpusRequest: CorpusRequest, kind: ViewElementKind) -> (page: String, request: ViewRequest) {
        let url = corpusRequest.request.url.string
        let given = corpusRequest.request.mainDocumentURL
        let hasPage = given.isValid && (given.scheme == "http" || given.scheme == "https") && !given.host.isEmpty
        let page = hasPage && given.string != url ? given.string : "\(given.scheme == "http" ? "http" : "https")://\(neutralHost)/"
        let pageURL = CanonicalURL(page)
        let request = kind == .childDocument
            ? Request(url: corpusRequest.request.url, mainDocumentURL: pageURL, frameURL: CanonicalURL("about:blank"), resourceType: .childDocument, isMainFrameContext: false)
            : Request(url: corpusRequest.request.url, mainDocumentURL: pageURL, frameURL: pageURL, resourceType: kind.resourceType, isMainFrameContext: true)
        return (page, ViewRequest(row: corpusRequest.row, kind: kind, request: request, url: url))
    }

    /// The loads of shard `index` of `count` (1-based), whole pages.
    public func shard(_ index: Int, of count: Int) -> ViewPlan {
        guard count > 1 else { return self }
        // Shard by page URL so that every load of a page lands in one shard.
        var pageNumber: [String: Int] = [:]
        for load in loads where pageNumber[load.url] == nil { pageNumber[load.url] = pageNumber.count }
        var shard = self
        shard.loads = loads.filter { pageNumber[$0.url]! % count == index - 1 }
        return shard.sequenced()
    }

    /// Loads spread evenly over the plan (every k-th) that hold at least `requests` subresources
    /// between them: a sample of every part of the set, not of its first pages.
    public func sample(requests: Int) -> ViewPlan {
        let total = loads.reduce(0) { $0 + $1.subresources.count }
        guard requests < total, !loads.isEmpty else { return self }
        var stride = max(1, total / max(1, requests))
        var plan = self
        while true {
            plan.loads = loads.enumerated().filter { $0.offset % stride == 0 }.map(\.element)
            if plan.loads.reduce(0, { $0 + $1.subresources.count }) >= requests || stride == 1 { break }
            stride -= 1
        }
        return plan.sequenced()
    }

    /// Every host a load names (cookies are set for each before the pages load).
    public var hosts: [String] {
        var seen = Set<String>()
        var hosts: [String] = []
        for load in loads {
            for request in [load.document] + load.subresources where !request.request.url.host.isEmpty {
                if seen.insert(request.request.url.host).inserted { hosts.append(request.request.url.host) }
            }
        }
        return hosts
    }
}
