// WebKitBytecode: the bytes WebKit's compiler writes, counted the way it writes them, for the
// automata WebKitAutomata builds.
// - The actions (ContentExtensionCompiler.cpp, `serializeActions`): a rule with a condition gets
//   its own action; the others share one per action type and flags (a notification per text too)
//   until an `ignore-previous-rules`, and the `css-display-none` selectors of rules with the same
//   trigger are joined with commas into one. An action is its type's byte, and a string's length,
//   width flag and characters. A rule's action in the automata is the action's offset with the
//   trigger's flags (ResourceLoadInfo.h: resource types, load types, load contexts, the condition,
//   the request method).
// - A DFA (DFABytecodeCompiler.cpp): its states in the order they were found, each its actions
//   (an instruction with the offset and the flags, each in as few bytes as hold it), then its
//   transitions: when they cover every byte from 1, the commonest target is a final jump
//   instead; the other targets' runs of bytes, an upper-case run with the same targets as its
//   lower-case one written once for both, neighbouring single bytes as one jump table; each jump
//   as wide as the farthest its target could be (the targets not written yet at their most).
// Tested by SafariReleasesTests/WebKitModelTests.swift (WebKitShapeTests).

internal import Automata
internal import ContentRuleList

enum WebKitBytecode {
    /// The actions' bytes and each rule's action in the automata (offset | flags << 32).
    struct Actions {
        var bytes = 0
        var values: [UInt64] = []

        init(_ list: RuleList) {
            values = [UInt64](repeating: 0, count: list.rules.count)
            var shared: [String: Int] = [:]
            var pending: [Trigger: (selectors: Int, rules: [Int])] = [:]
            var pendingOrder: [Trigger] = []
            func resolve() {
                for trigger in pendingOrder {
                    guard let entry = pending[trigger] else { continue }
                    for rule in entry.rules { values[rule] |= UInt64(bytes) }
                    bytes += 1 + 5 + entry.selectors + max(0, entry.rules.count - 1)
                }
                pending = [:]
                pendingOrder = []
            }
            for (position, rule) in list.rules.enumerated() {
                let flags = Self.flags(rule.trigger)
                values[position] = flags << 32
                let payload = Self.payload(rule.action)
                if case .ignorePreviousRules = rule.action {
                    resolve()
                    shared = [:]
                }
                if rule.trigger.condition != nil {
                    values[position] |= UInt64(bytes)
                    bytes += 1 + payload
                    continue
                }
                if case .cssDisplayNone(let selector) = rule.action {
                    if pending[rule.trigger] == nil { pendingOrder.append(rule.trigger) }
                    pending[rule.trigger, default: (0, [])].selectors += selector.utf8.count
                    pending[rule.trigger, default: (0, [])].rules.append(position)
                    continue
                }
                let key = "\(rule.action.typeName) \(flags) \(payload > 0 ? String(describing: rule.action) : "")"
                if let location = shared[key] {
                    values[position] |= UInt64(location)
                } else {
                    shared[key] = bytes
                    values[position] |= UInt64(bytes)
                    bytes += 1 + payload
                }
            }
            resolve()
        }

        /// A string argument's bytes past the type's: its length, its width flag, its characters.
        static func payload(_ action: Action) -> Int {
            switch action {
            case .cssDisplayNone(let text), .notify(let text): 5 + text.utf8.count
            case .redirect, .modifyHeaders: 5 + String(describing: action).utf8.count
            default: 0
            }
        }

        /// WebKit's flags of a trigger (ResourceLoadInfo.h).
        static func flags(_ trigger: Trigger) -> UInt64 {
            var flags = UInt64(trigger.resourceTypes.rawValue) | UInt64(trigger.loadTypes.rawValue) << 14
                | UInt64(trigger.loadContexts.rawValue) << 16
            switch trigger.condition {
            case .ifDomain, .ifTopURL: flags |= 0x40000
            case .unlessDomain, .unlessTopURL: flags |= 0x80000
            case .ifFrameURL: flags |= 0x140000
            case .unlessFrameURL: flags |= 0x180000
            case nil: break
            }
            if let method = trigger.requestMethod, let index = RequestMethod.allCases.firstIndex(of: method) {
                flags |= UInt64(index + 1) << 21
            }
            return flags
        }
    }

    /// The bytes of one action instruction.
    static func actionBytes(_ action: UInt64) -> Int {
        func width(_ value: UInt64) -> Int { value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFF_FFFF ? 3 : 4 }
        let flags = action >> 32, location = action & 0xFFFF_FFFF
        return 1 + (flags == 0 ? 0 : min(3, width(flags))) + width(location)
    }

