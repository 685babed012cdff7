// ProgramCoding.swift — Bytecode
//
// A program inside a compiled file, its validation and its disassembly.
//
//     classCount    1   1...128
//     targetWidth   1   bits 0-2: 2, 3 or 4; bit 7: the class map is written as runs; others 0
//     classOfByte       128 bytes, each < classCount; or, with bit 7, runs: 1 (r, 1...64), then
//                       r x (length 1 (1...128), class 1 (< classCount)), lengths adding up to 128
//                       (a prefix DFA's 5 classes take 11 bytes instead of 128)
//     stateCount    4
//     reference     4   the offset of the reference state, 0xFFFFFFFF when none
//     codeLength    4
//     code          codeLength bytes of state instructions (Program.swift)
//
// Validation walks the code once, state by state: every header is known, every accept list is
// well formed with patterns below the file's pattern count, every class is below classCount,
// every target is nowhere or the offset of a state instruction (a chain's next instruction
// included), the reference is a state that uses neither the delta form nor a chain (and exists
// when a state uses it), and the last instruction ends
// exactly at the end of the code. A program that passes cannot read outside its code.
// Tested by BytecodeTests/BytecodeTests.swift, SearchTests/CompiledFileTests.swift and
// ContentBlockerTests/HostileFileTests.swift.

extension Program {
    /// The fewest bytes a program takes in a file (its fields and a one-byte state).
    package static let smallestEncoding = 1 + 1 + 3 + 4 + 4 + 4 + 1
    static let runsFlag: UInt8 = 0x80

    /// The most bytes `write(to:)` takes: its fields, the class map written whole, its code.
    package var writtenSizeBound: Int { 2 + 128 + 12 + code.count }

    package func write(to writer: inout ByteWriter) {
        writer.u8(UInt8(classCount - 1))
        // The class map as runs of bytes in one class, when that is shorter (counted first, then
        // written from the map: no list of runs made per program).
        let bytes = classOfByte.count
        var runCount = bytes > 0 ? 1 : 0
        for byte in classOfByte.indices.dropFirst() where classOfByte[byte] != classOfByte[byte - 1] { runCount += 1 }
        if 1 + 2 * runCount < bytes {
            writer.u8(UInt8(targetWidth) | Self.runsFlag)
            writer.u8(UInt8(runCount))
            var runStart = 0
            for byte in 1...bytes where byte == bytes || classOfByte[byte] != classOfByte[runStart] {
                writer.u8(UInt8(byte - runStart))
                writer.u8(classOfByte[runStart])
                runStart = byte
            }
        } else {
            writer.u8(UInt8(targetWidth))
            writer.append(contentsOf: classOfByte)
        }
        writer.u32(UInt32(stateCount))
        writer.u32(reference == nowhere ? UInt32.max : reference)
        writer.u32(UInt32(code.count))
        writer.append(contentsOf: code)
    }

    package static func read(from reader: inout ByteReader, patternCount: Int) throws(BytecodeError) -> Program {
        let start = reader.offset
        let classCount = Int(try reader.u8()) + 1
        guard classCount <= 128 else { throw .malformed(at: start, "\(classCount) byte classes") }
        let widthByte = try reader.u8()
        let width = Int(widthByte & 0b111)
        guard (2...4).contains(width), widthByte & ~(Self.runsFlag | 0b111) == 0 else {
            throw .malformed(at: start + 1, "target width byte 0x\(String(widthByte, radix: 16))")
        }
        var classOfByte: [UInt8]
        if widthByte & Self.runsFlag != 0 {
            let runCount = Int(try reader.u8())
            guard (1...64).contains(runCount) else { throw .malformed(at: start + 2, "\(runCount) class runs") }
            // (The runs written over a map of 128 bytes: appending a repeated byte takes a generic
            // path, a call per element.)
            classOfByte = [UInt8](repeating: 0, count: 128)
            var covered = 0
            for _ in 0..<runCount {
                let at = reader.offset
                let length = Int(try reader.u8())
                let byteClass = try reader.u8()
                guard length >= 1, covered + length <= 128, Int(byteClass) < classCount else {
                    throw .malformed(at: at, "class run of \(length) bytes in class \(byteClass)")
                }
                for byte in covered..<covered + length { classOfByte[byte] = byteClass }
                covered += length
            }
            guard covered == 128 else { throw .malformed(at: start + 2, "class runs cover \(covered) bytes") }
        } else {
            classOfByte = Array(try reader.take(128))
            if let bad = classOfByte.firstIndex(where: { Int($0) >= classCount }) {
                throw .malformed(at: start + 2 + bad, "byte \(bad) in class \(classOfByte[bad]) of \(classCount)")
            }
        }
        let stateCount = Int(try reader.u32())
        let storedReference = try reader.u32()
        let length = Int(try reader.u32())
        let codeStart = reader.offset
        let code = Array(try reader.take(length))
        let nowhere: UInt32 = width == 4 ? UInt32.max : (UInt32(1) << (8 * UInt32(width))) - 1
        guard storedReference == UInt32.max || storedReference < nowhere else {
            throw .malformed(at: codeStart - 8, "reference \(storedReference)")
        }
        let program = Program(
            classOfByte: classOfByte, classCount: classCount, targetWidth: width, code: code, stateCount: stateCount,
            reference: storedReference == UInt32.max ? nowhere : storedReference)
        try program.validate(patternCount: patternCount, fileOffset: codeStart)
        return program
    }

