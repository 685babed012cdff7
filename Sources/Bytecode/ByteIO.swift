// ByteIO.swift — Bytecode
//
// Little-endian writing and bounds-checked reading. Every read of an untrusted file goes through
// `ByteReader`, which throws `BytecodeError.truncated` instead of reading past its end, and
// `BytecodeError.countTooLarge` for a count of more items than the bytes left can hold.
// Tested by BytecodeTests/BytecodeTests.swift and ContentBlockerTests/HostileFileTests.swift.

/// Appends little-endian integers, LEB128 varints and length-prefixed strings into a buffer of its
/// own. Its writers are inlinable: the Search module writes a compiled file's sections through them,
/// a varint an item, so each write is a bounds check, a store and a count (an array's append would
/// check its buffer's uniqueness and capacity for every byte). Noncopyable: it is its buffer's only
/// owner, so two copies can never write over each other's bytes.
public struct ByteWriter: ~Copyable, @unchecked Sendable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var _count = 0
    @usableFromInline var capacity: Int

    /// A writer with room for `capacity` bytes before it grows (a size known or estimated ahead
    /// saves the copies of growing).
    public init(capacity: Int = 64) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written, copied into an array.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: _count)) }

    public var count: Int { _count }

    /// `body` given the bytes written (valid only during the call).
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: _count))
    }

    /// Where the next `byteCount` bytes go, once there is room for them (writing them is the
    /// caller's; `_count` moves past those written). The count never passes the capacity, so
    /// the writers move it with wrapping arithmetic: no overflow check a byte.
    @inlinable @inline(__always) mutating func room(_ byteCount: Int) -> UnsafeMutablePointer<UInt8> {
        if _slowPath(capacity &- _count < byteCount) { grow(toHold: byteCount) }
        return base + _count
    }

    /// Room for `byteCount` more bytes: the capacity doubled at least.
    @usableFromInline mutating func grow(toHold byteCount: Int) {
        capacity = max(capacity * 2, _count + byteCount)
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        larger.initialize(from: base, count: _count)
        base.deallocate()
        base = larger
    }

    /// Room for `byteCount` more bytes before the writer grows again.
    public mutating func reserve(_ byteCount: Int) { _ = room(byteCount) }

    @inlinable @inline(__always) public mutating func u8(_ value: UInt8) {
        room(1).initialize(to: value)
        _count &+= 1
    }

    @inlinable public mutating func u16(_ value: UInt16) { integer(value, width: 2) }
    @inlinable public mutating func u32(_ value: UInt32) { integer(value, width: 4) }
    @inlinable public mutating func u64(_ value: UInt64) { integer(value, width: 8) }

    /// The low `width` (at most 8) bytes of `value`, least significant first: its 8 bytes stored
    /// at once, the count moved past `width` of them.
    @inlinable public mutating func integer<T: FixedWidthInteger>(_ value: T, width: Int) {
        precondition(width <= 8)
        UnsafeMutableRawPointer(room(8)).storeBytes(of: UInt64(truncatingIfNeeded: value).littleEndian, as: UInt64.self)
        _count &+= width
    }

    /// Unsigned LEB128: seven bits a byte, low bits first, high bit set on every byte but the last.
    @inlinable @inline(__always) public mutating func varint(_ value: UInt32) {
        let at = room(5)
        var rest = value
        var written = 0
        while rest >= 0x80 {
            at[written] = UInt8(truncatingIfNeeded: rest) | 0x80
            rest >>= 7
            written &+= 1
        }
        at[written] = UInt8(rest)
        _count &+= written &+ 1
    }

    /// A signed value as a zigzag varint (0, -1, 1, -2, ... as 0, 1, 2, 3, ...), for differences
    /// that are small either way. `value` must fit in 32 bits signed.
    @inlinable @inline(__always) public mutating func zigzag(_ value: Int64) {
        precondition(value >= Int64(Int32.min) && value <= Int64(Int32.max))
        varint(UInt32(truncatingIfNeeded: value < 0 ? ~(value << 1) : value << 1))
    }

    /// A varint byte count, then the UTF-8 bytes.
    public mutating func string(_ value: String) {
        var text = value
        text.withUTF8 { utf8 in
            varint(UInt32(utf8.count))
            append(contentsOf: utf8)
        }
    }

    @inlinable public mutating func append(contentsOf other: UnsafeBufferPointer<UInt8>) {
        guard let source = other.baseAddress else { return }
        room(other.count).initialize(from: source, count: other.count)
        _count &+= other.count
    }

    /// The bytes `other` wrote.
    public mutating func append(_ other: borrowing ByteWriter) {
        append(contentsOf: UnsafeBufferPointer(start: other.base, count: other._count))
    }

    /// `other`'s bytes: copied at once when they are contiguous (an array's, a slice's), else
    /// one by one.
    @inlinable public mutating func append<C: Collection<UInt8>>(contentsOf other: C) {
        if other.withContiguousStorageIfAvailable({ append(contentsOf: $0) }) != nil { return }
        let at = room(other.count)
        var written = 0
        for byte in other {
            at[written] = byte
            written += 1
        }
        _count += written
    }
}

