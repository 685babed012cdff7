// HeldRules.swift — ContentBlocker
//
// The rules as an evaluator holds them once loaded, in place of the file's records (`RuleRecord`,
// 24 bytes in memory, let go):
//
//   records      what an answer reads of a rule in 8 bytes (`HeldRule`): its action location, its
//                flags and its condition kind and role, packed; each distinct record once (a list
//                of tens of thousands of rules has a few thousand: rules share their flags, and
//                most share their action with many others)
//   recordOf     per rule slot, its record's place among them: 2 bytes a slot while they number
//                at most 2^16, 4 beyond (`NarrowedIntegers`)
//   indices      per rule slot, its index in the source list: the one copy, the pool an
//                outcome's list of rules reads (`SharedList`)
//   conditions   the start and count of the condition list of each rule that has one (few: most
//                rules have no condition, or one without patterns), in slot order, found by the
//                rule's rank among them: a bit per slot and, per 64 slots, how many rules before
//                them have a list (`ConditionLists`)
//
// and per url pattern the slots of its rules (`URLPatternRules`): most patterns' one slot in an
// entry of 2 bytes (its difference from the pattern's number), the others' count and slots listed
// apart. A pattern's report then reads its entry and its rule's record.
// Equal records are found by their words (`RecordNumbering`), in one pass over the rules.
// Tested by ContentBlockerTests/HeldRulesTests.swift, and by every answer (EvaluatorTests,
// PageCacheTests).

internal import ContentRuleList
internal import Search

/// What an answer reads of one rule: its action location, flags, condition kind and role, packed
/// in one word (8 bytes; the condition's list, for the few rules with one, is in
/// `ConditionLists`). Two records are equal when their words are.
struct HeldRule: Equatable {
    /// Bits 0-31 the action location, 32-47 the resource types, 48-55 the flags (load types
    /// bits 0-1, load contexts 2-3, method 4-7), 56-63 the kinds (role bits 0-2, condition kind
    /// bits 3-5).
    let bits: UInt64

    init(_ record: RuleRecord) {
        precondition(
            (record.loadTypes | record.loadContexts) < 4 && record.method < 16 && (record.role.rawValue | record.condition.rawValue) < 8,
            "a rule's flags wider than their bits")
        let flags = record.loadTypes | record.loadContexts << 2 | record.method << 4
        let kinds = record.role.rawValue | record.condition.rawValue << 3
        bits = UInt64(record.actionLocation) | UInt64(record.resourceTypes) << 32 | UInt64(flags) << 48 | UInt64(kinds) << 56
    }

    private init(bits: UInt64) { self.bits = bits }

    /// The record less its action location and role: what a set of flags reads of a rule (its
    /// resource types, flags and condition kind), equal for rules a set of flags treats alike.
    var flagsAndCondition: HeldRule { HeldRule(bits: bits & 0x38FF_FFFF_0000_0000) }

    /// The index of its action in the file's actions, `RuleRecord.notListed` when not listed.
    @inline(__always) var actionLocation: UInt32 { UInt32(truncatingIfNeeded: bits) }
    @inline(__always) var resourceTypes: UInt16 { UInt16(truncatingIfNeeded: bits >> 32) }
    @inline(__always) private var flags: UInt8 { UInt8(truncatingIfNeeded: bits >> 48) }
    @inline(__always) private var kinds: UInt8 { UInt8(truncatingIfNeeded: bits >> 56) }

    @inline(__always) var loadTypes: UInt8 { flags & 0b11 }
    @inline(__always) var loadContexts: UInt8 { flags >> 2 & 0b11 }
    /// 0: any method; otherwise `RequestMethod.allCases[method - 1]`.
    @inline(__always) var method: UInt8 { flags >> 4 }
    /// (Unwrapped unchecked: the bits were written from a role and a kind, `init`.)
    @inline(__always) var role: RuleRole { RuleRole(rawValue: kinds & 0b111).unsafelyUnwrapped }
    @inline(__always) var condition: ConditionKind { ConditionKind(rawValue: kinds >> 3).unsafelyUnwrapped }
}

