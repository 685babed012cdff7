// JSONReader: RFC 8259 JSON from UTF-8 bytes as WebKit reads it, with the position of the first
// error. Like WebKit (and unlike RFC 8259) it accepts raw control characters, NUL included,
// inside strings and the JavaScript escapes `\v` and `\xHH`; it rejects invalid UTF-8 anywhere,
// a byte-order mark, comments and trailing commas.
//
// Hand-written because the checks need what a general-purpose decoder hides: exact positions for
// error messages, duplicate keys resolved the way WebKit resolves them, lone surrogates, and a
// nesting limit so that hostile input ends in an error rather than a stack overflow. It reads a
// text onto a `JSONTape` (its values in place, in order); `parse` makes a `JSONValue` tree of
// that for callers that want one. Tested by ContentRuleListTests/JSONReaderTests.swift.

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Why a text is not JSON, and where.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    /// Byte offset into the text.
    public var offset: Int
    /// 1-based line and column (in bytes) of `offset`.
    public var line: Int
    public var column: Int

    public var description: String { "line \(line), column \(column): \(reason)" }
}

public struct JSONReader {
    /// Deeper nesting than this is an error: WebKit accepts 1,001 levels (the top-level array
    /// counts as one) and rejects 1,002 (measured with WebKitGTK; Corpora/conformance/webkit-probe-json-text.json).
    public static let maximumDepth = 1001

    public static func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { buffer -> Result<JSONValue, JSONSyntaxError> in
            do throws(JSONSyntaxError) { return .success(try parse(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer -> Result<JSONValue, JSONSyntaxError> in
            do throws(JSONSyntaxError) { return .success(try parse(buffer)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The one value of `buffer`, as a tree.
    public static func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        var tape = JSONTape()
        try read(buffer, depth: 0, into: &tape)
        return tape.withRoot(in: buffer) { JSONValue($0) }
    }

    /// Reads the one value of `buffer`, nested `depth` levels deep, into `tape` (emptied first;
    /// its storage is kept for the next text).
    static func read(_ buffer: UnsafeBufferPointer<UInt8>, depth: Int, into tape: inout JSONTape) throws(JSONSyntaxError) {
        tape.removeAll()
        var reader = JSONReader(buffer)
        swap(&reader.tape, &tape)
        defer { swap(&reader.tape, &tape) }
        reader.skipWhitespace()
        try reader.readValue(depth: depth)
        reader.skipWhitespace()
        guard reader.index == buffer.count else { throw reader.error("unexpected text after the JSON value") }
    }

    /// The byte ranges of the elements of the text's top-level array, found from its brackets,
    /// braces, commas and strings alone, without parsing it (a few instructions a byte), so that
    /// the elements can be parsed apart, on every core. Nil when that scan finds no top-level
    /// array. A range found may still not hold valid JSON (`parseElement` says): only a text each
    /// of whose ranges parses is valid JSON, and then it holds exactly these elements.
    public static func topLevelElements(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>]? {
        var reader = JSONReader(bytes)
        return reader.scanTopLevelElements()
    }

    private mutating func scanTopLevelElements() -> [Range<Int>]? {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "[") else { return nil }
        index += 1
        skipWhitespace()
        var elements: [Range<Int>] = []
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            skipWhitespace()
            return index == bytes.count ? elements : nil
        }
        while true {
            let start = index
            var depth = 0
            scan: while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index = Self.stringEnd(bytes, from: index + 1)
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    if depth == 0 { break scan }
                    depth -= 1
                case UInt8(ascii: ",") where depth == 0:
                    break scan
                default:
                    break
                }
                index += 1
            }
            guard index < bytes.count else { return nil }
            var end = index
            while end > start && Self.isWhitespace(bytes[end - 1]) { end -= 1 }
            guard end > start else { return nil }
            elements.append(start..<end)
            let separator = bytes[index]
            index += 1
            skipWhitespace()
            switch separator {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "]"): return index == bytes.count ? elements : nil
            default: return nil
            }
        }
    }

    /// Where the string whose contents start at `start` ends: its closing quote (one after an
    /// even run of backslashes), or past the text when it has none. The quotes are found by
    /// `memchr` (vectorized), not a byte at a time: most of a rule list's bytes are in strings, and
    /// this scan is the one serial pass over the whole text.
    static func stringEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        var from = start
        while from < bytes.count {
            guard let found = memchr(base + from, Int32(UInt8(ascii: "\"")), bytes.count - from) else { return bytes.count }
            let quote = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            var backslashes = 0
            while quote - backslashes > start && bytes[quote - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
            if backslashes % 2 == 0 { return quote }
            from = quote + 1
        }
        return bytes.count
    }

