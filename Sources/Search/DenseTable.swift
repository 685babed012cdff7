// DenseTable.swift — Search
//
// A program's states expanded, in memory, into a table of one row per state and one entry per
// byte class: a step is then one read, where the compact form decodes the state's header and scans
// its exceptions. Programs are expanded while the tables stay within a budget
// (`DenseTable.maximumEntries`, `DenseBudget`), so building every table of a list is bounded
// work and memory whatever the list's size, and the file keeps the compact form: the table is the
// interpreter's, not the format's. A state's row is decoded once (`Program.appendRow`), not a
// class at a time: a load expands tables of millions of entries. A delta state met after the
// reference is kept as the classes it lists, and its row made from the reference's, already
// mapped: most of an unanchored DFA's states list a class or two of 50-odd.
//
// An entry is the next state's number in 16 bits, `dead` (0xFFFF) where the run stops (in 8 bits,
// `narrowDead`, in a table of one program of at most `narrowStates` states: most of a list's
// prefixes and suffixes, half their memory, the run's loop the same with a byte read); a row is
// `stride` entries, the class count rounded up to a power of two, in planes of 32 columns (a
// cache line) when it is wider: each plane holds every state's row of its columns, so that a
// state's row in a plane is its number shifted, and the columns are placed by how often URLs hold
// their bytes (`columns(classMap:classCount:)`), the lower-case letters, `/` and `.` in the first
// plane, whose lines are then most of what a run over a URL reads. The states are
// numbered by kind: plain silent states first, then the silent states a run reads on in (below),
// then the states that report; so a step's one comparison of the number says whether it is more
// than a move. (Half the bytes of row offsets in 32 bits: two lists asked in turn evict each
// other's rows, and the rows a URL's first bytes read are most of what both keep warm.) A chain
// instruction's states become a state each, so a run takes exactly the steps, and reports
// exactly the patterns after exactly the bytes, that the compact program's does. Tested by
// SearchTests/DenseTableTests.swift (denseTablesRunLikeTheirPrograms).
//
// A run that enters a silent state most bytes keep (a `.*` before the pattern's next term; at
// most `maximumExits` classes leave it) reads on while the bytes keep it there, its row fixed:
// those reads are independent loads the processor overlaps, where each step of a run otherwise
// waits for the previous one's. Only such states are numbered apart: a state few bytes keep (an
// Aho-Corasick start) would enter and leave the loop at every other byte, a mispredicted branch
// each time.

public import Bytecode

public struct DenseTable: Hashable, Sendable {
    /// At most this many entries (states x stride) over all the tables of a list, by default
    /// (`DenseBudget.standard`; an embedder may load a list within another, `DenseBudget`): 16 MB.
    /// Programs that run over the whole URL are expanded first, then suffixes, while the budget
    /// lasts. It is large enough for the whole programs of the largest shipped lists together
    /// (their Aho-Corasick automaton above all), whose steps the compact form would decode one
    /// header and one exception list at a time.
    public static let budget = 1 << 23
    /// At most this many entries in one table: the whole default budget.
    public static let maximumEntries = budget
    /// The entry of a class on which the run stops.
    public static let dead = UInt16.max
    /// At most this many states in one table: every number but `dead`'s.
    public static let maximumStates = Int(dead)
    /// At most this many classes leave a state a run reads on in (the end-of-URL NUL's included):
    /// states most bytes keep, where reading on saves steps' waits.
    static let maximumExits = 4

    /// A program whose states the table holds: its classes and its start state.
    public struct Part: Hashable, Sendable {
        public let classCount: Int
        /// The start state's number.
        public let start: Int
    }
    /// The programs, in the order given: tables run in one pass are one table of several parts,
    /// so that they share one base address and one numbering (`DenseView.run(_:_:_:report:)`).
    public let parts: [Part]
    /// Each part's column of each byte 0...127 (its class, placed by `columns(classMap:classCount:)`),
    /// one part's after another's.
    public let classMaps: [UInt8]
    /// Entries a row: the parts' largest class count rounded up to a power of two.
    public let stride: Int
    /// The rows in planes of `planeWidth` columns (a cache line), each plane every state's row
    /// of those columns: state `s`'s entry in column `c` is `entries[(c / w) * stateCount * w + s *
    /// w + c % w]`, w = min(stride, planeWidth) (`entry(_:column:)`): the next state's number, or
    /// `dead`. (A state's columns are its part's.) In a `narrow` table each entry is one byte
    /// (`narrowDead` for `dead`), two to an element, in the order of their places in memory
    /// (`entry(_:column:)` reads one).
    public let entries: [UInt16]
    /// Whether `entries` are one byte each: a table of one program of at most `narrowStates` states.
    public let narrow: Bool
    /// At most this many states in a narrow table: every byte but `narrowDead`.
    public static let narrowStates = Int(narrowDead)
    /// A narrow table's entry of a class on which the run stops.
    public static let narrowDead = UInt8.max
    /// Each part's place of each byte 0...127's entry from a row's start in `entries` (the plane
    /// of its column, and the column in it), one part's after another's: a run reads a byte's
    /// entry at `(state << shift) + columns[byte]`, and a pass of several parts reads their
    /// places from one address (`DenseView.run(_:_:_:report:)`).
    public let columns: [UInt32]
    /// States from this number on are read on in (silent, kept by most bytes: `maximumExits`);
    /// those below are plain silent states.
    public let loopStart: Int
    /// States from this number on report patterns: state `s` reports
    /// `accepts[acceptStart[s - reportStart] ..< acceptStart[s - reportStart + 1]]`, in the order
    /// the compact program reports them.
    public let reportStart: Int
    public let acceptStart: [Int32]
    public let accepts: [UInt32]

    public let stateCount: Int
    /// At most this many columns in a plane: 32 entries, a cache line.
    public static let planeWidth = 32
    /// Entries a row of a plane.
    public var rowWidth: Int { min(stride, Self.planeWidth) }

    /// State `state`'s entry in column `column`.
    public func entry(_ state: Int, column: Int) -> UInt16 {
        let place = column / rowWidth * stateCount * rowWidth + state * rowWidth + column % rowWidth
        guard narrow else { return entries[place] }
        let byte = entries.withUnsafeBytes { $0[place] }
        return byte == Self.narrowDead ? Self.dead : UInt16(byte)
    }
    /// The first part's (a table of one program's) classes, class map and start.
    public var classCount: Int { parts[0].classCount }
    public var classOfByte: [UInt8] { Array(classMaps[0..<128]) }
    public var start: Int { parts[0].start }

