// RequestSetTests.swift — the shipped request corpora read with their context.

import Testing
import Foundation
import Corpus
import ContentRuleList
import RequestContext
import TestSupport

@Suite struct RequestSetTests {
    @Test func everyShippedRequestSetLoadsWithItsManifestRowCount() throws {
        let manifest = try CorpusManifest.load(root: repositoryRoot + "/Corpora")
        let entries = manifest.corpora.filter { RequestSets.kinds.contains($0.kind) }
        #expect(entries.count == 3)
        for entry in entries {
            let set = try RequestSets.load(entry, from: manifest)
            #expect(set.requests.count == entry.rows, "\(entry.name)")
        }
    }

    /// The line-based corpora (tsv, sitelist) saved with Windows line ends read as with LF ends.
    /// A gzip bomb stops at the decompression limit with a typed error instead of filling memory.
    @Test func aGzipFileThatDecompressesPastTheLimitIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bb-gzip-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = folder.appendingPathComponent("zeros.json")
        try Data(count: 3 << 20).write(to: plain)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-k", plain.path]
        try gzip.run()
        gzip.waitUntilExit()
        let path = plain.path + ".gz"
        #expect(try CorpusFiles.read(path).count == 3 << 20)
        #expect(try CorpusFiles.read(path, limit: 3 << 20).count == 3 << 20)
        #expect {
            _ = try CorpusFiles.read(path, limit: 1 << 20)
        } throws: { error in
            guard case CorpusFileError.tooLarge(path, limit: 1 << 20) = error else { return false }
            return "\(error)".hasSuffix("decompresses to more than 1 MiB: refused")
        }
    }

    @Test func lineBasedSetsReadTheSameWithCRLFEnds() throws {
        let manifest = try CorpusManifest.load(root: repositoryRoot + "/Corpora")
        for kind in ["requests-tsv", "requests-sitelist"] {
            let entry = manifest.corpora.first { $0.kind == kind }!
            let lf = try RequestSets.load(entry, from: manifest).requests
            var crlf: [UInt8] = []
            for byte in try CorpusFiles.read(manifest.path(of: entry)) {
                if byte == UInt8(ascii: "\n") { crlf.append(UInt8(ascii: "\r")) }
                crlf.append(byte)
            }
            let path = NSTemporaryDirectory() + "blockbench-test-\(UUID().uuidString).txt"
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Data(crlf).write(to: URL(fileURLWithPath: path))
            let read = try RequestSets.load(path: path, kind: kind, name: entry.name).requests
            #expect(read.count == lf.count, "\(kind)")
            for (a, b) in zip(read, lf) {
                #expect(a.row == b.row && a.corpusType == b.corpusType && a.request == b.request, "\(kind) row \(b.row)")
            }
        }
    }

    @Test func siteListGroupsStartAtASiteRootAndTypeSubresourcesByExtension() throws {
        let manifest = try CorpusManifest.load(root: repositoryRoot + "/Corpora")
        let entry = manifest.corpora.first { $0.kind == "requests-sitelist" }!
        let requests = try RequestSets.load(entry, from: manifest).requests
        // http://goal.com/ opens the first group; www.goal.com/ is a redirect of the page.
        #expect(requests[0].request.resourceType == .topDocument)
        #expect(requests[1].request.resourceType == .topDocument)
        #expect(requests[3].request.resourceType == .other)  // /static/js?files=... has no extension
        let amazon = requests.first { $0.request.url.string == "http://c.amazon-adsystem.com/aax2/amzn_ads.js" }!
        #expect(amazon.request.resourceType == .script)
        #expect(amazon.request.mainDocumentURL.string == "http://goal.com/")
        #expect(amazon.request.isThirdParty)
        // The next site starts a new group.
        let hao = requests.first { $0.request.url.string.hasPrefix("http://hao123.com/") }!
        #expect(hao.request.mainDocumentURL.string == "http://hao123.com/")
        let pages = Set(requests.map(\.request.mainDocumentURL.string))
        #expect(pages.count > 400 && pages.count < 600)
    }

    /// Found by blockbench-fuzz-requests: a subresource whose last path name is dots alone trapped
    /// the type-by-extension (`last!` of an empty split); it is of type other, as a name without
    /// an extension is, and a name ending in a dot too.
    @Test func aPathNameOfDotsAloneHasNoExtension() throws {
        let text = "https://www.example.com/\nhttps://cdn.example.net/a/...\nhttps://cdn.example.net/b.\nhttps://cdn.example.net/c.JS\n"
        let requests = try RequestSets.read(Array(text.utf8), kind: "requests-sitelist", path: "test")
        #expect(requests.map(\.corpusType) == ["main_frame", "other", "other", "script"])
    }

    /// A site list is page loads in one web view: a top-document load's frame URL is the document
    /// loaded before it (the page itself for the first), its subresources' frame is their page.
    @Test func aTopDocumentLoadsFrameIsThePreviousDocument() throws {
        let lines = ["http://google.com/", "http://google.com/a.png", "http://other.com/", "http://other.com/", "http://google.com/"]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sitelist-\(UUID().uuidString).txt").path
        try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let requests = try RequestSets.load(path: path, kind: "requests-sitelist", name: "loads").requests.map(\.request)
        #expect(requests.map(\.resourceType) == [ResourceTypes.topDocument, .image, .topDocument, .topDocument, .topDocument])
        #expect(requests.map(\.frameURL.string) == [
            "http://google.com/", "http://google.com/", "http://google.com/", "http://other.com/", "http://other.com/",
        ])
        #expect(requests.map(\.mainDocumentURL.string) == [
            "http://google.com/", "http://google.com/", "http://other.com/", "http://other.com/", "http://google.com/",
        ])
    }

    @Test func webRequestTypesMapAsTheCorporaReadmeSays() throws {
        #expect(RequestSets.webRequestTypes["xhr"] == .fetch)
        #expect(RequestSets.webRequestTypes["subdocument"] == .childDocument)
        #expect(RequestSets.webRequestTypes["main_frame"] == .topDocument)
        #expect(RequestSets.webRequestTypes["beacon"] == .ping)
    }
}
