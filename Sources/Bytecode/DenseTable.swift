// DenseTable.swift — Bytecode
//
// A program's states expanded, in memory, into a table of one row per state and one entry per
// byte class: a step is then one read, where the compact form decodes the state's header and scans
// its exceptions. Programs are expanded while the tables stay within a budget
// (`DenseTable.maximumEntries`, `DenseTable.budget`), so building every table of a list is bounded
// work and memory whatever the list's size, and the file keeps the compact form: the table is the
// interpreter's, not the format's. A state's row is decoded once (`Program.appendRow`), not a
// class at a time: a load expands tables of millions of entries. A delta state met after the
// reference is kept as the classes it lists, and its row made from the reference's, already
// mapped: most of an unanchored DFA's states list a class or two of 50-odd.
//
// An entry is the next state's row offset (its state number times the class count), with the high
// bit set when that state reports patterns; `dead` (0x7FFF_FFFF) stops the run. (In a program
// set's image, whose tables share one buffer, offsets count from the buffer's first entry:
// `DenseTable.append`, `DenseView`.) A chain
// instruction's states become a state each, so a run takes exactly the steps, and reports exactly
// the patterns after exactly the bytes, that the compact program's does. Tested by
// BytecodeTests.denseTablesRunLikeTheirPrograms.
//
// A run that stays in a silent state most bytes keep (a `.*` before the pattern's next term; the
// entries that keep it carry `loopsBit`) reads on while the bytes keep it there, its row fixed:
// those reads are independent loads the processor overlaps, where each step of a run otherwise
// waits for the previous one's. Only such states are marked: a state few bytes keep (an
// Aho-Corasick start) would enter and leave the loop at every other byte, a mispredicted branch
// each time.

public struct DenseTable: Hashable, Sendable {
    /// At most this many entries (states x classes) over all the tables of one program set: 16 MB.
    /// Programs that run over the whole URL are expanded first, then suffixes, while the budget
    /// lasts. It is large enough for the unanchored whole-pattern DFA of EasyList and EasyPrivacy
    /// together (42,900 states), whose steps the compact form would decode one header and one
    /// exception list at a time.
    public static let budget = 1 << 22
    /// At most this many entries in one table: the whole budget.
    public static let maximumEntries = budget
    public static let dead: UInt32 = 0x7FFF_FFFF
    public static let reportsBit: UInt32 = 0x8000_0000
    /// Set in the entries by which a state that loops on itself on all but a few classes and
    /// reports nothing (`.*` before a pattern's next term) keeps itself: a run that takes one reads
    /// on while the bytes keep it there. Row offsets stay below 2^22 (`budget`): the bit is free.
    public static let loopsBit: UInt32 = 0x4000_0000
    /// The row offset in an entry that is not `dead` (offsets stay below `maximumEntries`).
    public static let rowMask: UInt32 = 0x003F_FFFF
    /// The bits of an entry that make a step more than a move to another row: its state reports,
    /// or the entry is `dead` (a loop's mark aside).
    @usableFromInline static let specialBits: UInt32 = 0xBFC0_0000
    /// At most this many classes leave a state marked with `loopsBit` (the end-of-URL NUL's
    /// included): states most bytes keep, where reading on saves steps' waits.
    static let maximumExits = 4

    public let classCount: Int
    /// The program's class of each byte 0...127.
    public let classOfByte: [UInt8]
    /// `entries[row + class]`, rows `classCount` apart, the start state's first.
    public let entries: [UInt32]
    /// Whether the start state reports patterns (entries say it of every other state).
    public let startReports: Bool
    /// The patterns each state reports: `accepts[acceptStart[s] ..< acceptStart[s + 1]]`, in the
    /// order the compact program reports them.
    public let acceptStart: [Int32]
    public let accepts: [UInt32]

    /// The table of `program`, or nil when it would exceed `maximumEntries`. Only for a valid
    /// program (built from a DFA or validated).
    public init?(_ program: Program, maximumEntries: Int = DenseTable.maximumEntries) {
        self.init(program, maximumEntries: maximumEntries, readingExceptions: true)
    }

