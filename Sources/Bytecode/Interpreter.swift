// Interpreter.swift — Bytecode
//
// Runs a validated program over a URL. Allocates nothing: the caller's `report` closure is told
// each pattern of each state passed (a pattern may be reported more than once). Only programs
// that passed `Program.validate` may run: the reads below trust its checks.
// Tested by BytecodeTests/BytecodeTests.swift.

public import URLFilterSyntax

extension Program {
    /// Runs over `url` then the end-of-URL NUL, reporting the patterns of every state passed.
    /// Returns the transitions taken (bytes read, the end marker included): a count that depends
    /// only on the program and the URL, which benchmarks report as interpreter steps.
    @inlinable @discardableResult
    public func run(_ url: UnsafeBufferPointer<UInt8>, report: (UInt32) -> Void) -> Int {
        run(url, reporting: { pattern, _ in report(pattern) })
    }

    /// Runs like `run`, telling `report` after how many bytes each state that reports a pattern
    /// was reached (a stage's prefix program: where the suffixes start). Returns the steps.
    @inlinable @discardableResult
    public func runReportingEnds(_ url: UnsafeBufferPointer<UInt8>, report: (Int) -> Void) -> Int {
        run(url, reporting: { _, end in report(end) })
    }

    @inlinable
    func run(_ url: UnsafeBufferPointer<UInt8>, reporting report: (_ pattern: UInt32, _ bytesRead: Int) -> Void) -> Int {
        code.withUnsafeBufferPointer { code in
            classOfByte.withUnsafeBufferPointer { classOf in
                Self.execute(
                    code: code, classOf: classOf, width: targetWidth, nowhere: nowhere, reference: referenceState,
                    referenceTransitions: referenceTransitions, url: url, report: report)
            }
        }
    }

    @inlinable @inline(__always)
    package static func readTarget(_ code: UnsafeBufferPointer<UInt8>, _ offset: Int, width: Int) -> UInt32 {
        switch width {
        case 2: return UInt32(code[offset]) | UInt32(code[offset &+ 1]) << 8
        case 3: return UInt32(code[offset]) | UInt32(code[offset &+ 1]) << 8 | UInt32(code[offset &+ 2]) << 16
        default:
            return UInt32(code[offset]) | UInt32(code[offset &+ 1]) << 8 | UInt32(code[offset &+ 2]) << 16
                | UInt32(code[offset &+ 3]) << 24
        }
    }

