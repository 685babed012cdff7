// CRC32.swift — Bytecode
//
// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of a compiled file. A CRC of
// 32 bits detects every error burst of up to 32 bits, so every single-byte corruption of a file is
// caught before any of its bytes is interpreted.
//
// Eight bytes a step ("slicing by 8": table k holds the CRC of a byte followed by k zero bytes), so
// that checking a file on load is not most of loading it (EasyList's 2.1 MB file: the byte-wise loop
// was a third of its load). The engine embeds no zlib, whose crc32 would do as well; the byte-wise
// `reference` stays for tests.

public enum CRC32 {
    /// Eight tables of 256 one after the other: entry k * 256 + b is the CRC register after byte b
    /// then k zero bytes, from a zero register.
    private static let tables: [UInt32] = {
        var tables = (0..<256).map { index in
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
            return value
        }
        for entry in 256..<8 * 256 {
            let previous = tables[entry - 256]
            tables.append(tables[Int(previous & 0xFF)] ^ (previous >> 8))
        }
        return tables
    }()

    public static func checksum<C: Collection<UInt8>>(_ bytes: C, seed: UInt32 = 0) -> UInt32 {
        if let crc = bytes.withContiguousStorageIfAvailable({ checksum(UnsafeRawBufferPointer($0), seed: seed) }) {
            return crc
        }
        return Array(bytes).withUnsafeBytes { checksum($0, seed: seed) }
    }

    public static func checksum(_ bytes: UnsafeRawBufferPointer, seed: UInt32 = 0) -> UInt32 {
        tables.withUnsafeBufferPointer { table in
            func entry(_ k: Int, _ value: UInt32) -> UInt32 { table[k << 8 | Int(value & 0xFF)] }
            var crc = ~seed
            var offset = 0
            while offset + 8 <= bytes.count {
                let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                let low = UInt32(truncatingIfNeeded: word) ^ crc
                let high = UInt32(truncatingIfNeeded: word >> 32)
                crc = entry(7, low) ^ entry(6, low >> 8) ^ entry(5, low >> 16) ^ entry(4, low >> 24)
                    ^ entry(3, high) ^ entry(2, high >> 8) ^ entry(1, high >> 16) ^ entry(0, high >> 24)
                offset += 8
            }
            while offset < bytes.count {
                crc = entry(0, crc ^ UInt32(bytes[offset])) ^ (crc >> 8)
                offset += 1
            }
            return ~crc
        }
    }

    /// The byte-wise definition, one table lookup per byte: what `checksum` must equal.
    public static func reference<C: Collection<UInt8>>(_ bytes: C, seed: UInt32 = 0) -> UInt32 {
        var crc = ~seed
        for byte in bytes { crc = tables[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}
