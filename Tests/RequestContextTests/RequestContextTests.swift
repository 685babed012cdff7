// RequestContextTests.swift — canonical URLs (what CanonicalURL.swift handles), registrable
// domains through libpsl, the third-party test, and outcomes made in reused storage
// (MatchOutcome.swift).

import Testing
import ContentRuleList
@testable import RequestContext

@Suite struct RequestContextTests {
    @Test(arguments: [
        ("HTTP://WWW.Example.COM", "http://www.example.com/"),
        ("http://block_all_request_methods.org", "http://block_all_request_methods.org/"),
        ("https://example.com:443/a?b#c", "https://example.com/a?b#c"),
        ("http://example.com:8080/A", "http://example.com:8080/A"),
        ("http://User:Pw@Example.com/", "http://User:Pw@example.com/"),
        ("Aacko://webkit.org", "aacko://webkit.org"),
        ("ws://Example.com:80/socket", "ws://example.com/socket"),
        ("http://bücher.example/", "http://xn--bcher-kva.example/"),
        ("http://example.com/a b\"c<d>`{}", "http://example.com/a%20b%22c%3Cd%3E%60%7B%7D"),
        ("http://example.com/é?q=é 'x'#f é`", "http://example.com/%C3%A9?q=%C3%A9%20%27x%27#f%20%C3%A9%60"),
        ("http:\\\\example.com\\a\\b", "http://example.com/a/b"),
        ("  http://example.com/\ta\nb  ", "http://example.com/ab"),
        ("about:blank", "about:blank"),
    ])
    func canonicalization(input: String, expected: String) {
        #expect(CanonicalURL(input).string == expected)
    }

    @Test func portsAndValidity() {
        #expect(CanonicalURL("http://example.com:8080/").port == 8080)
        #expect(CanonicalURL("http://example.com:80/").port == nil)
        #expect(!CanonicalURL("no scheme here").isValid)
        #expect(!CanonicalURL("data:text/plain,x").isMatchable)
        #expect(CanonicalURL("http://x/").isMatchable)
    }

    @Test(arguments: [
        ("a.b.example.co.uk", "example.co.uk"),
        ("www.example.com", "example.com"),
        ("example.com", "example.com"),
        ("foo.github.io", "foo.github.io"),   // github.io is a suffix of the private section
        ("localhost", "localhost"),           // no registrable domain: the host itself
        ("127.0.0.1", "127.0.0.1"),
        ("co.uk", "co.uk"),
    ])
    func registrableDomain(host: String, expected: String) {
        #expect(CanonicalURL("http://\(host)/").registrableDomain == expected)
    }

    @Test(arguments: [
        ("1.2.3.4", true), ("192.168.100.200", true), ("1.2.3", false), ("1.2.3.4.5", false),
        ("1..3.4", false), (".1.2.3", false), ("1.2.3.", false), ("1.2.3.4567", false),
        ("a.b.c.d", false), ("1.2.3.x4", false), ("", false),
    ])
    func ipv4Hosts(host: String, isIPv4: Bool) {
        #expect(PublicSuffix.isIPv4(host) == isIPv4)
    }

    @Test func thirdParty() {
        func request(_ url: String, page: String) -> Request {
            Request(url: CanonicalURL(url), mainDocumentURL: CanonicalURL(page), frameURL: CanonicalURL(page), resourceType: .image)
        }
        #expect(!request("http://cdn.example.com/a.png", page: "https://www.example.com/").isThirdParty)
        #expect(!request("http://example.com/a.png", page: "https://news.example.com/").isThirdParty)
        #expect(request("http://notexample.com/a.png", page: "https://example.com/").isThirdParty)
        #expect(request("http://bar.github.io/a.png", page: "https://foo.github.io/").isThirdParty)
        #expect(request("http://tracker.test/", page: "https://example.co.uk/").isThirdParty)
        #expect(!request("http://a.example.co.uk/", page: "https://b.example.co.uk/").isThirdParty)
    }

