// HeldRulesTests.swift — the rules as an evaluator holds them (HeldRules.swift) say what the
// file's records say: each field of a packed record, read by slot and through a buffer, equal
// records held once, places of 2 bytes and of 4 (past 2^16 distinct records), each rule's index,
// each rule's condition list found by its rank (across the words of 64 slots), and each url
// pattern's slots, one or several, in entries of 2 bytes and of 4.

import Testing
@testable import ContentBlocker
import ContentRuleList
import Search
import TestSupport

@Suite struct HeldRulesTests {
    /// Records of every role, condition kind, load type, load context and method, with resource
    /// types and action locations up to their widths, a condition list on about a third.
    static func records(count: Int, seed: UInt64) -> [RuleRecord] {
        var random = SplitMix64(seed: seed)
        var conditionStart: UInt32 = 0
        return (0..<count).map { slot in
            let condition = ConditionKind.allCases[Int(random.next() % UInt64(ConditionKind.allCases.count))]
            let listed = condition.hasList && random.next() % 3 == 0
            let role = RuleRole.allCases[slot % RuleRole.allCases.count]
            let conditionCount = listed ? UInt32(1 + random.next() % 5) : 0
            defer { conditionStart += conditionCount }
            return RuleRecord(
                ruleIndex: UInt32(slot * 2 + Int(random.next() % 2)), resourceTypes: UInt16(random.next() % (1 << 14)),
                loadTypes: UInt8(random.next() % 4), loadContexts: UInt8(random.next() % 4),
                method: UInt8(random.next() % UInt64(RequestMethod.allCases.count + 1)), condition: listed ? condition : .none, role: role,
                actionLocation: role.isListed ? UInt32(truncatingIfNeeded: random.next()) % RuleRecord.notListed : RuleRecord.notListed,
                conditionStart: listed ? conditionStart : 0, conditionCount: conditionCount)
        }
    }

    @Test(arguments: [0, 1, 63, 64, 65, 1_000])
    func eachRuleReadsAsItsRecord(count: Int) {
        let records = Self.records(count: count, seed: UInt64(count) + 1)
        let held = HeldRules(records)
        #expect(held.count == count)
        Self.expectEachSlotReads(records, held)
        for (slot, record) in records.enumerated() {
            let rule = held[UInt32(slot)]
            #expect(rule.actionLocation == record.actionLocation)
            #expect(rule.resourceTypes == record.resourceTypes)
            #expect(rule.loadTypes == record.loadTypes)
            #expect(rule.loadContexts == record.loadContexts)
            #expect(rule.method == record.method)
            #expect(rule.role == record.role)
            #expect(rule.condition == record.condition)
            #expect(held.indices[slot] == RuleIndex(Int(record.ruleIndex)))
            let start = Int(record.conditionStart)
            #expect(held.conditionEntries(of: UInt32(slot)) == start..<start + Int(record.conditionCount), "slot \(slot)")
        }
    }

    /// Each slot reads its own record's fields, by slot and through `withRecords` alike.
    static func expectEachSlotReads(_ records: [RuleRecord], _ held: HeldRules) {
        held.withRecords { reader in
            for (slot, record) in records.enumerated() {
                for rule in [held[UInt32(slot)], reader[slot]] {
                    guard rule != HeldRule(record) else { continue }
                    Issue.record("slot \(slot) reads \(rule), not \(HeldRule(record))")
                    return
                }
            }
        }
    }

    @Test func equalRecordsAreHeldOnce() {
        // Three records over 1,000 slots, in runs and alone.
        let kinds: [(types: UInt16, location: UInt32)] = [(1, 7), (2, 7), (1, 9)]
        let records = (0..<1_000).map { (slot: Int) -> RuleRecord in
            let kind = kinds[slot % 7 == 0 ? 2 : (slot / 100) % 2]
            return RuleRecord(
                ruleIndex: UInt32(slot), resourceTypes: kind.types, loadTypes: 0, loadContexts: 0, method: 0, condition: .none,
                role: .listed, actionLocation: kind.location, conditionStart: 0, conditionCount: 0)
        }
        let held = HeldRules(records)
        let (distinct, wide) = (held.distinctRecords, held.placesAreWide)
        #expect(distinct == 3)
        #expect(!wide)
        Self.expectEachSlotReads(records, held)
    }

    @Test(arguments: [10, 3_000])
    func recordsInNoOrderAreNumberedOnce(distinctCount: Int) {
        // Each of `distinctCount` records (their words differing in one field or another) used by
        // 4 rules in random order: every rule's record found again past the first table's growth.
        var random = SplitMix64(seed: UInt64(distinctCount))
        let kinds = (0..<distinctCount).map { (kind: Int) -> RuleRecord in
            let (types, loadTypes, location) = (UInt16(kind % 5), UInt8(kind % 3), UInt32(kind / 15))
            return RuleRecord(
                ruleIndex: 0, resourceTypes: types, loadTypes: loadTypes, loadContexts: 0, method: 0, condition: .none,
                role: .listed, actionLocation: location, conditionStart: 0, conditionCount: 0)
        }
        var order = (0..<4 * distinctCount).map { $0 % distinctCount }
        for index in order.indices.reversed() { order.swapAt(index, Int(random.next() % UInt64(index + 1))) }
        let records = order.enumerated().map { (slot: Int, kind: Int) -> RuleRecord in
            var record = kinds[kind]
            record.ruleIndex = UInt32(slot)
            return record
        }
        let held = HeldRules(records)
        let distinct = held.distinctRecords
        #expect(distinct == distinctCount)
        Self.expectEachSlotReads(records, held)
    }

