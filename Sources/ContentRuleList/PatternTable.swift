// PatternTable: every distinct pattern text of a list's rules, numbered, parsed once each.
//
// Lists repeat patterns (a url-filter in several rules with different actions or conditions;
// condition patterns recur across many rules), and both the validation (WebKit's verdict needs every pattern's status) and
// the compiler (which needs every pattern's syntax tree, or a host pattern's parts) read them. The
// table numbers the texts of a list's url-filters and url-condition patterns in rule order
// (TextNumbers), reads each distinct one once on every core (`URLFilterParser.read`: most are host
// patterns, which get no syntax tree), and is handed from the rule-list parser to the compiler,
// which adds the patterns of domain conditions. Tested by ContentRuleListTests/PatternTableTests.swift.

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

    /// The texts, numbered.
    private var numbers = TextNumbers()
    /// The texts, by number.
    public var keys: [Key] { numbers.keys }
    /// Each key read (`URLFilterParser.read`: a host pattern's parts, or a parse), by number; keys
    /// numbered since the last `parseNewKeys` have none yet.
    public private(set) var results: [Result<AcceptedPattern, URLFilterParseError>] = []
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
        numbers = TextNumbers(capacity: rules.count)
        // (The triggers read in place: a rule copied out of the array retains and releases each
        // of its strings and lists.)
        rules.withUnsafeBufferPointer { rules in
            for index in rules.indices {
                numbersOfRules.append(number(rules[index].trigger.urlFilter, caseSensitive: rules[index].trigger.urlFilterIsCaseSensitive))
                switch rules[index].trigger.condition {
                case .ifTopURL(let patterns), .unlessTopURL(let patterns):
                    let isCaseSensitive = rules[index].trigger.topURLFilterIsCaseSensitive
                    for pattern in patterns { numbersOfRules.append(number(pattern, caseSensitive: isCaseSensitive)) }
                case .ifFrameURL(let patterns), .unlessFrameURL(let patterns):
                    let isCaseSensitive = rules[index].trigger.frameURLFilterIsCaseSensitive
                    for pattern in patterns { numbersOfRules.append(number(pattern, caseSensitive: isCaseSensitive)) }
                case .ifDomain, .unlessDomain, nil:
                    break
                }
                ruleStarts.append(Int32(numbersOfRules.count))
            }
        }
        parseNewKeys()
    }

    public var count: Int { numbers.count }

    /// The number of a text, numbering it when new (then it is parsed by the next `parseNewKeys`).
    public mutating func number(_ source: String, caseSensitive: Bool) -> Int32 {
        numbers.number(source, caseSensitive: caseSensitive)
    }

    /// `number(_:caseSensitive:)` for a text whose reading is known (`reading`: what
    /// `parseNewKeys` reads it as): a new text takes it when every text before it has its reading,
    /// and is not read again. (Nil: the text is read as any other.)
    public mutating func number(_ source: String, caseSensitive: Bool, reading: AcceptedPattern?) -> Int32 {
        let count = numbers.count
        let number = numbers.number(source, caseSensitive: caseSensitive)
        guard let reading, Int(number) == count else { return number }
        if results.count == count {
            results.append(.success(reading))
            statuses.append(reading.status)
        } else {
            givenReadings.append((number, reading))
        }
        return number
    }

    /// Readings given with new texts numbered after a text still to be read, in number order:
    /// `parseNewKeys` reads the texts between them.
    private var givenReadings: [(number: Int32, reading: AcceptedPattern)] = []

    /// Reads the keys numbered since the last call, on every core.
    public mutating func parseNewKeys() {
        guard results.count < numbers.count else { return }
        guard givenReadings.isEmpty else { return readNewKeysAroundGivenReadings() }
        let parsed = URLFilterParser.read(numbers.keys[results.count...].map { ($0.source, $0.isCaseSensitive) })
        statuses.reserveCapacity(numbers.count)
        // (Each result read in place: one taken out of the array is retained and released.)
        parsed.withUnsafeBufferPointer { parsed in
            for index in parsed.indices { statuses.append(Self.status(of: parsed[index])) }
        }
        // (The first parse is most of a list's patterns: taken as it is, not copied.)
        if results.isEmpty { results = parsed } else { results += parsed }
    }

    /// `parseNewKeys` when some new texts were given their readings: the others read, then each
    /// text's reading taken in number order.
    private mutating func readNewKeysAroundGivenReadings() {
        let given = givenReadings
        givenReadings = []
        var isGiven = [Bool](repeating: false, count: numbers.count - results.count)
        for (number, _) in given { isGiven[Int(number) - results.count] = true }
        let unread = isGiven.indices.filter { !isGiven[$0] }.map { numbers.keys[results.count + $0] }
        let parsed = URLFilterParser.read(unread.map { ($0.source, $0.isCaseSensitive) })
        var (nextGiven, nextParsed) = (0, 0)
        for offset in isGiven.indices {
            let result: Result<AcceptedPattern, URLFilterParseError>
            if isGiven[offset] {
                result = .success(given[nextGiven].reading)
                nextGiven += 1
            } else {
                result = parsed[nextParsed]
                nextParsed += 1
            }
            results.append(result)
            statuses.append(Self.status(of: result))
        }
    }

    private static func status(of result: Result<AcceptedPattern, URLFilterParseError>) -> URLFilterParseStatus {
        switch result {
        case .success(let pattern): pattern.status
        case .failure(let error): error.status
        }
    }

    /// The readings (`results`), taken out of the table: it has none after.
    public mutating func takeResults() -> [Result<AcceptedPattern, URLFilterParseError>] {
        var taken: [Result<AcceptedPattern, URLFilterParseError>] = []
        swap(&taken, &results)
        return taken
    }

    /// The reading of a text: the pattern as the compiler takes it, or why WebKit rejects it.
    public subscript(number: Int32) -> Result<AcceptedPattern, URLFilterParseError> { results[Int(number)] }

    /// The pattern a text reads as, nil when WebKit rejects it. (Read in place: a result copied
    /// out of the array is retained and released whole.)
    public func pattern(_ number: Int32) -> AcceptedPattern? {
        results.withUnsafeBufferPointer { results in
            guard case .success(let pattern) = results[Int(number)] else { return nil }
            return pattern
        }
    }
}
