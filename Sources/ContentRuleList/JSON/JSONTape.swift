// JSONTape: a JSON text's values in document order, each read where it lies.
//
// Reading a rule list needs a few of each rule's values as Swift strings (its url-filter, its
// selector, its domains) and the rest only checked. A tree of `JSONValue`s makes a String of every
// key and value and an array of every container, then frees them all; a tape makes one entry per
// value in one array kept from text to text: its kind and the range of its bytes (in the text, or
// in the tape's arena when escapes were decoded). A container's entry holds how many values it has
// and where the entry after its last one is, so a reader steps over it at once. Values are read
// through `JSONTape.Value`, a view that is valid while the tape and the text are.
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

struct JSONTape {
    struct Entry {
        var kind: JSONKind
        /// A boolean's value; for a string, whether its bytes are in the arena rather than the text.
        var flag: Bool
        /// A string's or a number's bytes are `start..<end`. A container's `start` is how many values
        /// it holds (members, for an object), its `end` the position of the entry after its last.
        var start: Int
        var end: Int
    }

    private(set) var entries: [Entry] = []
    /// The strings with escapes, decoded.
    var arena: [UInt8] = []

    /// Empties the tape, keeping its storage.
    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        arena.removeAll(keepingCapacity: true)
    }

    mutating func append(_ kind: JSONKind, flag: Bool = false, from start: Int = 0, to end: Int = 0) {
        entries.append(Entry(kind: kind, flag: flag, start: start, end: end))
    }

    /// Starts a container: its position, for `close`.
    mutating func open(_ kind: JSONKind) -> Int {
        append(kind)
        return entries.count - 1
    }

    /// Ends the container at `position`, of `count` values.
    mutating func close(_ position: Int, count: Int) {
        entries[position].start = count
        entries[position].end = entries.count
    }

    /// `body` given the tape's value, read in `text`, the text the tape was read from.
    func withRoot<Result>(in text: UnsafeBufferPointer<UInt8>, _ body: (Value) -> Result) -> Result {
        entries.withUnsafeBufferPointer { entries in
            arena.withUnsafeBufferPointer { arena in
                body(Value(text: text, entries: entries, arena: arena, position: 0))
            }
        }
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
        subscript(key: StaticString) -> Value? {
            guard kind == .object else { return nil }
            // The hottest read of a rule list (a dozen keys looked up per rule): entries read
            // directly, a key's bytes compared only when its length is the name's.
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

        private func at(_ position: Int) -> Value {
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
