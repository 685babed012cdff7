// Reading a list's elements apart, on every core, gives what reading the whole text's tree gives:
// the same rules, the same errors in the same order, the same verdict, with every error or only
// the first; and the scan that finds the elements finds them exactly.
// Covers JSONReader.topLevelElements/readElement/readElements and RuleListParser's reading apart.

import Foundation
import Testing
@testable import ContentRuleList
import TestSupport

private func expectSameCheck(_ text: [UInt8], _ comment: String) {
    for collecting in [true, false] {
        let apart = RuleListParser.check(text, collectingEveryError: collecting, readingApart: true)
        let whole = RuleListParser.check(text, collectingEveryError: collecting, readingApart: false)
        #expect(apart.verdict == whole.verdict, "\(comment)")
        #expect(apart.errors == whole.errors, "\(comment)")
        #expect(apart.list == whole.list, "\(comment)")
        #expect(apart.urlFilterStatuses == whole.urlFilterStatuses, "\(comment)")
    }
}

@Suite struct ReadingApartTests {
    @Test(arguments: [
        ("[]", []),
        (" [ ] ", []),
        ("[1]", ["1"]),
        (" [ 1 , {\"a\":[2,3]} ,\"x\" ] \n", ["1", "{\"a\":[2,3]}", "\"x\""]),
        (#"[{"a":"],}"},"\"[{"]"#, [#"{"a":"],}"}"#, #""\"[{""#]),
        (#"["\\",[]]"#, [#""\\""#, "[]"]),
        // A quote after an odd run of backslashes is escaped; after an even run, it ends the string.
        (#"["a\\\"],[\\\\",1]"#, [#""a\\\"],[\\\\""#, "1"]),
    ] as [(String, [String])])
    func findsTheElementsOfTheTopLevelArray(_ text: String, _ elements: [String]) {
        let bytes = Array(text.utf8)
        let found = bytes.withUnsafeBufferPointer { JSONReader.topLevelElements($0) }
        #expect(found?.map { String(decoding: bytes[$0], as: UTF8.self) } == elements)
    }

    @Test(arguments: ["", "{}", "1", "[", "[1", "[1,", "[1,]", "[,1]", "[1]]", "[1] x", "[{]}", #"["]"#, #"["\"]"#, "[[1]"])
    func findsNoArrayWhereTheScanCannot(_ text: String) {
        #expect(Array(text.utf8).withUnsafeBufferPointer { JSONReader.topLevelElements($0) } == nil)
    }

    @Test func anElementIsNestedOneLevelDeep() throws {
        let deepest = String(repeating: "[", count: JSONReader.maximumDepth - 1) + String(repeating: "]", count: JSONReader.maximumDepth - 1)
        let tooDeep = "[" + deepest + "]"
        for (text, parses) in [(deepest, true), (tooDeep, false)] {
            let bytes = Array(text.utf8)
            let element = bytes.withUnsafeBufferPointer { buffer in
                Result { () throws(JSONSyntaxError) in
                    let tape = JSONTape()
                    try JSONReader.readElement(buffer, into: tape)
                } }
            let inArray = Result { () throws(JSONSyntaxError) in try JSONReader.parse(Array(("[" + text + "]").utf8)) }
            #expect(((try? element.get()) != nil) == parses)
            #expect(((try? inArray.get()) != nil) == parses)
        }
    }

    @Test func readsElementsOneAfterAnotherOntoOneTape() throws {
        let text = Array(#" [ {"a":"x\ny"} , [1,"\u00e9"] ,"z", 2 ] "#.utf8)
        try text.withUnsafeBufferPointer { buffer in
            let elements = try #require(JSONReader.topLevelElements(buffer))
            let tape = JSONTape()
            var roots: [Int] = []
            try JSONReader.readElements(buffer, elements[...], into: tape, roots: &roots)
            let read = roots.map { root in tape.withValue(at: root, in: buffer) { JSONValue($0) } }
            #expect(read == (try JSONReader.parse(Array(buffer)).arrayValue))
            // A fault in a later element is reported at its offset in the whole text.
            let faulty = Array(#"[1, {"a":tru}]"#.utf8)
            try faulty.withUnsafeBufferPointer { faultyBuffer in
                let faultyElements = try #require(JSONReader.topLevelElements(faultyBuffer))
                let offset = Result { () throws(JSONSyntaxError) in try JSONReader.readElements(faultyBuffer, faultyElements[...], into: tape, roots: &roots) }
                #expect((try? offset.get()) == nil)
                if case .failure(let error) = offset { #expect(error.offset == 9) }
            }
        }
    }

    @Test func readsTheShippedListsAsTheWholeTreeDoes() throws {
        for file in ["kablock-blockerList.json", "ddg-tds-reference-rules.json"] {
            let bytes = [UInt8](try Data(contentsOf: repositoryURL("Corpora/rules/" + file)))
            expectSameCheck(bytes, file)
        }
    }

    /// Several chunks of elements, with errors and dropped rules spread over them (and a first
    /// error in a later chunk than a dropped rule), read with every error and with the first only.
    @Test func readsErrorsAndDroppedRulesAcrossChunksInOrder() {
        let good = #"{"trigger":{"url-filter":"a\\.b"},"action":{"type":"block"}}"#
        let faults = [
            #"{"trigger":{"url-filter":"a"},"action":{"type":"x"}}"#,
            #"{"trigger":{},"action":{"type":"block"}}"#,
            #"{"trigger":{"url-filter":"("},"action":{"type":"block"}}"#,
            #"{"trigger":{"url-filter":"a"},"action":{"type":"css-display-none","selector":"a:nope("}}"#,
            "[]", "7",
        ]
        for spacing in [1, 333, 1_500] {
            var elements = Array(repeating: good, count: 5_000)
            for (number, position) in stride(from: spacing / 2, to: elements.count, by: spacing).enumerated() {
                elements[position] = faults[number % faults.count]
            }
            expectSameCheck(Array(("[" + elements.joined(separator: ",\n") + "]").utf8), "faults every \(spacing)")
        }
        // A syntax error after a first rule error decides the verdict.
        var elements = Array(repeating: good, count: 3_000)
        elements[10] = faults[0]
        elements[2_900] = #"{"trigger":{"url-filter":"a"},"action":{"type":"block"},}"#
        expectSameCheck(Array(("[" + elements.joined(separator: ",") + "]").utf8), "syntax error late")
    }

    @Test func readsTruncatedAndMutatedListsAsTheWholeTreeDoes() throws {
        let bytes = [UInt8](try Data(contentsOf: repositoryURL("Corpora/rules/ddg-tds-reference-rules.json")))
        for length in stride(from: 0, to: bytes.count, by: 211) { expectSameCheck(Array(bytes[0..<length]), "truncated at \(length)") }
        var generator = SystemRandomNumberGenerator()
        let structural = Array(#"[]{},:"\ 0a"#.utf8)
        for round in 0..<300 {
            var mutated = bytes
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                mutated[Int.random(in: 0..<mutated.count, using: &generator)] = structural.randomElement(using: &generator)!
            }
            expectSameCheck(mutated, "mutation \(round)")
        }
    }
}
