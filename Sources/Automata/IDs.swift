// IDs.swift — Automata
//
// Typed identifiers. Each is a 32-bit index into the arrays of the automaton it belongs to, so
// that a state of one automaton can never be used as a pattern or a state of another kind.
// Tested by AutomataTests/AutomataTests.swift.

/// A pattern given to the automata: the caller's number for it (the engine numbers the
/// url-filters of a rule list, the condition patterns separately). Accept sets hold these.
public struct PatternID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: Int) { self.rawValue = UInt32(rawValue) }
    public static func < (lhs: PatternID, rhs: PatternID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "p\(rawValue)" }
}

/// A state of an `NFA`.
public struct NFAStateID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public static func < (lhs: NFAStateID, rhs: NFAStateID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "n\(rawValue)" }
}

/// A state of a `DFA`.
@frozen
public struct DFAStateID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    @inlinable public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: Int) { self.rawValue = UInt32(rawValue) }
    public static func < (lhs: DFAStateID, rhs: DFAStateID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "d\(rawValue)" }
    /// The absent transition: the automaton stops (no pattern can match any more). A constant
    /// other modules see (not a stored global read through its addressor), so that the loops
    /// that compare or fill with it fold it.
    @inlinable public static var dead: DFAStateID { DFAStateID(UInt32.max) }
    public var isDead: Bool { rawValue == UInt32.max }
}

/// A byte class of a `ByteClasses` partition: bytes no transition of the automaton tells apart.
public struct ByteClassID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(_ rawValue: UInt8) { self.rawValue = rawValue }
    public static func < (lhs: ByteClassID, rhs: ByteClassID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "c\(rawValue)" }
}
