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
    /// `insertions[k].element` stands before `base[insertions[k].offset]` (at the end for
    /// `base.count`); offsets never decrease, and insertions at the same offset keep their order.
    /// (One array, kept as given: an outcome's list costs one allocation, not a copy.)
    @usableFromInline var insertions: [(offset: Int, element: Element)]

    @inlinable
    public init(_ elements: [Element]) {
        base = elements
        insertions = []
    }

    /// `base` with each `(offset, element)` inserted before `base[offset]`; offsets in
    /// nondecreasing order.
    @inlinable
    public init(base: [Element], inserting insertions: [(offset: Int, element: Element)]) {
        var previous = 0
        for insertion in insertions {
            precondition(insertion.offset >= previous && insertion.offset <= base.count, "insertions out of order or outside the base")
            previous = insertion.offset
        }
        self.base = base
        self.insertions = insertions
    }

    /// The elements as one array.
    @inlinable public var flattened: [Element] {
        if insertions.isEmpty { return base }
        var elements: [Element] = []
        elements.reserveCapacity(count)
        var from = 0
        for (offset, element) in insertions {
            elements.append(contentsOf: base[from..<offset])
            elements.append(element)
            from = offset
        }
        elements.append(contentsOf: base[from...])
        return elements
    }

    @usableFromInline mutating func flatten() {
        guard !insertions.isEmpty else { return }
        base = flattened
        insertions = []
    }
}

extension SharedList: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    public typealias Index = Int

    @inlinable public init() { self.init([]) }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { base.count + insertions.count }

    @inlinable
    public subscript(position: Int) -> Element {
        get {
            if insertions.isEmpty { return base[position] }
            // Insertion k sits at position offset k + k (strictly increasing in k): find how many
            // sit before `position`, or the one at it.
            var low = 0
            var high = insertions.count
            while low < high {
                let middle = (low + high) / 2
                if insertions[middle].offset + middle < position { low = middle + 1 } else { high = middle }
            }
            if low < insertions.count && insertions[low].offset + low == position { return insertions[low].element }
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
            if insertion < list.insertions.count && list.insertions[insertion].offset == baseIndex {
                defer { insertion += 1 }
                return list.insertions[insertion].element
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
