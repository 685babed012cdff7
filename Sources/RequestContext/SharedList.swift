// SharedList.swift — RequestContext
//
// A list stored as a base array plus a few elements inserted into it. The evaluator answers the
// requests of one page from a list it computed once for the page (EasyList: ~6,000 rules that match
// every URL of most pages, ~270 css-display-none actions): each outcome shares that array (copy on
// write, no copy) and adds the few rules its own URL matched. An outcome then costs its own
// insertions, not the page's thousands of rules.
//
// It is a list like any other: equality, hashing, printing and iteration see the elements only,
// never how they are stored, so an outcome built this way equals the reference's plain arrays.
// Mutating it first flattens it into one array.

public struct SharedList<Element: Hashable & Sendable>: Sendable {
    /// The shared elements.
    @usableFromInline var base: [Element]
    /// `inserted[k]` stands before `base[offsets[k]]` (at the end for `base.count`); `offsets`
    /// never decreases, and insertions at the same offset keep their order.
    @usableFromInline var offsets: [Int]
    @usableFromInline var inserted: [Element]

    @inlinable
    public init(_ elements: [Element]) {
        base = elements
        offsets = []
        inserted = []
    }

    /// `base` with each `(offset, element)` inserted before `base[offset]`; offsets in
    /// nondecreasing order.
    @inlinable
    public init(base: [Element], inserting insertions: [(offset: Int, element: Element)]) {
        self.base = base
        offsets = []
        inserted = []
        offsets.reserveCapacity(insertions.count)
        inserted.reserveCapacity(insertions.count)
        for (offset, element) in insertions {
            precondition(offset >= (offsets.last ?? 0) && offset <= base.count, "insertions out of order or outside the base")
            offsets.append(offset)
            inserted.append(element)
        }
    }

    /// The elements as one array.
    @inlinable public var flattened: [Element] {
        if inserted.isEmpty { return base }
        var elements: [Element] = []
        elements.reserveCapacity(count)
        var from = 0
        for (offset, element) in zip(offsets, inserted) {
            elements.append(contentsOf: base[from..<offset])
            elements.append(element)
            from = offset
        }
        elements.append(contentsOf: base[from...])
        return elements
    }

    @usableFromInline mutating func flatten() {
        guard !inserted.isEmpty else { return }
        base = flattened
        offsets = []
        inserted = []
    }
}

extension SharedList: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    public typealias Index = Int

    @inlinable public init() { self.init([]) }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { base.count + inserted.count }

    @inlinable
    public subscript(position: Int) -> Element {
        get {
            if inserted.isEmpty { return base[position] }
            // Insertion k sits at position offsets[k] + k (strictly increasing in k): find how many
            // sit before `position`, or the one at it.
            var low = 0
            var high = inserted.count
            while low < high {
                let middle = (low + high) / 2
                if offsets[middle] + middle < position { low = middle + 1 } else { high = middle }
            }
            if low < inserted.count && offsets[low] + low == position { return inserted[low] }
            return base[position - low]
        }
        set {
            flatten()
            base[position] = newValue
        }
    }

    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Element {
        flatten()
        base.replaceSubrange(subrange, with: newElements)
    }

    public struct Iterator: IteratorProtocol {
        @usableFromInline let list: SharedList
        @usableFromInline var baseIndex = 0
        @usableFromInline var insertion = 0

        @inlinable init(_ list: SharedList) { self.list = list }

        @inlinable
        public mutating func next() -> Element? {
            if insertion < list.inserted.count && list.offsets[insertion] == baseIndex {
                defer { insertion += 1 }
                return list.inserted[insertion]
            }
            guard baseIndex < list.base.count else { return nil }
            defer { baseIndex += 1 }
            return list.base[baseIndex]
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
