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
//                       bits 3-7: zero
//     [accepts]         when bit 2 is set: varint n (n >= 1), then n varints: the first pattern
//                       id, then the gap to each next one (>= 1): ids strictly increase
//     transitions       by form:
//       stop        0   every class leads nowhere: the program stops here
//       sparse          1 (n, 1...255), then n x (class 1, target W), classes strictly
//                       increasing; other classes lead nowhere
//       fallback        target W (the fallback), 1 (n, 0...255), then n x (class 1, target W),
//                       classes strictly increasing; other classes lead to the fallback
//       dense           classCount x target W, one per class in order
//
// A target is the offset of a state instruction within the program, little-endian in W bytes;
// all-ones (0xFFFF, 0xFFFFFF, 0xFFFFFFFF) means nowhere: the program stops. The form of each
// state is whichever is shortest. States are laid out breadth first from the start state, so the
// states of common prefixes sit together.

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

    /// The class of each byte 0...127; bytes 128...255 stop the program.
    public let classOfByte: [UInt8]
    public let classCount: Int
    /// Bytes per target: 2, 3 or 4.
    public let targetWidth: Int
    public let code: [UInt8]
    /// States in the program (for reports).
    public let stateCount: Int

    init(classOfByte: [UInt8], classCount: Int, targetWidth: Int, code: [UInt8], stateCount: Int) {
        self.classOfByte = classOfByte
        self.classCount = classCount
        self.targetWidth = targetWidth
        self.code = code
        self.stateCount = stateCount
    }

    var nowhere: UInt32 { targetWidth == 4 ? UInt32.max : (UInt32(1) << (8 * UInt32(targetWidth))) - 1 }

    /// The program of `dfa`.
    public init(_ dfa: DFA) {
        let classCount = dfa.classCount
        // Breadth-first order from the start state.
        var order: [Int] = [0]
        var position = [Int](repeating: -1, count: dfa.stateCount)
        position[0] = 0
        var head = 0
        while head < order.count {
            let state = order[head]
            head += 1
            for byteClass in 0..<classCount {
                let target = dfa.transitions[state * classCount + byteClass]
                if target != DFAStateID.dead.rawValue, position[Int(target)] < 0 {
                    position[Int(target)] = order.count
                    order.append(Int(target))
                }
            }
        }
        // Plan each state's form, then size the program with the narrowest width that fits.
        struct Plan { var form: TransitionForm; var fallback: UInt32; var exceptions: [(UInt8, UInt32)]; var accepts: [UInt8] }
        let dead = DFAStateID.dead.rawValue
        var plans: [Plan] = []
        plans.reserveCapacity(order.count)
        var counts: [UInt32: Int] = [:]
        for state in order {
            let row = dfa.transitions[state * classCount..<(state + 1) * classCount]
            var accepts = ByteWriter()
            let accepted = dfa.accepted(by: DFAStateID(state))
            if !accepted.isEmpty {
                accepts.varint(UInt32(accepted.count))
                var previous: UInt32 = 0
                for (index, pattern) in accepted.enumerated() {
                    accepts.varint(index == 0 ? pattern.rawValue : pattern.rawValue - previous)
                    previous = pattern.rawValue
                }
            }
            counts.removeAll(keepingCapacity: true)
            for target in row where target != dead { counts[target, default: 0] += 1 }
            if counts.isEmpty {
                plans.append(Plan(form: .stop, fallback: dead, exceptions: [], accepts: accepts.bytes))
                continue
            }
            let (common, commonCount) = counts.max { ($0.value, $1.key) < ($1.value, $0.key) }!
            let live = row.count { $0 != dead }
            // Costs in targets and bytes, with W counted later: compare at W = 3.
            let sparseCost = live <= 255 ? 1 + live * 4 : Int.max
            let fallbackCost = classCount - commonCount <= 255 ? 3 + 1 + (classCount - commonCount) * 4 : Int.max
            let denseCost = classCount * 3
            var plan = Plan(form: .dense, fallback: dead, exceptions: [], accepts: accepts.bytes)
            if sparseCost <= fallbackCost && sparseCost < denseCost {
                plan.form = .sparse
                for (byteClass, target) in row.enumerated() where target != dead { plan.exceptions.append((UInt8(byteClass), target)) }
            } else if fallbackCost < denseCost {
                plan.form = .fallback
                plan.fallback = common
                for (byteClass, target) in row.enumerated() where target != common { plan.exceptions.append((UInt8(byteClass), target)) }
            }
            plans.append(plan)
        }
        func size(_ plan: Plan, width: Int) -> Int {
            let transitions = switch plan.form {
            case .stop: 0
            case .sparse: 1 + plan.exceptions.count * (1 + width)
            case .fallback: width + 1 + plan.exceptions.count * (1 + width)
            case .dense: classCount * width
            }
            return 1 + plan.accepts.count + transitions
        }
        var width = 2
        var offsets: [Int] = []
        while true {
            offsets.removeAll(keepingCapacity: true)
            var total = 0
            for plan in plans {
                offsets.append(total)
                total += size(plan, width: width)
            }
            if width == 4 || total < (1 << (8 * width)) - 1 { break }
            width += 1
        }
        let nowhere: UInt32 = width == 4 ? UInt32.max : (UInt32(1) << (8 * UInt32(width))) - 1
        var writer = ByteWriter()
        func target(_ state: UInt32) {
            writer.integer(state == dead ? nowhere : UInt32(offsets[position[Int(state)]]), width: width)
        }
        for (index, plan) in plans.enumerated() {
            let state = order[index]
            writer.u8(plan.form.rawValue | (plan.accepts.isEmpty ? 0 : Self.acceptsFlag))
            writer.append(contentsOf: plan.accepts)
            switch plan.form {
            case .stop: break
            case .sparse:
                writer.u8(UInt8(plan.exceptions.count))
                for (byteClass, next) in plan.exceptions { writer.u8(byteClass); target(next) }
            case .fallback:
                target(plan.fallback)
                writer.u8(UInt8(plan.exceptions.count))
                for (byteClass, next) in plan.exceptions { writer.u8(byteClass); target(next) }
            case .dense:
                for byteClass in 0..<classCount { target(dfa.transitions[state * classCount + byteClass]) }
            }
        }
        self.init(
            classOfByte: dfa.byteClasses.classOfByte, classCount: classCount, targetWidth: width, code: writer.bytes,
            stateCount: order.count)
    }
}
