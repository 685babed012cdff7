// DFA.swift — Automata
//
// A deterministic automaton over byte classes, with the patterns each state reports. State 0 is
// the start state. The input is the URL's bytes then one NUL (see NFA.swift); every pattern of
// every state passed on the way has matched.

public struct DFA: Sendable, Equatable {
    public let byteClasses: ByteClasses
    /// `transitions[state * classCount + class]`: the next state, or `DFAStateID.dead.rawValue`.
    public let transitions: [UInt32]
    /// The patterns state `s` reports are `acceptedPatterns[acceptStart[s] ..< acceptStart[s + 1]]`,
    /// in increasing order.
    public let acceptStart: [UInt32]
    public let acceptedPatterns: [PatternID]

    public init(byteClasses: ByteClasses, transitions: [UInt32], acceptStart: [UInt32], acceptedPatterns: [PatternID]) {
        precondition(transitions.count == (acceptStart.count - 1) * byteClasses.count)
        self.byteClasses = byteClasses
        self.transitions = transitions
        self.acceptStart = acceptStart
        self.acceptedPatterns = acceptedPatterns
    }

    public var stateCount: Int { acceptStart.count - 1 }
    public var classCount: Int { byteClasses.count }
    public static let start = DFAStateID(0)

    @inline(__always)
    public func next(_ state: DFAStateID, _ byteClass: ByteClassID) -> DFAStateID {
        DFAStateID(transitions[Int(state.rawValue) * classCount + Int(byteClass.rawValue)])
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
            for byteClass in 0..<classCount {
                let target = transitions[state * classCount + byteClass]
                if target != DFAStateID.dead.rawValue { targets[target, default: []].append(byteClass) }
            }
            for (target, classes) in targets.sorted(by: { $0.value[0] < $1.value[0] }) {
                parts.append(classes.map { "c\($0)" }.joined(separator: ",") + " -> d\(target)")
            }
            lines.append("d\(state): " + (parts.isEmpty ? "(stops)" : parts.joined(separator: ", ")))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