    /// `readingExceptions`: the rows of delta states met after the reference kept as the classes
    /// they list (false: every row expanded, for tests that hold the two to each other).
    init?(_ program: Program, maximumEntries: Int, readingExceptions: Bool) {
        let classCount = program.classCount
        // (Row offsets stay below `maximumEntries`, a power of two: `rowMask` keeps them.)
        let maximumEntries = min(maximumEntries, DenseTable.maximumEntries)
        guard classCount > 0, classCount <= maximumEntries else { return nil }
        let maximumStates = maximumEntries / classCount
        // States are keyed by their offset (`number`, -1: not met yet); a chain's members after
        // the first have no offset of their own (no target points inside a chain), so they are
        // numbered as they are met and keyed apart.
        var number = [Int32](repeating: -1, count: program.code.count + 1)
        number[0] = 0
        var pending = [0]
        // The patterns of each state met, in the order met (a chain's later members, numbered
        // after them, report none).
        var acceptStart: [Int32] = []
        var accepts: [UInt32] = []
        // Per state met, its row: a chain's (its classes where they lie in the code, and the
        // offset after it); the reference's with exceptions (`exceptions`, a class and a program
        // offset each, -1 for nowhere); or a program offset per class in `targets`.
        struct Decoded {
            var chainStart = 0
            var chainLength = 0
            var chainEnd = 0
            var targetsStart = 0
            var exceptionStart = -1
            var exceptionEnd = 0
        }
        var decoded: [Decoded] = []
        var targets: [Int] = []
        var exceptions: [(byteClass: Int, target: Int)] = []
        // A delta state's unlisted classes read the reference's row, not its decoded exceptions.
        let referenceRow = program.referenceRow()
        let referenceTargets = referenceRow.map { $0 == program.nowhere ? -1 : Int($0) }
        let ok = program.code.withUnsafeBufferPointer { code -> Bool in
            referenceRow.withUnsafeBufferPointer { referenceRow -> Bool in
                /// A row expanded, a target per class, its new targets numbered in class order.
                func expandRow(_ state: Int, _ transitions: Int) {
                    let start = targets.count
                    decoded.append(Decoded(targetsStart: start))
                    Program.appendRow(
                        code, state: state, transitions: transitions, classCount: classCount, width: program.targetWidth,
                        nowhere: program.nowhere, referenceRow: referenceRow, to: &targets)
                    for at in start..<targets.count {
                        let next = targets[at]
                        if next >= 0, number[next] < 0 {
                            number[next] = Int32(pending.count)
                            pending.append(next)
                        }
                    }
                }
                var index = 0
                while index < pending.count {
                    let state = pending[index]
                    index += 1
                    acceptStart.append(Int32(accepts.count))
                    let transitions = Program.reportAccepts(code, state: state) { accepts.append($0) }
                    if code[state] & Program.chainFlag != 0 {
                        let length = Int(code[transitions])
                        let end = transitions + 1 + length
                        decoded.append(Decoded(chainStart: transitions + 1, chainLength: length, chainEnd: end))
                        if number[end] < 0 {
                            number[end] = Int32(pending.count)
                            pending.append(end)
                        }
                    } else if readingExceptions, code[state] & 0b11 == TransitionForm.sparse.rawValue,
                        code[state] & Program.deltaFlag != 0, case let reference = Int(number[program.referenceState]),
                        reference >= 0, reference < index - 1 {
                        // A delta state after the reference (whose targets are all numbered): the
                        // classes it lists are kept (in increasing order but for a first one that
                        // leads to the next instruction), and only their targets can be new. Most
                        // states of an unanchored DFA list a class or two.
                        let start = exceptions.count
                        Program.forEachListed(code, header: code[state], from: transitions, width: program.targetWidth, nowhere: program.nowhere) {
                            exceptions.append(($0, $1))
                        }
                        var at = start + 1
                        while at < exceptions.count && exceptions[at - 1].byteClass < exceptions[at].byteClass { at += 1 }
                        // (A valid program may list its first-next class twice: then its row is
                        // expanded below instead.)
                        var listed = at >= exceptions.count
                        if !listed {
                            exceptions[start...].sort { $0.byteClass < $1.byteClass }
                            listed = !zip(exceptions[start...], exceptions[(start + 1)...]).contains { $0.byteClass == $1.byteClass }
                        }
                        if listed {
                            for (_, next) in exceptions[start...] where next >= 0 && number[next] < 0 {
                                number[next] = Int32(pending.count)
                                pending.append(next)
                            }
                            decoded.append(Decoded(exceptionStart: start, exceptionEnd: exceptions.count))
                        } else {
                            exceptions.removeSubrange(start...)
                            expandRow(state, transitions)
                        }
                    } else {
                        expandRow(state, transitions)
                    }
                    if pending.count > maximumStates { return false }
                }
                return true
            }
        }
        guard ok else { return nil }
        // Number the states: the compact ones in the order met, then each chain's members after the
        // first, appended at the end.
        var stateCount = pending.count
        var memberBase: [Int] = []  // per decoded state: the number of its chain's second member
        memberBase.reserveCapacity(decoded.count)
        for item in decoded {
            memberBase.append(stateCount)
            stateCount += max(0, item.chainLength - 1)
        }
        guard stateCount <= maximumStates, stateCount * classCount < Int(Self.dead) else { return nil }
        // Only the compact states (numbered first) report; a chain's later members never do.
        acceptStart += [Int32](repeating: Int32(accepts.count), count: stateCount - pending.count + 1)
        // The entry leading to each compact state: its row, and whether it reports.
        let compactEntry = (0..<pending.count).map { state in
            UInt32(state * classCount) | (acceptStart[state] == acceptStart[state + 1] ? 0 : Self.reportsBit)
        }
        func entry(_ target: Int) -> UInt32 { target >= 0 ? compactEntry[Int(number[target])] : Self.dead }
        // (Read only when some row was kept as differences: the reference was then met, and its
        // targets numbered. In a valid program from elsewhere it may be a state never met.)
        let referenceEntries = decoded.contains { $0.exceptionStart >= 0 } ? referenceTargets.map(entry) : []
        var entries = [UInt32](repeating: Self.dead, count: stateCount * classCount)
        entries.withUnsafeMutableBufferPointer { entries in
            targets.withUnsafeBufferPointer { targets in
                number.withUnsafeBufferPointer { number in
                    for state in decoded.indices where decoded[state].chainLength == 0 {
                        let row = state * classCount
                        let item = decoded[state]
                        if item.exceptionStart >= 0 {
                            for byteClass in 0..<classCount { entries[row + byteClass] = referenceEntries[byteClass] }
                            for exception in exceptions[item.exceptionStart..<item.exceptionEnd] {
                                entries[row + exception.byteClass] = entry(exception.target)
                            }
                            continue
                        }
                        for byteClass in 0..<classCount {
                            let target = targets[item.targetsStart + byteClass]
                            if target >= 0 { entries[row + byteClass] = compactEntry[Int(number[target])] }
                        }
                    }
                }
            }
        }
        for (state, item) in decoded.enumerated() where item.chainLength > 0 {
            // Member k leads on its class to member k + 1; the last to the next instruction. Only the
            // first member may report.
            for k in 0..<item.chainLength {
                let member = k == 0 ? state : memberBase[state] + k - 1
                let next = k + 1 < item.chainLength ? UInt32((memberBase[state] + k) * classCount) : compactEntry[Int(number[item.chainEnd])]
                entries[member * classCount + Int(program.code[item.chainStart + k])] = next
            }
        }
        Self.markLoops(&entries, classCount: classCount, stateCount: stateCount, reports: { acceptStart[$0] != acceptStart[$0 + 1] })
        self.classCount = classCount
        self.classOfByte = program.classOfByte
        self.entries = entries
        self.startReports = acceptStart[0] != acceptStart[1]
        self.acceptStart = acceptStart
        self.accepts = accepts
    }
}

