// DomainLookupCacheTests.swift — the host cache of the domain table's lookups
// (DomainLookupCache.swift): through it, a table reports what its own lookup reports, in the same
// order, over the shipped lists' domain patterns and the shipped request sets' URLs (each twice,
// so that hosts repeat as in a browser's requests), over hosts made to share a slot (of one
// length: only their bytes tell them apart) with paths that tell entries apart, and over two
// tables looked up in turn through one cache.

import Foundation
import Testing
@testable import Search
import URLFilterSyntax
import TestSupport

/// The shipped Safari lists' patterns of the domain table's shapes, as the compiler splits them.
private func shippedTable() -> DomainTable {
    var entries: [(pattern: UInt32, domain: [UInt8], tail: [UInt8])] = []
    for (source, isCaseSensitive) in (try? shippedPatterns()) ?? [] {
        guard case .success(let filter) = URLFilterParser.parse(source, isCaseSensitive: isCaseSensitive),
            let (domain, tail) = DomainTable.split(filter)
        else { continue }
        entries.append((UInt32(entries.count), domain, tail))
    }
    return DomainTable(entries)
}

/// The URLs of the shipped request sets: adblock-rust's requests, and its site list's hosts as
/// page URLs.
private func shippedURLs() throws -> [String] {
    func gunzip(_ path: String) throws -> Data {
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-dc", repositoryRoot + "/" + path]
        let pipe = Pipe()
        gzip.standardOutput = pipe
        try gzip.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        gzip.waitUntilExit()
        return data
    }
    let requests = try JSONSerialization.jsonObject(with: gunzip("Corpora/urls/adblock-rust-matching-test-requests.json.gz")) as? [[String: Any]] ?? []
    let sites = String(decoding: try gunzip("Corpora/urls/adblock-rust-top500-sitelist-2015.txt.gz"), as: UTF8.self)
        .split(separator: "\n").map { "https://" + $0.trimmingCharacters(in: .whitespaces) + "/" }
    return requests.compactMap { $0["url"] as? String } + sites
}

/// The URLs of `urls` whose reports through `cache` differ from `table`'s own lookup's.
private func disagreements(_ table: DomainTable, _ cache: DomainLookupCache, _ urls: [String]) -> [String] {
    var differing: [String] = []
    for url in urls {
        var bytes = Array(url.utf8)
        let agrees = bytes.withUnsafeMutableBufferPointer { mutable in
            let url = UnsafeBufferPointer(mutable)
            var steps = 0
            guard let labels = DomainTable.hostLabels(url, steps: &steps) else { return true }
            var plain: [UInt32] = []
            var cached: [UInt32] = []
            table.lookUp(url, labels) { plain.append($0) }
            cache.lookUp(table, url, labels) { cached.append($0) }
            return plain == cached
        }
        if !agrees { differing.append(url) }
    }
    return differing
}

@Suite struct DomainLookupCacheTests {
    @Test func answersAsTheTableOverTheShippedListsAndRequests() throws {
        let table = shippedTable()
        #expect(table.count > 50_000, "the shipped lists' domain patterns")
        let urls = try shippedURLs()
        #expect(urls.count > 8_000)
        let cache = DomainLookupCache()
        // Twice: the second pass finds the hosts the first one left in their slots.
        let differing = disagreements(table, cache, urls + urls)
        #expect(differing.isEmpty, "\(differing.count) URLs, first \(differing.prefix(5))")
        #expect(cache.hits > urls.count / 5, "the stream reaches the cache's slots (\(cache.hits) hits)")
    }

    @Test func hostsSharingASlotAreToldApartByTheirBytes() throws {
        let table = shippedTable()
        // Hosts of one length (32 bytes) under domains the table holds, with and without paths,
        // and under one it lacks, grouped by their slot: each group's hosts in turn, each asked
        // twice in a row (the second from the slot) with paths some entries' tails match.
        let domains = ["doubleclick.net", "google-analytics.com", "googlesyndication.com", "facebook.com", "example.org"]
        var bySlot: [Int: [String]] = [:]
        for domain in domains {
            for label in 0..<300 {
                let number = String(label)
                let host = "h" + number + String(repeating: "x", count: 30 - domain.count - number.count) + "." + domain
                let url = Array("https://\(host)/".utf8)
                let slot = url.withUnsafeBufferPointer { DomainLookupCache.slot($0, 8, 8 + host.utf8.count) }
                bySlot[slot, default: []].append(host)
            }
        }
        let groups = bySlot.values.filter { Set($0.map { $0.split(separator: ".", maxSplits: 1)[1] }).count > 1 }
        #expect(groups.count > 10, "hosts under other domains share slots")
        let paths = ["/", "/pagead/js/adsbygoogle.js", "/analytics.js", "/tr?id=1", "/ga.js", ":8080/x", "/collect?v=1", "/gampad/ads"]
        var urls: [String] = []
        for group in groups {
            for round in 0..<3 {
                for (index, host) in group.enumerated() {
                    let spelt = round == 1 ? host.uppercased() : host
                    urls.append("https://\(spelt)\(paths[(index + round) % paths.count])")
                    urls.append("https://\(spelt)\(paths[(index + round + 1) % paths.count])")
                }
            }
        }
        let cache = DomainLookupCache()
        let differing = disagreements(table, cache, urls)
        #expect(differing.isEmpty, "\(differing.count) URLs, first \(differing.prefix(5))")
        #expect(cache.hits >= urls.count / 2 - 10, "each host's second request is answered from its slot")
    }

    @Test func aCacheLookingUpAnotherTableForgetsTheFirst() throws {
        // Two tables of other domains (their records elsewhere in their lines), their patterns
        // numbered apart: a cache used for one, then the other, reports each one's patterns.
        func table(_ domains: [String], from base: UInt32) -> DomainTable {
            DomainTable(domains.enumerated().map { (pattern: base + UInt32($0.offset), domain: Array($0.element.utf8), tail: [UInt8]()) })
        }
        let first = table(["a.example", "b.example", "example", "ads.test"], from: 0)
        let second = table(["ads.test", "other.test", "x.b.example", "q.a.example", "example"], from: 100)
        let urls = ["https://a.example/", "https://x.b.example/p", "https://ads.test:1/", "https://none.test/", "https://q.a.example/", "https://other.test/"]
        let cache = DomainLookupCache()
        for _ in 0..<3 {
            #expect(disagreements(first, cache, urls).isEmpty)
            #expect(disagreements(second, cache, urls).isEmpty)
        }
    }
}