    @inlinable
    static func readVarint(_ code: UnsafeBufferPointer<UInt8>, _ offset: inout Int) -> UInt32 {
        var value: UInt32 = 0
        var shift: UInt32 = 0
        while true {
            let byte = code[offset]
            offset += 1
            value |= UInt32(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// Reports the accepts of the state at `state` and returns the offset of its transitions.
    @inlinable
    package static func reportAccepts(_ code: UnsafeBufferPointer<UInt8>, state: Int, report: (UInt32) -> Void) -> Int {
        var offset = state + 1
        if code[state] & oneAcceptFlag != 0 {
            report(readVarint(code, &offset))
        } else if code[state] & acceptsFlag != 0 {
            let count = readVarint(code, &offset)
            var pattern: UInt32 = 0
            for index in 0..<count {
                let value = readVarint(code, &offset)
                pattern = index == 0 ? value : pattern &+ value
                report(pattern)
            }
        }
        return offset
    }

    /// Where the state whose header is at `state` and whose transitions start at `transitions` leads
    /// on `byteClass` (nowhere: all-ones); `reference` is the reference state and
    /// `referenceTransitions` where its transitions start. Not for chains (`execute` reads those
    /// itself). A loop, not a recursion, so that it inlines into the interpreter's loop: the
    /// reference never uses the delta form, so it turns at most twice.
    @inlinable @inline(__always)
    static func transition(
        _ code: UnsafeBufferPointer<UInt8>, state: Int, transitions: Int, byteClass: UInt8, width: Int, nowhere: UInt32,
        reference: Int, referenceTransitions: Int, referenceRow: UnsafeBufferPointer<UInt32> = UnsafeBufferPointer(start: nil, count: 0)
    ) -> UInt32 {
        var header = code[state]
        var offset = transitions
        while true {
            switch header & 0b11 {
            case TransitionForm.stop.rawValue:
                return nowhere
            case TransitionForm.dense.rawValue:
                return readTarget(code, offset &+ Int(byteClass) &* width, width: width)
            default:
                var fallback = nowhere
                if header & 0b11 == TransitionForm.fallback.rawValue {
                    fallback = readTarget(code, offset, width: width)
                    offset &+= width
                }
                if header & nextFlag != 0 {
                    if header & firstNextFlag == 0 {
                        // One class, leading to the next instruction (right after this one).
                        if code[offset] == byteClass { return UInt32(truncatingIfNeeded: offset &+ 1) }
                    } else {
                        // Several classes, all leading to the next instruction.
                        let count = Int(code[offset])
                        let end = offset &+ 1 &+ count
                        var at = offset &+ 1
                        while at != end {
                            let candidate = code[at]
                            if candidate >= byteClass {
                                if candidate == byteClass { return UInt32(truncatingIfNeeded: end) }
                                break
                            }
                            at &+= 1
                        }
                    }
                } else {
                    // Offsets stay within a validated program: wrapping arithmetic, no overflow checks.
                    var count = Int(code[offset])
                    offset &+= 1
                    let entry = 1 &+ width
                    if header & firstNextFlag != 0 {
                        // The first class leads to the instruction after this one's entries.
                        count &-= 1
                        if code[offset] == byteClass { return UInt32(truncatingIfNeeded: offset &+ 1 &+ count &* entry) }
                        offset &+= 1
                    }
                    var at = offset
                    let end = offset &+ count &* entry
                    while at != end {
                        let candidate = code[at]
                        if candidate >= byteClass {
                            if candidate == byteClass { return readTarget(code, at &+ 1, width: width) }
                            break
                        }
                        at &+= entry
                    }
                }
                guard header & deltaFlag != 0 else { return fallback }
                if !referenceRow.isEmpty { return referenceRow[Int(byteClass)] }
                header = code[reference]
                offset = referenceTransitions
            }
        }
    }

    /// `referenceRow`, when not empty, is the reference state's target per class (`referenceRow(_:)`):
    /// a step from the reference, or through it from a delta state, is then one read, not a scan
    /// of its exceptions (in an unanchored DFA most steps are; empty: the reference is decoded).
    @inlinable
    package static func execute(
        code: UnsafeBufferPointer<UInt8>, classOf: UnsafeBufferPointer<UInt8>, width: Int, nowhere: UInt32, reference: Int,
        referenceTransitions: Int, referenceRow: UnsafeBufferPointer<UInt32> = UnsafeBufferPointer(start: nil, count: 0),
        url: UnsafeBufferPointer<UInt8>, report: (_ pattern: UInt32, _ bytesRead: Int) -> Void
    ) -> Int {
        var state = 0
        var index = 0
        while true {
            let bytesRead = index
            let header = code[state]
            // Most states report nothing: their transitions follow the header.
            let offset = header & acceptsFlag == 0 ? state &+ 1 : reportAccepts(code, state: state) { report($0, bytesRead) }
            if header & chainFlag != 0 {
                // L states of one class each, then the next instruction: a step per byte as ever.
                let length = Int(code[offset])
                let classes = offset &+ 1
                for member in 0..<length {
                    guard index <= url.count else { return index }
                    let byte = index < url.count ? url[index] : 0
                    index &+= 1
                    guard byte < 128, classOf[Int(byte)] == code[classes &+ member] else { return index }
                }
                state = classes &+ length
                continue
            }
            guard index <= url.count else { return index }
            let byte = index < url.count ? url[index] : 0
            index &+= 1
            guard byte < 128 else { return index }
            let byteClass = classOf[Int(byte)]
            let next = state == reference && !referenceRow.isEmpty ? referenceRow[Int(byteClass)] : transition(
                code, state: state, transitions: offset, byteClass: byteClass, width: width, nowhere: nowhere,
                reference: reference, referenceTransitions: referenceTransitions, referenceRow: referenceRow)
            guard next != nowhere else { return index }
            state = Int(next)
        }
    }

    /// The reference state's target for each class (nowhere: all-ones), for `execute`; empty when
    /// no state uses the delta form. Only for a valid program (built from a DFA or validated).
    public func referenceRow() -> [UInt32] {
        guard reference != nowhere else { return [] }
        return code.withUnsafeBufferPointer { code in
            (0..<classCount).map { byteClass in
                Self.transition(
                    code, state: referenceState, transitions: referenceTransitions, byteClass: UInt8(byteClass), width: targetWidth,
                    nowhere: nowhere, reference: referenceState, referenceTransitions: referenceTransitions)
            }
        }
    }

    /// What a program's first step does: whether its start state reports patterns, and the
    /// bytes on which it goes on. Only for a valid program (built from a DFA or validated).
    public struct StartSummary: Hashable, Sendable {
        public var reports: Bool
        public var live: ASCIISet

        /// Running the program over a URL whose first byte (the end-of-URL NUL for an empty one)
        /// is `byte` could report something.
        @inlinable
        public func goesOn(_ byte: UInt8) -> Bool { reports || live.contains(byte) }
    }

    public func startSummary() -> StartSummary {
        code.withUnsafeBufferPointer { code in
            StartSummary(reports: code[0] & Self.acceptsFlag != 0, live: liveBytes(code, state: 0))
        }
    }

    /// Whether the program reports at its start and comes back to its start on every byte from 1
    /// to 127: a stage's empty prefix (its patterns share no prefix, so each may start anywhere).
    /// Run over a URL, such a program reports after 0, 1, 2, ... bytes, up to the URL's end or its
    /// first byte from 128 on, whatever its other transitions: a caller may list those places
    /// without running it.
    public var reportsAtEveryPosition: Bool {
        code.withUnsafeBufferPointer { code in
            guard code[0] & Self.acceptsFlag != 0, code[0] & Self.chainFlag == 0 else { return false }
            let transitions = Self.skipAccepts(code, state: 0)
            return (1..<128).allSatisfy { byte in
                Self.transition(
                    code, state: 0, transitions: transitions, byteClass: classOfByte[byte], width: targetWidth,
                    nowhere: nowhere, reference: referenceState, referenceTransitions: referenceTransitions) == 0
            }
        }
    }

    /// Every byte (the end-of-URL NUL included): a run reporting something goes on whatever the
    /// next byte, and `ASCIISet` has no room for the bytes from 128 on, which stop a run.
    public static let everyByte = ASCIISet(0...127)

    /// The bytes that may follow `first` in a run that reports something: those on which the state
    /// `first` leads to goes on; `everyByte` when that state or the start state reports. Only for
    /// a valid program whose start goes on at `first` (`StartSummary.goesOn`).
    public func secondBytes(after first: UInt8) -> ASCIISet {
        guard first < 128 else { return Self.everyByte }
        return code.withUnsafeBufferPointer { code in
            if code[0] & Self.acceptsFlag != 0 { return Self.everyByte }
            let offset = Self.skipAccepts(code, state: 0)
            if code[0] & Self.chainFlag != 0 {
                // A chain of two or more: its second member has one class and reports nothing.
                guard code[offset + 1] == classOfByte[Int(first)] else { return ASCIISet() }
                return bytes(inClass: code[offset + 2])
            }
            let next = Self.transition(
                code, state: 0, transitions: offset, byteClass: classOfByte[Int(first)], width: targetWidth, nowhere: nowhere,
                reference: referenceState, referenceTransitions: referenceTransitions)
            guard next != nowhere else { return ASCIISet() }
            return code[Int(next)] & Self.acceptsFlag != 0 ? Self.everyByte : liveBytes(code, state: Int(next))
        }
    }

    /// The bytes on which the state at `state` goes on (a chain: on its first class).
    private func liveBytes(_ code: UnsafeBufferPointer<UInt8>, state: Int) -> ASCIISet {
        let transitions = Self.skipAccepts(code, state: state)
        if code[state] & Self.chainFlag != 0 { return bytes(inClass: code[transitions + 1]) }
        var live = ASCIISet()
        for byte in 0..<128 {
            let next = Self.transition(
                code, state: state, transitions: transitions, byteClass: classOfByte[byte], width: targetWidth, nowhere: nowhere,
                reference: referenceState, referenceTransitions: referenceTransitions)
            if next != nowhere { live.insert(UInt8(byte)) }
        }
        return live
    }

    private func bytes(inClass byteClass: UInt8) -> ASCIISet {
        ASCIISet((0..<128).lazy.map(UInt8.init).filter { classOfByte[Int($0)] == byteClass })
    }

    /// The offset of the transitions of the state at `state`.
    @inlinable
    static func skipAccepts(_ code: UnsafeBufferPointer<UInt8>, state: Int) -> Int {
        reportAccepts(code, state: state) { _ in }
    }

    /// The patterns that match `url`, each once, in increasing order (allocates; for tests and tools).
    public func matches(_ url: [UInt8]) -> [UInt32] {
        var found = Set<UInt32>()
        _ = url.withUnsafeBufferPointer { run($0) { found.insert($0) } }
        return found.sorted()
    }
}
