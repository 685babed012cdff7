// HostContextTests.swift — host patterns recognised by what they match, whatever converter spelled
// them (Automata/HostShape.swift, ContentBlocker/HostContextPlanner.swift,
// Search/HostContextTable.swift): each converter's spelling sorted as its meaning says, and the
// tables' answers held to the NFA of the same patterns on URLs built to reach the places where
// the spellings differ in meaning (schemes, `//` and `///`, user info, ports, separators, case,
// NUL and bytes from 128 on).

import Testing
@testable import ContentBlocker
import Automata
@testable import Bytecode
@testable import Search
import URLFilterSyntax
import TestSupport

private func filter(_ source: String, caseSensitive: Bool = false) -> URLFilter {
    try! URLFilterParser.parse(source, isCaseSensitive: caseSensitive).get()
}

/// A converter's spelling of `||D^` and `||D/path`: its prefix, and what follows D.
private struct Spelling {
    let name: String
    let prefix: String
    let end: String
    let caseSensitive: Bool

    func host(_ domain: String) -> String { prefix + domain.replacing(".", with: "\\.") + end }
    func path(_ domain: String, _ path: String) -> String { prefix + domain.replacing(".", with: "\\.") + path }
}

private let spellings = [
    Spelling(name: "adguard", prefix: "^[^:]+://+([^:/]+\\.)?", end: "[/:]", caseSensitive: false),
    Spelling(name: "adguard, escaped and reordered", prefix: "^[^:]+:\\/\\/\\/*([^/:]+[.])?", end: "[:/]", caseSensitive: false),
    Spelling(name: "webkit-dnr", prefix: "^[^:]+://+([^:/]+\\.)?", end: "[^a-zA-Z0-9_.%-]", caseSensitive: false),
    Spelling(name: "abp2blocklist", prefix: "^[^:]+:(//)?([^/]+\\.)?", end: "([^-_.%a-z0-9].*)?$", caseSensitive: true),
    Spelling(name: "abp2blocklist http", prefix: "^https?://([^/]+\\.)?", end: "([^-_.%a-z0-9].*)?$", caseSensitive: false),
    Spelling(name: "adguard 1.x", prefix: "^[htpsw]+:\\/\\/([a-z0-9-]+\\.)?", end: "([\\/:&\\?].*)?$", caseSensitive: false),
    Spelling(name: "many labels", prefix: "^(https?)?(wss?)?://([a-z0-9-]+\\.)*", end: "[/:]$", caseSensitive: false),
    // Nothing after D: open domains (Search/OpenDomains.swift), which need not end the host.
    Spelling(name: "adblock-rust", prefix: "^[^:]+:(//)?([^/]+\\.)?", end: "", caseSensitive: false),
    Spelling(name: "adblock-rust, case-sensitive", prefix: "^[^:]+:(//)?([^/]+\\.)?", end: "", caseSensitive: true),
    Spelling(name: "open, many labels", prefix: "^https?://([a-z0-9-]+\\.)*", end: "", caseSensitive: false),
]

private let domains = [
    "example.com", "ads.example.com", "co.uk", "a", "x-y.z", "b", "ab", "xxxxxxxx", "yyyyyyy.xxxxxxxx", "12345678.com",
    "a_b.example.com", "b.c.d.e.f.g.h.i.j.12345678.com",
]

/// The pool's patterns as the planner sorts them: the domain table's entries, the contexts' tables,
/// and the patterns left to the automata.
private func plan(_ filters: [URLFilter]) -> (
    domains: [(pattern: UInt32, domain: [UInt8], tail: [UInt8])], contexts: [HostContextTable], automata: [PatternID]
) {
    var planner = HostContextPlanner()
    var tabled: [(pattern: UInt32, domain: [UInt8], tail: [UInt8])] = []
    var automata: [PatternID] = []
    for (id, filter) in filters.enumerated() {
        switch planner.take(UInt32(id), filter) {
        case .domainTable(let domain, let tail): tabled.append((UInt32(id), domain, tail))
        case .context: break
        case .none: automata.append(PatternID(id))
        }
    }
    let (contexts, small) = planner.finish()
    return (tabled, contexts, (automata + small.map(\.id)).sorted())
}

