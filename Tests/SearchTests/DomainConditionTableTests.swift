// DomainConditionTableTests.swift — the domain condition table's shape (which patterns it takes)
// and its answers, held to the NFA of the same patterns on URLs built to reach every branch of
// its reading: several `://`, schemes with and without a letter, user info and ports (a `:` inside
// the host), empty labels, upper case, NUL and bytes from 128 on; compacted, it reads its entries
// back from its index.

import Testing
import Automata
import Bytecode
@testable import Search
import URLFilterSyntax
import TestSupport

private let host = "[a-z][a-z+.-]*:\\/\\/"
private let below = host + "([^/]*\\.)*"

private func filter(_ source: String, caseSensitive: Bool = false) -> URLFilter {
    try! URLFilterParser.parse(source, isCaseSensitive: caseSensitive).get()
}

/// D as the table holds it, `*` first when hosts below it match; nil when the table refuses it.
private func entry(_ source: String, caseSensitive: Bool = false) -> String? {
    guard let (domain, subdomains) = DomainConditionTable.split(filter(source, caseSensitive: caseSensitive)) else { return nil }
    return (subdomains ? "*" : "") + String(decoding: domain, as: UTF8.self)
}

private func answers(_ table: DomainConditionTable, _ url: [UInt8]) -> [UInt32] {
    var found = Set<UInt32>()
    _ = url.withUnsafeBufferPointer { table.run($0) { found.insert($0) } }
    return found.sorted()
}

