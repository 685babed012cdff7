// PageCacheTests.swift — the evaluator's pages (Evaluator.swift): answers from a page kept between
// requests, and from a page's list made by editing its flags' base list (the rules its condition
// patterns name leaving or joining), are the answers of an evaluator that keeps nothing (it checks
// every rule) and the PCRE2 oracle's, whatever the request order, the flags, the conditions and the
// ignore rules (the page's own, and the request's); outcomes held while later ones are made in
// reused storage keep their answers; and SharedList is a list like an array.

import Testing
import Automata
import ContentBlocker
import ContentRuleList
import RequestContext
import Search
import PCRE2Oracle

@Suite struct PageCacheTests {
    /// Rules matching every URL with each kind of condition and flag a page's list depends on,
    /// url-filter rules with the same, and ignore rules of both kinds (some only on one page).
    static let json = """
        [
          {"trigger":{"url-filter":".*","unless-domain":["a.test"]},"action":{"type":"css-display-none","selector":".u1"}},
          {"trigger":{"url-filter":".*","if-domain":["*b.test"]},"action":{"type":"css-display-none","selector":".i1"}},
          {"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":".global"}},
          {"trigger":{"url-filter":".*","resource-type":["script"]},"action":{"type":"block-cookies"}},
          {"trigger":{"url-filter":".*","load-type":["third-party"],"unless-domain":["c.test"]},"action":{"type":"css-display-none","selector":".tp"}},
          {"trigger":{"url-filter":".*","if-top-url":["^https?://b\\\\.test/x"]},"action":{"type":"block"}},
          {"trigger":{"url-filter":".*","unless-frame-url":["frame"]},"action":{"type":"css-display-none","selector":".nf"}},
          {"trigger":{"url-filter":".*","resource-type":["image"]},"action":{"type":"make-https"}},
          {"trigger":{"url-filter":"ads"},"action":{"type":"block"}},
          {"trigger":{"url-filter":"ads","if-domain":["a.test"]},"action":{"type":"css-display-none","selector":".ads-a"}},
          {"trigger":{"url-filter":"track","load-type":["first-party"]},"action":{"type":"block-cookies"}},
          {"trigger":{"url-filter":"^http:"},"action":{"type":"make-https"}},
          {"trigger":{"url-filter":".*","if-domain":["d.test"]},"action":{"type":"ignore-previous-rules"}},
          {"trigger":{"url-filter":"allow"},"action":{"type":"ignore-previous-rules"}},
          {"trigger":{"url-filter":"late","unless-domain":["e.test"]},"action":{"type":"css-display-none","selector":".late"}},
          {"trigger":{"url-filter":"stop"},"action":{"type":"ignore-following-rules"}},
          {"trigger":{"url-filter":".*","if-domain":["e.test"]},"action":{"type":"css-display-none","selector":".after"}}
        ]
        """

    static func requests() -> [Request] {
        let pages = ["https://a.test/", "https://www.b.test/x/y", "http://c.test/", "https://d.test/p", "http://e.test/frame", "http://b.test/z"]
        let urls = [
            "https://a.test/img.png", "http://cdn.other/ads.js", "https://x.a.test/track", "http://other/track?stop",
            "https://b.test/allow/ads", "http://late.example:8080/late", "ws://sock.test/ads", "https://d.test/late/allow",
        ]
        let types: [ResourceTypes] = [.image, .script, .fetch]
        var requests: [Request] = []
        // Pages revisited in an order that evicts and refills a two-page evaluator.
        for (step, page) in (pages + pages.reversed() + pages).enumerated() {
            for (index, url) in urls.enumerated() where (index + step) % 3 != 0 {
                let frame = step % 4 == 0 ? "https://frame.test/" : page
                requests.append(Request(
                    url: CanonicalURL(url), mainDocumentURL: CanonicalURL(page), frameURL: CanonicalURL(frame),
                    resourceType: types[(index + step) % types.count], isMainFrameContext: step % 2 == 0))
            }
        }
        return requests
    }

