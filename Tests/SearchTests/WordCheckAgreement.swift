// WordCheckAgreement.swift — a domain check that reads eight bytes a step, held to the check of
// each byte it replaces: the domain tables' readers (`DomainTable`, `DomainConditionTable`) each
// check a file's domains a word at a time.

import Testing
import TestSupport

/// Expects `byWord` to refuse exactly what `byByte` refuses, whatever the byte, its place and the
/// domain's length (shorter than a word, a word, more, with a last word in part), and on random
/// domains mixing several refused bytes with their neighbours (a borrow or a carry that crosses
/// into the next byte). `byWord` must take a domain of plain letters.
func expectWordCheckAgrees(
    _ byWord: (UnsafeBufferPointer<UInt8>) -> Bool, with byByte: (ArraySlice<UInt8>) -> Bool, seed: UInt64
) {
    func agrees(_ domain: [UInt8]) -> Bool { domain.withUnsafeBufferPointer(byWord) == byByte(domain[...]) }
    #expect(agrees([]))
    for length in 1...19 {
        let plain = [UInt8](repeating: UInt8(ascii: "a"), count: length)
        #expect(agrees(plain) && plain.withUnsafeBufferPointer(byWord))
        for place in 0..<length {
            for byte in UInt8.min...UInt8.max {
                var domain = plain
                domain[place] = byte
                guard agrees(domain) else {
                    Issue.record("byte \(byte) at \(place) of \(length)")
                    return
                }
            }
        }
    }
    var random = SplitMix64(seed: seed)
    let near: [UInt8] = [0, 1, 0x2E, 0x2F, 0x30, 0x39, 0x3A, 0x3B, 0x40, 0x41, 0x5A, 0x5B, 0x60, 0x61, 0x7F, 0x80, 0xFF]
    for _ in 0..<20_000 {
        let domain = (0..<Int(random.next() % 24) + 1).map { _ in
            random.next() % 2 == 0 ? near[Int(random.next() % UInt64(near.count))] : UInt8(truncatingIfNeeded: random.next())
        }
        guard agrees(domain) else {
            Issue.record("\(domain)")
            return
        }
    }
}