    /// The table of `program`, or nil when it would exceed `maximumEntries` or `maximumStates`.
    /// Only for a valid program (built from a DFA or validated).
    public init?(_ program: Program, maximumEntries: Int = DenseTable.maximumEntries) {
        self.init(joining: [program], maximumEntries: maximumEntries)
    }

    /// One table of `programs`' states (at least one program), or nil when they would exceed
    /// `maximumEntries` or `maximumStates` together. `readingExceptions`: the rows of delta states
    /// met after the reference kept as the classes they list (false: every row expanded, for
    /// tests that hold the two to each other).
    public init?(joining programs: [Program], maximumEntries: Int = DenseTable.maximumEntries, readingExceptions: Bool = true) {
        precondition(!programs.isEmpty, "a table holds at least one program")
        let stride = Self.rowEntries(classCount: programs.map(\.classCount).max()!)
        let maximumEntries = min(maximumEntries, DenseTable.maximumEntries)
        guard programs.allSatisfy({ $0.classCount > 0 }), stride <= maximumEntries else { return nil }
        var maximumStates = min(maximumEntries / stride, Self.maximumStates)
        var decoded: [Decoded] = []
        for program in programs {
            guard let part = Self.decode(program, maximumStates: maximumStates, readingExceptions: readingExceptions) else { return nil }
            maximumStates -= part.stateCount
            decoded.append(part)
        }
        self.init(decoded, classMaps: programs.map(\.classOfByte), stride: stride, narrowing: programs.count == 1)
    }

    /// The stride of a table whose parts have at most `classCount` classes: a power of two.
    public static func rowEntries(classCount: Int) -> Int {
        var stride = 1
        while stride < classCount { stride *= 2 }
        return stride
    }

    /// A program's states as decoded: state `s` leads on class `c` to `next[s * classCount + c]`
    /// (-1: nowhere) and reports `accepts[acceptStart[s] ..< acceptStart[s + 1]]`; state 0 starts.
    struct Decoded {
        let next: [Int32]
        let classCount: Int
        let acceptStart: [Int32]
        let accepts: [UInt32]

        var stateCount: Int { acceptStart.count - 1 }
    }

    /// `program`'s states, or nil when they are more than `maximumStates`.
    static func decode(_ program: Program, maximumStates: Int, readingExceptions: Bool) -> Decoded? {
        var walk = StateWalk(program)
        // A delta state's unlisted classes read the reference's row, not its decoded exceptions.
        let referenceRow = program.referenceRow()
        let met = program.code.withUnsafeBufferPointer { code in
            referenceRow.withUnsafeBufferPointer { referenceRow in
                walk.run(code, referenceRow, maximumStates: maximumStates, readingExceptions: readingExceptions)
            }
        }
        guard met else { return nil }
        return walk.decoded(referenceRow: referenceRow, maximumStates: maximumStates)
    }

    /// `decode`'s walk of a program's states from its start, each read once, in the order met.
    private struct StateWalk {
        let program: Program
        let classCount: Int
        /// States are keyed by their offset (-1: not met yet); a chain's members after the first
        /// have no offset of their own (no target points inside a chain), so they are numbered as
        /// they are met and keyed apart.
        var number: [Int32]
        /// The offsets of the states met, by number.
        var pending = [0]
        /// The patterns of each state met, in the order met (a chain's later members, numbered
        /// after them, report none).
        var acceptStart: [Int32] = []
        var accepts: [UInt32] = []
        /// Per state met, its row: a chain's (its classes where they lie in the code, and the
        /// offset after it); the reference's with exceptions (`exceptions`, a class and a program
        /// offset each, -1 for nowhere); or a program offset per class in `targets`.
        struct Row {
            var chainStart = 0
            var chainLength = 0
            var chainEnd = 0
            var targetsStart = 0
            var exceptionStart = -1
            var exceptionEnd = 0
        }
        var rows: [Row] = []
        var targets: [Int] = []
        var exceptions: [(byteClass: Int, target: Int)] = []

        init(_ program: Program) {
            self.program = program
            classCount = program.classCount
            number = [Int32](repeating: -1, count: program.code.count + 1)
            number[0] = 0
            // (A row and a start of patterns per compact state: the arrays not grown by copies.)
            pending.reserveCapacity(program.stateCount)
            rows.reserveCapacity(program.stateCount)
            acceptStart.reserveCapacity(program.stateCount + 1)
            // (Most delta states list a class or two.)
            exceptions.reserveCapacity(2 * program.stateCount)
        }

        /// Numbers the state at `offset` if it is met for the first time.
        private mutating func meet(_ offset: Int) {
            if number[offset] < 0 {
                number[offset] = Int32(pending.count)
                pending.append(offset)
            }
        }

        /// Reads every state met from the start; false when they are more than `maximumStates`.
        mutating func run(
            _ code: UnsafeBufferPointer<UInt8>, _ referenceRow: UnsafeBufferPointer<UInt32>, maximumStates: Int, readingExceptions: Bool
        ) -> Bool {
            var index = 0
            while index < pending.count {
                let state = pending[index]
                index += 1
                acceptStart.append(Int32(accepts.count))
                let transitions = Program.reportAccepts(code, state: state) { accepts.append($0) }
                if code[state] & Program.chainFlag != 0 {
                    let length = Int(code[transitions])
                    let end = transitions + 1 + length
                    rows.append(Row(chainStart: transitions + 1, chainLength: length, chainEnd: end))
                    meet(end)
                } else if readingExceptions, code[state] & 0b11 == TransitionForm.sparse.rawValue,
                    code[state] & Program.deltaFlag != 0, case let reference = Int(number[program.referenceState]),
                    reference >= 0, reference < index - 1 {
                    if !keepExceptions(code, state, transitions) { expandRow(code, referenceRow, state, transitions) }
                } else {
                    expandRow(code, referenceRow, state, transitions)
                }
                if pending.count > maximumStates { return false }
            }
            return true
        }

        /// A row expanded, a target per class, its new targets numbered in class order.
        private mutating func expandRow(
            _ code: UnsafeBufferPointer<UInt8>, _ referenceRow: UnsafeBufferPointer<UInt32>, _ state: Int, _ transitions: Int
        ) {
            let start = targets.count
            rows.append(Row(targetsStart: start))
            Program.appendRow(
                code, state: state, transitions: transitions, classCount: classCount, width: program.targetWidth,
                nowhere: program.nowhere, referenceRow: referenceRow, to: &targets)
            for at in start..<targets.count where targets[at] >= 0 { meet(targets[at]) }
        }

