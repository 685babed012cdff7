// PathFilterTests.swift — a domain table's path filters (PathFilter.swift): a lookup that skips
// the paths their filters refuse answers as one that reads every path of a found domain, on
// generated paths and the shipped lists' own.

import Testing
@testable import Search
import URLFilterSyntax
import TestSupport

private let prefix = "^[^:]+://+([^:/]+\\.)?"

/// The table's answers for `url` by its lookup (filters first).
private func lookedUp(_ table: DomainTable, _ url: [UInt8]) -> [UInt32] {
    var found = Set<UInt32>()
    _ = url.withUnsafeBufferPointer { table.run($0) { found.insert($0) } }
    return found.sorted()
}

/// The table's answers for `url` read without filters: each candidate of A (its start, and after
/// each `.` but its first byte) found among `byDomain` (the entries by domain), each of its
/// entries' T tried from A's end.
private func readWhole(_ table: DomainTable, _ byDomain: [[UInt8]: [Int]], _ patterns: [UInt32], _ url: [UInt8]) -> [UInt32] {
    url.withUnsafeBufferPointer { url in
        var steps = 0
        guard let labels = DomainTable.hostLabels(url, steps: &steps), labels.terminated, labels.end > labels.start else { return [] }
        let host = url[labels.start..<labels.end].map(DomainSlots.folded)
        var candidates = [0]
        for (offset, byte) in host.enumerated() where offset > 0 && byte == UInt8(ascii: ".") { candidates.append(offset + 1) }
        var found = Set<UInt32>()
        for candidate in candidates where candidate < host.count {
            for entry in byDomain[Array(host[candidate...])] ?? [] where DomainTable.tailMatches(table.tail(entry), url, from: labels.end) {
                found.insert(patterns[entry])
            }
        }
        return found.sorted()
    }
}

/// The table of `filters` (those of the table's shapes), its entries by domain and its patterns.
private func table(_ filters: [URLFilter]) -> (DomainTable, [[UInt8]: [Int]], [UInt32]) {
    var entries: [(pattern: UInt32, domain: [UInt8], tail: [UInt8])] = []
    for (id, filter) in filters.enumerated() {
        if let (domain, tail) = DomainTable.split(filter) { entries.append((UInt32(id), domain, tail)) }
    }
    let table = DomainTable(entries)
    var byDomain: [[UInt8]: [Int]] = [:]
    for (entry, item) in entries.enumerated() { byDomain[item.domain, default: []].append(entry) }
    return (table, byDomain, entries.map(\.pattern))
}

/// A URL T's encoding `tail` may match, its letters' case and its classes' bytes chosen by `random`.
func text(of tail: ArraySlice<UInt8>, _ random: inout SplitMix64) -> [UInt8] {
    var bytes: [UInt8] = []
    var at = tail.startIndex
    while at < tail.endIndex {
        let code = tail[at]
        switch code {
        case DomainTable.restCode: return bytes
        case 0:
            let members = (0..<128).filter { tail[at + 1 + $0 / 8] >> ($0 % 8) & 1 == 1 }.map(UInt8.init)
            bytes.append(members[Int(random.next() % UInt64(members.count))])
            at += 16
        case 0x80: bytes.append(random.next() % 4 == 0 ? UInt8(ascii: ":") : UInt8(ascii: "/"))
        case 0x81...: bytes.append(code & 0x7F)
        default: bytes.append(code &- 0x61 < 26 && random.next() % 3 == 0 ? code - 0x20 : code)
        }
        at += 1
    }
    return bytes
}

