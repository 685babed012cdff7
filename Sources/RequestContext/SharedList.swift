// SharedList.swift — RequestContext
//
// A list stored as a base array with a few of its elements removed and a few inserted. The
// evaluator answers the requests of one page from lists it keeps per set of flags (EasyList:
// thousands of rules that match every URL of most pages, and their css-display-none actions): a
// page's list is that
// array less the rules its conditions turn off and with those they turn on, and each outcome shares
// the array (copy on write, no copy) with the page's edits and the few rules its own URL matched. An
// outcome then costs its edits, not the page's thousands of rules.
//
// The inserted elements are read from a shared array too (`pool`: the engine's every action, or
// every rule's index), so that an insertion is two numbers: a page's or a request's edits are
// made and freed without a reference count touched per element (an action is a reference).
//
// It is a list like any other: equality, hashing, printing and iteration see the elements only,
// never how they are stored, so an outcome built this way equals the reference's plain arrays.
// Mutating it first flattens it into one array.
// Tested by ContentBlockerTests/PageCacheTests.swift.

/// One inserted element of a `SharedList`: `pool[element]` stands before `base[offset]` (at the
/// end for `base.count`). Not generic, so that one array of them can serve lists of any element
/// (the evaluator keeps a page's edits as such an array and hands it to each outcome as is).
public struct ListInsertion: Sendable, Equatable {
    public var offset: UInt32
    public var element: UInt32
    @inlinable public init(offset: UInt32, element: UInt32) {
        self.offset = offset
        self.element = element
    }
}

/// What the lists of one page share: the base, the offsets of it left out, and the elements
/// insertions read (`pool`). One reference: an outcome's list costs one retain of it and its
/// own insertions. (Not nested in `SharedList`, so that its elements need not be `Hashable`: a
/// generic class whose parameter has a protocol requirement costs its first use in a process a
/// runtime search of the binary's conformances.)
public final class SharedListStorage<Element: Sendable>: Sendable {
    public let base: [Element]
    /// Increasing offsets of `base`.
    public let removals: [Int]
    public let pool: [Element]

    @inlinable
    public init(base: [Element], removing removals: [Int] = [], pool: [Element] = []) {
        var previous = -1
        for offset in removals {
            precondition(offset > previous && offset < base.count, "removals out of order or outside the base")
            previous = offset
        }
        self.base = base
        self.removals = removals
        self.pool = pool
    }
}

public struct SharedList<Element: Hashable & Sendable>: Sendable {
    /// What the lists of one page share (`SharedListStorage`).
    public typealias Shared = SharedListStorage<Element>

    @usableFromInline var shared: Shared
    /// The insertions: offsets never decrease, and insertions at the same offset keep their
    /// order. One array, kept as given (an outcome's list costs one allocation, not a copy), or,
    /// for a list of one insertion (a request's one rule of its own, most often), `lone` and no
    /// array at all.
    @usableFromInline var spilled: [ListInsertion]
    /// The one insertion when `spilled` is empty; `noInsertion` (offset `UInt32.max`) for none.
    @usableFromInline var lone: ListInsertion

    @usableFromInline static var noInsertion: ListInsertion { ListInsertion(offset: .max, element: .max) }

    /// How many insertions the list has.
    @inlinable var insertionCount: Int { spilled.isEmpty ? (lone.offset == .max ? 0 : 1) : spilled.count }
    /// Insertion `k`.
    @inlinable func insertion(_ k: Int) -> ListInsertion { spilled.isEmpty ? lone : spilled[k] }

    /// The shared elements.
    @inlinable var base: [Element] { shared.base }
    /// The offsets of `base` left out, increasing.
    @inlinable var removals: [Int] { shared.removals }
    /// Where the inserted elements are.
    @inlinable var pool: [Element] { shared.pool }

    @inlinable
    public init(_ elements: [Element]) {
        shared = Shared(base: elements)
        spilled = []
        lone = Self.noInsertion
    }

    /// `base` with each `(offset, element)` inserted before `base[offset]`; offsets in
    /// nondecreasing order.
    @inlinable
    public init(base: [Element], inserting insertions: [(offset: Int, element: Element)]) {
        self.init(base: base, removing: [], inserting: insertions)
    }