        /// A delta state after the reference (whose targets are all numbered): the classes it
        /// lists are kept (in increasing order but for a first one that leads to the next
        /// instruction), and only their targets can be new. Most states of an unanchored DFA list
        /// a class or two. False (nothing kept) for one that lists a class twice, as a valid
        /// program's first-next class may be: its row is then expanded instead.
        private mutating func keepExceptions(_ code: UnsafeBufferPointer<UInt8>, _ state: Int, _ transitions: Int) -> Bool {
            let start = exceptions.count
            Program.forEachListed(code, header: code[state], from: transitions, width: program.targetWidth, nowhere: program.nowhere) {
                exceptions.append(($0, $1))
            }
            var at = start + 1
            while at < exceptions.count && exceptions[at - 1].byteClass < exceptions[at].byteClass { at += 1 }
            var listed = at >= exceptions.count
            if !listed {
                exceptions[start...].sort { $0.byteClass < $1.byteClass }
                listed = !zip(exceptions[start...], exceptions[(start + 1)...]).contains { $0.byteClass == $1.byteClass }
            }
            guard listed else {
                exceptions.removeSubrange(start...)
                return false
            }
            for (_, next) in exceptions[start...] where next >= 0 { meet(next) }
            rows.append(Row(exceptionStart: start, exceptionEnd: exceptions.count))
            return true
        }

        /// The states read, numbered: the compact ones in the order met, then each chain's members
        /// after the first, appended at the end; nil when they are more than `maximumStates`.
        func decoded(referenceRow: [UInt32], maximumStates: Int) -> Decoded? {
            var stateCount = pending.count
            var memberBase: [Int] = []  // per row: the number of its chain's second member
            memberBase.reserveCapacity(rows.count)
            for item in rows {
                memberBase.append(stateCount)
                stateCount += max(0, item.chainLength - 1)
            }
            guard stateCount <= maximumStates else { return nil }
            // Only the compact states (numbered first) report; a chain's later members never do.
            let acceptStart = acceptStart + [Int32](repeating: Int32(accepts.count), count: stateCount - pending.count + 1)
            // (Each row written whole, once: the compact states' by `fillCompactRows`, the chains'
            // members' here, so the rows are not filled with nowhere first.)
            let next = [Int32](unsafeUninitializedCapacity: stateCount * classCount) { next, initialized in
                fillCompactRows(next, referenceRow: referenceRow)
                for (state, item) in rows.enumerated() where item.chainLength > 0 {
                    // Member k leads on its class to member k + 1, nowhere on the others; the last
                    // to the next instruction. Only the first member may report.
                    for k in 0..<item.chainLength {
                        let member = k == 0 ? state : memberBase[state] + k - 1
                        let target = k + 1 < item.chainLength ? Int32(memberBase[state] + k) : number[item.chainEnd]
                        let row = next.baseAddress! + member * classCount
                        row.update(repeating: -1, count: classCount)
                        row[Int(program.code[item.chainStart + k])] = target
                    }
                }
                initialized = stateCount * classCount
            }
            return Decoded(next: next, classCount: classCount, acceptStart: acceptStart, accepts: accepts)
        }

        /// Each compact state's row of `next` (a chain's aside), every class written: its targets
        /// by the numbers given (-1: nowhere).
        private func fillCompactRows(_ next: UnsafeMutableBufferPointer<Int32>, referenceRow: [UInt32]) {
            func state(_ target: Int) -> Int32 { target >= 0 ? number[target] : -1 }
            // (Read only when some row was kept as differences: the reference was then met, and its
            // targets numbered. In a valid program from elsewhere it may be a state never met.)
            let referenceStates =
                rows.contains { $0.exceptionStart >= 0 }
                ? referenceRow.map { $0 == program.nowhere ? -1 : Int($0) }.map(state) : []
            targets.withUnsafeBufferPointer { targets in
                number.withUnsafeBufferPointer { number in
                    for state in rows.indices where rows[state].chainLength == 0 {
                        let row = state * classCount
                        let item = rows[state]
                        if item.exceptionStart >= 0 {
                            for byteClass in 0..<classCount { next[row + byteClass] = referenceStates[byteClass] }
                            for exception in exceptions[item.exceptionStart..<item.exceptionEnd] {
                                next[row + exception.byteClass] = exception.target >= 0 ? number[exception.target] : -1
                            }
                            continue
                        }
                        for byteClass in 0..<classCount {
                            let target = targets[item.targetsStart + byteClass]
                            next[row + byteClass] = target >= 0 ? number[target] : -1
                        }
                    }
                }
            }
        }
    }

