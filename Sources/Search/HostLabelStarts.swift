// HostLabelStarts.swift — Search
//
// When a host context's candidates are the host's labels. A context's L (HostContextTable.swift)
// is most often another converter's spelling of the domain table's prefix: `^https?://` or
// `^[^:]+:(//)?` for the scheme, `([^/]+\.)?` or `([^:/]+\.)?` for the subdomains. On a URL whose
// host is plain (`plainHost`: lower-case letters, digits, `-` and `.`, as a canonical URL's host
// mostly is), such an L ends, past the scheme part, exactly where the domain table's prefix does:
// at the host's start and after each `.` but one at its first byte; and D, which holds no byte of
// the context's splitting set S, runs to the host's end. Its candidates are then those the domain
// table reads (`DomainTable.forEachCandidate`: the host read once, eight bytes at a time, each
// candidate hashed as it is read), not those of L's automaton run a byte at a time and split.
//
// Which states of L's automaton lead so is found from the automaton, not L's text
// (`LabelStartStates`): from a state q, the pairs of L's state and the state of the domain
// table's candidate rule (`Rule`, three states) that plain host bytes reach from (q, the rule's
// start) all agree on whether D may begin there, and after the byte that ends the host (`/` or
// `:`, a flag each, and only when S holds it) L can never end again. A lookup runs L over the
// scheme part (the bytes before the host: an end there must face a byte of S, an empty D; the
// state `https://` reaches is kept with the context, `HostContextLookup.httpsState`) and takes
// the labels when the state it reaches has the flag of the host's end byte; otherwise the
// automaton reads the URL as before (DomainTable.swift, `lookUpLabels`). The answer is the
// automaton's either way: HostContextTests hold the two readings to each other on generated URLs
// under every dialect's prefix, and to the NFA.

internal import Automata
internal import URLFilterSyntax

/// Per state of a host context's automaton: after which host end bytes its ends over a plain host
/// are the host's label starts (the file's header).
struct LabelStartStates {
    /// The flag of a host ended by `/`.
    static let endedBySlash: UInt8 = 1
    /// The flag of a host ended by `:` (a port follows).
    static let endedByColon: UInt8 = 2

    /// The bytes of a plain host: what the shortcut reads a host of.
    static let plainHost = ASCIISet(0x61...0x7A).union(ASCIISet(0x30...0x39)).union(ASCIISet([0x2D, 0x2E]))

    /// Whether `byte` (below 128) is in `plainHost`: its words as constants, read at every byte of
    /// a host where the static set would be a global's lazy check each time.
    @inline(__always)
    static func isPlainHostByte(_ byte: UInt8) -> Bool {
        let (low, high): (UInt64, UInt64) = (0x03FF_6000_0000_0000, 0x07FF_FFFE_0000_0000)
        return byte < 64 ? low >> byte & 1 != 0 : high >> (byte & 63) & 1 != 0
    }

    /// The first place of `url` from `start` on whose byte is not a plain host byte (`plainHost`;
    /// a byte from 128 on is none), or the URL's end: sixteen bytes at a time in a URL that has
    /// them, otherwise eight, a byte in a range when adding to it sets its high bit for its low end
    /// and not for its high end. In a word, the lowest byte so flagged is exact: the bytes below it
    /// are plain, below 128, and carry into no other (a byte from 128 on is in no range and carries
    /// only into the bytes above it). The URL's last bytes
    /// past the last whole word in the word that ends the URL, shifted down so that NULs (not
    /// plain) follow them; in a URL shorter than a word, one at a time. (A host's labels are read
    /// so: `DomainTable.hostLabels`.)
    @inline(__always)
    static func plainHostEnd(_ url: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var at = start
        if let base = UnsafeRawPointer(url.baseAddress) {
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            // The bytes from `low` through `high`: their high bits.
            @inline(__always) func within(_ word: UInt64, _ low: UInt64, _ high: UInt64) -> UInt64 {
                (word &+ (0x80 - low) &* ones) & ~(word &+ (0x7F - high) &* ones) & highs
            }
            // (Not `a`...`z`, `0`...`9`, `-` or `.`.)
            @inline(__always) func others(_ word: UInt64) -> UInt64 {
                ~(within(word, 0x61, 0x7A) | within(word, 0x30, 0x39) | within(word, 0x2D, 0x2E)) & highs
            }
            // A URL of sixteen bytes or more: sixteen at a time, as a vector's lanes (each byte
            // added to alone: no carry, so that every flagged lane is exact); its last bytes in
            // the sixteen that end it, the lanes before them dropped.
            @inline(__always) func within(_ bytes: SIMD16<UInt8>, _ low: UInt8, _ high: UInt8) -> SIMD16<UInt8> {
                (bytes &+ SIMD16(repeating: 0x80 &- low)) & ~(bytes &+ SIMD16(repeating: 0x7F &- high))
            }
            // The lanes of the sixteen bytes at `offset` that are not plain, as two words (the
            // first byte lowest).
            @inline(__always) func others(at offset: Int) -> (first: UInt64, second: UInt64) {
                let bytes = base.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
                let lanes = ~(within(bytes, 0x61, 0x7A) | within(bytes, 0x30, 0x39) | within(bytes, 0x2D, 0x2E)) & SIMD16(repeating: 0x80)
                return unsafeBitCast(lanes, to: (UInt64, UInt64).self)
            }
            if url.count >= 16 && UInt64(1).littleEndian == 1 {
                while at &+ 16 <= url.count {
                    let (first, second) = others(at: at)
                    if first != 0 { return at &+ first.trailingZeroBitCount &>> 3 }
                    if second != 0 { return at &+ 8 &+ second.trailingZeroBitCount &>> 3 }
                    at &+= 16
                }
                guard at < url.count else { return at }
                let skipped = 16 &- (url.count &- at)
                var (first, second) = others(at: url.count &- 16)
                if skipped >= 8 {
                    first = 0
                    second &= UInt64.max &<< UInt64(truncatingIfNeeded: 8 &* (skipped &- 8))
                } else {
                    first &= UInt64.max &<< UInt64(truncatingIfNeeded: 8 &* skipped)
                }
                if first != 0 { return url.count &- 16 &+ first.trailingZeroBitCount &>> 3 }
                if second != 0 { return url.count &- 8 &+ second.trailingZeroBitCount &>> 3 }
                return url.count
            }
            while at &+ 8 <= url.count {
                let other = others(base.loadUnaligned(fromByteOffset: at, as: UInt64.self))
                if other != 0 { return at &+ other.trailingZeroBitCount &>> 3 }
                at &+= 8
            }
            if at < url.count && url.count >= 8 {
                let last = base.loadUnaligned(fromByteOffset: url.count &- 8, as: UInt64.self) &>> UInt64(truncatingIfNeeded: 8 &* (8 &- (url.count &- at)))
                return at &+ others(last).trailingZeroBitCount &>> 3
            }
        }
        while at < url.count && url[at] < 128 && isPlainHostByte(url[at]) { at += 1 }
        return at
    }

