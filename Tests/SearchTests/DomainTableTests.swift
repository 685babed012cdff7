// DomainTableTests.swift — the domain table's shape (which patterns it takes) and its answers,
// held to the NFA of the same patterns on URLs built to reach every branch of its reading.

import Testing
import Automata
import Bytecode
@testable import Search
import URLFilterSyntax
import TestSupport

private let prefix = "^[^:]+://+([^:/]+\\.)?"

private func filter(_ source: String, caseSensitive: Bool = false) -> URLFilter {
    try! URLFilterParser.parse(source, isCaseSensitive: caseSensitive).get()
}

private func domain(_ source: String, caseSensitive: Bool = false) -> String? {
    DomainTable.domain(of: filter(source, caseSensitive: caseSensitive)).map { String(decoding: $0, as: UTF8.self) }
}

/// What the compiler makes of `filters`: the domain table and the patterns left to the automata.
private func split(_ filters: [URLFilter]) -> (table: DomainTable, automata: [(id: PatternID, filter: URLFilter)]) {
    var entries: [(pattern: UInt32, domain: [UInt8], tail: [UInt8])] = []
    var automata: [(id: PatternID, filter: URLFilter)] = []
    for (id, filter) in filters.enumerated() {
        if let (domain, tail) = DomainTable.split(filter) {
            entries.append((UInt32(id), domain, tail))
        } else {
            automata.append((PatternID(id), filter))
        }
    }
    return (DomainTable(entries), automata)
}

private func answers(_ table: DomainTable, _ url: [UInt8]) -> [UInt32] {
    var found = Set<UInt32>()
    _ = url.withUnsafeBufferPointer { table.run($0) { found.insert($0) } }
    return found.sorted()
}