extension DenseTable {
    /// Sets `loopsBit` in the entries by which a silent state keeps itself, when at most
    /// `maximumExits` classes leave it: a run that stays there once reads on from the next byte.
    static func markLoops(_ entries: inout [UInt32], classCount: Int, stateCount: Int, reports: (Int) -> Bool) {
        entries.withUnsafeMutableBufferPointer { entries in
            for state in 0..<stateCount where !reports(state) {
                let row = state * classCount
                var exits = 0
                for byteClass in 0..<classCount where entries[row + byteClass] != UInt32(row) {
                    exits += 1
                    if exits > maximumExits { break }
                }
                guard exits <= maximumExits && exits < classCount else { continue }
                for byteClass in 0..<classCount where entries[row + byteClass] == UInt32(row) {
                    entries[row + byteClass] |= loopsBit
                }
            }
        }
    }
}

/// A dense table as the interpreter reads it: buffers into a program set's image (or a table's
/// own arrays), and the program's class map. `entries` may hold other tables too (a set's image
/// holds all of its own): the table's rows are those from `start` on, and its entries' row offsets
/// count from `entries`' first, so that tables run in one pass read them from one base.
@usableFromInline struct DenseView {
    @usableFromInline let entries: UnsafeBufferPointer<UInt32>
    /// The start state's row offset in `entries`.
    @usableFromInline let start: Int
    @usableFromInline let acceptStart: UnsafeBufferPointer<Int32>
    @usableFromInline let accepts: UnsafeBufferPointer<UInt32>
    @usableFromInline let classCount: Int
    @usableFromInline let startReports: Bool
    @usableFromInline let classOf: UnsafeBufferPointer<UInt8>