    /// Checks that the program can run safely (see the top of this file). Offsets in errors are
    /// file offsets (`fileOffset` is where the code starts).
    public func validate(patternCount: Int, fileOffset: Int = 0) throws(BytecodeError) {
        guard !code.isEmpty else { throw .malformed(at: fileOffset, "empty program") }
        // (Room for as many targets as the code can hold: each takes two of its bytes at least,
        // its own: a target's bytes, or a state's header and a class. Gathering one is then a
        // store, where an array's append asks whether its storage is shared, a call per target.)
        let targets = UnsafeMutableBufferPointer<(at: UInt32, target: UInt32)>.allocate(capacity: code.count / 2 + 1)
        defer { targets.deallocate() }
        var check = CodeCheck(self, patternCount: patternCount, fileOffset: fileOffset, targets: targets)
        do throws(BytecodeError) {
            while !check.reader.isAtEnd { try check.readState() }
        } catch .truncated(let at) {
            throw check.fail(at, "the last state instruction runs past the end of the program")
        }
        try check.checkStates()
    }

    /// `validate`'s walk of the code, a state instruction at a time; the targets are gathered as
    /// read and checked once every state is known.
    private struct CodeCheck {
        let program: Program
        let patternCount: Int
        let fileOffset: Int
        var reader: ByteReader
        var isState: [Bool]
        /// The targets gathered (the first `targetCount`), each with the offset it was read at
        /// (code offsets: below 2^32, as the code's length is).
        let targets: UnsafeMutableBufferPointer<(at: UInt32, target: UInt32)>
        var targetCount = 0
        var states = 0
        var usesReference = false

        init(_ program: Program, patternCount: Int, fileOffset: Int, targets: UnsafeMutableBufferPointer<(at: UInt32, target: UInt32)>) {
            (self.program, self.patternCount, self.fileOffset, self.targets) = (program, patternCount, fileOffset, targets)
            reader = ByteReader(program.code)
            isState = [Bool](repeating: false, count: program.code.count)
        }

        /// Gathers `target`, read at `at`, to be checked once every state is known.
        @inline(__always)
        mutating func gather(_ at: Int, _ target: UInt32) {
            precondition(targetCount < targets.count, "more targets than the code has room for")
            targets[targetCount] = (UInt32(truncatingIfNeeded: at), target)
            targetCount += 1
        }

        func fail(_ at: Int, _ reason: String) -> BytecodeError { .malformed(at: fileOffset + at, reason) }

        /// One state instruction: its header, its accept list and its transitions.
        mutating func readState() throws(BytecodeError) {
            let state = reader.offset
            isState[state] = true
            states += 1
            let header = try reader.u8()
            guard Self.isKnown(header) else { throw fail(state, "unknown state header 0x\(String(header, radix: 16))") }
            if header & Program.deltaFlag != 0 { usesReference = true }
            try readAccepts(header, state)
            try readTransitions(header, state)
        }

        /// Whether `header`'s flags go together.
        static func isKnown(_ header: UInt8) -> Bool {
            let form = header & 0b11
            return (header & (Program.deltaFlag | Program.nextFlag) == 0 || form == TransitionForm.sparse.rawValue)
                && (header & Program.chainFlag == 0 || header & (Program.nextFlag | Program.deltaFlag) == Program.nextFlag)
                && (header & Program.firstNextFlag == 0
                    || (form == TransitionForm.sparse.rawValue || form == TransitionForm.fallback.rawValue)
                        && header & (Program.nextFlag | Program.chainFlag) == 0
                    || form == TransitionForm.sparse.rawValue
                        && header & (Program.nextFlag | Program.chainFlag | Program.deltaFlag) == Program.nextFlag)
                && (header & Program.oneAcceptFlag == 0 || header & Program.acceptsFlag != 0)
        }