@Suite struct DomainTableTests {
    @Test func takesTheConvertersDomainShapeOnly() {
        #expect(domain(prefix + "yahoo\\.com[/:]") == "yahoo.com")
        #expect(domain(prefix + "Ya-Hoo_1\\.com[:/]") == "ya-hoo_1.com", "letters folded; the class in either order")
        #expect(domain(prefix + "a[/:]") == "a")
        #expect(domain(prefix + "a\\?b@c[/:]") == "a?b@c", "any byte but / and : can be part of the host")
        #expect(domain(prefix + "123\\.45[/:]", caseSensitive: true) == "123.45", "no letter: case sensitivity changes nothing")
        let refused = [
            prefix + "yahoo\\.com[/:]$",        // the end anchor
            prefix + "yahoo\\.com[/]",          // another terminator
            prefix + "yahoo\\.com",             // none
            prefix + "yahoo\\.com[/:]x",        // more after it
            prefix + "ya.oo\\.com[/:]",         // a class in the domain
            prefix + "yah?oo\\.com[/:]",        // a quantifier
            prefix + "yah(o)o\\.com[/:]",       // a group
            prefix + "[/:]",                    // no domain
            "^[^:]+:/+([^:/]+\\.)?yahoo\\.com[/:]",   // one slash
            "[^:]+://+([^:/]+\\.)?yahoo\\.com[/:]",   // not anchored
            "^[^:]+://+([^/]+\\.)?yahoo\\.com[/:]",   // another host class
            "^[^:]+://+([^:/]+\\.)yahoo\\.com[/:]",   // the label group required
        ]
        for source in refused { #expect(domain(source) == nil, "\(source)") }
        #expect(domain(prefix + "yahoo\\.com[/:]", caseSensitive: true) == nil, "case-sensitive letters are left to the automata")
    }

    /// URLs built to reach every branch of the reading: chosen ones, then random ones from the
    /// pieces it branches on.
    static func urls() -> [[UInt8]] {
        let chosen = [
            "http://example.com/", "https://www.ads.example.com:443/x", "http://EXAMPLE.COM/", "http://example.com",
            "http://example.com?/", "http:///example.com/", "http:/example.com/", "://example.com/", "ws://a/",
            "http://user@a/", "http://a@b/", "http://.dot/", "http://x..dot/", "http://a..b/", "http://x.a..b/",
            "http://com./", "http://x.com./", "http://b.b.b.b/", "http://ab.ab/", "a:b//example.com/", "x:y://example.com/",
            "http://example.com:a/", "http://e\u{0}.example.com/", "http://example.com\u{0}/", "http://", "http:///", "h://a",
            "http:////a/ads", "http://a/ads/x", "http://x.a:80/ads",
            // Hosts over several eight-byte words, labels ending on a word's edge, hosts that end
            // within the URL's first eight bytes.
            "http://yyyyyyy.xxxxxxxx/", "http://a.yyyyyyy.xxxxxxxx/", "http://XXXXXXXX/", "h://xxxxxxxx/", "a://b/", "h://x.ab/",
            "https://cdn.abcdefg.example.com/", "https://ABCDEFG.EXAMPLE.COM:8/", "h://.xxxxxxxx/", "h://12345678.com/",
            "http://a.b.c.d.e.f.g.h.i.j.12345678.com/",
        ]
        var result = chosen.map { Array($0.utf8) }
        // An upper-case letter at each place of a host, in and past the first eight bytes (the
        // lookup looks for one eight bytes at a time before it decides to fold).
        let host = Array("ads.example.com".utf8)
        for place in host.indices where host[place] != UInt8(ascii: ".") {
            var upper = host
            upper[place] -= 0x20
            result.append(Array("http://".utf8) + upper + Array("/".utf8))
        }
        result.append([0x68, 0x3A, 0x2F, 0x2F, 0x61, 0x2E, 0x80, 0x2E, 0x61, 0x2F])  // h://a.<128>.a/
        result.append([0x68, 0x3A, 0x2F, 0x2F, 0x62, 0x2E, 0x61, 0x2F, 0x80])         // h://b.a/<128>: after A's end
        let pieces = ["http", "H", ":", "/", "//", "///", ".", "..", "example", "EXAMPLE", "com", "ads", "co", "uk", "a", "b", "x-y",
                      "z", "dot", "@", "?", "\u{0}", ":80", "ab", "/ads", "/x", "/", "ads/", "80", "Ads", "/X", "e", "9-1", "1", "xxxxxxxx", "yyyyyyy", "abcdefg", "12345678", "XXXXXXXX"].map { Array($0.utf8) } + [[0x80]]
        var random = UInt64(26)
        func next(_ bound: Int) -> Int {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return Int((random >> 33) % UInt64(bound))
        }
        for _ in 0..<20_000 {
            var url: [UInt8] = next(4) == 0 ? [] : Array("http://".utf8)
            for _ in 0..<next(9) { url += pieces[next(pieces.count)] }
            result.append(url)
        }
        return result
    }

    /// A host's candidates as the lookup reads them, eight bytes at a time from the host's end
    /// (`forEachCandidate`): its start and the byte after each `.` but its first byte, each with
    /// the hash of its bytes to the host's end (`DomainSlots.wordHash`), on hosts of every length
    /// up to three words with dots at every place (a word's first and last byte among them), cased
    /// and folded, behind schemes that put the host at every offset of a word.
    @Test func everyCandidateIsHashedAsItsDomain() {
        var random = SplitMix64(seed: 731)
        for length in 1...26 {
            for _ in 0..<40 {
                let host = (0..<length).map { _ -> UInt8 in
                    let draw = random.next() % 9
                    return draw < 3 ? UInt8(ascii: ".") : draw == 3 ? UInt8(ascii: "Q") : UInt8(ascii: "a") + UInt8(draw)
                }
                for scheme in ["h:", "http:", "https://x", "ab:"] {
                    let url = Array(scheme.utf8) + host + Array("/p".utf8)
                    let (start, end) = (scheme.utf8.count, scheme.utf8.count + length)
                    var expected: [(Int, UInt64)] = []
                    for candidate in start..<end where candidate == start || (candidate > start + 1 && url[candidate - 1] == UInt8(ascii: ".")) {
                        expected.append((candidate, DomainSlots.wordHash(url[candidate..<end].map(DomainSlots.folded)[...])))
                    }
                    var told: [(Int, UInt64)] = []
                    url.withUnsafeBufferPointer { url in
                        DomainTable.forEachCandidate(url, start, end, folding: true) { told.append(($0, $1)) }
                    }
                    told.reverse()
                    #expect(told.map(\.0) == expected.map(\.0), "\(String(decoding: url, as: UTF8.self))")
                    #expect(told.map(\.1) == expected.map(\.1), "\(String(decoding: url, as: UTF8.self))")
                }
            }
        }
    }

    /// Where a host's plain bytes end (`LabelStartStates.plainHostEnd`, sixteen bytes and then a
    /// word at a time, and the URL's last bytes in the word that ends it) is where a byte at a
    /// time finds it, from every place of URLs of every length up to five words.
    @Test func aPlainHostEndsWhereItsBytesSay() {
        var random = SplitMix64(seed: 732)
        let alphabet = Array("az09-./:A_`{,".utf8) + [0, 0x80, 0xFF, 0xE1, 0xB0]
        for length in 0...40 {
            for _ in 0..<60 {
                let url = (0..<length).map { _ in
                    random.next() % 4 == 0 ? alphabet[Int(random.next() % UInt64(alphabet.count))] : UInt8(ascii: "a") + UInt8(random.next() % 26)
                }
                url.withUnsafeBufferPointer { url in
                    for start in 0...length {
                        var end = start
                        while end < length && url[end] < 128 && LabelStartStates.plainHost.contains(url[end]) { end += 1 }
                        #expect(LabelStartStates.plainHostEnd(url, from: start) == end, "\(Array(url)) from \(start)")
                    }
                }
            }
        }
    }

    /// A URL that begins with `https://` (its scheme read as a word) has the host labels, and
    /// reads the bytes, that it has with another scheme of five bytes read a byte at a time
    /// (`schemeColon`), whatever follows, down to nothing; a URL of `https:` and fewer `/`, or of
    /// a scheme that is not a word's, is read a byte at a time.
    @Test func theHTTPSWordReadsAsTheSchemeByteAtATime() {
        var random = SplitMix64(seed: 5757)
        let alphabet = Array("az09-./:A_?#".utf8) + [0, 0x80]
        func reading(_ url: [UInt8]) -> [Int]? {
            url.withUnsafeBufferPointer { url in
                var steps = 0
                guard let labels = DomainTable.hostLabels(url, steps: &steps) else { return [steps] }
                return [steps, labels.slashesEnd, labels.start, labels.end, labels.terminated ? 1 : 0,
                        labels.hasUpperCase ? 1 : 0, labels.isPlain ? 1 : 0]
            }
        }
        for length in 0...20 {
            for _ in 0..<40 {
                let rest = (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
                for (fast, slow) in [("https://", "hxxps://"), ("https:/", "httpx:/"), ("https:", "httpx:"), ("https:///", "HTTPS:///")] {
                    #expect(reading(Array(fast.utf8) + rest) == reading(Array(slow.utf8) + rest), "\(fast) \(rest)")
                }
            }
        }
        #expect(reading(Array("https://a.b/".utf8)) == [12, 8, 8, 11, 1, 0, 1])
    }

    @Test func answersLikeTheNFAOfItsPatterns() {
        let domains = [
            "example.com", "ads.example.com", "co.uk", "a", "x-y.z", ".dot", "a..b", "com.", "b", "a@b", "ab", "xxxxxxxx",
            "yyyyyyy.xxxxxxxx", "abcdefg.example.com", "12345678.com", "b.c.d.e.f.g.h.i.j.12345678.com",
        ]
        let sources = domains.map { prefix + $0.replacing(".", with: "\\.") + "[/:]" }
        let filters = sources.map { filter($0) }
        let table = DomainTable(filters.enumerated().map { (UInt32($0.offset), DomainTable.domain(of: $0.element)!) })
        #expect(table.count == domains.count)
        let nfa = NFA(patterns: filters.enumerated().map { (id: PatternID($0.offset), filter: $0.element) })
        func check(_ text: [UInt8]) {
            #expect(answers(table, text) == nfa.matches(text).map(\.rawValue), "url \(text)")
        }
        for url in Self.urls() { check(url) }
    }

    @Test func takesAPathOfSetsAfterTheDomain() {
        /// D and the number of T's sets, as the table holds them.
        func path(_ source: String, caseSensitive: Bool = false) -> String? {
            guard let (domain, tail) = DomainTable.split(filter(prefix + source, caseSensitive: caseSensitive)) else { return nil }
            let line = DomainTable([(0, domain, tail)]).disassemble().split(separator: " ")
            return "\(line[1]) \(line.count - 2)"
        }
        #expect(path("example\\.com\\/ads") == "example.com 4")
        #expect(path("a:80") == "a 3")
        #expect(path("a[/:]x") == "a 2")
        #expect(path("a[/:]") == "a 0", "the shape without a path")
        #expect(path("a[/:]$") == "a 2", "an end anchor is a last set of NUL")
        #expect(path("1\\/.[^a-z]", caseSensitive: true) == "1 3", "a case-sensitive rule whose domain has no letter")
        #expect(path("1\\/X", caseSensitive: true) == "1 2", "a case-sensitive letter alone")
        #expect(path("a\\/X", caseSensitive: true) == nil, "a case-sensitive domain is left to the automata")
        let refused = ["a\\.", "a[/?]", "a\\/?", "a\\/x*", "a\\/(x)", "a\\/x+", "\\/ads", "a[/:]?"]
        for source in refused { #expect(path(source) == nil, "\(source)") }
    }

    @Test func aPathsSetIsReadAsItsMembersInEitherForm() {
        // Sets of every size and shape the encoder tells apart: one byte (NUL, a letter, another),
        // a letter in both cases, two bytes that are no such pair, `[/:]`, members either side of
        // code unit 64 and at 63, 64 and 127, and random sets.
        var sets: [ASCIISet] = [
            ASCIISet([0]), ASCIISet([0x41]), ASCIISet([0x7A]), ASCIISet([0x2F]), ASCIISet([0x41, 0x61]),
            ASCIISet([0x41, 0x62]), ASCIISet([0x61, 0x7A]), HostPattern.terminator, ASCIISet([63, 64]),
            ASCIISet([1, 127]), ASCIISet([0x5A, 0x7A, 0x30]), ASCIISet(0...127), ASCIISet(1...63), ASCIISet(64...127),
        ]
        var random = SplitMix64(seed: 0x5e7)
        for _ in 0..<2_000 {
            var set = ASCIISet()
            set.low = random.next() & random.next()
            set.high = random.next() & random.next() & (random.next() | random.next())
            if !set.isEmpty { sets.append(set) }
        }
        for set in sets {
            let tail = DomainTable.encode([set])
            #expect(DomainTable.isValidTail(tail[...]), "set \(set.low) \(set.high): its one form")
            for byte in UInt8(1)...127 {
                let url = [byte]
                let matches = url.withUnsafeBufferPointer { DomainTable.tailMatches(tail[...], $0, from: 0) }
                #expect(matches == set.contains(byte), "set \(set.low) \(set.high), byte \(byte)")
            }
        }
    }

    @Test func pathsAnswerLikeTheNFAOfTheirPatterns() {
        // Paths after several domains, several paths after one domain, a domain with and without
        // a path, classes, `.`, case-sensitive letters and the URL's end.
        let sources = [
            "a\\/ads", "example\\.com\\/x", "example\\.com\\/ads\\/", "example\\.com:80", "com\\.\\/", "b[/:]", "b\\/",
            "x-y\\.z\\/$", "a[/:]ads", "co\\.uk\\/.x", "ab:", "a@b\\/\\/", "a\\/[^a-d]", "b[/:][\\x00]", "a\\/\\/$",
        ].map { prefix + $0 }
        var filters = sources.map { filter($0) }
        filters.append(filter(prefix + "80\\/Ads", caseSensitive: true))
        filters.append(filter(prefix + "9-1\\/X", caseSensitive: true))
        let (table, automata) = split(filters)
        #expect(automata.isEmpty && table.count == filters.count)
        let nfa = NFA(patterns: filters.enumerated().map { (id: PatternID($0.offset), filter: $0.element) })
        for url in Self.urls() {
            #expect(answers(table, url) == nfa.matches(url).map(\.rawValue), "url \(url)")
        }
    }

    @Test func everyDomainIsFoundWhereverItsRecordLies() {
        // Thousands of domains, so that lines fill and records lie past their own line; domains
        // too long for a line (70 and 300 bytes), domains of many entries (30 and 100: their
        // entries past a line's and a length byte's reach), entries with and without a path.
        var random = SplitMix64(seed: 11)
        func label(_ length: Int) -> String {
            String((0..<length).map { _ in Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(random.next() % 26))) })
        }
        var domains = (0..<4000).map { _ in label(Int(random.next() % 12) + 3) + "." + label(Int(random.next() % 6) + 2) }
        domains += [label(70), (0..<5).map { _ in label(59) }.joined(separator: "."), label(9) + ".many", label(10) + ".more"]
        domains = Array(Set(domains)).sorted()
        var sources: [String] = []
        var expected: [String: [UInt32]] = [:]
        for domain in domains {
            let escaped = domain.replacingOccurrences(of: ".", with: "\\.")
            let entries = domain.hasSuffix(".many") ? 30 : domain.hasSuffix(".more") ? 100 : Int(random.next() % 3) + 1
            for entry in 0..<entries {
                expected[domain, default: []].append(UInt32(sources.count))
                sources.append(prefix + escaped + (entry % 2 == 1 ? "\\/ads" : "[/:]"))
            }
        }
        let (table, automata) = split(sources.map { filter($0) })
        #expect(automata.isEmpty && table.count == sources.count)
        for domain in domains {
            // Every entry matches `/ads` after the host; only those without a path match `/`.
            #expect(answers(table, Array("https://www.\(domain)/ads".utf8)) == expected[domain]!, "\(domain)")
            let withoutPath = expected[domain]!.filter { !sources[Int($0)].hasSuffix("ads") }
            #expect(answers(table, Array("https://\(domain)/".utf8)) == withoutPath, "\(domain)")
        }
        for _ in 0..<2000 {
            let absent = label(Int(random.next() % 12) + 3) + "." + label(Int(random.next() % 6) + 2)
            guard expected[absent] == nil else { continue }
            #expect(answers(table, Array("https://\(absent)/ads".utf8)).isEmpty, "\(absent)")
        }
        // Compacted (a loaded list's table: its entries kept in its index alone), the table reads
        // every entry back from its records, the overflow's too, and answers as it did.
        let compacted = table.compacted()
        let expanded = compacted.expanded()
        #expect(compacted == table && expanded == table)
        #expect(compacted.count == table.count && compacted.expandedPatterns() == table.expandedPatterns())
        #expect((0..<table.count).allSatisfy { expanded.domain($0) == table.domain($0) && expanded.tail($0) == table.tail($0) })
        #expect(compacted.disassemble() == table.disassemble())
        for domain in domains.prefix(200) + domains.suffix(4) {
            #expect(answers(compacted, Array("https://www.\(domain)/ads".utf8)) == expected[domain]!, "\(domain)")
        }
    }

    @Test func aTableMadeWithoutItsIndexIsIndexedToRun() throws {
        // The compiler's table is written, not run: its index is made when its set is prepared
        // (or, looked up all the same, for that lookup), and it answers as a table made indexed.
        let sources = ["a\\/ads", "example\\.com\\/x", "example\\.com[/:]", "co\\.uk[/:]", "b\\/"].map { prefix + $0 }
        var entries: [(pattern: UInt32, domain: [UInt8], tail: [UInt8])] = []
        for (id, source) in sources.enumerated() {
            let (domain, tail) = try #require(DomainTable.split(filter(source)))
            entries.append((UInt32(id), domain, tail))
        }
        let indexed = DomainTable(entries)
        let unindexed = DomainTable(entries, indexing: false)
        #expect(indexed.isIndexed && !unindexed.isIndexed && unindexed.indexed().isIndexed && unindexed == indexed)
        let gated = unindexed.includingGates(from: UInt32(sources.count), [Array("gate.example".utf8)])
        #expect(!gated.isIndexed && gated.count == sources.count + 1, "a gate added keeps the table as it was")
        let set = ProgramSet(programs: [], domains: unindexed)
        #expect(set.domains.isIndexed, "a set prepared to run indexes its table")
        for url in Self.urls() {
            #expect(answers(unindexed, url) == answers(indexed, url), "url \(url)")
            #expect(answers(gated.indexed(), url) == answers(gated, url), "url \(url)")
        }
    }

    @Test func aStageWithTheDomainPrefixStartsWhereTheHostLabelsSay() throws {
        // `||` rules of neither shape: a stage whose prefix the host labels answer, beside the table.
        let sources = ["a\\/ads", "example\\.com\\/x*", "\\/ads", "com\\.\\/?", ":80", "b[/:]", "x-y\\.z\\/", "\\.dot"].map { prefix + $0 }
        let filters = sources.map { filter($0) }
        let (table, automata) = split(filters)
        let nfa = NFA(patterns: filters.enumerated().map { (id: PatternID($0.offset), filter: $0.element) })
        // Without gates, the stage holds them all; with gates (GatePlanner.swift), those that
        // have one run where it occurs, and the set answers alike.
        for gating in [false, true] {
            var timer = PhaseTimer()
            let limits = AutomataLimits(minimumPatternsPerStage: 2, gatesLoopyPatterns: gating)
            let partition = DFAPartitioner.build(automata, limits: limits, phaseTimer: &timer) { Program($0) }
            let set = ProgramSet(partition, domains: table)
            #expect(table.count == 3)
            if !gating { #expect(set.stages.count == 1 && set.stages[0].prefix == ProgramSet.hostLabelPrefix) }
            if gating { #expect(set.gated != nil && set.domains.count > table.count, "`example.com/x*` is gated by its domain") }
            var ends: [Int] = []
            for url in Self.urls() {
                var found = Set<UInt32>()
                _ = url.withUnsafeBufferPointer { set.run($0, ends: &ends) { found.insert($0) } }
                #expect(found.sorted() == nfa.matches(url).map(\.rawValue), "url \(url), gating \(gating)")
            }
        }
    }

    @Test func theDomainPrefixMakesAStageOfAnySize() {
        // Three `||` rules the table does not take: a stage whose prefix costs no run, though
        // stages need 32 patterns; with another prefix, three patterns are built whole.
        let staged = StagePlanner.plan(
            ["a\\/x*", "b\\/?", "c\\."].enumerated().map { (id: PatternID($0.offset), filter: filter(prefix + $0.element)) },
            minimumPatternsPerStage: 32)
        #expect(staged.stages.count == 1 && staged.whole.isEmpty)
        #expect(staged.stages.first.map { URLFilterGroup($0.prefix.terms).hasSameShape(as: URLFilterGroup(StagePlanner.hostLabelPrefix)) } == true)
        let other = StagePlanner.plan(
            ["a\\/x*", "b\\/?", "c\\."].enumerated().map { (id: PatternID($0.offset), filter: filter("^[^:]+://+([^/]+\\.)?" + $0.element)) },
            minimumPatternsPerStage: 32)
        #expect(other.stages.isEmpty && other.whole.count == 3)
    }

    @Test func unanchoredPatternsPastTheTrieBudgetAreTriedAtEveryByte() {
        // Unanchored patterns without loops: built whole (an Aho-Corasick automaton) within the
        // budget of terms; past it, anchored tries of the empty prefix, which answer alike.
        let sources = ["ads", "example\\.com", "\\/x", "a.c", "co[/:]", "ab$", "com\\.\\/", "80\\/", "^http:", "b\\/x*y", "q.*r"]
        let filters = sources.map { filter($0) }
        let nfa = NFA(patterns: filters.enumerated().map { (id: PatternID($0.offset), filter: $0.element) })
        for budget in [1_000_000, 12] {
            var timer = PhaseTimer()
            let limits = AutomataLimits(minimumPatternsPerStage: 2, maximumUnanchoredTrieTerms: budget)
            let patterns = filters.enumerated().map { (id: PatternID($0.offset), filter: $0.element) }
            let dfas = DFAPartitioner.build(patterns, limits: limits, phaseTimer: &timer)
            let tried = dfas.stages.flatMap { $0.suffixes.flatMap(\.acceptedPatterns) }
            // `b\/x*y` and `q.*r` have a loop: tried at every byte in both; `^http:` is anchored:
            // whole in both.
            #expect(Set(tried) == Set((budget == 12 ? (0..<11).filter { $0 != 8 } : [9, 10]).map { PatternID($0) }), "budget \(budget)")
            let programs = DFAPartitioner.build(patterns, limits: limits, phaseTimer: &timer) { Program($0) }
            let set = ProgramSet(programs)
            #expect(set.stages.count == 1 && set.stages[0].prefix.reportsAtEveryPosition)
            var ends: [Int] = []
            // (URLs as canonicalization leaves them: no NUL, no byte from 128 on.)
            for url in Self.urls() where url.allSatisfy({ (1...127).contains($0) }) {
                var found = Set<UInt32>()
                _ = url.withUnsafeBufferPointer { set.run($0, ends: &ends) { found.insert($0) } }
                #expect(found.sorted() == nfa.matches(url).map(\.rawValue), "budget \(budget), url \(url)")
            }
        }
    }

    /// An entry's pattern shares its index word with the path and filter flags (bits 31 and 30),
    /// so a file whose pattern count allows 2^30 or more still has its table refused there.
    @Test func aPatternAtTheIndexFlagsIsRefused() throws {
        func table(pattern: UInt32) -> [UInt8] {
            var writer = ByteWriter()
            writer.varint(1)
            writer.varint(pattern)
            writer.varint(UInt32("a.com".utf8.count) << 1)
            writer.append(contentsOf: Array("a.com".utf8))
            return writer.bytes
        }
        var below = ByteReader(table(pattern: (1 << 30) - 1))
        let read = try DomainTable.read(from: &below, patternCount: 1 << 31, indexing: false)
        #expect(read.count == 1)
        var at = ByteReader(table(pattern: 1 << 30))
        do {
            _ = try DomainTable.read(from: &at, patternCount: 1 << 31, indexing: false)
            Issue.record("pattern 2^30 was read")
        } catch .malformed(let offset, let reason) {
            #expect(offset == 1 && reason == "domain table: pattern 1073741824 of 1073741824")
        } catch {
            Issue.record("\(error)")
        }
    }

    /// A file's domains are checked eight bytes a step (`isValid`): it refuses exactly what a
    /// check of each byte against the table's domain bytes refuses, whatever the byte, its place
    /// and the domain's length (shorter than a word, a word, more, with a last word in part).
    @Test func aDomainIsCheckedAsItsBytesAreOneByOne() {
        expectWordCheckAgrees(DomainTable.isValid, with: { DomainSlots.isDomain($0, of: DomainTable.domainBytes) }, seed: 57)
    }

    @Test func aProgramSetReportsItsTableAndWritesIt() throws {
        let table = DomainTable([(1, Array("example.com".utf8)), (4, Array("ads.net".utf8))])
        let set = ProgramSet(programs: [], domains: table)
        var ends: [Int] = []
        var found: [UInt32] = []
        let url = Array("https://cdn.ads.net/x".utf8)
        let (steps, runs) = url.withUnsafeBufferPointer { set.run($0, ends: &ends) { found.append($0) } }
        #expect(found == [4] && runs == 1 && steps > 0)
        #expect(set.disassemble(name: "url").contains("p4 ads.net"))
    }
}
