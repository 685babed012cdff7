// Covers Sources/URLFilterSyntax/ASCIISet.swift.
import Testing
import URLFilterSyntax

@Suite struct ASCIISetTests {
    @Test func caseFoldingAddsTheOtherCaseOfLettersOnly() {
        let set = ASCIISet(Array("aZ1@[`{".utf8))
        #expect(set.caseFolded == ASCIISet(Array("aAzZ1@[`{".utf8)))
    }

    @Test func complementStaysWithinAnyCharacter() {
        let set = ASCIISet(Array("a".utf8)).complementWithinAnyCharacter
        #expect(set.count == 126)
        #expect(!set.contains(0) && !set.contains(UInt8(ascii: "a")) && set.contains(127))
    }

    @Test func walksItsMembersInIncreasingOrder() {
        let sets = [
            ASCIISet(), ASCIISet(UInt8(0)), ASCIISet(UInt8(63)), ASCIISet(UInt8(64)), ASCIISet(UInt8(127)),
            ASCIISet([0, 1, 62, 63, 64, 65, 126, 127]), ASCIISet.anyCharacter, ASCIISet(Array("aZ1@[`{".utf8)),
        ]
        for set in sets {
            var walked: [Int] = []
            set.forEachMember { walked.append($0) }
            #expect(walked == (0..<128).filter { set.contains(UInt8($0)) })
            #expect(set.members == walked.map(UInt8.init))
        }
    }

    @Test func describesRanges() {
        #expect(ASCIISet(UInt8(ascii: "a")...UInt8(ascii: "d")).description == "[a-d]")
        #expect(ASCIISet.anyCharacter.description == ".")
        #expect(ASCIISet([0, UInt8(ascii: "-")]).description == "[\\x00\\-]")
    }
}
