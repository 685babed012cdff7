// Program.swift — Bytecode
//
// One DFA as a program: a byte-class map and a sequence of state instructions. The interpreter
// starts at the state at offset 0 and executes one state instruction per input byte (the URL's
// bytes, then the end-of-URL NUL); the patterns a state reports have matched.
//
// State instruction (operand widths in bytes; `W` is the program's target width, 2, 3 or 4):
//
//     header        1   bits 0-1: the transition form (`TransitionForm`)
//                       bit 2:    `acceptsFlag`, the state reports patterns
//                       bit 3:    `deltaFlag`, with the sparse form only: classes not listed
//                                 lead where they lead from the program's reference state
//                       bit 4:    `nextFlag`, with the sparse form only: one class is listed
//                                 and it leads to the next state instruction, whose offset is
//                                 not written (the transitions are the class alone, 1 byte)
//                       bit 5:    `chainFlag`, with the sparse form and the next flag only (not
//                                 delta): the instruction is a chain of L states, each with one
//                                 class leading to the next; the transitions are L (2...255) then
//                                 the L classes; after the last, the next instruction. Only the
//                                 first state may report patterns, and no target points inside
//                                 the chain (the others have their one incoming transition)
//                       bit 6:    `firstNextFlag`, with the sparse form (not next) or the fallback
//                                 form: the first class listed leads to the next instruction and
//                                 has no target written; it comes first, the others after it in
//                                 increasing order (a trie's branch: its first child follows it).
//                                 With the sparse form and the next flag (not delta, not chain):
//                                 several classes, all leading to the next instruction; the
//                                 transitions are n (2...255) then the n classes, increasing (a
//                                 domain's end, `[/:]`, before its accepting state)
//                       bit 7:    `oneAcceptFlag`, with bit 2: the accept list is one pattern id,
//                                 without the count
//     [accepts]         when bit 2 is set: varint n (n >= 2), then n varints: the first pattern
//                       id, then the gap to each next one (>= 1): ids strictly increase; with
//                       bit 7, one varint: the only pattern id
//     transitions       by form:
//       stop        0   every class leads nowhere: the program stops here
//       sparse          1 (n, 1...255; 0...255 with the delta flag), then n x (class 1,
//                       target W), classes strictly increasing; other classes lead nowhere (or,
//                       with the delta flag, as from the reference state)
//       fallback        target W (the fallback), 1 (n, 0...255), then n x (class 1, target W),
//                       classes strictly increasing; other classes lead to the fallback
//       dense           classCount x target W, one per class in order
//
// A target is the offset of a state instruction within the program, little-endian in W bytes;
// all-ones (0xFFFF, 0xFFFFFF, 0xFFFFFFFF) means nowhere: the program stops. The form of each
// state is whichever is shortest. States are laid out depth first from the start state, a state's
// first unplaced target (by class) right after it: a trie's chains (`d o u b l e c l i c k`, one
// live class per state) are then runs of states with the next flag, written as one chain
// instruction of a byte per state when three or more of them follow one another.
//
// The reference state (the delta form) is what makes unanchored patterns small: in their DFA
// almost every state leads, on almost every class, where the start state leads (the match
// restarts), so a state lists only the few classes where it continues a pattern. The reference
// itself never uses the delta form, so a transition takes at most one extra lookup.
// Tested by BytecodeTests/BytecodeTests.swift.

public import Automata

/// How a state instruction stores its transitions.
public enum TransitionForm: UInt8, Sendable, CaseIterable {
    case stop = 0
    case sparse = 1
    case fallback = 2
    case dense = 3
}

/// One DFA as a program, ready to run.
public struct Program: Hashable, Sendable {
    public static let acceptsFlag: UInt8 = 0b100
    public static let deltaFlag: UInt8 = 0b1000
    public static let nextFlag: UInt8 = 0b1_0000
    public static let chainFlag: UInt8 = 0b10_0000
    public static let firstNextFlag: UInt8 = 0b100_0000
    public static let oneAcceptFlag: UInt8 = 0b1000_0000
    /// Chains shorter than this stay next-form states (a chain costs 2 bytes more than its classes).
    static let shortestChain = 3

    /// The class of each byte 0...127; bytes 128...255 stop the program.
    public let classOfByte: [UInt8]
    public let classCount: Int
    /// Bytes per target: 2, 3 or 4.
    public let targetWidth: Int
    public let code: [UInt8]
    /// States in the program (for reports).
    public let stateCount: Int
    /// The offset of the reference state of the delta form, or nowhere when no state uses it.
    public let reference: UInt32