    @inlinable init(
        entries: UnsafeBufferPointer<UInt32>, start: Int, acceptStart: UnsafeBufferPointer<Int32>, accepts: UnsafeBufferPointer<UInt32>,
        classCount: Int, startReports: Bool, classOf: UnsafeBufferPointer<UInt8>
    ) {
        self.entries = entries
        self.start = start
        self.acceptStart = acceptStart
        self.accepts = accepts
        self.classCount = classCount
        self.startReports = startReports
        self.classOf = classOf
    }

    /// Reports the patterns of the state at `row`, reached after `index` bytes.
    @inlinable @inline(__always)
    func reportState(_ row: Int, _ index: Int, _ report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) {
        let state = (row &- start) / classCount
        for at in Int(acceptStart[state])..<Int(acceptStart[state &+ 1]) { report(accepts[at], index) }
    }

    /// Takes the step to `next` (an entry that is not `dead`) after `index` bytes: its row, its
    /// reports told.
    @inlinable @inline(__always)
    func enter(_ next: UInt32, _ index: Int, _ report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) -> Int {
        let row = Int(next & ~(DenseTable.reportsBit | DenseTable.loopsBit))
        if next & DenseTable.reportsBit != 0 { reportState(row, index, report) }
        return row
    }

    /// Runs the table over `url` then the end-of-URL NUL, exactly as `Program.execute` runs the
    /// compact program it came from: the same reports after the same bytes, the same steps.
    /// (Inlined where it is called, its reports with it: a stage's prefix reports at most bytes.)
    @inlinable @inline(__always)
    func run(_ url: UnsafeBufferPointer<UInt8>, report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) -> Int {
        if startReports { reportState(start, 0, report) }
        return steps(url, from: start, at: 0, report: report)
    }

    /// The run from the state at `row` after `index` bytes (its reports told) to its end; returns
    /// the steps of the whole run (`index` and those taken here). (Where a pass of several
    /// tables leaves one to go on alone.)
    @inlinable
    func run(_ url: UnsafeBufferPointer<UInt8>, from row: Int, at index: Int, report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) -> Int {
        steps(url, from: row, at: index, report: report)
    }

