// The flat reader gives exactly what the general reader gives, on every shipped pattern and on
// generated ones, and it takes the shapes real lists are made of.
// Covers Sources/URLFilterSyntax/FlatPatternReader.swift.

import Testing
@testable import URLFilterSyntax
import TestSupport

@Suite struct FlatPatternReaderTests {
    @Test func readsEveryShippedPatternAsTheGeneralReaderDoes() throws {
        let patterns = try shippedPatterns()
        #expect(patterns.count > 110_000)
        var flat = 0
        for (source, isCaseSensitive) in patterns {
            let expected = URLFilterParser.parse(source, isCaseSensitive: isCaseSensitive, flat: false)
            #expect(URLFilterParser.parse(source, isCaseSensitive: isCaseSensitive, flat: true) == expected, "\(source)")
            if FlatPatternReader.read(Array(source.utf8), isCaseSensitive: isCaseSensitive) != nil { flat += 1 }
        }
        // Real lists are flat: nearly all of their patterns never reach the general reader.
        #expect(flat * 100 > patterns.count * 90, "\(flat) of \(patterns.count) flat")
    }

    @Test(arguments: [
        #"^[^:]+://+([^:/]+\.)?example\.com[/:]"#,
        #"^[^:]+:\/\/+([^:/]+\.)?example\.com[/:]"#,
        #"^[^:]+:\/\/+([^:/]+\.)?cdn\.example\.com\/ads\/banner[/:]"#,
        #"^[^:]+:\/\/+([^:/]+\.)?Example\.COM$"#,
        #"^[^:]+:\/\/+([^:/]+\.)?"#,
        #"\/ad_banner\.js"#,
        #"^https:\/\/"#,
        #"-ad-300x250."#,
        #"[?&]utm_source="#,
        #"^$"#,
        #"$"#,
    ])
    func takesTheShapesListsAreMadeOf(_ pattern: String) throws {
        for isCaseSensitive in [false, true] {
            let parts = try #require(FlatPatternReader.read(Array(pattern.utf8), isCaseSensitive: isCaseSensitive))
            let general = try URLFilterParser.parse(pattern, isCaseSensitive: isCaseSensitive, flat: false).get()
            #expect(parts.terms == general.terms)
            #expect(parts.hasStartAnchor == general.hasStartAnchor && parts.hasEndAnchor == general.hasEndAnchor)
        }
    }

    /// What the flat reader must leave to the general reader: quantifiers, groups, alternatives,
    /// escapes of letters and digits, ranges, negated or empty classes, anchors out of place,
    /// spaces and control characters.
    @Test(arguments: [
        "a*", "a+", "a?", "a{0,1}", "{", "}", "]", "(a)", "a|b", #"\d"#, #"\0"#, #"\x41"#, #"\k"#, #"\cA"#,
        "[a-z]", "[^a]", "[]", "[^]", "[]a]", #"[\]]"#, "a^", "^^a", "a$$", "$a", "a b", "a\u{1}", "\\",
        #"^[^:]+:\/\/+([^:/]+\.)?*"#, #"^[^:]+:\/\/+([^:/]+\.)?{"#,
    ])
    func leavesTheRestToTheGeneralReader(_ pattern: String) {
        #expect(FlatPatternReader.read(Array(pattern.utf8), isCaseSensitive: false) == nil)
    }

    @Test func agreesWithTheGeneralReaderOnGeneratedPatterns() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array(#"aZ09.^$|()[]{}*+?\-/:_=&% "#.utf8) + [0x01]
        let prefixes = [#"^[^:]+://+([^:/]+\.)?"#, #"^[^:]+:\/\/+([^:/]+\.)?"#]
        for round in 0..<40_000 {
            let length = Int.random(in: 1...10, using: &generator)
            var pattern = String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
            if round % 2 == 0 { pattern = prefixes[round / 2 % 2] + pattern }
            let isCaseSensitive = round % 3 == 0
            #expect(
                URLFilterParser.parse(pattern, isCaseSensitive: isCaseSensitive, flat: true)
                    == URLFilterParser.parse(pattern, isCaseSensitive: isCaseSensitive, flat: false), "\(pattern)")
        }
    }
}
