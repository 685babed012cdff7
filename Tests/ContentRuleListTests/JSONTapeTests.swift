// Covers Sources/ContentRuleList/JSON/JSONTape.swift: values read in place, as the tree reads them.
import Testing
@testable import ContentRuleList

@Suite struct JSONTapeTests {
    /// `body` given the tape of `text`'s value.
    func withTape<Result>(_ text: String, _ body: (JSONTape.Value) -> Result) throws -> Result {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
            let tape = JSONTape()
            try JSONReader.read(buffer, depth: 0, into: tape)
            return tape.withRoot(in: buffer, body)
        }
    }

    @Test func containersAreSteppedOverWhole() throws {
        let text = #"{"a":[1,[2,{"x":3}],{}],"b":{"c":[[]]},"d":"\u0041\"","e":true,"f":null,"g":-1.5e2}"#
        try withTape(text) { object in
            #expect(object.kind == .object && object.count == 6)
            #expect(object.members.map { $0.key.stringValue } == ["a", "b", "c", "d", "e", "f", "g"].filter { $0 != "c" })
            #expect(object["a"]?.count == 3)
            #expect(object["a"].map { Array($0.elements).map(\.kind) } == [.number, .array, .object])
            #expect(object["d"]?.stringValue == "A\"")
            #expect(object["e"]?.boolValue == true)
            #expect(object["f"]?.kind == JSONKind.null)
            #expect(object["g"]?.numberValue == -150)
            #expect(object["c"] == nil)  // a member of a member is not the object's
            #expect(object["b"]?["c"]?.count == 1)
            #expect(object["a"]?["a"] == nil)  // an array has no members
        }
    }

    @Test func theLastOfADuplicatedKeyWinsAndEscapedNamesMatch() throws {
        try withTape(#"{"url-filter":"a","url\u002dfilter":"b","url-filtex":"c"}"#) { object in
            #expect(object["url-filter"]?.stringValue == "b")
        }
    }

    @Test func readsEveryValueAsTheTreeDoes() throws {
        let texts = [
            #"[]"#, #"{}"#, #"[[[]],{}]"#, #"["\ud83d\ude00","\ud800","é","\x41\v",""]"#,
            #"{"a":{"b":{"c":[1,2,{"d":false}]}},"e":[]}"#, #"[0,-0,1e400,123456789012345678901234567890]"#,
        ]
        for text in texts {
            let tree = try JSONReader.parse(text)
            #expect(try withTape(text) { JSONValue($0) } == tree, "\(text)")
        }
    }

    @Test func aTapeIsEmptiedForItsNextText() throws {
        let tape = JSONTape()
        for text in [#"{"a":"x\\y","b":[1,2,3]}"#, #"["z"]"#] {
            let bytes = Array(text.utf8)
            try bytes.withUnsafeBufferPointer { buffer throws(JSONSyntaxError) in
                try JSONReader.read(buffer, depth: 0, into: tape)
                #expect(tape.withRoot(in: buffer) { JSONValue($0) } == (try JSONReader.parse(text)))
            }
        }
        #expect(tape.entries.count == 2 && tape.arena.isEmpty)
    }
}
