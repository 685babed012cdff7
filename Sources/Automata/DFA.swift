// DFA.swift — Automata
//
// A deterministic automaton over byte classes, with the patterns each state reports. State 0 is
// the start state. The input is the URL's bytes then one NUL (see NFA.swift); every pattern of
// every state passed on the way has matched.
// Tested by AutomataTests/AutomataTests.swift and AutomataTests/StagePropertyTests.swift.

public struct DFA: Sendable, Equatable {
    public let byteClasses: ByteClasses
    /// The transitions, by row: state `s` leads on class `liveClasses[i]` to state `liveTargets[i]`
    /// for `i` in `rowStart[s] ..< rowStart[s + 1]` (classes increasing), and nowhere on every
    /// other class. Sparse rows: the tries of a stage's suffixes have a class or two leading
    /// somewhere per state of dozens; as dense tables, a big list's largest groups, two built at
    /// a time, would be a large part of its compile's peak memory.
    public let rowStart: [UInt32]
    public let liveClasses: [UInt8]
    public let liveTargets: [UInt32]
    /// The patterns state `s` reports are `acceptedPatterns[acceptStart[s] ..< acceptStart[s + 1]]`,
    /// in increasing order.
    public let acceptStart: [UInt32]
    public let acceptedPatterns: [PatternID]

    public init(
        byteClasses: ByteClasses, rowStart: [UInt32], liveClasses: [UInt8], liveTargets: [UInt32], acceptStart: [UInt32],
        acceptedPatterns: [PatternID]
    ) {
        precondition(rowStart.count == acceptStart.count && liveClasses.count == liveTargets.count
            && Int(rowStart.last ?? 0) == liveClasses.count)
        self.byteClasses = byteClasses
        self.rowStart = rowStart
        self.liveClasses = liveClasses
        self.liveTargets = liveTargets
        self.acceptStart = acceptStart
        self.acceptedPatterns = acceptedPatterns
    }

    /// From a dense table: `transitions[state * classCount + class]`, the next state or
    /// `DFAStateID.dead.rawValue`.
    public init(byteClasses: ByteClasses, transitions: [UInt32], acceptStart: [UInt32], acceptedPatterns: [PatternID]) {
        precondition(transitions.count == (acceptStart.count - 1) * byteClasses.count)
        var rowStart: [UInt32] = [0]
        var liveClasses: [UInt8] = []
        var liveTargets: [UInt32] = []
        for (index, target) in transitions.enumerated() {
            if target != DFAStateID.dead.rawValue {
                liveClasses.append(UInt8(index % byteClasses.count))
                liveTargets.append(target)
            }
            if index % byteClasses.count == byteClasses.count - 1 { rowStart.append(UInt32(liveClasses.count)) }
        }
        self.init(
            byteClasses: byteClasses, rowStart: rowStart, liveClasses: liveClasses, liveTargets: liveTargets,
            acceptStart: acceptStart, acceptedPatterns: acceptedPatterns)
    }

    /// The dense table (`init(byteClasses:transitions:acceptStart:acceptedPatterns:)`).
    public var transitions: [UInt32] {
        var table = [UInt32](repeating: DFAStateID.dead.rawValue, count: stateCount * classCount)
        for state in 0..<stateCount {
            for live in row(state) { table[state * classCount + Int(liveClasses[live])] = liveTargets[live] }
        }
        return table
    }

    public var stateCount: Int { acceptStart.count - 1 }
    public var classCount: Int { byteClasses.count }
    public static let start = DFAStateID(0)

    /// The indices of `state`'s live transitions in `liveClasses` and `liveTargets`.
    @inline(__always)
    public func row(_ state: Int) -> Range<Int> { Int(rowStart[state])..<Int(rowStart[state + 1]) }

    public func next(_ state: DFAStateID, _ byteClass: ByteClassID) -> DFAStateID {
        for live in row(Int(state.rawValue)) where liveClasses[live] == byteClass.rawValue { return DFAStateID(liveTargets[live]) }
        return .dead
    }

    /// Writes `state`'s row as a dense one (a target per class) into `dense` (`classCount` long).
    public func write(row state: Int, into dense: UnsafeMutableBufferPointer<UInt32>) {
        dense.update(repeating: DFAStateID.dead.rawValue)
        for live in row(state) { dense[Int(liveClasses[live])] = liveTargets[live] }
    }

    public func accepted(by state: DFAStateID) -> ArraySlice<PatternID> {
        acceptedPatterns[Int(acceptStart[Int(state.rawValue)])..<Int(acceptStart[Int(state.rawValue) + 1])]
    }

    /// The patterns that match `url` (whose bytes are read, then the end-of-URL NUL), each once,
    /// in increasing order. The reference walk the bytecode interpreter is tested against.
    public func matches<Bytes: Collection<UInt8>>(_ url: Bytes) -> [PatternID] {
        var found = Set<PatternID>()
        var state = Self.start
        found.formUnion(accepted(by: state))
        for byte in url + [0] {
            guard byte < 128 else { break }
            state = next(state, ByteClassID(byteClasses.classOfByte[Int(byte)]))
            if state.isDead { break }
            found.formUnion(accepted(by: state))
        }
        return found.sorted()
    }

    /// Numbered states: what each reports and where each class leads (runs of classes with the same
    /// target are written once).
    public func dump() -> String {
        var lines = ["dfa: \(stateCount) states, \(classCount) byte classes, \(acceptedPatterns.count) accepts"]
        lines.append(byteClasses.dump().split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        for state in 0..<stateCount {
            var parts: [String] = []
            let accepts = accepted(by: DFAStateID(state))
            if !accepts.isEmpty { parts.append("accept " + accepts.map(\.description).joined(separator: " ")) }
            var targets: [UInt32: [Int]] = [:]
            for live in row(state) { targets[liveTargets[live], default: []].append(Int(liveClasses[live])) }
            for (target, classes) in targets.sorted(by: { $0.value[0] < $1.value[0] }) {
                parts.append(classes.map { "c\($0)" }.joined(separator: ",") + " -> d\(target)")
            }
            lines.append("d\(state): " + (parts.isEmpty ? "(stops)" : parts.joined(separator: ", ")))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
