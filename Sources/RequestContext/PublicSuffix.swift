// PublicSuffix.swift — RequestContext
//
// Registrable domains (eTLD+1) by the Public Suffix List, through libpsl: the list Debian ships in
// /usr/share/publicsuffix when present (psl_latest), libpsl's built-in copy otherwise. Both the
// ICANN and the private sections count, as libsoup (WebKitGTK's network layer) counts them.
// Tested by RequestContextTests/RequestContextTests.swift.

internal import CLibPSL

enum PublicSuffix {
    /// libpsl's context is read-only once loaded, so one shared context serves every thread.
    private nonisolated(unsafe) static let context: OpaquePointer? = psl_latest(nil) ?? psl_builtin()

    /// The registrable domain of `host` (lower-case ASCII), or nil when it has none: a public
    /// suffix itself, a single label, an IP address.
    static func registrableDomain(of host: String) -> String? {
        guard let context, !host.isEmpty, !host.hasPrefix("["), !isIPv4(host) else { return nil }
        return host.withCString { name in
            psl_registrable_domain(context, name).map { String(cString: $0) }
        }
    }

    /// Four dot-separated runs of one to three ASCII digits (a canonical host's IPv4 form), read
    /// byte by byte: a new page asks this of its main document's host.
    static func isIPv4(_ host: String) -> Bool {
        var parts = 1
        var digits = 0
        for byte in host.utf8 {
            switch byte {
            case UInt8(ascii: "."):
                guard digits > 0 else { return false }
                parts += 1
                digits = 0
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
                guard digits <= 3 else { return false }
            default:
                return false
            }
        }
        return parts == 4 && digits > 0
    }
}
