// DenseTable.swift — Bytecode
//
// A small program's states expanded, in memory, into a table of one row per state and one entry
// per byte class: a step is then one read, where the compact form decodes the state's header and
// scans its exceptions (a small program stays in cache: decoding, not memory, is its cost). Only
// programs whose table stays small are expanded (`DenseTable.maximumEntries`), so building every
// table of a list is bounded work whatever the list's size, and the file keeps the compact form:
// the table is the interpreter's, not the format's.
//
// An entry is the next state's row offset (its state number times the class count), with the high
// bit set when that state reports patterns; `dead` (0x7FFF_FFFF) stops the run. Entries are 32-bit
// so that a suffix DFA of a few thousand states over fifty classes (EasyList's every-position stage)
// can be expanded too; the programs that run over the whole URL are small and stay in cache. A chain instruction's
// states become a state each, so a run takes exactly the steps, and reports exactly the patterns
// after exactly the bytes, that the compact program's does.

public struct DenseTable: Hashable, Sendable {
    /// At most this many entries (states x classes) in one table: 512 KB, a second-level cache's
    /// worth. EasyList's anchored and prefix programs are 56 x 25 entries and fewer; its
    /// every-position suffix DFAs 1,909 x 54.
    public static let maximumEntries = 131_072
    /// At most this many entries over all the tables of one program set (2 MB): programs that run
    /// over the whole URL are expanded first, then suffixes, while the budget lasts.
    public static let budget = 1 << 19
    public static let dead: UInt32 = 0x7FFF_FFFF
    public static let reportsBit: UInt32 = 0x8000_0000

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
    public init?(_ program: Program) {
        let classCount = program.classCount
        guard classCount > 0, classCount <= Self.maximumEntries else { return nil }
        let maximumStates = Self.maximumEntries / classCount
        // States are keyed by their offset; a chain's members after the first have no offset of their
        // own (no target points inside a chain), so they are numbered as they are met and keyed apart.
        var number: [Int: Int] = [0: 0]
        var pending = [0]
        var stateAccepts: [[UInt32]] = []
        // Per state met: a chain's classes and the offset after it, or where its targets start in
        // `targets` (a program offset per class, -1 for nowhere), kept for the rows below.
        var decoded: [(chain: [UInt8], chainEnd: Int, targetsStart: Int)] = []
        var targets: [Int] = []
        let ok = program.code.withUnsafeBufferPointer { code -> Bool in
            var index = 0
            while index < pending.count {
                let state = pending[index]
                index += 1
                var accepted: [UInt32] = []
                let transitions = Program.reportAccepts(code, state: state) { accepted.append($0) }
                stateAccepts.append(accepted)
                if code[state] & Program.chainFlag != 0 {
                    let length = Int(code[transitions])
                    let classes = Array(code[transitions + 1 ..< transitions + 1 + length])
                    let end = transitions + 1 + length
                    decoded.append((classes, end, 0))
                    if number[end] == nil {
                        number[end] = number.count
                        pending.append(end)
                    }
                } else {
                    decoded.append(([], 0, targets.count))
                    for byteClass in 0..<classCount {
                        let next = Program.transition(
                            code, state: state, transitions: transitions, byteClass: UInt8(byteClass), width: program.targetWidth,
                            nowhere: program.nowhere, reference: program.referenceState, referenceTransitions: program.referenceTransitions)
                        targets.append(next == program.nowhere ? -1 : Int(next))
                        if next != program.nowhere, number[Int(next)] == nil {
                            number[Int(next)] = number.count
                            pending.append(Int(next))
                        }
                    }
                }
                if pending.count > maximumStates { return false }
            }
            return true
        }
        guard ok else { return nil }
        // Number the states: the compact ones in the order met, then each chain's members after the
        // first, appended at the end.
        var stateCount = pending.count
        var memberBase: [Int] = []  // per decoded state: the number of its chain's second member
        for item in decoded {
            memberBase.append(stateCount)
            stateCount += max(0, item.chain.count - 1)
        }
        guard stateCount <= maximumStates, stateCount * classCount < Int(Self.dead) else { return nil }
        // Only the compact states (numbered first) report; a chain's later members never do.
        var acceptStart: [Int32] = []
        var accepts: [UInt32] = []
        for accepted in stateAccepts {
            acceptStart.append(Int32(accepts.count))
            accepts += accepted
        }
        acceptStart += [Int32](repeating: Int32(accepts.count), count: stateCount - stateAccepts.count + 1)
        func entry(_ state: Int?) -> UInt32 {
            guard let state else { return Self.dead }
            let reports = state < stateAccepts.count && !stateAccepts[state].isEmpty
            return UInt32(state * classCount) | (reports ? Self.reportsBit : 0)
        }
        var entries = [UInt32](repeating: Self.dead, count: stateCount * classCount)
        for (state, item) in decoded.enumerated() {
            if !item.chain.isEmpty {
                // Member k leads on its class to member k + 1; the last to the next instruction.
                let members = [state] + (0..<item.chain.count - 1).map { memberBase[state] + $0 }
                for (k, byteClass) in item.chain.enumerated() {
                    let next = k + 1 < members.count ? members[k + 1] : number[item.chainEnd]!
                    entries[members[k] * classCount + Int(byteClass)] = entry(next)
                }
                continue
            }
            for byteClass in 0..<classCount {
                let target = targets[item.targetsStart + byteClass]
                entries[state * classCount + byteClass] = entry(target < 0 ? nil : number[target]!)
            }
        }
        self.classCount = classCount
        self.classOfByte = program.classOfByte
        self.entries = entries
        self.startReports = !stateAccepts[0].isEmpty
        self.acceptStart = acceptStart
        self.accepts = accepts
    }
}

