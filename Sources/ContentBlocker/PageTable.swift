// PageTable.swift — ContentBlocker
//
// Which page a request is on. A page is its main document and frame URLs (what a request's
// conditions read); the table keeps the last `capacity` pages in numbered places, the least
// recently used one giving its place to a new page, and tells each request its page's place and
// whether the page is new there. An evaluator keeps its own knowledge of each page (condition
// patterns, rules that match every URL) by place. Several lists asked together
// (`ContentBlockers`) share one table: a request's page is found once, however many lists are
// asked, and the main document's registrable domain with it.
// Tested by ContentBlockerTests/PageCacheTests.swift.

internal import RequestContext

final class PageTable {
    /// How many pages are kept (0: none; every request's page is new).
    let capacity: Int

    /// Where a request's page is: its place (0 ..< `capacity`, or -1 when none is kept), whether
    /// the page came to that place with this request, and the request's party.
    struct Place {
        var slot: Int
        var isNew: Bool
        /// The request is third party: its host is not in the main document's registrable domain.
        var thirdParty: Bool
    }

    /// A place's page: its URLs, its main document's registrable domain, and its last use
    /// (`answers` then). (An object per place: the request's lookup writes its last use in place.)
    private final class Entry {
        var key: PageKey
        var mainDocumentDomain: String?
        var lastUse: Int

        init(_ key: PageKey, mainDocumentDomain: String?, lastUse: Int) {
            self.key = key
            self.mainDocumentDomain = mainDocumentDomain
            self.lastUse = lastUse
        }
    }

    @exclusivity(unchecked) private var entries: [Entry] = []
    /// Requests placed since the table was made: the pages' clock.
    @exclusivity(unchecked) private var answers = 0
    /// The place of the last request's page: a page's requests mostly come together.
    @exclusivity(unchecked) private var lastPage = 0
    /// Registrable domains by host (`mainDocumentDomain(_:)`); emptied when it reaches its capacity.
    @exclusivity(unchecked) private var domainOfHost: [String: String?] = [:]
    private static let domainCapacity = 1024

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The place of `request`'s page, the page made there (and the least recently used one
    /// dropped) when new. Pages are found by comparing their URLs, the last one's first: a scan of
    /// a few keys costs less than hashing two URLs per request.
    @inline(__always)
    func place(of request: Request) -> Place {
        answers += 1
        // (The request's lengths once, compared with each page's kept ones: most pages differ
        // in them.)
        let lengths = PageKey.Lengths(request)
        if lastPage < entries.count && entries[lastPage].key.names(request, lengths) {
            entries[lastPage].lastUse = answers
            return Place(
                slot: lastPage, isNew: false, thirdParty: request.isThirdParty(mainDocumentDomain: entries[lastPage].mainDocumentDomain))
        }
        return otherPlace(of: request, lengths)
    }

    /// `place(of:)` when the page is not the last request's.
    private func otherPlace(of request: Request, _ lengths: PageKey.Lengths) -> Place {
        if let index = entries.firstIndex(where: { $0.key.names(request, lengths) }) {
            lastPage = index
            return place(index, of: request, isNew: false)
        }
        let key = PageKey(mainDocument: request.mainDocumentURL.string, frame: request.frameURL.string)
        let domain = mainDocumentDomain(request.mainDocumentURL)
        guard capacity > 0 else {
            return Place(slot: -1, isNew: true, thirdParty: request.isThirdParty(mainDocumentDomain: domain))
        }
        if entries.count < capacity {
            entries.append(Entry(key, mainDocumentDomain: domain, lastUse: answers))
            lastPage = entries.count - 1
        } else {
            lastPage = entries.indices.min { entries[$0].lastUse < entries[$1].lastUse }!
            entries[lastPage].key = key
            entries[lastPage].mainDocumentDomain = domain
        }
        return place(lastPage, of: request, isNew: true)
    }

    /// Place `slot` for `request`, used now.
    @inline(__always)
    private func place(_ slot: Int, of request: Request, isNew: Bool) -> Place {
        let entry = entries[slot]
        entry.lastUse = answers
        return Place(slot: slot, isNew: isNew, thirdParty: request.isThirdParty(mainDocumentDomain: entry.mainDocumentDomain))
    }

    /// The registrable domain of a page's URL, looked up in the public suffix list once per host:
    /// the lookup is most of a new page's own work, and the pages of one site share it.
    private func mainDocumentDomain(_ url: CanonicalURL) -> String? {
        if let known = domainOfHost[url.host] { return known }
        let domain = url.registrableDomain
        if domainOfHost.count >= Self.domainCapacity { domainOfHost.removeAll(keepingCapacity: true) }
        domainOfHost[url.host] = domain
        return domain
    }
}

/// The URLs a request's conditions read.
struct PageKey {
    var mainDocument: String
    var frame: String
    var lengths: Lengths

    init(mainDocument: String, frame: String) {
        self.mainDocument = mainDocument
        self.frame = frame
        lengths = Lengths(mainDocument: mainDocument.utf8.count, frame: frame.utf8.count)
    }

    /// The URLs' lengths in bytes.
    struct Lengths: Equatable {
        var mainDocument: Int
        var frame: Int

        init(mainDocument: Int, frame: Int) {
            self.mainDocument = mainDocument
            self.frame = frame
        }

        init(_ request: Request) {
            self.init(mainDocument: request.mainDocumentURL.string.utf8.count, frame: request.frameURL.string.utf8.count)
        }
    }

    /// Whether these are `request`'s page URLs, whose lengths are `lengths`. Lengths first: the
    /// pages a request is compared with mostly have other URLs, and a length tells most of them
    /// apart without a comparison of the strings.
    @inline(__always)
    func names(_ request: Request, _ lengths: Lengths) -> Bool {
        self.lengths == lengths && mainDocument == request.mainDocumentURL.string && frame == request.frameURL.string
    }
}
