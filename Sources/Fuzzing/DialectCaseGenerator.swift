// DialectCaseGenerator.swift — Fuzzing
//
// The dialect level's cases: `||` rules as AdGuard's converter writes them (a domain of a few
// short labels, then `^`, a path, a `^` in the middle or at the end, a `*`, a trailing `|`),
// each re-spelled in one or two random dialects (a documented converter's, or a seeded
// combination of their parts: Harness/Dialects), several in one list, and requests aimed at
// their domains: schemes with and without `//` (and with `///`), subdomains of one and several
// labels, user info, ports, the domain as a prefix of a longer label, separators of every kind.
// The list level's comparison (engine against the reference evaluator) then holds an engine that
// reads `||` patterns by meaning to every spelling.
// Tested by FuzzingTests (DialectLevelTests).

internal import Harness

public struct DialectCaseGenerator: Sendable {
    public var maximumBases = 3
    public var requestsPerList = 8

    public init() {}

    /// A list of re-spelled `||` rules and requests aimed at them.
    public func dialectCase(_ random: inout FuzzRandom) -> (list: FuzzRuleList, requests: [FuzzRequest]) {
        var rules: [FuzzRule] = []
        var domains: [String] = []
        for _ in 0..<random.int(1...maximumBases) {
            let (domain, base) = adguardPattern(&random)
            domains.append(domain)
            for _ in 0..<random.int(1...2) {
                let dialect = random.chance(1, in: 2) ? random.pick(Dialect.documented) : Dialect.combination(seed: random.next())
                guard let text = dialect.respell(base), let pattern = FuzzPatternReader.read(text, caseSensitive: random.chance(1, in: 8))
                else { continue }
                var rule = FuzzRule(urlFilter: pattern)
                if random.chance(1, in: 5) { rule.action = .ignorePreviousRules }
                rules.append(rule)
            }
        }
        let requests = (0..<requestsPerList).map { _ in
            FuzzRequest(url: url(aimingAt: random.pick(domains), &random), mainDocumentURL: "https://page.example/", frameURL: "https://page.example/")
        }
        return (FuzzRuleList(rules: rules), requests)
    }

    static let labels = ["a", "ab", "ex", "c0", "x-y", "b_c"]

    /// A `||` rule in AdGuard's spelling, and its domain as written in URLs.
    func adguardPattern(_ random: inout FuzzRandom) -> (domain: String, pattern: String) {
        let domain = (0..<random.int(1...3)).map { _ in random.pick(Self.labels) }.joined(separator: ".")
        var pattern = Dialect.adguardPrefix + domain.replacingOccurrences(of: ".", with: #"\."#)
        switch random.below(6) {
        case 0: pattern += "[/:]"
        case 1: pattern += "[/:].*" + random.pick(["ad", "x", #"\.js"#])
        case 2: pattern += "[/:]$"
        case 3: pattern += #"\/"# + random.pick(["ad", "a", "x-y"]) + random.pick(["[/:&?]", "$", "", "[/:&?]b", #"\/"#])
        case 4: pattern += #"\/"# + random.pick(["ad", "a"]) + ".*" + random.pick(["x", "[/:&?]"])
        default: pattern += random.pick(["", ".*a"])
        }
        return (domain, pattern)
    }

    /// A URL near `domain`: in it, under it, beside it.
    func url(aimingAt domain: String, _ random: inout FuzzRandom) -> String {
        let scheme = random.pick(["https://", "http://", "wss://", "ftp://", "http:///", "foo:", "foo://", "blob:https://", "HTTP://"])
        let sub = random.pick(["", "", "a.", "a.b.", "u:p@", "u@c.", "x-"])
        let host = random.pick([domain, domain, domain + "x", "x" + domain, domain + ".ab", String(domain.dropFirst())])
        let port = random.pick(["", "", ":8080"])
        let path = random.pick(["/", "/ad", "/ad/x.js", "/a?b", "?q", "#f", "", "/x-y", "/adx", "/^", "/a%20"])
        return scheme + sub + host + port + path
    }
}
