// PatternTable: every distinct pattern text of a list's rules, numbered, parsed once each.
//
// Lists repeat patterns (EasyList: 58,000 url-filters, 49,000 distinct; condition patterns recur
// across many rules), and both the validation (WebKit's verdict needs every pattern's status) and
// the compiler (which needs every pattern's syntax tree) read them. The table numbers the texts
// of a list's url-filters and url-condition patterns in rule order, parses each distinct one once
// on every core, and is handed from the rule-list parser to the compiler, which adds the patterns
// of domain conditions. Tested by ContentRuleListTests/PatternTableTests.swift.

public import URLFilterSyntax

public struct PatternTable: Sendable {
    public struct Key: Hashable, Sendable {
        public var source: String
        public var isCaseSensitive: Bool

        public init(source: String, isCaseSensitive: Bool) {
            self.source = source
            self.isCaseSensitive = isCaseSensitive
        }
    }

    /// The texts, by number.
    public private(set) var keys: [Key] = []
    private var numbers: [Key: Int32] = [:]
    /// The parse of each key, by number; keys numbered since the last `parseNewKeys` have none yet.
    public private(set) var results: [Result<URLFilter, URLFilterParseError>] = []
    /// The status of each key's parse, by number (beside `results`: read for every rule of a list
    /// without touching the parses).
    public private(set) var statuses: [URLFilterParseStatus] = []
    /// Per rule of the list it was made from, in order: the number of its url-filter, then those of
    /// the patterns of its top-url or frame-url condition (domain conditions have none here).
    public private(set) var numbersOfRules: [Int32] = []
    /// Where each rule's numbers start in `numbersOfRules`, and their end after the last rule's.
    public private(set) var ruleStarts: [Int32] = [0]

    public init() {}

    /// The table of `rules`, parsed.
    public init(rules: [Rule]) {
        numbersOfRules.reserveCapacity(rules.count)
        ruleStarts.reserveCapacity(rules.count + 1)
        keys.reserveCapacity(rules.count)
        numbers.reserveCapacity(rules.count)
        for rule in rules {
            let trigger = rule.trigger
            numbersOfRules.append(number(trigger.urlFilter, caseSensitive: trigger.urlFilterIsCaseSensitive))
            switch trigger.condition {
            case .ifTopURL(let patterns), .unlessTopURL(let patterns):
                for pattern in patterns { numbersOfRules.append(number(pattern, caseSensitive: trigger.topURLFilterIsCaseSensitive)) }
            case .ifFrameURL(let patterns), .unlessFrameURL(let patterns):
                for pattern in patterns { numbersOfRules.append(number(pattern, caseSensitive: trigger.frameURLFilterIsCaseSensitive)) }
            case .ifDomain, .unlessDomain, nil:
                break
            }
            ruleStarts.append(Int32(numbersOfRules.count))
        }
        parseNewKeys()
    }

    public var count: Int { keys.count }

    /// The number of a text, numbering it when new (then it is parsed by the next `parseNewKeys`).
    public mutating func number(_ source: String, caseSensitive: Bool) -> Int32 {
        let key = Key(source: source, isCaseSensitive: caseSensitive)
        let number = Int32(keys.count)
        // One hash of the text for a new one (most are): a repeated text is put back.
        if let known = numbers.updateValue(number, forKey: key) {
            numbers[key] = known
            return known
        }
        keys.append(key)
        return number
    }

    /// Parses the keys numbered since the last call, on every core.
    public mutating func parseNewKeys() {
        guard results.count < keys.count else { return }
        let parsed = URLFilterParser.parse(keys[results.count...].map { ($0.source, $0.isCaseSensitive) })
        statuses.reserveCapacity(keys.count)
        for result in parsed {
            switch result {
            case .success(let filter): statuses.append(filter.status)
            case .failure(let error): statuses.append(error.status)
            }
        }
        // (The first parse is most of a list's patterns: taken as it is, not copied.)
        if results.isEmpty { results = parsed } else { results += parsed }
    }

    /// The parsed pattern of an accepted text.
    public subscript(number: Int32) -> Result<URLFilter, URLFilterParseError> { results[Int(number)] }
}
