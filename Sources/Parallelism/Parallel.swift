// Parallel.swift — Parallelism
//
// Independent work on every core: the rule list's patterns parsed in chunks, the partitioner's
// groups, the programs of their DFAs, and the condition programs beside the url patterns'
// planning. The results come back in the order of the items, whatever the scheduling, so that a
// compiled file is the same bytes every time.
//
// `Parallel.isSerial` runs all of it on the calling thread, in order: the same results, with the
// same instructions executed and the same heap at every point from run to run (what an exact
// cost measure counts; with threads, their interleaving moves both).
// Tested through its callers: every test that compiles on every core, and GateTests
// (CostGateTests), which counts a serial compile.

import Dispatch
import Synchronization

public enum Parallel {
    private static let serial = Atomic<Bool>(false)

    /// Whether work runs on the calling thread only (set once, before any work, by a process
    /// that counts instructions or heap bytes).
    public static var isSerial: Bool {
        get { serial.load(ordering: .relaxed) }
        set { serial.store(newValue, ordering: .relaxed) }
    }

    /// `body(index)` for every index of `0..<iterations`, on every core (the calling thread
    /// included), in no particular order; in order on the calling thread when serial.
    public static func forEach(iterations: Int, _ body: @Sendable (Int) -> Void) {
        if isSerial {
            for index in 0..<iterations { body(index) }
        } else {
            DispatchQueue.concurrentPerform(iterations: iterations, execute: body)
        }
    }

    /// `transform` applied to every item, on as many threads as there are cores (the calling
    /// thread included), results in the items' order. The items are handed over: each is moved
    /// to the worker that transforms it, so that a caller passing its last reference has each
    /// item freed as soon as its transform is done with it, not when every item is.
    public static func map<Item: Sendable, Result: Sendable>(
        handingOver items: consuming [Item], _ transform: @escaping @Sendable (Int, consuming Item) -> Result
    ) -> [Result] {
        let count = items.count
        if isSerial {
            var results: [Result] = []
            results.reserveCapacity(count)
            var remaining = consume items
            remaining.reverse()
            for index in 0..<count { results.append(transform(index, remaining.removeLast())) }
            return results
        }
        nonisolated(unsafe) let handedOver = UnsafeMutableBufferPointer<Item>.allocate(capacity: count)
        _ = handedOver.initialize(from: consume items)
        nonisolated(unsafe) let results = UnsafeMutableBufferPointer<Result?>.allocate(capacity: count)
        results.initialize(repeating: nil)
        defer {
            handedOver.deallocate()
            results.deinitialize()
            results.deallocate()
        }
        // Each worker moves out only its own item and writes only its own result.
        DispatchQueue.concurrentPerform(iterations: count) { index in
            results[index] = transform(index, (handedOver.baseAddress! + index).move())
        }
        return results.map { $0! }
    }

    /// `first(input)` on a thread of its own while the calling thread runs `second`; both results
    /// once both are done. The input is handed over (a caller passing its last reference lets
    /// `first` edit it in place and free it). Unlike two items of `map`, `second` may itself use
    /// `map` on every core: libdispatch runs a `concurrentPerform` inside another on the cores
    /// divided by the outer iteration count, which would leave the bigger job on one core.
    public static func both<Input: Sendable, First: Sendable, Second>(
        _ input: consuming Input, _ first: @escaping @Sendable (consuming Input) -> First, _ second: () -> Second
    ) -> (First, Second) {
        if isSerial {
            let firstResult = first(consume input)
            return (firstResult, second())
        }
        nonisolated(unsafe) let handedOver = UnsafeMutablePointer<Input>.allocate(capacity: 1)
        handedOver.initialize(to: input)
        nonisolated(unsafe) let firstResult = UnsafeMutablePointer<First>.allocate(capacity: 1)
        defer {
            handedOver.deallocate()
            firstResult.deallocate()
        }
        let done = DispatchSemaphore(value: 0)
        // The other thread takes the input and writes the result before it signals; this one
        // reads the result after waiting.
        DispatchQueue.global().async {
            firstResult.initialize(to: first(handedOver.move()))
            done.signal()
        }
        let secondResult = second()
        done.wait()
        return (firstResult.move(), secondResult)
    }
}