/// Reads what `ByteWriter` wrote, never past `end`. Its readers are inlinable: the tables of the
/// Search module read a compiled file through them, byte by byte.
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    @inlinable public var offset: Int { _offset }
    @usableFromInline var _offset: Int
    public let end: Int

    public init(_ bytes: [UInt8], from start: Int = 0, to end: Int? = nil) {
        self.bytes = bytes
        self._offset = start
        self.end = end ?? bytes.count
    }

    @inlinable public var remaining: Int { end - _offset }
    @inlinable public var isAtEnd: Bool { _offset == end }

    @inlinable public mutating func u8() throws(BytecodeError) -> UInt8 {
        guard offset < end else { throw .truncated(at: offset) }
        defer { _offset += 1 }
        return bytes[offset]
    }

    @inlinable public mutating func u16() throws(BytecodeError) -> UInt16 { UInt16(try integer(width: 2)) }
    @inlinable public mutating func u32() throws(BytecodeError) -> UInt32 { UInt32(try integer(width: 4)) }
    @inlinable public mutating func u64() throws(BytecodeError) -> UInt64 { try integer(width: 8) }

    /// The next `width` (at most 8) bytes as a little-endian integer, `width` checked against the
    /// reader's end: where 8 bytes of the array follow, loaded at once and the bytes past `width`
    /// masked off; nearer the array's end, a byte at a time (`integerByBytes`).
    @inlinable @inline(__always) public mutating func integer(width: Int) throws(BytecodeError) -> UInt64 {
        guard width <= remaining else { throw .truncated(at: offset) }
        guard _fastPath(width <= 8 && _offset &+ 8 <= bytes.count) else { return integerByBytes(width: width) }
        let at = _offset
        let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        _offset &+= width
        return width == 8 ? word : word & (1 &<< UInt64(8 &* width) &- 1)
    }

    /// `integer(width:)` read a byte at a time (near the array's end), its width already checked.
    @usableFromInline mutating func integerByBytes(width: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<width { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        _offset += width
        return value
    }

    /// A varint: a byte below 0x80 (most varints of a file: small counts, gaps and differences)
    /// taken here, inlined into its caller; a longer one read by `longVarint`.
    @inlinable @inline(__always) public mutating func varint() throws(BytecodeError) -> UInt32 {
        if _fastPath(_offset < end) {
            let byte = bytes[_offset]
            if _fastPath(byte < 0x80) {
                _offset &+= 1
                return UInt32(byte)
            }
        }
        return try longVarint()
    }

    /// A varint read a byte at a time, checked: at most 5 bytes, at most 2^32 - 1.
    @usableFromInline mutating func longVarint() throws(BytecodeError) -> UInt32 {
        let start = offset
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try u8()
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
            guard shift < 35 else { throw .malformed(at: start, "varint longer than 5 bytes") }
        }
        guard value <= UInt64(UInt32.max) else { throw .malformed(at: start, "varint above 2^32") }
        return UInt32(value)
    }

    /// What `ByteWriter.zigzag` wrote.
    @inlinable public mutating func zigzag() throws(BytecodeError) -> Int64 {
        let raw = Int64(try varint())
        return raw & 1 == 0 ? raw >> 1 : ~(raw >> 1)
    }

    public mutating func string() throws(BytecodeError) -> String {
        let length = Int(try varint())
        guard length <= remaining else { throw .truncated(at: offset) }
        let text = bytes.withUnsafeBufferPointer { bytes in
            let utf8 = UnsafeBufferPointer(rebasing: bytes[offset..<offset + length])
            // (ASCII, most strings of a list, taken as it is: `String(validating:)` checks each
            // byte through the generic decoder.)
            return Self.isASCII(utf8) ? String(decoding: utf8, as: UTF8.self) : String(validating: utf8, as: UTF8.self)
        }
        guard let text else { throw .malformed(at: offset, "string is not UTF-8") }
        _offset += length
        return text
    }

    /// Whether every byte is below 0x80 (8 bytes at a time, then one by one).
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        var high: UInt64 = 0
        var at = 0
        while at + 8 <= raw.count {
            high |= raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)
            at += 8
        }
        while at < raw.count {
            high |= UInt64(raw[at])
            at += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }

    /// A 4-byte count of `what`, each at least `itemBytes` bytes long: refused unless that many fit
    /// in the bytes left, so that nothing sized by a count is larger than the file.
    @inlinable public mutating func u32Count(of what: String, itemBytes: Int) throws(BytecodeError) -> Int {
        let at = offset
        return try Self.checked(Int(try u32()), at: at, of: what, limit: remaining / itemBytes)
    }

    /// A varint count of `what`, each at least `itemBytes` bytes long, checked as `u32Count` is.
    @inlinable public mutating func varintCount(of what: String, itemBytes: Int) throws(BytecodeError) -> Int {
        let at = offset
        return try Self.checked(Int(try varint()), at: at, of: what, limit: remaining / itemBytes)
    }

    /// `count`, read at `at`, when at most `limit`; otherwise `BytecodeError.countTooLarge`.
    @inlinable public static func checked(_ count: Int, at: Int, of what: String, limit: Int) throws(BytecodeError) -> Int {
        guard count <= limit else { throw .countTooLarge(at: at, what: what, count: count, limit: limit) }
        return count
    }

    /// Moves past the next `count` bytes and returns where they start: `take` without a slice,
    /// for a caller that reads them through a pointer to `bytes` (a slice retains the array).
    @inlinable public mutating func skip(_ count: Int) throws(BytecodeError) -> Int {
        guard count >= 0, count <= remaining else { throw .truncated(at: offset) }
        defer { _offset += count }
        return offset
    }

    @inlinable public mutating func take(_ count: Int) throws(BytecodeError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw .truncated(at: offset) }
        defer { _offset += count }
        return bytes[offset..<offset + count]
    }
}

