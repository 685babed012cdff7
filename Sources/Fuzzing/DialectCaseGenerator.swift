// DialectCaseGenerator.swift — Fuzzing
//
// The dialect level's cases: `||` rules as AdGuard's converter writes them (a domain of a few
// short labels, then `^`, a path, a `^` in the middle or at the end, a `*`, a trailing `|`),
// each re-spelled in one or two random dialects (a documented converter's, or a seeded
// combination of their parts: Corpus/Dialects), several in one list, and requests aimed at
// their domains: schemes with and without `//` (and with `///`), subdomains of one and several
// labels, user info, ports, the domain as a prefix of a longer label, separators of every kind.
// The list level's comparison (engine against the reference evaluator) then holds an engine that
// reads `||` patterns by meaning to every spelling.
// Tested by FuzzingTests (DialectLevelTests).

internal import Corpus

public struct DialectCaseGenerator: Sendable {
    public var maximumBases = 3
    public var requestsPerList = 8

    public init() {}

    /// A list of re-spelled `||` rules and requests aimed at them.
    public func dialectCase(_ random: inout FuzzRandom) -> (list: FuzzRuleList, requests: [FuzzRequest]) {
        var rules: [FuzzRule] = []
        var targets: [(domain: String, path: String)] = []
        for _ in 0..<random.int(1...maximumBases) {
            let base = adguardPattern(&random)
            targets.append((base.domain, base.path))
            for _ in 0..<random.int(1...2) {
                let dialect = random.chance(1, in: 2) ? random.pick(Dialect.documented) : Dialect.combination(seed: random.next())
                guard let text = dialect.respell(base.pattern), let pattern = FuzzPatternReader.read(text, caseSensitive: random.chance(1, in: 8))
                else { continue }
                var rule = FuzzRule(urlFilter: pattern)
                if random.chance(1, in: 5) { rule.action = .ignorePreviousRules }
                rules.append(rule)
            }
        }
        let requests = (0..<requestsPerList).map { _ in
            FuzzRequest(url: url(aimingAt: random.pick(targets), &random), mainDocumentURL: "https://page.example/", frameURL: "https://page.example/")
        }
        return (FuzzRuleList(rules: rules), requests)
    }

    static let labels = ["a", "ab", "ex", "c0", "x-y", "b_c"]

    /// A `||` rule in AdGuard's spelling, its domain as written in URLs, and a path its tail takes.
    func adguardPattern(_ random: inout FuzzRandom) -> (domain: String, pattern: String, path: String) {
        let domain = (0..<random.int(1...3)).map { _ in random.pick(Self.labels) }.joined(separator: ".")
        var pattern = Dialect.adguardPrefix + domain.replacingOccurrences(of: ".", with: #"\."#)
        var path = "/"
        switch random.below(6) {
        case 0: pattern += "[/:]"
        case 1:
            let (text, literal) = random.pick([("ad", "ad"), ("x", "x"), (#"\.js"#, ".js")])
            pattern += "[/:].*" + text
            path = "/q" + literal
        case 2: pattern += "[/:]$"
        case 3:
            let segment = random.pick(["ad", "a", "x-y"])
            let (end, after) = random.pick([("[/:&?]", "?"), ("$", ""), ("", "z"), ("[/:&?]b", "&b"), (#"\/"#, "/")])
            pattern += #"\/"# + segment + end
            path = "/" + segment + after
        case 4:
            let segment = random.pick(["ad", "a"])
            let (end, after) = random.pick([("x", "x"), ("[/:&?]", "/")])
            pattern += #"\/"# + segment + ".*" + end
            path = "/" + segment + "zz" + after
        default:
            pattern += random.pick(["", ".*a"])
            path = "/a"
        }
        return (domain, pattern, path)
    }

    /// A URL near a target: its domain in it, under it or beside it, its path or another.
    func url(aimingAt target: (domain: String, path: String), _ random: inout FuzzRandom) -> String {
        let domain = target.domain
        let scheme = random.pick(["https://", "http://", "https://", "wss://", "ftp://", "http:///", "foo:", "foo://", "blob:https://", "HTTP://"])
        let sub = random.pick(["", "", "", "a.", "a.b.", "u:p@", "u@c.", "x-"])
        let host = random.pick([domain, domain, domain, domain + "x", "x" + domain, domain + ".ab", String(domain.dropFirst())])
        let port = random.pick(["", "", "", ":8080"])
        let path = random.chance(1, in: 2) ? target.path
            : random.pick(["/", "/ad", "/ad/x.js", "/a?b", "?q", "#f", "", "/x-y", "/adx", "/^", "/a%20"])
        return scheme + sub + host + port + path
    }
}
