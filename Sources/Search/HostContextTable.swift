// HostContextTable.swift — Search
//
// Host patterns (Automata/HostShape.swift: a prefix L, a domain D, a tail T) whose L is not the
// domain table's own `^[^:]+:\/\/+([^:/]+\.)?` in meaning: another converter's scheme part or
// subdomain group. One table per distinct L (a *context*), answered as the domain table answers
// its own shape: where L's automaton (`HostStarts`) says a match of L ends, at p, D can only be
// the bytes from p up to the first byte of the context's *splitting set* S (every pattern's T
// begins with a subset of S, and no D holds a byte of S), so each such place is one candidate,
// hashed and looked up in a `DomainTable` of the context's patterns, whose entries then check
// their T from the candidate's end; an entry may be a gate (a pattern past the set's: its group,
// the context's `||D^*...` patterns of that D, runs whole). Its *open* domains (OpenDomains.swift:
// nothing after D, or a loop first, gated) are looked up from each such place too, a candidate
// per length. The answer is the automaton's exactly: L as its own minimal automaton, D compared
// whole, T set by set. (Tests: HostContextTableTests hold it to the NFA of
// the same patterns on generated URLs; the oracle holds the whole engine to PCRE2 on the corpora's
// dialects.)
//
// In a file (after a programs section's domain condition table, ProgramSet.swift):
//
//     count        varint   contexts
//     per context  varint   L's text as written by a pattern, UTF-8 (for the disassembly only)
//                  varint   L's automaton's states, 1...255; per state a byte (1: L has matched
//                           here, 0: not), then its 128 targets, a byte each (0xFF: none)
//                  1        1: D is matched case-sensitively (as written), 0: letters folded
//                  16       S (bit b % 8 of byte b / 8 set: byte b is in S)
//                  ...      its domain table (DomainTable.swift): an entry whose T is S alone
//                           without T, S as T's first set written 0xFE
//                  ...      its open domains, a domain table whose entries have no T and whose
//                           domains hold host-name characters only (lower case)

public import Automata
internal import Bytecode
public import URLFilterSyntax

public struct HostContextTable: Hashable, Sendable {
    public static func == (lhs: HostContextTable, rhs: HostContextTable) -> Bool {
        lhs.prefix == rhs.prefix && lhs.starts == rhs.starts && lhs.splitting == rhs.splitting
            && lhs.isCaseSensitive == rhs.isCaseSensitive && lhs.table == rhs.table && lhs.open == rhs.open
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(prefix)
        hasher.combine(table)
        hasher.combine(open)
    }

    /// L as a pattern of the list wrote it.
    public let prefix: String
    /// Where a match of L ends in a URL.
    public let starts: HostStarts
    /// S: the bytes that end D.
    public let splitting: ASCIISet
    /// D is matched as written (lower case), not with the URL's letters folded.
    public let isCaseSensitive: Bool
    /// The context's patterns: D, and T from its first set on.
    public let table: DomainTable
    /// Its open domains: D with nothing after it (a pattern, or a gate whose group runs whole).
    public let open: DomainTable
    /// The automaton laid out for the lookup (`indexed()` makes it).
    private var memory: StartsMemory?
    /// With open domains: every entry, read forwards (`forwardEntries`), and its lookup memory.
    private var forward: DomainTable?
    private var openMemory: OpenDomainMemory?

    public init(
        prefix: String, starts: HostStarts, splitting: ASCIISet, isCaseSensitive: Bool, table: DomainTable, open: DomainTable = .empty
    ) {
        self.prefix = prefix
        self.starts = starts
        self.splitting = splitting
        self.isCaseSensitive = isCaseSensitive
        self.table = table
        self.open = open
    }

    /// The same table with its lookup index and its automaton's memory made. With open domains,
    /// one index read forwards holds them and the other entries, whose T is then checked whole
    /// from D's end (`forwardEntries`): one reading from each place L ends finds both.
    func indexed() -> HostContextTable {
        guard !open.isEmpty else {
            var indexed = HostContextTable(
                prefix: prefix, starts: starts, splitting: splitting, isCaseSensitive: isCaseSensitive, table: table.indexed())
            indexed.memory = StartsMemory(starts, labelStarts: LabelStartStates(starts, splitting: splitting))
            return indexed
        }
        let forward = forwardEntries.indexed(hashing: OpenDomainHash.hash)
        var indexed = HostContextTable(
            prefix: prefix, starts: starts, splitting: splitting, isCaseSensitive: isCaseSensitive, table: table, open: open)
        indexed.memory = StartsMemory(starts, labelStarts: nil)
        indexed.forward = forward
        indexed.openMemory = OpenDomainMemory(forward, folding: !isCaseSensitive)
        return indexed
    }

