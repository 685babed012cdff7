// JSONValue: the parsed form of a rule list's JSON text.
//
// Objects keep their keys in order and answer lookups with the last value of a duplicated key,
// as WebKit's JSON parser does. Strings are Swift strings; a lone UTF-16 surrogate from a `\u`
// escape becomes U+FFFD, which changes no verdict (any non-ASCII character is treated alike by
// every check a rule list goes through). Tested by ContentRuleListTests/JSONReaderTests.swift.

public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    public var kind: JSONKind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    /// The JSON type's name, for messages: "a string", "an array", ...
    public var kindDescription: String { kind.description }
}

/// A JSON object: members in source order.
public struct JSONObject: Hashable, Sendable {
    public var members: [(key: String, value: JSONValue)]

    public init(members: [(key: String, value: JSONValue)] = []) {
        self.members = members
    }

    /// The value of the last member named `key`.
    public subscript(key: String) -> JSONValue? {
        members.last(where: { $0.key == key })?.value
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }
}
