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

    /// The lookups by name (`object[key]`, and `members(named:)`, names matched by their length
    /// and first eight bytes as a word, then the rest) find the last member whose key's string is
    /// the name: names of lengths from 1 to 17 and names that share a prefix or a
    /// length, escaped, duplicated and missing.
    @Test func lookupsByNameFindTheLastMemberOfTheName() throws {
        let names: [StaticString] = [
            "a", "ab", "type", "typf", "abcde", "action", "trigger", "selector", "selectors",
            "url-filter", "url-filtex", "if-top-url", "notification", "load-context", "abcdefghijklmnop", "abcdefghijklmnopq",
        ]
        let lookedUp = JSONNames(names.map { "\($0)" })
        let texts = [
            #"{"a":1,"ab":2,"abc":3,"type":4,"typf":5,"abcde":6,"action":7,"trigger":8,"selector":9}"#,
            #"{"selectorz":0,"selectors":1,"selectorx":8,"url-filter":2,"url-filtex":3,"if-top-url":4,"notification":5,"load-context":6}"#,
            #"{"abcdefghijklmnop":1,"abcdefghijklmnopq":2,"abcdefghijklmnoq":3,"b":4,"ty":5,"typ":6,"types":7}"#,
            #"{"load-coNtext":1,"notificaXion":2,"url-fXlter":3,"abcdefghiXklmnop":4,"selectorsX":5,"Xelector":6}"#,
            #"{"\u0074ype":1,"type":2,"tr\u0069gger":3,"a\u0063tion":{"x":[1]},"action":4,"sel\nector":5}"#,
            #"{"":1,"a":[{"type":2}],"tyPe":3,"Type":4,"aB":5}"#, #"{}"#, #"[{"type":1}]"#, #""type""#,
        ]
        for text in texts {
            try withTape(text) { value in
                func lastMember(_ name: StaticString) -> JSONValue? {
                    value.members.reversed().first { $0.key.stringValue == "\(name)" }.map { JSONValue($0.value) }
                }
                let found = value.members(named: lookedUp)
                for (number, name) in names.enumerated() {
                    let expected = lastMember(name)
                    #expect(value[name].map(JSONValue.init) == expected, "\(name) in \(text)")
                    #expect(found[number].map(JSONValue.init) == expected, "\(name) in \(text)")
                    #expect(found.contains(number) == (expected != nil), "\(name) in \(text)")
                }
            }
        }
    }
}
