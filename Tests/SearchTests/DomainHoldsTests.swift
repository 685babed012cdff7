// DomainHoldsTests.swift — a domain record's D compared with a URL's bytes
// (DomainGroups.holds), by words and their overlapping last word, held to a byte-by-byte
// comparison: every length, a byte changed at each place, D and the URL's bytes anywhere.

import Testing
@testable import Search
import TestSupport

@Suite struct DomainHoldsTests {
    @Test func wordsOfDAnswerAsItsBytes() {
        var random = SplitMix64(seed: 72)
        var held = 0, refused = 0
        for length in 1...26 {
            for shift in 0..<8 {
                let domain = (0..<length).map { _ in UInt8(ascii: "a") + UInt8(random.next() % 26) }
                let stored = (0..<shift).map { _ in UInt8(0x2E) } + domain + [0x2F]
                for place in -1..<length {
                    var url = Array("https://".utf8) + (0..<shift).map { _ in UInt8(0x2E) } + domain + Array("/x".utf8)
                    if place >= 0 { url[8 + shift + place] ^= 0x01 << UInt8(random.next() % 7) }
                    let bytes = url[(8 + shift)..<(8 + shift + length)]
                    for folding in [false, true] {
                        let expected = (folding ? bytes.map(DomainSlots.folded) : Array(bytes)) == domain
                        let holds = stored.withUnsafeBytes { stored in
                            url.withUnsafeBufferPointer { url in
                                DomainGroups.holds(domain: stored.baseAddress! + shift, url, 8 + shift, length, folding: folding)
                            }
                        }
                        #expect(holds == expected, "length \(length) place \(place) folding \(folding)")
                        held += expected ? 1 : 0
                        refused += expected ? 0 : 1
                    }
                }
            }
        }
        #expect(held > 0 && refused > 0, "both answers met")
    }
}