// A table's entries in increasing pattern order (the domain tables): each pattern written as its
// difference from the previous entry's + 1 (from 0 for the first), so most take a byte.
extension ByteWriter {
    @inlinable @inline(__always) package mutating func increasingPattern(_ pattern: UInt32, after next: inout UInt32) {
        varint(pattern - next)
        next = pattern + 1
    }
}

extension ByteReader {
    /// The next entry's pattern; `next` is the previous one's + 1 (0 before the first). `table`
    /// names the table in the refusal of a pattern not below `patternCount`.
    @inlinable @inline(__always)
    package mutating func increasingPattern(after next: inout Int, below patternCount: Int, table: String) throws(BytecodeError) -> UInt32 {
        let at = offset
        let pattern = next + Int(try varint())
        guard pattern < patternCount else { throw Self.patternOutOfRange(at: at, pattern, of: patternCount, table: table) }
        next = pattern + 1
        return UInt32(pattern)
    }

    /// The refusal of `increasingPattern`'s pattern (made apart: its text is no part of the
    /// inlined reading).
    @usableFromInline static func patternOutOfRange(at: Int, _ pattern: Int, of patternCount: Int, table: String) -> BytecodeError {
        .malformed(at: at, "\(table): pattern \(pattern) of \(patternCount)")
    }
}
