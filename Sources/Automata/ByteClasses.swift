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
    /// Classes are numbered by their smallest byte.
    public init<S: Sequence>(refining sets: S) where S.Element == ASCIISet {
        // Each set refines the partition so far: a byte's new class is its (class, in the set)
        // pair, the pairs numbered in the order of their smallest byte, so the classes stay
        // numbered by their smallest byte after every set (two arrays, no table of pairs: every
        // automaton's construction makes its classes so).
        // (A set given twice refines nothing the second time: no set of those seen is kept.)
        var classOf = [UInt8](repeating: 0, count: 128)
        var count = 1
        var numberOfPair = [Int16](repeating: -1, count: 256)
        classOf.withUnsafeMutableBufferPointer { classOf in
            numberOfPair.withUnsafeMutableBufferPointer { numberOfPair in
                for set in sets {
                    for pair in 0..<2 * count { numberOfPair[pair] = -1 }
                    var next: Int16 = 0
                    for byte in 0..<128 {
                        let pair = Int(classOf[byte]) << 1 | (set.contains(UInt8(byte)) ? 1 : 0)
                        if numberOfPair[pair] < 0 {
                            numberOfPair[pair] = next
                            next += 1
                        }
                        classOf[byte] = UInt8(truncatingIfNeeded: numberOfPair[pair])
                    }
                    count = Int(next)
                }
            }
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
        for byte in set.members { result.insert(classOfByte[Int(byte)]) }
        return result
    }

    /// The bytes of each class, e.g. `c3 = [A-Za-z]`.
    public func dump() -> String {
        var members = [ASCIISet](repeating: ASCIISet(), count: count)
        for byte in 0..<128 { members[Int(classOfByte[byte])].insert(UInt8(byte)) }
        return members.enumerated().map { "c\($0.offset) = \($0.element)" }.joined(separator: "\n") + "\n"
    }
}
