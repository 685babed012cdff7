// HeldMemoryTests.swift — what a loaded list holds, by structure (Search/HeldMemory.swift): the
// same figures for the same file on every load, each structure a list has counted, a total that
// is the sum of its parts, and arrays grown by appending kept in storage of their size.

import Testing
import ContentBlocker
import Search

@Suite struct HeldMemoryTests {
    /// Rules of each structure's shape: `||domain^` (the domain table), `if-domain` (the domain
    /// condition table), patterns the automata hold, and css-display-none actions with selectors
    /// past a string's inline bytes.
    static let json = """
        [
          {"trigger":{"url-filter":"^[^:]+://+([^:/]+\\\\.)?ads\\\\.example\\\\.com[/:]"},"action":{"type":"block"}},
          {"trigger":{"url-filter":"^[^:]+://+([^:/]+\\\\.)?track\\\\.example\\\\.net[/:]"},"action":{"type":"block"}},
          {"trigger":{"url-filter":"banner[0-9]+\\\\.gif"},"action":{"type":"block"}},
          {"trigger":{"url-filter":"/pixel\\\\?id="},"action":{"type":"block"}},
          {"trigger":{"url-filter":".*","if-domain":["news.example.org","*shop.example"]},
           "action":{"type":"css-display-none","selector":".advertisement-container-with-a-long-name"}}
        ]
        """

    private static func load() throws -> Evaluator {
        let (compiled, _) = try RuleListCompiler.compile(json: Array(json.utf8))
        return Evaluator(try CompiledRuleList(validating: compiled.serialized()))
    }

    @Test func aFileHoldsTheSameOnEveryLoad() throws {
        let (first, second) = (try Self.load().heldMemory, try Self.load().heldMemory)
        // (Their arrays' spare capacity is the allocator's, not the file's: not compared.)
        #expect(first.parts == second.parts)
        #expect(first.total == first.parts.reduce(0) { $0 + $1.bytes })
    }

    @Test func eachStructureOfTheListIsCounted() throws {
        let held = try Self.load().heldMemory
        let names = Set(held.parts.map(\.name))
        for name in [
            "image: code, class maps and entries, packed", "image: dense tables", "domain table: index",
            "domain condition table: entries", "domain condition table: index", "rules", "pattern rule slots", "actions",
            "evaluator: rule indexes",
        ] {
            #expect(names.contains(name), "\(name) in \(names.sorted())")
        }
        #expect(held.parts.allSatisfy { $0.bytes > 0 })
        // (The programs as read are not kept: a run reads their image, `ProgramSet.runOnly()`.)
        #expect(!names.contains("programs: compact code and class maps"))
        // (The domain table's entries, patterns too, are kept in its index alone: `compacted()`.)
        #expect(!names.contains("domain table: entries"))
    }

    /// The working memory held at load is the pattern marks, a bit a pattern: not a slot per rule
    /// and per action (the lists an answer fills grow to what the requests asked need).
    @Test func workingMemoryAtLoadIsNotASlotPerRule() throws {
        let rules = (0..<3_000).map { #"{"trigger":{"url-filter":"banner\#($0)x"},"action":{"type":"block"}}"# }
        let (compiled, _) = try RuleListCompiler.compile(json: Array(("[" + rules.joined(separator: ",") + "]").utf8))
        let held = Evaluator(try CompiledRuleList(validating: compiled.serialized())).heldMemory
        let working = held.parts.first { $0.name == "evaluator: working memory" }?.bytes ?? 0
        #expect(working > 0 && working < 3_000 * MemoryLayout<UInt32>.size, "\(working) bytes")
    }

    @Test func partsAddUp() {
        var memory = HeldMemory()
        memory.add("a", 10)
        memory.add("b", array: [UInt32](repeating: 0, count: 4))
        memory.add("a", 5)
        var other = HeldMemory()
        other.add("a", 1)
        other.add("c", 2)
        memory.add(other)
        #expect(memory.parts.map(\.name) == ["a", "b", "c"])
        #expect(memory.parts.map(\.bytes) == [16, HeldMemory.bytes(of: [UInt32](repeating: 0, count: 4)), 2])
        #expect(HeldMemory.bytes(of: [UInt8]()) == 0)
    }
}