    /// The open domains and the other entries in one table, T written whole (S where the table
    /// writes `splitCode`, or nothing): a D found where it begins, followed by T, is the entry's
    /// match, since T's first set ends D.
    private var forwardEntries: DomainTable {
        let whole = DomainTable.encode([splitting])
        // (Of compacted tables, each read whole once: an entry's pattern, domain or tail read
        // from the table itself expands it again.)
        let (open, table) = (open.expanded(), table.expanded())
        let (openPatterns, patterns) = (open.patternsOfExpanded, table.patternsOfExpanded)
        var entries = (0..<open.count).map { (pattern: openPatterns[$0], domain: Array(open.domain($0)), tail: [UInt8]()) }
        for entry in 0..<table.count {
            let tail = table.tail(entry)
            let explicit = tail.first == DomainTable.splitCode ? whole + tail.dropFirst() : tail.isEmpty ? whole : Array(tail)
            entries.append((patterns[entry], Array(table.domain(entry)), explicit))
        }
        return DomainTable(entries.sorted { $0.pattern < $1.pattern }, indexing: false)
    }

    /// What a lookup reads, as plain values and addresses (nil for a table not indexed, or with
    /// no entries): valid while this table is.
    var lookup: HostContextLookup? {
        guard let memory else { return nil }
        let tables = forward == nil ? table.lookupTables : nil
        let open = openMemory.map { UnsafePointer($0.lookup) }
        guard tables != nil || open != nil else { return nil }
        let https = Array("https://".utf8).withUnsafeBufferPointer {
            DomainTable.schemeState(UnsafePointer(memory.next), UnsafePointer(memory.ends), splitting, $0)
        }
        return HostContextLookup(
            next: UnsafePointer(memory.next), ends: UnsafePointer(memory.ends), splitting: splitting, folding: !isCaseSensitive,
            tables: tables, open: open, labelStarts: memory.labelStarts.map { UnsafePointer($0) }, httpsState: https)
    }

    /// Reports the pattern of every entry that matches `url` (without its end-of-URL NUL), its
    /// host's labels taken for candidates where they are L's ends (HostLabelStarts.swift).
    public func lookUp(_ url: UnsafeBufferPointer<UInt8>, report: (UInt32) -> Void) {
        var steps = 0
        lookUp(url, labels: DomainTable.hostLabels(url, steps: &steps), report: report)
    }

    /// `lookUp(_:report:)` with L's automaton reading the URL whatever its host (the reading the
    /// labels stand for, which the tests hold them to).
    func lookUpByAutomaton(_ url: UnsafeBufferPointer<UInt8>, report: (UInt32) -> Void) {
        lookUp(url, labels: nil, report: report)
    }

    /// Whether some state of L's automaton takes a plain host's labels for candidates (an
    /// indexed table's: `indexed()` finds them).
    var takesHostLabels: Bool { memory?.labelStarts != nil }

    private func lookUp(_ url: UnsafeBufferPointer<UInt8>, labels: DomainTable.HostLabels?, report: (UInt32) -> Void) {
        let prepared = memory == nil ? indexed() : self
        withExtendedLifetime(prepared) {
            guard let lookup = prepared.lookup else { return }
            withUnsafePointer(to: lookup) { DomainTable.lookUp($0, url, labels: labels, report: report) }
        }
    }

    /// The automaton's rows and flags in memory of their own, read through plain addresses by
    /// every lookup (an array read through the table's value would be retained and released).
    final class StartsMemory: @unchecked Sendable {
        let next: UnsafeMutablePointer<UInt16>
        let ends: UnsafeMutablePointer<UInt8>
        /// Per state, `LabelStartStates`' flags (nil: no state has one).
        let labelStarts: UnsafeMutablePointer<UInt8>?

        init(_ starts: HostStarts, labelStarts: LabelStartStates?) {
            next = .allocate(capacity: starts.next.count)
            next.initialize(from: starts.next, count: starts.next.count)
            ends = .allocate(capacity: starts.stateCount)
            ends.initialize(from: starts.ends.map { $0 ? 1 : 0 }, count: starts.stateCount)
            self.labelStarts = labelStarts.map { states in
                let flags = UnsafeMutablePointer<UInt8>.allocate(capacity: states.flags.count)
                flags.initialize(from: states.flags, count: states.flags.count)
                return flags
            }
        }

        deinit {
            next.deallocate()
            ends.deallocate()
            labelStarts?.deallocate()
        }
    }

    // MARK: The file

    /// About the bytes `write(to:)` takes: its prefix, its states' rows, its splitting set and
    /// its tables.
    var writtenSizeEstimate: Int { 5 + prefix.utf8.count + 5 + 129 * starts.stateCount + 17 + table.writtenSizeEstimate + open.writtenSizeEstimate }

    func write(to writer: inout ByteWriter) {
        writer.string(prefix)
        writer.varint(UInt32(starts.stateCount))
        for state in 0..<starts.stateCount {
            writer.u8(starts.ends[state] ? 1 : 0)
            for target in starts.next[state << 7 ..< (state + 1) << 7] { writer.u8(target == HostStarts.dead ? 0xFF : UInt8(target)) }
        }
        writer.u8(isCaseSensitive ? 1 : 0)
        for index in 0..<16 {
            writer.u8((0..<8).reduce(UInt8(0)) { byte, bit in splitting.contains(UInt8(index * 8 + bit)) ? byte | 1 << bit : byte })
        }
        table.write(to: &writer)
        open.write(to: &writer)
    }

