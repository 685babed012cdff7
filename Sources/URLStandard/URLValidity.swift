// URLValidity.swift — URLStandard
//
// Whether a string is a URL under the WHATWG URL Standard's basic URL parser, given no base URL:
// the question WebKit asks of a redirect action's `url` (it rejects the list when its URL parser
// fails). Only the steps that can fail are carried out; the ones that merely normalise (path
// segments, percent-encoding of the path, query and fragment) cannot make a URL invalid and are
// skipped. The parser never throws and never reads past its input.
//
// What can fail, by the standard: a missing or malformed scheme; a special URL (http, https, ws,
// wss, ftp) with an empty host; credentials followed by no host; a port with a non-digit or above
// 65535; and host parsing (`Host`): an unclosed or malformed IPv6 address, a forbidden code point,
// a domain IDNA refuses, or a domain whose last label is a number that the IPv4 parser refuses
// (`https://127..1/`, `https://a.1/`, `https://09.1/`).
// Tested by URLStandardTests (URLValidityTests).

public enum URLValidity {
    /// Whether `text` parses as an absolute URL.
    public static func isValid(_ text: String) -> Bool {
        // Leading and trailing C0 controls and spaces go, then every tab and newline.
        let bytes = Array(text.utf8)
        guard let first = bytes.firstIndex(where: { $0 > 0x20 }), let last = bytes.lastIndex(where: { $0 > 0x20 }) else {
            return false
        }
        let input = bytes[first...last].filter { $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }

        guard let colon = schemeEnd(input) else { return false }
        let scheme = String(decoding: input[..<colon].map(lowercased), as: UTF8.self)
        let rest = input[(colon + 1)...]
        let special = specialSchemes.contains(scheme)

        if scheme == "file" { return fileIsValid(rest) }
        if special {
            // Any number of slashes and backslashes before the authority.
            let authority = rest.drop { $0 == slash || $0 == backslash }
            return authorityIsValid(authority, special: true)
        }
        if rest.starts(with: [slash, slash]) { return authorityIsValid(rest.dropFirst(2), special: false) }
        // A path-only URL, with or without an opaque path: nothing in it can fail.
        return true
    }

    static let specialSchemes: Set<String> = ["http", "https", "ws", "wss", "ftp", "file"]
    static let slash = UInt8(ascii: "/")
    static let backslash = UInt8(ascii: "\\")

    /// The index of the colon ending a well-formed scheme (an ASCII letter, then letters, digits,
    /// `+`, `-`, `.`), or nil.
    static func schemeEnd(_ input: [UInt8]) -> Int? {
        guard let first = input.first, isASCIIAlpha(first) else { return nil }
        for (index, byte) in input.enumerated().dropFirst() {
            if byte == UInt8(ascii: ":") { return index }
            guard isASCIIAlpha(byte) || isASCIIDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
            else { return nil }
        }
        return nil
    }

    /// `file:` URLs: a host only after two slashes, which may be empty or a Windows drive letter.
    static func fileIsValid(_ rest: ArraySlice<UInt8>) -> Bool {
        var rest = rest
        guard let first = rest.first, first == slash || first == backslash else { return true }
        rest = rest.dropFirst()
        guard let second = rest.first, second == slash || second == backslash else { return true }
        rest = rest.dropFirst()
        let host = rest.prefix { !($0 == slash || $0 == backslash || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")) }
        if host.isEmpty { return true }
        if host.count == 2, isASCIIAlpha(host[host.startIndex]),
            host[host.startIndex + 1] == UInt8(ascii: ":") || host[host.startIndex + 1] == UInt8(ascii: "|")
        {
            return true
        }
        return Host.parses(Array(host), isOpaque: false)
    }

    /// The authority of a URL (credentials, host, port) up to the path, query or fragment.
    static func authorityIsValid(_ rest: ArraySlice<UInt8>, special: Bool) -> Bool {
        let authority = rest.prefix {
            !($0 == slash || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") || (special && $0 == backslash))
        }
        var hostAndPort = authority[...]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) {
            hostAndPort = authority[(at + 1)...]
            if hostAndPort.isEmpty { return false }
        }
        // The port starts at the first colon outside brackets.
        var insideBrackets = false
        var portStart: Int?
        for index in hostAndPort.indices {
            let byte = hostAndPort[index]
            if byte == UInt8(ascii: "[") { insideBrackets = true }
            if byte == UInt8(ascii: "]") { insideBrackets = false }
            if byte == UInt8(ascii: ":") && !insideBrackets {
                portStart = index
                break
            }
        }
        let host = hostAndPort[..<(portStart ?? hostAndPort.endIndex)]
        if let portStart {
            if host.isEmpty { return false }
            let port = hostAndPort[(portStart + 1)...]
            guard port.allSatisfy(isASCIIDigit) else { return false }
            if let value = decimalValue(port), value > 65535 { return false }
        }
        if host.isEmpty { return !special }
        return Host.parses(Array(host), isOpaque: !special)
    }

    /// The value of a run of decimal digits, nil when empty; saturates at 2^33 (above any port).
    static func decimalValue(_ digits: ArraySlice<UInt8>) -> UInt64? {
        guard !digits.isEmpty else { return nil }
        var value: UInt64 = 0
        for digit in digits { value = min(value * 10 + UInt64(digit - UInt8(ascii: "0")), 1 << 33) }
        return value
    }

    static func isASCIIAlpha(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
    static func isASCIIDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    static func lowercased(_ byte: UInt8) -> UInt8 { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte }
}
