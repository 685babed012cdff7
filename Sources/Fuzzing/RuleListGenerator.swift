// RuleListGenerator.swift — Fuzzing
//
// Random rule lists mixing generated url-filters (and some of the shapes real lists are made of:
// `^[^:]+://+([^:/]+\.)?host[/:]`, `\.js$`, `/ads?/`, filters that match everything; one list in a
// hundred has a filter that blows the DFA up) with flags, conditions (domains, top-url and
// frame-url patterns) and every action, ignore rules included; and requests aimed at them: URLs
// walked from a rule's url-filter inside a plausible URL, page and frame URLs on the hosts the
// domain conditions name.
// Tested by FuzzingTests.

public struct RuleListGenerator: Sendable {
    public var patterns = PatternGenerator(alphabet: "abcex/.-_?=&01")
    public var subjects = SubjectGenerator(alphabet: "abcex/.-_?=&01")
    public var maximumRules = 8

    public static let hosts = [
        "example.com", "www.example.com", "ads.example.com", "tracker.net", "cdn.tracker.net", "a.b.example.co.uk",
        "notexample.com", "localhost", "192.168.0.1", "xn--bcher-kva.example",
    ]
    static let selectors = [".ad", "#banner", "div.x", "a[href]", "img", ".b > .c"]
    static let schemes = ["https", "https", "http", "http", "ws", "wss", "ftp"]

    public init() {}

    public func list(_ random: inout FuzzRandom) -> FuzzRuleList {
        var list = FuzzRuleList(rules: (0..<(1 + random.below(maximumRules))).map { _ in rule(&random) })
        // One list in a hundred holds a url-filter whose DFA blows up: the compiler's typed limit
        // error, counted apart.
        if random.chance(1, in: 100) { list.rules[random.below(list.rules.count)].urlFilter = patterns.blowUp(&random) }
        return list
    }

    func urlFilter(_ random: inout FuzzRandom) -> FuzzPattern {
        switch random.below(20) {
        case 0..<11: return patterns.valid(&random)
        case 11..<17: return template(&random)
        default:
            return random.pick([
                FuzzPattern(terms: [FuzzTerm(.any, .short(.zeroOrMore))]),
                FuzzPattern(terms: [FuzzTerm(.character(UInt8(ascii: "a"), .plain), .short(.zeroOrOne))]),
                FuzzPattern(startAnchor: true, endAnchor: true, terms: []),
                FuzzPattern(terms: [FuzzTerm(.group(.capturing, FuzzPattern.literal("ads")), .short(.zeroOrOne))]),
            ])
        }
    }

    /// Shapes real lists are made of.
    func template(_ random: inout FuzzRandom) -> FuzzPattern {
        let host = random.pick(Self.hosts.filter { !$0.hasPrefix("xn--") })
        switch random.below(6) {
        case 0:
            // ^[^:]+://+([^:/]+\.)?host[/:]
            var terms = [FuzzTerm(.characterClass(negated: true, [.character(UInt8(ascii: ":"), .plain)]), .short(.oneOrMore))]
            terms += FuzzPattern.literal(":/")
            terms.append(FuzzTerm(.character(UInt8(ascii: "/"), .plain), .short(.oneOrMore)))
            let label = FuzzTerm(.characterClass(negated: true, [.character(UInt8(ascii: ":"), .plain), .character(UInt8(ascii: "/"), .plain)]), .short(.oneOrMore))
            terms.append(FuzzTerm(.group(.capturing, [label] + FuzzPattern.literal(".")), .short(.zeroOrOne)))
            terms += FuzzPattern.literal(host)
            terms.append(FuzzTerm(.characterClass(negated: false, [.character(UInt8(ascii: "/"), .plain), .character(UInt8(ascii: ":"), .plain)])))
            return FuzzPattern(startAnchor: true, terms: terms)
        case 1:
            return FuzzPattern(endAnchor: true, terms: FuzzPattern.literal(random.pick([".js", ".png", "/", ".css?x=1"])))
        case 2:
            var terms = FuzzPattern.literal("/ad")
            terms.append(FuzzTerm(.character(UInt8(ascii: "s"), .plain), .short(.zeroOrOne)))
            return FuzzPattern(terms: terms + FuzzPattern.literal("/"))
        case 3:
            var terms = FuzzPattern.literal("http")
            terms.append(FuzzTerm(.character(UInt8(ascii: "s"), .plain), .short(.zeroOrOne)))
            return FuzzPattern(startAnchor: true, terms: terms + FuzzPattern.literal("://" + host))
        case 4:
            return FuzzPattern(terms: [FuzzTerm(.characterClass(negated: false, [.character(UInt8(ascii: "?"), .plain), .character(UInt8(ascii: "&"), .plain)]))]
                + FuzzPattern.literal("id="), caseSensitive: random.chance(1, in: 2))
        default:
            return FuzzPattern(terms: FuzzPattern.literal(random.pick(["tracker", "ads", "Banner", "example.com/x"])), caseSensitive: random.chance(1, in: 3))
        }
    }

