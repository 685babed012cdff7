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

/// `bytes` with a number in `changes` of them, at random places, made bytes that matter to the
/// element scan or the reader.
private func mutated(_ bytes: [UInt8], changes: ClosedRange<Int>, using generator: inout SystemRandomNumberGenerator) -> [UInt8] {
    let structural = Array(#"[]{},:"\ 0a"#.utf8)
    var mutated = bytes
    for _ in 0..<Int.random(in: changes, using: &generator) where !mutated.isEmpty {
        mutated[Int.random(in: 0..<mutated.count, using: &generator)] = structural.randomElement(using: &generator)!
    }
    return mutated
}

/// The element scan written plainly, the reference `JSONReader.topLevelElements` is held to:
/// every byte looked at in turn; in a string, a backslash takes the byte after it along.
private func elementsByteByByte(_ bytes: [UInt8]) -> [Range<Int>]? {
    func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
    var at = 0
    func skipWhitespace() { while at < bytes.count && isWhitespace(bytes[at]) { at += 1 } }
    skipWhitespace()
    guard at < bytes.count, bytes[at] == UInt8(ascii: "[") else { return nil }
    at += 1
    skipWhitespace()
    var elements: [Range<Int>] = []
    if at < bytes.count && bytes[at] == UInt8(ascii: "]") {
        at += 1
        skipWhitespace()
        return at == bytes.count ? elements : nil
    }
    while true {
        let start = at
        var depth = 0
        scan: while at < bytes.count {
            switch bytes[at] {
            case UInt8(ascii: "\""):
                at += 1
                while at < bytes.count && bytes[at] != UInt8(ascii: "\"") { at += bytes[at] == UInt8(ascii: "\\") ? 2 : 1 }
                if at >= bytes.count { return nil }
            case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if depth == 0 { break scan }
                depth -= 1
            case UInt8(ascii: ",") where depth == 0: break scan
            default: break
            }
            at += 1
        }
        guard at < bytes.count else { return nil }
        var last = at
        while last > start && isWhitespace(bytes[last - 1]) { last -= 1 }
        guard last > start else { return nil }
        elements.append(start..<last)
        let separator = bytes[at]
        at += 1
        skipWhitespace()
        switch separator {
        case UInt8(ascii: ","): continue
        case UInt8(ascii: "]"): return at == bytes.count ? elements : nil
        default: return nil
        }
    }
}

private func expectSameElements(_ bytes: [UInt8], _ comment: @autoclosure () -> String) {
    let found = bytes.withUnsafeBufferPointer { JSONReader.topLevelElements($0) }
    #expect(found == elementsByteByByte(bytes), "\(comment())")
}

/// Every JSON text of the repository's corpora and test fixtures, and every rule-list text the
/// conformance vectors hold (the texts WebKit was asked about).
private func jsonTestTexts() throws -> [(name: String, bytes: [UInt8])] {
    var texts = try shippedListTexts().map { (name: $0.file, bytes: $0.bytes) }
    for folder in ["Corpora", "Tests"] {
        let root = repositoryURL(folder)
        guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
        for case let file as URL in files where file.pathExtension == "json" {
            let bytes = [UInt8](try Data(contentsOf: file))
            texts.append((file.path, bytes))
            // Rule-list texts held as strings (the conformance vectors' "rules").
            var strings: [String] = []
            func collect(_ value: Any) {
                if let object = value as? [String: Any] {
                    for (key, member) in object {
                        if key == "rules" || key == "sameProgramAs", let text = member as? String { strings.append(text) } else { collect(member) }
                    }
                } else if let array = value as? [Any] {
                    array.forEach(collect)
                }
            }
            if let value = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) { collect(value) }
            for (number, text) in strings.enumerated() { texts.append(("\(file.path) text \(number)", Array(text.utf8))) }
        }
    }
    return texts
}

@Suite struct ReadingApartTests {
    /// The scan passes a string at once, searching for its quotes alone and counting the
    /// backslashes before one back from it: it finds what the byte-by-byte scan finds.
    @Test func findsWhatTheByteByByteScanFindsInEveryJSONText() throws {
        let texts = try jsonTestTexts()
        #expect(texts.count > 1_000)
        for (name, bytes) in texts { expectSameElements(bytes, name) }
    }

    /// Backslash runs of every length before a quote, at every offset from a word's and a
    /// vector's edge, inside and outside nested brackets, whole and cut at every length.
    @Test func findsWhatTheByteByByteScanFindsAroundEscapes() {
        for padding in 0..<40 {
            for run in 0..<6 {
                let escaped = String(repeating: "a", count: padding) + String(repeating: "\\", count: run) + "\""
                for shape in [#"["E",1]"#, #"[{"k":["E"]},"E"]"#, #"[["E"],{"E":"E\\"}]"#, #"[ "E" , [ "E ] ", { } ] ]"#] {
                    let text = Array(shape.replacingOccurrences(of: "E", with: escaped).utf8)
                    for length in 0...text.count { expectSameElements(Array(text[0..<length]), "\(padding) \(run) \(shape) cut at \(length)") }
                }
            }
        }
    }

    /// Cut at many lengths (every offset from a word's edge), and with bytes that matter to the
    /// scan put anywhere.
    @Test func findsWhatTheByteByByteScanFindsInCutAndMutatedTexts() throws {
        let bytes = [UInt8](try Data(contentsOf: repositoryURL("Corpora/rules/ddg-tds-reference-rules.json")))
        for length in stride(from: 0, through: bytes.count, by: 13) { expectSameElements(Array(bytes[0..<length]), "cut at \(length)") }
        var generator = SystemRandomNumberGenerator()
        for round in 0..<500 {
            let cut = Array(bytes[0..<Int.random(in: 0...bytes.count, using: &generator)])
            expectSameElements(mutated(cut, changes: 0...4, using: &generator), "mutation \(round)")
        }
    }

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
        for round in 0..<300 { expectSameCheck(mutated(bytes, changes: 1...3, using: &generator), "mutation \(round)") }
    }
}