    /// The table of `parts`' states, numbered by kind over all of them (plain, read on in,
    /// reporting; each kind in the order of the parts and of their states), so that one
    /// comparison tells a step's kind whichever part it is in. `narrowing`: its entries one byte
    /// each if it has at most `narrowStates` states and one part (parts are run in one pass,
    /// `DenseView.run(_:_:_:report:)`, which reads entries of two bytes: a table of several parts
    /// is never narrow).
    init(_ parts: [Decoded], classMaps: [[UInt8]], stride: Int, narrowing: Bool) {
        enum Kind { case plain, readOn, reporting }
        // Per part, its first state's index among all (`first[p] + s`).
        var first: [Int] = []
        var kinds: [Kind] = []
        kinds.reserveCapacity(parts.reduce(0) { $0 + $1.stateCount })
        for part in parts {
            first.append(kinds.count)
            let classCount = part.classCount
            part.next.withUnsafeBufferPointer { next in
                for state in 0..<part.stateCount {
                    if part.acceptStart[state] != part.acceptStart[state + 1] {
                        kinds.append(.reporting)
                        continue
                    }
                    // (Counted until there are too many: most states are left by most classes.)
                    var exits = 0
                    for target in next[(state * classCount)..<(state * classCount + classCount)] where target != Int32(state) {
                        exits += 1
                        if exits > Self.maximumExits { break }
                    }
                    kinds.append(exits <= Self.maximumExits && exits < classCount ? .readOn : .plain)
                }
            }
        }
        var numbered = [Int](repeating: -1, count: kinds.count)
        var count = 0
        for kind in [Kind.plain, .readOn, .reporting] {
            for state in kinds.indices where kinds[state] == kind {
                numbered[state] = count
                count += 1
            }
        }
        // Each part's classes placed in its rows by how often URLs hold their bytes (`columns`).
        let columns = parts.indices.map { Self.columns(classMap: classMaps[$0], classCount: parts[$0].classCount) }
        // (Uninitialized: each state's row is written whole below, its columns past its part's
        // classes `dead`, so the table is not filled first.)
        var entries = [UInt16](unsafeUninitializedCapacity: kinds.count * stride) { _, initialized in initialized = kinds.count * stride }
        // A column's place from a row's start (`entries`).
        let width = min(stride, Self.planeWidth)
        let place = (0..<stride).map { $0 / width * kinds.count * width + $0 % width }
        // The reporting states' patterns, in the order of their numbers: the parts', each part's
        // in state order, as they were numbered.
        var acceptStart: [Int32] = []
        var accepts: [UInt32] = []
        entries.withUnsafeMutableBufferPointer { entries in
            let entries = entries.baseAddress!
            for (index, part) in parts.enumerated() {
                // The entry of each target, `dead` for nowhere (-1) first.
                let entry = [Self.dead] + numbered[first[index]..<(first[index] + part.stateCount)].map { UInt16($0) }
                // Each class's entry from a row's start.
                let placeOfClass = columns[index].map { place[$0] }
                entry.withUnsafeBufferPointer { entry in
                    part.next.withUnsafeBufferPointer { next in
                        placeOfClass.withUnsafeBufferPointer { placeOfClass in
                            let (entry, next, classCount) = (entry.baseAddress! + 1, next.baseAddress!, part.classCount)
                            for state in 0..<part.stateCount {
                                let number = numbered[first[index] + state]
                                let (row, to) = (next + state * classCount, entries + number * width)
                                for byteClass in 0..<classCount { to[placeOfClass[byteClass]] = entry[Int(row[byteClass])] }
                                for column in classCount..<stride { to[place[column]] = Self.dead }
                                if part.acceptStart[state] != part.acceptStart[state + 1] {
                                    acceptStart.append(Int32(accepts.count))
                                    accepts += part.accepts[Int(part.acceptStart[state])..<Int(part.acceptStart[state + 1])]
                                }
                            }
                        }
                    }
                }
            }
        }
        acceptStart.append(Int32(accepts.count))
        self.parts = parts.indices.map { Part(classCount: parts[$0].classCount, start: numbered[first[$0]]) }
        self.classMaps = parts.indices.flatMap { part in classMaps[part].map { UInt8(columns[part][Int($0)]) } }
        self.columns = self.classMaps.map { UInt32(place[Int($0)]) }
        self.stride = stride
        self.stateCount = kinds.count
        self.narrow = narrowing && parts.count == 1 && kinds.count <= Self.narrowStates
        self.entries = narrow ? Self.narrowed(entries) : entries
        self.loopStart = kinds.count { $0 == .plain }
        self.reportStart = kinds.count - (acceptStart.count - 1)
        self.acceptStart = acceptStart
        self.accepts = accepts
    }
}

extension DenseTable {
    /// `entries` of two bytes as one byte each (`narrowDead` for `dead`), two to an element; an
    /// odd count's last byte `narrowDead`. Only for entries below `narrowDead` but `dead`.
    static func narrowed(_ entries: [UInt16]) -> [UInt16] {
        [UInt16](unsafeUninitializedCapacity: (entries.count + 1) / 2) { storage, initialized in
            let bytes = UnsafeMutableRawPointer(storage.baseAddress!)
            entries.withUnsafeBufferPointer { entries in
                // (`dead`'s low byte is `narrowDead`, the other entries' their number.)
                for place in entries.indices {
                    bytes.storeBytes(of: UInt8(truncatingIfNeeded: entries[place]), toByteOffset: place, as: UInt8.self)
                }
            }
            if entries.count % 2 == 1 { bytes.storeBytes(of: narrowDead, toByteOffset: entries.count, as: UInt8.self) }
            initialized = storage.count
        }
    }

    /// The column of each of a program's classes: the classes in decreasing order of
    /// `urlByteWeight` over their bytes (ties by number). A row of 33 to 64 classes is two planes
    /// (`entries`); with the classes of the bytes most URLs are made of in the first, a run over
    /// a URL reads mostly the first plane, whose rows are each a line and hold nothing else: the
    /// lines a run reads, and the caches they take, are about half those of whole rows.
    static func columns(classMap: [UInt8], classCount: Int) -> [Int] {
        var weight = [Int](repeating: 0, count: classCount)
        for byte in 0..<128 { weight[Int(classMap[byte])] += urlByteWeight(UInt8(byte)) }
        let order = (0..<classCount).sorted { weight[$0] != weight[$1] ? weight[$0] > weight[$1] : $0 < $1 }
        var columns = [Int](repeating: 0, count: classCount)
        for (column, byteClass) in order.enumerated() { columns[byteClass] = column }
        return columns
    }

    /// A rough weight of how often a byte occurs in URLs: lower-case letters and the separators
    /// of hosts and paths most, then digits and the query's punctuation, then upper-case letters,
    /// then the rest, each tier four times or more the next, so that a class of many rare bytes
    /// (all upper-case letters) stays after one of a common byte (URLs are mostly lower-case
    /// letters, `/`, `.`, `-` and digits; the end-of-URL NUL is read once a run).
    static func urlByteWeight(_ byte: UInt8) -> Int {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "/"), UInt8(ascii: "."): return 4096
        case UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "_"): return 1024
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return 512
        case UInt8(ascii: "="), UInt8(ascii: "?"), UInt8(ascii: "&"), UInt8(ascii: "%"): return 128
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return 16
        case 0x21...0x7E: return 4
        default: return 1
        }
    }
}

/// A part of a dense table as the interpreter reads it: addresses into a program set's image (or
/// a table's own arrays), and the part's class map and start.
@usableFromInline struct DenseView {
    /// The table's first entry (state 0's row), of two bytes, or of one in a narrow table
    /// (`DenseTable.narrow`: `shift` has `narrowFlag`).
    @usableFromInline let entries: UnsafePointer<UInt16>
    /// log2 of the table's rows' width in a plane (`DenseTable.rowWidth`), plus `narrowFlag` for
    /// a narrow table. (A shift by it, `&<<`, takes its low six bits: the flag is left out.)
    @usableFromInline let shift: Int
    @usableFromInline let start: Int
    @usableFromInline let loopStart: Int
    @usableFromInline let reportStart: Int
    /// Per reporting state, then the end.
    @usableFromInline let acceptStart: UnsafePointer<Int32>
    @usableFromInline let accepts: UnsafeBufferPointer<UInt32>
    /// The place of each byte 0...127's entry from a row's start (`DenseTable.columns`).
    @usableFromInline let columns: UnsafePointer<UInt32>

