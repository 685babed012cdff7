// FuzzPatternReader.swift — Fuzzing
//
// Reads a url-filter written in the plain part of the subset (characters, `\` escapes, `.`,
// classes with ranges, groups (`(` and `(?:`), `? * +`, `^` first and `$` last) into the generators'
// model, each character keeping its spelling (`/` plain, `\/` an identity escape), so that a
// pattern a converter writes (Corpus/Dialects) can be put in a generated rule list and shrunk like
// any other. Nil for text outside that part. Used by the dialect level (DialectCaseGenerator.swift).
// Tested by FuzzingTests (DialectLevelTests).

internal import URLFilterSyntax

public enum FuzzPatternReader {
    /// `text` as a pattern, or nil when it uses anything this reader does not take.
    public static func read(_ text: String, caseSensitive: Bool = false) -> FuzzPattern? {
        var bytes = Array(text.utf8)
        let start = bytes.first == UInt8(ascii: "^")
        if start { bytes.removeFirst() }
        let end = bytes.last == UInt8(ascii: "$") && (bytes.count < 2 || bytes[bytes.count - 2] != UInt8(ascii: "\\"))
        if end { bytes.removeLast() }
        var index = 0
        guard let terms = readTerms(bytes, &index, inGroup: false), index == bytes.count else { return nil }
        return FuzzPattern(startAnchor: start, endAnchor: end, terms: terms, caseSensitive: caseSensitive)
    }

    /// Terms up to the text's end, or (in a group) up to its `)`, left unread.
    static func readTerms(_ bytes: [UInt8], _ index: inout Int, inGroup: Bool) -> [FuzzTerm]? {
        var terms: [FuzzTerm] = []
        while index < bytes.count && bytes[index] != UInt8(ascii: ")") {
            guard let atom = readAtom(bytes, &index) else { return nil }
            var quantifier = QuantifierSpelling.one
            if index < bytes.count, let short = URLFilterQuantifier(rawValue: String(UnicodeScalar(bytes[index]))), short != .one {
                quantifier = .short(short)
                index += 1
            }
            terms.append(FuzzTerm(atom, quantifier))
        }
        return (index < bytes.count) == inGroup ? terms : nil
    }

    static func readAtom(_ bytes: [UInt8], _ index: inout Int) -> FuzzAtom? {
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\\"):
            guard index < bytes.count else { return nil }
            index += 1
            return .character(bytes[index - 1], .identity)
        case UInt8(ascii: "."): return .any
        case UInt8(ascii: "["): return readClass(bytes, &index)
        case UInt8(ascii: "("):
            let capturing = !bytes[index...].starts(with: [UInt8(ascii: "?"), UInt8(ascii: ":")])
            if !capturing { index += 2 }
            guard let inner = readTerms(bytes, &index, inGroup: true) else { return nil }
            index += 1
            return .group(capturing ? .capturing : .nonCapturing, inner)
        case UInt8(ascii: "^"), UInt8(ascii: "$"), UInt8(ascii: "|"), UInt8(ascii: "?"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: "{"), UInt8(ascii: "]"), UInt8(ascii: "}"):
            return nil
        default: return .character(byte, .plain)
        }
    }

    /// A class after its `[`, through its `]`.
    static func readClass(_ bytes: [UInt8], _ index: inout Int) -> FuzzAtom? {
        let negated = index < bytes.count && bytes[index] == UInt8(ascii: "^")
        if negated { index += 1 }
        var items: [ClassItem] = []
        func character() -> (UInt8, CharacterSpelling)? {
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "\\") {
                guard index + 1 < bytes.count else { return nil }
                index += 2
                return (bytes[index - 1], .identity)
            }
            index += 1
            return (bytes[index - 1], .plain)
        }
        while index < bytes.count && bytes[index] != UInt8(ascii: "]") {
            guard let (low, lowSpelling) = character() else { return nil }
            if index + 1 < bytes.count && bytes[index] == UInt8(ascii: "-") && bytes[index + 1] != UInt8(ascii: "]") {
                index += 1
                guard let (high, highSpelling) = character(), low <= high else { return nil }
                items.append(.range(low, lowSpelling, high, highSpelling))
            } else {
                items.append(.character(low, lowSpelling))
            }
        }
        guard index < bytes.count, !items.isEmpty else { return nil }
        index += 1
        return .characterClass(negated: negated, items)
    }
}
