// CompiledFile.swift — Search
//
// The compiled rule list, as held in memory and as written to a file. Version 12 of the format
// (refused by this reader: version 11, whose host contexts have no open domains; version 10, whose host contexts report no gates; version 9, without
// the program sets' host context tables; version 8, whose gated groups all run from the URL's start, those a
// domain gates holding their patterns whole; version 7, whose domain tables report no gates;
// version 6, without the program sets' domain condition tables; version 5, without the program
// sets' gated groups; version 4, without the program sets' domain tables; version 3, with a
// rule's gap and location always written; version 2, without chain instructions; version 1,
// without stages, the next flag and class-map runs, with fixed 24-byte rule records):
//
//     header, 32 bytes
//       0  label          8   "BlkBnch" then 0x1A
//       8  version        2   12
//      10  endianness     2   0x0102 (bytes 02 01: a reader of the other byte order sees 0x0201)
//      12  sectionCount   2   the sections below, each exactly once, in this order
//      14  reserved       2   0
//      16  fileLength     8   the whole file
//      24  checksum       4   CRC-32 of bytes 32 ..< fileLength
//      28  reserved       4   0
//     directory, sectionCount x 12 bytes: kind 4, offset 4, length 4 (sections in bounds, in order,
//       not overlapping)
//     sections (`SectionKind`):
//       urlPrograms      a program set (ProgramSet.swift: programs, stages, gated groups, domain table) over
//                        the request URL
//       topURLPrograms   a program set over the main document URL (domains, top-url patterns)
//       framePrograms    a program set over the frame URL (frame-url patterns)
//       patterns         urlPatternCount 4, topPatternCount 4, framePatternCount 4; per url
//                        pattern its rule slots (>= 1): a varint whose bit 0 says more than one
//                        follow and whose other bits are the zigzag difference of its first slot
//                        from the slot before it (the previous pattern's last; the first: from 0);
//                        with more, a varint count - 2, then each further slot as a zigzag varint
//                        of its difference from the one before (mostly 1 byte a pattern instead
//                        of 2: patterns mostly have one rule, numbered in order); then the count 4 of the rules whose
//                        url-filter matches every URL and their slots as varint gaps (the first
//                        slot, then each minus the previous, >= 1)
//       rules            count 4; the profiles (the flags rules share: a list of tens of thousands
//                        of rules has a few dozen): varint count, then per profile
//                          varint    resourceTypes (< 2^14)
//                          1         loadTypes (bits 0-1), loadContexts (bits 2-3), role (bits 4-6)
//                          1         condition (bits 0-2), method (bits 3-6)
//                        then per rule, in rule order (a `RuleRecord`):
//                          varint    its profile (< the profile count) << 2, bit 0 set when its
//                                    gap follows, bit 1 when its location's difference follows
//                                    (most rules: one byte, their gap and difference 0)
//                          [varint]  ruleIndex, as a gap (>= 1) from the previous rule's + 1 (the
//                                    first: itself); without bit 0, gap 0: indexes strictly increase
//                          [varint]  actionLocation, for the listed roles (listed, make-https) only,
//                                    as a zigzag varint of its difference (not 0) from the previous
//                                    listed rule's (the first: from 0); without bit 1, difference 0
//                          varint    conditionCount, for the list conditions (if/unless top/frame
//                                    url) only, >= 1; then varint conditionStart
//       conditions       count 4, then condition pattern ids as varints; a rule's condition lists
//                        the slice `conditionStart ..< conditionStart + conditionCount`
//       actions          count 4, then the actions by location (ActionCoding.swift)
//
// All integers are little-endian; varints are LEB128 (ByteIO.swift). Rule slots number the rules of
// the file (0 ..< rules.count); `RuleRecord.ruleIndex` gives each one's index in the source list.
// Records are 24 bytes in memory and at least 2 in the file: the flags are written once per
// profile, and each rule names its profile, so a rule takes a few bytes where a fixed record
// would take all 24.
// Tested by SearchTests/CompiledFileTests.swift and ContentBlockerTests/HostileFileTests.swift.

internal import Automata
public import Bytecode
public import ContentRuleList
internal import Parallelism

public enum SectionKind: UInt32, CaseIterable, Sendable {
    case urlPrograms = 1, topURLPrograms, framePrograms, patterns, rules, conditions, actions

    /// Its place in the file's directory and in `allCases`: the kinds are numbered from 1 in
    /// that order.
    public var place: Int { Int(rawValue) - 1 }
}