    @Test func keptPagesAnswerLikeAnEvaluatorThatKeepsNothing() throws {
        let (list, _) = try RuleListCompiler.compile(json: Array(Self.json.utf8))
        let compiled = try CompiledRuleList(validating: list.serialized())
        let keeping = Evaluator(compiled, pageCapacity: 2)
        let keepingMore = Evaluator(compiled)
        let fresh = Evaluator(compiled, pageCapacity: 0)
        // The independent answer: the cuts, the shared lists and the insertions are the engine's alone.
        let oracle = ReferenceEvaluator(try ReferenceRuleList(try RuleListParser.parse(Self.json).get()))
        let requests = Self.requests()
        var withActions = 0
        var cut = 0
        for request in requests {
            let expected = try oracle.outcome(for: request)
            #expect(fresh.outcome(for: request) == expected, "\(request.url.string) on \(request.mainDocumentURL.string)")
            #expect(keeping.outcome(for: request) == expected, "\(request.url.string) on \(request.mainDocumentURL.string)")
            #expect(keepingMore.outcome(for: request) == expected, "\(request.url.string) on \(request.mainDocumentURL.string)")
            if !expected.actions.isEmpty { withActions += 1 }
            if !expected.appliesGlobalStyleSheet { cut += 1 }
        }
        // The requests reach every path: actions, and ignore-previous-rules cutting the list.
        #expect(withActions > requests.count / 2)
        #expect(cut > 0 && cut < requests.count)
        // Kept pages save the condition programs' runs.
        #expect(keepingMore.steps < fresh.steps)
        // A page is made for each page and frame first seen, again after its eviction, and for
        // every request by an evaluator that keeps none.
        let pages = Set(requests.map { [$0.mainDocumentURL.string, $0.frameURL.string] }).count
        #expect(pages <= 16 && keepingMore.pagesMade == pages)
        #expect(keeping.pagesMade > pages)
        #expect(fresh.pagesMade == requests.count)
    }

