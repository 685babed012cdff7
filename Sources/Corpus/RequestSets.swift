// RequestSets.swift — Corpus
//
// The shipped request corpora as `Request`s, with the context rules look at (page, frame,
// resource type, load context). Each manifest kind has one reader here:
//
//  - requests-json (adblock-rust): `{url, sourceUrl, type}` objects. The page and the frame are
//    `sourceUrl` as given (rows without a page say just `http://`: no host, so every load is third
//    party and no if-domain holds); `type` is a webRequest type, mapped as Corpora/README.md says.
//  - requests-tsv (adblock-rust regressions): `url, sourceUrl, type, blocked` with a header line.
//  - requests-sitelist: one URL a line, grouped by site. A group starts at `http(s)://HOST/`
//    whose host is its own registrable domain (or that domain under `www.`) and lies outside the
//    current page's registrable domain; that URL is the page. Within a group, URLs of the page's
//    registrable domain with the path `/` are the page again (redirects: top-document); the other
//    lines are subresources typed by their path's extension (script, style-sheet, image, font,
//    media; anything else is other). The lines are page loads in one web view, one after another:
//    a top-document load's frame URL is the document the frame held before it (the previous
//    top-document load; the page itself for the first), as WebKit evaluates frame-url conditions
//    of a navigation (docs/SEMANTICS.md §2).
//
// Every load comes from the main frame (load-context top-frame), as the corpora record no frames.
// Tested by CorpusTests (RequestSetTests).

public import ContentRuleList
import Foundation
public import RequestContext

/// One request of a corpus: its row number (1-based, as in the file) and the request.
public struct CorpusRequest: Sendable {
    public var row: Int
    public var request: Request
    /// The type as the corpus wrote it (a webRequest type, or the sitelist's inferred one).
    public var corpusType: String

    public init(row: Int, request: Request, corpusType: String) {
        self.row = row
        self.request = request
        self.corpusType = corpusType
    }
}

public struct RequestSet: Sendable {
    public var name: String
    public var requests: [CorpusRequest]
}

public enum RequestSetError: Error, CustomStringConvertible {
    case unknownKind(String)
    case badRow(path: String, row: Int, reason: String)

    public var description: String {
        switch self {
        case .unknownKind(let kind): "unknown request-set kind \(kind)"
        case .badRow(let path, let row, let reason): "\(path) row \(row): \(reason)"
        }
    }
}

public enum RequestSets {
    /// The kinds of manifest entries that are request sets.
    public static let kinds = ["requests-json", "requests-tsv", "requests-sitelist"]

    /// webRequest types (and the `fetch` the adblock-rust set also uses) -> resource types.
    public static let webRequestTypes: [String: ResourceTypes] = [
        "main_frame": .topDocument, "sub_frame": .childDocument, "subdocument": .childDocument,
        "stylesheet": .styleSheet, "script": .script, "image": .image, "imageset": .image, "font": .font,
        "media": .media, "xmlhttprequest": .fetch, "xhr": .fetch, "fetch": .fetch, "websocket": .websocket,
        "ping": .ping, "beacon": .ping, "csp_report": .cspReport, "other": .other,
    ]

    public static func load(_ entry: CorpusManifest.Entry, from manifest: CorpusManifest) throws -> RequestSet {
        let path = manifest.path(of: entry)
        return try load(path: path, kind: entry.kind, name: entry.name)
    }

    public static func load(path: String, kind: String, name: String) throws -> RequestSet {
        RequestSet(name: name, requests: try read(CorpusFiles.read(path), kind: kind, path: path))
    }

    /// The requests of a request file's bytes (already decompressed) of the manifest kind `kind`;
    /// `path` names the file in errors. Any bytes give requests or an error (the reader fuzz
    /// target `blockbench-fuzz-requests` holds it to that).
    public static func read(_ bytes: [UInt8], kind: String, path: String) throws -> [CorpusRequest] {
        switch kind {
        case "requests-json": return try json(bytes, path: path)
        case "requests-tsv": return try tsv(bytes, path: path)
        case "requests-sitelist": return sitelist(bytes)
        default: throw RequestSetError.unknownKind(kind)
        }
    }