    @inlinable init(
        entries: UnsafePointer<UInt16>, shift: Int, start: Int, loopStart: Int, reportStart: Int, acceptStart: UnsafePointer<Int32>,
        accepts: UnsafeBufferPointer<UInt32>, columns: UnsafePointer<UInt32>
    ) {
        self.entries = entries
        self.shift = shift
        self.start = start
        self.loopStart = loopStart
        self.reportStart = reportStart
        self.acceptStart = acceptStart
        self.accepts = accepts
        self.columns = columns
    }

    @inlinable var startReports: Bool { start >= reportStart }

    /// Added to a narrow table's `shift`: above every shift of a row, and masked off by `&<<`.
    @usableFromInline static let narrowFlag = 64

    @inlinable var narrow: Bool { shift >= Self.narrowFlag }

    /// Reports the patterns of `state` (one that reports), reached after `index` bytes.
    @inlinable @inline(__always)
    func reportState(_ state: Int, _ index: Int, _ report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) {
        let reporting = state &- reportStart
        for at in Int(acceptStart[reporting])..<Int(acceptStart[reporting &+ 1]) { report(accepts[at], index) }
    }

    /// Tells the patterns of `state` (not `dead`), reached after `index` bytes, if it reports any.
    @inlinable @inline(__always)
    func reportIfAny(_ state: Int, _ index: Int, _ report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) {
        if state >= reportStart { reportState(state, index, report) }
    }

    /// Runs the table over `url` then the end-of-URL NUL, exactly as `Program.execute` runs the
    /// compact program it came from: the same reports after the same bytes, the same steps.
    /// (Inlined where it is called, its reports with it: a stage's prefix reports at most bytes.)
    @inlinable @inline(__always)
    func run(_ url: UnsafeBufferPointer<UInt8>, report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) -> Int {
        if startReports { reportState(start, 0, report) }
        if narrow { return steps(UInt8.self, url, from: start, at: 0, report: report) }
        return steps(UInt16.self, url, from: start, at: 0, report: report)
    }

    /// The run from `state` after `index` bytes (its reports told) to its end; returns the steps
    /// of the whole run (`index` and those taken here). (Where a pass of several tables leaves
    /// one to go on alone.)
    /// (Only a table of two-byte entries: a part of a table of several, never narrow, or a view
    /// `ProgramSet.WholeTogether` admitted.)
    @inlinable
    func run(_ url: UnsafeBufferPointer<UInt8>, from state: Int, at index: Int, report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) -> Int {
        assert(!narrow, "a run in a pass of several parts reads two-byte entries")
        return steps(UInt16.self, url, from: state, at: index, report: report)
    }

    /// `run(_:from:at:report:)`'s body, over entries of type `Entry` (`UInt16`, or `UInt8` in a
    /// narrow table: `Entry.max` is `dead`).
    @inlinable @inline(__always)
    func steps<Entry: FixedWidthInteger & UnsignedInteger>(
        _: Entry.Type, _ url: UnsafeBufferPointer<UInt8>, from state: Int, at index: Int,
        report: (_ pattern: UInt32, _ bytesRead: Int) -> Void
    ) -> Int {
        var state = state
        var index = index
        // (The view's fields held in locals: read through the view, they are loaded again at
        // every byte.)
        let (entries, columns, shift, loopStart) = (UnsafeRawPointer(self.entries).assumingMemoryBound(to: Entry.self), self.columns, self.shift, self.loopStart)
        let dead = Int(Entry.max)
        let count = url.count
        // The URL's bytes. A state below `loopStart` is a plain step: one comparison after the
        // table's read.
        if let bytes = url.baseAddress {
            while index < count {
                let byte = bytes[index]
                index &+= 1
                guard byte < 128 else { return index }
                let next = Int(entries[(state &<< shift) &+ Int(columns[Int(byte)])])
                if next < loopStart {
                    state = next
                    continue
                }
                guard next != dead else { return index }
                state = next
                if next >= reportStart {
                    reportState(next, index, report)
                    continue
                }
                // A silent state most bytes keep (`.*` waiting for its next term): the bytes that
                // keep it are read with the row fixed, so the reads do not wait on each other as
                // steps from state to state do. Each is still a step.
                let row = entries + (state &<< shift)
                while index < count {
                    let byte = bytes[index]
                    guard byte < 128, Int(row[Int(columns[Int(byte)])]) == state else { break }
                    index &+= 1
                }
            }
        }
        return finish(Entry.self, state, count, report)
    }

    /// The end-of-URL NUL read from `state` after `count` bytes; returns the steps. (A table of
    /// two-byte entries.)
    @inlinable @inline(__always)
    func finish(_ state: Int, _ count: Int, _ report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) -> Int {
        finish(UInt16.self, state, count, report)
    }

    /// `finish(_:_:_:)` over entries of type `Entry` (`steps`).
    @inlinable @inline(__always)
    func finish<Entry: FixedWidthInteger & UnsignedInteger>(
        _: Entry.Type, _ state: Int, _ count: Int, _ report: (_ pattern: UInt32, _ bytesRead: Int) -> Void
    ) -> Int {
        let entries = UnsafeRawPointer(self.entries).assumingMemoryBound(to: Entry.self)
        let next = Int(entries[(state &<< shift) &+ Int(columns[0])])
        if next != Int(Entry.max) && next >= reportStart { reportState(next, count + 1, report) }
        return count + 1
    }

    /// Runs two tables over `url` in one pass, a byte read once for both: each step of one waits
    /// for its previous step's read, and the other's step, independent of it, fills that wait.
    /// The same reports after the same bytes as `a.run` and `b.run`, the reports of one step in
    /// the order a, b; returns the steps of both runs. Once one run ends, the other goes on alone.
    /// (The views lent where they lie, as the pass's below: an image's, made once.)
    @inlinable
    static func run(
        _ a: UnsafePointer<DenseView>, _ b: UnsafePointer<DenseView>, _ url: UnsafeBufferPointer<UInt8>,
        report: (_ pattern: UInt32, _ bytesRead: Int) -> Void
    ) -> Int {
        let (viewA, viewB) = (a, b)
        let (a, b) = (a.pointee, b.pointee)
        if a.startReports { a.reportState(a.start, 0, report) }
        if b.startReports { b.reportState(b.start, 0, report) }
        return run(viewA, viewB, url, from: a.start, b.start, at: 0, report: report)
    }

