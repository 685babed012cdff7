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
        // A state's row is read dense, written into a buffer from the DFA's live transitions: one
        // buffer for the state at hand, one for the reference state's row.
        let rowBuffer = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: dfa.classCount)
        let referenceBuffer = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: dfa.classCount)
        defer {
            rowBuffer.deallocate()
            referenceBuffer.deallocate()
        }
        let (code, width, stateCount, reference) = Self.encode(dfa, rowBuffer: rowBuffer, referenceBuffer: referenceBuffer)
        self.init(
            classOfByte: dfa.byteClasses.classOfByte, classCount: dfa.classCount, targetWidth: width, code: code,
            stateCount: stateCount, reference: reference)
    }

    /// The program's code, target width, state count and reference offset, in the phases below.
    private static func encode(
        _ dfa: DFA, rowBuffer: UnsafeMutableBufferPointer<UInt32>, referenceBuffer: UnsafeMutableBufferPointer<UInt32>
    ) -> (code: [UInt8], width: Int, stateCount: Int, reference: UInt32) {
        var encoding = Encoding(dfa, rowBuffer: rowBuffer, referenceBuffer: referenceBuffer)
        encoding.planForms()
        encoding.chooseReference()
        encoding.planChains()
        encoding.planBranches()
        let (width, offsets) = encoding.narrowestWidth()
        let code = encoding.write(width: width, offsets: offsets)
        let nowhere: UInt32 = width == 4 ? UInt32.max : (UInt32(1) << (8 * UInt32(width))) - 1
        let reference = encoding.reference.map { UInt32(offsets[encoding.position[$0]]) } ?? nowhere
        return (code, width, encoding.order.count, reference)
    }

    /// One DFA on its way to code. Built in order: the layout (`init`), each state's form
    /// (`planForms`), the reference state (`chooseReference`), chains (`planChains`), branches
    /// (`planBranches`), the target width (`narrowestWidth`), the bytes (`write`).
    private struct Encoding {
        let dfa: DFA
        let classCount: Int
        let rowBuffer: UnsafeMutableBufferPointer<UInt32>
        let referenceBuffer: UnsafeMutableBufferPointer<UInt32>
        /// The targets, read from an array of their own: a closure reading them from `dfa` would
        /// copy the DFA, retaining each of its arrays, at every state.
        let liveTargets: [UInt32]
        /// The states in layout order, each state's place in it, and its incoming transitions.
        var order: [Int] = []
        var position: [Int]
        var incoming: [Int]
        /// Per state in layout order: the bytes of its accept list, the state laid out after it
        /// (dead for the last), and how it will be written.
        var acceptBytes: [Int] = []
        var nextState: [UInt32] = []
        var plans: [StatePlan] = []
        /// The state the delta form refers to, when one saves bytes; its row, read once chosen.
        var reference: Int?
        var referenceRow: UnsafeBufferPointer<UInt32>?

        /// Lays the states out depth first from the start state, targets by class: a state's
        /// first target not yet placed comes right after it.
        init(_ dfa: DFA, rowBuffer: UnsafeMutableBufferPointer<UInt32>, referenceBuffer: UnsafeMutableBufferPointer<UInt32>) {
            self.dfa = dfa
            classCount = dfa.classCount
            self.rowBuffer = rowBuffer
            self.referenceBuffer = referenceBuffer
            liveTargets = dfa.liveTargets
            position = [Int](repeating: -1, count: dfa.stateCount)
            incoming = [Int](repeating: 0, count: dfa.stateCount)
            var pending: [Int] = [0]
            while let state = pending.popLast() {
                guard position[state] < 0 else { continue }
                position[state] = order.count
                order.append(state)
                for live in dfa.row(state).reversed() {
                    let target = Int(liveTargets[live])
                    incoming[target] += 1
                    if position[target] < 0 { pending.append(target) }
                }
            }
        }

        /// `state`'s row, dense, valid until the next call.
        func row(_ state: Int) -> UnsafeBufferPointer<UInt32> {
            dfa.write(row: state, into: rowBuffer)
            return UnsafeBufferPointer(rowBuffer)
        }

        /// The same in the reference's buffer, valid until the next call of this one.
        func referenceRowOf(_ state: Int) -> UnsafeBufferPointer<UInt32> {
            dfa.write(row: state, into: referenceBuffer)
            return UnsafeBufferPointer(referenceBuffer)
        }

        /// Plans each state's form without a reference (costs compared at W = 3). Plans are a few
        /// integers: exceptions and accept lists are written from the DFA's rows at the end, so
        /// planning allocates nothing per state.
        mutating func planForms() {
            let dead = DFAStateID.dead.rawValue
            let order = order
            acceptBytes = order.map { Program.acceptListSize(dfa.accepted(by: DFAStateID($0))) }
            nextState = order.indices.map { index in index + 1 < order.count ? UInt32(order[index + 1]) : dead }
            var scratch: [UInt32] = []
            scratch.reserveCapacity(classCount)
            plans = order.indices.map { index in
                // A state that stops, or has one class to the next state laid out (most of a
                // trie's states), is planned from its live transitions: writing and scanning a
                // dense row for each would be most of a suffix trie's emission. `plan` gives both
                // the same plans.
                let live = dfa.row(order[index])
                if live.isEmpty { return StatePlan(form: .stop, cost: 1 + acceptBytes[index]) }
                if live.count == 1 && liveTargets[live.lowerBound] == nextState[index] && 1 + 4 <= classCount * 3 {
                    return StatePlan(form: .sparse, isNext: true, exceptionCount: 1, cost: 1 + acceptBytes[index] + 1)
                }
                return Program.plan(
                    row(order[index]), acceptBytes: acceptBytes[index], reference: nil, next: nextState[index], classCount: classCount,
                    scratch: &scratch)
            }
        }

        /// The reference: the start state or the most targeted one, whichever saves more, when
        /// either saves bytes; the states replanned with the delta form against it.
        mutating func chooseReference() {
            let order = order
            let mostTargeted = incoming.indices.max { incoming[$0] < incoming[$1] } ?? 0
            var best: (reference: Int, plans: [StatePlan], size: Int)?
            let plainSize = plans.reduce(0) { $0 + $1.cost }
            for candidate in Set([0, mostTargeted]).sorted() {
                let referenceRow = referenceRowOf(candidate)
                var size = 0
                let candidatePlans = order.indices.map { index in
                    let state = order[index]
                    // A state that stops or has one class to the next state gets that plan whatever
                    // the reference (`plan` returns it before looking at one): most of a trie's
                    // states.
                    let plan = state == candidate || plans[index].form == .stop || plans[index].isNext
                        ? plans[index]
                        : Program.deltaPlan(
                            row(state), acceptBytes: acceptBytes[index], reference: referenceRow, next: nextState[index],
                            over: plans[index])
                    size += plan.cost
                    return plan
                }
                if size < plainSize && size < best?.size ?? Int.max { best = (candidate, candidatePlans, size) }
            }
            if let best {
                plans = best.plans
                reference = best.reference
                referenceRow = referenceRowOf(best.reference)
            }
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

        /// Branches: a listed class leading to the state laid out next needs no target.
        mutating func planBranches() {
            for index in plans.indices where !plans[index].isNext && !plans[index].isAllNext && !plans[index].isChainMember
                && index + 1 < plans.count {
                let plan = plans[index]
                guard plan.form == .sparse || plan.form == .fallback else { continue }
                let next = UInt32(order[index + 1])
                for (offset, target) in row(order[index]).enumerated() where target == next {
                    let unlisted = plan.isDelta ? referenceRow![referenceRow!.startIndex + offset] : plan.fallback
                    if target != unlisted {
                        plans[index].firstNextClass = offset
                        break
                    }
                }
            }
        }

        /// The narrowest target width (2, 3 or 4 bytes) whose offsets all fit, with each planned
        /// instruction's offset at that width.
        func narrowestWidth() -> (width: Int, offsets: [Int]) {
            func size(_ plan: StatePlan, acceptBytes: Int, width: Int) -> Int {
                if plan.isChainMember { return 0 }
                if plan.chainLength > 0 { return 1 + acceptBytes + 1 + plan.chainLength }
                let transitions = switch plan.form {
                case .stop: 0
                case .sparse: plan.isNext ? 1 : plan.isAllNext ? 1 + plan.exceptionCount : 1 + plan.exceptionCount * (1 + width)
                case .fallback: width + 1 + plan.exceptionCount * (1 + width)
                case .dense: classCount * width
                }
                if plan.firstNextClass != nil { return 1 + acceptBytes + transitions - width }
                return 1 + acceptBytes + transitions
            }
            var width = 2
            var offsets: [Int] = []
            while true {
                offsets.removeAll(keepingCapacity: true)
                var total = 0
                for (index, plan) in plans.enumerated() {
                    offsets.append(total)
                    total += size(plan, acceptBytes: acceptBytes[index], width: width)
                }
                if width == 4 || total < (1 << (8 * width)) - 1 { break }
                width += 1
            }
            return (width, offsets)
        }

        /// The code: each planned instruction, its targets `width` bytes wide.
        func write(width: Int, offsets: [Int]) -> [UInt8] {
            let dead = DFAStateID.dead.rawValue
            let nowhere: UInt32 = width == 4 ? UInt32.max : (UInt32(1) << (8 * UInt32(width))) - 1
            var writer = ByteWriter()
            func target(_ state: UInt32) {
                writer.integer(state == dead ? nowhere : UInt32(offsets[position[Int(state)]]), width: width)
            }
            for (index, plan) in plans.enumerated() where !plan.isChainMember {
                let state = order[index]
                let accepted = dfa.accepted(by: DFAStateID(state))
                writer.u8(
                    plan.form.rawValue | (accepted.isEmpty ? 0 : Program.acceptsFlag) | (plan.isDelta ? Program.deltaFlag : 0)
                        | (plan.isNext || plan.isAllNext ? Program.nextFlag : 0) | (plan.chainLength > 0 ? Program.chainFlag : 0)
                        | (plan.firstNextClass != nil || plan.isAllNext ? Program.firstNextFlag : 0)
                        | (accepted.count == 1 ? Program.oneAcceptFlag : 0))
                if accepted.count == 1 {
                    writer.varint(accepted.first!.rawValue)
                } else if !accepted.isEmpty {
                    writer.varint(UInt32(accepted.count))
                    var previous: UInt32 = 0
                    for (index, pattern) in accepted.enumerated() {
                        writer.varint(index == 0 ? pattern.rawValue : pattern.rawValue - previous)
                        previous = pattern.rawValue
                    }
                }
                if plan.chainLength > 0 {
                    writer.u8(UInt8(plan.chainLength))
                    for member in order[index..<index + plan.chainLength] {
                        writer.u8(dfa.liveClasses[dfa.row(member).lowerBound])
                    }
                    continue
                }
                if plan.form == .stop { continue }
                if plan.isNext && !plan.isDelta {
                    // The one live class (`exceptions` would find it in the dense row).
                    writer.u8(dfa.liveClasses[dfa.row(state).lowerBound])
                    continue
                }
                let transitions = row(state)
                // The classes listed: those that differ from what the form gives unlisted classes.
                func exceptions() {
                    if !plan.isNext { writer.u8(UInt8(plan.exceptionCount)) }
                    if plan.isAllNext {
                        for (offset, next) in transitions.enumerated() where next != dead { writer.u8(UInt8(offset)) }
                        return
                    }
                    if let first = plan.firstNextClass { writer.u8(UInt8(first)) }
                    for (offset, next) in transitions.enumerated() where offset != plan.firstNextClass {
                        let unlisted = plan.isDelta ? referenceRow![referenceRow!.startIndex + offset] : plan.fallback
                        if next != unlisted {
                            writer.u8(UInt8(offset))
                            if !plan.isNext { target(next) }
                        }
                    }
                }
                switch plan.form {
                case .stop: break
                case .sparse: exceptions()
                case .fallback:
                    target(plan.fallback)
                    exceptions()
                case .dense:
                    for next in transitions { target(next) }
                }
            }
            return writer.bytes
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
    static func acceptListSize(_ accepted: ArraySlice<PatternID>) -> Int {
        guard !accepted.isEmpty else { return 0 }
        func varintSize(_ value: UInt32) -> Int { value < 1 << 7 ? 1 : value < 1 << 14 ? 2 : value < 1 << 21 ? 3 : value < 1 << 28 ? 4 : 5 }
        if accepted.count == 1 { return varintSize(accepted.first!.rawValue) }
        var size = varintSize(UInt32(accepted.count))
        var previous: UInt32 = 0
        for (index, pattern) in accepted.enumerated() {
            size += varintSize(index == 0 ? pattern.rawValue : pattern.rawValue - previous)
            previous = pattern.rawValue
        }
        return size
    }

    /// The shortest form for a state with transitions `row`, with the delta form when a reference
    /// row is given; `next` is the state laid out after it. `scratch` is working memory kept
    /// between calls.
    static func plan(
        _ row: UnsafeBufferPointer<UInt32>, acceptBytes: Int, reference: UnsafeBufferPointer<UInt32>?, next: UInt32, classCount: Int,
        scratch: inout [UInt32]
    ) -> StatePlan {
        let dead = DFAStateID.dead.rawValue
        let header = 1 + acceptBytes
        // One pass for the live classes, those leading to `next`, and the most common live
        // target if one leads from more than half of them (a majority vote, Boyer and Moore).
        var live = 0
        var toNext = 0
        var candidate = dead
        var votes = 0
        for target in row where target != dead {
            live += 1
            if target == next { toNext += 1 }
            if votes == 0 {
                candidate = target
                votes = 1
            } else {
                votes += target == candidate ? 1 : -1
            }
        }
        if live == 0 { return StatePlan(form: .stop, cost: header) }
        var plan = StatePlan(form: .dense, cost: header + classCount * 3)
        if live <= 255, header + 1 + live * 4 <= plan.cost {
            plan = StatePlan(form: .sparse, exceptionCount: live, cost: header + 1 + live * 4)
            if live == 1 && next != dead && toNext == 1 {
                return StatePlan(form: .sparse, isNext: true, exceptionCount: 1, cost: header + 1)
            }
            if live > 1 && next != dead && header + 1 + live < plan.cost && toNext == live {
                plan = StatePlan(form: .sparse, isAllNext: true, exceptionCount: live, cost: header + 1 + live)
            }
        }
        if live > 1 {
            // The most common live target (the smallest of equally common ones): the vote's
            // candidate when it holds more than half the live classes; otherwise found by sorted
            // runs, not a dictionary (hashing every transition would cost a tenth of KaBlock's
            // compile).
            var common = candidate
            var commonCount = row.count { $0 == candidate }
            if commonCount * 2 <= live {
                scratch.removeAll(keepingCapacity: true)
                for target in row where target != dead { scratch.append(target) }
                scratch.sort()
                commonCount = 0
                var runStart = 0
                while runStart < scratch.count {
                    var runEnd = runStart + 1
                    while runEnd < scratch.count && scratch[runEnd] == scratch[runStart] { runEnd += 1 }
                    if runEnd - runStart > commonCount {
                        commonCount = runEnd - runStart
                        common = scratch[runStart]
                    }
                    runStart = runEnd
                }
            }
            let listed = classCount - commonCount
            if listed <= 255, header + 4 + listed * 4 < plan.cost {
                plan = StatePlan(form: .fallback, fallback: common, exceptionCount: listed, cost: header + 4 + listed * 4)
            }
        }
        if let reference { plan = deltaPlan(row, acceptBytes: acceptBytes, reference: reference, next: next, over: plan) }
        return plan
    }

    /// `plan` (a state's plan without a reference, neither a stop nor one class to the next
    /// state) or the delta form against `reference`, whichever is shorter: what `plan` gives
    /// with that reference, without planning the other forms again.
    static func deltaPlan(
        _ row: UnsafeBufferPointer<UInt32>, acceptBytes: Int, reference: UnsafeBufferPointer<UInt32>, next: UInt32, over plan: StatePlan
    ) -> StatePlan {
        let header = 1 + acceptBytes
        var differing = 0
        var onlyDiffering = DFAStateID.dead.rawValue
        for index in row.indices where row[index] != reference[index] {
            differing += 1
            onlyDiffering = row[index]
        }
        if differing == 1 && next != DFAStateID.dead.rawValue && onlyDiffering == next && header + 1 < plan.cost {
            return StatePlan(form: .sparse, isDelta: true, isNext: true, exceptionCount: 1, cost: header + 1)
        }
        if differing <= 255, header + 1 + differing * 4 < plan.cost {
            return StatePlan(form: .sparse, isDelta: true, exceptionCount: differing, cost: header + 1 + differing * 4)
        }
        return plan
    }
}
