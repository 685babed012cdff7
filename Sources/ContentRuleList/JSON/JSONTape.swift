// JSONTape: a JSON text's values in document order, each read where it lies.
//
// Reading a rule list needs a few of each rule's values as Swift strings (its url-filter, its
// selector, its domains) and the rest only checked. A tree of `JSONValue`s makes a String of every
// key and value and an array of every container, then frees them all; a tape makes one entry per
// value in one buffer kept from text to text: its kind and the range of its bytes (in the text, or
// in the tape's arena when escapes were decoded). A container's entry holds how many values it has
// and where the entry after its last one is, so a reader steps over it at once. Values are read
// through `JSONTape.Value`, a view that is valid while the tape and the text are.
//
// The tape is a class that owns two raw buffers (entries, arena) which the reader fills through
// pointers, growing them by doubling: a Swift array's append checks uniqueness and capacity on
// every value, and emptying it for the next text is a call of its own. A tape is used by one
// reader at a time (each core reads onto its own).
// Tested by ContentRuleListTests/JSONTapeTests.swift and, through `JSONValue`, JSONReaderTests.swift.

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// The kinds of JSON value.
public enum JSONKind: UInt8, Hashable, Sendable {
    case null, bool, number, string, array, object

    /// An array or an object: an entry whose values follow it on a tape.
    var isContainer: Bool { self == .array || self == .object }

    /// The kind's name, for messages: "a string", "an array", ...
    public var description: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

final class JSONTape {
    struct Entry {
        var kind: JSONKind
        /// A boolean's value; for a string, whether its bytes are in the arena rather than the text.
        var flag: Bool
        /// A string's or a number's bytes are `start..<end`. A container's `start` is how many values
        /// it holds (members, for an object), its `end` the position of the entry after its last.
        var start: Int
        var end: Int
    }

    /// The entries, `entryCount` of `entryCapacity` initialized (the reader writes them).
    var entryBase: UnsafeMutablePointer<Entry>
    var entryCount = 0
    var entryCapacity: Int
    /// The strings with escapes, decoded: `arenaCount` of `arenaCapacity` bytes.
    var arenaBase: UnsafeMutablePointer<UInt8>
    var arenaCount = 0
    var arenaCapacity: Int

    init() {
        entryCapacity = 64
        entryBase = .allocate(capacity: entryCapacity)
        arenaCapacity = 256
        arenaBase = .allocate(capacity: arenaCapacity)
    }

    deinit {
        entryBase.deallocate()
        arenaBase.deallocate()
    }

