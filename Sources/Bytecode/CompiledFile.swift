// CompiledFile.swift — Bytecode
//
// The compiled rule list, as held in memory and as written to a file. Version 2 of the format
// (version 1 had no stages in its programs sections):
//
//     header, 32 bytes
//       0  label          8   "BlkBnch" then 0x1A
//       8  version        2   2
//      10  endianness     2   0x0102 (bytes 02 01: a reader of the other byte order sees 0x0201)
//      12  sectionCount   2   the sections below, each exactly once, in this order
//      14  reserved       2   0
//      16  fileLength     8   the whole file
//      24  checksum       4   CRC-32 of bytes 32 ..< fileLength
//      28  reserved       4   0
//     directory, sectionCount x 12 bytes: kind 4, offset 4, length 4 (sections in bounds, in order,
//       not overlapping)
//     sections (`SectionKind`):
//       urlPrograms      a program set (ProgramSet.swift: programs, then stages) over the request URL
//       topURLPrograms   a program set over the main document URL (domains, top-url patterns)
//       framePrograms    a program set over the frame URL (frame-url patterns)
//       patterns         urlPatternCount 4, topPatternCount 4, framePatternCount 4;
//                        (urlPatternCount + 1) x 4: where each url pattern's rules start in the list
//                        that follows; the list's length 4 and its rule slots 4 each; then the count
//                        4 and slots 4 each of the rules whose url-filter matches every URL
//       rules            count 4, then `RuleRecord`s of 24 bytes, in rule order
//       conditions       count 4, then condition pattern ids 4 each; a rule's condition lists the
//                        slice `conditionStart ..< conditionStart + conditionCount`
//       actions          count 4, then the actions by location (ActionCoding.swift)
//
// All integers are little-endian. Rule slots number the rules of the file (0 ..< rules.count);
// `RuleRecord.ruleIndex` gives each one's index in the source list.

internal import Automata
public import ContentRuleList

public enum SectionKind: UInt32, CaseIterable, Sendable {
    case urlPrograms = 1, topURLPrograms, framePrograms, patterns, rules, conditions, actions
}

/// What a rule's condition looks at and how.
public enum ConditionKind: UInt8, Sendable, CaseIterable {
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
    public static let version: UInt16 = 2
    static let headerSize = 32

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

    /// The file's bytes. Writing the same compiled list always gives the same bytes.
    public func serialized() -> [UInt8] {
        var sections: [(SectionKind, [UInt8])] = []
        for kind in SectionKind.allCases {
            var writer = ByteWriter()
            switch kind {
            case .urlPrograms: urlPrograms.write(to: &writer)
            case .topURLPrograms: topURLPrograms.write(to: &writer)
            case .framePrograms: framePrograms.write(to: &writer)
            case .patterns:
                writer.u32(UInt32(urlPatternCount))
                writer.u32(UInt32(topPatternCount))
                writer.u32(UInt32(framePatternCount))
                for start in patternRuleStart { writer.u32(start) }
                writer.u32(UInt32(patternRules.count))
                for slot in patternRules { writer.u32(slot) }
                writer.u32(UInt32(universalRules.count))
                for slot in universalRules { writer.u32(slot) }
            case .rules:
                writer.u32(UInt32(rules.count))
                for rule in rules {
                    writer.u32(rule.ruleIndex)
                    writer.u16(rule.resourceTypes)
                    writer.u8(rule.loadTypes)
                    writer.u8(rule.loadContexts)
                    writer.u8(rule.method)
                    writer.u8(rule.condition.rawValue)
                    writer.u8(rule.role.rawValue)
                    writer.u8(0)
                    writer.u32(rule.actionLocation)
                    writer.u32(rule.conditionStart)
                    writer.u32(rule.conditionCount)
                }
            case .conditions:
                writer.u32(UInt32(conditions.count))
                for pattern in conditions { writer.u32(pattern) }
            case .actions:
                writer.u32(UInt32(actions.count))
                for action in actions { ActionCoding.write(action, to: &writer) }
            }
            sections.append((kind, writer.bytes))
        }
        var body = ByteWriter()
        var offset = Self.headerSize + sections.count * 12
        for (kind, bytes) in sections {
            body.u32(kind.rawValue)
            body.u32(UInt32(offset))
            body.u32(UInt32(bytes.count))
            offset += bytes.count
        }
        for (_, bytes) in sections { body.append(contentsOf: bytes) }
        var header = ByteWriter()
        header.append(contentsOf: Self.label)
        header.u16(Self.version)
        header.u16(0x0102)
        header.u16(UInt16(sections.count))
        header.u16(0)
        header.u64(UInt64(Self.headerSize + body.count))
        header.u32(CRC32.checksum(body.bytes))
        header.u32(0)
        return header.bytes + body.bytes
    }

