// PageTable.swift — ContentBlocker
//
// Which page a request is on. A page is its main document and frame URLs (what a request's
// conditions read); the table keeps the last `capacity` pages in numbered places, the least
// recently used one giving its place to a new page, and tells each request its page's place and
// whether the page is new there. An evaluator keeps its own knowledge of each page (condition
// patterns, rules that match every URL) by place. Several lists asked together
// (`ContentBlockers`) share one table: a request's page is found once, however many lists are
// asked, and the main document's registrable domain with it.
//
// Every request asks, so a place is plain numbers and bytes (`Place`): its URLs' lengths, their
// bytes and its domain's in memory of its own, reused by the pages that take the place. A request
// is compared by lengths, then bytes (`memcmp`), never as strings, and nothing is retained or
// released: a string comparison, a hash of two URLs or a reference per place would cost several
// times as much.
// Tested by ContentBlockerTests/PageCacheTests.swift (pagesThatDifferAreNeverConfused: pages that
// differ by a byte, by where their URLs split, or only in their frame are told apart).

internal import RequestContext
internal import ContentRuleList
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

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

    /// A place's page: its main document's bytes, then its frame's from `frameStart` (0: the
    /// frame is the main document), both URLs' lengths, its main document's registrable domain
    /// (`domainCount` bytes at `domain`; -1: none, -2: longer than a host name, see `keep`), and
    /// its last use (`answers` then).
    private struct Entry {
        var bytes: UnsafeMutablePointer<UInt8>
        var byteCapacity: Int
        var mainCount: Int
        var frameCount: Int
        var frameStart: Int
        /// (`domainBytes` of its own, never reallocated: a host name has at most 253.)
        var domain: UnsafeMutablePointer<UInt8>
        var domainCount: Int
        var lastUse: Int
    }

    /// The places, `count` of them in use (filled in order), `capacity` allocated.
    private let entries: UnsafeMutablePointer<Entry>
    @exclusivity(unchecked) private var count = 0
    /// Requests placed since the table was made: the pages' clock.
    @exclusivity(unchecked) private var answers = 0
    /// The place of the last request's page: a page's requests mostly come together.
    @exclusivity(unchecked) private var lastPage = 0
    /// Registrable domains by host (`mainDocumentDomain(_:)`): the hosts numbered as a list's
    /// pattern texts are (`TextNumbers`, a word-at-a-time hash; a Dictionary of strings would hash
    /// each with SipHash), each number's domain in `domainOfHost` (empty: none, as no registrable
    /// domain is); both emptied at `domainCapacity`.
    @exclusivity(unchecked) private var hostNumbers = TextNumbers()
    @exclusivity(unchecked) private var domainOfHost: [String] = []
    private static let domainCapacity = 1024
    /// The bytes a place keeps for its domain: a host name's longest.
    private static let domainBytes = 256

    init(capacity: Int) {
        self.capacity = max(0, capacity)
        entries = .allocate(capacity: self.capacity)
    }

    deinit {
        for slot in 0..<count {
            entries[slot].bytes.deallocate()
            entries[slot].domain.deallocate()
        }
        entries.deallocate()
    }

    /// The place of `request`'s page, the page made there (and the least recently used one
    /// dropped) when new. Pages are found by comparing their URLs' lengths, then their bytes, the
    /// last one's first: a scan of a few keys costs less than hashing two URLs per request.
    @inline(__always)
    func place(of request: Request) -> Place {
        answers += 1
        let (slot, isNew) = slot(request.mainDocumentURL.string, request.frameURL.string)
        if isNew {
            let domain = mainDocumentDomain(request.mainDocumentURL)
            guard slot >= 0 else { return Place(slot: -1, isNew: true, thirdParty: request.isThirdParty(mainDocumentDomain: domain)) }
            keep(domain, at: slot)
        }
        return Place(slot: slot, isNew: isNew, thirdParty: isThirdParty(request, slot))
    }

    /// The place of the page whose URLs are `mainDocument` and `frame` (-1 when none is kept),
    /// and whether it is new there (its domain then left to keep). (Out of line, the strings
    /// borrowed: their bytes are read where they lie, and nothing is retained.)
    @inline(never)
    private func slot(_ mainDocument: String, _ frame: String) -> (Int, Bool) {
        withBytes(mainDocument) { main in withBytes(frame) { frame in slot(main, frame) } }
    }

    private func slot(_ main: UnsafeBufferPointer<UInt8>, _ frame: UnsafeBufferPointer<UInt8>) -> (Int, Bool) {
        if lastPage < count && names(entries[lastPage], main, frame) {
            entries[lastPage].lastUse = answers
            return (lastPage, false)
        }
        for slot in 0..<count where slot != lastPage && names(entries[slot], main, frame) {
            lastPage = slot
            entries[slot].lastUse = answers
            return (slot, false)
        }
        guard capacity > 0 else { return (-1, true) }
        if count < capacity {
            (entries + count).initialize(to: Entry(
                bytes: .allocate(capacity: 1), byteCapacity: 1, mainCount: 0, frameCount: 0, frameStart: 0, domain: .allocate(capacity: Self.domainBytes),
                domainCount: -1, lastUse: 0))
            lastPage = count
            count += 1
        } else {
            lastPage = 0
            for slot in 1..<count where entries[slot].lastUse < entries[lastPage].lastUse { lastPage = slot }
        }
        write(main, frame, at: lastPage)
        return (lastPage, true)
    }

    /// Whether `entry` is the page of the URLs `main` and `frame`.
    /// Lengths first: the pages a request is compared with mostly have other URLs, and a length
    /// tells most of them apart without reading a byte.
    @inline(__always)
    private func names(_ entry: Entry, _ main: UnsafeBufferPointer<UInt8>, _ frame: UnsafeBufferPointer<UInt8>) -> Bool {
        guard entry.mainCount == main.count && entry.frameCount == frame.count, Self.equal(main, entry.bytes) else { return false }
        // (A frame that is the main document, the same bytes where they lie, is that already.)
        if entry.frameStart == 0 && frame.baseAddress == main.baseAddress && frame.count == main.count { return true }
        return Self.equal(frame, entry.bytes + entry.frameStart)
    }

    /// Whether `bytes` holds `url`'s bytes.
    @inline(__always)
    private static func equal(_ url: UnsafeBufferPointer<UInt8>, _ bytes: UnsafePointer<UInt8>) -> Bool {
        guard url.count > 0, let start = url.baseAddress else { return true }
        return memcmp(start, bytes, url.count) == 0
    }

    /// Place `slot` made the page of `main` and `frame`, its storage kept (or grown), used now.
    private func write(_ main: UnsafeBufferPointer<UInt8>, _ frame: UnsafeBufferPointer<UInt8>, at slot: Int) {
        let frameIsMain = frame.count == main.count && (main.count == 0 || memcmp(frame.baseAddress!, main.baseAddress!, main.count) == 0)
        let needed = main.count + (frameIsMain ? 0 : frame.count)
        if entries[slot].byteCapacity < needed {
            entries[slot].bytes.deallocate()
            entries[slot].byteCapacity = max(needed, 2 * entries[slot].byteCapacity)
            entries[slot].bytes = .allocate(capacity: entries[slot].byteCapacity)
        }
        let bytes = entries[slot].bytes
        if let start = main.baseAddress { bytes.update(from: start, count: main.count) }
        entries[slot].frameStart = frameIsMain ? 0 : main.count
        if !frameIsMain, let start = frame.baseAddress { (bytes + main.count).update(from: start, count: frame.count) }
        entries[slot].mainCount = main.count
        entries[slot].frameCount = frame.count
        entries[slot].domainCount = -1
        entries[slot].lastUse = answers
    }

    /// `domain`, the main document's registrable domain, kept by the page at `slot` (-1: none; -2:
    /// longer than a host name, which no canonical host is, and answered from its string).
    private func keep(_ domain: String?, at slot: Int) {
        let target = entries[slot].domain
        entries[slot].domainCount = domain.map { domain in
            withBytes(domain) { bytes in
                guard bytes.count <= Self.domainBytes else { return -2 }
                if let start = bytes.baseAddress { target.update(from: start, count: bytes.count) }
                return bytes.count
            }
        } ?? -1
    }

    /// Whether `request` is third party on the page at `slot`.
    @inline(__always)
    private func isThirdParty(_ request: Request, _ slot: Int) -> Bool {
        let entry = entries[slot]
        guard entry.domainCount >= 0 else {
            return entry.domainCount == -1 ? true : request.isThirdParty(mainDocumentDomain: mainDocumentDomain(request.mainDocumentURL))
        }
        return withBytes(request.url.host) {
            Request.isThirdParty(host: $0, domain: UnsafeBufferPointer(start: entry.domain, count: entry.domainCount))
        }
    }

    /// The registrable domain of a page's URL, looked up in the public suffix list once per host:
    /// the lookup is most of a new page's own work, and the pages of one site share it.
    private func mainDocumentDomain(_ url: CanonicalURL) -> String? {
        if hostNumbers.count >= Self.domainCapacity { (hostNumbers, domainOfHost) = (TextNumbers(), []) }
        let number = Int(hostNumbers.number(url.host, caseSensitive: true))
        if number < domainOfHost.count { return domainOfHost[number].isEmpty ? nil : domainOfHost[number] }
        let domain = url.registrableDomain
        domainOfHost.append(domain ?? "")
        return domain
    }

    /// `body` over `string`'s UTF-8 bytes, where they lie when the string is native.
    @inline(__always)
    private func withBytes<Result>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        var string = string
        return string.withUTF8(body)
    }
}