    /// The pass of `a` and `b` (parts of one table) from `stateA` and `stateB` after `index` bytes
    /// (their reports told); returns the steps of both whole runs.
    @inlinable
    static func run(
        _ a: UnsafePointer<DenseView>, _ b: UnsafePointer<DenseView>, _ url: UnsafeBufferPointer<UInt8>, from stateA: Int, _ stateB: Int,
        at index: Int, report: (_ pattern: UInt32, _ bytesRead: Int) -> Void
    ) -> Int {
        let (a, b) = (a.pointee, b.pointee)
        assert(a.entries == b.entries && a.reportStart == b.reportStart && b.columns > a.columns, "tables run in one pass are parts of one")
        // (An empty URL may have no address: only its NUL is read.)
        guard let bytes = url.baseAddress else { return a.finish(stateA, 0, report) &+ b.finish(stateB, 0, report) }
        var states = (stateA, stateB, 0)
        var index = index
        let dead = Int(DenseTable.dead)
        let second = b.columns - a.columns
        while silentSteps(a.entries, a.columns, second: second, three: false, shift: a.shift, quiet: a.reportStart, bytes, url.count, &index, &states) {
            let (nextA, nextB, _) = states
            if nextA == dead {
                guard nextB != dead else { return 2 &* index }
                b.reportIfAny(nextB, index, report)
                return index &+ b.run(url, from: nextB, at: index, report: report)
            }
            a.reportIfAny(nextA, index, report)
            guard nextB != dead else { return index &+ a.run(url, from: nextA, at: index, report: report) }
            b.reportIfAny(nextB, index, report)
        }
        let (endA, endB, _) = states
        return a.finish(endA, url.count, report) &+ b.finish(endB, url.count, report)
    }

    /// Three tables in one pass, as two are (`run(_:_:_:report:)`; parts of one table); once one
    /// run ends, the other two go on as a pair.
    @inlinable
    static func run(
        _ a: UnsafePointer<DenseView>, _ b: UnsafePointer<DenseView>, _ c: UnsafePointer<DenseView>, _ url: UnsafeBufferPointer<UInt8>,
        report: (_ pattern: UInt32, _ bytesRead: Int) -> Void
    ) -> Int {
        let (viewA, viewB, viewC) = (a, b, c)
        let (a, b, c) = (a.pointee, b.pointee, c.pointee)
        if a.startReports { a.reportState(a.start, 0, report) }
        if b.startReports { b.reportState(b.start, 0, report) }
        if c.startReports { c.reportState(c.start, 0, report) }
        assert(a.entries == b.entries && a.entries == c.entries && a.reportStart == b.reportStart && a.reportStart == c.reportStart
            && b.columns == a.columns + 128 && c.columns == a.columns + 256, "tables run in one pass are parts of one")
        // (An empty URL may have no address: only its NUL is read.)
        guard let bytes = url.baseAddress else {
            return a.finish(a.start, 0, report) &+ b.finish(b.start, 0, report) &+ c.finish(c.start, 0, report)
        }
        var states = (a.start, b.start, c.start)
        var index = 0
        let dead = Int(DenseTable.dead)
        while silentSteps(a.entries, a.columns, second: 128, three: true, shift: a.shift, quiet: a.reportStart, bytes, url.count, &index, &states) {
            let (stateA, stateB, stateC) = states
            let (liveA, liveB, liveC) = (stateA != dead, stateB != dead, stateC != dead)
            if liveA { a.reportIfAny(stateA, index, report) }
            if liveB { b.reportIfAny(stateB, index, report) }
            if liveC { c.reportIfAny(stateC, index, report) }
            switch (liveA, liveB, liveC) {
            case (true, true, true): continue
            case (false, true, true): return index &+ run(viewB, viewC, url, from: stateB, stateC, at: index, report: report)
            case (true, false, true): return index &+ run(viewA, viewC, url, from: stateA, stateC, at: index, report: report)
            case (true, true, false): return index &+ run(viewA, viewB, url, from: stateA, stateB, at: index, report: report)
            case (true, false, false): return 2 &* index &+ a.run(url, from: stateA, at: index, report: report)
            case (false, true, false): return 2 &* index &+ b.run(url, from: stateB, at: index, report: report)
            case (false, false, true): return 2 &* index &+ c.run(url, from: stateC, at: index, report: report)
            case (false, false, false): return 3 &* index
            }
        }
        return a.finish(states.0, url.count, report) &+ b.finish(states.1, url.count, report) &+ c.finish(states.2, url.count, report)
    }

    /// The pass of two or three parts of one table (its `entries`, rows `1 << shift` entries a
    /// plane; the first part's columns at `columns`, the second's `second` on, a third's 128
    /// after the second's) from
    /// `states` over `bytes[index ..< count]` while every step is silent (every next state below
    /// `quiet`, the table's `reportStart`): false at the end, `index == count`; true after the
    /// byte whose step is not silent, `states` then the states it leads to (all `dead` for a byte
    /// from 128 on). Apart from the reports' code, so that the states and addresses stay in
    /// registers. (The states a single run reads on in are plain steps here.)
    @usableFromInline @inline(never)
    static func silentSteps(
        _ entries: UnsafePointer<UInt16>, _ columns: UnsafePointer<UInt32>, second: Int, three: Bool, shift: Int, quiet: Int,
        _ bytes: UnsafePointer<UInt8>, _ count: Int, _ index: inout Int, _ states: inout (Int, Int, Int)
    ) -> Bool {
        // (Rows of 32 entries a plane, whole programs' of 33 to 64 classes, with the shift a
        // constant: a shift by a register ties up the count register at every step.)
        if shift == 5 {
            return silentSteps(entries, columns, second: second, three: three, shift: 5, quiet, bytes, count, &index, &states)
        }
        return silentSteps(entries, columns, second: second, three: three, shift: shift, quiet, bytes, count, &index, &states)
    }

    /// `silentSteps(_:_:second:three:shift:quiet:_:_:_:_:)`'s body.
    @inline(__always)
    static func silentSteps(
        _ entries: UnsafePointer<UInt16>, _ columns: UnsafePointer<UInt32>, second: Int, three: Bool, shift: Int, _ quiet: Int,
        _ bytes: UnsafePointer<UInt8>, _ count: Int, _ index: inout Int, _ states: inout (Int, Int, Int)
    ) -> Bool {
        var (stateA, stateB, stateC) = states
        let dead = Int(DenseTable.dead)
        // (By pointer to the URL's end: one register and one comparison for the place.)
        var place = bytes + index
        let end = bytes + count
        defer {
            states = (stateA, stateB, stateC)
            index = place - bytes
        }
        // A step is silent when its next state is below `quiet` (`dead` is above every state).
        guard three else {
            while place < end {
                let byte = Int(place.pointee)
                place += 1
                guard byte < 128 else {
                    (stateA, stateB) = (dead, dead)
                    return true
                }
                stateA = Int(entries[(stateA &<< shift) &+ Int(columns[byte])])
                stateB = Int(entries[(stateB &<< shift) &+ Int(columns[second &+ byte])])
                if stateA >= quiet || stateB >= quiet { return true }
            }
            return false
        }
        while place < end {
            let byte = Int(place.pointee)
            place += 1
            guard byte < 128 else {
                (stateA, stateB, stateC) = (dead, dead, dead)
                return true
            }
            stateA = Int(entries[(stateA &<< shift) &+ Int(columns[byte])])
            stateB = Int(entries[(stateB &<< shift) &+ Int(columns[128 &+ byte])])
            stateC = Int(entries[(stateC &<< shift) &+ Int(columns[256 &+ byte])])
            if stateA >= quiet || stateB >= quiet || stateC >= quiet { return true }
        }
        return false
    }
}