    /// Derived once for the interpreter: the all-ones target (nowhere), the reference state (0
    /// when none) and where its transitions start (0 when none or when they lie outside the code:
    /// a program read from a file runs only after `validate`, which refuses that).
    @usableFromInline package let nowhere: UInt32
    @usableFromInline package let referenceState: Int
    @usableFromInline package let referenceTransitions: Int

    init(classOfByte: [UInt8], classCount: Int, targetWidth: Int, code: [UInt8], stateCount: Int, reference: UInt32) {
        self.classOfByte = classOfByte
        self.classCount = classCount
        self.targetWidth = targetWidth
        self.code = code
        self.stateCount = stateCount
        self.reference = reference
        nowhere = targetWidth == 4 ? UInt32.max : (UInt32(1) << (8 * UInt32(targetWidth))) - 1
        referenceState = reference == nowhere ? 0 : Int(reference)
        referenceTransitions = reference == nowhere ? 0 : Self.transitionsOffset(code, state: referenceState) ?? 0
    }

    /// Where the transitions of the state at `state` start, with every read checked (nil when the
    /// code ends first).
    static func transitionsOffset(_ code: [UInt8], state: Int) -> Int? {
        guard state < code.count else { return nil }
        var offset = state + 1
        guard code[state] & acceptsFlag != 0 else { return offset }
        func varint() -> UInt32? {
            var value: UInt32 = 0
            for shift in stride(from: 0, through: 28, by: 7) {
                guard offset < code.count else { return nil }
                let byte = code[offset]
                offset += 1
                value |= UInt32(byte & 0x7F) << UInt32(shift)
                if byte & 0x80 == 0 { return value }
            }
            return nil
        }
        if code[state] & oneAcceptFlag != 0 { return varint() == nil ? nil : offset }
        guard let count = varint() else { return nil }
        for _ in 0..<min(count, UInt32(code.count)) {
            guard varint() != nil else { return nil }
        }
        return offset
    }

    /// The program of `dfa`.
    public init(_ dfa: DFA) {
        let (code, width, stateCount, reference) = Rows.reading(dfa) { rows in Self.encode(rows, classCount: dfa.classCount) }
        self.init(
            classOfByte: dfa.byteClasses.classOfByte, classCount: dfa.classCount, targetWidth: width, code: code,
            stateCount: stateCount, reference: reference)
    }