/// URLs from pieces where the spellings part: chosen ones, then random ones.
private func urls() -> [[UInt8]] {
    let chosen = [
        "http://example.com/", "https://ads.example.com:443/x", "HTTPS://EXAMPLE.COM/", "ws://example.com/", "wss://a/",
        "ftp://example.com/", "data:example.com/", "http:example.com/", "http:///example.com/", "file:///example.com/",
        "http://user:pw@ads.example.com/", "http://user@example.com/", "http://example.com", "http://example.com?x",
        "http://example.com#x", "http://example.com&x", "http://example.com%2f", "http://example.community/",
        "http://a_b.example.com/", "http://x.a_b.example.com/", "http://example.com.evil/", "http://example.com:80",
        "https://example.com/", "https://ads.example.com/x", "https://x.ads.example.com:8/", "https://example.com.evil/",
        "http://example.com\u{0}/", "http://ex\u{0}ample.com/", "http:/example.com/", "h2://a/", "a://b/",
    ]
    var result = chosen.map { Array($0.utf8) }
    result.append(Array("http://example.com/".utf8) + [0x80])
    result.append(Array("http://example.com?".utf8) + [0x80, 0x2F])
    result.append(Array("http://".utf8) + [0x80, 0x2E] + Array("example.com/".utf8))
    let pieces = [
        "http", "https", "HTTP", "ws", "wss", "ftp", "h2", ":", "/", "//", "///", ".", "..", "example", "EXAMPLE", "com", "ads",
        "co", "uk", "a", "b", "ab", "x-y", "z", "_", "a_b", "@", "?", "#", "&", "%", "=", "\u{0}", ":80", "/ads", "/x", "80",
        "xxxxxxxx", "yyyyyyy", "12345678", "community", "x-y.zz", "xxxxxxxxyyyyyyy", "ADS",
    ].map { Array($0.utf8) } + [[0x80]]
    var random = SplitMix64(seed: 59)
    for _ in 0..<20_000 {
        // (`https://` too: a lookup reads its scheme part's state, `HostContextLookup.httpsState`.)
        let scheme = Int.random(in: 0..<4, using: &random)
        var url: [UInt8] = scheme == 0 ? [] : Array((scheme == 1 ? "https://" : "http://").utf8)
        for _ in 0..<Int.random(in: 0..<9, using: &random) { url += pieces[Int.random(in: 0..<pieces.count, using: &random)] }
        result.append(url)
    }
    return result
}

@Suite struct HostContextTests {
    @Test func eachSpellingIsSortedByItsMeaning() throws {
        let padding = AutomataLimits.default.minimumPatternsPerHostContext
        for spelling in spellings {
            let hosts = (0..<padding).map { filter(spelling.host("d\($0).\(domains[$0 % domains.count])"), caseSensitive: spelling.caseSensitive) }
            let paths = domains.map { filter(spelling.path($0, "\\/ads"), caseSensitive: spelling.caseSensitive) }
            let (tabled, contexts, automata) = plan(hosts + paths)
            #expect(automata.isEmpty, "\(spelling.name): \(automata)")
            switch spelling.name {
            case "adguard", "adguard, escaped and reordered":
                #expect(tabled.count == hosts.count + paths.count && contexts.isEmpty, "\(spelling.name): the domain table's meaning")
            case "webkit-dnr":
                // The domain table's prefix: its paths are the table's, its other ends a context's.
                #expect(tabled.count == paths.count && contexts.count == 1 && contexts[0].table.count == hosts.count)
            case _ where spelling.end.isEmpty:
                #expect(tabled.isEmpty && contexts.count == 1 && contexts[0].open.count == hosts.count, "\(spelling.name): open domains")
            default:
                #expect(tabled.isEmpty && contexts.count == 1, "\(spelling.name): a context of its own")
            }
        }
        // Too few of one prefix for a table: the automata's; and too few open domains beside a
        // context's other patterns.
        let few = domains.map { filter(spellings[3].host($0), caseSensitive: true) }
        #expect(plan(few).automata.count == few.count)
        let open = try #require(spellings.first { $0.name == "adblock-rust" })
        let hosts = (0..<padding).map { filter(open.path("d\($0).\(domains[$0 % domains.count])", "\\/ads")) }
        let (_, contexts, automata) = plan(hosts + domains.map { filter(open.host($0)) })
        #expect(contexts.count == 1 && contexts[0].open.isEmpty && automata.count == domains.count)
        // AdGuard's L without anything after D: its `||` stage's, as before.
        #expect(plan(hosts.indices.map { filter(spellings[0].prefix + "d\($0)") }).automata.count == hosts.count)
    }