/// What a rule's condition looks at and how.
public enum ConditionKind: UInt8, Sendable, CaseIterable {
    /// The condition lists patterns (`conditionStart`, `conditionCount`).
    public var hasList: Bool { self != .none && self != .never }

    case none = 0
    /// Holds when one of the top-url patterns (domains included) matches the main document URL.
    case ifTopURL = 1
    case unlessTopURL = 2
    /// Holds when one of the frame-url patterns matches the frame URL.
    case ifFrameURL = 3
    case unlessFrameURL = 4
    /// Never holds (an `unless-*` with a pattern that matches every URL).
    case never = 5
}

/// What a matching rule does beyond being reported.
public enum RuleRole: UInt8, Sendable, CaseIterable {
    /// Its action is listed at its location (`actionLocation`); the others have none.
    public var isListed: Bool { self == .listed || self == .makeHTTPS }

    /// Its action is listed at its location.
    case listed = 0
    case ignorePreviousRules = 1
    case ignoreFollowingRules = 2
    /// A css-display-none rule of the global style sheet: not listed.
    case globalStyleSheet = 3
    /// make-https: listed only for http: and ws: URLs on their default port.
    case makeHTTPS = 4
}

/// One rule's flags, condition and action location; 24 bytes in the file.
public struct RuleRecord: Hashable, Sendable {
    public var ruleIndex: UInt32
    public var resourceTypes: UInt16
    public var loadTypes: UInt8
    public var loadContexts: UInt8
    /// 0: any method; otherwise `RequestMethod.allCases[method - 1]`.
    public var method: UInt8
    public var condition: ConditionKind
    public var role: RuleRole
    /// The index of its action in `CompiledFile.actions`, or `UInt32.max` when not listed.
    public var actionLocation: UInt32
    public var conditionStart: UInt32
    public var conditionCount: UInt32

    public static let notListed = UInt32.max

    public init(
        ruleIndex: UInt32, resourceTypes: UInt16, loadTypes: UInt8, loadContexts: UInt8, method: UInt8,
        condition: ConditionKind, role: RuleRole, actionLocation: UInt32, conditionStart: UInt32, conditionCount: UInt32
    ) {
        self.ruleIndex = ruleIndex
        self.resourceTypes = resourceTypes
        self.loadTypes = loadTypes
        self.loadContexts = loadContexts
        self.method = method
        self.condition = condition
        self.role = role
        self.actionLocation = actionLocation
        self.conditionStart = conditionStart
        self.conditionCount = conditionCount
    }
}

/// A compiled rule list: everything the interpreter and the evaluator need, nothing else.
public struct CompiledFile: Hashable, Sendable {
    public static let label: [UInt8] = Array("BlkBnch".utf8) + [0x1A]
    public static let version: UInt16 = 12
    public static let headerSize = 32

    public var urlPrograms: ProgramSet
    public var topURLPrograms: ProgramSet
    public var framePrograms: ProgramSet
    public var urlPatternCount: Int
    public var topPatternCount: Int
    public var framePatternCount: Int
    /// The rules of url pattern `p` are `patternRules[patternRuleStart[p] ..< patternRuleStart[p + 1]]`.
    public var patternRuleStart: [UInt32]
    public var patternRules: [UInt32]
    /// Rules whose url-filter matches every URL, in rule order.
    public var universalRules: [UInt32]
    public var rules: [RuleRecord]
    public var conditions: [UInt32]
    public var actions: [Action]

    public init(
        urlPrograms: ProgramSet, topURLPrograms: ProgramSet, framePrograms: ProgramSet, urlPatternCount: Int,
        topPatternCount: Int, framePatternCount: Int, patternRuleStart: [UInt32], patternRules: [UInt32],
        universalRules: [UInt32], rules: [RuleRecord], conditions: [UInt32], actions: [Action]
    ) {
        self.urlPrograms = urlPrograms
        self.topURLPrograms = topURLPrograms
        self.framePrograms = framePrograms
        self.urlPatternCount = urlPatternCount
        self.topPatternCount = topPatternCount
        self.framePatternCount = framePatternCount
        self.patternRuleStart = patternRuleStart
        self.patternRules = patternRules
        self.universalRules = universalRules
        self.rules = rules
        self.conditions = conditions
        self.actions = actions
    }

    // MARK: Writing