    var entries: UnsafeBufferPointer<Entry> { UnsafeBufferPointer(start: entryBase, count: entryCount) }
    var arena: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: arenaBase, count: arenaCount) }

    /// Empties the tape, keeping its storage.
    func removeAll() {
        entryCount = 0
        arenaCount = 0
    }

    /// `body` given the tape's value, read in `text`, the text the tape was read from.
    func withRoot<Result>(in text: UnsafeBufferPointer<UInt8>, _ body: (Value) -> Result) -> Result {
        withValue(at: 0, in: text, body)
    }

    /// `body` given the value whose entry is at `position` (a tape of several values one after
    /// another: `JSONReader.readElements`), read in `text`.
    func withValue<Result>(at position: Int, in text: UnsafeBufferPointer<UInt8>, _ body: (Value) -> Result) -> Result {
        body(Value(text: text, entries: entries, arena: arena, position: position))
    }

    /// A value of a tape: valid while the tape and its text are (inside `withRoot`).
    struct Value {
        fileprivate let text: UnsafeBufferPointer<UInt8>
        fileprivate let entries: UnsafeBufferPointer<Entry>
        fileprivate let arena: UnsafeBufferPointer<UInt8>
        fileprivate let position: Int

        private var entry: Entry { entries[position] }

        var kind: JSONKind { entry.kind }

        /// "a string", "an array", ...
        var kindDescription: String { kind.description }

        /// A string's UTF-8 bytes.
        var stringBytes: UnsafeBufferPointer<UInt8>? {
            let entry = entry
            guard entry.kind == .string else { return nil }
            return UnsafeBufferPointer(rebasing: (entry.flag ? arena : text)[entry.start..<entry.end])
        }

        var stringValue: String? { stringBytes.map { String(decoding: $0, as: UTF8.self) } }

        var boolValue: Bool? { kind == .bool ? entry.flag : nil }

        var numberValue: Double? {
            let entry = entry
            guard entry.kind == .number else { return nil }
            return Double(String(decoding: UnsafeBufferPointer(rebasing: text[entry.start..<entry.end]), as: UTF8.self)) ?? .nan
        }

        /// How many values an array holds, or members an object (0 for any other value).
        var count: Int { kind.isContainer ? entry.start : 0 }

        /// An array's values in order (none for any other value).
        var elements: Values { Values(first: self.at(position + 1), count: kind == .array ? entry.start : 0) }

        /// An object's members in order (none for any other value).
        var members: Members { Members(firstKey: self.at(position + 1), count: kind == .object ? entry.start : 0) }

        /// The value of an object's last member named `key` (WebKit's reading of a duplicated key).
        /// (Inlined where it is asked: the name is then a constant, and the compare of its few
        /// bytes is made of loads and compares, not a call.)
        @inline(__always)
        subscript(key: StaticString) -> Value? {
            guard kind == .object else { return nil }
            // Entries read directly, a key's bytes compared only when its length is the name's.
            let length = key.utf8CodeUnitCount
            assert(length > 0, "member names looked up are not empty")
            let first = key.utf8Start.pointee
            var found: Int?
            var keyPosition = position + 1
            for _ in 0..<entries[position].start {
                let name = entries[keyPosition]
                if name.end - name.start == length {
                    let bytes = (name.flag ? arena : text).baseAddress.unsafelyUnwrapped + name.start
                    if bytes.pointee == first && memcmp(bytes, key.utf8Start, length) == 0 { found = keyPosition + 1 }
                }
                let value = entries[keyPosition + 1]
                keyPosition = value.kind.isContainer ? value.end : keyPosition + 2
            }
            return found.map(at)
        }

        /// The values of the object's members named in `names`, by the name's number there (the
        /// last member of a duplicated name; nil for a name it lacks, or when this is no object).
        /// One pass over the members, each name matched as bytes: for a reader that asks for most
        /// of an object's names, cheaper than a lookup per name.
        func members(named names: JSONNames) -> JSONNames.Found {
            var found = JSONNames.Found()
            guard kind == .object else { return found }
            var keyPosition = position + 1
            for _ in 0..<entries[position].start {
                let name = entries[keyPosition]
                let bytes = (name.flag ? arena : text).baseAddress.unsafelyUnwrapped + name.start
                if let number = names.number(of: UnsafeBufferPointer(start: bytes, count: name.end - name.start)) {
                    found.positions[number] = Int32(truncatingIfNeeded: keyPosition + 1)
                    found.numbers |= 1 << number
                }
                let value = entries[keyPosition + 1]
                keyPosition = value.kind.isContainer ? value.end : keyPosition + 2
            }
            found.object = self
            return found
        }

        fileprivate func at(_ position: Int) -> Value {
            Value(text: text, entries: entries, arena: arena, position: position)
        }

        /// The value after this one and everything inside it.
        fileprivate var next: Value {
            let entry = entry
            return at(entry.kind.isContainer ? entry.end : position + 1)
        }
    }

    struct Values: Sequence, IteratorProtocol {
        fileprivate var first: Value
        fileprivate var count: Int

        mutating func next() -> Value? {
            guard count > 0 else { return nil }
            count -= 1
            defer { first = first.next }
            return first
        }
    }

    struct Members: Sequence, IteratorProtocol {
        fileprivate var firstKey: Value
        fileprivate var count: Int

        mutating func next() -> (key: Value, value: Value)? {
            guard count > 0 else { return nil }
            count -= 1
            let value = firstKey.next
            defer { firstKey = value.next }
            return (firstKey, value)
        }
    }
}

/// A fixed set of names (at most 16), matched as bytes: a name's length and its first eight
/// bytes as one word, then its last eight as another when it has at most sixteen (the two words
/// cover it), or the rest compared.
struct JSONNames: Sendable {
    static let maximumCount = 16