    @Test func equalPrefixesAreOneContextAndDifferentOnesApart() {
        let a = HostStarts(filter("^[^:]+:(//)?([^/]+\\.)?"))!
        let b = HostStarts(filter("^[^:]+:(\\/\\/)?([^\\/]+[.])?"))!
        let c = HostStarts(filter("^[^:]+://+([^/]+\\.)?"))!
        #expect(a == b, "one meaning, two texts")
        #expect(a != c, "`//` optional against one or more")
        #expect(HostStarts(filter("^https?://")) != HostStarts(filter("^[^:]+://")))
    }

    @Test func tailsAreReadByMeaning() {
        func tail(_ source: String) -> HostTail? { HostTail(filter(source)) }
        let separator = ASCIISet(Array("/:&?".utf8))
        #expect(tail("^([\\/:&\\?].*)?$") == HostTail(sets: [separator.union(.nul)], thenRest: true))
        #expect(tail("^[/:&?].*$") == HostTail(sets: [separator], thenRest: true))
        #expect(tail("^[/:]$") == HostTail(sets: [ASCIISet([0x2F, 0x3A]), .nul], thenRest: false))
        #expect(tail("^[/:](x)?") == HostTail(sets: [ASCIISet([0x2F, 0x3A])], thenRest: false), "what may match nothing is dropped")
        #expect(tail("^([/:])?") == nil, "nothing required after D")
        #expect(tail("^[/:]?x") == nil, "a choice of lengths")
        #expect(tail("^[/:].*x") == nil, "a loop that is not the rest")
    }

    @Test func contextsAnswerLikeTheNFAOfTheirPatterns() {
        for spelling in spellings {
            let filters = domains.map { filter(spelling.host($0), caseSensitive: spelling.caseSensitive) }
                + domains.prefix(4).map { filter(spelling.path($0, "\\/ads"), caseSensitive: spelling.caseSensitive) }
                + domains.prefix(4).map { filter(spelling.path($0, ":80$"), caseSensitive: spelling.caseSensitive) }
                + (spelling.end.isEmpty ? domains.prefix(4).map { filter(spelling.path($0, "$"), caseSensitive: spelling.caseSensitive) } : [])
            let padded = filters + Array(repeating: filters[0], count: AutomataLimits.default.minimumPatternsPerHostContext)
            let (tabled, contexts, automata) = plan(padded)
            #expect(automata.isEmpty, "\(spelling.name)")
            let nfa = NFA(patterns: filters.enumerated().map { (id: PatternID($0.offset), filter: $0.element) })
            let set = ProgramSet(
                programs: [], domains: DomainTable(tabled), hostContexts: contexts)
            var ends: [Int] = []
            for url in urls() {
                var found = Set<UInt32>()
                _ = url.withUnsafeBufferPointer { set.run($0, ends: &ends) { found.insert($0) } }
                let answer = found.filter { $0 < filters.count }.sorted()
                #expect(answer == nfa.matches(url).map(\.rawValue), "\(spelling.name): url \(url)")
            }
        }
    }