    func rule(_ random: inout FuzzRandom) -> FuzzRule {
        var rule = FuzzRule(urlFilter: urlFilter(&random))
        if random.chance(25, in: 100) {
            let names = ["document", "top-document", "child-document", "image", "style-sheet", "script", "font", "raw", "fetch", "other", "ping", "media", "popup"]
            rule.resourceTypes = (0..<random.int(1...2)).map { _ in random.pick(names) }
        }
        if random.chance(15, in: 100) { rule.loadTypes = [random.pick(["first-party", "third-party"])] }
        if random.chance(10, in: 100) { rule.loadContexts = [random.pick(["top-frame", "child-frame"])] }
        if random.chance(10, in: 100) { rule.requestMethod = random.pick(["get", "post", "head", "put"]) }
        if random.chance(25, in: 100) {
            func domains() -> [String] {
                (0..<random.int(1...2)).map { _ in (random.chance(3, in: 10) ? "*" : "") + random.pick(Self.hosts) }
            }
            func conditionPatterns() -> [FuzzPattern] {
                (0..<random.int(1...2)).map { _ in random.chance(1, in: 2) ? template(&random) : patterns.valid(&random) }
            }
            rule.condition = switch random.below(6) {
            case 0: .ifDomain(domains())
            case 1: .unlessDomain(domains())
            case 2: .ifTopURL(conditionPatterns())
            case 3: .unlessTopURL(conditionPatterns())
            case 4: .ifFrameURL(conditionPatterns())
            default: .unlessFrameURL(conditionPatterns())
            }
        }
        rule.action = random.weighted([
            (40, FuzzAction.block), (8, .blockCookies), (20, .cssDisplayNone(random.pick(Self.selectors))), (8, .ignorePreviousRules),
            (6, .ignoreFollowingRules), (8, .makeHTTPS), (5, .notify(random.pick(["n", "seen"]))),
        ])
        return rule
    }

    /// A URL whose path (or, for a pattern anchored at the start, whole text) is walked from
    /// `pattern` when given.
    func url(aimingAt pattern: FuzzPattern?, _ random: inout FuzzRandom) -> String {
        let scheme = random.pick(Self.schemes)
        let port = random.chance(1, in: 10) ? random.pick([":80", ":443", ":8080"]) : ""
        let base = scheme + "://" + random.pick(Self.hosts) + port + "/"
        guard let pattern, var walk = subjects.walk(pattern, &random) else {
            return base + String(decoding: subjects.randomString(&random), as: UTF8.self)
        }
        if random.chance(1, in: 4) { walk = subjects.mutate(walk, &random) }
        let text = String(decoding: walk, as: UTF8.self)
        return pattern.startAnchor && random.chance(3, in: 4) ? text : base + text
    }

    /// A request aimed at one of the list's rules (its url-filter, and its condition's domains or
    /// patterns) most of the time.
    public func request(for list: FuzzRuleList, _ random: inout FuzzRandom) -> FuzzRequest {
        let target = list.rules.isEmpty || random.chance(1, in: 6) ? nil : random.pick(list.rules)
        let requestURL = url(aimingAt: target?.urlFilter, &random)
        var page = "https://" + random.pick(Self.hosts) + "/" + String(decoding: subjects.randomString(&random), as: UTF8.self)
        var frame = random.chance(3, in: 5) ? page : url(aimingAt: nil, &random)
        switch target?.condition {
        case .ifDomain(let domains), .unlessDomain(let domains):
            if random.chance(3, in: 4) {
                let domain = random.pick(domains)
                let host = domain.hasPrefix("*") ? (random.chance(1, in: 2) ? "sub." : "") + domain.dropFirst() : domain
                page = random.pick(["https", "http"]) + "://" + host + random.pick(["/", ":8080/", "/x?y"])
                if random.chance(3, in: 5) { frame = page }
            }
        case .ifTopURL(let patterns), .unlessTopURL(let patterns):
            if random.chance(3, in: 4) { page = url(aimingAt: random.pick(patterns), &random) }
        case .ifFrameURL(let patterns), .unlessFrameURL(let patterns):
            if random.chance(3, in: 4) { frame = url(aimingAt: random.pick(patterns), &random) }
        case nil:
            break
        }
        return FuzzRequest(
            url: requestURL, mainDocumentURL: page, frameURL: frame, resourceType: random.pick(ResourceNames.request),
            isMainFrameContext: random.chance(1, in: 2), method: random.chance(1, in: 2) ? nil : random.pick(["get", "post", "head", "put"]))
    }
}

enum ResourceNames {
    static let request = ["top-document", "child-document", "image", "style-sheet", "script", "font", "svg-document", "media", "popup", "ping", "fetch", "websocket", "other", "csp-report"]
}

extension FuzzPattern {
    /// Plain characters (escaped where they must be).
    static func literal(_ text: String) -> [FuzzTerm] {
        text.utf8.map { FuzzTerm(.character($0, .plain)) }
    }
}