    /// Reads one element of a top-level array, alone (a range `topLevelElements` found), into
    /// `tape`: nested one level deep, as in the array.
    static func readElement(_ buffer: UnsafeBufferPointer<UInt8>, into tape: inout JSONTape) throws(JSONSyntaxError) {
        try read(buffer, depth: 1, into: &tape)
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var tape = JSONTape()

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private func error(_ reason: String, at offset: Int? = nil) -> JSONSyntaxError {
        let offset = min(offset ?? index, bytes.count)
        var line = 1
        var lineStart = 0
        for position in 0..<offset where bytes[position] == UInt8(ascii: "\n") {
            line += 1
            lineStart = position + 1
        }
        return JSONSyntaxError(reason: reason, offset: offset, line: line, column: offset - lineStart + 1)
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of text" }
        let unit = bytes[index]
        return (0x21...0x7E).contains(unit) ? "'\(UnicodeScalar(unit))'" : "byte 0x" + String(unit, radix: 16)
    }

    private static func isWhitespace(_ unit: UInt8) -> Bool { unit == 0x20 || unit == 0x09 || unit == 0x0A || unit == 0x0D }

    private mutating func skipWhitespace() {
        while index < bytes.count && Self.isWhitespace(bytes[index]) { index += 1 }
    }

    /// Reads a value onto the tape.
    private mutating func readValue(depth: Int) throws(JSONSyntaxError) {
        guard index < bytes.count else { throw error("expected a value, found end of text") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try readObject(depth: depth + 1)
        case UInt8(ascii: "["): try readArray(depth: depth + 1)
        case UInt8(ascii: "\""): try readString()
        case UInt8(ascii: "t"): try expectWord("true"); tape.append(.bool, flag: true)
        case UInt8(ascii: "f"): try expectWord("false"); tape.append(.bool, flag: false)
        case UInt8(ascii: "n"): try expectWord("null"); tape.append(.null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try readNumber()
        default: throw error("expected a value, found \(describeCurrent())")
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(JSONSyntaxError) {
        let start = index
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw error("invalid literal", at: start) }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw error("invalid literal", at: start)
        }
        index += count
    }

    private mutating func readArray(depth: Int) throws(JSONSyntaxError) {
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        index += 1
        let array = tape.open(.array)
        var count = 0
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            tape.close(array, count: count)
            return
        }
        while true {
            skipWhitespace()
            try readValue(depth: depth)
            count += 1
            skipWhitespace()
            guard index < bytes.count else { throw error("unterminated array: expected ',' or ']'") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; tape.close(array, count: count); return
            default: throw error("expected ',' or ']' in array, found \(describeCurrent())")
            }
        }
    }

    private mutating func readObject(depth: Int) throws(JSONSyntaxError) {
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        index += 1
        let object = tape.open(.object)
        var count = 0
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            tape.close(object, count: count)
            return
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a member name in double quotes, found \(describeCurrent())")
            }
            try readString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("expected ':' after a member name, found \(describeCurrent())")
            }
            index += 1
            skipWhitespace()
            try readValue(depth: depth)
            count += 1
            skipWhitespace()
            guard index < bytes.count else { throw error("unterminated object: expected ',' or '}'") }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; tape.close(object, count: count); return
            default: throw error("expected ',' or '}' in object, found \(describeCurrent())")
            }
        }
    }

    /// Reads a string onto the tape: where it lies in the text, or, when it has escapes, where
    /// its decoded bytes lie in the tape's arena.
    private mutating func readString() throws(JSONSyntaxError) {
        let start = index
        index += 1
        // Fast path, most strings: the first quote found (by memchr) is the closing one because no
        // backslash comes before it; the bytes are checked for UTF-8 only when one is not ASCII.
        let end = Self.stringEnd(bytes, from: index)
        let base = bytes.baseAddress.unsafelyUnwrapped
        if end < bytes.count, memchr(base + index, Int32(UInt8(ascii: "\\")), end - index) == nil {
            if !Self.isASCII(base + index, count: end - index), !Self.isValidUTF8(UnsafeBufferPointer(rebasing: bytes[index..<end])) {
                throw error("invalid UTF-8 in a string", at: start)
            }
            tape.append(.string, from: index, to: end)
            index = end + 1
            return
        }
        try readEscapedString(from: start)
    }

    /// Whether `count` bytes from `start` are all below 0x80: eight at a time.
    private static func isASCII(_ start: UnsafePointer<UInt8>, count: Int) -> Bool {
        var offset = 0
        var seen: UInt64 = 0
        while offset + 8 <= count {
            seen |= UnsafeRawPointer(start + offset).loadUnaligned(as: UInt64.self)
            offset += 8
        }
        while offset < count {
            seen |= UInt64(start[offset])
            offset += 1
        }
        return seen & 0x8080_8080_8080_8080 == 0
    }

    private static func isValidUTF8(_ units: UnsafeBufferPointer<UInt8>) -> Bool {
        var iterator = units.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    private mutating func readEscapedString(from start: Int) throws(JSONSyntaxError) {
        let decodedStart = tape.arena.count
        var hasNonASCII = false
        var pendingHighSurrogate: UInt32?
        func flushSurrogate(_ arena: inout [UInt8]) {
            if pendingHighSurrogate != nil {
                Self.appendUTF8(0xFFFD, to: &arena)
                pendingHighSurrogate = nil
            }
        }
        while index < bytes.count {
            let unit = bytes[index]
            switch unit {
            case UInt8(ascii: "\""):
                index += 1
                flushSurrogate(&tape.arena)
                // Escapes write valid UTF-8; the bytes between them may not be.
                if hasNonASCII, !tape.arena.withUnsafeBufferPointer({ Self.isValidUTF8(UnsafeBufferPointer(rebasing: $0[decodedStart...])) }) {
                    throw error("invalid UTF-8 in a string", at: start)
                }
                tape.append(.string, flag: true, from: decodedStart, to: tape.arena.count)
                return
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count else { throw error("unterminated string", at: start) }
                let escape = bytes[index + 1]
                index += 2
                if escape == UInt8(ascii: "u") {
                    guard let value = hex4() else { throw error("invalid \\u escape", at: index - 2) }
                    switch value {
                    case 0xD800...0xDBFF:
                        flushSurrogate(&tape.arena)
                        pendingHighSurrogate = value
                    case 0xDC00...0xDFFF:
                        if let high = pendingHighSurrogate {
                            Self.appendUTF8(0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00), to: &tape.arena)
                            pendingHighSurrogate = nil
                        } else {
                            Self.appendUTF8(0xFFFD, to: &tape.arena)
                        }
                    default:
                        flushSurrogate(&tape.arena)
                        Self.appendUTF8(value, to: &tape.arena)
                    }
                    continue
                }
                flushSurrogate(&tape.arena)
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): tape.arena.append(escape)
                case UInt8(ascii: "b"): tape.arena.append(0x08)
                case UInt8(ascii: "f"): tape.arena.append(0x0C)
                case UInt8(ascii: "n"): tape.arena.append(0x0A)
                case UInt8(ascii: "r"): tape.arena.append(0x0D)
                case UInt8(ascii: "t"): tape.arena.append(0x09)
                // WebKit's JSON parser also takes two escapes from JavaScript strings.
                case UInt8(ascii: "v"): tape.arena.append(0x0B)
                case UInt8(ascii: "x"):
                    guard let value = hex(2) else { throw error("invalid \\x escape", at: index - 2) }
                    Self.appendUTF8(value, to: &tape.arena)
                default: throw error("invalid escape in a string", at: index - 2)
                }
            default:
                // A run of bytes that stand for themselves, copied at once.
                flushSurrogate(&tape.arena)
                var end = index + 1
                if unit >= 0x80 { hasNonASCII = true }
                while end < bytes.count && bytes[end] != UInt8(ascii: "\"") && bytes[end] != UInt8(ascii: "\\") {
                    if bytes[end] >= 0x80 { hasNonASCII = true }
                    end += 1
                }
                tape.arena.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end]))
                index = end
            }
        }
        throw error("unterminated string", at: start)
    }

    private mutating func hex4() -> UInt32? { hex(4) }

    /// Exactly `count` hex digits.
    private mutating func hex(_ count: Int) -> UInt32? {
        guard bytes.count - index >= count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<count {
            let unit = bytes[index]
            let digit: UInt32
            switch unit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(unit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(unit - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(unit - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80: out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (scalar >> 6)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (scalar >> 12)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (scalar >> 18)))
            out.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    /// Reads a number onto the tape: where it lies in the text (its value is read when asked for).
    private mutating func readNumber() throws(JSONSyntaxError) {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits(_ reader: inout JSONReader) -> Int {
            let from = reader.index
            while reader.index < reader.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(reader.bytes[reader.index]) {
                reader.index += 1
            }
            return reader.index - from
        }
        guard index < bytes.count else { throw error("invalid number", at: start) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                throw error("leading zero in a number", at: start)
            }
        } else if digits(&self) == 0 {
            throw error("invalid number", at: start)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { throw error("invalid number: digits expected after '.'", at: start) }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { throw error("invalid number: digits expected in the exponent", at: start) }
        }
        tape.append(.number, from: start, to: index)
    }
}