/// The rules of a compiled file as an evaluator holds them (see above).
struct HeldRules {
    /// Each distinct record once, in order of first use.
    private let records: [HeldRule]
    private let recordOf: NarrowedIntegers
    /// Each rule's index in its list, by slot.
    let indices: [RuleIndex]
    private let conditionLists: ConditionLists

    init(_ records: [RuleRecord]) {
        var numbering = RecordNumbering(ruleCount: records.count)
        recordOf = records.withUnsafeBufferPointer { records in
            NarrowedIntegers(count: records.count) { numbering.place(of: HeldRule(records[$0])) }
        }
        self.records = numbering.distinct.fitted()
        indices = records.map { RuleIndex(Int($0.ruleIndex)) }
        conditionLists = ConditionLists(records)
    }

    var count: Int { indices.count }
    /// How many distinct records the rules share.
    var distinctRecords: Int { records.count }
    /// Whether a slot's record place takes 4 bytes (more than 2^16 distinct records), not 2.
    var placesAreWide: Bool { recordOf.isWide }

    @inline(__always)
    subscript(slot: UInt32) -> HeldRule { records[recordOf[Int(slot)]] }

    /// The entries of the file's conditions that the condition of the rule in `slot` lists (empty
    /// for a rule whose condition lists none).
    @inline(__always)
    func conditionEntries(of slot: UInt32) -> Range<Int> { conditionLists.entries(of: slot) }

    /// The records read through buffers (a loop over every rule of a page: no check per read).
    func withRecords<Result>(_ body: (Reader) -> Result) -> Result {
        records.withUnsafeBufferPointer { records in recordOf.withValues { body(Reader(records: records, places: $0)) } }
    }

    /// The records by slot, read unchecked (slots below the count).
    struct Reader {
        fileprivate let records: UnsafeBufferPointer<HeldRule>
        fileprivate let places: NarrowedIntegers.Reader

        @inline(__always)
        subscript(slot: Int) -> HeldRule { records[places[slot]] }
    }

    /// Counts what it holds under `name`.
    func held(_ name: String, into memory: inout HeldMemory) {
        memory.add(name, array: records)
        recordOf.held(name, into: &memory)
        memory.add(name, array: indices)
        conditionLists.held(name, into: &memory)
    }
}

/// Numbers the distinct records of a list's rules (or of what a set of flags reads of them,
/// `HeldRule.flagsAndCondition`) in order of first use, by their words: a table
/// open-addressed by a multiplicative hash of the word, sized to the list (twice the records it
/// holds, from a few dozen entries: a small list's table is small), and the last record's number
/// kept (a rule mostly shares its neighbour's record). Not a `[UInt64: UInt32]`: a dictionary of
/// that type costs a process its first use's setup, more than a small list's whole numbering.
struct RecordNumbering {
    /// Each distinct record once, in order of first use: a record's number is its place here.
    private(set) var distinct: [HeldRule] = []
    /// Per entry, 0 when free, else the number of the record it holds plus 1.
    private var table: [UInt32]
    /// 64 less the bits of an entry's index (the table holds 2^(64 - shift) entries).
    private var shift: UInt64
    /// The last record numbered and its number (`UInt64.max`: no record's word, its kinds' bits
    /// below 2^6).
    private var last: (bits: UInt64, number: UInt32) = (.max, 0)

    /// A numbering whose first table suits `ruleCount` rules (a list has several rules a record).
    init(ruleCount: Int) {
        let bits = max(6, min(14, Int.bitWidth - (ruleCount / 4).leadingZeroBitCount))
        table = [UInt32](repeating: 0, count: 1 << bits)
        shift = UInt64(64 - bits)
    }

    /// The number of `rule`'s record: the one an equal record was given, or the next one.
    @inline(__always)
    mutating func place(of rule: HeldRule) -> UInt32 {
        if rule.bits == last.bits { return last.number }
        let number = lookUp(rule)
        last = (rule.bits, number)
        return number
    }