/// Parts of different tables (several lists' whole programs, `ProgramSet.WholeTogether`) run in
/// one pass, up to four: a step of one table waits for its previous step's read, and those of the
/// others, independent of it, fill the wait. (Each list's pass alone pairs its product with a
/// small program whose rows stay in the nearest cache: its misses waited for one at a time.) A
/// run that ends leaves the pass, the pass going on with the others.
struct JointPass {
    /// One run: its table's rows and their log2 width, its columns' places, the number its table's
    /// reporting states start at (a step to it or past it, `dead` included, leaves the silent
    /// loop), and its state. (Its table's entries two bytes each: `ProgramSet.WholeTogether`
    /// admits no narrow table.)
    struct Lane {
        var entries: UnsafePointer<UInt16>
        var shift: Int
        var columns: UnsafePointer<UInt32>
        var quiet: Int
        var state: Int

        init(_ view: DenseView) {
            assert(!view.narrow, "a joint pass reads two-byte entries (a whole program's table)")
            (entries, shift, columns, quiet, state) = (view.entries, view.shift, view.columns, view.reportStart, view.start)
        }
    }

    /// Runs `views` (two to four) over `url` then the end-of-URL NUL in one pass: the same reports
    /// after the same bytes as each view's run alone, told with the view's index; `steps[v]` is
    /// told view v's steps (as its run alone counts them). A run that ends leaves the pass (the
    /// last lane's run takes its place); the last run left goes on alone.
    static func run(
        _ views: UnsafeBufferPointer<DenseView>, _ url: UnsafeBufferPointer<UInt8>, steps: UnsafeMutableBufferPointer<Int>,
        report: (_ view: Int, _ pattern: UInt32, _ bytesRead: Int) -> Void
    ) {
        precondition(views.count >= 2 && views.count <= 4 && steps.count >= views.count, "two to four runs in a joint pass")
        // (The lanes past `count` are never stepped: any lane fills them.)
        let first = Lane(views[0])
        var lanes = (first, Lane(views[1]), views.count > 2 ? Lane(views[2]) : first, views.count > 3 ? Lane(views[3]) : first)
        // Per lane, the view it runs.
        var runs = (0, 1, 2, 3)
        var count = views.count
        for (index, view) in views.enumerated() where view.startReports { view.reportState(view.start, 0) { report(index, $0, $1) } }
        // (Rows of 32 entries a plane in every lane, the whole programs' of 33 to 64 classes: the
        // shift a constant, as in `DenseView.silentSteps`.)
        let rowsOf32 = views.allSatisfy { $0.shift == 5 }
        var index = 0
        let dead = Int(DenseTable.dead)
        if let bytes = url.baseAddress {
            while count > 1 && silentSteps(&lanes, count: count, rowsOf32: rowsOf32, bytes, url.count, &index) {
                // A step left the silent loop: each lane's state reports, or its run ended (and
                // the last lane takes its place).
                withUnsafeMutableBytes(of: &lanes) { lanes in
                    withUnsafeMutableBytes(of: &runs) { runs in
                        let (lanes, runs) = (lanes.bindMemory(to: Lane.self), runs.bindMemory(to: Int.self))
                        var lane = 0
                        while lane < count {
                            let (state, view) = (lanes[lane].state, runs[lane])
                            if state == dead {
                                steps[view] = index
                                count -= 1
                                (lanes[lane], runs[lane]) = (lanes[count], runs[count])
                                continue
                            }
                            if state >= views[view].reportStart { views[view].reportState(state, index) { report(view, $0, $1) } }
                            lane += 1
                        }
                    }
                }
            }
            if count == 1 && index < url.count {
                let view = runs.0
                steps[view] = views[view].run(url, from: lanes.0.state, at: index) { report(view, $0, $1) }
                return
            }
        }
        withUnsafeBytes(of: &lanes) { lanes in
            withUnsafeBytes(of: &runs) { runs in
                let (lanes, runs) = (lanes.bindMemory(to: Lane.self), runs.bindMemory(to: Int.self))
                for lane in 0..<count {
                    let view = runs[lane]
                    steps[view] = views[view].finish(lanes[lane].state, url.count) { report(view, $0, $1) }
                }
            }
        }
    }

    /// The pass of the first `count` lanes (two to four) from `index` while every step is silent:
    /// false at the end, `index == count`; true after the byte whose step is not, the lanes'
    /// states then the states it leads to (all `dead` for a byte from 128 on). Apart from the
    /// reports' code, so that the states and addresses stay in registers.
    @inline(never)
    static func silentSteps(
        _ lanes: inout (Lane, Lane, Lane, Lane), count lanesRun: Int, rowsOf32: Bool, _ bytes: UnsafePointer<UInt8>, _ count: Int,
        _ index: inout Int
    ) -> Bool {
        // (Each lane count a constant, and with `rowsOf32` the shift.)
        switch (lanesRun, rowsOf32) {
        case (4, true): return silentSteps(&lanes, lanes: 4, rowsOf32: true, bytes, count, &index)
        case (3, true): return silentSteps(&lanes, lanes: 3, rowsOf32: true, bytes, count, &index)
        case (_, true): return silentSteps(&lanes, lanes: 2, rowsOf32: true, bytes, count, &index)
        case (4, false): return silentSteps(&lanes, lanes: 4, rowsOf32: false, bytes, count, &index)
        case (3, false): return silentSteps(&lanes, lanes: 3, rowsOf32: false, bytes, count, &index)
        default: return silentSteps(&lanes, lanes: 2, rowsOf32: false, bytes, count, &index)
        }
    }

