// JSONReader: RFC 8259 JSON from UTF-8 bytes as WebKit reads it, with the position of the first
// error. Like WebKit (and unlike RFC 8259) it accepts raw control characters, NUL included,
// inside strings and the JavaScript escapes `\v` and `\xHH`; it rejects invalid UTF-8 anywhere,
// a byte-order mark, comments and trailing commas.
//
// Hand-written because the checks need what a general-purpose decoder hides: exact positions for
// error messages, duplicate keys resolved the way WebKit resolves them, lone surrogates, and a
// nesting limit so that hostile input ends in an error rather than a stack overflow. It reads a
// text in one pass through pointers onto a `JSONTape` (its values in place, in order), strings
// a word at a time; `parse` makes a `JSONValue` tree of that for callers that want one. The
// design and why: docs/JSON.md. Tested by ContentRuleListTests/JSONReaderTests.swift.

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
        let tape = JSONTape()
        try read(buffer, depth: 0, into: tape)
        return tape.withRoot(in: buffer) { JSONValue($0) }
    }

    /// Reads the one value of `buffer`, nested `depth` levels deep, onto `tape` (emptied first;
    /// its storage is kept for the next text).
    static func read(_ buffer: UnsafeBufferPointer<UInt8>, depth: Int, into tape: JSONTape) throws(JSONSyntaxError) {
        tape.removeAll()
        guard let base = buffer.baseAddress, buffer.count > 0 else {
            throw JSONSyntaxError(reason: "expected a value, found end of text", offset: 0, line: 1, column: 1)
        }
        var reader = JSONReader(base, count: buffer.count, tape: tape)
        defer { reader.store(into: tape) }
        reader.skipWhitespace()
        try reader.readValue(depth: depth)
        reader.skipWhitespace()
        guard reader.at == reader.end else { throw reader.error("unexpected text after the JSON value") }
    }

    /// The byte ranges of the elements of the text's top-level array, found from its brackets,
    /// braces, commas and strings alone, without parsing it (a few instructions a byte), so that
    /// the elements can be parsed apart, on every core. Nil when that scan finds no top-level
    /// array. A range found may still not hold valid JSON (`parseElement` says): only a text each
    /// of whose ranges parses is valid JSON, and then it holds exactly these elements.
    public static func topLevelElements(_ bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>]? {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return nil }
        let end = base + bytes.count
        var at = base
        func skipWhitespace() {
            while at < end && isWhitespace(at.pointee) { at += 1 }
        }
        skipWhitespace()
        guard at < end, at.pointee == UInt8(ascii: "[") else { return nil }
        at += 1
        skipWhitespace()
        var elements: [Range<Int>] = []
        if at < end && at.pointee == UInt8(ascii: "]") {
            at += 1
            skipWhitespace()
            return at == end ? elements : nil
        }
        while true {
            let start = at
            guard let stop = elementEnd(from: at, to: end) else { return nil }
            at = stop
            var last = at
            while last > start && isWhitespace((last - 1).pointee) { last -= 1 }
            guard last > start else { return nil }
            elements.append(base.distance(to: start)..<base.distance(to: last))
            let separator = at.pointee
            at += 1
            skipWhitespace()
            switch separator {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "]"): return at == end ? elements : nil
            default: return nil
            }
        }
    }

    /// Reads one element of a top-level array, alone (a range `topLevelElements` found), onto
    /// `tape`: nested one level deep, as in the array.
    static func readElement(_ buffer: UnsafeBufferPointer<UInt8>, into tape: JSONTape) throws(JSONSyntaxError) {
        try read(buffer, depth: 1, into: tape)
    }

    /// Reads the elements of `text`'s top-level array at `ranges` (ranges `topLevelElements`
    /// found), each alone and nested one level deep, onto `tape` (emptied first), one after
    /// another; the tape's positions and an error's offset are `text`'s. `roots` (emptied first)
    /// gets where each element's entry is (`JSONTape.withValue(at:in:_:)`).
    static func readElements(
        _ text: UnsafeBufferPointer<UInt8>, _ ranges: ArraySlice<Range<Int>>, into tape: JSONTape, roots: inout [Int]
    ) throws(JSONSyntaxError) {
        tape.removeAll()
        roots.removeAll(keepingCapacity: true)
        guard let base = text.baseAddress else { return }
        var reader = JSONReader(base, count: text.count, tape: tape)
        defer { reader.store(into: tape) }
        for range in ranges {
            reader.at = base + range.lowerBound
            reader.end = base + range.upperBound
            roots.append(reader.entryCount)
            reader.skipWhitespace()
            try reader.readValue(depth: 1)
            reader.skipWhitespace()
            guard reader.at == reader.end else { throw reader.error("unexpected text after the JSON value") }
        }
    }

    // MARK: Bytes a word at a time

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Eight bytes from `pointer`, the first in the lowest byte.
    @inline(__always)
    private static func word(_ pointer: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
    }

    /// The high bit of each byte of `word` that equals `byte`. Exact up to and including the first
    /// such byte (a borrow can mark bytes after it), which is all a search reads.
    @inline(__always)
    private static func bytes(_ word: UInt64, equalTo byte: UInt8) -> UInt64 {
        let difference = word ^ (ones &* UInt64(byte))
        return (difference &- ones) & ~difference & highBits
    }

    /// Where the element that starts at `start` ends: at the first `,`, `]` or `}` outside its
    /// strings and its own brackets and braces; nil when the text ends first. Only the bytes
    /// between strings are looked at one by one (in a list, a few between each two strings);
    /// a string is passed at once (`closingQuote`).
    @inline(__always)
    private static func elementEnd(from start: UnsafePointer<UInt8>, to end: UnsafePointer<UInt8>) -> UnsafePointer<UInt8>? {
        var at = start
        var depth = 0
        while at < end {
            let byte = at.pointee
            if byte == UInt8(ascii: "\"") {
                guard let close = closingQuote(from: at + 1, to: end) else { return nil }
                at = close + 1
                continue
            }
            // (A `:`, the most common byte between strings, is passed first.) With bit 0x20 set,
            // `[` and `{` (and no other byte) are `{`; `]` and `}` are `}`.
            if byte != UInt8(ascii: ":") {
                let folded = byte | 0x20
                if folded == UInt8(ascii: "{") {
                    depth += 1
                } else if folded == UInt8(ascii: "}") {
                    if depth == 0 { return at }
                    depth -= 1
                } else if byte == UInt8(ascii: ","), depth == 0 {
                    return at
                }
            }
            at += 1
        }
        return nil
    }

    /// The quote that closes the string whose text starts at `start` (after its opening quote),
    /// or nil when the text ends first. A backslash escapes the byte after it (a backslash too),
    /// so the closing quote is the first `"` after an even run of backslashes: only quotes are
    /// searched for (`nextQuote`), and the backslashes before one counted back from it (back to
    /// the opening quote at most, which is not one).
    @inline(__always)
    private static func closingQuote(from start: UnsafePointer<UInt8>, to end: UnsafePointer<UInt8>) -> UnsafePointer<UInt8>? {
        var at = start
        while true {
            at = nextQuote(from: at, to: end)
            guard at < end else { return nil }
            var run = at
            while (run - 1).pointee == UInt8(ascii: "\\") { run -= 1 }
            if (at - run) & 1 == 0 { return at }
            at += 1
        }
    }

    /// The first `"` from `start` on, or `end`: the first sixteen bytes a word at a time (most
    /// strings of a list end there), the rest with `memchr`.
    @inline(__always)
    private static func nextQuote(from start: UnsafePointer<UInt8>, to end: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
        var at = start
        if end - at >= 16 {
            let first = bytes(word(at), equalTo: UInt8(ascii: "\""))
            if first != 0 { return at + first.trailingZeroBitCount >> 3 }
            let second = bytes(word(at + 8), equalTo: UInt8(ascii: "\""))
            if second != 0 { return at + 8 + second.trailingZeroBitCount >> 3 }
            at += 16
        }
        guard let found = memchr(at, Int32(UInt8(ascii: "\"")), end - at) else { return end }
        return UnsafePointer(found.assumingMemoryBound(to: UInt8.self))
    }

    /// The first `"`, `\` or byte of a multi-byte character (0x80 and above) from `start` on, or `end`.
    @inline(__always)
    private static func nextStringStop(from start: UnsafePointer<UInt8>, to end: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
        var at = start
        while end - at >= 8 {
            let word = word(at)
            let found = bytes(word, equalTo: UInt8(ascii: "\"")) | bytes(word, equalTo: UInt8(ascii: "\\")) | (word & highBits)
            if found != 0 { return at + found.trailingZeroBitCount >> 3 }
            at += 8
        }
        while at < end {
            let unit = at.pointee
            if unit == UInt8(ascii: "\"") || unit == UInt8(ascii: "\\") || unit >= 0x80 { break }
            at += 1
        }
        return at
    }

    // MARK: The reader

    private let base: UnsafePointer<UInt8>
    /// The end of the value being read (of the text, or of one element of its array).
    private var end: UnsafePointer<UInt8>
    /// The next byte to read.
    private var at: UnsafePointer<UInt8>
    // The tape's buffers, held here while reading (`store` gives them back).
    private var entries: UnsafeMutablePointer<JSONTape.Entry>
    private var entryCount: Int
    private var entryCapacity: Int
    private var arena: UnsafeMutablePointer<UInt8>
    private var arenaCount: Int
    private var arenaCapacity: Int

    private init(_ base: UnsafePointer<UInt8>, count: Int, tape: JSONTape) {
        self.base = base
        end = base + count
        at = base
        entries = tape.entryBase
        entryCount = tape.entryCount
        entryCapacity = tape.entryCapacity
        arena = tape.arenaBase
        arenaCount = tape.arenaCount
        arenaCapacity = tape.arenaCapacity
    }

    private func store(into tape: JSONTape) {
        tape.entryBase = entries
        tape.entryCount = entryCount
        tape.entryCapacity = entryCapacity
        tape.arenaBase = arena
        tape.arenaCount = arenaCount
        tape.arenaCapacity = arenaCapacity
    }

    private var index: Int { base.distance(to: at) }

    private func error(_ reason: String, at offset: Int? = nil) -> JSONSyntaxError {
        let offset = min(offset ?? index, base.distance(to: end))
        var line = 1
        var lineStart = 0
        for position in 0..<offset where base[position] == UInt8(ascii: "\n") {
            line += 1
            lineStart = position + 1
        }
        return JSONSyntaxError(reason: reason, offset: offset, line: line, column: offset - lineStart + 1)
    }

    private func error(_ reason: String, at pointer: UnsafePointer<UInt8>) -> JSONSyntaxError {
        error(reason, at: base.distance(to: pointer))
    }

    private func describeCurrent() -> String {
        guard at < end else { return "end of text" }
        let unit = at.pointee
        return (0x21...0x7E).contains(unit) ? "'\(UnicodeScalar(unit))'" : "byte 0x" + String(unit, radix: 16)
    }

    @inline(__always)
    private static func isWhitespace(_ unit: UInt8) -> Bool { unit == 0x20 || unit == 0x0A || unit == 0x0D || unit == 0x09 }

    @inline(__always)
    private mutating func skipWhitespace() {
        while at < end && at.pointee <= 0x20 && Self.isWhitespace(at.pointee) { at += 1 }
    }

    // MARK: The tape's buffers

    @inline(__always)
    private mutating func append(_ kind: JSONKind, flag: Bool = false, from start: Int = 0, to end: Int = 0) {
        if entryCount == entryCapacity { growEntries() }
        (entries + entryCount).initialize(to: JSONTape.Entry(kind: kind, flag: flag, start: start, end: end))
        entryCount += 1
    }

    @inline(never)
    private mutating func growEntries() {
        let grown = UnsafeMutablePointer<JSONTape.Entry>.allocate(capacity: 2 * entryCapacity)
        grown.moveInitialize(from: entries, count: entryCount)
        entries.deallocate()
        entries = grown
        entryCapacity *= 2
    }

    /// Room for `count` more bytes in the arena.
    @inline(__always)
    private mutating func reserveArena(_ count: Int) {
        if arenaCount + count > arenaCapacity { growArena(arenaCount + count) }
    }

    @inline(never)
    private mutating func growArena(_ needed: Int) {
        let capacity = max(needed, 2 * arenaCapacity)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        grown.update(from: arena, count: arenaCount)
        arena.deallocate()
        arena = grown
        arenaCapacity = capacity
    }

    /// Starts a container: its position, for `close`.
    @inline(__always)
    private mutating func open(_ kind: JSONKind) -> Int {
        append(kind)
        return entryCount - 1
    }

    /// Ends the container at `position`, of `count` values.
    @inline(__always)
    private mutating func close(_ position: Int, count: Int) {
        entries[position].start = count
        entries[position].end = entryCount
    }

    // MARK: Values

    /// Reads a value onto the tape.
    private mutating func readValue(depth: Int) throws(JSONSyntaxError) {
        guard at < end else { throw error("expected a value, found end of text") }
        switch at.pointee {
        case UInt8(ascii: "\""): try readString()
        case UInt8(ascii: "{"): try readObject(depth: depth + 1)
        case UInt8(ascii: "["): try readArray(depth: depth + 1)
        case UInt8(ascii: "t"): try expectWord("true"); append(.bool, flag: true)
        case UInt8(ascii: "f"): try expectWord("false"); append(.bool, flag: false)
        case UInt8(ascii: "n"): try expectWord("null"); append(.null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try readNumber()
        default: throw error("expected a value, found \(describeCurrent())")
        }
    }

    private mutating func expectWord(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard end - at >= count, memcmp(at, word.utf8Start, count) == 0 else { throw error("invalid literal") }
        at += count
    }

    private mutating func readArray(depth: Int) throws(JSONSyntaxError) {
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        at += 1
        let array = open(.array)
        var count = 0
        skipWhitespace()
        if at < end && at.pointee == UInt8(ascii: "]") {
            at += 1
            close(array, count: count)
            return
        }
        while true {
            skipWhitespace()
            try readValue(depth: depth)
            count += 1
            skipWhitespace()
            guard at < end else { throw error("unterminated array: expected ',' or ']'") }
            switch at.pointee {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: "]"): at += 1; close(array, count: count); return
            default: throw error("expected ',' or ']' in array, found \(describeCurrent())")
            }
        }
    }

    private mutating func readObject(depth: Int) throws(JSONSyntaxError) {
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth)") }
        at += 1
        let object = open(.object)
        var count = 0
        skipWhitespace()
        if at < end && at.pointee == UInt8(ascii: "}") {
            at += 1
            close(object, count: count)
            return
        }
        while true {
            skipWhitespace()
            guard at < end, at.pointee == UInt8(ascii: "\"") else {
                throw error("expected a member name in double quotes, found \(describeCurrent())")
            }
            try readString()
            skipWhitespace()
            guard at < end, at.pointee == UInt8(ascii: ":") else {
                throw error("expected ':' after a member name, found \(describeCurrent())")
            }
            at += 1
            skipWhitespace()
            try readValue(depth: depth)
            count += 1
            skipWhitespace()
            guard at < end else { throw error("unterminated object: expected ',' or '}'") }
            switch at.pointee {
            case UInt8(ascii: ","): at += 1
            case UInt8(ascii: "}"): at += 1; close(object, count: count); return
            default: throw error("expected ',' or '}' in object, found \(describeCurrent())")
            }
        }
    }

    /// Reads a string onto the tape: where it lies in the text, or, when it has escapes, where
    /// its decoded bytes lie in the tape's arena. One pass, eight bytes at a time up to the
    /// first quote, backslash or non-ASCII byte; the bytes are checked for UTF-8 only when one
    /// is not ASCII.
    private mutating func readString() throws(JSONSyntaxError) {
        let start = at
        var stop = at + 1
        var hasNonASCII = false
        while true {
            stop = Self.nextStringStop(from: stop, to: end)
            guard stop < end else { throw error("unterminated string", at: start) }
            switch stop.pointee {
            case UInt8(ascii: "\""):
                let contents = UnsafeBufferPointer(start: start + 1, count: stop - (start + 1))
                if hasNonASCII, !Self.isValidUTF8(contents) { throw error("invalid UTF-8 in a string", at: start) }
                append(.string, from: base.distance(to: start + 1), to: base.distance(to: stop))
                at = stop + 1
                return
            case UInt8(ascii: "\\"):
                try readEscapedString(from: start, firstEscape: stop, hasNonASCII: hasNonASCII)
                return
            default:
                hasNonASCII = true
                stop += 1
            }
        }
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

    /// Copies `start..<stop` of the text to the arena.
    @inline(__always)
    private mutating func appendToArena(_ start: UnsafePointer<UInt8>, _ stop: UnsafePointer<UInt8>) {
        let count = stop - start
        reserveArena(count)
        (arena + arenaCount).update(from: start, count: count)
        arenaCount += count
    }

    @inline(__always)
    private mutating func appendToArena(_ unit: UInt8) {
        reserveArena(1)
        arena[arenaCount] = unit
        arenaCount += 1
    }

    /// The rest of a string whose first escape is at `firstEscape`, decoded into the arena: runs
    /// of bytes that stand for themselves copied at once, each escape written as UTF-8. A lone
    /// UTF-16 surrogate becomes U+FFFD.
    private mutating func readEscapedString(
        from start: UnsafePointer<UInt8>, firstEscape: UnsafePointer<UInt8>, hasNonASCII nonASCIIBefore: Bool
    ) throws(JSONSyntaxError) {
        let decodedStart = arenaCount
        var hasNonASCII = nonASCIIBefore
        var pendingHighSurrogate: UInt32?
        var run = start + 1
        var stop = firstEscape
        while true {
            // `stop` is at a quote, a backslash, or the end; `run..<stop` stand for themselves.
            if stop > run {
                if pendingHighSurrogate != nil {
                    appendScalar(0xFFFD)
                    pendingHighSurrogate = nil
                }
                appendToArena(run, stop)
            }
            guard stop < end else { throw error("unterminated string", at: start) }
            if stop.pointee == UInt8(ascii: "\"") {
                if pendingHighSurrogate != nil { appendScalar(0xFFFD) }
                // Escapes write valid UTF-8; the bytes between them may not be.
                if hasNonASCII, !Self.isValidUTF8(UnsafeBufferPointer(start: arena + decodedStart, count: arenaCount - decodedStart)) {
                    throw error("invalid UTF-8 in a string", at: start)
                }
                append(.string, flag: true, from: decodedStart, to: arenaCount)
                at = stop + 1
                return
            }
            // A backslash.
            guard stop + 1 < end else { throw error("unterminated string", at: start) }
            let escape = stop[1]
            at = stop + 2
            if escape == UInt8(ascii: "u") {
                guard let value = hex(4) else { throw error("invalid \\u escape", at: at - 2) }
                switch value {
                case 0xD800...0xDBFF:
                    if pendingHighSurrogate != nil { appendScalar(0xFFFD) }
                    pendingHighSurrogate = value
                case 0xDC00...0xDFFF:
                    if let high = pendingHighSurrogate {
                        appendScalar(0x10000 + ((high - 0xD800) << 10) + (value - 0xDC00))
                        pendingHighSurrogate = nil
                    } else {
                        appendScalar(0xFFFD)
                    }
                default:
                    if pendingHighSurrogate != nil {
                        appendScalar(0xFFFD)
                        pendingHighSurrogate = nil
                    }
                    appendScalar(value)
                }
            } else {
                if pendingHighSurrogate != nil {
                    appendScalar(0xFFFD)
                    pendingHighSurrogate = nil
                }
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): appendToArena(escape)
                case UInt8(ascii: "b"): appendToArena(0x08)
                case UInt8(ascii: "f"): appendToArena(0x0C)
                case UInt8(ascii: "n"): appendToArena(0x0A)
                case UInt8(ascii: "r"): appendToArena(0x0D)
                case UInt8(ascii: "t"): appendToArena(0x09)
                // WebKit's JSON parser also takes two escapes from JavaScript strings.
                case UInt8(ascii: "v"): appendToArena(0x0B)
                case UInt8(ascii: "x"):
                    guard let value = hex(2) else { throw error("invalid \\x escape", at: at - 2) }
                    appendScalar(value)
                default: throw error("invalid escape in a string", at: at - 2)
                }
            }
            run = at
            stop = Self.nextStringStop(from: run, to: end)
            while stop < end && stop.pointee >= 0x80 {
                hasNonASCII = true
                stop = Self.nextStringStop(from: stop + 1, to: end)
            }
        }
    }

    /// Exactly `count` hex digits. On a byte that is not one, nil, having read the digits before
    /// it (an error's position counts them).
    private mutating func hex(_ count: Int) -> UInt32? {
        guard end - at >= count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<count {
            let unit = at.pointee
            let digit: UInt32
            switch unit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(unit - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(unit - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(unit - UInt8(ascii: "A") + 10)
            default: return nil
            }
            value = value << 4 | digit
            at += 1
        }
        return value
    }

    /// Writes `scalar` to the arena as UTF-8.
    private mutating func appendScalar(_ scalar: UInt32) {
        reserveArena(4)
        let out = arena + arenaCount
        switch scalar {
        case 0..<0x80:
            out[0] = UInt8(scalar)
            arenaCount += 1
        case 0x80..<0x800:
            out[0] = UInt8(0xC0 | (scalar >> 6))
            out[1] = UInt8(0x80 | (scalar & 0x3F))
            arenaCount += 2
        case 0x800..<0x10000:
            out[0] = UInt8(0xE0 | (scalar >> 12))
            out[1] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
            out[2] = UInt8(0x80 | (scalar & 0x3F))
            arenaCount += 3
        default:
            out[0] = UInt8(0xF0 | (scalar >> 18))
            out[1] = UInt8(0x80 | ((scalar >> 12) & 0x3F))
            out[2] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
            out[3] = UInt8(0x80 | (scalar & 0x3F))
            arenaCount += 4
        }
    }

    /// Reads a number onto the tape: where it lies in the text (its value is read when asked for).
    private mutating func readNumber() throws(JSONSyntaxError) {
        let start = at
        let end = self.end
        func isDigit(_ pointer: UnsafePointer<UInt8>) -> Bool {
            pointer < end && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(pointer.pointee)
        }
        /// Past the digits from `pointer`: how many there are.
        func digits(_ pointer: inout UnsafePointer<UInt8>) -> Int {
            let from = pointer
            while isDigit(pointer) { pointer += 1 }
            return from.distance(to: pointer)
        }
        var at = self.at
        defer { self.at = at }
        if at.pointee == UInt8(ascii: "-") { at += 1 }
        guard at < end else { throw error("invalid number", at: start) }
        if at.pointee == UInt8(ascii: "0") {
            at += 1
            if isDigit(at) { throw error("leading zero in a number", at: start) }
        } else if digits(&at) == 0 {
            throw error("invalid number", at: start)
        }
        if at < end, at.pointee == UInt8(ascii: ".") {
            at += 1
            guard digits(&at) > 0 else { throw error("invalid number: digits expected after '.'", at: start) }
        }
        if at < end, at.pointee | 0x20 == UInt8(ascii: "e") {
            at += 1
            if at < end, at.pointee == UInt8(ascii: "+") || at.pointee == UInt8(ascii: "-") { at += 1 }
            guard digits(&at) > 0 else { throw error("invalid number: digits expected in the exponent", at: start) }
        }
        append(.number, from: base.distance(to: start), to: base.distance(to: at))
    }
}
