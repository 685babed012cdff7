// ByteClasses.swift — Automata
//
// Alphabet compression: the bytes 0...127 split into the classes no transition tells apart. A
// rule list's patterns typically need 30 to 60 classes instead of 128 bytes, which shrinks every
// transition table by the same factor. Bytes 128...255 never occur in a canonical URL; they form
// no class and stop every automaton.

public import URLFilterSyntax

public struct ByteClasses: Hashable, Sendable {
    /// The class of each byte 0...127.
    public let classOfByte: [UInt8]
    public let count: Int

    /// The coarsest partition of 0...127 in which every set of `sets` is a union of classes.
    /// Classes are numbered by their smallest byte.
    public init<S: Sequence>(refining sets: S) where S.Element == ASCIISet {
        var classOf = [Int](repeating: 0, count: 128)
        var classCount = 1
        var seen = Set<ASCIISet>()
        for set in sets where seen.insert(set).inserted {
            // Split every class by membership in `set`.
            var splitOf = [Int: Int]()
            for byte in 0..<128 where set.contains(UInt8(byte)) {
                let old = classOf[byte]
                if let new = splitOf[old] {
                    classOf[byte] = new
                } else {
                    splitOf[old] = classCount
                    classOf[byte] = classCount
                    classCount += 1
                }
            }
            // A class entirely inside `set` moved whole: give it back its old number.
            _ = splitOf
        }
        // Renumber by smallest byte, dropping numbers left unused by whole moves.
        var renumber = [Int: UInt8]()
        var result = [UInt8](repeating: 0, count: 128)
        for byte in 0..<128 {
            let old = classOf[byte]
            if let new = renumber[old] {
                result[byte] = new
            } else {
                let new = UInt8(renumber.count)
                renumber[old] = new
                result[byte] = new
            }
        }
        classOfByte = result
        count = renumber.count
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