    /// The bytecode of `dfa`, whose state `s` carries the actions `actions(s)` (in bytes).
    static func size(_ dfa: DFA, actions: (Int) -> Int) -> Int {
        let n = dfa.stateCount
        guard n > 0 else { return 0 }
        // The states in the order WebKit's subset construction finds them: a state's targets by
        // byte as it is processed, the last found processed first.
        var position = [Int32](repeating: -1, count: n)
        var order: [Int32] = [0]
        order.reserveCapacity(n)
        position[0] = 0
        var stack: [Int32] = [0]
        var row = [UInt32](repeating: 0, count: max(1, dfa.classCount))
        let dead = DFAStateID.dead.rawValue
        while let state = stack.popLast() {
            row.withUnsafeMutableBufferPointer { dfa.write(row: Int(state), into: $0) }
            for byte in 0..<128 {
                let target = row[Int(dfa.byteClasses.classOfByte[byte])]
                if target != dead && position[Int(target)] < 0 {
                    position[Int(target)] = Int32(order.count)
                    order.append(Int32(target))
                    stack.append(Int32(target))
                }
            }
        }
        // First the most each state can take, then each as written.
        var maxStart = [Int](repeating: 0, count: order.count + 1)
        var offset = 4
        var nodes = [Node](repeating: Node(), count: 0)
        for (index, state) in order.enumerated() {
            maxStart[index] = offset
            let node = Node(dfa, Int(state), row: &row, actions: actions(Int(state)))
            offset += node.maxSize
            nodes.append(node)
        }
        var start = [Int](repeating: 0, count: order.count)
        offset = 4
        for (index, node) in nodes.enumerated() {
            start[index] = offset
            offset += node.actions
            func width(_ target: UInt32, at location: Int) -> Int {
                let other = Int(position[Int(target)])
                let distance = other <= index ? start[other] - location : maxStart[other] - maxStart[index] + (location - start[index])
                return distance >= -128 && distance <= 127 ? 1 : distance >= -32768 && distance <= 32767 ? 2 : distance >= -(1 << 23) && distance < (1 << 23) ? 3 : 4
            }
            for table in node.tables {
                let widest = table.map { width($0, at: offset) }.max() ?? 1
                offset += 3 + table.count * widest
            }
            for range in node.ranges { offset += range.head + width(range.target, at: offset) }
            if let fallback = node.fallback { offset += 1 + width(fallback, at: offset) } else { offset += 1 }
        }
        return offset
    }

    /// One state's instructions.
    struct Node {
        var actions = 0
        var tables: [[UInt32]] = []
        var ranges: [(head: Int, target: UInt32)] = []
        var fallback: UInt32?

        init() {}

        var maxSize: Int {
            actions + tables.reduce(0) { $0 + 3 + 4 * $1.count } + ranges.reduce(0) { $0 + $1.head + 4 } + (fallback == nil ? 1 : 5)
        }

        init(_ dfa: DFA, _ state: Int, row: inout [UInt32], actions: Int) {
            self.actions = actions
            row.withUnsafeMutableBufferPointer { dfa.write(row: state, into: $0) }
            let none = DFAStateID.dead.rawValue
            var target = [UInt32](repeating: none, count: 128)
            for byte in 0..<128 { target[byte] = row[Int(dfa.byteClasses.classOfByte[byte])] }
            // The fallback: every byte from 1 leads somewhere; the target most bytes lead to.
            if (1..<128).allSatisfy({ target[$0] != none }) {
                var counts: [UInt32: Int] = [:]
                var best = target[1], bestCount = 0
                for byte in 1..<128 {
                    counts[target[byte], default: 0] += 1
                    if let count = counts[target[byte]], count > bestCount { (best, bestCount) = (target[byte], count) }
                }
                fallback = best
                for byte in 0..<128 where target[byte] == best { target[byte] = none }
            }
            // Runs of bytes to one target; an upper-case run whose lower-case bytes go alike is
            // written once, case-insensitively.
            var runs: [(min: Int, max: Int, target: UInt32, caseSensitive: Bool)] = []
            var first: Int?
            for byte in 0..<128 {
                if let low = first {
                    guard target[byte] != target[low] else { continue }
                    let high = byte - 1
                    var caseSensitive = true
                    if low >= 65 && high <= 90 {
                        caseSensitive = !(low...high).allSatisfy { target[$0 + 32] == target[low] }
                    }
                    if caseSensitive {
                        runs.append((low, high, target[low], true))
                    } else {
                        for upper in low...high { target[upper + 32] = none }
                        runs.append((low + 32, high + 32, target[low], false))
                    }
                    first = target[byte] == none ? nil : byte
                } else if target[byte] != none {
                    first = byte
                }
            }
            if let low = first { runs.append((low, 127, target[low], true)) }
            // Neighbouring single bytes of one case sensitivity make a jump table.
            var position = 0
            var base: Int?
            while position < runs.count {
                let run = runs[position]
                if let start = base {
                    if run.min != run.max || runs[start].caseSensitive != run.caseSensitive || runs[position - 1].max + 1 != run.min {
                        if position - start > 1 {
                            tables.append(runs[start..<position].map(\.target))
                            runs.removeSubrange(start..<position)
                            position = start
                        }
                        base = nil
                    }
                } else if run.min == run.max {
                    base = position
                }
                position += 1
            }
            if let start = base, runs.count - start > 1 {
                tables.append(runs[start...].map(\.target))
                runs.removeSubrange(start...)
            }
            ranges = runs.map { ($0.min == $0.max ? 2 : 3, $0.target) }
        }
    }
}
