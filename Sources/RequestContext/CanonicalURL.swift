// CanonicalURL.swift — RequestContext
//
// PROVISIONAL: a minimal parse (scheme, host, port) that keeps the input string as given. The
// RequestContext work replaces the body with WebKit's canonicalization (lower-case scheme and
// host, `/` after the host, punycode host, percent-encoding); the API stays.

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
        string = input
        isValid = true
        scheme = input[..<colon].lowercased()
        var rest = input[input.index(after: colon)...]
        guard rest.hasPrefix("//") else { (host, port) = ("", nil); return }
        rest = rest.dropFirst(2)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@").last ?? ""
        if let portColon = hostAndPort.lastIndex(of: ":") {
            host = hostAndPort[..<portColon].lowercased()
            port = UInt16(hostAndPort[hostAndPort.index(after: portColon)...])
        } else {
            host = hostAndPort.lowercased()
            port = nil
        }
    }

    /// Whether rules may match this URL at all: valid and not `data:`.
    public var isMatchable: Bool { isValid && scheme != "data" }

    /// The registrable domain of the host (eTLD+1 by the Public Suffix List); the host itself when
    /// it has none (an IP address, a public suffix, a single label); nil without a host.
    public var registrableDomain: String? { host.isEmpty ? nil : host }
}
