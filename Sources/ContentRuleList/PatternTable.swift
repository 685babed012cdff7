// PatternTable: every distinct pattern text of a list's rules, numbered, parsed once each.
//
// Lists repeat patterns (a url-filter in several rules with different actions or conditions;
// condition patterns recur across many rules), and both the validation (WebKit's verdict needs every pattern's status) and
// the compiler (which needs every pattern's syntax tree, or a host pattern's parts) read them. The
// table numbers the texts of a list's url-filters and url-condition patterns in rule order, reads
// each distinct one once on every core (`URLFilterParser.read`: most are host patterns, which get
// no syntax tree), and is handed from the rule-list parser to the compiler, which adds the
// patterns of domain conditions. Tested by ContentRuleListTests/PatternTableTests.swift.

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
    /// The numbers of `keys` by text: an open-addressing table (linear probing, at most half full)
    /// over each key's hash, which reads a text's bytes a word at a time (a Dictionary would hash
    /// every String with SipHash, the bulk of numbering a list).
    private var slots: [Int32] = []
    private var hashes: [UInt64] = []
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
        keys.reserveCapacity(rules.count)
        hashes.reserveCapacity(rules.count)
        slots = [Int32](repeating: -1, count: Self.slotCount(for: rules.count))
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

    public var count: Int { keys.count }

    /// The number of a text, numbering it when new (then it is parsed by the next `parseNewKeys`).
    public mutating func number(_ source: String, caseSensitive: Bool) -> Int32 {
        if 2 * (keys.count + 1) > slots.count { grow() }
        let hash = Self.hash(source, caseSensitive: caseSensitive)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] >= 0 {
            let known = Int(slots[slot])
            if hashes[known] == hash && keys[known].isCaseSensitive == caseSensitive && keys[known].source == source {
                return Int32(known)
            }
            slot = (slot + 1) & mask
        }
        let number = Int32(keys.count)
        slots[slot] = number
        keys.append(Key(source: source, isCaseSensitive: caseSensitive))
        hashes.append(hash)
        return number
    }

    /// A power of two at least twice `count` (and 64).
    private static func slotCount(for count: Int) -> Int {
        var size = 64
        while size < 2 * count { size *= 2 }
        return size
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: Self.slotCount(for: 2 * (keys.count + 1)))
        let mask = slots.count - 1
        for (number, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(number)
        }
    }

    /// A text's hash: its UTF-8 bytes eight at a time, each word mixed in by a multiply and an
    /// xorshift, then the case sensitivity.
    static func hash(_ source: String, caseSensitive: Bool) -> UInt64 {
        func mix(_ hash: UInt64, _ value: UInt64) -> UInt64 {
            let mixed = (hash ^ value) &* 0xBF58_476D_1CE4_E5B9
            return mixed ^ (mixed >> 31)
        }
        func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
            var result = mix(0x9E37_79B9_7F4A_7C15, UInt64(bytes.count))
            var offset = 0
            while offset + 8 <= bytes.count {
                result = mix(result, UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt64.self))
                offset += 8
            }
            var last: UInt64 = 0
            if offset == bytes.count {
                // (No bytes left: `last` is 0.)
            } else if bytes.count >= 8 {
                // The bytes left as the high end of the text's last eight, loaded at once: the
                // same word as built a byte at a time.
                let word = UnsafeRawPointer(bytes.baseAddress! + bytes.count - 8).loadUnaligned(as: UInt64.self)
                last = UInt64(littleEndian: word) >> (8 * (8 - (bytes.count - offset)))
            } else {
                for index in offset..<bytes.count { last |= UInt64(bytes[index]) << (8 * (index - offset)) }
            }
            return mix(result, last)
        }
        let text = source.utf8.withContiguousStorageIfAvailable(hash) ?? Array(source.utf8).withUnsafeBufferPointer(hash)
        return mix(text, caseSensitive ? 1 : 0)
    }

    /// Reads the keys numbered since the last call, on every core.
    public mutating func parseNewKeys() {
        guard results.count < keys.count else { return }
        let parsed = URLFilterParser.read(keys[results.count...].map { ($0.source, $0.isCaseSensitive) })
        statuses.reserveCapacity(keys.count)
        // (Each result read in place: one taken out of the array is retained and released.)
        parsed.withUnsafeBufferPointer { parsed in
            for index in parsed.indices { statuses.append(Self.status(of: parsed[index])) }
        }
        // (The first parse is most of a list's patterns: taken as it is, not copied.)
        if results.isEmpty { results = parsed } else { results += parsed }
    }

    private static func status(of result: Result<AcceptedPattern, URLFilterParseError>) -> URLFilterParseStatus {
        switch result {
        case .success(let pattern): pattern.status
        case .failure(let error): error.status
        }
    }

    /// The reading of a text: the pattern as the compiler takes it, or why WebKit rejects it.
    public subscript(number: Int32) -> Result<AcceptedPattern, URLFilterParseError> { results[Int(number)] }
}