    private mutating func lookUp(_ rule: HeldRule) -> UInt32 {
        let mask = table.count - 1
        var at = home(of: rule)
        while table[at] != 0 {
            if distinct[Int(table[at]) - 1] == rule { return table[at] - 1 }
            at = (at + 1) & mask
        }
        let number = UInt32(distinct.count)
        distinct.append(rule)
        table[at] = number + 1
        if distinct.count * 2 > table.count { grow() }
        return number
    }

    /// The entry where a search for `rule` starts (the top bits of its word times 2^64 / phi).
    @inline(__always)
    private func home(of rule: HeldRule) -> Int { Int(truncatingIfNeeded: (rule.bits &* 0x9E37_79B9_7F4A_7C15) >> shift) }

    /// Doubles the table, each record entered anew.
    private mutating func grow() {
        shift -= 1
        table = [UInt32](repeating: 0, count: table.count * 2)
        let mask = table.count - 1
        for (number, rule) in distinct.enumerated() {
            var at = home(of: rule)
            while table[at] != 0 { at = (at + 1) & mask }
            table[at] = UInt32(number) + 1
        }
    }
}

/// A list of integers below 2^32, held in 2 bytes each when all are below 2^16 (`narrow`), in 4
/// otherwise (`wide`); the other list is empty. (Record places, pattern entries.)
struct NarrowedIntegers {
    private let narrow: [UInt16]
    private let wide: [UInt32]

    /// The values `value(0)`, ..., `value(count - 1)`, each asked once, in order: written in 2
    /// bytes until one is past 2^16 - 1, then all in 4.
    init(count: Int, _ value: (Int) -> UInt32) {
        var widening: (index: Int, value: UInt32)?
        let narrow = [UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
            var end = count
            for index in 0..<count {
                let next = value(index)
                guard next <= UInt16.max else {
                    (widening, end) = ((index, next), index)
                    break
                }
                buffer[index] = UInt16(truncatingIfNeeded: next)
            }
            initialized = end
        }
        guard let widening else {
            (self.narrow, wide) = (narrow, [])
            return
        }
        self.narrow = []
        wide = [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<widening.index { buffer[index] = UInt32(narrow[index]) }
            buffer[widening.index] = widening.value
            for index in widening.index + 1..<count { buffer[index] = value(index) }
            initialized = count
        }
    }

    @inline(__always)
    subscript(index: Int) -> Int { wide.isEmpty ? Int(narrow[index]) : Int(wide[index]) }

    func withValues<Result>(_ body: (Reader) -> Result) -> Result {
        narrow.withUnsafeBufferPointer { narrow in wide.withUnsafeBufferPointer { wide in body(Reader(narrow: narrow, wide: wide)) } }
    }

    /// The values read unchecked.
    struct Reader {
        fileprivate let narrow: UnsafeBufferPointer<UInt16>
        fileprivate let wide: UnsafeBufferPointer<UInt32>

        @inline(__always)
        subscript(index: Int) -> Int { wide.isEmpty ? Int(narrow[index]) : Int(wide[index]) }
    }

    /// Whether the values take 4 bytes each.
    var isWide: Bool { !wide.isEmpty }

    func held(_ name: String, into memory: inout HeldMemory) {
        memory.add(name, array: narrow)
        memory.add(name, array: wide)
    }
}

/// The condition lists of the rules that have one, by slot: a rule's is found by its rank among
/// them (the rules with a list before it), from a bit per slot and a count per 64 slots.
struct ConditionLists {
    /// Per 64 slots: a bit per slot, set when its rule has a condition list, and how many rules
    /// before these slots have one (together: a rule's rank is one line read).
    private struct Word {
        var listed: UInt64
        var listedBefore: UInt64
    }
    private let words: [Word]
    /// Per rule with a list, in slot order: where it starts in the file's conditions and how many
    /// entries it has.
    private let lists: [(start: UInt32, count: UInt32)]

