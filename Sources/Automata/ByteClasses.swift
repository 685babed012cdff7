// ByteClasses.swift — Automata
//
// Alphabet compression: the bytes 0...127 split into the classes no transition tells apart. A
// rule list's patterns typically need 30 to 60 classes instead of 128 bytes, which shrinks every
// transition table by the same factor. Bytes 128...255 never occur in a canonical URL; they form
// no class and stop every automaton.
// Tested by AutomataTests/AutomataTests.swift.

public import URLFilterSyntax

public struct ByteClasses: Hashable, Sendable {
    /// The class of each byte 0...127.
    public let classOfByte: [UInt8]
    public let count: Int

    /// The coarsest partition of 0...127 in which every set of `sets` is a union of classes.
    /// Classes are numbered by their smallest byte (so the order of `sets` does not matter).
    public init<S: Sequence>(refining sets: S) where S.Element == ASCIISet {
        self.init(singling: ASCIISet(), refining: sets)
    }

    /// The same for `sets` and a set of one byte for each byte of `singles`: those bytes each
    /// start in a class of their own (an automaton's edges are mostly single characters, each of
    /// which would otherwise be a set read in turn).
    init<S: Sequence>(singling singles: ASCIISet, refining sets: S) where S.Element == ASCIISet {
        // The working tables on the stack (bytes: a class, its size, its number are at most 128,
        // and so small the allocation is not made on the heap): as arrays, each would be
        // allocated through the standard library's unspecialized code and checked for uniqueness
        // on every write, most of the partition's cost for a group's few sets.
        (classOfByte, count) = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Scratch.entries) { scratch in
            scratch.initialize(repeating: 0)
            return Self.partition(singling: singles, refining: sets, scratch: scratch.baseAddress!)
        }
    }

    /// Where the partition's six tables lie in its scratch, one entry per byte or per class each
    /// (there are at most 128 classes, numbered below 128, since every class holds a byte).
    private enum Scratch {
        static let table = 128
        static let classOf = 0, inSet = classOf + table, movedTo = inSet + table, touched = movedTo + table
        static let number = touched + table, size = number + table
        static let entries = size + table
    }

    /// The partition of `init(singling:refining:)` in `scratch` (`Scratch.entries` zeroed entries):
    /// the class of each byte, numbered by its smallest byte, and how many classes.
    private static func partition<S: Sequence>(
        singling singles: ASCIISet, refining sets: S, scratch: UnsafeMutablePointer<UInt8>
    ) -> ([UInt8], Int) where S.Element == ASCIISet {
        // Each set splits every class it covers in part: its members there move to a new class.
        // Only the set's members are read (most of an automaton's sets are a character or two),
        // and the classes are renumbered by their smallest byte once, at the end.
        let classOf = scratch + Scratch.classOf, inSet = scratch + Scratch.inSet, movedTo = scratch + Scratch.movedTo
        let touched = scratch + Scratch.touched, number = scratch + Scratch.number, size = scratch + Scratch.size
        var count: UInt8 = 1
        size[0] = 128
        // A single byte splits off class 0 (all the others so far), unless it is all that is left.
        singles.forEachMember { byte in
            guard size[0] > 1 else { return }
            classOf[byte] = count
            size[Int(count)] = 1
            size[0] -= 1
            count += 1
        }
        // Per class: the set's members in it, and the class they move to.
        for set in sets {
            var touchedCount = 0
            set.forEachMember { byte in
                let byteClass = Int(classOf[byte])
                if inSet[byteClass] == 0 {
                    touched[touchedCount] = UInt8(byteClass)
                    touchedCount += 1
                }
                inSet[byteClass] += 1
            }
            for byteClass in UnsafeBufferPointer(start: touched, count: touchedCount).lazy.map(Int.init) {
                if inSet[byteClass] < size[byteClass] {
                    movedTo[byteClass] = count
                    size[Int(count)] = inSet[byteClass]
                    size[byteClass] -= inSet[byteClass]
                    count += 1
                } else {
                    movedTo[byteClass] = UInt8(byteClass)
                }
                inSet[byteClass] = 0
            }
            set.forEachMember { byte in classOf[byte] = movedTo[Int(classOf[byte])] }
        }
        // Renumbered in the order of their smallest byte (`number` holds a class's number + 1).
        var next: UInt8 = 0
        var classOfByte: [UInt8] = []
        classOfByte.reserveCapacity(128)
        for byte in 0..<128 {
            let byteClass = Int(classOf[byte])
            if number[byteClass] == 0 {
                next += 1
                number[byteClass] = next
            }
            classOfByte.append(number[byteClass] - 1)
        }
        return (classOfByte, Int(count))
    }

    public init(classOfByte: [UInt8]) {
        precondition(classOfByte.count == 128)
        self.classOfByte = classOfByte
        self.count = Int(classOfByte.max()!) + 1
    }

    /// The classes `set` covers, as a set of class numbers.
    public func classes(of set: ASCIISet) -> ASCIISet {
        var result = ASCIISet()
        set.forEachMember { result.insert(classOfByte[$0]) }
        return result
    }

    /// The bytes of each class, e.g. `c3 = [A-Za-z]`.
    public func dump() -> String {
        var members = [ASCIISet](repeating: ASCIISet(), count: count)
        for byte in 0..<128 { members[Int(classOfByte[byte])].insert(UInt8(byte)) }
        return members.enumerated().map { "c\($0.offset) = \($0.element)" }.joined(separator: "\n") + "\n"
    }
}
