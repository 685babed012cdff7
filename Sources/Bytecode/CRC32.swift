// CRC32.swift — Bytecode
//
// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of a compiled file. A CRC of
// 32 bits detects every error burst of up to 32 bits, so every single-byte corruption of a file is
// caught before any of its bytes is interpreted.

public enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    public static func checksum<C: Collection<UInt8>>(_ bytes: C, seed: UInt32 = 0) -> UInt32 {
        var crc = ~seed
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}
