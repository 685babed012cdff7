// CompiledRuleList.swift — ContentBlocker
//
// A compiled rule list: made by `RuleListCompiler`, saved and loaded as a file (validated before
// use), and asked what to do with a request. An evaluator keeps what it answers with (the
// programs' images, the tables, the rules as it reads them, indexes of its own): a list kept
// beside it also keeps its programs as read, its patterns' lists of rules and its rule records, so
// an embedder short of memory lets the list go once its evaluators are made, and loads it within
// the dense budget it is to run in.
// Tested by ContentBlockerTests/ContentBlockerTests.swift and PageCacheTests.swift.

public import Bytecode
public import Search
public import ContentRuleList
public import RequestContext
internal import Foundation

public struct CompiledRuleList: Sendable {
    public let file: CompiledFile

    public init(_ file: CompiledFile) {
        self.file = file
    }

    /// Loads a compiled file's bytes; throws before anything runs when they are not a valid file.
    /// `denseBudget`: the memory its programs' dense tables may take (Search/DenseBudget.swift;
    /// `.compact`: every program runs compact, the least memory); the answers are the same at any.
    public init(validating bytes: [UInt8], denseBudget: DenseBudget = .standard) throws(BytecodeError) {
        file = try CompiledFile(validating: bytes, denseBudget: denseBudget)
    }

    /// The file's bytes (always the same for the same list).
    public func serialized() -> [UInt8] { file.serialized() }

    /// Writes the file atomically: a reader sees the old file or the whole new one.
    public func save(to path: String) throws {
        try Data(serialized()).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// Reads and validates a compiled file, its dense tables made within `denseBudget`.
    public static func load(from path: String, denseBudget: DenseBudget = .standard) throws -> CompiledRuleList {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try CompiledRuleList(validating: [UInt8](data), denseBudget: denseBudget)
    }

    /// The budget its dense tables were made within (a list compiled here, not read from a file:
    /// the standard one, which an evaluator makes them within).
    public var denseBudget: DenseBudget { file.denseBudget }

    /// What the list decides for `request` (MatchOutcome.swift). For many requests, reuse an
    /// `Evaluator`: it keeps its working memory between requests.
    public func outcome(for request: Request) -> MatchOutcome {
        let evaluator = Evaluator(self)
        return evaluator.outcome(for: request)
    }

    /// The actions for `request`, in WebKit's order.
    public func actions(for request: Request) -> [Action] { outcome(for: request).actions.flattened }

    /// The whole file as text: counts, rules, actions and every program's disassembly.
    public func disassemble() -> String {
        var lines: [String] = []
        lines.append("compiled rule list, format version \(CompiledFile.version), \(serialized().count) bytes")
        for (kind, bytes) in file.sectionSizes() { lines.append("  section \(kind): \(bytes) bytes") }
        lines.append("rules: \(file.rules.count), url patterns: \(file.urlPatternCount), top-url patterns: \(file.topPatternCount), frame-url patterns: \(file.framePatternCount)")
        for pattern in 0..<file.urlPatternCount {
            let rules = file.patternRules[Int(file.patternRuleStart[pattern])..<Int(file.patternRuleStart[pattern + 1])]
            lines.append("  p\(pattern) -> slots \(rules.map(String.init).joined(separator: " "))")
        }
        if !file.universalRules.isEmpty {
            lines.append("  every URL -> slots \(file.universalRules.map(String.init).joined(separator: " "))")
        }
        for (slot, rule) in file.rules.enumerated() {
            var parts = ["slot \(slot): rule \(rule.ruleIndex)", "role \(rule.role)"]
            if rule.actionLocation != RuleRecord.notListed { parts.append("action a\(rule.actionLocation)") }
            if rule.resourceTypes != 0 { parts.append("types 0x\(String(rule.resourceTypes, radix: 16))") }
            if rule.loadTypes != 0 { parts.append("load-type \(rule.loadTypes)") }
            if rule.loadContexts != 0 { parts.append("load-context \(rule.loadContexts)") }
            if rule.method != 0 { parts.append("method \(RequestMethod.allCases[Int(rule.method) - 1])") }
            if rule.condition != .none {
                let entries = file.conditions[Int(rule.conditionStart)..<Int(rule.conditionStart + rule.conditionCount)]
                parts.append("\(rule.condition) \(entries.map { "p\($0)" }.joined(separator: " "))")
            }
            lines.append("  " + parts.joined(separator: ", "))
        }
        lines.append("actions: \(file.actions.count)")
        for (location, action) in file.actions.enumerated() { lines.append("  a\(location): \(action)") }
        for (name, programs) in [("url", file.urlPrograms), ("top-url", file.topURLPrograms), ("frame-url", file.framePrograms)]
        where !programs.isEmpty {
            lines.append(programs.disassemble(name: name))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
