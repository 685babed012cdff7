// Shrinker.swift — Fuzzing
//
// Greedy reduction: try the candidates of the current case, largest reductions first, and move to
// the first one that still shows the same disagreement; stop when none does or the budget of
// tries is spent. Candidates per kind of case:
//  - pattern trees: drop a term, inline a group, drop a quantifier, laziness or an anchor, make
//    the pattern case-insensitive, spell characters plainly, replace `.`, a class or a character
//    by a simpler atom, drop a class item;
//  - subjects and URLs: delete halves, quarters, ... down to single characters, lower-case them;
//  - rule lists: drop rules (halves first), conditions, flags, turn actions into `block`, shrink
//    each pattern; requests: shrink each URL, drop the method.
// Deterministic: the same case shrinks to the same result.
// Tested by FuzzingTests (SeededBugTests: seeded bugs found and shrunk).

public struct Shrinker: Sendable {
    /// The most candidates tried for one case.
    public var budget: Int

    public init(budget: Int = 4_000) { self.budget = budget }

    public func shrink<T>(_ value: T, candidates: (T) -> [T], stillFails: (T) -> Bool) -> T {
        var current = value
        var tries = 0
        search: while tries < budget {
            for candidate in candidates(current) {
                tries += 1
                if stillFails(candidate) {
                    current = candidate
                    continue search
                }
                if tries >= budget { break search }
            }
            break
        }
        return current
    }

    // MARK: Candidates

    /// Smaller patterns, largest reductions first.
    public static func candidates(_ pattern: FuzzPattern) -> [FuzzPattern] {
        var out: [FuzzPattern] = []
        for terms in candidates(pattern.terms) {
            var smaller = pattern
            smaller.terms = terms
            out.append(smaller)
        }
        if pattern.doubledStartAnchor { out.append(with(pattern) { $0.doubledStartAnchor = false }) }
        if pattern.startAnchor { out.append(with(pattern) { $0.startAnchor = false; $0.doubledStartAnchor = false }) }
        if pattern.endAnchor { out.append(with(pattern) { $0.endAnchor = false }) }
        if pattern.caseSensitive { out.append(with(pattern) { $0.caseSensitive = false }) }
        return out
    }

    static func with<T>(_ value: T, _ change: (inout T) -> Void) -> T {
        var copy = value
        change(&copy)
        return copy
    }

    static func candidates(_ terms: [FuzzTerm]) -> [[FuzzTerm]] {
        var out: [[FuzzTerm]] = []
        // Drop halves, then single terms.
        if terms.count > 3 {
            out.append(Array(terms[(terms.count / 2)...]))
            out.append(Array(terms[..<(terms.count / 2)]))
        }
        for index in terms.indices { out.append(with(terms) { $0.remove(at: index) }) }
        // Inline groups.
        for index in terms.indices {
            if case .group(_, let inner) = terms[index].atom, terms[index].quantifier == .one {
                out.append(Array(terms[..<index]) + inner + Array(terms[(index + 1)...]))
            }
        }
        // Simplify each term.
        for index in terms.indices {
            for simpler in candidates(terms[index]) { out.append(with(terms) { $0[index] = simpler }) }
        }
        return out
    }

    static func candidates(_ term: FuzzTerm) -> [FuzzTerm] {
        var out: [FuzzTerm] = []
        if term.quantifier != .one { out.append(FuzzTerm(term.atom)) }
        if case .braces(_, let meaning) = term.quantifier { out.append(FuzzTerm(term.atom, .short(meaning), lazy: term.lazy)) }
        if term.lazy { out.append(FuzzTerm(term.atom, term.quantifier)) }
        if term.quantifier == .short(.oneOrMore) || term.quantifier == .short(.zeroOrMore) {
            out.append(FuzzTerm(term.atom, .short(.zeroOrOne), lazy: term.lazy))
        }
        func replacing(_ atom: FuzzAtom) -> FuzzTerm { FuzzTerm(atom, term.quantifier, lazy: term.lazy) }
        let a = UInt8(ascii: "a")
        switch term.atom {
        case .character(let unit, let spelling):
            if spelling != .plain { out.append(replacing(.character(unit, .plain))) }
            if unit != a {
                let lower = (unit >= 0x41 && unit <= 0x5A) ? unit + 0x20 : unit
                if lower != unit { out.append(replacing(.character(lower, spelling))) }
                out.append(replacing(.character(a, .plain)))
            }
        case .any:
            out.append(replacing(.character(a, .plain)))
        case .characterClass(let negated, let items):
            for item in items {
                switch item {
                case .character(let unit, let spelling): if !negated && unit != 0 { out.append(replacing(.character(unit, spelling))) }
                case .range(let low, let spelling, _, _): if !negated && low != 0 { out.append(replacing(.character(low, spelling))) }
                }
            }
            for index in items.indices { out.append(replacing(.characterClass(negated: negated, with(items) { $0.remove(at: index) }))) }
            for (index, item) in items.enumerated() {
                if case .range(let low, let lowSpelling, let high, let highSpelling) = item {
                    out.append(replacing(.characterClass(negated: negated, with(items) { $0[index] = .character(low, lowSpelling) })))
                    if high > low { out.append(replacing(.characterClass(negated: negated, with(items) { $0[index] = .range(low, lowSpelling, high - 1, highSpelling) }))) }
                }
                if case .character(let unit, let spelling) = item, spelling != .plain {
                    out.append(replacing(.characterClass(negated: negated, with(items) { $0[index] = .character(unit, .plain) })))
                }
            }
            if negated { out.append(replacing(.any)) }
        case .group(let kind, let inner):
            if kind != .capturing { out.append(replacing(.group(.capturing, inner))) }
            for smaller in candidates(inner) { out.append(replacing(.group(kind, smaller))) }
        case .endMarker(let text):
            if text != "\\0" { out.append(replacing(.endMarker("\\0"))) }
        case .defect:
            break
        }
        return out
    }

