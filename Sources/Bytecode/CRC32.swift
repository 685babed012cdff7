// CRC32.swift — Bytecode
//
// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of a compiled file. A CRC of
// 32 bits detects every error burst of up to 32 bits, so every single-byte corruption of a file is
// caught before any of its bytes is interpreted.
//
// Computed by libdeflate's `libdeflate_crc32` (a system library wherever the engine builds), which
// folds the bytes with carry-less multiplication where the processor has it, so that checking a
// file on load stays a small part of loading it; parts' CRCs combined by zlib's `crc32_combine`
// (libdeflate has none). The tests hold both to the bit-by-bit definition and the standard check
// value.

import CDeflate
import CZlib

public enum CRC32 {
    /// The CRC of `bytes` after the bytes whose CRC is `seed` (0: from the start).
    public static func checksum<C: Collection<UInt8>>(_ bytes: C, seed: UInt32 = 0) -> UInt32 {
        if let crc = bytes.withContiguousStorageIfAvailable({ checksum(UnsafeRawBufferPointer($0), seed: seed) }) {
            return crc
        }
        return Array(bytes).withUnsafeBytes { checksum($0, seed: seed) }
    }

    /// The CRC of bytes whose first part's CRC is `first` and second part's, `secondLength`
    /// bytes long, is `second` (zlib's `crc32_combine`): parts checked apart, on several cores.
    public static func combine(_ first: UInt32, _ second: UInt32, secondLength: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: crc32_combine(uLong(first), uLong(second), .init(secondLength)))
    }

    public static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        // libdeflate reads a null buffer as "give the initial value" (0), whatever the seed.
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return seed }
        return libdeflate_crc32(seed, start, bytes.count)
    }
}
