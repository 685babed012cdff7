// WorkList.swift — ContentBlocker
//
// An answer's working lists (the patterns its URL reported, their rules, the slots and locations
// of those that apply, a page's condition patterns): emptied at every answer and refilled with a
// few elements. An array's append and removal check first that the array is not shared (a call
// per element), and its emptying removes the elements one by one; here the elements lie in an
// allocation of the list's own, written in place: an append writes its element and the count, an
// emptying the count.

/// A list of plain values (no references: `_isPOD`, checked at its first growth) in storage of its
/// own, for working memory kept by one evaluator (or one of its pages) and used in place there. A
/// copy shares the storage (and a write through one is seen by the other until one grows): each
/// list is held in one place and read through others only for as long as it is not written.
struct WorkList<Element> {
    /// The elements' storage, `capacity` of them, freed with `owner` (nil: none yet).
    private var elements: UnsafeMutablePointer<Element>?
    private var capacity = 0
    private var owner: Storage?
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }
    var indices: Range<Int> { 0..<count }

    @inline(__always)
    subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "an index of the list")
            return elements.unsafelyUnwrapped[index]
        }
        set {
            precondition(index >= 0 && index < count, "an index of the list")
            elements.unsafelyUnwrapped[index] = newValue
        }
    }

    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow() }
        (elements.unsafelyUnwrapped + count).initialize(to: element)
        count += 1
    }

    /// The list emptied, its storage kept.
    @inline(__always)
    mutating func removeAll() { count = 0 }

    /// The list less its last `k` elements.
    @inline(__always)
    mutating func removeLast(_ k: Int) {
        precondition(k >= 0 && k <= count, "no more elements removed than the list has")
        count -= k
    }

    /// The elements, read or written in place (valid until the list next grows).
    @inline(__always)
    var buffer: UnsafeMutableBufferPointer<Element> { UnsafeMutableBufferPointer(start: elements, count: count) }

    /// Storage for twice the elements (16 at first), the elements moved there.
    @inline(never)
    private mutating func grow() {
        precondition(_isPOD(Element.self), "plain values, dropped without being destroyed")
        let grown = Storage(capacity: Swift.max(16, capacity * 2))
        if let elements { grown.elements.moveInitialize(from: elements, count: count) }
        (elements, capacity, owner) = (grown.elements, grown.capacity, grown)
    }

    /// An allocation of `capacity` elements, freed with it.
    private final class Storage {
        let elements: UnsafeMutablePointer<Element>
        let capacity: Int

        init(capacity: Int) {
            elements = .allocate(capacity: capacity)
            self.capacity = capacity
        }

        deinit { elements.deallocate() }
    }
}