extension DenseTable {
    /// Runs the table over `url` like `Program.run(_:report:)`, telling `report` each pattern and
    /// after how many bytes it was reached; returns the steps (for tests and tools).
    public func run(_ url: UnsafeBufferPointer<UInt8>, report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) -> Int {
        entries.withUnsafeBufferPointer { entries in
            acceptStart.withUnsafeBufferPointer { acceptStart in
                accepts.withUnsafeBufferPointer { accepts in
                    classOfByte.withUnsafeBufferPointer { classOf in
                        Program.executeDense(
                            entries: entries, acceptStart: acceptStart, accepts: accepts, classCount: classCount,
                            startReports: startReports, classOf: classOf, url: url, report: report)
                    }
                }
            }
        }
    }
}

extension Program {
    /// Runs a dense table (`DenseTable`) over `url` then the end-of-URL NUL, exactly as `execute`
    /// runs the compact program it came from: the same reports after the same bytes, the same steps.
    @inlinable
    static func executeDense(
        entries: UnsafeBufferPointer<UInt32>, acceptStart: UnsafeBufferPointer<Int32>, accepts: UnsafeBufferPointer<UInt32>,
        classCount: Int, startReports: Bool, classOf: UnsafeBufferPointer<UInt8>, url: UnsafeBufferPointer<UInt8>,
        report: (_ pattern: UInt32, _ bytesRead: Int) -> Void
    ) -> Int {
        var row = 0
        var reports = startReports
        var index = 0
        while true {
            if reports {
                let state = row / classCount
                for at in Int(acceptStart[state])..<Int(acceptStart[state &+ 1]) { report(accepts[at], index) }
            }
            guard index <= url.count else { return index }
            let byte = index < url.count ? url[index] : 0
            index &+= 1
            guard byte < 128 else { return index }
            let next = entries[row &+ Int(classOf[Int(byte)])]
            guard next != DenseTable.dead else { return index }
            reports = next & DenseTable.reportsBit != 0
            row = Int(next & ~DenseTable.reportsBit)
        }
    }
}
