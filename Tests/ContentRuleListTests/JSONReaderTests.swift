// Covers Sources/ContentRuleList/JSON (JSONReader, JSONValue): WebKit's reading of JSON, as
// measured with WebKit (Corpora/conformance/webkit-probe-json-text.json, checked by
// `blockbench conform --against webkit`).
import Testing
@testable import ContentRuleList

@Suite struct JSONReaderTests {
    func parse(_ text: String) -> JSONValue? { try? JSONReader.parse(text) }

    @Test func lastDuplicateKeyWins() throws {
        let object = try #require(parse(#"{"a":1,"a":"x"}"#)?.objectValue)
        #expect(object["a"] == .string("x"))
    }

    @Test func nestingLimitIsWebKits() {
        func nested(_ depth: Int) -> String { String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }
        #expect(parse(nested(1001)) != nil)
        #expect(parse(nested(1002)) == nil)
        #expect(parse(nested(200_000)) == nil)  // an error, not a stack overflow
    }

    @Test func acceptsRawControlCharactersInStrings() {
        #expect(parse("[\"a\tb\nc\u{0}d\"]") == .array([.string("a\tb\nc\u{0}d")]))
    }

    @Test func rejectsWhatWebKitRejects() {
        for text in ["", " ", "[1,]", "{\"a\":1,}", "[01]", "[1.]", "[.5]", "[+1]", "[NaN]", "//\n[]", "\u{FEFF}[]", "[]x", "['a']", "[\"\\a\"]", "[\"\\u00\"]", "[TRUE]"] {
            #expect(parse(text) == nil, "\(text)")
        }
        #expect((try? JSONReader.parse([0x5B, 0x22, 0xFF, 0x22, 0x5D])) == nil)  // invalid UTF-8
        #expect((try? JSONReader.parse([0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D])) == nil)  // CESU surrogate
    }

    @Test func acceptsWhatWebKitAccepts() {
        for text in ["[1e5]", "[1E+5]", "[-0]", "[1e400]", "[123456789012345678901234567890]", " [] ", "[\"\\/\"]"] {
            #expect(parse(text) != nil, "\(text)")
        }
    }

    @Test func loneSurrogatesBecomeReplacementCharacters() {
        #expect(parse(#"["\ud800x\udc00"]"#) == .array([.string("\u{FFFD}x\u{FFFD}")]))
        #expect(parse(#"["\ud83d\ude00"]"#) == .array([.string("😀")]))
    }

    @Test func errorsSayWhere() {
        do {
            _ = try JSONReader.parse("[1,\n  2,\n  x]")
            Issue.record("accepted")
        } catch {
            #expect(error.line == 3 && error.column == 3)
            #expect(error.description == "line 3, column 3: expected a value, found 'x'")
        }
    }
}

@Suite struct JSONReaderJavaScriptEscapeTests {
    @Test func acceptsTheJavaScriptEscapesWebKitAccepts() throws {
        #expect(try JSONReader.parse(#"["\x41\v"]"#) == .array([.string("A\u{0B}")]))
        for text in [#"["\x4"]"#, #"["\0"]"#, #"["\e"]"#, #"["\u{41}"]"#] {
            #expect((try? JSONReader.parse(text)) == nil, "\(text)")
        }
    }
}