    init(_ records: [RuleRecord]) {
        var lists: [(start: UInt32, count: UInt32)] = []
        lists.reserveCapacity(records.count { $0.conditionCount > 0 })
        words = records.withUnsafeBufferPointer { records in
            [Word](unsafeUninitializedCapacity: (records.count + 63) / 64) { words, initialized in
                for index in 0..<words.count {
                    var word = Word(listed: 0, listedBefore: UInt64(lists.count))
                    for slot in index * 64..<min(index * 64 + 64, records.count) where records[slot].conditionCount > 0 {
                        word.listed |= 1 << UInt64(slot & 63)
                        lists.append((records[slot].conditionStart, records[slot].conditionCount))
                    }
                    words[index] = word
                }
                initialized = words.count
            }
        }
        self.lists = lists
    }

    /// The entries of the conditions that the rule in `slot` lists (empty when it has no list).
    @inline(__always)
    func entries(of slot: UInt32) -> Range<Int> {
        let word = words[Int(slot >> 6)]
        let bit: UInt64 = 1 << UInt64(slot & 63)
        guard word.listed & bit != 0 else { return 0..<0 }
        let list = lists[Int(word.listedBefore) + (word.listed & (bit - 1)).nonzeroBitCount]
        return Int(list.start)..<Int(list.start) + Int(list.count)
    }

    func held(_ name: String, into memory: inout HeldMemory) {
        memory.add(name, array: words)
        memory.add(name, array: lists)
    }
}

/// The rule slots of each url pattern: most patterns' one slot in an entry of its own, the others'
/// listed apart (their count, then their slots). A pattern's one slot is held as its difference
/// from the pattern's number (patterns are numbered about as their rules are: the differences lie
/// close together), so that entries mostly fit in 2 bytes (`NarrowedIntegers`).
struct URLPatternRules {
    /// The least difference of a pattern of one rule's slot from its number.
    private let lowest: Int
    /// Per pattern: its one rule's slot less its number and `lowest`, shifted left by one; or,
    /// with bit 0 set, where its list starts in `several`, shifted left by one.
    private let entries: NarrowedIntegers
    private let several: [UInt32]

    /// The rules of url pattern `p`: `slots[start[p] ..< start[p + 1]]`.
    init(start: [UInt32], slots: [UInt32]) {
        let patternCount = max(start.count - 1, 0)
        var (ones, lowest) = (0, Int.max)
        for pattern in 0..<patternCount where start[pattern + 1] - start[pattern] == 1 {
            ones += 1
            lowest = min(lowest, Int(slots[Int(start[pattern])]) - pattern)
        }
        if ones == 0 { lowest = 0 }
        var several: [UInt32] = []
        several.reserveCapacity(patternCount - ones + slots.count - ones)
        entries = NarrowedIntegers(count: patternCount) { pattern in
            let (first, end) = (Int(start[pattern]), Int(start[pattern + 1]))
            guard end - first == 1 else {
                precondition(several.count < 1 << 31, "pattern rule lists beyond 2^31 entries")
                let entry = UInt32(several.count) << 1 | 1
                several.append(UInt32(end - first))
                several += slots[first..<end]
                return entry
            }
            // (Slots and patterns are below 2^29, the file's limits: the difference fits 31 bits.)
            return UInt32(Int(slots[first]) - pattern - lowest) << 1
        }
        self.lowest = lowest
        self.several = several
    }

    /// Whether the entries take 4 bytes each (slots far from their patterns' numbers).
    var entriesAreWide: Bool { entries.isWide }

    /// Calls `body` with each slot of `pattern`'s rules, in the file's order.
    @inline(__always)
    func forEachSlot(of pattern: UInt32, _ body: (UInt32) -> Void) {
        let entry = entries[Int(pattern)]
        guard entry & 1 != 0 else { return body(UInt32(truncatingIfNeeded: Int(pattern) + lowest + entry >> 1)) }
        let start = entry >> 1 + 1
        for at in start..<start + Int(several[start - 1]) { body(several[at]) }
    }

    func held(_ name: String, into memory: inout HeldMemory) {
        entries.held(name, into: &memory)
        memory.add(name, array: several)
    }
}
