// NFASimulation.swift — Automata
//
// Runs an NFA directly, state set by state set: slow, obviously correct, and independent of the
// subset construction and the minimizer, which tests check against it.

extension NFA {
    /// The patterns that match `url` (bytes, then the end-of-URL NUL), in increasing order.
    public func matches<Bytes: Collection<UInt8>>(_ url: Bytes) -> [PatternID] {
        var found = Set<PatternID>()
        var current = epsilonClosure([anchoredRoot.rawValue, unanchoredRoot.rawValue])
        for byte in url + [0] {
            for state in current { if let pattern = accepted(NFAStateID(state)) { found.insert(pattern) } }
            guard byte < 128 else { return found.sorted() }
            var next: [UInt32] = [unanchoredRoot.rawValue]
            for state in current {
                for edge in Int(edgeStart[Int(state)])..<Int(edgeStart[Int(state) + 1]) where edgeSets[edge].contains(byte) {
                    next.append(edgeTargets[edge])
                }
            }
            current = epsilonClosure(next)
        }
        for state in current { if let pattern = accepted(NFAStateID(state)) { found.insert(pattern) } }
        return found.sorted()
    }

    private func epsilonClosure(_ seeds: [UInt32]) -> Set<UInt32> {
        var result = Set(seeds)
        var stack = seeds
        while let state = stack.popLast() {
            for edge in Int(epsilonStart[Int(state)])..<Int(epsilonStart[Int(state) + 1]) where result.insert(epsilonTargets[edge]).inserted {
                stack.append(epsilonTargets[edge])
            }
        }
        return result
    }
}
