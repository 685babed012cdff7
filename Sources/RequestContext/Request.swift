// Request.swift — RequestContext
//
// A resource load as content-blocker rules see it. Shared by the engine (ContentBlocker) and the
// reference evaluator (PCRE2Oracle): both answer the same `Request`, so the URLs they match are
// the same canonical strings.
// Tested by RequestContextTests/RequestContextTests.swift.

public import ContentRuleList
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A resource load: the URL being loaded, the page (main document) and the frame that load it,
/// and what kind of load it is.
public struct Request: Hashable, Sendable {
    /// The URL being loaded, in WebKit's canonical form (see `CanonicalURL`).
    public var url: CanonicalURL
    /// The URL of the top-level document of the page; `if-domain`, `if-top-url` and the
    /// third-party test look at it.
    public var mainDocumentURL: CanonicalURL
    /// The URL of the document of the frame that issues the load; `if-frame-url` looks at it.
    public var frameURL: CanonicalURL
    /// Exactly one resource type (`ResourceTypes.requestNames`).
    public var resourceType: ResourceTypes
    /// Whether the load comes from the main frame (`load-context: top-frame`).
    public var isMainFrameContext: Bool
    /// The HTTP method, when the load has one of the methods rules can name.
    public var method: RequestMethod?

    public init(
        url: CanonicalURL, mainDocumentURL: CanonicalURL, frameURL: CanonicalURL,
        resourceType: ResourceTypes, isMainFrameContext: Bool = false, method: RequestMethod? = nil
    ) {
        self.url = url
        self.mainDocumentURL = mainDocumentURL
        self.frameURL = frameURL
        self.resourceType = resourceType
        self.isMainFrameContext = isMainFrameContext
        self.method = method
    }

    public var loadContext: LoadContexts { isMainFrameContext ? .topFrame : .childFrame }
}

extension Request {
    /// Whether `url` lies outside the registrable domain of `mainDocumentURL` (`load-type`): its
    /// host is neither that domain nor a subdomain of it. A main document without a host makes
    /// every load third party.
    public var isThirdParty: Bool {
        guard let domain = mainDocumentURL.registrableDomain else { return true }
        return !(url.host == domain || url.host.hasSuffix("." + domain))
    }

    /// `isThirdParty` given the main document's registrable domain, without building a string: for
    /// a caller that sees many requests of one page and looks the domain up once (the evaluator).
    public func isThirdParty(mainDocumentDomain: String?) -> Bool {
        guard let domain = mainDocumentDomain else { return true }
        // Compared as contiguous bytes, where the strings lie (both are, unless bridged from
        // elsewhere): every request asks, and a generic comparison of two UTF-8 views costs
        // several times as much.
        if let answer = url.host.utf8.withContiguousStorageIfAvailable({ host in
            domain.utf8.withContiguousStorageIfAvailable { suffix in Self.isThirdParty(host: host, domain: suffix) }
        }), let answer {
            return answer
        }
        return Array(url.host.utf8).withUnsafeBufferPointer { host in
            Array(domain.utf8).withUnsafeBufferPointer { Self.isThirdParty(host: host, domain: $0) }
        }
    }

    /// Whether `host` is neither `domain` nor below it (bytes, for a caller that keeps the
    /// domain's: `isThirdParty(mainDocumentDomain:)` reads them so).
    public static func isThirdParty(host: UnsafeBufferPointer<UInt8>, domain: UnsafeBufferPointer<UInt8>) -> Bool {
        guard host.count >= domain.count else { return true }
        let start = host.count - domain.count
        if domain.count > 0, let hostBytes = host.baseAddress, let domainBytes = domain.baseAddress,
            memcmp(hostBytes + start, domainBytes, domain.count) != 0
        {
            return true
        }
        // The domain itself, or a subdomain of it: a dot just before.
        return start > 0 && host[start - 1] != UInt8(ascii: ".")
    }
}