    /// `base` without the elements at `removals` (increasing offsets) and with each
    /// `(offset, element)` inserted before `base[offset]` (offsets in nondecreasing order).
    @inlinable
    public init(base: [Element], removing removals: [Int], inserting insertions: [(offset: Int, element: Element)]) {
        precondition(insertions.allSatisfy { $0.offset >= 0 && $0.offset <= base.count }, "insertions outside the base")
        self.init(
            Shared(base: base, removing: removals, pool: insertions.map(\.element)),
            inserting: insertions.enumerated().map { ListInsertion(offset: UInt32($0.element.offset), element: UInt32($0.offset)) })
    }

    /// `shared`'s base less its removals, with `shared.pool[i.element]` inserted before
    /// `base[i.offset]` for each insertion `i` (offsets in nondecreasing order).
    @inlinable
    public init(_ shared: Shared, inserting insertions: [ListInsertion]) {
        Self.check(insertions, within: shared)
        self.shared = shared
        spilled = insertions
        lone = Self.noInsertion
    }

    /// `shared`'s base less its removals, with `shared.pool[insertion.element]` inserted before
    /// `base[insertion.offset]`: no array allocated for the one insertion.
    @inlinable
    public init(_ shared: Shared, inserting insertion: ListInsertion) {
        Self.check(insertion, within: shared)
        self.shared = shared
        spilled = []
        lone = insertion
    }

    /// This list made `SharedList(shared, inserting: insertions)` in place. A list made again and
    /// again over one page's `shared` (an evaluator's outcomes in reused storage) keeps the
    /// reference it holds rather than retaining it anew and releasing the old one, and a list
    /// without insertions keeps its empty array as it is. (`shared` unretained: the caller holds
    /// it for the call.)
    @inlinable
    public mutating func reshare(_ shared: Unmanaged<Shared>, inserting insertions: consuming [ListInsertion]) {
        shared._withUnsafeGuaranteedRef { shared in
            Self.check(insertions, within: shared)
            if self.shared !== shared { self.shared = shared }
        }
        if !(spilled.isEmpty && insertions.isEmpty) { spilled = insertions }
        lone = Self.noInsertion
    }

    /// This list made `SharedList(shared, inserting: Array(insertions))` in place, the insertions
    /// copied into the list's own array: its storage, kept from the lists made before when nothing
    /// else holds it, serves again, so that a list remade with several insertions (an evaluator's
    /// outcome with several rules of its own) allocates none.
    @inlinable
    public mutating func reshare(_ shared: Unmanaged<Shared>, copying insertions: UnsafeBufferPointer<ListInsertion>) {
        shared._withUnsafeGuaranteedRef { shared in
            Self.check(insertions, within: shared)
            if self.shared !== shared { self.shared = shared }
        }
        if !(spilled.isEmpty && insertions.isEmpty) { spilled.replaceSubrange(spilled.startIndex..<spilled.endIndex, with: insertions) }
        lone = Self.noInsertion
    }

    /// This list made `SharedList(shared, inserting: insertion)` in place, as
    /// `reshare(_:inserting:)` makes it (the spilled array emptied with its storage kept, for the
    /// next list with several).
    @inlinable
    public mutating func reshare(_ shared: Unmanaged<Shared>, inserting insertion: ListInsertion) {
        shared._withUnsafeGuaranteedRef { shared in
            Self.check(insertion, within: shared)
            if self.shared !== shared { self.shared = shared }
        }
        if !spilled.isEmpty { spilled.removeAll(keepingCapacity: true) }
        lone = insertion
    }

    @inlinable
    static func check<Insertions: Sequence<ListInsertion>>(_ insertions: Insertions, within shared: Shared) {
        var previous: UInt32 = 0
        for insertion in insertions {
            precondition(
                insertion.offset >= previous && insertion.offset <= shared.base.count && insertion.element < shared.pool.count,
                "insertions out of order or outside the base or the pool")
            previous = insertion.offset
        }
    }

