// HeldMemory.swift — Search
//
// What a loaded list holds in memory, by structure: the bytes of each of its structures (an
// array's elements and its storage's header; a table's own allocation, `TableMemory`, and the rest
// of the huge pages it was mapped on; the few words of an object that holds them are left out).
// The same file gives the same figures whatever the allocator, the threads or the machine did,
// where the resident memory a load adds (Engines/ResidentAfterLoad.swift) moves with the
// allocator's arenas and whether the system gave huge pages: it is the figure the gate can hold,
// and the breakdown says where a list's memory goes. Arrays' capacity past their elements (what
// appending grew, what the allocator rounded up) is counted apart (`spareCapacity`): it is real
// memory, but how much the allocator gives depends on what it holds already. What a loaded list
// keeps is counted; the working memory requests grow (an evaluator's pages) and the allocator's
// own overhead are not.
// Tested by ContentBlockerTests/HeldMemoryTests.swift and SearchTests/TableMemoryTests.swift.

/// The bytes a loaded list's structures hold, by structure, in the order first counted.
public struct HeldMemory: Hashable, Sendable, Codable {
    public struct Part: Hashable, Sendable, Codable {
        public var name: String
        public var bytes: Int

        public init(name: String, bytes: Int) {
            self.name = name
            self.bytes = bytes
        }
    }

    public private(set) var parts: [Part] = []
    /// Beside the total, the bytes of arrays' capacity past their elements (grown by appending,
    /// rounded up by the allocator): not the same on every load.
    public private(set) var spareCapacity = 0

    public init() {}

    public var total: Int { parts.reduce(0) { $0 + $1.bytes } }

    /// Adds `bytes` to the part `name` (made when new).
    public mutating func add(_ name: String, _ bytes: Int) {
        guard bytes != 0 else { return }
        if let index = parts.firstIndex(where: { $0.name == name }) {
            parts[index].bytes += bytes
        } else {
            parts.append(Part(name: name, bytes: bytes))
        }
    }

    /// Adds an array's storage to the part `name`.
    public mutating func add<Element>(_ name: String, array: [Element]) {
        add(name, Self.bytes(of: array))
        spareCapacity += (array.capacity - array.count) * MemoryLayout<Element>.stride
    }

    /// Every part of `other`, its names prefixed with `prefix`.
    public mutating func add(_ other: HeldMemory, prefix: String = "") {
        for part in other.parts { add(prefix + part.name, part.bytes) }
        spareCapacity += other.spareCapacity
    }

    /// An array's storage: its header (two words of object header, its count and its capacity)
    /// and its elements; nothing for an empty array, which shares one empty storage.
    public static func bytes<Element>(of array: [Element]) -> Int {
        array.capacity == 0 ? 0 : arrayHeader + array.count * MemoryLayout<Element>.stride
    }

    /// The bytes before an array's elements in its storage.
    public static let arrayHeader = 32
}

extension TableMemory {
    /// The bytes asked for, and those mapped beyond them (the rest of the huge pages it lies on).
    func held(_ name: String, into memory: inout HeldMemory) {
        memory.add(name, byteCount)
        memory.add("huge-page rounding", mappedLength > 0 ? mappedLength - byteCount : 0)
    }
}

extension Array {
    /// The same elements in storage of their count, where this array's has room for more than an
    /// eighth again (an array grown by appending, kept for as long as the list is loaded).
    /// (Copied element by element into new storage: an array made of a slice of all of another
    /// shares that one's storage.)
    package func fitted() -> [Element] {
        guard capacity - count > count / 8 else { return self }
        // (The empty list, not one made of no capacity: making that writes the count of the
        // storage every empty array shares, a race between threads loading lists.)
        guard count > 0 else { return [] }
        return withUnsafeBufferPointer { elements in
            [Element](unsafeUninitializedCapacity: elements.count) { storage, initialized in
                if let base = elements.baseAddress { storage.baseAddress!.initialize(from: base, count: elements.count) }
                initialized = elements.count
            }
        }
    }
}