        /// The state's accept list: one pattern, or a count and increasing patterns, each below
        /// `patternCount`.
        mutating func readAccepts(_ header: UInt8, _ state: Int) throws(BytecodeError) {
            if header & Program.oneAcceptFlag != 0 {
                let pattern = try reader.varint()
                guard pattern < patternCount else { throw fail(reader.offset, "pattern \(pattern) of \(patternCount)") }
            } else if header & Program.acceptsFlag != 0 {
                let count = try reader.varint()
                guard count >= 1 else { throw fail(state, "empty accept list") }
                var pattern: UInt64 = 0
                for index in 0..<count {
                    let value = UInt64(try reader.varint())
                    guard index == 0 || value >= 1 else { throw fail(reader.offset, "accept list not increasing") }
                    pattern = index == 0 ? value : pattern + value
                    guard pattern < patternCount else { throw fail(reader.offset, "pattern \(pattern) of \(patternCount)") }
                }
            }
        }

        @inline(__always)
        mutating func readTarget() throws(BytecodeError) {
            let at = reader.offset
            gather(at, UInt32(try reader.integer(width: program.targetWidth)))
        }

        /// A class below `classCount`, and above `previous` when that is given.
        /// (Inlined in the loop over a state's entries, its refusal made apart.)
        @inline(__always)
        mutating func readClass(after previous: Int? = nil) throws(BytecodeError) -> Int {
            let byteClass = Int(try reader.u8())
            guard byteClass > (previous ?? -1), byteClass < program.classCount else { throw classRefused(byteClass, after: previous) }
            return byteClass
        }

        /// The refusal of a class read just before the reader's offset.
        func classRefused(_ byteClass: Int, after previous: Int?) -> BytecodeError {
            fail(reader.offset - 1, previous == nil ? "class \(byteClass) of \(program.classCount)"
                : "class \(byteClass) out of order or of \(program.classCount)")
        }

        /// The state's transitions, in the form its header says.
        mutating func readTransitions(_ header: UInt8, _ state: Int) throws(BytecodeError) {
            switch TransitionForm(rawValue: header & 0b11)! {
            case .sparse where header & Program.chainFlag != 0:
                let length = Int(try reader.u8())
                guard length >= 2 else { throw fail(reader.offset - 1, "chain of \(length) states") }
                for _ in 0..<length { _ = try readClass() }
                states += length - 1
                guard !reader.isAtEnd else { throw fail(state, "a chain as the last state") }
                gather(state, UInt32(reader.offset))
            case .stop: break
            case .dense:
                for _ in 0..<program.classCount { try readTarget() }
            case .sparse where header & Program.nextFlag != 0 && header & Program.firstNextFlag != 0:
                let count = Int(try reader.u8())
                guard count >= 2 else { throw fail(reader.offset - 1, "\(count) classes all to the next state") }
                var previous = -1
                for _ in 0..<count { previous = try readClass(after: previous) }
                guard !reader.isAtEnd else { throw fail(state, "the next flag on the last state") }
                gather(state, UInt32(reader.offset))
            case .sparse where header & Program.nextFlag != 0:
                _ = try readClass()
                // The target is the next instruction: there must be one.
                guard !reader.isAtEnd else { throw fail(state, "the next flag on the last state") }
                gather(reader.offset - 1, UInt32(reader.offset))
            case .sparse, .fallback:
                try readListed(header, state)
            }
        }

        /// A sparse or fallback state's listed classes (a fallback's target first; a first class
        /// that leads to the next instruction, with the first-next flag), each with its target.
        mutating func readListed(_ header: UInt8, _ state: Int) throws(BytecodeError) {
            if header & 0b11 == TransitionForm.fallback.rawValue { try readTarget() }
            var count = Int(try reader.u8())
            guard header & 0b11 == TransitionForm.fallback.rawValue || header & Program.deltaFlag != 0 || count >= 1 else {
                throw fail(reader.offset - 1, "sparse state without transitions")
            }
            if header & Program.firstNextFlag != 0 {
                guard count >= 1 else { throw fail(reader.offset - 1, "no first class to lead next") }
                count -= 1
                _ = try readClass()
                // The next instruction, after the entries: there must be one.
                let next = reader.offset + count * (1 + program.targetWidth)
                guard next < program.code.count else { throw fail(state, "the first-next class on the last state") }
                gather(reader.offset - 1, UInt32(next))
            }
            var previous = -1
            for _ in 0..<count {
                previous = try readClass(after: previous)
                try readTarget()
            }
        }