@Suite struct DomainConditionTableTests {
    @Test func takesTheShapeOfADomainConditionOnly() {
        #expect(entry(host + "example\\.com[:/]") == "example.com")
        #expect(entry(below + "example\\.com[:/]") == "*example.com")
        #expect(entry(host + "Ex-Ample_1\\.com[/:]") == "ex-ample_1.com", "letters folded; the class in either order")
        #expect(entry(host + "a:b@c[:/]") == "a:b@c", "a `:` in D")
        #expect(entry(host + "123[:/]", caseSensitive: true) == nil, "a case-sensitive scheme class is another set")
        let refused = [
            "^" + host + "example\\.com[:/]",      // anchored at the start
            host + "example\\.com[:/]$",           // at the end
            host + "example\\.com[/]",             // another terminator
            host + "example\\.com",                // none
            host + "example\\.com[:/]x",           // more after it
            host + "exa.ple\\.com[:/]",            // `.` in D
            host + "exam?ple\\.com[:/]",           // a quantifier
            host + "ex(am)ple\\.com[:/]",          // a group
            host + "a\\/b[:/]",                    // `/` in D
            host + "[:/]",                         // no domain
            "[a-z]+:\\/\\/example\\.com[:/]",      // another scheme
            "[a-z][a-z+.-]*:\\/example\\.com[:/]", // one slash
            host + "([^/]+\\.)*example\\.com[:/]", // another label group
            host + "([^/]*\\.)?example\\.com[:/]", // another quantifier on it
            "^[^:]+://+([^:/]+\\.)?example\\.com[/:]", // the `||` shape (DomainTable's)
        ]
        for source in refused { #expect(entry(source) == nil, "\(source)") }
    }

    /// URLs built to reach every branch of the reading: chosen ones, then random ones from the
    /// pieces it branches on.
    static func urls() -> [[UInt8]] {
        let chosen = [
            "http://example.com/", "https://www.example.com:443/x", "HTTP://EXAMPLE.COM/", "http://example.com",
            "http://example.com?/", "http:///example.com/", "http:/example.com/", "://example.com/", "1://example.com/",
            "a1://example.com/", "+a://example.com/", "a+://example.com/", "-://example.com/", "x.-+://example.com/",
            "http://user:pw@example.com/", "http://example.com:pw@evil.net/", "http://evil.net/?u=https://example.com/",
            "http://.example.com/", "http://..example.com/", "http://a..example.com/", "http://example.com./",
            "http://xexample.com/", "http://example.comx/", "http://example.com:/", "http://example.com::/", "http://:example.com/",
            "http://a.b:c.example.com:/", "a://b://example.com/", "a://b:/example.com/", "http://example.com\u{0}/",
            "http://e\u{0}.example.com/", "http://", "http:///", "h://a", "h://a/", "h://a:", "://", ":///", "http:example.com/",
            "http://www.Example-Longer.co.uk/", "http://a.www.example-longer.co.uk:80/", "http://xwww.example-longer.co.uk/",
            "http://sub.EXAMPLE-longer.co.uk/", "http://example-longer.co.uk./", "h://www.example-longer.co.uk/",
        ]
        var result = chosen.map { Array($0.utf8) }
        result.append(Array("http://a.".utf8) + [0x80] + Array(".example.com/".utf8))
        result.append(Array("http://example.com".utf8) + [0x80, 0x2F])
        let pieces = ["http", "H", "1", "+", "-", ":", "/", "//", "://", ".", "..", "example", "EXAMPLE", "com", "ads", "a", "b",
                      "x-y", "@", "?", "\u{0}", ":80", "ab", "/x", "co", "uk", "e"].map { Array($0.utf8) } + [[0x80]]
        var random = UInt64(62)
        func next(_ bound: Int) -> Int {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return Int((random >> 33) % UInt64(bound))
        }
        for _ in 0..<20_000 {
            var url: [UInt8] = next(3) == 0 ? [] : Array("http://".utf8)
            for _ in 0..<next(10) { url += pieces[next(pieces.count)] }
            if next(2) == 0 { url.append(0x2F) }
            result.append(url)
        }
        return result
    }

    @Test func answersLikeTheNFAOfItsPatterns() {
        let domains = ["example.com", "*example.com", "*com", "a", "*a", "*b", "co.uk", "*co.uk", "x-y", ".example.com", "*.com",
                       "example.com.", "a..b", "a:b", "*80", "b@a", "*ab", "e", "www.example-longer.co.uk", "*example-longer.co.uk",
                       "*sub.example-longer.co.uk"]
        let filters = domains.map { domain in
            let name = domain.hasPrefix("*") ? String(domain.dropFirst()) : domain
            return filter((domain.hasPrefix("*") ? below : host) + name.replacing(".", with: "\\.") + "[:/]")
        }
        let table = DomainConditionTable(filters.enumerated().map {
            let (domain, subdomains) = DomainConditionTable.split($0.element)!
            return (UInt32($0.offset), domain, subdomains)
        })
        #expect(table.count == domains.count)
        let nfa = NFA(patterns: filters.enumerated().map { (id: PatternID($0.offset), filter: $0.element) })
        var matched = 0
        for url in Self.urls() {
            let expected = nfa.matches(url).map(\.rawValue)
            #expect(answers(table, url) == expected, "url \(url)")
            if !expected.isEmpty { matched += 1 }
        }
        #expect(matched > 500, "the URLs reach the matches")
        // Compacted (a loaded list's table: its entries kept in its index alone), the table reads
        // every entry back from its groups and answers as it did.
        let compacted = table.compacted()
        let expanded = compacted.expanded()
        #expect(compacted == table && expanded == table && compacted.disassemble() == table.disassemble())
        #expect((0..<table.count).allSatisfy { expanded.domain($0) == table.domain($0) && compacted.domain($0) == table.domain($0) })
        for url in Self.urls().prefix(300) { #expect(answers(compacted, url) == answers(table, url), "url \(url)") }
    }

    /// Many domains, some of several entries (their groups past a line, the lines' padding
    /// between groups), compacted and expanded again: the same entries.
    @Test func aCompactedTableReadsEveryEntryBackFromItsGroups() {
        var entries: [(pattern: UInt32, domain: [UInt8], subdomains: Bool)] = []
        for index in 0..<3_000 {
            let domain = Array("d\(index * 7919 % 3001).example\(index % 13 == 0 ? String(repeating: "x", count: 40) : "")".utf8)
            for copy in 0..<(index % 97 == 0 ? 20 : 1) {
                entries.append((UInt32(entries.count), copy % 2 == 0 ? domain : Array("www.".utf8) + domain, (index + copy) % 3 == 0))
            }
        }
        let table = DomainConditionTable(entries)
        let compacted = table.compacted()
        #expect(compacted == table)
        let expanded = compacted.expanded()
        #expect((0..<table.count).allSatisfy { expanded.domain($0) == table.domain($0) })
        #expect(expanded.disassemble() == table.disassemble())
    }

    /// A host of colons costs its length times the longest domain, not its square.
    @Test func aLookupReadsBackAtMostTheLongestDomain() {
        let table = DomainConditionTable([(0, Array("example.com".utf8), true)])
        let url = Array("http://".utf8) + [UInt8](repeating: 0x3A, count: 100_000) + Array("example.com/".utf8)
        var found: [UInt32] = []
        let steps = url.withUnsafeBufferPointer { table.run($0) { found.append($0) } }
        #expect(found.isEmpty)
        #expect(steps < 2 * url.count + 11 * 100_020)
        let dotted = Array("http://".utf8) + [UInt8](repeating: 0x3A, count: 100_000) + Array(".example.com/".utf8)
        _ = dotted.withUnsafeBufferPointer { table.run($0) { found.append($0) } }
        #expect(found == [0])
    }

    /// A file's domains are checked eight bytes a step: the check refuses exactly what a check of
    /// each byte against the table's domain bytes refuses, whatever the byte, its place and the
    /// domain's length (shorter than a word, a word, more, with a last word in part).
    @Test func aFilesDomainIsCheckedAsItsBytesAreOneByOne() {
        expectWordCheckAgrees(DomainConditionTable.isValid, with: DomainConditionTable.isValid, seed: 75)
    }

    @Test func aProgramSetReportsItsTableAndListsIt() throws {
        let table = DomainConditionTable([(1, Array("example.com".utf8), false), (4, Array("ads.net".utf8), true)])
        let set = ProgramSet(programs: [], domainConditions: table)
        var ends: [Int] = []
        var found: [UInt32] = []
        let url = Array("https://cdn.ads.net/x".utf8)
        let (steps, runs) = url.withUnsafeBufferPointer { set.run($0, ends: &ends) { found.append($0) } }
        #expect(found == [4] && runs == 1 && steps > 0)
        let text = set.disassemble(name: "top-url")
        #expect(text.contains("p1 example.com") && text.contains("p4 *ads.net"))
    }
}
