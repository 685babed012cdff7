// BytecodeTests.swift — the program encoding against the DFA it came from, its disassembly, and
// the byte coding (CRC-32, the writer's integers and varints, strings, actions). The compiled file's tests:
// SearchTests/CompiledFileTests.swift.

import Testing
import Automata
import Bytecode
import ContentRuleList
import URLFilterSyntax

private func dfa(_ sources: [String]) throws -> DFA {
    let patterns = sources.enumerated().map { (id: PatternID($0.offset), filter: try! URLFilterParser.parse($0.element).get()) }
    return Minimizer.minimize(try SubsetConstruction.determinize(NFA(patterns: patterns)))
}

/// CRC-32 as defined: the reflected polynomial 0xEDB88320 applied one bit at a time, the register
/// inverted before and after.
private func bitwiseCRC32<C: Collection<UInt8>>(_ bytes: C, seed: UInt32 = 0) -> UInt32 {
    var crc = ~seed
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

@Suite struct BytecodeTests {
    @Test func programsAnswerLikeTheirDFA() throws {
        var random = UInt64(7)
        func next() -> UInt64 {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return random >> 33
        }
        let sources = ["^ab", "a[b-c]+$", "x.*y", "^(ab)+c", "[^/]+\\.png", "Z", "track(er)?\\.js", "^http:\\/\\/(www\\.)?x"]
        let automaton = try dfa(sources)
        let program = Program(automaton)
        try program.validate(patternCount: sources.count)
        #expect(program.disassemble().contains("delta @"), "the unanchored patterns use the delta form")
        #expect(program.disassemble().contains(" next c"), "chains use the next form")
        let alphabet = Array("abcxyzABCZ./:htpwrke.jsng0".utf8)
        for _ in 0..<5_000 {
            let url = (0..<Int(next() % 14)).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
            #expect(program.matches(url) == automaton.matches(url).map(\.rawValue), "url \(String(decoding: url, as: UTF8.self))")
        }
    }

    @Test func disassemblyOfASmallProgram() throws {
        #expect(Program(try dfa(["^ab"])).disassemble() == """
            program: 3 states, 4 byte classes, 6 bytes, 2-byte targets
              c0 = [\\x00]
              c1 = [\\x01-@C-`c-\\x7F]
              c2 = [Aa]
              c3 = [Bb]
            @0: next c2->@2
            @2: next c3->@4
            @4: accept p0; stop

            """)
    }

    @Test func disassemblyOfAChain() throws {
        #expect(Program(try dfa(["^abcd"])).disassemble() == """
            program: 5 states, 6 byte classes, 8 bytes, 2-byte targets
              c0 = [\\x00]
              c1 = [\\x01-@E-`e-\\x7F]
              c2 = [Aa]
              c3 = [Bb]
              c4 = [Cc]
              c5 = [Dd]
            @0: chain c2 c3 c4 c5 ->@6
            @6: accept p0; stop

            """)
        // A branch's first child follows it: no target written for it (and one accept, no count).
        #expect(Program(try dfa(["^ab", "^ac"])).disassemble().hasSuffix("""
            @0: next c2->@2
            @2: sparse c3->@8 c4->@10
            @8: accept p0; stop
            @10: accept p1; stop

            """))
        #expect(Program(try dfa(["^ab", "^ac"])).code.count == 12)
        // Several classes to the next state (the next and first-next flags): a count and the
        // classes, no target.
        let allNext = Program(try dfa(["^a[bc]d", "^xb"]))
        #expect(allNext.disassemble().hasSuffix("""
            @0: sparse c2->@6 c6->@14
            @6: next c3,c4->@10
            @10: next c5->@12
            @12: accept p0; stop
            @14: next c3->@16
            @16: accept p1; stop

            """))
        try allNext.validate(patternCount: 2)
        #expect(allNext.matches(Array("acd".utf8)) == [0] && allNext.matches(Array("abd".utf8)) == [0]
            && allNext.matches(Array("aad".utf8)) == [] && allNext.matches(Array("xb".utf8)) == [1])
    }

    /// Validation gathers every target before checking them, in room for as many as a code can
    /// hold (a target takes two of its bytes at least): a code of nothing but two-byte states
    /// that each lead to the next, the most targets a byte, is read and checked whole.
    @Test func theDensestTargetsAllFitTheirRoom() throws {
        func file(states: Int, stopping: Bool) -> [UInt8] {
            var writer = ByteWriter()
            writer.u8(0)  // one class
            writer.u8(2)  // two-byte targets, the class map whole
            writer.append(contentsOf: [UInt8](repeating: 0, count: 128))
            var code: [UInt8] = []
            for _ in 0..<states { code += [TransitionForm.sparse.rawValue | Program.nextFlag, 0] }
            if stopping { code.append(TransitionForm.stop.rawValue) }
            writer.u32(UInt32(states + (stopping ? 1 : 0)))
            writer.u32(.max)
            writer.u32(UInt32(code.count))
            writer.append(contentsOf: code)
            return writer.bytes
        }
        for states in [1, 2, 3, 1_000] {
            var reader = ByteReader(file(states: states, stopping: true))
            let program = try Program.read(from: &reader, patternCount: 1)
            #expect(program.stateCount == states + 1 && reader.isAtEnd)
            var last = ByteReader(file(states: states, stopping: false))
            #expect(throws: BytecodeError.self) { _ = try Program.read(from: &last, patternCount: 1) }
        }
    }

    /// The CRC (libdeflate's; combined by zlib's) against the standard check value and the
    /// bit-by-bit definition: empty, at every length up to 40 bytes from each of 8 starts, and over
    /// a seed (as the writer chains it); then at lengths past those its folding takes (which
    /// reads blocks of 16 and 64 bytes and more, the rest apart), from starts of every alignment.
    @Test func crcMatchesTheBitwiseDefinition() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(bitwiseCRC32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
        #expect(CRC32.checksum([UInt8](), seed: 0x1234_5678) == 0x1234_5678)
        let bytes = (0..<40).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ 13) }
        for start in 0..<8 {
            for end in start...bytes.count {
                let slice = bytes[start..<end]
                #expect(CRC32.checksum(slice) == bitwiseCRC32(slice), "bytes \(start)..<\(end)")
                #expect(CRC32.checksum(slice, seed: 0x1234_5678) == bitwiseCRC32(slice, seed: 0x1234_5678))
            }
        }
        #expect(CRC32.checksum(bytes.lazy.map { $0 }) == bitwiseCRC32(bytes))
        // Two parts checked apart, then combined: the whole's CRC (a file's sections are so).
        for cut in 0...bytes.count {
            let combined = CRC32.combine(CRC32.checksum(bytes[..<cut]), CRC32.checksum(bytes[cut...]), secondLength: bytes.count - cut)
            #expect(combined == bitwiseCRC32(bytes), "cut at \(cut)")
        }
        let long = (0..<70_000).map { UInt8(truncatingIfNeeded: ($0 &* 0x9E37_79B9) >> 11) }
        for length in [41, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 1_000, 4_096, 4_099, 65_537] {
            for start in [0, 1, 7, 8, 15, 31] {
                let slice = long[start..<start + length]
                #expect(CRC32.checksum(slice) == bitwiseCRC32(slice), "\(length) bytes from \(start)")
            }
        }
        #expect(CRC32.checksum(long, seed: 0x1234_5678) == bitwiseCRC32(long, seed: 0x1234_5678))
    }

    @Test func zigzagVarintsRoundTripEitherSign() throws {
        let values: [Int64] = [0, -1, 1, -2, 63, -64, 64, 1 << 20, -(1 << 20), Int64(Int32.max), Int64(Int32.min)]
        var writer = ByteWriter()
        for value in values { writer.zigzag(value) }
        var reader = ByteReader(writer.bytes)
        #expect(try values.map { _ in try reader.zigzag() } == values)
        #expect(reader.isAtEnd)
        #expect(Array(writer.bytes.prefix(4)) == [0, 1, 2, 3], "0, -1, 1, -2 as 0, 1, 2, 3")
    }


    @Test func theWriterWritesLittleEndianIntegersAndVarintsAcrossItsGrowth() throws {
        var writer = ByteWriter(capacity: 1)
        writer.u8(0xAB)
        writer.u16(0x0102)
        writer.u32(0x0304_0506)
        writer.u64(0x0708_090A_0B0C_0D0E)
        writer.integer(UInt32.max, width: 3)
        for value: UInt32 in [0, 0x7F, 0x80, 0x3FFF, 0x4000, UInt32.max] { writer.varint(value) }
        writer.string("é.")
        writer.append(contentsOf: [9, 8] as [UInt8])
        writer.append(contentsOf: (1...3).lazy.map { UInt8($0) })  // not contiguous: byte by byte
        #expect(writer.bytes == [
            0xAB, 0x02, 0x01, 0x06, 0x05, 0x04, 0x03, 0x0E, 0x0D, 0x0C, 0x0B, 0x0A, 0x09, 0x08, 0x07, 0xFF, 0xFF, 0xFF,
            0x00, 0x7F, 0x80, 0x01, 0xFF, 0x7F, 0x80, 0x80, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F,
            0x03, 0xC3, 0xA9, 0x2E, 9, 8, 1, 2, 3,
        ])
        #expect(writer.count == writer.bytes.count)
        // Many small writes through several doublings keep every byte.
        var long = ByteWriter(capacity: 16)
        for value in 0..<10_000 { long.varint(UInt32(value)) }
        var reader = ByteReader(long.bytes)
        #expect(try (0..<10_000).map { _ in Int(try reader.varint()) } == Array(0..<10_000))
        #expect(reader.isAtEnd)
    }

    /// A varint as LEB128 defines it, read a byte at a time from `bytes[at..<end]`: nil when cut
    /// short, longer than 5 bytes or above 2^32 - 1.
    private static func definedVarint(_ bytes: [UInt8], at start: Int, end: Int) -> (value: UInt32, next: Int)? {
        var (value, at): (UInt64, Int) = (0, start)
        while at < end, at - start < 5 {
            value |= UInt64(bytes[at] & 0x7F) << (7 * UInt64(at - start))
            at += 1
            if bytes[at - 1] < 0x80 { return value <= UInt64(UInt32.max) ? (UInt32(value), at) : nil }
        }
        return nil
    }

    @Test func varintsReadAsDefinedOneByteOrLonger() {
        // Every first byte, alone and before each kind of continuation; and at the reader's end
        // (bytes past it in the array are not read), cut short, 6 bytes long and above 2^32.
        var inputs: [[UInt8]] = (0...255).map { [UInt8($0)] }
        for first in [0x00, 0x7F, 0x80, 0xFF] as [UInt8] {
            inputs += [[first, 0x01], [first, 0x80, 0x01], [first, 0xFF, 0xFF, 0xFF, 0x0F], [first, 0xFF, 0xFF, 0xFF, 0x10],
                       [first, 0x80, 0x80, 0x80, 0x80, 0x00], [first, 0x80]]
        }
        for input in inputs {
            let bytes = [0x05] + input + [0x03]
            for end in 1...bytes.count - 1 {
                var reader = ByteReader(bytes, from: 1, to: end)
                let read = try? reader.varint()
                let defined = Self.definedVarint(bytes, at: 1, end: end)
                #expect(read == defined?.value, "\(input) ending at \(end)")
                if let defined { #expect(reader.offset == defined.next, "\(input) ending at \(end)") }
            }
        }
    }

    @Test func integersReadAsTheirBytesAtEveryPlaceAndWidth() {
        // Far from the array's end (8 bytes loaded at once) and near it (a byte at a time), and
        // past the reader's end (refused, whatever the array holds beyond it).
        let bytes: [UInt8] = (0..<24).map { UInt8(truncatingIfNeeded: $0 &* 89 &+ 0xA7) }
        for start in 0..<bytes.count {
            for end in start...bytes.count {
                for width in 0...8 {
                    var reader = ByteReader(bytes, from: start, to: end)
                    let read = try? reader.integer(width: width)
                    guard width <= end - start else {
                        #expect(read == nil, "width \(width) at \(start) of \(end)")
                        continue
                    }
                    let defined = (0..<width).reduce(UInt64(0)) { $0 | UInt64(bytes[start + $1]) << (8 * UInt64($1)) }
                    #expect(read == defined, "width \(width) at \(start) of \(end)")
                    #expect(reader.offset == start + width)
                }
            }
        }
    }

    /// A string of `bytes` as the writer writes one: its length, then its bytes.
    private static func stringRead(_ bytes: [UInt8]) throws(BytecodeError) -> String {
        var writer = ByteWriter()
        writer.varint(UInt32(bytes.count))
        writer.append(contentsOf: bytes)
        var reader = ByteReader(writer.bytes)
        let text = try reader.string()
        #expect(reader.isAtEnd)
        return text
    }

    @Test func stringsReadAsWrittenAndOnlyValidUTF8() throws {
        // ASCII and valid UTF-8 of every length past a word, the other byte at each place; a
        // byte no UTF-8 holds at each place, and a 4-byte sequence cut to its first 3 (what a
        // repairing decoder puts one 3-byte replacement for), refused.
        for length in 0..<20 {
            let ascii = (0..<length).map { UInt8(0x61 + $0 % 26) }
            #expect(try Self.stringRead(ascii) == String(decoding: ascii, as: UTF8.self))
            for place in 0..<length {
                var accented = ascii
                accented.replaceSubrange(place..<place + 1, with: Array("é".utf8))
                #expect(try Self.stringRead(accented) == String(decoding: accented, as: UTF8.self))
                for invalid in [[0xFF], [0xF0, 0x9F, 0x98]] as [[UInt8]] {
                    var broken = ascii
                    broken.replaceSubrange(place..<place + 1, with: invalid)
                    #expect(throws: BytecodeError.self, "\(broken)") { try Self.stringRead(broken) }
                }
            }
        }
    }

    @Test func everyActionTypeIsWrittenAsItsIndexAndReadBack() throws {
        var transform = URLTransform()
        transform.host = "h.example"
        transform.port = .some(8080)
        transform.query = "?q"
        var query = QueryTransform()
        query.addOrReplaceParameters = [.init(key: "k", value: "v", replaceOnly: true)]
        query.removeParameters = ["r"]
        transform.queryTransform = query
        let actions: [Action] = [
            .block, .blockCookies, .cssDisplayNone(selector: ".ad"), .ignorePreviousRules, .ignoreFollowingRules, .makeHTTPS,
            .notify(notification: "n"), .redirect(.url("https://x.example/")), .redirect(.transform(transform)),
            .modifyHeaders(ModifyHeaders(requestHeaders: [.set(header: "a", value: "b"), .remove(header: "c")], responseHeaders: [], priority: 3)),
        ]
        for action in actions {
            var writer = ByteWriter()
            ActionCoding.write(action, to: &writer)
            #expect(Action.typeNames[Int(writer.bytes[0])] == action.typeName)
            var reader = ByteReader(writer.bytes)
            #expect(try ActionCoding.read(from: &reader) == action)
            #expect(reader.isAtEnd)
        }
        // A type past the last is refused.
        var reader = ByteReader([UInt8(Action.typeNames.count)])
        #expect(throws: BytecodeError.self) { try ActionCoding.read(from: &reader) }
    }
}