    @Test func hostLabelsStandForTheAutomatonWhereTheyAreItsEnds() {
        let kaBlock = Spelling(name: "ka-block", prefix: "^https?:/+([^/:]+\\.)?", end: "[/:]", caseSensitive: true)
        var taking: Set<String> = []
        for spelling in spellings + [kaBlock] {
            let filters = domains.map { filter(spelling.host($0), caseSensitive: spelling.caseSensitive) }
                + domains.prefix(4).map { filter(spelling.path($0, "\\/ads"), caseSensitive: spelling.caseSensitive) }
            let padded = filters + Array(repeating: filters[0], count: AutomataLimits.default.minimumPatternsPerHostContext)
            for context in plan(padded).contexts.map({ $0.indexed() }) {
                if context.takesHostLabels { taking.insert(spelling.name) }
                for url in urls() {
                    var (byLabels, byAutomaton): ([UInt32], [UInt32]) = ([], [])
                    url.withUnsafeBufferPointer { bytes in
                        context.lookUp(bytes) { byLabels.append($0) }
                        context.lookUpByAutomaton(bytes) { byAutomaton.append($0) }
                    }
                    #expect(byLabels.sorted() == byAutomaton.sorted(), "\(spelling.name): url \(url)")
                }
            }
        }
        // Open domains need not end the host, and AdGuard 1.x's and "many labels"' L end after
        // some of a host's dots only: those read with the automaton.
        #expect(taking == ["webkit-dnr", "abp2blocklist", "abp2blocklist http", "ka-block"])
        #expect((0..<128).map(UInt8.init).allSatisfy { LabelStartStates.isPlainHostByte($0) == LabelStartStates.plainHost.contains($0) })
    }

