// BytecodeError.swift — Bytecode
//
// Why a compiled file was refused. The validator throws these before any byte is interpreted.
// Tested by SearchTests/CompiledFileTests.swift and ContentBlockerTests/HostileFileTests.swift.

public enum BytecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file ends before a structure that starts at `at` does.
    case truncated(at: Int)
    /// The first bytes are not the format's label.
    case notACompiledRuleList
    /// Written by another version of the format.
    case unsupportedVersion(found: UInt16, supported: UInt16)
    /// Written on a machine of the other byte order (the endianness mark reads reversed).
    case wrongEndianness
    /// The header's length differs from the file's.
    case lengthMismatch(header: UInt64, file: Int)
    /// The bytes after the header do not have the checksum the header records.
    case checksumMismatch(expected: UInt32, computed: UInt32)
    /// A structure at `at` is inconsistent (a jump outside its program, a section out of bounds).
    case malformed(at: Int, String)
    /// A count read at `at` says more items (`what`) than the bytes left can hold (at most
    /// `limit`): refused before anything is sized by it.
    case countTooLarge(at: Int, what: String, count: Int, limit: Int)

    public var description: String {
        switch self {
        case .truncated(let offset): "truncated: the file ends inside a structure at byte \(offset)"
        case .notACompiledRuleList: "not a BlockBench compiled rule list (bad label)"
        case .unsupportedVersion(let found, let supported): "format version \(found), this build reads version \(supported)"
        case .wrongEndianness: "written with the other byte order"
        case .lengthMismatch(let header, let file): "header says \(header) bytes, file has \(file)"
        case .checksumMismatch(let expected, let computed):
            "checksum mismatch: header 0x\(String(expected, radix: 16)), content 0x\(String(computed, radix: 16))"
        case .malformed(let offset, let reason): "malformed at byte \(offset): \(reason)"
        case .countTooLarge(let offset, let what, let count, let limit):
            "count too large at byte \(offset): \(count) \(what), more than the \(limit) the file's bytes can hold"
        }
    }
}
