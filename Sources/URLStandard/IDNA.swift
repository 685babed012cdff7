// IDNA.swift — URLStandard
//
// Non-ASCII host names to their ASCII (punycode) form, through libidn2 with UTS #46
// non-transitional processing, as the WHATWG URL Standard asks.

internal import CIDN2
internal import Glibc

public enum IDNA {
    /// The ASCII form of `host`, lower-cased; nil when IDNA refuses it.
    public static func toASCII(_ host: String) -> String? {
        var output: UnsafeMutablePointer<CChar>?
        let flags = Int32(IDN2_NONTRANSITIONAL.rawValue | IDN2_NFC_INPUT.rawValue)
        let status = host.withCString { idn2_to_ascii_8z($0, &output, flags) }
        guard status == Int32(IDN2_OK.rawValue), let output else { return nil }
        defer { free(output) }
        return String(cString: output).lowercased()
    }
}