    /// Several sets' host contexts looked up with their domain tables (`ProgramSet.DomainsTogether`):
    /// a group whose contexts take a plain host's labels probed with the candidates hashed for the
    /// domain tables, the others read by their automata, a set with open domains left to its run.
    /// The contexts and the tables name the same hosts and others; each set's run after the lookup
    /// reports the same patterns, and counts the same steps, as its run alone.
    @Test func contextsLookedUpWithDomainTablesAnswerAsEachSetAlone() throws {
        let kaBlock = Spelling(name: "ka-block", prefix: "^https?:/+([^/:]+\\.)?", end: "[/:]", caseSensitive: true)
        let named = { (name: String) in try #require(spellings.first { $0.name == name }) }
        let (adguard, http, oneX, open) = (try named("adguard"), try named("abp2blocklist http"), try named("adguard 1.x"), try named("adblock-rust"))
        let padding = AutomataLimits.default.minimumPatternsPerHostContext
        // A set of each spelling's patterns of its hosts (the first four with a path too), padded
        // to a context of its own.
        func set(_ parts: [(Spelling, [String])]) -> ProgramSet {
            var filters: [URLFilter] = []
            for (spelling, hosts) in parts {
                filters += (hosts + (0..<padding).map { "pad\($0).test" }).map { filter(spelling.host($0), caseSensitive: spelling.caseSensitive) }
                filters += hosts.prefix(4).map { filter(spelling.path($0, "\\/ads"), caseSensitive: spelling.caseSensitive) }
            }
            let (tabled, contexts, automata) = plan(filters)
            #expect(automata.isEmpty)
            return ProgramSet(programs: [], domains: DomainTable(tabled), hostContexts: contexts)
        }
        let sets = [
            set([(adguard, domains)]),
            set([(kaBlock, Array(domains.prefix(6)) + ["other.com"])]),
            // One L with the set before, another that takes the labels, one read by its automaton.
            set([(adguard, ["other.com", "example.com", "b"]), (kaBlock, ["ads.example.com", "b", "x-y.z"]),
                (http, ["example.com", "x-y.z", "ab"]), (oneX, ["example.com", "ab"])]),
            set([(open, ["example.com"]), (adguard, ["co.uk", "ab"])]),
        ]
        let together = try #require(ProgramSet.DomainsTogether(sets))
        #expect(together.looksUp == [true, false, true, true])
        #expect(together.looksUpContexts == [false, true, true, false])
        var reported = [Set<UInt32>](repeating: [], count: sets.count)
        for url in urls() {
            url.withUnsafeBufferPointer { url in
                let reading = DomainTable.HostReading(url)
                var ends = [[Int]](repeating: [], count: sets.count)
                var joint = [[UInt32]](repeating: [], count: sets.count)
                together.lookUp(url, labels: reading.labels) { set, pattern, gateBase, byContext in
                    ProgramSet.listed(pattern, gateBase: gateBase, byContext: byContext, &ends[set]) { joint[set].append($0) }
                }
                for (index, set) in sets.enumerated() {
                    var (aloneEnds, alone) = ([Int](), [UInt32]())
                    let aloneSteps = set.run(url, hostReading: reading, ends: &aloneEnds) { alone.append($0) }.steps
                    var lookedUp: ProgramSet.LookedUp = together.looksUp[index] ? .domains : []
                    if together.looksUpContexts[index] { lookedUp.insert(.hostContexts) }
                    let steps = set.run(url, hostReading: reading, ends: &ends[index], lookedUp: lookedUp) { joint[index].append($0) }.steps
                    #expect(joint[index].sorted() == alone.sorted() && steps == aloneSteps, "set \(index): url \(Array(url))")
                    reported[index].formUnion(alone)
                }
            }
        }
        #expect(reported.allSatisfy { $0.count >= 3 }, "every set reports patterns of its own: \(reported.map(\.count))")
    }

    @Test func plainHostsReadEightBytesAtATimeAsByteByByte() {
        // Each byte at each place of hosts of 1 to 20 bytes, then a path with a byte from 128 on
        // or none: the first byte not plain found, and the host's labels read so.
        var wrong: [(length: Int, place: Int, byte: UInt8)] = []
        for length in 1...20 {
            for place in 0..<length {
                for byte in (0...255).map(UInt8.init) {
                    var url = Array("https://".utf8) + Array(repeating: UInt8(ascii: "a"), count: length) + Array("/x\u{E9}".utf8)
                    url[8 + place] = byte
                    // Byte by byte: A from past the slashes to the first stop, plain or not.
                    func isPlain(_ byte: UInt8) -> Bool { byte < 128 && LabelStartStates.plainHost.contains(byte) }
                    func stops(_ byte: UInt8) -> Bool { byte == 0x2F || byte == 0x3A || byte == 0 || byte >= 128 }
                    var start = 8
                    while url[start] == 0x2F { start += 1 }
                    let end = url[start...].firstIndex(where: stops) ?? url.count
                    let plainEnd = url[start...].firstIndex { !isPlain($0) } ?? url.count
                    let terminated = end < url.count && (url[end] == 0x2F || url[end] == 0x3A)
                    let upper = terminated && url[start..<end].contains { (0x41...0x5A).contains($0) }
                    url.withUnsafeBufferPointer { bytes in
                        var steps = 0
                        let labels = DomainTable.hostLabels(bytes, steps: &steps)
                        if LabelStartStates.plainHostEnd(bytes, from: start) != plainEnd || labels?.start != start || labels?.end != end
                            || labels?.isPlain != (plainEnd == end) || labels?.hasUpperCase != upper || labels?.terminated != terminated
                        {
                            wrong.append((length, place, byte))
                        }
                    }
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    @Test func aContextIsWrittenReadAndRefusedWhenCut() throws {
        let spelling = spellings[3]
        let filters = domains.map { filter(spelling.host($0), caseSensitive: spelling.caseSensitive) }
            + Array(repeating: filter(spelling.host("a"), caseSensitive: true), count: AutomataLimits.default.minimumPatternsPerHostContext)
        let (_, contexts, _) = plan(filters)
        let context = try #require(contexts.first)
        var writer = ByteWriter()
        context.write(to: &writer)
        var reader = ByteReader(writer.bytes)
        let read = try HostContextTable.read(from: &reader, patternCount: filters.count)
        #expect(read == context)
        #expect(read.disassemble().contains("case-sensitive"))
        for cut in stride(from: 0, to: writer.bytes.count, by: 7) {
            var short = ByteReader(Array(writer.bytes[..<cut]))
            #expect(throws: BytecodeError.self) { _ = try HostContextTable.read(from: &short, patternCount: filters.count) }
        }
        var corrupt = writer.bytes
        corrupt[1 + context.prefix.utf8.count + 1 + 1] = 0xFE  // a target past the states
        var bad = ByteReader(corrupt)
        #expect(throws: BytecodeError.self) { _ = try HostContextTable.read(from: &bad, patternCount: filters.count) }
    }
}