    /// `run(_:from:at:report:)`'s body.
    @inlinable @inline(__always)
    func steps(_ url: UnsafeBufferPointer<UInt8>, from row: Int, at index: Int, report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) -> Int {
        var row = row
        var index = index
        // (The addresses held in locals: read through the view, they are loaded again at every
        // byte.)
        let entries = self.entries.baseAddress!
        let classOf = self.classOf.baseAddress!
        let count = url.count
        // The URL's bytes. An entry below `loopsBit` is a plain step (the next state reports
        // nothing, is not dead and keeps no loop): one comparison after the table's read.
        if let bytes = url.baseAddress {
            while index < count {
                let byte = bytes[index]
                index &+= 1
                guard byte < 128 else { return index }
                let next = entries[row &+ Int(classOf[Int(byte)])]
                if next < DenseTable.loopsBit {
                    row = Int(next)
                    continue
                }
                guard next != DenseTable.dead else { return index }
                row = enter(next, index, report)
                if next & DenseTable.loopsBit != 0 {
                    // A silent state most bytes keep (`.*` waiting for its next term): the bytes
                    // that keep it are read with the row fixed, so the reads do not wait on each
                    // other as steps from state to state do. Each is still a step.
                    while index < count {
                        let byte = bytes[index]
                        guard byte < 128, entries[row &+ Int(classOf[Int(byte)])] == next else { break }
                        index &+= 1
                    }
                }
            }
        }
        return finish(row, count, report)
    }

    /// The end-of-URL NUL read from the state at `row` after `count` bytes; returns the steps.
    @inlinable @inline(__always)
    func finish(_ row: Int, _ count: Int, _ report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) -> Int {
        let next = entries[row &+ Int(classOf[0])]
        if next != DenseTable.dead && next & DenseTable.reportsBit != 0 {
            reportState(Int(next & ~(DenseTable.reportsBit | DenseTable.loopsBit)), count + 1, report)
        }
        return count + 1
    }

    /// Runs two tables over `url` in one pass, a byte read once for both: each step of one waits
    /// for its previous step's read, and the other's step, independent of it, fills that wait.
    /// The same reports after the same bytes as `a.run` and `b.run`, the reports of one step in
    /// the order a, b; returns the steps of both runs. Once one run ends, the other goes on alone.
    @inlinable
    static func run(
        _ a: DenseView, _ b: DenseView, _ url: UnsafeBufferPointer<UInt8>, report: (_ pattern: UInt32, _ bytesRead: Int) -> Void
    ) -> Int {
        if a.startReports { a.reportState(a.start, 0, report) }
        if b.startReports { b.reportState(b.start, 0, report) }
        return run(a, b, url, from: a.start, b.start, at: 0, report: report)
    }

    /// The pass of `a` and `b` (their entries in one buffer) from the states at `rowA` and `rowB`
    /// after `index` bytes (their reports told); returns the steps of both whole runs.
    @inlinable
    static func run(
        _ a: DenseView, _ b: DenseView, _ url: UnsafeBufferPointer<UInt8>, from rowA: Int, _ rowB: Int, at index: Int,
        report: (_ pattern: UInt32, _ bytesRead: Int) -> Void
    ) -> Int {
        assert(a.entries.baseAddress == b.entries.baseAddress, "tables run in one pass share one buffer")
        // (An empty URL may have no address: only its NUL is read.)
        guard let bytes = url.baseAddress else { return a.finish(rowA, 0, report) &+ b.finish(rowB, 0, report) }
        var rows = (rowA, rowB, 0)
        var index = index
        var next: (UInt32, UInt32, UInt32) = (0, 0, 0)
        while silentSteps(
            a.entries.baseAddress!, a.classOf.baseAddress!, b.classOf.baseAddress!, nil, bytes, url.count, index: &index, rows: &rows,
            next: &next)
        {
            let (nextA, nextB, _) = next
            if nextA == DenseTable.dead {
                guard nextB != DenseTable.dead else { return 2 &* index }
                return index &+ b.run(url, from: b.enter(nextB, index, report), at: index, report: report)
            }
            rows.0 = a.enter(nextA, index, report)
            guard nextB != DenseTable.dead else { return index &+ a.run(url, from: rows.0, at: index, report: report) }
            rows.1 = b.enter(nextB, index, report)
        }
        let (rowA, rowB, _) = rows
        return a.finish(rowA, url.count, report) &+ b.finish(rowB, url.count, report)
    }

