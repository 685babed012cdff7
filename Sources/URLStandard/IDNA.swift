// IDNA.swift — URLStandard
//
// Non-ASCII host names to their ASCII (punycode) form, through libidn2 with UTS #46
// non-transitional processing, as the WHATWG URL Standard asks.
//
// libidn2's result is freed by libidn2 (`idn2_free`), not by `free` here: the two allocators
// differ when this code is linked with an allocator of its own. The fuzz build does so
// (AddressSanitizer's runtime linked statically, its malloc not seen by the system's libidn2),
// where `free` here reported a bad free of a site list's non-ASCII host (blockbench-fuzz-requests;
// the host is a seed of .ci/fuzz-seeds since). Tested by URLStandardTests and RequestContextTests.

internal import CIDN2

public enum IDNA {
    /// The ASCII form of `host`, lower-cased; nil when IDNA refuses it.
    public static func toASCII(_ host: String) -> String? {
        var output: UnsafeMutablePointer<CChar>?
        let flags = Int32(IDN2_NONTRANSITIONAL.rawValue | IDN2_NFC_INPUT.rawValue)
        let status = host.withCString { idn2_to_ascii_8z($0, &output, flags) }
        guard status == Int32(IDN2_OK.rawValue), let output else { return nil }
        defer { idn2_free(output) }
        return String(cString: output).lowercased()
    }
}