        /// Once every state is read: their count is the header's, the reference is a state
        /// without the delta form and not a chain, and every target is nowhere or a state.
        func checkStates() throws(BytecodeError) {
            let (code, reference, nowhere) = (program.code, program.reference, program.nowhere)
            guard states == program.stateCount else { throw fail(0, "\(states) states, header says \(program.stateCount)") }
            if reference != nowhere || usesReference {
                guard Int(reference) < code.count, isState[Int(reference)],
                      code[Int(reference)] & (Program.deltaFlag | Program.chainFlag) == 0 else {
                    throw fail(0, "reference \(reference) is not a state without the delta form and not a chain")
                }
            }
            for (at, target) in targets[..<targetCount] where target != nowhere {
                guard Int(target) < code.count, isState[Int(target)] else { throw fail(Int(at), "jump to \(target), not a state") }
            }
        }
    }

    /// The program as text: the classes, then one line per state (`@offset: accept ...; form ...`).
    public func disassemble() -> String {
        var lines = ["program: \(stateCount) states, \(classCount) byte classes, \(code.count) bytes, \(targetWidth)-byte targets"]
        var members = [[UInt8]](repeating: [], count: classCount)
        for byte in 0..<128 { members[Int(classOfByte[byte])].append(UInt8(byte)) }
        for (index, bytes) in members.enumerated() { lines.append("  c\(index) = \(describe(bytes))") }
        code.withUnsafeBufferPointer { code in
            var state = 0
            while state < code.count {
                var parts: [String] = []
                var accepted: [String] = []
                var offset = Self.reportAccepts(code, state: state) { accepted.append("p\($0)") }
                if !accepted.isEmpty { parts.append("accept " + accepted.joined(separator: " ")) }
                func target() -> String {
                    let value = Self.readTarget(code, offset, width: targetWidth)
                    offset += targetWidth
                    return value == nowhere ? "stop" : "@\(value)"
                }
                switch TransitionForm(rawValue: code[state] & 0b11)! {
                case .sparse where code[state] & Self.chainFlag != 0:
                    let length = Int(code[offset])
                    let classes = (offset + 1..<offset + 1 + length).map { "c\(code[$0])" }
                    offset += 1 + length
                    parts.append("chain " + classes.joined(separator: " ") + " ->@\(offset)")
                case .stop: parts.append("stop")
                case .dense: parts.append("dense " + (0..<classCount).map { "c\($0)->\(target())" }.joined(separator: " "))
                case .sparse where code[state] & Self.nextFlag != 0 && code[state] & Self.firstNextFlag != 0:
                    let count = Int(code[offset])
                    let classes = (offset + 1...offset + count).map { "c\(code[$0])" }
                    offset += 1 + count
                    parts.append("next " + classes.joined(separator: ",") + "->@\(offset)")
                case .sparse where code[state] & Self.nextFlag != 0:
                    let byteClass = code[offset]
                    offset += 1
                    parts.append((code[state] & Self.deltaFlag != 0 ? "delta @\(reference) next" : "next") + " c\(byteClass)->@\(offset)")
                case .sparse, .fallback:
                    var text = code[state] & 0b11 == TransitionForm.fallback.rawValue
                        ? "fallback \(target())" : code[state] & Self.deltaFlag != 0 ? "delta @\(reference)" : "sparse"
                    var count = Int(code[offset])
                    offset += 1
                    if code[state] & Self.firstNextFlag != 0 {
                        count -= 1
                        text += " c\(code[offset])->@\(offset + 1 + count * (1 + targetWidth))"
                        offset += 1
                    }
                    for _ in 0..<count {
                        let byteClass = code[offset]
                        offset += 1
                        text += " c\(byteClass)->\(target())"
                    }
                    parts.append(text)
                }
                lines.append("@\(state): " + parts.joined(separator: "; "))
                state = offset
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Bytes as a compact class, e.g. `[0-9A-Za-z]`, with unprintable bytes as `\xNN`.
func describe(_ bytes: [UInt8]) -> String {
    func show(_ byte: UInt8) -> String {
        (33...126).contains(byte) && byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "]") && byte != UInt8(ascii: "-")
            ? String(UnicodeScalar(byte)) : "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }
    var text = "["
    var index = 0
    while index < bytes.count {
        var end = index
        while end + 1 < bytes.count && bytes[end + 1] == bytes[end] + 1 { end += 1 }
        text += end - index >= 2 ? show(bytes[index]) + "-" + show(bytes[end]) : (index...end).map { show(bytes[$0]) }.joined()
        index = end + 1
    }
    return text + "]"
}