    /// Three tables in one pass, as two are (`run(_:_:_:report:)`; their entries in one buffer);
    /// once one run ends, the other two go on as a pair.
    @inlinable
    static func run(
        _ a: DenseView, _ b: DenseView, _ c: DenseView, _ url: UnsafeBufferPointer<UInt8>,
        report: (_ pattern: UInt32, _ bytesRead: Int) -> Void
    ) -> Int {
        if a.startReports { a.reportState(a.start, 0, report) }
        if b.startReports { b.reportState(b.start, 0, report) }
        if c.startReports { c.reportState(c.start, 0, report) }
        assert(a.entries.baseAddress == b.entries.baseAddress && a.entries.baseAddress == c.entries.baseAddress,
            "tables run in one pass share one buffer")
        // (An empty URL may have no address: only its NUL is read.)
        guard let bytes = url.baseAddress else {
            return a.finish(a.start, 0, report) &+ b.finish(b.start, 0, report) &+ c.finish(c.start, 0, report)
        }
        var rows = (a.start, b.start, c.start)
        var index = 0
        var next: (UInt32, UInt32, UInt32) = (0, 0, 0)
        while silentSteps(
            a.entries.baseAddress!, a.classOf.baseAddress!, b.classOf.baseAddress!, c.classOf.baseAddress!, bytes, url.count,
            index: &index, rows: &rows, next: &next)
        {
            let (nextA, nextB, nextC) = next
            var (rowA, rowB, rowC) = rows
            defer { rows = (rowA, rowB, rowC) }
            let (liveA, liveB, liveC) = (nextA != DenseTable.dead, nextB != DenseTable.dead, nextC != DenseTable.dead)
            if liveA { rowA = a.enter(nextA, index, report) }
            if liveB { rowB = b.enter(nextB, index, report) }
            if liveC { rowC = c.enter(nextC, index, report) }
            switch (liveA, liveB, liveC) {
            case (true, true, true): continue
            case (false, true, true): return index &+ run(b, c, url, from: rowB, rowC, at: index, report: report)
            case (true, false, true): return index &+ run(a, c, url, from: rowA, rowC, at: index, report: report)
            case (true, true, false): return index &+ run(a, b, url, from: rowA, rowB, at: index, report: report)
            case (true, false, false): return 2 &* index &+ a.run(url, from: rowA, at: index, report: report)
            case (false, true, false): return 2 &* index &+ b.run(url, from: rowB, at: index, report: report)
            case (false, false, true): return 2 &* index &+ c.run(url, from: rowC, at: index, report: report)
            case (false, false, false): return 3 &* index
            }
        }
        return a.finish(rows.0, url.count, report) &+ b.finish(rows.1, url.count, report) &+ c.finish(rows.2, url.count, report)
    }

    /// The pass of two or three tables (`classC` nil: two; their entries in one buffer from
    /// `entries`) over `bytes[index ..< count]` while every step is silent (`specialBits` clear in
    /// each entry): false at the end, `index == count`; true after the byte whose step is not
    /// silent, `next` holding the entries (all `dead` for a byte from 128 on). Apart from the
    /// reports' code, so that the rows and addresses stay in registers.
    @usableFromInline @inline(never)
    static func silentSteps(
        _ entries: UnsafePointer<UInt32>, _ classA: UnsafePointer<UInt8>, _ classB: UnsafePointer<UInt8>, _ classC: UnsafePointer<UInt8>?,
        _ bytes: UnsafePointer<UInt8>, _ count: Int, index: inout Int, rows: inout (Int, Int, Int), next: inout (UInt32, UInt32, UInt32)
    ) -> Bool {
        var (rowA, rowB, rowC) = rows
        // (By pointer to the URL's end: one register and one comparison for the place.)
        var place = bytes + index
        let end = bytes + count
        defer {
            rows = (rowA, rowB, rowC)
            index = place - bytes
        }
        guard let classC else {
            while place < end {
                let byte = place.pointee
                place += 1
                guard byte < 128 else {
                    next = (DenseTable.dead, DenseTable.dead, 0)
                    return true
                }
                let nextA = entries[rowA &+ Int(classA[Int(byte)])]
                let nextB = entries[rowB &+ Int(classB[Int(byte)])]
                guard (nextA | nextB) & DenseTable.specialBits == 0 else {
                    next = (nextA, nextB, 0)
                    return true
                }
                rowA = Int(nextA & DenseTable.rowMask)
                rowB = Int(nextB & DenseTable.rowMask)
            }
            return false
        }
        while place < end {
            let byte = place.pointee
            place += 1
            guard byte < 128 else {
                next = (DenseTable.dead, DenseTable.dead, DenseTable.dead)
                return true
            }
            let nextA = entries[rowA &+ Int(classA[Int(byte)])]
            let nextB = entries[rowB &+ Int(classB[Int(byte)])]
            let nextC = entries[rowC &+ Int(classC[Int(byte)])]
            guard (nextA | nextB | nextC) & DenseTable.specialBits == 0 else {
                next = (nextA, nextB, nextC)
                return true
            }
            rowA = Int(nextA & DenseTable.rowMask)
            rowB = Int(nextB & DenseTable.rowMask)
            rowC = Int(nextC & DenseTable.rowMask)
        }
        return false
    }
}