    @Test func thirdPartyFromTheDomainAnswersTheSame() {
        // The evaluator's form (the page's domain looked up once) against the property, on hosts
        // around each page's domain: equal, subdomains, lookalikes, shorter, IPs, none.
        let pages = ["https://www.example.com/", "https://example.co.uk/", "http://127.0.0.1/", "http://localhost:8080/", "data:text/plain,x"]
        let hosts = [
            "example.com", "www.example.com", "a.b.example.com", "notexample.com", "example.com.evil", "com", "xample.com",
            "example.co.uk", "x.example.co.uk", "co.uk", "127.0.0.1", "1.127.0.0.1", "localhost", "sub.localhost", "e.com",
        ]
        for page in pages {
            for host in hosts + ["data:text/plain,y"] {
                let url = host.hasPrefix("data:") ? host : "http://\(host)/a.png"
                let request = Request(
                    url: CanonicalURL(url), mainDocumentURL: CanonicalURL(page), frameURL: CanonicalURL(page), resourceType: .image)
                #expect(
                    request.isThirdParty(mainDocumentDomain: request.mainDocumentURL.registrableDomain) == request.isThirdParty,
                    "\(url) on \(page)")
            }
        }
    }

    /// `MatchOutcome.Reusing` writes the last outcome's storage again only when nothing else
    /// holds it: an outcome held keeps its fields while the next ones are made, and a dropped
    /// one's storage serves the next.
    @Test func reusedStorageIsNeverWrittenWhileAnOutcomeHoldsIt() {
        func fields(_ n: Int) -> (SharedList<Action>, SharedList<RuleIndex>, Bool) {
            (SharedList([Action.cssDisplayNone(selector: ".s\(n)")]), SharedList([RuleIndex(n)]), n % 2 == 0)
        }
        func outcome(_ n: Int) -> MatchOutcome {
            let (actions, rules, global) = fields(n)
            return MatchOutcome(actions: actions, matchingRules: rules, appliesGlobalStyleSheet: global)
        }
        var reusing = MatchOutcome.Reusing()
        func made(_ n: Int) -> MatchOutcome {
            let (actions, rules, global) = fields(n)
            return reusing.outcome(actions: actions, matchingRules: rules, appliesGlobalStyleSheet: global)
        }
        let held = made(1)
        var second = made(2)
        #expect(held == outcome(1) && second == outcome(2))
        #expect(held.storage !== second.storage, "a held outcome's storage is not written")
        let third = made(3)
        #expect(held == outcome(1) && second == outcome(2) && third == outcome(3))
        // `second` dropped (written over), the last made (`third`) held: storage of its own again.
        second = outcome(9)
        let fourth = made(4)
        #expect(third == outcome(3) && fourth == outcome(4) && fourth.storage !== third.storage)
        // Every copy of the last one dropped: its storage serves the next.
        let storage = ObjectIdentifier(fourth.storage)
        _ = consume fourth
        let fifth = made(5)
        #expect(fifth == outcome(5) && ObjectIdentifier(fifth.storage) == storage)
        #expect(held == outcome(1) && third == outcome(3) && second == outcome(9))
    }

    /// Outcomes whose lists `Reusing` has written in place (`outcome(appliesGlobalStyleSheet:lists:)`,
    /// over one page's shared lists or another's): one held keeps its fields, and a dropped one's
    /// storage serves the next.
    @Test func listsWrittenInPlaceNeverChangeAHeldOutcome() {
        let pages = (0..<2).map { page in
            (SharedList<Action>.Shared(base: [.block, .cssDisplayNone(selector: ".p\(page)")], pool: [.makeHTTPS, .block]),
             SharedList<RuleIndex>.Shared(base: [RuleIndex(10 * page)], pool: (0..<4).map { RuleIndex($0) }))
        }
        func fields(_ n: Int) -> (SharedList<Action>, SharedList<RuleIndex>) {
            let (actions, rules) = pages[n % 2]
            return (SharedList(actions, inserting: ListInsertion(offset: UInt32(n % 3), element: UInt32(n % 2))),
                    SharedList(rules, inserting: (0..<(n % 3)).map { ListInsertion(offset: 1, element: UInt32($0)) }))
        }
        func outcome(_ n: Int) -> MatchOutcome {
            let (actions, rules) = fields(n)
            return MatchOutcome(actions: actions, matchingRules: rules, appliesGlobalStyleSheet: n % 2 == 0)
        }
        var reusing = MatchOutcome.Reusing()
        func made(_ n: Int) -> MatchOutcome {
            let (actions, rules) = pages[n % 2]
            return reusing.outcome(appliesGlobalStyleSheet: n % 2 == 0) {
                $0.reshare(Unmanaged.passUnretained(actions), inserting: ListInsertion(offset: UInt32(n % 3), element: UInt32(n % 2)))
                $1.reshare(Unmanaged.passUnretained(rules), inserting: (0..<(n % 3)).map { ListInsertion(offset: 1, element: UInt32($0)) })
            } made: {
                fields(n)
            }
        }
        var held: [(Int, MatchOutcome)] = []
        for n in 0..<12 {
            let next = made(n)
            #expect(next == outcome(n))
            if n % 3 == 0 { held.append((n, next)) }
            for (m, kept) in held { #expect(kept == outcome(m), "\(m) after \(n)") }
        }
        let storage = ObjectIdentifier(made(20).storage)
        #expect(ObjectIdentifier(made(21).storage) == storage && made(22) == outcome(22))
    }
}
