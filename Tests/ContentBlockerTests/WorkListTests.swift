// WorkListTests.swift — ContentBlockerTests
//
// The evaluator's working lists (WorkList.swift), written in place, held to an array put through
// the same appends, writes, removals and emptyings, across their storage's growth.

import Testing
@testable import ContentBlocker

@Suite struct WorkListTests {
    @Test func aWorkListIsAnArray() {
        var list = WorkList<UInt32>()
        var array: [UInt32] = []
        var state: UInt32 = 12_345
        for step in 0..<2_000 {
            state = state &* 1_103_515_245 &+ 12_345
            let value = state >> 8
            switch value % 16 {
            case 0 where step % 5 == 0:
                list.removeAll()
                array.removeAll()
            case 1 where !array.isEmpty:
                let k = Int(value >> 4) % (array.count + 1)
                list.removeLast(k)
                array.removeLast(k)
            case 2 where !array.isEmpty:
                let index = Int(value >> 4) % array.count
                list[index] = value
                array[index] = value
            default:
                list.append(value)
                array.append(value)
            }
            #expect(list.count == array.count && list.isEmpty == array.isEmpty, "step \(step)")
            #expect(Array(list.buffer) == array, "step \(step)")
            #expect(list.indices.map { list[$0] } == array, "step \(step)")
        }
    }
}