extension DenseTable {
    /// Runs the table over `url` like `Program.run(_:report:)`, telling `report` each pattern and
    /// after how many bytes it was reached; returns the steps (for tests and tools).
    public func run(_ url: UnsafeBufferPointer<UInt8>, report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) -> Int {
        withView { $0.run(url, report: report) }
    }

    /// Runs this table and `others` over `url` in one pass (`DenseView.run`: two or three
    /// tables, their entries put in one buffer first); returns the steps of all (for tests and tools).
    public func run(
        togetherWith others: [DenseTable], _ url: UnsafeBufferPointer<UInt8>, report: (_ pattern: UInt32, _ bytesRead: Int) -> Void
    ) -> Int {
        let tables = [self] + others
        precondition(tables.count == 2 || tables.count == 3, "two or three tables run together")
        var entries: [UInt32] = []
        var starts: [Int] = []
        for table in tables {
            starts.append(entries.count)
            Self.append(table.entries, to: &entries)
        }
        return entries.withUnsafeBufferPointer { entries in
            func view(_ index: Int, _ body: (DenseView) -> Int) -> Int {
                let table = tables[index]
                return table.acceptStart.withUnsafeBufferPointer { acceptStart in
                    table.accepts.withUnsafeBufferPointer { accepts in
                        table.classOfByte.withUnsafeBufferPointer { classOf in
                            body(DenseView(
                                entries: entries, start: starts[index], acceptStart: acceptStart, accepts: accepts,
                                classCount: table.classCount, startReports: table.startReports, classOf: classOf))
                        }
                    }
                }
            }
            return view(0) { a in
                view(1) { b in tables.count == 2 ? DenseView.run(a, b, url, report: report) : view(2) { c in DenseView.run(a, b, c, url, report: report) } }
            }
        }
    }

    /// Appends a table's `entries` to `buffer`, their row offsets made to count from `buffer`'s
    /// first entry (as tables run in one pass read them). The buffer stays within `budget`
    /// entries, so the offsets stay below `rowMask`.
    static func append(_ entries: [UInt32], to buffer: inout [UInt32]) {
        let start = buffer.count
        precondition(start + entries.count <= budget, "a buffer of dense tables holds at most `budget` entries")
        buffer += entries
        guard start > 0 else { return }
        buffer.withUnsafeMutableBufferPointer { buffer in
            // (Branch-free: the loop is vectorized.)
            let offset = UInt32(start)
            for at in start..<buffer.count {
                let entry = buffer[at]
                buffer[at] = entry &+ (entry == dead ? 0 : offset)
            }
        }
    }

    func withView<Result>(_ body: (DenseView) -> Result) -> Result {
        entries.withUnsafeBufferPointer { entries in
            acceptStart.withUnsafeBufferPointer { acceptStart in
                accepts.withUnsafeBufferPointer { accepts in
                    classOfByte.withUnsafeBufferPointer { classOf in
                        body(DenseView(
                            entries: entries, start: 0, acceptStart: acceptStart, accepts: accepts, classCount: classCount,
                            startReports: startReports, classOf: classOf))
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
