// CSSSelectorValidatorTests.swift — CSSSelectorSyntaxTests
//
// Diagnostics (where and why a selector is rejected) and robustness on hostile input.

import Testing
import CSSSelectorSyntax
import TestSupport

@Suite struct CSSSelectorValidatorTests {
    @Test(arguments: [
        "a", "div.ad > span", "#banner", "a[href^=\"http://ads.\"]", "[data-x='1' i]",
        "a:not(.b, .c)", "div:has(> img)", "li:nth-child(2n+1 of .x)", "p::before",
        "*|a", "|a", "a ~ b + c", "  a , b  ", ":is(::before, a)", "[a",
    ])
    func acceptsCommonSelectors(selector: String) {
        #expect(CSSSelectorValidator.validate(selector) == nil)
    }

    @Test func rejectsAdblockExtensionsNamingThePseudoClass() throws {
        let diagnostic = try #require(CSSSelectorValidator.validate("div:-abp-has(.ad)"))
        #expect(diagnostic.message.contains("-abp-has"))
        #expect(diagnostic.offset == 4)  // at the name, after the colon
        let contains = try #require(CSSSelectorValidator.validate("a, b:contains(Sponsored)"))
        #expect(contains.message.contains("contains"))
    }

    @Test(arguments: ["", " ", "a,", ",a", "a,,b", "a >", "> a", "ns|a", "a::before b", "a, b[", ":has(:has(a))"])
    func rejectsInvalidSelectors(selector: String) {
        #expect(CSSSelectorValidator.validate(selector) != nil)
    }

    @Test func offsetsAreWithinTheSelector() {
        for selector in ["a, b[", "é:foo", "😀 > :bar", "a::after:hover b", "[a=\"b\" x]"] {
            let diagnostic = CSSSelectorValidator.validate(selector)
            #expect(diagnostic != nil, "\(selector)")
            if let diagnostic {
                #expect((0...selector.utf8.count).contains(diagnostic.offset), "\(selector): \(diagnostic)")
            }
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let depth = 100_000
        let selector = String(repeating: ":not(", count: depth) + "a" + String(repeating: ")", count: depth)
        #expect(CSSSelectorValidator.validate(selector) != nil)
        let shallow = String(repeating: ":not(", count: 50) + "a" + String(repeating: ")", count: 50)
        #expect(CSSSelectorValidator.validate(shallow) == nil)
    }

    @Test func neverCrashesOnRandomInput() {
        var generator = SplitMix64(seed: 0x5E1EC7)
        let alphabet = Array("ab*|#.[]()=~^$'\"\\:,>+ -_0123456789nN\u{0}\n\té😀/{}@!%&")
        for _ in 0..<20_000 {
            let length = Int(generator.next() % 24)
            let selector = String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
            _ = CSSSelectorValidator.validate(selector)
        }
    }

    @Test func longSelectorListsStayLinear() {
        // EasyList's generic hiding rules join thousands of selectors with commas.
        let list = (0..<20_000).map { "div.ad-slot-\($0) > a[href*=\"x\($0)\"]" }.joined(separator: ", ")
        #expect(CSSSelectorValidator.validate(list) == nil)
        #expect(CSSSelectorValidator.validate(list + ", :-abp-contains(x)") != nil)
    }
}