    /// Reads and validates a context whose patterns are below `patternCount`.
    static func read(from reader: inout ByteReader, patternCount: Int) throws(BytecodeError) -> HostContextTable {
        let textAt = reader.offset
        let text = try reader.take(Int(try reader.varint()))
        guard let prefix = String(validating: text, as: UTF8.self) else { throw .malformed(at: textAt, "host context: its prefix is not UTF-8") }
        let statesAt = reader.offset
        let stateCount = Int(try reader.varint())
        guard (1...255).contains(stateCount) else { throw .malformed(at: statesAt, "host context: \(stateCount) states") }
        var ends: [Bool] = []
        var next: [UInt16] = []
        for _ in 0..<stateCount {
            let row = try reader.take(129)
            guard row[row.startIndex] <= 1 else { throw .malformed(at: statesAt, "host context: a state's flag \(row[row.startIndex])") }
            ends.append(row[row.startIndex] == 1)
            next += row.dropFirst().map { $0 == 0xFF ? HostStarts.dead : UInt16($0) }
        }
        guard let starts = HostStarts(next: next, ends: ends) else { throw .malformed(at: statesAt, "host context: a target past its states") }
        let caseAt = reader.offset
        let caseByte = try reader.u8()
        guard caseByte <= 1 else { throw .malformed(at: caseAt, "host context: a case flag \(caseByte)") }
        let bits = try reader.take(16)
        let splitting = ASCIISet((0..<128).filter { bits[bits.startIndex + $0 / 8] >> ($0 % 8) & 1 == 1 }.map(UInt8.init))
        let table = try DomainTable.read(from: &reader, patternCount: patternCount, splitting: true)
        let openAt = reader.offset
        let open = try DomainTable.read(from: &reader, patternCount: patternCount, indexing: false)
        for entry in 0..<open.count where !open.tail(entry).isEmpty || !open.domain(entry).allSatisfy(HostSplit.domainBytes.contains) {
            throw .malformed(at: openAt, "host context: an open domain with a path or a byte no host name holds")
        }
        return HostContextTable(
            prefix: prefix, starts: starts, splitting: splitting, isCaseSensitive: caseByte == 1, table: table, open: open)
    }

    /// The context and its entries as text.
    public func disassemble() -> String {
        "prefix \(prefix) (\(starts.stateCount) states\(isCaseSensitive ? ", case-sensitive" : "")), D ends at \(splitting.description); "
            + "\(table.count) entries:\n"
            + table.disassemble().split(separator: "\n").map { "  " + $0 }.joined(separator: "\n")
            + (open.isEmpty ? "" : "\n  \(open.count) open domains (nothing after D asked):\n"
                + open.disassemble().split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
    }
}

/// What a host context's lookup reads (`HostContextTable.lookup`): its automaton's rows
/// (`next[state << 7 | byte]`) and flags (`ends[state]`: L has matched), its splitting set and case,
/// and its table's index: plain values, valid while the table is.
struct HostContextLookup {
    let next: UnsafePointer<UInt16>
    let ends: UnsafePointer<UInt8>
    let splitting: ASCIISet
    let folding: Bool
    /// The table's index (nil: no entries), and the open domains' lookup (nil: none).
    let tables: DomainTable.Tables?
    let open: UnsafePointer<OpenDomainLookup>?
    /// Per state of the automaton, `LabelStartStates`' flags (nil: no state takes a host's labels).
    let labelStarts: UnsafePointer<UInt8>?
    /// `DomainTable.schemeState` of `https://`, the scheme part most URLs begin with: read from
    /// here where a URL's is that, not run a byte at a time.
    let httpsState: Int
}

extension HostContextTable {
    /// Its entries, its index and its automaton's memory, as the parts named `name` and after it.
    func held(_ name: String, into memory: inout HeldMemory) {
        memory.add(name + ": prefix automaton", array: starts.next)
        memory.add(name + ": prefix automaton", array: starts.ends)
        memory.add(name + ": prefix automaton", self.memory.map { $0.heldBytes(stateCount: starts.stateCount) } ?? 0)
        table.held(entries: name + ": entries", index: name + ": index", into: &memory)
        open.held(entries: name + ": open domains", index: name + ": index", into: &memory)
        forward?.held(entries: name + ": entries read forwards", index: name + ": index", into: &memory)
        memory.add(name + ": index", openMemory?.heldBytes ?? 0)
    }
}

extension HostContextTable.StartsMemory {
    /// Its rows (128 entries a state) and flags.
    func heldBytes(stateCount: Int) -> Int { (stateCount << 7) * MemoryLayout<UInt16>.stride + stateCount + (labelStarts == nil ? 0 : stateCount) }
}
