// Parallel.swift — Automata
//
// Independent work on every core: the partitioner's groups, the programs of their DFAs. The
// results come back in the order of the items, whatever the scheduling, so that a compiled file
// is the same bytes every time.

import Dispatch

public enum Parallel {
    /// `transform` applied to every item, on as many threads as there are cores (the calling
    /// thread included), results in the items' order.
    public static func map<Item: Sendable, Result: Sendable>(
        _ items: [Item], _ transform: @escaping @Sendable (Int, Item) -> Result
    ) -> [Result] {
        guard items.count > 1 else { return items.enumerated().map { transform($0.offset, $0.element) } }
        nonisolated(unsafe) let results = UnsafeMutableBufferPointer<Result?>.allocate(capacity: items.count)
        results.initialize(repeating: nil)
        defer {
            results.deinitialize()
            results.deallocate()
        }
        // Each worker writes only its own index of the results and reads the items, which nobody
        // writes while it runs.
        DispatchQueue.concurrentPerform(iterations: items.count) { index in
            results[index] = transform(index, items[index])
        }
        return results.map { $0! }
    }
}