    @inline(__always)
    static func silentSteps(
        _ lanes: inout (Lane, Lane, Lane, Lane), lanes lanesRun: Int, rowsOf32: Bool, _ bytes: UnsafePointer<UInt8>, _ count: Int,
        _ index: inout Int
    ) -> Bool {
        let (a, b, c, d) = lanes
        let (shiftA, shiftB, shiftC, shiftD) = rowsOf32 ? (5, 5, 5, 5) : (a.shift, b.shift, c.shift, d.shift)
        var (stateA, stateB, stateC, stateD) = (a.state, b.state, c.state, d.state)
        var place = bytes + index
        let end = bytes + count
        defer {
            (lanes.0.state, lanes.1.state, lanes.2.state, lanes.3.state) = (stateA, stateB, stateC, stateD)
            index = place - bytes
        }
        while place < end {
            let byte = Int(place.pointee)
            place += 1
            guard byte < 128 else {
                let dead = Int(DenseTable.dead)
                (stateA, stateB, stateC, stateD) = (dead, dead, dead, dead)
                return true
            }
            stateA = Int(a.entries[(stateA &<< shiftA) &+ Int(a.columns[byte])])
            stateB = Int(b.entries[(stateB &<< shiftB) &+ Int(b.columns[byte])])
            if lanesRun > 2 { stateC = Int(c.entries[(stateC &<< shiftC) &+ Int(c.columns[byte])]) }
            if lanesRun > 3 { stateD = Int(d.entries[(stateD &<< shiftD) &+ Int(d.columns[byte])]) }
            if stateA >= a.quiet || stateB >= b.quiet || (lanesRun > 2 && stateC >= c.quiet) || (lanesRun > 3 && stateD >= d.quiet) {
                return true
            }
        }
        return false
    }
}

extension DenseTable {
    /// log2 of `rowWidth`, `DenseView.narrowFlag` added for a narrow table: the shift word of its
    /// views.
    var shift: Int { rowWidth.trailingZeroBitCount | (narrow ? DenseView.narrowFlag : 0) }

    /// Runs a part (the first: a table of one program's) over `url` like `Program.run(_:report:)`,
    /// telling `report` each pattern and after how many bytes it was reached; returns the steps
    /// (for tests and tools).
    public func run(_ url: UnsafeBufferPointer<UInt8>, part: Int = 0, report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) -> Int {
        withView(part: part) { $0.run(url, report: report) }
    }

    /// Runs the parts (two or three) over `url` in one pass (`DenseView.run`); returns the steps
    /// of all (for tests and tools).
    public func runTogether(_ url: UnsafeBufferPointer<UInt8>, report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) -> Int {
        precondition(parts.count == 2 || parts.count == 3, "two or three parts run together")
        return withView(part: 0) { a in
            withView(part: 1) { b in
                withUnsafePointer(to: a) { a in
                    withUnsafePointer(to: b) { b in
                        guard parts.count == 3 else { return DenseView.run(a, b, url, report: report) }
                        return withView(part: 2) { c in withUnsafePointer(to: c) { c in DenseView.run(a, b, c, url, report: report) } }
                    }
                }
            }
        }
    }

    func withView<Result>(part: Int, _ body: (DenseView) -> Result) -> Result {
        entries.withUnsafeBufferPointer { entries in
            acceptStart.withUnsafeBufferPointer { acceptStart in
                accepts.withUnsafeBufferPointer { accepts in
                    columns.withUnsafeBufferPointer { columns in
                        body(DenseView(
                            entries: entries.baseAddress!, shift: shift, start: parts[part].start, loopStart: loopStart,
                            reportStart: reportStart, acceptStart: acceptStart.baseAddress!, accepts: accepts,
                            columns: columns.baseAddress! + 128 * part))
                    }
                }
            }
        }
    }
}

extension Program {
    /// Appends the targets of the state whose header is at `state` and whose transitions start at
    /// `transitions`, one per class (-1: nowhere), decoding its transitions once, where
    /// `transition` decodes them per class. Not for chains. `referenceRow` is the reference
    /// state's row (`referenceRow()`), read for the classes a delta state does not list.
    static func appendRow(
        _ code: UnsafeBufferPointer<UInt8>, state: Int, transitions: Int, classCount: Int, width: Int, nowhere: UInt32,
        referenceRow: UnsafeBufferPointer<UInt32>, to targets: inout [Int]
    ) {
        func target(_ value: UInt32) -> Int { value == nowhere ? -1 : Int(value) }
        let header = code[state]
        let start = targets.count
        var offset = transitions
        switch header & 0b11 {
        case TransitionForm.stop.rawValue:
            targets.append(contentsOf: repeatElement(-1, count: classCount))
            return
        case TransitionForm.dense.rawValue:
            for byteClass in 0..<classCount { targets.append(target(readTarget(code, offset + byteClass * width, width: width))) }
            return
        default:
            break
        }
        // Sparse or fallback: the classes not listed lead where the reference leads (delta), to the
        // fallback, or nowhere; then the listed ones.
        var fallback = -1
        if header & 0b11 == TransitionForm.fallback.rawValue {
            fallback = target(readTarget(code, offset, width: width))
            offset += width
        }
        if header & deltaFlag != 0 {
            for byteClass in 0..<classCount { targets.append(target(referenceRow[byteClass])) }
        } else {
            targets.append(contentsOf: repeatElement(fallback, count: classCount))
        }
        forEachListed(code, header: header, from: offset, width: width, nowhere: nowhere) { targets[start + $0] = $1 }
    }

    /// Tells `body` each class a sparse or fallback state lists and its target (-1: nowhere), in
    /// the order written; `offset` is where the list starts (after a fallback's target).
    @inline(__always)
    static func forEachListed(
        _ code: UnsafeBufferPointer<UInt8>, header: UInt8, from offset: Int, width: Int, nowhere: UInt32, _ body: (Int, Int) -> Void
    ) {
        func target(_ value: UInt32) -> Int { value == nowhere ? -1 : Int(value) }
        var offset = offset
        if header & nextFlag != 0 {
            if header & firstNextFlag == 0 {
                // One class, leading to the next instruction (right after this one).
                body(Int(code[offset]), offset + 1)
            } else {
                // Several classes, all leading to the next instruction.
                let count = Int(code[offset])
                let end = offset + 1 + count
                for at in offset + 1 ..< end { body(Int(code[at]), end) }
            }
            return
        }
        var count = Int(code[offset])
        offset += 1
        let entry = 1 + width
        if header & firstNextFlag != 0 {
            // The first class leads to the instruction after this one's entries.
            count -= 1
            body(Int(code[offset]), offset + 1 + count * entry)
            offset += 1
        }
        for at in stride(from: offset, to: offset + count * entry, by: entry) {
            body(Int(code[at]), target(readTarget(code, at + 1, width: width)))
        }
    }
}
