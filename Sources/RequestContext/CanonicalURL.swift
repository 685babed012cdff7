// CanonicalURL.swift — RequestContext
//
// PROVISIONAL: keeps the input as given. The RequestContext work replaces it with WebKit's
// canonicalization (lower-case scheme and host, `/` after the host, punycode host,
// percent-encoding) and registrable domains.

public struct CanonicalURL: Hashable, Sendable {
    /// The canonical serialization: the string rules match.
    public let string: String

    public init(_ string: String) {
        self.string = string
    }
}