@Suite struct PathFilterTests {
    /// Paths of one domain that differ in each of their first sets, in case, in classes and at
    /// the URL's end; URLs of their bytes, cut and changed at each place.
    @Test func filteredLookupsAnswerAsPathsReadWhole() {
        let paths = [
            "\\/ads", "\\/adx", "\\/Ads", "\\/a", "\\/ab\\/c", "\\/b", "[/:]b", ":80", ":8", "\\/[^a-d]x", "\\/.x", "\\/x$",
            "\\/$", "[/:][\\x00]", "\\/\\/", "\\/a[0-9]", "\\/a-b", "\\/%20", "\\/a.*$",
        ]
        var filters = paths.map { try! URLFilterParser.parse(prefix + "example\\.com" + $0, isCaseSensitive: false).get() }
        filters += ["\\/X", "\\/Xy", "\\/aBc"].map { try! URLFilterParser.parse(prefix + "80" + $0, isCaseSensitive: true).get() }
        let (table, byDomain, patterns) = table(filters)
        #expect(table.count >= filters.count - 1, "the filters take the table's shape (`.*$` maybe not)")
        var random = SplitMix64(seed: 57)
        var urls: [[UInt8]] = []
        for host in ["https://example.com", "http://x.EXAMPLE.com", "http://80"] {
            for entry in 0..<table.count {
                let path = text(of: table.tail(entry), &random)
                for cut in 0...path.count {
                    urls.append(Array(host.utf8) + path[..<cut])
                    for place in 0..<cut {
                        var changed = Array(path[..<cut])
                        for byte: UInt8 in [0, 0x41, 0x61, 0x7A, 0x5A, 0x80, 0xE1, changed[place] ^ 0x20] {
                            changed[place] = byte
                            urls.append(Array(host.utf8) + changed + Array("/q".utf8))
                        }
                    }
                }
            }
        }
        var refused = 0
        for url in urls {
            let whole = readWhole(table, byDomain, patterns, url)
            #expect(lookedUp(table, url) == whole, "url \(url)")
            refused += whole.isEmpty ? 1 : 0
        }
        #expect(refused > 0 && refused < urls.count, "both answers met")
        // The compacted table (a loaded list's) answers alike.
        let compacted = table.compacted()
        for url in urls.prefix(2000) { #expect(lookedUp(compacted, url) == lookedUp(table, url), "url \(url)") }
    }

    /// Each filter admits whatever its T matches, and refuses where one of its bytes is unmet.
    @Test func aFilterAdmitsWhatItsPathMatches() {
        let tails = [
            [UInt8(ascii: "/"), UInt8(ascii: "a"), 0xC2, UInt8(ascii: "-")], [0x80, UInt8(ascii: "x")],
            [DomainTable.splitCode, UInt8(ascii: "z")], [UInt8(ascii: ":"), UInt8(ascii: "8"), DomainTable.restCode],
        ]
        // (Of sets 2 to 5: the first, which ends A or D, is left to T.)
        #expect(tails.map { PathFilter.of($0[...]) } == [0x2D_6261, 0x78, 0x7A, 0x38])
        let urls = ["/aB-", "/ab-", "/AB-", "/ab", "/aB", "/a", "", ":8", ":80", ":x", "/x", "xz", "/zz", "/ab-\u{0}"].map { Array($0.utf8) }
        for tail in tails {
            for url in urls {
                url.withUnsafeBufferPointer { url in
                    let matches = DomainTable.tailMatches(tail[...], url, from: 0)
                    let admitted = PathFilter.admits(PathFilter.of(tail[...]), bytes: PathFilter.bytes(url, pathFrom: 0))
                    #expect(!matches || admitted, "\(tail) \(Array(url))")
                }
            }
        }
        #expect(![UInt8]("/aC-".utf8).withUnsafeBufferPointer { PathFilter.admits(PathFilter.of(tails[0][...]), bytes: PathFilter.bytes($0, pathFrom: 0)) })
    }

    /// The URL's bytes read once for all of a found domain's filters (`PathFilter.bytes`) and
    /// tested against each (`admits(_:bytes:)`): the same answer as a byte at a time, at every
    /// place of URLs short and long, for filters of one to four bytes and of gaps.
    @Test func theBytesReadOnceAdmitAsEachByteTested() {
        var random = SplitMix64(seed: 73)
        let alphabet = Array("aAbB/:-.0zZ".utf8) + [0, 0x80, 0xC1]
        for _ in 0..<4000 {
            let url = (0..<Int(random.next() % 10)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            var filter: UInt32 = 0
            for byte in 0..<4 where random.next() % 3 != 0 {
                filter |= UInt32(alphabet[Int(random.next() % UInt64(alphabet.count))] | 0x20) << UInt32(8 * byte)
            }
            url.withUnsafeBufferPointer { url in
                for path in -1..<url.count {
                    // Each byte of the filter that is not 0 equals the URL's, bit 5 set (NUL past its end).
                    let expected = (0..<4).allSatisfy { byte in
                        let wanted = UInt8(truncatingIfNeeded: filter >> UInt32(8 * byte))
                        let place = path + 1 + byte
                        return wanted == 0 || wanted == (place < url.count ? url[place] : 0) | 0x20
                    }
                    let bytes = PathFilter.bytes(url, pathFrom: path)
                    #expect(bytes != PathFilter.unread)
                    #expect(PathFilter.admits(filter, bytes: bytes) == expected, "\(Array(url)) \(path) \(filter)")
                }
            }
        }
    }

    /// On the shipped lists' host patterns: each domain with paths asked about each of its paths'
    /// texts (so that every found domain's other paths are refused), with and without the filters.
    @Test func theShippedPathsAnswerAsReadWhole() throws {
        let filters = try shippedPatterns().compactMap { try? URLFilterParser.parse($0.source, isCaseSensitive: $0.isCaseSensitive).get() }
        let (table, byDomain, patterns) = table(filters)
        var random = SplitMix64(seed: 68)
        var asked = 0
        for (domain, entries) in byDomain.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            for entry in entries where !table.tail(entry).isEmpty {
                let url = Array("https://www.".utf8) + domain + text(of: table.tail(entry), &random)
                #expect(lookedUp(table, url) == readWhole(table, byDomain, patterns, url), "url \(url)")
                asked += 1
            }
        }
        #expect(asked > 1000, "the shipped lists have paths")
    }
}