    /// The names' bytes one after another, name `number` at `starts[number]..<starts[number + 1]`.
    private let bytes: [UInt8]
    private let starts: [Int]
    private let lengths: [Int]
    private let prefixes: [UInt64]
    /// The last eight bytes of each name of nine to sixteen, as a word (0 for the others).
    private let suffixes: [UInt64]

    init(_ names: [String]) {
        precondition(names.count <= Self.maximumCount, "at most \(Self.maximumCount) names")
        bytes = names.flatMap(\.utf8)
        starts = names.reduce(into: [0]) { $0.append($0.last! + $1.utf8.count) }
        lengths = names.map(\.utf8.count)
        prefixes = names.map { name in Array(name.utf8).withUnsafeBufferPointer(Self.prefix) }
        suffixes = names.map { name in
            let bytes = Array(name.utf8)
            return (9...16).contains(bytes.count) ? Array(bytes.suffix(8)).withUnsafeBufferPointer(Self.prefix) : 0
        }
    }

    /// The first eight bytes (fewer when shorter, zero-filled) as a little-endian word.
    @inline(__always)
    private static func prefix(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var word: UInt64 = 0
        for index in 0..<min(8, bytes.count) { word |= UInt64(bytes[index]) << (8 * index) }
        return word
    }

    /// The number of the name `bytes` spell, or nil.
    func number(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let count = bytes.count
        // Eight bytes or more: the prefix is one load.
        let prefix =
            count >= 8 ? UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(as: UInt64.self)) : Self.prefix(bytes)
        // (The names' words and lengths read in place, with no bounds checks.)
        return prefixes.withUnsafeBufferPointer { prefixes in
            lengths.withUnsafeBufferPointer { lengths in
                for number in 0..<prefixes.count where prefixes[number] == prefix && lengths[number] == count {
                    if count <= 8 { return number }
                    if count <= 16 {
                        // The last eight bytes (overlapping the first eight) as one word.
                        let suffix = UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + (count - 8)).loadUnaligned(as: UInt64.self))
                        if suffixes.withUnsafeBufferPointer({ $0[number] }) == suffix { return number }
                        continue
                    }
                    let same = self.bytes.withUnsafeBufferPointer { names in
                        memcmp(bytes.baseAddress! + 8, names.baseAddress! + starts[number] + 8, count - 8) == 0
                    }
                    if same { return number }
                }
                return nil
            }
        }
    }

    /// Where an object's members of these names are (`JSONTape.Value.members(named:)`).
    struct Found {
        fileprivate var positions = Positions()
        fileprivate var object: JSONTape.Value?
        /// The numbers of the names found, as bits (number `n`: bit `n`).
        fileprivate(set) var numbers: UInt16 = 0

        /// Whether the object has a member named `names[number]`.
        func contains(_ number: Int) -> Bool { numbers & (1 << number) != 0 }

        /// The value of the member named `names[number]`, or nil.
        subscript(number: Int) -> JSONTape.Value? {
            let position = positions[number]
            guard position >= 0, let object else { return nil }
            return object.at(Int(position))
        }
    }

    /// Sixteen entry positions in place (-1: none), without an array's allocation.
    fileprivate struct Positions {
        private var storage: (SIMD8<Int32>, SIMD8<Int32>) = (SIMD8(repeating: -1), SIMD8(repeating: -1))

        subscript(number: Int) -> Int32 {
            get { number < 8 ? storage.0[number] : storage.1[number - 8] }
            set {
                if number < 8 { storage.0[number] = newValue } else { storage.1[number - 8] = newValue }
            }
        }
    }
}

extension JSONValue {
    /// The tree of a tape's value.
    init(_ value: JSONTape.Value) {
        switch value.kind {
        case .null: self = .null
        case .bool: self = .bool(value.boolValue ?? false)
        case .number: self = .number(value.numberValue ?? .nan)
        case .string: self = .string(value.stringValue ?? "")
        case .array: self = .array(value.elements.map(JSONValue.init))
        case .object: self = .object(JSONObject(members: value.members.map { ($0.key.stringValue ?? "", JSONValue($0.value)) }))
        }
    }
}