    @Test func flagsAndConditionKeepWhatFlagsReadOnly() {
        // Records of every field drawn at random: the action location and role left out, the
        // resource types, load types, load contexts, method and condition kind kept as they are.
        let records = Self.records(count: 500, seed: 72)
        for record in records {
            let group = HeldRule(record).flagsAndCondition
            var bare = record
            (bare.actionLocation, bare.role, bare.conditionStart, bare.conditionCount) = (0, .listed, 0, 0)
            #expect(group == HeldRule(bare), "\(record)")
            #expect(
                (group.resourceTypes, group.loadTypes, group.loadContexts, group.method, group.condition)
                    == (record.resourceTypes, record.loadTypes, record.loadContexts, record.method, record.condition))
        }
    }

    @Test func placesPastTwoToTheSixteenTakeFourBytes() {
        // One more distinct record than 2 bytes number: each slot still reads its own.
        let count = (1 << 16) + 1
        let records = (0..<count).map { slot in
            RuleRecord(
                ruleIndex: UInt32(slot), resourceTypes: UInt16(slot % 7), loadTypes: 0, loadContexts: 0, method: 0, condition: .none,
                role: .listed, actionLocation: UInt32(slot), conditionStart: 0, conditionCount: 0)
        }
        let held = HeldRules(records)
        let distinct = held.distinctRecords
        #expect(distinct == count)
        let fewer = Array(records[..<(1 << 16)])
        let narrowest = HeldRules(fewer)
        let (wide, narrowestWide) = (held.placesAreWide, narrowest.placesAreWide)
        #expect(wide)
        #expect(!narrowestWide)
        Self.expectEachSlotReads(records, held)
        Self.expectEachSlotReads(fewer, narrowest)
    }

    @Test func everyConditionListIsFoundAcrossWords() {
        // Every slot of three words with a list, then none, then every other: ranks from each
        // word's count and the bits below the slot.
        let records = (0..<320).map { slot in
            let listed = slot < 192 || (slot >= 256 && slot % 2 == 0)
            return RuleRecord(
                ruleIndex: UInt32(slot), resourceTypes: 0, loadTypes: 0, loadContexts: 0, method: 0, condition: listed ? .ifTopURL : .none,
                role: .listed, actionLocation: 0, conditionStart: listed ? UInt32(slot * 3) : 0, conditionCount: listed ? 2 : 0)
        }
        let held = HeldRules(records)
        for (slot, record) in records.enumerated() {
            let start = Int(record.conditionStart)
            #expect(held.conditionEntries(of: UInt32(slot)) == start..<start + Int(record.conditionCount), "slot \(slot)")
        }
    }

    @Test(arguments: [false, true])
    func patternsListTheirSlotsInNarrowOrWideEntries(farApart: Bool) {
        // 200 patterns, every fifth of several rules (not sorted), slots ahead of the patterns'
        // numbers; far apart, some slots further from them than 2 bytes count.
        let lists: [[UInt32]] = (0..<200).map { pattern in
            let slot = UInt32(pattern * 2) + (farApart && pattern >= 192 && pattern % 2 == 1 ? 100_000 : 0)
            return pattern % 5 == 0 ? [slot + 1, slot, slot + 3] : [slot]
        }
        var start: [UInt32] = [0]
        for list in lists { start.append(start.last! + UInt32(list.count)) }
        let rules = URLPatternRules(start: start, slots: lists.flatMap { $0 })
        let wide = rules.entriesAreWide
        #expect(wide == farApart)
        for (pattern, list) in lists.enumerated() {
            var slots: [UInt32] = []
            rules.forEachSlot(of: UInt32(pattern)) { slots.append($0) }
            #expect(slots == list, "pattern \(pattern)")
        }
    }

    @Test func eachPatternListsItsSlots() {
        // Patterns of one slot, of several (in the file's order, not sorted), and of one again.
        let lists: [[UInt32]] = [[4], [0, 7, 2], [9], [1, 3], [8], [5, 6, 10, 11]]
        var start: [UInt32] = [0]
        for list in lists { start.append(start.last! + UInt32(list.count)) }
        let rules = URLPatternRules(start: start, slots: lists.flatMap { $0 })
        for (pattern, list) in lists.enumerated() {
            var slots: [UInt32] = []
            rules.forEachSlot(of: UInt32(pattern)) { slots.append($0) }
            #expect(slots == list)
        }
    }
}