    /// The program's code, target width, state count and reference offset, in the phases below.
    private static func encode(_ rows: Rows, classCount: Int) -> (code: [UInt8], width: Int, stateCount: Int, reference: UInt32) {
        // A state's row is read dense where its form lists dead classes (fallback, dense, delta),
        // written into a buffer from its live transitions: one buffer for the state at hand, one
        // for the reference state's row. Planning counts transitions per target in a third (all
        // zero between uses).
        let rowBuffer = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: classCount)
        let referenceBuffer = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: classCount)
        let targetCounts = UnsafeMutableBufferPointer<Int32>.allocate(capacity: rows.stateCount)
        targetCounts.initialize(repeating: 0)
        defer {
            rowBuffer.deallocate()
            referenceBuffer.deallocate()
            targetCounts.deallocate()
        }
        var encoding = Encoding(
            rows, classCount: classCount, rowBuffer: rowBuffer, referenceBuffer: referenceBuffer, targetCounts: targetCounts)
        encoding.planForms()
        encoding.chooseReference()
        encoding.planChains()
        encoding.planBranches()
        let (width, stateOffsets, size) = encoding.narrowestWidth()
        let code = encoding.write(width: width, stateOffsets: stateOffsets, size: size)
        let nowhere: UInt32 = width == 4 ? UInt32.max : (UInt32(1) << (8 * UInt32(width))) - 1
        let reference = encoding.reference.map { stateOffsets[$0] } ?? nowhere
        return (code, width, encoding.order.count, reference)
    }

    /// A DFA's live transitions and accept lists (`DFA`'s arrays) read through pointers, valid
    /// while `reading` runs: the encoding reads every transition in several passes, and through
    /// the arrays each read would check its bounds.
    struct Rows {
        let rowStart: UnsafeBufferPointer<UInt32>
        let classes: UnsafeBufferPointer<UInt8>
        let targets: UnsafeBufferPointer<UInt32>
        let acceptStart: UnsafeBufferPointer<UInt32>
        let acceptedPatterns: UnsafeBufferPointer<PatternID>

        static func reading<Result>(_ dfa: DFA, _ body: (Rows) -> Result) -> Result {
            dfa.rowStart.withUnsafeBufferPointer { rowStart in
                dfa.liveClasses.withUnsafeBufferPointer { classes in
                    dfa.liveTargets.withUnsafeBufferPointer { targets in
                        dfa.acceptStart.withUnsafeBufferPointer { acceptStart in
                            dfa.acceptedPatterns.withUnsafeBufferPointer { acceptedPatterns in
                                body(Rows(
                                    rowStart: rowStart, classes: classes, targets: targets, acceptStart: acceptStart,
                                    acceptedPatterns: acceptedPatterns))
                            }
                        }
                    }
                }
            }
        }

        var stateCount: Int { acceptStart.count - 1 }

        /// The indices of `state`'s live transitions in `classes` and `targets` (classes increasing).
        @inline(__always)
        func live(_ state: Int) -> Range<Int> { Int(rowStart[state])..<Int(rowStart[state + 1]) }

        /// The patterns `state` reports, increasing.
        @inline(__always)
        func accepted(by state: Int) -> UnsafeBufferPointer<PatternID> {
            UnsafeBufferPointer(rebasing: acceptedPatterns[Int(acceptStart[state])..<Int(acceptStart[state + 1])])
        }

        /// Writes `state`'s row as a dense one (a target per class) into `dense`.
        @inline(__always)
        func write(row state: Int, into dense: UnsafeMutableBufferPointer<UInt32>) {
            // (`DFAStateID.dead` as the constant it is, all ones: the other module's global,
            // read through its addressor, leaves the fill a loop of stores.)
            dense.update(repeating: UInt32.max)
            for live in live(state) { dense[Int(classes[live])] = targets[live] }
        }
    }

    /// One DFA on its way to code. Built in order: the layout (`init`), each state's form
    /// (`planForms`), the reference state (`chooseReference`), chains (`planChains`), branches
    /// (`planBranches`), the target width (`narrowestWidth`), the bytes (`write`). The forms are
    /// planned from each state's live transitions, not its dense row: in an unanchored pattern's
    /// DFA a state has a live transition on most classes, but a trie's states have one or two.
    private struct Encoding {
        let rows: Rows
        let classCount: Int
        let rowBuffer: UnsafeMutableBufferPointer<UInt32>
        let referenceBuffer: UnsafeMutableBufferPointer<UInt32>
        let targetCounts: UnsafeMutableBufferPointer<Int32>
        /// The states in layout order, each state's place in it, and its incoming transitions.
        var order: [Int]
        var position: [Int]
        var incoming: [Int]
        /// Per state in layout order: its first transition (by class) to the state laid out after
        /// it, or -1 when none leads there.
        var transitionToNext: [Int]
        /// Per state in layout order: the bytes of its accept list, the state laid out after it
        /// (dead for the last), and how it will be written.
        var acceptBytes: [Int] = []
        var nextState: [UInt32] = []
        var plans: [StatePlan] = []
        /// The plans with the start state as the reference, until one is chosen.
        var startPlans: [StatePlan] = []
        /// The state the delta form refers to, when one saves bytes; its row, read once chosen.
        var reference: Int?
        var referenceRow: UnsafeBufferPointer<UInt32>?

        /// Lays the states out depth first from the start state, targets by class: a state's
        /// first target not yet placed comes right after it. (So its classes before that
        /// target's lead elsewhere, and a state with every target placed before it has none
        /// leading to the state after it.)
        init(_ rows: Rows, classCount: Int, rowBuffer: UnsafeMutableBufferPointer<UInt32>,
             referenceBuffer: UnsafeMutableBufferPointer<UInt32>, targetCounts: UnsafeMutableBufferPointer<Int32>) {
            self.rows = rows
            self.classCount = classCount
            self.rowBuffer = rowBuffer
            self.referenceBuffer = referenceBuffer
            self.targetCounts = targetCounts
            let stateCount = rows.stateCount
            var order: [Int] = []
            order.reserveCapacity(stateCount)
            var position = [Int](repeating: -1, count: stateCount)
            var incoming = [Int](repeating: 0, count: stateCount)
            var transitionToNext: [Int] = []
            transitionToNext.reserveCapacity(stateCount)
            position.withUnsafeMutableBufferPointer { position in
                incoming.withUnsafeMutableBufferPointer { incoming in
                    var pending: [Int] = [0]
                    while let state = pending.popLast() {
                        guard position[state] < 0 else { continue }
                        position[state] = order.count
                        order.append(state)
                        // (Targets by class, last first, so that the first is taken next.)
                        let live = rows.live(state)
                        var transition = live.upperBound
                        var firstPending = -1
                        while transition > live.lowerBound {
                            transition &-= 1
                            let target = Int(rows.targets[transition])
                            incoming[target] &+= 1
                            if position[target] < 0 {
                                pending.append(target)
                                firstPending = transition
                            }
                        }
                        transitionToNext.append(firstPending)
                    }
                }
            }
            self.order = order
            self.position = position
            self.incoming = incoming
            self.transitionToNext = transitionToNext
        }

        /// The same in the reference's buffer, valid until the next call of this one.
        func referenceRowOf(_ state: Int) -> UnsafeBufferPointer<UInt32> {
            rows.write(row: state, into: referenceBuffer)
            return UnsafeBufferPointer(referenceBuffer)
        }

        /// Plans each state's form without a reference (costs compared at W = 3), and with the
        /// start state as the reference (`chooseReference`'s first candidate), both from one pass
        /// over its live transitions. Plans are a few integers: exceptions and accept lists are
        /// written from the DFA's rows at the end, so planning allocates nothing per state.
        mutating func planForms() {
            let dead = DFAStateID.dead.rawValue
            let (rows, order, classCount, targetCounts) = (rows, order, classCount, targetCounts)
            acceptBytes = order.map { Program.acceptListSize(rows.accepted(by: $0)) }
            nextState = order.indices.map { index in index + 1 < order.count ? UInt32(order[index + 1]) : dead }
            let start = ReferenceRow(state: 0, targets: referenceRowOf(0), live: rows.live(0).count)
            plans.reserveCapacity(order.count)
            startPlans.reserveCapacity(order.count)
            for index in order.indices {
                let (plain, delta) = Program.plan(
                    rows, order[index], acceptBytes: acceptBytes[index], next: nextState[index], classCount: classCount,
                    counts: targetCounts, reference: start)
                plans.append(plain)
                startPlans.append(delta)
            }
        }

        /// The reference: the start state or the most targeted one, whichever saves more, when
        /// either saves bytes; the states replanned with the delta form against it.
        mutating func chooseReference() {
            let mostTargeted = incoming.indices.max { incoming[$0] < incoming[$1] } ?? 0
            var best: (reference: Int, plans: [StatePlan], size: Int)?
            let plainSize = plans.reduce(0) { $0 + $1.cost }
            for candidate in Set([0, mostTargeted]).sorted() {
                let candidatePlans = candidate == 0 ? startPlans : replanned(against: candidate)
                let size = candidatePlans.reduce(0) { $0 + $1.cost }
                if size < plainSize && size < best?.size ?? Int.max { best = (candidate, candidatePlans, size) }
            }
            startPlans = []
            if let best {
                plans = best.plans
                reference = best.reference
                referenceRow = referenceRowOf(best.reference)
            }
        }

        /// Each state's plan with `candidate` as the reference.
        func replanned(against candidate: Int) -> [StatePlan] {
            let (rows, order, acceptBytes, nextState) = (rows, order, acceptBytes, nextState)
            let reference = ReferenceRow(state: candidate, targets: referenceRowOf(candidate), live: rows.live(candidate).count)
            var candidatePlans = plans
            candidatePlans.withUnsafeMutableBufferPointer { candidatePlans in
                for index in candidatePlans.indices {
                    candidatePlans[index] = Program.deltaPlan(
                        rows, order[index], acceptBytes: acceptBytes[index], next: nextState[index], reference: reference,
                        over: candidatePlans[index])
                }
            }
            return candidatePlans
        }

        /// Chains: next-form states one after another, each entered only from the one before
        /// (and none the reference, whose header the delta form reads), become one instruction.
        mutating func planChains() {
            var head = 0
            while head < plans.count {
                guard plans[head].isNext && !plans[head].isDelta && order[head] != reference else {
                    head += 1
                    continue
                }
                var end = head + 1
                while end < plans.count, end - head < 255, plans[end].isNext, !plans[end].isDelta, acceptBytes[end] == 0,
                      incoming[order[end]] == 1, order[end] != reference {
                    end += 1
                }
                guard end - head >= Program.shortestChain else {
                    head += 1
                    continue
                }
                plans[head].chainLength = end - head
                for member in head + 1..<end { plans[member].isChainMember = true }
                head = end
            }
        }

        /// Branches: a listed class leading to the state laid out next needs no target. The
        /// first such class, by class, from the layout's first transition to that state (only
        /// live classes lead to it).
        mutating func planBranches() {
            for index in plans.indices where !plans[index].isNext && !plans[index].isAllNext && !plans[index].isChainMember
                && index + 1 < plans.count {
                let plan = plans[index]
                guard plan.form == .sparse || plan.form == .fallback else { continue }
                let next = UInt32(order[index + 1])
                guard transitionToNext[index] >= 0 else { continue }
                for live in transitionToNext[index]..<rows.live(order[index]).upperBound where rows.targets[live] == next {
                    let byteClass = Int(rows.classes[live])
                    let unlisted = plan.isDelta ? referenceRow![byteClass] : plan.fallback
                    if next != unlisted {
                        plans[index].firstNextClass = byteClass
                        break
                    }
                }
            }
        }

        /// The narrowest target width (2, 3 or 4 bytes) whose offsets all fit, with each state's
        /// instruction offset at that width (by state: what a target to it is written as) and the
        /// code's size. An instruction's size is some bytes and some targets: the code's size at
        /// each width follows from the sums of both, and so does each offset, from the sums before
        /// it (kept per state as one word, so that no plan's size is worked out twice).
        func narrowestWidth() -> (width: Int, stateOffsets: [UInt32], size: Int) {
            func size(_ plan: StatePlan, acceptBytes: Int) -> (bytes: Int, targets: Int) {
                if plan.isChainMember { return (0, 0) }
                if plan.chainLength > 0 { return (1 + acceptBytes + 1 + plan.chainLength, 0) }
                let (bytes, targets) = switch plan.form {
                case .stop: (0, 0)
                case .sparse: plan.isNext ? (1, 0) : plan.isAllNext ? (1 + plan.exceptionCount, 0) : (1 + plan.exceptionCount, plan.exceptionCount)
                case .fallback: (1 + plan.exceptionCount, 1 + plan.exceptionCount)
                case .dense: (0, classCount)
                }
                return (1 + acceptBytes + bytes, plan.firstNextClass != nil ? targets - 1 : targets)
            }
            // Per state, the bytes (low half) and targets (high half) of the instructions before it:
            // each below 2^32, as the code's size at any width must be for its offsets.
            var before = [UInt64](repeating: 0, count: rows.stateCount)
            var bytes = 0
            var targets = 0
            for (index, (plan, acceptBytes)) in zip(plans, acceptBytes).enumerated() {
                before[order[index]] = UInt64(truncatingIfNeeded: targets) << 32 | UInt64(truncatingIfNeeded: bytes)
                let (planBytes, planTargets) = size(plan, acceptBytes: acceptBytes)
                bytes += planBytes
                targets += planTargets
            }
            var width = 2
            while width < 4 && bytes + targets * width >= (1 << (8 * width)) - 1 { width += 1 }
            let stateWidth = UInt64(width)
            let stateOffsets = before.map { UInt32(truncatingIfNeeded: ($0 & 0xFFFF_FFFF) &+ ($0 >> 32) &* stateWidth) }
            return (width, stateOffsets, bytes + targets * width)
        }

        /// The code: each planned instruction, its targets `width` bytes wide (to `stateOffsets`,
        /// by state), into `size` bytes.
        func write(width: Int, stateOffsets: [UInt32], size: Int) -> [UInt8] {
            stateOffsets.withUnsafeBufferPointer { stateOffsets in
                // (Three bytes to spare: a target is stored four bytes wide, then `width` kept.)
                [UInt8](unsafeUninitializedCapacity: size + 3) { buffer, count in
                    var code = CodeBuffer(buffer, end: size, width: width, stateOffsets: stateOffsets)
                    for index in plans.indices where !plans[index].isChainMember { write(index, into: &code) }
                    precondition(code.count == size, "the code's size differs from its layout's")
                    count = size
                }
            }
        }

        /// The instruction of the state at `index` in layout order.
        private func write(_ index: Int, into code: inout CodeBuffer) {
            let plan = plans[index]
            let state = order[index]
            let accepted = rows.accepted(by: state)
            code.u8(
                plan.form.rawValue | (accepted.isEmpty ? 0 : Program.acceptsFlag) | (plan.isDelta ? Program.deltaFlag : 0)
                    | (plan.isNext || plan.isAllNext ? Program.nextFlag : 0) | (plan.chainLength > 0 ? Program.chainFlag : 0)
                    | (plan.firstNextClass != nil || plan.isAllNext ? Program.firstNextFlag : 0)
                    | (accepted.count == 1 ? Program.oneAcceptFlag : 0))
            if accepted.count == 1 {
                code.varint(accepted[0].rawValue)
            } else if !accepted.isEmpty {
                code.varint(UInt32(accepted.count))
                var previous: UInt32 = 0
                for (index, pattern) in accepted.enumerated() {
                    code.varint(index == 0 ? pattern.rawValue : pattern.rawValue - previous)
                    previous = pattern.rawValue
                }
            }
            if plan.chainLength > 0 {
                code.u8(UInt8(plan.chainLength))
                for member in order[index..<index + plan.chainLength] { code.u8(rows.classes[rows.live(member).lowerBound]) }
                return
            }
            if plan.form == .stop { return }
            let live = rows.live(state)
            if plan.isNext && !plan.isDelta {
                // The one live class.
                code.u8(rows.classes[live.lowerBound])
                return
            }
            if plan.form == .dense {
                rows.write(row: state, into: rowBuffer)
                for next in rowBuffer { code.target(next) }
                return
            }
            if plan.form == .fallback { code.target(plan.fallback) }
            if !plan.isNext { code.u8(UInt8(plan.exceptionCount)) }
            if plan.isAllNext {
                for transition in live { code.u8(rows.classes[transition]) }
                return
            }
            // The classes listed: those that differ from what the form gives unlisted classes,
            // the first leading to the next state (if planned) before the others. A sparse row
            // without the delta form lists its live classes; the other forms compare every class.
            let first = plan.firstNextClass ?? -1
            if first >= 0 { code.u8(UInt8(first)) }
            if plan.form == .sparse && !plan.isDelta {
                for transition in live where Int(rows.classes[transition]) != first {
                    code.u8(rows.classes[transition])
                    code.target(rows.targets[transition])
                }
                return
            }
            // (The first class, written already, is made to lead where unlisted classes do.)
            rows.write(row: state, into: rowBuffer)
            if plan.isDelta {
                let reference = referenceRow!
                if first >= 0 { rowBuffer[first] = reference[first] }
                for byteClass in 0..<classCount where rowBuffer[byteClass] != reference[byteClass] {
                    code.u8(UInt8(byteClass))
                    if !plan.isNext { code.target(rowBuffer[byteClass]) }
                }
            } else {
                if first >= 0 { rowBuffer[first] = plan.fallback }
                for byteClass in 0..<classCount where rowBuffer[byteClass] != plan.fallback {
                    code.u8(UInt8(byteClass))
                    code.target(rowBuffer[byteClass])
                }
            }
        }
    }

    /// Code written in place into memory sized from the layout beforehand, without an array's
    /// growth checks: a program's code is mostly one-byte classes and targets.
    private struct CodeBuffer {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        /// The code's size (the buffer has room for a 4-byte store at its last target).
        let end: Int
        let width: Int
        /// The dead state, the all-ones target, and each state's instruction offset.
        let dead = DFAStateID.dead.rawValue
        let nowhere: UInt32
        let stateOffsets: UnsafeBufferPointer<UInt32>
        var count = 0

        init(_ buffer: UnsafeMutableBufferPointer<UInt8>, end: Int, width: Int, stateOffsets: UnsafeBufferPointer<UInt32>) {
            precondition(buffer.count >= end + 3)
            self.buffer = buffer
            self.end = end
            self.width = width
            nowhere = width == 4 ? UInt32.max : (UInt32(1) << (8 * UInt32(width))) - 1
            self.stateOffsets = stateOffsets
        }

        @inline(__always)
        mutating func u8(_ value: UInt8) {
            precondition(count < end, "code beyond its layout's size")
            buffer[count] = value
            count += 1
        }

        /// A target to `state` (nowhere for dead), little-endian in `width` bytes.
        @inline(__always)
        mutating func target(_ state: UInt32) {
            precondition(count + width <= end, "code beyond its layout's size")
            let offset = state == dead ? nowhere : stateOffsets[Int(state)]
            UnsafeMutableRawPointer(buffer.baseAddress! + count).storeBytes(of: offset.littleEndian, as: UInt32.self)
            count += width
        }

        /// Unsigned LEB128, as `ByteWriter.varint` writes it.
        mutating func varint(_ value: UInt32) {
            var rest = value
            while rest >= 0x80 {
                u8(UInt8(rest & 0x7F) | 0x80)
                rest >>= 7
            }
            u8(UInt8(rest))
        }
    }

    /// How one state will be written: its form and how many classes it lists. Stored in 20 bytes:
    /// a program has three lists of plans (one per reference candidate), which at 56 bytes a plan
    /// would be a large part of a compile's memory.
    struct StatePlan {
        var form: TransitionForm
        var isDelta = false
        /// With the sparse form: the one class listed leads to the next state laid out.
        var isNext = false
        /// A chain's state after its first: written by the first.
        var isChainMember = false
        /// With the sparse form: several classes listed, all leading to the next state laid out.
        var isAllNext = false
        private var storedChainLength: UInt8 = 0
        private var storedFirstNextClass: UInt8?
        /// With the fallback form, the target of unlisted classes (dead for the sparse form).
        var fallback: UInt32 = DFAStateID.dead.rawValue
        private var storedExceptionCount: Int32
        private var storedCost: Int32

        init(form: TransitionForm, isDelta: Bool = false, isNext: Bool = false, isAllNext: Bool = false,
             fallback: UInt32 = DFAStateID.dead.rawValue, exceptionCount: Int = 0, cost: Int) {
            self.form = form
            self.isDelta = isDelta
            self.isNext = isNext
            self.isAllNext = isAllNext
            self.fallback = fallback
            storedExceptionCount = Int32(exceptionCount)
            storedCost = Int32(cost)
        }

        /// The first of a chain of this many next-form states (0: not a chain's first; at most 255).
        var chainLength: Int {
            get { Int(storedChainLength) }
            set { storedChainLength = UInt8(newValue) }
        }
        /// Sparse (not next) or fallback: the listed class that leads to the next instruction.
        var firstNextClass: Int? {
            get { storedFirstNextClass.map(Int.init) }
            set { storedFirstNextClass = newValue.map(UInt8.init) }
        }
        var exceptionCount: Int { Int(storedExceptionCount) }
        /// Bytes at W = 3, to compare forms.
        var cost: Int { Int(storedCost) }
    }

    /// Bytes of an accept list: a varint count, then varint gaps.
    static func acceptListSize(_ accepted: UnsafeBufferPointer<PatternID>) -> Int {
        guard !accepted.isEmpty else { return 0 }
        func varintSize(_ value: UInt32) -> Int { value < 1 << 7 ? 1 : value < 1 << 14 ? 2 : value < 1 << 21 ? 3 : value < 1 << 28 ? 4 : 5 }
        if accepted.count == 1 { return varintSize(accepted[0].rawValue) }
        var size = varintSize(UInt32(accepted.count))
        var previous: UInt32 = 0
        for (index, pattern) in accepted.enumerated() {
            size += varintSize(index == 0 ? pattern.rawValue : pattern.rawValue - previous)
            previous = pattern.rawValue
        }
        return size
    }

    /// A reference for the delta form: its state, its row (dense) and how many of its classes
    /// are live.
    struct ReferenceRow {
        let state: Int
        let targets: UnsafeBufferPointer<UInt32>
        let live: Int
    }

    /// Where a state's row differs from a reference row, counted over the state's live
    /// transitions: those leading elsewhere than the reference's, then the reference's live
    /// classes dead in the state (its live classes less those the state shares: the state's
    /// live classes but those dead in the reference, each of which leads elsewhere, as a live
    /// transition never leads nowhere). Counted in the branch of a differing class only: most
    /// classes of an unanchored pattern's state lead where the reference's do.
    struct Differences {
        private var differing = 0
        private var deadInReference = 0
        private var last = DFAStateID.dead.rawValue

        /// A live transition of the state to `target`, where the reference leads to `referenceTarget`.
        @inline(__always)
        mutating func add(_ target: UInt32, reference referenceTarget: UInt32) {
            if target != referenceTarget {
                differing += 1
                last = target
                if referenceTarget == DFAStateID.dead.rawValue { deadInReference += 1 }
            }
        }

        /// The classes that differ, given the state's `live` transitions, and where the only one
        /// leads in the state when one does (a class dead here but live in the reference leads
        /// nowhere).
        func result(_ reference: ReferenceRow, live: Int) -> (count: Int, only: UInt32) {
            let shared = live - deadInReference
            return shared < reference.live ? (differing + reference.live - shared, DFAStateID.dead.rawValue) : (differing, last)
        }
    }

    /// The shortest form for `state` without a reference, and with `reference`; `next` is the
    /// state laid out after it. Read from its live transitions (classes increasing): the dense
    /// row's other classes are dead, which no form but the dense one writes. `counts` has a zero
    /// per state, left so.
    static func plan(
        _ rows: Rows, _ state: Int, acceptBytes: Int, next: UInt32, classCount: Int, counts: UnsafeMutableBufferPointer<Int32>,
        reference: ReferenceRow
    ) -> (plain: StatePlan, delta: StatePlan) {
        let dead = DFAStateID.dead.rawValue
        let header = 1 + acceptBytes
        let transitions = rows.live(state)
        let live = transitions.count
        if live == 0 {
            let stop = StatePlan(form: .stop, cost: header)
            return (stop, stop)
        }
        // One pass for the most common live target (the smallest of equally common ones), counted
        // per target (not by sorting the targets nor hashing them: hashing every transition would
        // cost a tenth of KaBlock's compile), and the differences from the reference. Every live
        // class leads to `next` when `next` is the common target of them all.
        var common = dead
        var commonCount: Int32 = 0
        var differences = Differences()
        for transition in transitions {
            let target = rows.targets[transition]
            let count = counts[Int(target)] &+ 1
            counts[Int(target)] = count
            if count > commonCount || (count == commonCount && target < common) {
                common = target
                commonCount = count
            }
            differences.add(target, reference: reference.targets[Int(rows.classes[transition])])
        }
        for transition in transitions { counts[Int(rows.targets[transition])] = 0 }
        let allToNext = next != dead && common == next && Int(commonCount) == live
        var plan = StatePlan(form: .dense, cost: header + classCount * 3)
        if live <= 255, header + 1 + live * 4 <= plan.cost {
            plan = StatePlan(form: .sparse, exceptionCount: live, cost: header + 1 + live * 4)
            if live == 1 && allToNext {
                // (Whatever the reference: a state with one class to the next state.)
                let toNextOnly = StatePlan(form: .sparse, isNext: true, exceptionCount: 1, cost: header + 1)
                return (toNextOnly, toNextOnly)
            }
            if live > 1 && allToNext && header + 1 + live < plan.cost {
                plan = StatePlan(form: .sparse, isAllNext: true, exceptionCount: live, cost: header + 1 + live)
            }
        }
        let listed = classCount - Int(commonCount)
        if live > 1, listed <= 255, header + 4 + listed * 4 < plan.cost {
            plan = StatePlan(form: .fallback, fallback: common, exceptionCount: listed, cost: header + 4 + listed * 4)
        }
        if state == reference.state { return (plan, plan) }
        return (plan, deltaPlan(differences.result(reference, live: live), acceptBytes: acceptBytes, next: next, over: plan))
    }

    /// `plan` (`state`'s plan without a reference) or the delta form against `reference`,
    /// whichever is shorter: what `plan` gives with that reference, without planning the other
    /// forms again. A state that stops or has one class to the next state keeps that plan
    /// whatever the reference (`plan` returns it before looking at one): most of a trie's states.
    static func deltaPlan(
        _ rows: Rows, _ state: Int, acceptBytes: Int, next: UInt32, reference: ReferenceRow, over plan: StatePlan
    ) -> StatePlan {
        guard state != reference.state && plan.form != .stop && !plan.isNext else { return plan }
        var differences = Differences()
        let transitions = rows.live(state)
        for transition in transitions {
            differences.add(rows.targets[transition], reference: reference.targets[Int(rows.classes[transition])])
        }
        return deltaPlan(differences.result(reference, live: transitions.count), acceptBytes: acceptBytes, next: next, over: plan)
    }

    /// `plan` or the delta form listing `differences`' classes, whichever is shorter.
    static func deltaPlan(
        _ differences: (count: Int, only: UInt32), acceptBytes: Int, next: UInt32, over plan: StatePlan
    ) -> StatePlan {
        let header = 1 + acceptBytes
        let differing = differences.count
        if differing == 1 && next != DFAStateID.dead.rawValue && differences.only == next && header + 1 < plan.cost {
            return StatePlan(form: .sparse, isDelta: true, isNext: true, exceptionCount: 1, cost: header + 1)
        }
        if differing <= 255, header + 1 + differing * 4 < plan.cost {
            return StatePlan(form: .sparse, isDelta: true, exceptionCount: differing, cost: header + 1 + differing * 4)
        }
        return plan
    }
}