    /// Lists asked together share one page table, the request's third party, its host labels and
    /// one pass of their whole programs (two lists), or a lookup of their domain tables (more):
    /// each list's outcome is still the oracle's for that list alone, with two pages kept (each
    /// evicted and refilled), the default sixteen, and none; a list's page knowledge follows the
    /// shared table's places (each list counts its pages made as an evaluator alone would).
    @Test func listsAskedTogetherAnswerEachAsAlone() throws {
        let other = """
            [
              {"trigger":{"url-filter":"^[^:]+://+([^:/]+\\\\.)?other[/:]"},"action":{"type":"block"}},
              {"trigger":{"url-filter":".*","if-top-url":["^https?://a\\\\.test/"]},"action":{"type":"css-display-none","selector":".o"}},
              {"trigger":{"url-filter":"track","unless-domain":["b.test"],"load-type":["third-party"]},"action":{"type":"block"}},
              {"trigger":{"url-filter":".*","if-frame-url":["frame"]},"action":{"type":"block-cookies"}}
            ]
            """
        // Domains (one with a path, one gating a group) and no whole program of its own.
        let domains = """
            [
              {"trigger":{"url-filter":"^[^:]+://+([^:/]+\\\\.)?a\\\\.test[/:]"},"action":{"type":"block"}},
              {"trigger":{"url-filter":"^[^:]+://+([^:/]+\\\\.)?other/track"},"action":{"type":"block-cookies"}},
              {"trigger":{"url-filter":"^[^:]+://+([^:/]+\\\\.)?x\\\\.a\\\\.test/.*tr[a-c]ck"},"action":{"type":"css-display-none","selector":".x"}},
              {"trigger":{"url-filter":"^[^:]+://+([^:/]+\\\\.)?d\\\\.test/late","if-top-url":["d\\\\.test"]},"action":{"type":"block"}}
            ]
            """
        // Other converters' `||` rules: host contexts of one L (made from 32 patterns on), one
        // with a path after D; one with a loop after D (open domains: looked up alone).
        func context(_ hosts: [String], more: String = "") -> String {
            let padding = (0..<AutomataLimits.default.minimumPatternsPerHostContext).map { "pad\($0)\\\\.test" }
            let rules = (hosts + padding).map { host in
                #"{"trigger":{"url-filter":"^https?:/+([^/:]+\\.)?"# + host
                    + #"[:/]","url-filter-is-case-sensitive":true},"action":{"type":"block"}}"#
            }
            return "[" + (rules + (more.isEmpty ? [] : [more])).joined(separator: ",\n") + "]"
        }
        // Whole programs all anchored at the URL's start, and a domain table: asked with another
        // list, their whole programs are not run in one pass with its (`WholeTogether`), and the
        // two lists' domain tables are looked up together.
        let startsOnly = """
            [
              {"trigger":{"url-filter":"^xyzzy:"},"action":{"type":"block"}},
              {"trigger":{"url-filter":"^ws:"},"action":{"type":"block"}},
              {"trigger":{"url-filter":"^[^:]+://+([^:/]+\\\\.)?x\\\\.a\\\\.test[/:]"},"action":{"type":"block-cookies"}}
            ]
            """
        let anchored = try RuleListCompiler.compile(json: Array(startsOnly.utf8)).0.file.urlPrograms
        #expect(!anchored.wholeRuns.isEmpty && !anchored.domains.isEmpty, "whole programs of its own, and a domain table")
        let contexts = [
            context(["other", "a\\\\.test[:/]ads"]), context(["a\\\\.test", "sock\\\\.test"]),
            context(["b\\\\.test"], more: #"{"trigger":{"url-filter":"^https?:/+([^/:]+\\.)?b\\.test[:/].*allow","url-filter-is-case-sensitive":true},"action":{"type":"block-cookies"}}"#),
        ]
        for texts in [
            [Self.json, other], [Self.json, other, domains], [domains, other, Self.json, domains],
            [contexts[0], domains, contexts[1], contexts[2], contexts[0]],
        ] {
            try askTogether(texts, contextsTogether: texts.contains(contexts[0]))
        }
        // Two domain tables: the contexts (those of one L, and the one with open domains apart)
        // looked up with them, the host's candidates hashed once.
        try askTogether([contexts[0], domains, contexts[1], startsOnly, contexts[2]], contextsTogether: false, contextsWithDomains: true)
        try askTogether([other, startsOnly], contextsTogether: false, wholeTogether: false)
    }

    /// `listsAskedTogetherAnswerEachAsAlone` for the lists `texts`.
    /// (`contextsTogether`: some lists' host contexts are looked up together; `contextsWithDomains`:
    /// with the lists' domain tables; `wholeTogether`: two lists' whole programs run in one pass.)
    private func askTogether(_ texts: [String], contextsTogether: Bool, contextsWithDomains: Bool = false, wholeTogether: Bool = true) throws {
        let compiled = try texts.map { try CompiledRuleList(validating: try RuleListCompiler.compile(json: Array($0.utf8)).0.serialized()) }
        let oracles = try texts.map { ReferenceEvaluator(try ReferenceRuleList(try RuleListParser.parse($0).get())) }
        let requests = Self.requests()
        for capacity in [2, 16, 0] {
            let together = ContentBlockers(compiled, pageCapacity: capacity)
            #expect(together.runsWholeProgramsTogether == (texts.count == 2 && wholeTogether), "the two lists' whole programs run in one pass")
            if !together.runsWholeProgramsTogether {
                #expect(together.looksUpDomainsTogether == (texts.count { $0.contains("[^:]+") } >= 2), "domain tables looked up together")
            }
            #expect(together.looksUpHostContextsTogether == contextsTogether, "the lists' host contexts looked up together")
            #expect(together.looksUpHostContextsWithDomains == contextsWithDomains, "the lists' host contexts looked up with the domain tables")
            let alone = compiled.map { Evaluator($0, pageCapacity: capacity) }
            var answered = [Int](repeating: 0, count: texts.count)
            for request in requests {
                let outcomes = together.outcomes(for: request)
                #expect(outcomes.count == texts.count)
                for list in outcomes.indices {
                    let expected = try oracles[list].outcome(for: request)
                    #expect(outcomes[list] == expected, "list \(list), \(capacity) pages: \(request.url.string) on \(request.mainDocumentURL.string)")
                    #expect(alone[list].outcome(for: request) == expected)
                    if !expected.actions.isEmpty { answered[list] += 1 }
                }
            }
            #expect(answered.allSatisfy { $0 > 0 }, "every list acts on some requests")
            for list in alone.indices {
                #expect(together.evaluators[list].pagesMade == alone[list].pagesMade)
                #expect(together.evaluators[list].steps == alone[list].steps)
            }
        }
    }

    /// Outcomes are made in the storage of the last one once the caller dropped it
    /// (`MatchOutcome.Reusing`): outcomes held while later requests are answered keep their
    /// answers, and those read and dropped at once answer theirs, for a list alone and for lists
    /// asked together.
    @Test func heldOutcomesKeepTheirAnswers() throws {
        let (list, _) = try RuleListCompiler.compile(json: Array(Self.json.utf8))
        let compiled = try CompiledRuleList(validating: list.serialized())
        let oracle = ReferenceEvaluator(try ReferenceRuleList(try RuleListParser.parse(Self.json).get()))
        let requests = Self.requests()
        let expected = try requests.map { try oracle.outcome(for: $0) }
        let alone = Evaluator(compiled)
        let together = ContentBlockers([compiled, compiled])
        for round in 0..<2 {
            var held: [(request: Int, alone: MatchOutcome, together: [MatchOutcome])] = []
            for (index, request) in requests.enumerated() {
                // (Every third request's outcomes held, from another one in each round.)
                if (index + round) % 3 == 0 {
                    held.append((index, alone.outcome(for: request), together.outcomes(for: request)))
                } else {
                    #expect(alone.outcome(for: request) == expected[index], "\(request.url.string) on \(request.mainDocumentURL.string)")
                    together.outcomes(for: request) { _, outcome in #expect(outcome == expected[index]) }
                }
            }
            for (index, aloneOutcome, togetherOutcomes) in held {
                #expect(aloneOutcome == expected[index], "held: \(requests[index].url.string) on \(requests[index].mainDocumentURL.string)")
                #expect(togetherOutcomes == [expected[index], expected[index]])
            }
        }
    }

    /// Lists asked together lend each list's page outcome to the caller, unretained
    /// (`Answer.page`): a caller that keeps every outcome, while two pages kept are evicted and
    /// their places refilled by others (`Kept.refill`, the page's outcome made anew), still holds
    /// each request's answer, never an outcome a page had before; and with no page kept.
    @Test func lentPageOutcomesAreThePagesOwn() throws {
        let (list, _) = try RuleListCompiler.compile(json: Array(Self.json.utf8))
        let compiled = try CompiledRuleList(validating: list.serialized())
        let oracle = ReferenceEvaluator(try ReferenceRuleList(try RuleListParser.parse(Self.json).get()))
        let requests = Self.requests()
        // (No page kept: each answer's page and lists go with it, and its outcome is its own.)
        for capacity in [2, 0] {
            let together = ContentBlockers([compiled, compiled, compiled], pageCapacity: capacity)
            var kept: [[MatchOutcome]] = []
            for request in requests {
                var outcomes: [MatchOutcome] = []
                together.outcomes(for: request) { _, outcome in outcomes.append(outcome) }
                kept.append(outcomes)
            }
            for (request, outcomes) in zip(requests, kept) {
                let expected = try oracle.outcome(for: request)
                #expect(outcomes == [expected, expected, expected], "\(capacity) pages: \(request.url.string) on \(request.mainDocumentURL.string)")
            }
        }
    }

    /// The main document's registrable domain is kept per host, and the hosts kept are dropped
    /// together when there are 1,024 of them: third party answers like the oracle's over more
    /// sites than that, each visited twice (the second time after the drop).
    @Test func thirdPartyHoldsOverMoreSitesThanTheDomainsKept() throws {
        let json = #"[{"trigger":{"url-filter":"ads","load-type":["third-party"]},"action":{"type":"block"}}]"#
        let (list, _) = try RuleListCompiler.compile(json: Array(json.utf8))
        let evaluator = Evaluator(try CompiledRuleList(validating: list.serialized()))
        let oracle = ReferenceEvaluator(try ReferenceRuleList(try RuleListParser.parse(json).get()))
        let sites = 1_100
        var blocked = 0
        for round in 0..<2 {
            for site in 0..<sites {
                let page = CanonicalURL("https://www.s\(site).test/")
                for url in ["https://cdn.s\(site).test/ads", "https://s\((site + 1) % sites).test/ads"] {
                    let request = Request(url: CanonicalURL(url), mainDocumentURL: page, frameURL: page, resourceType: .image)
                    let expected = try oracle.outcome(for: request)
                    #expect(evaluator.outcome(for: request) == expected, "\(url) on \(page.string), round \(round)")
                    if !expected.actions.isEmpty { blocked += 1 }
                }
            }
        }
        #expect(blocked == 2 * sites, "the other site's request is blocked, the page's own CDN is not")
    }

    /// Pages are told apart by every byte of both URLs: pages whose URLs differ in one byte,
    /// whose frame has the main document's length, whose URLs are another's swapped, or whose
    /// URLs joined are another's, each get their own page and their own answers (each page's
    /// conditions give it another list), as do frames equal to the main document in bytes but not
    /// in storage; the evaluator makes one page for each.
    @Test func pagesThatDifferAreNeverConfused() throws {
        let json = """
            [
              {"trigger":{"url-filter":".*","if-domain":["a.test"]},"action":{"type":"css-display-none","selector":".a"}},
              {"trigger":{"url-filter":".*","if-domain":["b.test"]},"action":{"type":"css-display-none","selector":".b"}},
              {"trigger":{"url-filter":".*","if-frame-url":["^https://b\\\\.test/"]},"action":{"type":"css-display-none","selector":".fb"}},
              {"trigger":{"url-filter":".*","unless-frame-url":["xz"]},"action":{"type":"css-display-none","selector":".nz"}},
              {"trigger":{"url-filter":".*","if-top-url":["/xy$"]},"action":{"type":"block-cookies"}},
              {"trigger":{"url-filter":"ads","load-type":["third-party"]},"action":{"type":"block"}}
            ]
            """
        let (list, _) = try RuleListCompiler.compile(json: Array(json.utf8))
        let compiled = try CompiledRuleList(validating: list.serialized())
        let oracle = ReferenceEvaluator(try ReferenceRuleList(try RuleListParser.parse(json).get()))
        let (a, b) = ("https://a.test/xy", "https://b.test/xy")
        // (main document, frame): nil, the main document's own URL.
        let pages: [(String, String?)] = [
            (a, nil), (b, nil), (a, b), (b, a), (a, a), ("https://a.test/xz", nil), ("https://a.test/x", "zhttps://b.test/xy"),
            ("https://a.test/xz", "https://b.test/xy"), ("s://a.test/", nil), ("s://b.test/", nil),
        ]
        var requests: [Request] = []
        for round in 0..<3 {
            for (index, (main, frame)) in (round == 1 ? pages.reversed() : pages).enumerated() {
                let page = CanonicalURL(main)
                for url in ["https://a.test/ads", "https://cdn.b.test/ads"] where (index + round) % 3 != 0 || url.contains("cdn") {
                    requests.append(Request(
                        url: CanonicalURL(url), mainDocumentURL: page, frameURL: frame.map(CanonicalURL.init) ?? page,
                        resourceType: .image))
                }
            }
        }
        let evaluator = Evaluator(compiled)
        var cdnAnswer: [[String]: MatchOutcome] = [:]
        for request in requests {
            let expected = try oracle.outcome(for: request)
            #expect(
                evaluator.outcome(for: request) == expected,
                "\(request.url.string) on \(request.mainDocumentURL.string) in \(request.frameURL.string)")
            if request.url.host == "cdn.b.test" { cdnAnswer[[request.mainDocumentURL.string, request.frameURL.string]] = expected }
        }
        // The pages of each confusable pair have lists of their own: confusing them would change
        // some answer.
        for (one, other) in [(0, 1), (2, 4), (2, 3), (6, 7), (8, 9)] {
            let keys = [one, other].map { [CanonicalURL(pages[$0].0).string, CanonicalURL(pages[$0].1 ?? pages[$0].0).string] }
            #expect(cdnAnswer[keys[0]] != nil && cdnAnswer[keys[0]] != cdnAnswer[keys[1]], "\(keys)")
        }
        let distinct = Set(pages.map { [$0.0, $0.1 ?? $0.0] }).count
        #expect(evaluator.pagesMade == distinct)
    }

    @Test func aSharedListIsTheListItHolds() {
        let base = [10, 20, 30]
        let list = SharedList(base: base, inserting: [(0, 5), (2, 25), (2, 26), (3, 40)])
        #expect(Array(list) == [5, 10, 20, 25, 26, 30, 40])
        #expect(list.indices.map { list[$0] } == [5, 10, 20, 25, 26, 30, 40])
        #expect(list == SharedList([5, 10, 20, 25, 26, 30, 40]))
        #expect(list.hashValue == SharedList([5, 10, 20, 25, 26, 30, 40]).hashValue)
        #expect(list != SharedList(base))
        #expect(list.description == "[5, 10, 20, 25, 26, 30, 40]")
        var changed = list
        changed[1] = 11
        changed.removeLast()
        #expect(changed == [5, 11, 20, 25, 26, 30])
        #expect(list.count == 7)
    }

    /// Inserted elements read from a shared pool by number (as the evaluator inserts actions by
    /// location and rules by slot), in any order of the pool, some twice: the list holds the pool's
    /// elements, and flattening or changing it keeps them.
    @Test func aSharedListReadsItsInsertionsFromItsPool() {
        let pool = ["a", "b", "c", "d"]
        let shared = SharedList.Shared(base: ["x", "y", "z"], removing: [1], pool: pool)
        let insert = { (offset: UInt32, element: UInt32) in ListInsertion(offset: offset, element: element) }
        let list = SharedList(shared, inserting: [insert(0, 3), insert(2, 0), insert(3, 3)])
        #expect(Array(list) == ["d", "x", "a", "z", "d"])
        #expect(list.indices.map { list[$0] } == ["d", "x", "a", "z", "d"])
        #expect(list == SharedList(["d", "x", "a", "z", "d"]))
        #expect(list.flattened == ["d", "x", "a", "z", "d"])
        var changed = list
        changed[0] = "e"
        #expect(changed == ["e", "x", "a", "z", "d"] && list.first == "d")
    }

    /// A list of one insertion holds it without an array, and is the list an array of it makes,
    /// at every offset of the base.
    @Test func aSharedListOfOneInsertionIsTheListItHolds() {
        let shared = SharedList<String>.Shared(base: ["x", "y", "z"], removing: [1], pool: ["a", "b"])
        for offset in 0...3 {
            let lone = SharedList(shared, inserting: ListInsertion(offset: UInt32(offset), element: 1))
            let spilled = SharedList(shared, inserting: [ListInsertion(offset: UInt32(offset), element: 1)])
            var expected = ["x", "y", "z"]
            expected.insert("b", at: offset)
            expected.remove(at: offset <= 1 ? 2 : 1)
            #expect(Array(lone) == expected && lone.indices.map { lone[$0] } == expected)
            #expect(lone == spilled && lone.hashValue == spilled.hashValue && lone.count == 3)
            #expect(lone.flattened == expected)
        }
        var changed = SharedList(shared, inserting: ListInsertion(offset: 0, element: 0))
        changed.append("w")
        #expect(changed == ["a", "x", "z", "w"])
        #expect(SharedList(shared, inserting: []) == ["x", "z"])
    }

    /// A list made again in place (`reshare`, as an evaluator writes its outcomes' lists in reused
    /// storage) over the same shared lists or others, with one insertion, several or none, is the
    /// list `init(_:inserting:)` makes of the same, and a copy taken before keeps its elements;
    /// so is one whose several insertions are copied into its own array (`reshare(_:copying:)`).
    @Test func aListMadeAgainInPlaceIsTheListMadeAnew() {
        let first = SharedList<String>.Shared(base: ["x", "y", "z"], removing: [1], pool: ["a", "b"])
        let second = SharedList<String>.Shared(base: ["p", "q"], pool: ["c", "d", "e"])
        let insert = { (offset: UInt32, element: UInt32) in ListInsertion(offset: offset, element: element) }
        let steps: [(SharedList<String>.Shared, [ListInsertion])] = [
            (first, [insert(0, 1)]), (first, [insert(3, 0)]), (first, [insert(0, 0), insert(2, 1)]), (first, []),
            (second, [insert(1, 2)]), (second, [insert(0, 0), insert(0, 1), insert(2, 2)]), (first, [insert(1, 0)]), (second, []),
        ]
        var list = SharedList<String>()
        var copied = SharedList<String>()
        var copies: [(SharedList<String>, [String])] = []
        for (step, (shared, insertions)) in steps.enumerated() {
            let before = list
            copies.append((before, Array(before)))
            // (Every other step, the copied list's last state is held too: its array then shared.)
            if step % 2 == 0 { copies.append((copied, Array(copied))) }
            if insertions.count == 1 {
                list.reshare(Unmanaged.passUnretained(shared), inserting: insertions[0])
                #expect(list == SharedList(shared, inserting: insertions[0]))
                copied.reshare(Unmanaged.passUnretained(shared), inserting: insertions[0])
            } else {
                list.reshare(Unmanaged.passUnretained(shared), inserting: insertions)
                insertions.withUnsafeBufferPointer { copied.reshare(Unmanaged.passUnretained(shared), copying: $0) }
            }
            let anew = SharedList(shared, inserting: insertions)
            for made in [list, copied] {
                #expect(Array(made) == Array(anew) && made.count == anew.count, "\(insertions)")
                #expect(made.indices.map { made[$0] } == Array(anew) && made.hashValue == anew.hashValue)
            }
        }
        for (copy, elements) in copies { #expect(Array(copy) == elements) }
    }

    /// Every way of removing from and inserting into small bases: the list, read by iteration and
    /// by subscript, is the one spelled out element by element.
    @Test func aSharedListWithRemovalsIsTheListItHolds() {
        var lists = 0
        for size in 0...4 {
            let base = (0..<size).map { 10 * ($0 + 1) }
            for removedBits in 0..<(1 << size) {
                let removals = (0..<size).filter { removedBits >> $0 & 1 != 0 }
                // Insertions: up to two at each offset 0...size, numbered by their place.
                let patterns = (0...size).reduce(1) { product, _ in product * 3 }
                for pattern in 0..<patterns {
                    var insertions: [(offset: Int, element: Int)] = []
                    var digits = pattern
                    for offset in 0...size {
                        for k in 0..<(digits % 3) { insertions.append((offset, 10 * offset + 1 + k)) }
                        digits /= 3
                    }
                    var expected: [Int] = []
                    for offset in 0...size {
                        expected += insertions.filter { $0.offset == offset }.map(\.element)
                        if offset < size && !removals.contains(offset) { expected.append(base[offset]) }
                    }
                    let list = SharedList(base: base, removing: removals, inserting: insertions)
                    #expect(Array(list) == expected, "base \(base), removing \(removals), inserting \(insertions)")
                    #expect(list.count == expected.count)
                    #expect(list.indices.map { list[$0] } == expected, "base \(base), removing \(removals), inserting \(insertions)")
                    #expect(list == SharedList(expected) && list.hashValue == SharedList(expected).hashValue)
                    lists += 1
                }
            }
        }
        #expect(lists == 1 * 3 + 2 * 9 + 4 * 27 + 8 * 81 + 16 * 243)
        var changed = SharedList(base: [1, 2, 3], removing: [1], inserting: [(3, 4)])
        changed[0] = 0
        changed.append(5)
        #expect(changed == [0, 3, 4, 5])
    }
}