    /// Per state, its flags.
    let flags: [UInt8]

    /// The states of `starts`, a context whose D ends at a byte of `splitting`; nil when none has
    /// a flag.
    init?(_ starts: HostStarts, splitting: ASCIISet) {
        guard splitting.isDisjoint(with: Self.plainHost) else { return nil }
        let endBytes = [(UInt8(ascii: "/"), Self.endedBySlash), (UInt8(ascii: ":"), Self.endedByColon)].filter { splitting.contains($0.0) }
        let reachesEnd = Self.reachesEnd(starts)
        let plainBytes = (0..<128).map(UInt8.init).filter(Self.plainHost.contains)
        var seen = [Bool](repeating: false, count: (starts.stateCount + 1) * Rule.allCases.count * 2)
        let flags = (0..<starts.stateCount).map { state in
            Self.flags(from: state, starts, plainBytes: plainBytes, endBytes: endBytes, reachesEnd: reachesEnd, seen: &seen)
        }
        guard flags.contains(where: { $0 != 0 }) else { return nil }
        self.flags = flags
    }

    /// The domain table's candidate rule over a plain host: D may begin at the host's start
    /// (`start`) and after each `.` but one at its first byte (`afterDot`); nowhere else (`inside`).
    private enum Rule: Int, CaseIterable {
        case start, inside, afterDot

        var beginsD: Bool { self != .inside }

        func next(_ byte: UInt8) -> Rule { byte == UInt8(ascii: ".") && self != .start ? .afterDot : .inside }
    }

    /// The flags of `state`: from the pair (state, the rule's start), over plain host bytes, every
    /// pair reached agrees on where D may begin; a flag of `endBytes` stays when L, past that byte
    /// after any pair reached by a byte or more (a host is not empty), can never end again.
    /// (`seen`: a flag per pair and whether a byte was read, all false, left so.)
    private static func flags(
        from state: Int, _ starts: HostStarts, plainBytes: [UInt8], endBytes: [(UInt8, UInt8)], reachesEnd: [Bool], seen: inout [Bool]
    ) -> UInt8 {
        let dead = starts.stateCount
        @inline(__always) func next(_ state: Int, _ byte: UInt8) -> Int {
            guard state != dead else { return dead }
            let target = starts.next[state << 7 | Int(byte)]
            return target == HostStarts.dead ? dead : Int(target)
        }
        var flags = endBytes.reduce(UInt8(0)) { $0 | $1.1 }
        var marked: [Int] = []
        defer { for pair in marked { seen[pair] = false } }
        var pending = [(state, Rule.start, hostRead: false)]
        while let (lState, rule, hostRead) = pending.popLast() {
            let pair = (lState * Rule.allCases.count + rule.rawValue) << 1 | (hostRead ? 1 : 0)
            guard !seen[pair] else { continue }
            seen[pair] = true
            marked.append(pair)
            let lEnds = lState != dead && starts.ends[lState]
            guard lEnds == rule.beginsD else { return 0 }
            for (byte, flag) in endBytes where hostRead {
                let after = next(lState, byte)
                if after != dead && reachesEnd[after] { flags &= ~flag }
            }
            for byte in plainBytes { pending.append((next(lState, byte), rule.next(byte), true)) }
        }
        return flags
    }

    /// Per state, whether L may end at it or at any state it leads to.
    private static func reachesEnd(_ starts: HostStarts) -> [Bool] {
        var reaches = starts.ends
        var changed = true
        while changed {
            changed = false
            for state in 0..<starts.stateCount where !reaches[state] {
                let row = starts.next[state << 7 ..< (state + 1) << 7]
                if row.contains(where: { $0 != HostStarts.dead && reaches[Int($0)] }) {
                    reaches[state] = true
                    changed = true
                }
            }
        }
        return reaches
    }
}