    /// Shorter byte strings: halves, quarters, ... removed, then characters made plainer.
    public static func candidates(_ bytes: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var chunk = bytes.count / 2
        while chunk >= 1 {
            var start = 0
            while start < bytes.count {
                out.append(with(bytes) { $0.removeSubrange(start..<min(bytes.count, start + chunk)) })
                start += chunk
            }
            chunk /= 2
        }
        for index in bytes.indices where bytes[index] != UInt8(ascii: "a") {
            if bytes[index] >= 0x41 && bytes[index] <= 0x5A { out.append(with(bytes) { $0[index] += 0x20 }) }
            out.append(with(bytes) { $0[index] = UInt8(ascii: "a") })
        }
        return out
    }

    static func candidates(_ text: String) -> [String] {
        candidates(Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Smaller rule lists: fewer rules, then plainer rules.
    public static func candidates(_ list: FuzzRuleList) -> [FuzzRuleList] {
        var out: [FuzzRuleList] = []
        let rules = list.rules
        if rules.count > 2 {
            out.append(FuzzRuleList(rules: Array(rules[..<(rules.count / 2)])))
            out.append(FuzzRuleList(rules: Array(rules[(rules.count / 2)...])))
        }
        if rules.count > 1 {
            for index in rules.indices { out.append(FuzzRuleList(rules: with(rules) { $0.remove(at: index) })) }
        }
        for index in rules.indices {
            for simpler in candidates(rules[index]) { out.append(FuzzRuleList(rules: with(rules) { $0[index] = simpler })) }
        }
        return out
    }

    static func candidates(_ rule: FuzzRule) -> [FuzzRule] {
        var out: [FuzzRule] = []
        if rule.condition != nil { out.append(with(rule) { $0.condition = nil }) }
        if !rule.resourceTypes.isEmpty { out.append(with(rule) { $0.resourceTypes = [] }) }
        if !rule.loadTypes.isEmpty { out.append(with(rule) { $0.loadTypes = [] }) }
        if !rule.loadContexts.isEmpty { out.append(with(rule) { $0.loadContexts = [] }) }
        if rule.requestMethod != nil { out.append(with(rule) { $0.requestMethod = nil }) }
        if rule.action != .block { out.append(with(rule) { $0.action = .block }) }
        switch rule.condition {
        case .ifDomain(let domains), .unlessDomain(let domains):
            if domains.count > 1 {
                for index in domains.indices {
                    let fewer = with(domains) { $0.remove(at: index) }
                    out.append(with(rule) { $0.condition = if case .ifDomain = rule.condition { .ifDomain(fewer) } else { .unlessDomain(fewer) } })
                }
            }
        case .some(let condition):
            let patterns = condition.patterns
            if patterns.count > 1 {
                for index in patterns.indices { out.append(with(rule) { $0.condition = condition.with(patterns: with(patterns) { $0.remove(at: index) }) }) }
            }
            for index in patterns.indices {
                for simpler in candidates(patterns[index]) where !simpler.source.isEmpty {
                    out.append(with(rule) { $0.condition = condition.with(patterns: with(patterns) { $0[index] = simpler }) })
                }
            }
        case nil:
            break
        }
        for simpler in candidates(rule.urlFilter) where !simpler.source.isEmpty {
            out.append(with(rule) { $0.urlFilter = simpler })
        }
        return out
    }

    /// Shorter requests: each URL shortened, the method dropped, the frame made the page.
    public static func candidates(_ request: FuzzRequest) -> [FuzzRequest] {
        var out: [FuzzRequest] = []
        if request.method != nil { out.append(with(request) { $0.method = nil }) }
        if request.frameURL != request.mainDocumentURL { out.append(with(request) { $0.frameURL = request.mainDocumentURL }) }
        if request.resourceType != "image" { out.append(with(request) { $0.resourceType = "image" }) }
        if request.isMainFrameContext { out.append(with(request) { $0.isMainFrameContext = false }) }
        for url in candidates(request.url) { out.append(with(request) { $0.url = url }) }
        for page in candidates(request.mainDocumentURL) {
            out.append(with(request) {
                if $0.frameURL == $0.mainDocumentURL { $0.frameURL = page }
                $0.mainDocumentURL = page
            })
        }
        if request.frameURL != request.mainDocumentURL {
            for frame in candidates(request.frameURL) { out.append(with(request) { $0.frameURL = frame }) }
        }
        return out
    }
}
