// CanonicalURL.swift — RequestContext
//
// PROVISIONAL: a minimal canonicalization (scheme and host lower-cased, default port removed, `/`
// after the host of special URLs). The RequestContext work replaces the body with WebKit's whole
// canonicalization (punycode hosts, percent-encoding, dot segments, IP addresses); the API stays.

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

    public init(_ input: String) {
        guard let colon = input.firstIndex(of: ":"), colon != input.startIndex,
              input[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else {
            (string, isValid, scheme, host, port) = (input, false, "", "", nil)
            return
        }
        isValid = true
        scheme = input[..<colon].lowercased()
        var rest = input[input.index(after: colon)...]
        let special = ["http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21, "file": nil] as [String: Int?]
        guard rest.hasPrefix("//"), let defaultPort = special[scheme] else {
            (string, host, port) = (scheme + ":" + rest, "", nil)
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
            host = hostAndPort[..<portColon].lowercased()
            let digits = hostAndPort[hostAndPort.index(after: portColon)...]
            explicitPort = digits.isEmpty ? nil : UInt16(digits)
        } else {
            host = hostAndPort.lowercased()
        }
        port = explicitPort.flatMap { Int($0) == defaultPort ? nil : $0 }
        string = scheme + "://" + userInfo + host + (port.map { ":\($0)" } ?? "") + (tail.hasPrefix("/") ? "" : "/") + tail
    }

    /// Whether rules may match this URL at all: valid and not `data:`.
    public var isMatchable: Bool { isValid && scheme != "data" }

    /// The registrable domain of the host (eTLD+1 by the Public Suffix List); the host itself when
    /// it has none (an IP address, a public suffix, a single label); nil without a host.
    public var registrableDomain: String? { host.isEmpty ? nil : PublicSuffix.registrableDomain(of: host) ?? host }
}
