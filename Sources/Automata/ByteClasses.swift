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
        // Each set splits every class it covers in part: its members there move to a new class.
        // Only the set's members are read (most of an automaton's sets are a character or two),
        // and the classes are renumbered by their smallest byte once, at the end.
        var classOf = [UInt8](repeating: 0, count: 128)
        var count = 1
        var size = [Int](repeating: 0, count: 129)
        size[0] = 128
        // A single byte splits off class 0 (all the others so far), unless it is all that is left.
        singles.forEachMember { byte in
            guard size[0] > 1 else { return }
            classOf[byte] = UInt8(count)
            size[count] = 1
            size[0] -= 1
            count += 1
        }
        // Per class: the set's members in it, and the class they move to.
        var inSet = [Int](repeating: 0, count: 128)
        var movedTo = [UInt8](repeating: 0, count: 128)
        var touched: [UInt8] = []
        touched.reserveCapacity(128)
        for set in sets {
            touched.removeAll(keepingCapacity: true)
            set.forEachMember { byte in
                let byteClass = Int(classOf[byte])
                if inSet[byteClass] == 0 { touched.append(UInt8(byteClass)) }
                inSet[byteClass] += 1
            }
            for byteClass in touched.lazy.map(Int.init) {
                if inSet[byteClass] < size[byteClass] {
                    movedTo[byteClass] = UInt8(count)
                    size[count] = inSet[byteClass]
                    size[byteClass] -= inSet[byteClass]
                    count += 1
                } else {
                    movedTo[byteClass] = UInt8(byteClass)
                }
                inSet[byteClass] = 0
            }
            set.forEachMember { byte in classOf[byte] = movedTo[Int(classOf[byte])] }
        }
        // Renumbered in the order of their smallest byte.
        var number = [Int16](repeating: -1, count: 128)
        var next: Int16 = 0
        for byte in 0..<128 {
            let byteClass = Int(classOf[byte])
            if number[byteClass] < 0 {
                number[byteClass] = next
                next += 1
            }
            classOf[byte] = UInt8(number[byteClass])
        }
        classOfByte = classOf
        self.count = count
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
