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

    @Test func describesRanges() {
        #expect(ASCIISet(UInt8(ascii: "a")...UInt8(ascii: "d")).description == "[a-d]")
        #expect(ASCIISet.anyCharacter.description == ".")
        #expect(ASCIISet([0, UInt8(ascii: "-")]).description == "[\\x00\\-]")
    }
}
