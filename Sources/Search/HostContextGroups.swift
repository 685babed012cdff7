// HostContextGroups.swift — Search
//
// Several program sets' host contexts (HostContextTable.swift; several lists asked about one URL)
// by L: the contexts of one automaton, splitting set and case form a group, whose candidates do
// not depend on the table they are probed in, so a group is read once for all its contexts
// (`DomainTable.lookUp(_:_:labels:report:)` for contexts). A group whose contexts take a plain
// host's labels for candidates (HostLabelStarts.swift) may be probed with the candidates the
// domain tables' lookup hashes (`ProgramSet.DomainsTogether`): `lookUpUnlessLabels` reads the
// other groups and says which those are. Sets with a context with open domains (read forwards
// from each place L ends) are left out: their runs read their contexts.

struct HostContextGroups {
    /// The contexts' lookups, group by group, and per lookup its set's index and first gate
    /// (`Image.gateBase`).
    let lookups: [HostContextLookup]
    let owners: [(set: Int, gateBase: UInt32)]
    /// Per group, the end of its lookups in `lookups` (each group begins where the one before ends).
    let ends: [Int]
    /// Per set, whether its contexts are in the groups.
    let looksUp: [Bool]

    /// The contexts of `sets` (prepared) by L.
    init(_ sets: [ProgramSet]) {
        var keys: [HostContextTable] = []
        var groups: [(lookups: [HostContextLookup], owners: [(set: Int, gateBase: UInt32)])] = []
        var looksUp = [Bool](repeating: false, count: sets.count)
        for (index, set) in sets.enumerated() {
            let contexts = set.contents.hostContexts
            guard !contexts.isEmpty, contexts.allSatisfy(\.open.isEmpty) else { continue }
            looksUp[index] = true
            // (A context without open domains has a lookup when it has entries, and its table's.)
            for context in contexts {
                guard let lookup = context.lookup, lookup.tables != nil else { continue }
                let key = keys.firstIndex {
                    $0.starts == context.starts && $0.splitting == context.splitting && $0.isCaseSensitive == context.isCaseSensitive
                }
                if let key {
                    groups[key].lookups.append(lookup)
                    groups[key].owners.append((index, set.image.gateBase))
                } else {
                    keys.append(context)
                    groups.append(([lookup], [(index, set.image.gateBase)]))
                }
            }
        }
        lookups = groups.flatMap(\.lookups)
        owners = groups.flatMap(\.owners)
        var end = 0
        ends = groups.map { group in
            end += group.lookups.count
            return end
        }
        self.looksUp = looksUp
    }

    /// No context of `count` sets.
    init(none count: Int) {
        (lookups, owners, ends) = ([], [], [])
        looksUp = [Bool](repeating: false, count: count)
    }

    /// Whether a group holds two or more sets' contexts.
    var sharesGroup: Bool { ends.indices.contains { Set(owners[lookupRange($0)].map(\.set)).count >= 2 } }

    /// The places of group `group`'s lookups in `lookups`.
    func lookupRange(_ group: Int) -> Range<Int> { (group == 0 ? 0 : ends[group - 1])..<ends[group] }

    /// Looks up every context over `url`, whose host labels are `labels` (nil: not read),
    /// telling `found` each context's set, the pattern reported and the set's first gate.
    func lookUp(_ url: UnsafeBufferPointer<UInt8>, labels: DomainTable.HostLabels?, found: (_ set: Int, _ pattern: UInt32, _ gateBase: UInt32) -> Void) {
        for group in ends.indices { lookUp(group, url, labels: labels, found: found) }
    }

    /// Looks up the groups that do not take the host's labels `labels` for candidates (all of
    /// them when nil) over `url` (their automata read it), telling `found` as `lookUp` does;
    /// returns the others, a bit per group (`DomainTable.labelReading`: `.labels`), to be probed
    /// with the host's candidates. (No more groups than a mask's bits.) (Inlined in the joint
    /// lookup, which calls it once per request: a call of its own saved and restored as many
    /// registers as its work took.)
    @inline(__always)
    func lookUpUnlessLabels(
        _ url: UnsafeBufferPointer<UInt8>, labels: DomainTable.HostLabels?, found: (_ set: Int, _ pattern: UInt32, _ gateBase: UInt32) -> Void
    ) -> UInt64 {
        var reading: UInt64 = 0
        lookups.withUnsafeBufferPointer { lookups in
            for group in ends.indices {
                let first = lookups.baseAddress! + lookupRange(group).lowerBound
                if let labels, let flags = first.pointee.labelStarts {
                    switch DomainTable.labelReading(first, flags, url, labels) {
                    case .labels:
                        reading |= 1 << UInt64(group)
                        continue
                    case .nothing: continue
                    case .automaton: break
                    }
                }
                lookUp(group, url, labels: nil, found: found)
            }
        }
        return reading
    }

    /// Looks up group `group`'s contexts at once (`labels` nil: by their automaton).
    private func lookUp(
        _ group: Int, _ url: UnsafeBufferPointer<UInt8>, labels: DomainTable.HostLabels?,
        found: (_ set: Int, _ pattern: UInt32, _ gateBase: UInt32) -> Void
    ) {
        let range = lookupRange(group)
        lookups.withUnsafeBufferPointer { lookups in
            owners.withUnsafeBufferPointer { owners in
                DomainTable.lookUp(UnsafeBufferPointer(rebasing: lookups[range]), url, labels: labels) { context, pattern in
                    found(owners[range.lowerBound + context].set, pattern, owners[range.lowerBound + context].gateBase)
                }
            }
        }
    }
}
