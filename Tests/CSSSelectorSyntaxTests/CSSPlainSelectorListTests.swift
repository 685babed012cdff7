// CSSPlainSelectorListTests.swift — CSSSelectorSyntaxTests
//
// CSSPlainSelectorList (the recogniser without tokens) must accept only selectors the tokenizer
// and parser accept: on every selector of the shipped lists and of the WebKit verdict table, and
// on generated selectors built from the plain grammar's pieces and the bytes next to them.

import Testing
@testable import CSSSelectorSyntax
import TestSupport

@Suite struct CSSPlainSelectorListTests {
    /// The general path alone: the tokenizer and parser.
    private static func parserAccepts(_ selector: String) -> Bool {
        var parser = CSSSelectorParser(selector)
        do {
            try parser.parse()
            return true
        } catch {
            return false
        }
    }

    /// The selectors the plain recogniser accepts and the parser rejects, and how many it accepts.
    private static func disagreements(_ selectors: some Sequence<String>) -> (wrong: [String], accepted: Int) {
        var wrong: [String] = []
        var accepted = 0
        for selector in selectors where CSSPlainSelectorList.accepts(selector) {
            accepted += 1
            if !parserAccepts(selector) { wrong.append(String(reflecting: selector)) }
        }
        return (wrong, accepted)
    }

    @Test func acceptsOnlyWhatTheParserAcceptsOnShippedSelectors() throws {
        let selectors = try shippedSelectors()
        #expect(selectors.count > 5_000)
        let (wrong, accepted) = Self.disagreements(selectors)
        #expect(wrong.isEmpty, "\(wrong.count) accepted, rejected by the parser:\n\(wrong.prefix(20).joined(separator: "\n"))")
        // Most shipped selectors are plain: the recogniser is exercised.
        #expect(accepted * 2 > selectors.count)
    }

    @Test func acceptsOnlyWhatTheParserAcceptsOnWebKitsTable() throws {
        let verdicts = try WebKitSelectorVerdicts.load().sections.flatMap(\.verdicts)
        let (wrong, accepted) = Self.disagreements(verdicts.map(\.selector))
        #expect(wrong.isEmpty, "\(wrong.count) accepted, rejected by the parser:\n\(wrong.prefix(20).joined(separator: "\n"))")
        #expect(accepted > 100)
    }

    /// Pieces of plain selectors and the text around them the recogniser must turn away.
    private static let pieces = [
        "a", "div", "A", "_x", "-b", "-", "--", "-1", "1", "x1", "n-", "i", "I", "s", "*", "|", "&",
        "#", "#a", "#1", "#-", ".", ".c", ".5", ".-d", "[", "]", "[a]", "[a=b]", "[a=\"v\"]", "[a='v' i]",
        "=", "~=", "|=", "^=", "$=", "*=", "||", "\"", "'", "\"x\"", "'y'", "\"a]b\"",
        " ", "  ", "\t", "\n", "\r", "\u{C}", "\u{0}", ",", ">", "+", "~", ">>", "(", ")", ":", "::",
        "\\", "\\61", "/*", "*/", "é", "<!--", "-->", "+1", "+.5", "e1", "url(", "%", ";", "@",
        ":has(", ":not(", ":has(> ", ":not(:has(", "has(", ":HAS(", ":is(", ":hover", ")", "))", "(",
    ]

    @Test func acceptsOnlyWhatTheParserAcceptsOnGeneratedSelectors() {
        var generator = SplitMix64(seed: 0xC55_91A1)
        var selectors: [String] = []
        func pieces(_ most: UInt64) -> String {
            (0...Int(generator.next() % most)).map { _ in Self.pieces[Int(generator.next() % UInt64(Self.pieces.count))] }.joined()
        }
        for _ in 0..<200_000 { selectors.append(pieces(8)) }
        // Arguments of :has() and :not() made of the same pieces.
        for _ in 0..<100_000 {
            let name = generator.next() % 2 == 0 ? ":has(" : ":not("
            selectors.append(pieces(2) + name + pieces(4) + ")" + pieces(2))
        }
        let (wrong, accepted) = Self.disagreements(selectors)
        #expect(wrong.isEmpty, "\(wrong.count) accepted, rejected by the parser:\n\(wrong.prefix(20).joined(separator: "\n"))")
        #expect(accepted > 2_000)
    }

    @Test(arguments: ["a", "div.ad > span", "#banner", "a[href^=\"http://ads.\"]", "[data-x='1' i]", "a ~ b + c", "  a , b  ", "*.x", "[a|=b]", "div:has(> a.b, + c)", ":not(.x) .y"])
    func acceptsPlainSelectors(selector: String) {
        #expect(CSSPlainSelectorList.accepts(selector))
    }

    @Test(arguments: ["a:hover", "*|a", "[a", "a,", "a\\62", "é", "[a=\"b\" s]", "a~=b", "&", "", "#1", ".5", ":has(:has(a))", ":not(a", ":has()", ":is(a)"])
    func leavesTheRestToTheParser(selector: String) {
        #expect(!CSSPlainSelectorList.accepts(selector))
    }
}
