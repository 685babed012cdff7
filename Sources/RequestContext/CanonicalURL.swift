// CanonicalURL.swift — RequestContext
//
// The URL as WebKit's rules see it, after the WHATWG URL Standard's parsing as far as rules can
// tell: C0/space trimmed, tabs and newlines removed, scheme and host lower-cased, IDNA hosts in
// punycode (libidn2), `\` read as `/` and a `/` path after the host in special URLs, the default
// port removed, path, query and fragment percent-encoded with their own sets. Expected values in
// the tests were checked against node's WHATWG `URL`.
// Not handled: dot segments (`/a/../b`), IPv4 number forms (`0x7f.1`), IPv6 compression, and the
// rejection of forbidden host code points (such URLs keep their text here).

internal import URLStandard

public struct CanonicalURL: Hashable, Sendable {
    /// The canonical serialization: the string rules match. The input as given when invalid.
    public let string: String
    /// Whether the input parses as a URL. Rules never match an invalid URL.
    public let isValid: Bool
    /// The scheme, lower-case, without the `:`; empty when invalid.
    public let scheme: String
    /// The host, lower-case ASCII (IDNA hosts in punycode); empty when the URL has none.
    public let host: String
    /// The port when the URL names one other than its scheme's default.
    public let port: UInt16?
    /// Whether rules may match this URL at all: valid and not `data:` (worked out once: every
    /// answer asks first).
    public let isMatchable: Bool

    public init(_ raw: String) {
        // Leading and trailing C0 controls and spaces go; tabs and newlines anywhere go.
        var trimmed = Substring(raw)
        while let first = trimmed.utf8.first, first <= 0x20 { trimmed = trimmed.dropFirst() }
        while let last = trimmed.utf8.last, last <= 0x20 { trimmed = trimmed.dropLast() }
        let input = trimmed.contains(where: { $0 == "\t" || $0 == "\n" || $0 == "\r" })
            ? String(trimmed.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }) : String(trimmed)
        guard let colon = input.firstIndex(of: ":"), colon != input.startIndex,
              input[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else {
            (string, isValid, scheme, host, port, isMatchable) = (raw, false, "", "", nil, false)
            return
        }
        isValid = true
        scheme = input[..<colon].lowercased()
        isMatchable = scheme != "data"
        var rest = input[input.index(after: colon)...]
        let special = ["http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21, "file": nil] as [String: Int?]
        if special[scheme] != nil { rest = Substring(rest.replacingBackslashes()) }
        guard rest.hasPrefix("//"), let defaultPort = special[scheme] else {
            (string, host, port) = (scheme + ":" + Self.percentEncoded(rest, encodeSet: .controls), "", nil)
            return
        }
        rest = rest.dropFirst(2)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let tail = rest[authority.endIndex...]
        let hostStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        let userInfo = authority[..<hostStart]
        let hostAndPort = authority[hostStart...]
        var explicitPort: UInt16?
        if let portColon = hostAndPort.lastIndex(of: ":"), !hostAndPort.hasSuffix("]") {
            host = Self.asciiHost(hostAndPort[..<portColon])
            let digits = hostAndPort[hostAndPort.index(after: portColon)...]
            explicitPort = digits.isEmpty ? nil : UInt16(digits)
        } else {
            host = Self.asciiHost(hostAndPort)
        }
        port = explicitPort.flatMap { Int($0) == defaultPort ? nil : $0 }
        // Path, query and fragment, each percent-encoded with its own set.
        let fragmentStart = tail.firstIndex(of: "#") ?? tail.endIndex
        let queryStart = tail[..<fragmentStart].firstIndex(of: "?") ?? fragmentStart
        let path = tail[..<queryStart]
        var result = scheme + "://" + userInfo + host + (port.map { ":\($0)" } ?? "")
        result += (path.hasPrefix("/") ? "" : "/") + Self.percentEncoded(path, encodeSet: .path)
        result += Self.percentEncoded(tail[queryStart..<fragmentStart], encodeSet: .query)
        result += Self.percentEncoded(tail[fragmentStart...], encodeSet: .fragment)
        string = result
    }

    /// The WHATWG percent-encode sets the canonical form uses.
    enum EncodeSet {
        case controls, path, query, fragment

        func contains(_ byte: UInt8) -> Bool {
            if byte < 0x20 || byte > 0x7E { return true }
            switch self {
            case .controls: return false
            case .fragment: return byte == 0x20 || byte == 0x22 || byte == 0x3C || byte == 0x3E || byte == 0x60
            case .query: return byte == 0x20 || byte == 0x22 || byte == 0x23 || byte == 0x3C || byte == 0x3E || byte == 0x27
            case .path:
                return byte == 0x20 || byte == 0x22 || byte == 0x23 || byte == 0x3C || byte == 0x3E || byte == 0x3F || byte == 0x60
                    || byte == 0x7B || byte == 0x7D
            }
        }
    }

    static func percentEncoded(_ text: Substring, encodeSet: EncodeSet) -> String {
        guard text.utf8.contains(where: encodeSet.contains) else { return String(text) }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            if encodeSet.contains(byte) {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The host lower-cased, and in punycode (IDNA through libidn2) when it is not ASCII.
    static func asciiHost(_ host: Substring) -> String {
        if host.utf8.allSatisfy({ $0 < 0x80 }) { return host.lowercased() }
        return IDNA.toASCII(String(host)) ?? host.lowercased()
    }

    /// The registrable domain of the host (eTLD+1 by the Public Suffix List); the host itself when
    /// it has none (an IP address, a public suffix, a single label); nil without a host.
    public var registrableDomain: String? { host.isEmpty ? nil : PublicSuffix.registrableDomain(of: host) ?? host }
}

extension Substring {
    /// Special URLs read `\\` as `/`.
    fileprivate func replacingBackslashes() -> String {
        String(map { $0 == "\\" ? "/" : $0 })
    }
}