    /// Whether `programs`' gates, if any, follow its `count` patterns.
    private static func gatesNumbered(_ programs: borrowing ProgramSet, from count: Int) -> Bool {
        programs.gated.map { Int($0.gateBase) == count } ?? true
    }

    /// The file's bytes. Writing the same compiled list always gives the same bytes.
    public func serialized() -> [UInt8] {
        // (A file says no gate base: a reader takes the set's pattern count, so the set must.)
        precondition(
            Self.gatesNumbered(urlPrograms, from: urlPatternCount) && Self.gatesNumbered(topURLPrograms, from: topPatternCount)
                && Self.gatesNumbered(framePrograms, from: framePatternCount), "gates numbered from another count than the set's patterns")
        // The sections are written on every core (the url programs' are most of the bytes), each
        // with its checksum; the body's is combined from the section table's and theirs. The file
        // is then made at its length: the header and the table written into it, each section's
        // bytes copied into it once.
        let file = self
        let kinds = SectionKind.allCases
        let sections = Parallel.map(handingOver: Array(kinds)) { _, kind in
            var writer = ByteWriter()
            file.write(kind, to: &writer)
            return WrittenSection(writer)
        }
        var table = ByteWriter(capacity: sections.count * 12)
        var offset = Self.headerSize + sections.count * 12
        for (kind, section) in zip(kinds, sections) {
            table.u32(kind.rawValue)
            table.u32(UInt32(offset))
            table.u32(UInt32(section.writer.count))
            offset += section.writer.count
        }
        let checksum = sections.reduce(table.withUnsafeBytes { CRC32.checksum($0) }) {
            CRC32.combine($0, $1.checksum, secondLength: $1.writer.count)
        }
        var header = ByteWriter(capacity: Self.headerSize)
        header.append(contentsOf: Self.label)
        header.u16(Self.version)
        header.u16(0x0102)
        header.u16(UInt16(sections.count))
        header.u16(0)
        header.u64(UInt64(offset))
        header.u32(checksum)
        header.u32(0)
        return [UInt8](unsafeUninitializedCapacity: offset) { buffer, initialized in
            func copy(_ bytes: UnsafeRawBufferPointer) {
                UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[initialized...]).copyMemory(from: bytes)
                initialized += bytes.count
            }
            header.withUnsafeBytes(copy)
            table.withUnsafeBytes(copy)
            for section in sections { section.writer.withUnsafeBytes(copy) }
        }
    }

    /// A section's bytes and their checksum, handed back by the core that wrote them.
    private final class WrittenSection: Sendable {
        let writer: ByteWriter
        let checksum: UInt32

        init(_ writer: consuming ByteWriter) {
            checksum = writer.withUnsafeBytes { CRC32.checksum($0) }
            self.writer = writer
        }
    }

    /// Writes section `kind`.
    private func write(_ kind: SectionKind, to writer: inout ByteWriter) {
        switch kind {
        case .urlPrograms: urlPrograms.write(to: &writer)
        case .topURLPrograms: topURLPrograms.write(to: &writer)
        case .framePrograms: framePrograms.write(to: &writer)
        case .patterns:
            // (Room for the section at once: mostly a byte a pattern, a few bytes a universal rule.)
            writer.reserve(12 + 2 * patternRules.count + 4 + 5 * universalRules.count)
            writer.u32(UInt32(urlPatternCount))
            writer.u32(UInt32(topPatternCount))
            writer.u32(UInt32(framePatternCount))
            // Per pattern: its first slot's difference and whether more follow, in one varint.
            precondition(rules.count < 1 << 29, "rule slots beyond 2^29")
            // (Through pointers: a slice of the slots per pattern would retain and release them.)
            patternRuleStart.withUnsafeBufferPointer { starts in
                patternRules.withUnsafeBufferPointer { slots in
                    var previousSlot: UInt32 = 0
                    for pattern in 0..<starts.count - 1 {
                        let (start, end) = (Int(starts[pattern]), Int(starts[pattern + 1]))
                        precondition(start < end && end <= slots.count, "a pattern without rule slots")
                        let difference = Int64(slots[start]) - Int64(previousSlot)
                        let zigzag = UInt32(truncatingIfNeeded: difference < 0 ? ~(difference << 1) : difference << 1)
                        writer.varint(zigzag << 1 | (end - start > 1 ? 1 : 0))
                        if end - start > 1 {
                            writer.varint(UInt32(end - start - 2))
                            for slot in start + 1..<end { writer.zigzag(Int64(slots[slot]) - Int64(slots[slot - 1])) }
                        }
                        previousSlot = slots[end - 1]
                    }
                }
            }
            writer.u32(UInt32(universalRules.count))
            for (index, slot) in universalRules.enumerated() { writer.varint(index == 0 ? slot : slot - universalRules[index - 1]) }
        case .rules:
            writer.u32(UInt32(rules.count))
            // Profiles in order of first use.
            func profile(_ rule: RuleRecord) -> UInt32 {
                UInt32(rule.resourceTypes) | UInt32(rule.loadTypes | rule.loadContexts << 2 | rule.role.rawValue << 4) << 16
                    | UInt32(rule.condition.rawValue | rule.method << 3) << 24
            }
            // One pass numbers the profiles and writes the records, into a writer of their own:
            // they follow the profiles. A rule's profile number is looked up once a run of rules
            // of one profile (a list's rules mostly share their neighbours' flags).
            var profiles = ProfileNumbering()
            var last: (profile: UInt32, number: UInt32)?
            // (Mostly a byte or two a rule.)
            var records = ByteWriter(capacity: 5 * rules.count)
            var previous: UInt32?
            var previousLocation: UInt32 = 0
            for rule in rules {
                let key = profile(rule)
                if key != last?.profile { last = (key, profiles.number(of: key)) }
                let gap = previous.map { rule.ruleIndex - $0 - 1 } ?? rule.ruleIndex
                previous = rule.ruleIndex
                let difference = rule.role.isListed ? Int64(rule.actionLocation) - Int64(previousLocation) : 0
                if rule.role.isListed { previousLocation = rule.actionLocation }
                records.varint(last!.number << 2 | (gap != 0 ? 1 : 0) | (difference != 0 ? 2 : 0))
                if gap != 0 { records.varint(gap) }
                if difference != 0 { records.zigzag(difference) }
                if rule.condition.hasList {
                    records.varint(rule.conditionCount)
                    records.varint(rule.conditionStart)
                }
            }
            // (A profile: 7 bytes at most.)
            writer.reserve(5 + 7 * profiles.count + records.count)
            writer.varint(UInt32(profiles.count))
            for key in profiles.inFirstUseOrder {
                writer.varint(key & 0xFFFF)
                writer.u8(UInt8(key >> 16 & 0xFF))
                writer.u8(UInt8(key >> 24))
            }
            writer.append(records)
        case .conditions:
            writer.reserve(4 + 5 * conditions.count)
            writer.u32(UInt32(conditions.count))
            for pattern in conditions { writer.varint(pattern) }
        case .actions:
            writer.u32(UInt32(actions.count))
            for action in actions { ActionCoding.write(action, to: &writer) }
        }
    }

    // MARK: Reading

    /// Reads and validates a file: the header, the checksum, every section's bounds, every program
    /// (see ProgramCoding.swift), every index. Nothing of a file that fails is used. The sections
    /// are read in the order their checks depend on: the pattern counts and the rule count first
    /// (programs and records are checked against them), then the patterns' rule slots, the
    /// conditions, the actions, the rule records (checked against the conditions and actions),
    /// and the three program sets, prepared to run: their dense tables made within `denseBudget`
    /// (the url set's first, then the top-url set's, then the frame-url set's: DenseBudget.swift).
    public init(validating bytes: [UInt8], denseBudget: DenseBudget = .standard) throws(BytecodeError) {
        let sections = try Sections(validating: bytes)
        var patterns = sections.reader(.patterns)
        let counts = try PatternCounts(reading: &patterns, fileLength: bytes.count)
        var rulesReader = sections.reader(.rules)
        // A rule takes 1 byte at least (its record's head).
        let ruleCount = try rulesReader.u32Count(of: "rules", itemBytes: 1)
        let slots = try PatternSlots(reading: &patterns, urlPatternCount: counts.url, ruleCount: ruleCount)
        try Sections.finish(patterns, .patterns)
        let conditions = try Self.readConditions(sections.reader(.conditions))
        let actions = try Self.readActions(sections.reader(.actions))
        let rules = try Self.readRules(
            &rulesReader, count: ruleCount, sectionStart: sections.range(.rules).start, conditions: conditions,
            actionCount: actions.count, counts: counts)
        try Sections.finish(rulesReader, .rules)
        let (urlPrograms, topURLPrograms, framePrograms) = try Self.sharing(
            denseBudget,
            url: { budget throws(BytecodeError) in try sections.programs(.urlPrograms, patternCount: counts.url, denseBudget: budget) },
            top: { budget throws(BytecodeError) in try sections.programs(.topURLPrograms, patternCount: counts.top, denseBudget: budget) },
            frame: { budget throws(BytecodeError) in try sections.programs(.framePrograms, patternCount: counts.frame, denseBudget: budget) })
        self.init(
            urlPrograms: urlPrograms, topURLPrograms: topURLPrograms, framePrograms: framePrograms,
            urlPatternCount: counts.url, topPatternCount: counts.top, framePatternCount: counts.frame,
            patternRuleStart: slots.ruleStart, patternRules: slots.rules.fitted(), universalRules: slots.universal.fitted(), rules: rules,
            conditions: conditions, actions: actions)
        LoadScratch.release(afterLoading: bytes.count)
    }

    /// The header and the directory, validated: where each section lies.
    private struct Sections {
        let bytes: [UInt8]
        /// Each section's bytes, in `SectionKind.allCases` order (an array, not a dictionary by
        /// kind: a dictionary of a type not used before costs its first use's setup, a tenth of a
        /// small list's load).
        var ranges: [(start: Int, end: Int)] = []

        init(validating bytes: [UInt8]) throws(BytecodeError) {
            self.bytes = bytes
            var header = ByteReader(bytes)
            guard bytes.count >= CompiledFile.label.count, Array(bytes.prefix(CompiledFile.label.count)) == CompiledFile.label else {
                throw bytes.count < CompiledFile.label.count && CompiledFile.label.starts(with: bytes) ? .truncated(at: 0) : .notACompiledRuleList
            }
            _ = try header.take(CompiledFile.label.count)
            let version = try header.u16()
            let endianness = try header.u16()
            guard endianness != 0x0201 else { throw .wrongEndianness }
            guard version == CompiledFile.version else { throw .unsupportedVersion(found: version, supported: CompiledFile.version) }
            guard endianness == 0x0102 else { throw .malformed(at: 10, "endianness mark 0x\(String(endianness, radix: 16))") }
            let sectionCount = Int(try header.u16())
            guard try header.u16() == 0 else { throw .malformed(at: 14, "reserved bytes not zero") }
            let length = try header.u64()
            guard length == UInt64(bytes.count) else {
                throw length > UInt64(bytes.count) ? .truncated(at: bytes.count) : .lengthMismatch(header: length, file: bytes.count)
            }
            let checksum = try header.u32()
            guard try header.u32() == 0 else { throw .malformed(at: 28, "reserved bytes not zero") }
            let computed = CRC32.checksum(bytes[CompiledFile.headerSize...])
            guard computed == checksum else { throw .checksumMismatch(expected: checksum, computed: computed) }
            guard sectionCount == SectionKind.allCases.count else {
                throw .malformed(at: 12, "\(sectionCount) sections, version \(CompiledFile.version) has \(SectionKind.allCases.count)")
            }
            var expectedOffset = CompiledFile.headerSize + sectionCount * 12
            for kind in SectionKind.allCases {
                let entry = header.offset
                guard try header.u32() == kind.rawValue else { throw .malformed(at: entry, "section \(kind) expected here") }
                let offset = Int(try header.u32())
                let size = Int(try header.u32())
                guard offset == expectedOffset, size <= bytes.count - offset else {
                    throw .malformed(at: entry, "section \(kind) at \(offset)+\(size) out of place")
                }
                ranges.append((offset, offset + size))
                expectedOffset = offset + size
            }
            guard expectedOffset == bytes.count else { throw .malformed(at: expectedOffset, "bytes after the last section") }
        }

        func range(_ kind: SectionKind) -> (start: Int, end: Int) { ranges[kind.place] }

        func reader(_ kind: SectionKind) -> ByteReader { ByteReader(bytes, from: range(kind).start, to: range(kind).end) }

        /// A section read must end where its bytes do.
        static func finish(_ reader: ByteReader, _ kind: SectionKind) throws(BytecodeError) {
            guard reader.isAtEnd else { throw .malformed(at: reader.offset, "bytes left at the end of section \(kind)") }
        }

        /// A program set section, its programs checked against the patterns they may report.
        func programs(_ kind: SectionKind, patternCount: Int, denseBudget: DenseBudget) throws(BytecodeError) -> ProgramSet {
            var reader = reader(kind)
            let result = try ProgramSet.read(from: &reader, patternCount: patternCount, denseBudget: denseBudget)
            try Self.finish(reader, kind)
            return result
        }
    }

    /// The patterns section's counts. Every count is bounded by the bytes its items take before
    /// anything is sized by it (a count of N items of at least k bytes: N * k <= the bytes left).
    private struct PatternCounts {
        var url: Int
        var top: Int
        var frame: Int

        init(reading patterns: inout ByteReader, fileLength: Int) throws(BytecodeError) {
            let countsAt = patterns.offset
            url = Int(try patterns.u32())
            top = Int(try patterns.u32())
            frame = Int(try patterns.u32())
            // A url pattern takes 1 byte here at least (its slots' varint).
            _ = try ByteReader.checked(url, at: countsAt, of: "url patterns", limit: patterns.remaining)
            // Condition patterns have no bytes of their own: each is reported by its programs or
            // named by a condition, a byte at least somewhere in the file. The evaluator keeps a
            // flag and an index entry per pattern, so their counts are held to the file's length.
            _ = try ByteReader.checked(top, at: countsAt + 4, of: "top-url patterns", limit: fileLength)
            _ = try ByteReader.checked(frame, at: countsAt + 8, of: "frame-url patterns", limit: fileLength)
        }
    }

    /// The rest of the patterns section: each url pattern's rule slots, then the rules whose
    /// url-filter matches every URL.
    private struct PatternSlots {
        var ruleStart: [UInt32] = [0]
        var rules: [UInt32] = []
        var universal: [UInt32] = []

        init(reading patterns: inout ByteReader, urlPatternCount: Int, ruleCount: Int) throws(BytecodeError) {
            ruleStart.reserveCapacity(urlPatternCount + 1)
            rules.reserveCapacity(urlPatternCount)
            var previousSlot: Int64 = 0
            for _ in 0..<urlPatternCount {
                let at = patterns.offset
                let head = try patterns.varint()
                let zigzag = Int64(head >> 1)
                var slot = previousSlot + (zigzag & 1 == 0 ? zigzag >> 1 : ~(zigzag >> 1))
                let count = head & 1 == 0 ? 1 : try patterns.varintCount(of: "further rule slots", itemBytes: 1) + 2
                guard count <= ruleCount else { throw .malformed(at: at, "pattern rule list of \(count) slots") }
                for index in 0..<count {
                    if index > 0 { slot += try patterns.zigzag() }
                    guard slot >= 0, slot < ruleCount else { throw .malformed(at: at, "rule slot \(slot) of \(ruleCount)") }
                    rules.append(UInt32(slot))
                }
                previousSlot = slot
                ruleStart.append(UInt32(rules.count))
            }
            let universalCount = try patterns.u32Count(of: "universal rules", itemBytes: 1)
            for index in 0..<universalCount {
                let at = patterns.offset
                let gap = UInt64(try patterns.varint())
                let slot = index == 0 ? gap : UInt64(universal.last!) + gap
                guard index == 0 || gap >= 1, slot < UInt64(ruleCount) else {
                    throw .malformed(at: at, "universal rule slot \(slot) out of order or of \(ruleCount)")
                }
                universal.append(UInt32(slot))
            }
        }
    }

    /// The conditions section: condition pattern ids (checked against the pattern counts with the
    /// rules that list them).
    private static func readConditions(_ section: ByteReader) throws(BytecodeError) -> [UInt32] {
        var reader = section
        let count = try reader.u32Count(of: "condition patterns", itemBytes: 1)
        var conditions: [UInt32] = []
        conditions.reserveCapacity(count)
        for _ in 0..<count { conditions.append(try reader.varint()) }
        try Sections.finish(reader, .conditions)
        return conditions
    }

    /// The actions section.
    private static func readActions(_ section: ByteReader) throws(BytecodeError) -> [Action] {
        var reader = section
        let count = try reader.u32Count(of: "actions", itemBytes: 1)
        var actions: [Action] = []
        actions.reserveCapacity(count)
        for _ in 0..<count { actions.append(try ActionCoding.read(from: &reader)) }
        try Sections.finish(reader, .actions)
        return actions
    }

    /// The rules section after its count: the profiles, then `count` records, each checked against
    /// its profile, the actions and the conditions.
    private static func readRules(
        _ reader: inout ByteReader, count ruleCount: Int, sectionStart: Int, conditions: [UInt32], actionCount: Int,
        counts: PatternCounts
    ) throws(BytecodeError) -> [RuleRecord] {
        let profileCount = try reader.varintCount(of: "rule profiles", itemBytes: 3)
        var profiles: [(types: UInt32, flags: UInt8, condition: ConditionKind, role: RuleRole, method: UInt8)] = []
        for _ in 0..<profileCount {
            let at = reader.offset
            let types = try reader.varint()
            let flags = try reader.u8()
            let kinds = try reader.u8()
            let method = kinds >> 3
            guard types < 1 << 14, flags & 0x80 == 0, kinds & 0x80 == 0,
                  let condition = ConditionKind(rawValue: kinds & 0b111), let role = RuleRole(rawValue: flags >> 4),
                  method <= RequestMethod.allCases.count
            else { throw .malformed(at: at, "rule profile out of range") }
            profiles.append((types, flags, condition, role, method))
        }
        _ = try ByteReader.checked(ruleCount, at: sectionStart, of: "rules", limit: reader.remaining)
        var rules: [RuleRecord] = []
        rules.reserveCapacity(ruleCount)
        // (The profiles and conditions read through buffers, the previous rule's index and
        // location kept apart: a rule's record is a few bytes read and checked.)
        try profiles.withUnsafeBufferPointer { profiles throws(BytecodeError) in
            try conditions.withUnsafeBufferPointer { conditions throws(BytecodeError) in
                var nextIndex: UInt64 = 0
                var previousLocation: Int64 = 0
                for _ in 0..<ruleCount {
                    let at = reader.offset
                    let head = try reader.varint()
                    let profileNumber = Int(head >> 2)
                    let gap = head & 1 != 0 ? UInt64(try reader.varint()) : 0
                    let index = nextIndex + gap
                    guard index <= UInt64(UInt32.max), profileNumber < profileCount, head & 1 == 0 || gap > 0 else {
                        throw .malformed(at: at, "rule record out of range")
                    }
                    nextIndex = index + 1
                    let (types, flags, condition, role, method) = profiles[profileNumber]
                    guard role.isListed || head & 2 == 0 else { throw .malformed(at: at, "a location difference for a rule that lists none") }
                    var location = RuleRecord.notListed
                    if role.isListed {
                        let difference = head & 2 != 0 ? try reader.zigzag() : 0
                        guard head & 2 == 0 || difference != 0 else { throw .malformed(at: at, "a location difference of 0 written") }
                        let value = previousLocation + difference
                        guard value >= 0, value < actionCount else { throw .malformed(at: at, "action location \(value) of \(actionCount)") }
                        location = UInt32(value)
                        previousLocation = value
                    }
                    var count: UInt32 = 0
                    var conditionStart: UInt32 = 0
                    if condition.hasList {
                        count = try reader.varint()
                        conditionStart = try reader.varint()
                        guard UInt64(conditionStart) + UInt64(count) <= UInt64(conditions.count), count > 0 else {
                            throw .malformed(at: at, "condition list out of range")
                        }
                        let limit = condition == .ifFrameURL || condition == .unlessFrameURL ? counts.frame : counts.top
                        for entry in conditions[Int(conditionStart)..<Int(conditionStart + count)] where entry >= limit {
                            throw .malformed(at: at, "condition pattern \(entry) of \(limit)")
                        }
                    }
                    rules.append(RuleRecord(
                        ruleIndex: UInt32(index), resourceTypes: UInt16(types), loadTypes: flags & 0b11, loadContexts: flags >> 2 & 0b11,
                        method: method, condition: condition, role: role, actionLocation: location, conditionStart: conditionStart,
                        conditionCount: count))
                }
            }
        }
        return rules
    }

    /// The program sets prepared to run, their dense tables made within `budget` (DenseBudget.swift:
    /// the url set's first, then the top-url set's, then the frame-url set's), as a file read
    /// within it has them: a set prepared so already is kept.
    public func prepared(denseBudget budget: DenseBudget) -> CompiledFile {
        var file = self
        (file.urlPrograms, file.topURLPrograms, file.framePrograms) = Self.sharing(
            budget, url: urlPrograms.prepared(denseBudget:), top: topURLPrograms.prepared(denseBudget:),
            frame: framePrograms.prepared(denseBudget:))
        return file
    }

    /// The three program sets made by `url`, `top` and `frame` within one budget: the url set's
    /// within all of it, the top-url set's within what the url set's tables left, the frame-url
    /// set's within what both left.
    private static func sharing<Failure: Error>(
        _ budget: DenseBudget, url: (DenseBudget) throws(Failure) -> ProgramSet, top: (DenseBudget) throws(Failure) -> ProgramSet,
        frame: (DenseBudget) throws(Failure) -> ProgramSet
    ) throws(Failure) -> (ProgramSet, ProgramSet, ProgramSet) {
        let urlPrograms = try url(budget)
        let topBudget = budget.less(urlPrograms.denseEntryCount)
        let topURLPrograms = try top(topBudget)
        return (urlPrograms, topURLPrograms, try frame(topBudget.less(topURLPrograms.denseEntryCount)))
    }

    /// The budget the program sets' dense tables were made within, as `prepared(denseBudget:)`
    /// takes it.
    public var denseBudget: DenseBudget { urlPrograms.denseBudget }

    /// The bytes of the program sets' dense tables' entries (what `DenseBudget` counts).
    public var denseTableBytes: Int {
        (urlPrograms.denseEntryCount + topURLPrograms.denseEntryCount + framePrograms.denseEntryCount) * MemoryLayout<UInt16>.size
    }

    /// What the loaded file holds in memory, by structure (HeldMemory.swift): its program sets
    /// (their images once prepared: an evaluator prepares them), the patterns' rule slots, the
    /// rules, the conditions and the actions.
    public func heldMemory() -> HeldMemory {
        var memory = HeldMemory()
        for programs in [urlPrograms, topURLPrograms, framePrograms] { programs.held(into: &memory) }
        for array in [patternRuleStart, patternRules, universalRules] { memory.add("pattern rule slots", array: array) }
        memory.add("rules", array: rules)
        memory.add("conditions", array: conditions)
        memory.add("actions", array: actions)
        for action in actions { memory.add("actions", Self.heldBytes(action)) }
        return memory
    }

    /// The bytes an action holds beyond its word in the array: the box of a case with a payload
    /// (an indirect enum's) and a string's storage past the 15 bytes a string holds inline; for
    /// a redirect or header edits (a few a list at most), their encoded bytes.
    private static func heldBytes(_ action: Action) -> Int {
        func string(_ text: String) -> Int { text.utf8.count > 15 ? HeldMemory.arrayHeader + text.utf8.count + 1 : 0 }
        let box = 16 + 16
        switch action {
        case .block, .blockCookies, .ignorePreviousRules, .ignoreFollowingRules, .makeHTTPS: return 0
        case .cssDisplayNone(let text), .notify(let text): return box + string(text)
        case .redirect, .modifyHeaders:
            var writer = ByteWriter()
            ActionCoding.write(action, to: &writer)
            return box + writer.count
        }
    }

    /// Bytes per section of the serialized file, for reports.
    public func sectionSizes() -> [(kind: SectionKind, bytes: Int)] { Self.sectionSizes(in: serialized()) }

    /// Bytes per section of a file this type serialized (its directory, read without validation).
    public static func sectionSizes(in bytes: [UInt8]) -> [(kind: SectionKind, bytes: Int)] {
        var reader = ByteReader(bytes, from: Self.headerSize)
        return SectionKind.allCases.map { kind in
            _ = try? reader.u32()
            _ = try? reader.u32()
            return (kind, Int((try? reader.u32()) ?? 0))
        }
    }
}

/// Numbers the rule profiles of a file in order of first use. A sorted array searched by halves,
/// not a `[UInt32: UInt32]`: a list has tens of profiles, and a dictionary of that type costs
/// a process its first use's setup, more than a small list's whole numbering.
private struct ProfileNumbering {
    private(set) var inFirstUseOrder: [UInt32] = []
    /// (profile, number), sorted by profile.
    private var sorted: [(profile: UInt32, number: UInt32)] = []

    var count: Int { inFirstUseOrder.count }

    /// The number of `profile`: the one it was given, or the next one.
    mutating func number(of profile: UInt32) -> UInt32 {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle].profile < profile { low = middle + 1 } else { high = middle }
        }
        if low < sorted.count && sorted[low].profile == profile { return sorted[low].number }
        let number = UInt32(inFirstUseOrder.count)
        inFirstUseOrder.append(profile)
        sorted.insert((profile, number), at: low)
        return number
    }
}