    @inlinable
    static func check(_ insertion: ListInsertion, within shared: Shared) {
        precondition(
            insertion.offset <= shared.base.count && insertion.element < shared.pool.count, "an insertion outside the base or the pool")
    }

    /// The elements as one array.
    @inlinable public var flattened: [Element] {
        if insertionCount == 0 && removals.isEmpty { return base }
        var elements: [Element] = []
        elements.reserveCapacity(count)
        elements.append(contentsOf: self)
        return elements
    }

    /// The element insertion `k` inserts.
    @inlinable func inserted(_ k: Int) -> Element { pool[Int(insertion(k).element)] }

    /// How many of `sorted`'s values (increasing) are below `value`.
    @inlinable static func countBelow(_ value: Int, in sorted: [Int]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// How many insertions stand at offsets below `offset`.
    @inlinable func insertionsBelow(_ offset: Int) -> Int {
        var low = 0
        var high = insertionCount
        while low < high {
            let middle = (low + high) / 2
            if Int(insertion(middle).offset) < offset { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension SharedList: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    public typealias Index = Int

    @inlinable public init() { self.init([]) }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { base.count - removals.count + insertionCount }
    /// (The count without the collection's generic distance: a caller asks it of every outcome.)
    @inlinable public var count: Int { endIndex }

    @inlinable
    public subscript(position: Int) -> Element {
        get {
            if removals.isEmpty { return unremoved(position) }
            // The elements of base offset `o` (its insertions, then base[o] unless removed) start at
            // position o - (removals below o) + (insertions below o), nondecreasing in o: the last
            // offset starting at or before `position` holds it.
            var low = 0
            var high = base.count
            while low < high {
                let middle = (low + high + 1) / 2
                if middle - Self.countBelow(middle, in: removals) + insertionsBelow(middle) <= position {
                    low = middle
                } else {
                    high = middle - 1
                }
            }
            let first = insertionsBelow(low)
            let within = position - (low - Self.countBelow(low, in: removals) + first)
            if first + within < insertionCount && Int(insertion(first + within).offset) == low { return inserted(first + within) }
            return base[low]
        }
        set {
            var elements = flattened
            elements[position] = newValue
            self = SharedList(elements)
        }
    }

    /// The element at `position` of a list without removals.
    @inlinable func unremoved(_ position: Int) -> Element {
        if insertionCount == 0 { return base[position] }
        // Insertion k sits at position offset k + k (strictly increasing in k): find how many
        // sit before `position`, or the one at it.
        var low = 0
        var high = insertionCount
        while low < high {
            let middle = (low + high) / 2
            if Int(insertion(middle).offset) + middle < position { low = middle + 1 } else { high = middle }
        }
        if low < insertionCount && Int(insertion(low).offset) + low == position { return inserted(low) }
        return base[position - low]
    }

    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Element {
        var elements = flattened
        elements.replaceSubrange(subrange, with: newElements)
        self = SharedList(elements)
    }

    public struct Iterator: IteratorProtocol {
        @usableFromInline let list: SharedList
        @usableFromInline var baseIndex = 0
        @usableFromInline var insertion = 0
        @usableFromInline var removal = 0

        @inlinable init(_ list: SharedList) { self.list = list }

        @inlinable
        public mutating func next() -> Element? {
            while true {
                if insertion < list.insertionCount && Int(list.insertion(insertion).offset) == baseIndex {
                    defer { insertion += 1 }
                    return list.inserted(insertion)
                }
                guard baseIndex < list.base.count else { return nil }
                if removal < list.removals.count && list.removals[removal] == baseIndex {
                    removal += 1
                    baseIndex += 1
                    continue
                }
                defer { baseIndex += 1 }
                return list.base[baseIndex]
            }
        }
    }

    @inlinable public func makeIterator() -> Iterator { Iterator(self) }
}

extension SharedList: Hashable {
    public static func == (lhs: SharedList, rhs: SharedList) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for element in self { hasher.combine(element) }
    }
}

extension SharedList: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: Element...) { self.init(elements) }
}

extension SharedList: CustomStringConvertible {
    public var description: String { flattened.description }
}