    // MARK: Reading

    /// Reads and validates a file: the header, the checksum, every section's bounds, every program
    /// (see ProgramCoding.swift), every index. Nothing of a file that fails is used.
    public init(validating bytes: [UInt8]) throws(BytecodeError) {
        var header = ByteReader(bytes)
        guard bytes.count >= Self.label.count, Array(bytes.prefix(Self.label.count)) == Self.label else {
            throw bytes.count < Self.label.count && Self.label.starts(with: bytes) ? .truncated(at: 0) : .notACompiledRuleList
        }
        _ = try header.take(Self.label.count)
        let version = try header.u16()
        let endianness = try header.u16()
        guard endianness != 0x0201 else { throw .wrongEndianness }
        guard version == Self.version else { throw .unsupportedVersion(found: version, supported: Self.version) }
        guard endianness == 0x0102 else { throw .malformed(at: 10, "endianness mark 0x\(String(endianness, radix: 16))") }
        let sectionCount = Int(try header.u16())
        guard try header.u16() == 0 else { throw .malformed(at: 14, "reserved bytes not zero") }
        let length = try header.u64()
        guard length == UInt64(bytes.count) else {
            throw length > UInt64(bytes.count) ? .truncated(at: bytes.count) : .lengthMismatch(header: length, file: bytes.count)
        }
        let checksum = try header.u32()
        guard try header.u32() == 0 else { throw .malformed(at: 28, "reserved bytes not zero") }
        let computed = CRC32.checksum(bytes[Self.headerSize...])
        guard computed == checksum else { throw .checksumMismatch(expected: checksum, computed: computed) }
        guard sectionCount == SectionKind.allCases.count else {
            throw .malformed(at: 12, "\(sectionCount) sections, version \(Self.version) has \(SectionKind.allCases.count)")
        }
        var ranges: [SectionKind: (Int, Int)] = [:]
        var expectedOffset = Self.headerSize + sectionCount * 12
        for kind in SectionKind.allCases {
            let entry = header.offset
            guard try header.u32() == kind.rawValue else { throw .malformed(at: entry, "section \(kind) expected here") }
            let offset = Int(try header.u32())
            let size = Int(try header.u32())
            guard offset == expectedOffset, size <= bytes.count - offset else {
                throw .malformed(at: entry, "section \(kind) at \(offset)+\(size) out of place")
            }
            ranges[kind] = (offset, offset + size)
            expectedOffset = offset + size
        }
        guard expectedOffset == bytes.count else { throw .malformed(at: expectedOffset, "bytes after the last section") }

        func section(_ kind: SectionKind) -> ByteReader { ByteReader(bytes, from: ranges[kind]!.0, to: ranges[kind]!.1) }
        func finish(_ reader: ByteReader, _ kind: SectionKind) throws(BytecodeError) {
            guard reader.isAtEnd else { throw .malformed(at: reader.offset, "bytes left at the end of section \(kind)") }
        }

        // Counts first: programs and records are checked against them.
        var patterns = section(.patterns)
        let urlPatternCount = Int(try patterns.u32())
        let topPatternCount = Int(try patterns.u32())
        let framePatternCount = Int(try patterns.u32())
        guard urlPatternCount < patterns.remaining else { throw .truncated(at: patterns.offset) }
        var rulesReader = section(.rules)
        let ruleCount = Int(try rulesReader.u32())
        guard ruleCount <= rulesReader.remaining / 24 else { throw .truncated(at: rulesReader.offset) }

        var patternRuleStart: [UInt32] = []
        patternRuleStart.reserveCapacity(urlPatternCount + 1)
        for _ in 0...urlPatternCount { patternRuleStart.append(try patterns.u32()) }
        let listStart = patterns.offset
        let listCount = Int(try patterns.u32())
        guard listCount <= patterns.remaining / 4 else { throw .truncated(at: patterns.offset) }
        guard patternRuleStart.first == 0, patternRuleStart.last == UInt32(listCount),
              zip(patternRuleStart, patternRuleStart.dropFirst()).allSatisfy({ $0 < $1 })
        else { throw .malformed(at: listStart, "pattern rule lists out of order or empty") }
        var patternRules: [UInt32] = []
        patternRules.reserveCapacity(listCount)
        for _ in 0..<listCount {
            let slot = try patterns.u32()
            guard slot < ruleCount else { throw .malformed(at: patterns.offset - 4, "rule slot \(slot) of \(ruleCount)") }
            patternRules.append(slot)
        }
        let universalCount = Int(try patterns.u32())
        guard universalCount <= patterns.remaining / 4 else { throw .truncated(at: patterns.offset) }
        var universalRules: [UInt32] = []
        for _ in 0..<universalCount {
            let slot = try patterns.u32()
            guard slot < ruleCount, universalRules.last.map({ $0 < slot }) ?? true else {
                throw .malformed(at: patterns.offset - 4, "universal rule slot \(slot) out of order or of \(ruleCount)")
            }
            universalRules.append(slot)
        }
        try finish(patterns, .patterns)

        var conditionsReader = section(.conditions)
        let conditionCount = Int(try conditionsReader.u32())
        guard conditionCount <= conditionsReader.remaining / 4 else { throw .truncated(at: conditionsReader.offset) }
        var conditions: [UInt32] = []
        conditions.reserveCapacity(conditionCount)
        for _ in 0..<conditionCount { conditions.append(try conditionsReader.u32()) }
        try finish(conditionsReader, .conditions)

        var actionsReader = section(.actions)
        let actionCount = Int(try actionsReader.u32())
        guard actionCount <= actionsReader.remaining else { throw .truncated(at: actionsReader.offset) }
        var actions: [Action] = []
        for _ in 0..<actionCount { actions.append(try ActionCoding.read(from: &actionsReader)) }
        try finish(actionsReader, .actions)

        var rules: [RuleRecord] = []
        rules.reserveCapacity(ruleCount)
        for _ in 0..<ruleCount {
            let at = rulesReader.offset
            let ruleIndex = try rulesReader.u32()
            let resourceTypes = try rulesReader.u16()
            let loadTypes = try rulesReader.u8()
            let loadContexts = try rulesReader.u8()
            let method = try rulesReader.u8()
            let conditionByte = try rulesReader.u8()
            let roleByte = try rulesReader.u8()
            let reserved = try rulesReader.u8()
            let location = try rulesReader.u32()
            let conditionStart = try rulesReader.u32()
            let count = try rulesReader.u32()
            guard let condition = ConditionKind(rawValue: conditionByte), let role = RuleRole(rawValue: roleByte), reserved == 0,
                  method <= RequestMethod.allCases.count, resourceTypes < 1 << 14, loadTypes < 4, loadContexts < 4,
                  rules.last.map({ $0.ruleIndex < ruleIndex }) ?? true
            else { throw .malformed(at: at, "rule record out of range") }
            let listed = role == .listed || role == .makeHTTPS
            guard listed ? location < actionCount : location == RuleRecord.notListed else {
                throw .malformed(at: at + 12, "action location \(location) of \(actionCount)")
            }
            guard UInt64(conditionStart) + UInt64(count) <= UInt64(conditionCount),
                  (condition == .none || condition == .never) == (count == 0)
            else { throw .malformed(at: at + 16, "condition list out of range") }
            let limit = condition == .ifFrameURL || condition == .unlessFrameURL ? framePatternCount : topPatternCount
            for entry in conditions[Int(conditionStart)..<Int(conditionStart + count)] where entry >= limit {
                throw .malformed(at: at + 16, "condition pattern \(entry) of \(limit)")
            }
            rules.append(RuleRecord(
                ruleIndex: ruleIndex, resourceTypes: resourceTypes, loadTypes: loadTypes, loadContexts: loadContexts,
                method: method, condition: condition, role: role, actionLocation: location, conditionStart: conditionStart,
                conditionCount: count))
        }
        try finish(rulesReader, .rules)

        func programs(_ kind: SectionKind, patternCount: Int) throws(BytecodeError) -> ProgramSet {
            var reader = section(kind)
            let result = try ProgramSet.read(from: &reader, patternCount: patternCount)
            try finish(reader, kind)
            return result
        }
        self.init(
            urlPrograms: try programs(.urlPrograms, patternCount: urlPatternCount),
            topURLPrograms: try programs(.topURLPrograms, patternCount: topPatternCount),
            framePrograms: try programs(.framePrograms, patternCount: framePatternCount),
            urlPatternCount: urlPatternCount, topPatternCount: topPatternCount, framePatternCount: framePatternCount,
            patternRuleStart: patternRuleStart, patternRules: patternRules, universalRules: universalRules, rules: rules,
            conditions: conditions, actions: actions)
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
