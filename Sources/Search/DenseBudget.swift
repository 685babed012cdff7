// DenseBudget.swift — Search
//
// What a loaded list's dense tables (DenseTable.swift) may take: the load option an embedder sets
// to trade the speed of each step for memory. A program expanded into a dense table takes a step
// as one read; left compact, a step decodes its state's header and scans its exceptions, from the
// compact code the list holds anyway. A list's programs are expanded in the order that saves the
// most steps (ProgramSet.swift: its url set's whole programs and products, then the prefixes that
// are run, then the suffixes and the gated groups' programs; then its top-url set's, then its
// frame-url set's) while their entries fit the budget; the others run compact. The answers are the
// same at every budget: a table takes exactly the steps and reports exactly what its program does.
// Tested by ConformanceTests/DenseBudgetTests.swift.

/// At most how many dense table entries a list loads (`CompiledRuleList(validating:denseBudget:)`,
/// `Evaluator`, `ContentBlockers`), two bytes each (a narrow table's entries, one byte each,
/// `DenseTable.narrow`, count two to one).
public struct DenseBudget: Hashable, Sendable, CustomStringConvertible {
    /// The entries (states x row width) its tables may hold in all.
    public let entries: Int

    /// At most `entries` entries (0: none).
    public init(entries: Int) {
        self.entries = max(0, entries)
    }

    /// At most `bytes` bytes of entries (rounded down to whole entries).
    public init(bytes: Int) {
        self.init(entries: max(0, bytes) / MemoryLayout<UInt16>.size)
    }

    /// The bytes its entries take.
    public var bytes: Int { entries * MemoryLayout<UInt16>.size }

    /// No dense table: every program runs from its compact code, the least memory a list can be
    /// loaded in and the most work a step. (Not `none`: where a `DenseBudget?` is asked for, that
    /// would be read as nil, the list's own budget.)
    public static let compact = DenseBudget(entries: 0)

    /// The default (`DenseTable.budget`): room for the whole programs and most of the rest of the
    /// largest shipped lists, whose steps the compact form would decode one by one.
    public static let standard = DenseBudget(entries: DenseTable.budget)

    /// What is left of this budget after `used` entries.
    public func less(_ used: Int) -> DenseBudget { DenseBudget(entries: entries - used) }

    public var description: String { "\(bytes) bytes of dense tables" }
}