    static func request(url: String, page: String, type: String, row: Int, path: String) throws -> CorpusRequest {
        guard let resourceType = webRequestTypes[type] else {
            throw RequestSetError.badRow(path: path, row: row, reason: "unknown webRequest type \(type)")
        }
        let pageURL = CanonicalURL(page)
        return CorpusRequest(
            row: row,
            request: Request(url: CanonicalURL(url), mainDocumentURL: pageURL, frameURL: pageURL, resourceType: resourceType, isMainFrameContext: true),
            corpusType: type)
    }

    static func json(_ bytes: [UInt8], path: String) throws -> [CorpusRequest] {
        struct Row: Decodable { var url: String; var sourceUrl: String; var type: String }
        let rows: [Row]
        do {
            rows = try JSONDecoder().decode([Row].self, from: Data(bytes))
        } catch {
            throw RequestSetError.badRow(path: path, row: 0, reason: "not an array of {url, sourceUrl, type}: \(error)")
        }
        return try rows.enumerated().map { try request(url: $1.url, page: $1.sourceUrl, type: $1.type, row: $0 + 1, path: path) }
    }

    static func tsv(_ bytes: [UInt8], path: String) throws -> [CorpusRequest] {
        var requests: [CorpusRequest] = []
        let lines = CorpusFiles.lines(String(decoding: bytes, as: UTF8.self))
        for (number, line) in lines.enumerated() where number > 0 && !line.isEmpty {
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count >= 3 else {
                throw RequestSetError.badRow(path: path, row: number + 1, reason: "expected url, sourceUrl, type")
            }
            requests.append(try request(url: String(columns[0]), page: String(columns[1]), type: String(columns[2]), row: number + 1, path: path))
        }
        return requests
    }

    static func sitelist(_ bytes: [UInt8]) -> [CorpusRequest] {
        var requests: [CorpusRequest] = []
        var page: CanonicalURL?
        var previousDocument: CanonicalURL?
        let lines = CorpusFiles.lines(String(decoding: bytes, as: UTF8.self))
        for (number, line) in lines.enumerated() where !line.isEmpty {
            let url = CanonicalURL(String(line))
            let isRoot = url.isValid && (url.scheme == "http" || url.scheme == "https") && url.string.hasSuffix("://" + url.host + "/")
            let domain = url.registrableDomain
            let isSiteRoot = isRoot && domain != nil && (url.host == domain || url.host == "www." + domain!)
            if isSiteRoot && (page == nil || page!.registrableDomain != domain) { page = url }
            let current = page ?? url
            let type: ResourceTypes
            let corpusType: String
            var frame = current
            if isRoot && domain == current.registrableDomain {
                (type, corpusType) = (.topDocument, "main_frame")
                frame = previousDocument ?? url
                previousDocument = url
            } else {
                (type, corpusType) = typeOfPath(url.string)
            }
            requests.append(CorpusRequest(
                row: number + 1,
                request: Request(url: url, mainDocumentURL: current, frameURL: frame, resourceType: type, isMainFrameContext: true),
                corpusType: corpusType))
        }
        return requests
    }

    /// A subresource's type from its path's extension.
    static func typeOfPath(_ url: String) -> (ResourceTypes, String) {
        var path = Substring(url)
        if let scheme = path.range(of: "://") { path = path[scheme.upperBound...] }
        path = path.drop { $0 != "/" }
        path = path.prefix { $0 != "?" && $0 != "#" }
        let name = path.split(separator: "/").last ?? ""
        // A name of dots alone ("...") has no extension (found by blockbench-fuzz-requests: the
        // split of such a name is empty, and `last!` trapped).
        let ext = name.contains(".") ? (name.split(separator: ".", omittingEmptySubsequences: false).last ?? "").lowercased() : ""
        switch ext {
        case "js", "mjs": return (.script, "script")
        case "css": return (.styleSheet, "stylesheet")
        case "png", "jpg", "jpeg", "gif", "webp", "svg", "ico", "bmp": return (.image, "image")
        case "woff", "woff2", "ttf", "otf", "eot": return (.font, "font")
        case "mp4", "webm", "mp3", "ogg", "m3u8", "ts": return (.media, "media")
        default: return (.other, "other")
        }
    }
}
