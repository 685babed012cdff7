// RuleListCompiler.swift — ContentBlocker
//
// Rule list -> compiled file. The url-filters become the url programs (identical filters share
// one pattern; filters that match everything go to the universal list instead); domains and
// top-url patterns become the top-url programs, frame-url patterns the frame programs; each rule
// gets a record with its flags, its condition and the location of its action, assigned as
// MatchOutcome.swift defines (segments at every ignore rule, shared locations, batched
// css-display-none, the global style sheet).
// Tested by ContentBlockerTests/ContentBlockerTests.swift.

public import Automata
internal import Bytecode
internal import Search
internal import Parallelism
public import ContentRuleList
internal import URLFilterSyntax

/// Why a list that WebKit accepts did not compile here.
public enum CompileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The list is not one WebKit accepts.
    case invalidRuleList(ContentRuleListError)
    /// A pattern's automaton outgrew the limits on its own.
    case patternTooComplex(pattern: String, rules: [RuleIndex], AutomataError)
    /// The automata of all the list's url (or top-url, or frame-url) patterns together outgrew
    /// the limits: no one pattern is to blame.
    case listTooComplex(patterns: String, AutomataError)

    public var description: String {
        switch self {
        case .invalidRuleList(let error): "\(error)"
        case .patternTooComplex(let pattern, let rules, let error):
            "pattern \(URLFilter.quotedForMessage(pattern)) (rule\(rules.count == 1 ? "" : "s") \(rules.map(\.description).joined(separator: ", "))): \(error)"
        case .listTooComplex(let patterns, let error):
            "the list's \(patterns) patterns: \(error)"
        }
    }
}

/// Figures of one compilation.
public struct CompilationReport: Sendable {
    public var rules: Int
    public var urlPatterns: Int
    public var universalRules: Int
    public var topPatterns: Int
    public var framePatterns: Int
    public struct Automata: Sendable {
        public var dfas: Int = 0
        /// Stages (StagePlanner.swift); their prefix and suffix DFAs are counted in `dfas`.
        public var stages: Int = 0
        public var nfaStates: Int = 0
        public var statesBeforeMinimization: Int = 0
        public var states: Int = 0
        /// The DFAs' transitions before minimization (`AutomataLimits.maximumTotalTransitions`).
        public var transitions: Int = 0
        /// Patterns in the domain table (DomainTable.swift in Search), not in any DFA.
        public var domains: Int = 0
        /// Patterns in the domain condition table (DomainConditionTable.swift in Search), not in any DFA.
        public var domainConditions: Int = 0
    }
    public var url = Automata()
    public var topURL = Automata()
    public var frameURL = Automata()
    /// The phases of the compile's own course: parsing, the url patterns' programs, emitting.
    /// (A phase whose work is spread over the cores, as the automata's building is, counts each
    /// core's time.)
    public var timer = PhaseTimer()
    /// The phases of the thread that assigns the action locations and builds the top-url and
    /// frame-url programs while the url patterns are planned: beside `timer`'s, at the same time,
    /// so not added to it (the two together can sum past the compile's wall time).
    public var conditionThread = PhaseTimer()
}

public enum RuleListCompiler {
    /// Parses and compiles a rule list's JSON bytes. `minimizingDFAs: false` keeps each DFA as the
    /// subset construction made it: the same answers from a bigger file (to measure the minimizer).
    /// `timer` is the one the phases' time is added to (its marker told each phase's stretches,
    /// its sub-tasks' timers made with that marker); `jsonMarker` is told the JSON reader's
    /// stretches of the parse (`RuleListParser.check`).
    ///
    /// The bytes and the parsed list are consumed: a caller that passes its last reference to them
    /// (`compile(json: consume bytes)`) has them freed before the automata are built.
    public static func compile(
        json bytes: consuming [UInt8], limits: AutomataLimits = .default, minimizingDFAs: Bool = true,
        timer: PhaseTimer = PhaseTimer(), jsonMarker: (any JSONReadingMarker)? = nil
    ) throws(CompileError) -> (CompiledRuleList, CompilationReport) {
        var timer = timer
        let parsing = timer.begin(.parse)
        let check = RuleListParser.check(consume bytes, collectingEveryError: false, jsonMarker: jsonMarker)
        timer.end(parsing)
        if case .failure(let error) = check.verdict { throw .invalidRuleList(error) }
        // The check's list and table go on alone: the table is edited (domains) without a copy,
        // and the list is let go before the automata are built.
        let list = check.list
        let patterns = check.patterns
        _ = consume check
        return try compile(consume list, patterns: consume patterns, limits: limits, minimizingDFAs: minimizingDFAs, timer: timer)
    }

    /// Compiles a parsed rule list (consumed: the compiler lets it go once it has read the rules,
    /// before it builds the automata, when the caller passes its last reference). `patterns`, when
    /// given, is the list's table as the rule-list parser made it (`RuleListCheck.patterns`):
    /// its parses are used instead of parsing every pattern again.
    public static func compile(
        _ list: consuming RuleList, patterns: consuming PatternTable? = nil, limits: AutomataLimits = .default,
        minimizingDFAs: Bool = true, timer: PhaseTimer = PhaseTimer()
    ) throws(CompileError) -> (CompiledRuleList, CompilationReport) {
        var builder = Builder(list: consume list, timer: timer)
        try builder.collect(patterns: consume patterns)
        let file = try builder.build(limits: limits, minimizing: minimizingDFAs)
        var report = builder.report
        report.timer = builder.timer
        // What made the file (the patterns' texts, the ids' rules) let go in emitting's stretch,
        // which it ends.
        let letting = report.timer.begin(.emit)
        _ = consume builder
        report.timer.end(letting)
        return (CompiledRuleList(file), report)
    }
}

/// The patterns of one program kind (url, top-url or frame-url), numbered in first-seen order:
/// the ids their DFAs report and the file indexes them by. Identical text and case (one
/// `PatternTableWithDomains` number) share an id; each id keeps its text and the rules that use it.
struct PatternIDs {
    /// By text number: its id, -1 while it has none (a list's texts are numbered densely).
    private var idOfText: [Int32] = []
    /// Each id's text number, until the patterns are gathered (`gatherPatterns`).
    private var texts: [Int32] = []
    /// The patterns as read, from `gatherPatterns` until their programs are built (`takePatterns`).
    private var patterns: [AcceptedPattern] = []
    private(set) var sources: [String] = []
    /// Each id's last rule, and every (id, rule) use in rule order: flat, not a list per id (a
    /// big list has tens of thousands of ids; the uses are read only to name a pattern's rules in
    /// an error).
    private var lastUser: [RuleIndex] = []
    private var uses: [(id: Int32, rule: RuleIndex)] = []

    /// The number of ids (once the patterns are gathered).
    var count: Int { sources.count }

    /// Room for `count` ids and as many uses (a list's url-filters: one a rule).
    mutating func reserveCapacity(_ count: Int) {
        texts.reserveCapacity(count)
        lastUser.reserveCapacity(count)
        uses.reserveCapacity(count)
    }

    /// Room for the text numbers below `textCount` (the table's count), none with an id yet:
    /// `id(for:rule:)` takes only those.
    mutating func reserveTexts(_ textCount: Int) {
        idOfText = [Int32](repeating: -1, count: textCount)
    }

    /// The id of text number `text` (below the count given to `reserveTexts`), first used by `rule`.
    mutating func id(for text: Int32, rule: RuleIndex) -> Int {
        let text = Int(text)
        if case let id = Int(idOfText[text]), id >= 0 {
            if lastUser[id] != rule {
                lastUser[id] = rule
                uses.append((Int32(id), rule))
            }
            return id
        }
        let id = texts.count
        idOfText[text] = Int32(id)
        texts.append(Int32(text))
        lastUser.append(rule)
        uses.append((Int32(id), rule))
        return id
    }

    /// Whether text number `text` has an id.
    func hasID(ofText text: Int32) -> Bool {
        Int(text) < idOfText.count && idOfText[Int(text)] >= 0
    }

    /// Each id's pattern and source from `readings` (the table's, by text number): moved out
    /// (a placeholder left) unless `usedLater` says another kind still reads it, then copied.
    /// (Moved, each pattern's strings and arrays are neither retained here nor released with
    /// the table.)
    mutating func gatherPatterns(
        from readings: inout [Result<AcceptedPattern, URLFilterParseError>], usedLater: (Int32) -> Bool
    ) {
        patterns.reserveCapacity(texts.count)
        sources.reserveCapacity(texts.count)
        // The rule-list parser accepted every pattern of the list, and domain patterns are valid.
        let placeholder = Result<AcceptedPattern, URLFilterParseError>.success(
            .host(HostPattern(source: "", isCaseSensitive: false, domain: [], tail: [])))
        readings.withUnsafeMutableBufferPointer { readings in
            for text in texts {
                let reading = readings.baseAddress! + Int(text)
                let pattern: AcceptedPattern
                if usedLater(text) {
                    guard case .success(let read) = reading.pointee else { preconditionFailure("a pattern of the list is in error") }
                    pattern = read
                } else {
                    guard case .success(let read) = reading.move() else { preconditionFailure("a pattern of the list is in error") }
                    reading.initialize(to: placeholder)
                    pattern = read
                }
                sources.append(pattern.source)
                patterns.append(consume pattern)
            }
        }
        texts = []
    }

    /// The rules that use pattern `id`, in order.
    func users(of id: Int) -> [RuleIndex] { uses.filter { $0.id == id }.map(\.rule) }

    /// The patterns as read, which are no longer held here.
    mutating func takePatterns() -> [AcceptedPattern] {
        defer { patterns = [] }
        return patterns
    }
}

/// The list's pattern table (url-filters, top-url and frame-url patterns) with the pattern of
/// each domain of its domain conditions added (built once per domain: domains recur across
/// thousands of rules).
struct PatternTableWithDomains {
    var table: PatternTable
    /// The domains, numbered, and the number of each one's pattern in `table`.
    private var domains = TextNumbers()
    private var patternOfDomain: [Int32] = []

    init(_ table: consuming PatternTable) {
        self.table = table
    }

    mutating func number(ofDomain domain: String) -> Int32 {
        let number = Int(domains.number(domain, caseSensitive: false))
        if number == patternOfDomain.count {
            // (A plain domain's pattern is made with its parts: not read back from its text.)
            let plain = DomainPattern(plainDomain: domain)
            let source = plain?.source ?? DomainPattern.source(forDomain: domain)
            patternOfDomain.append(table.number(source, caseSensitive: false, reading: plain.map(AcceptedPattern.domain)))
        }
        return patternOfDomain[number]
    }
}

private struct Builder {
    var list: RuleList
    var timer: PhaseTimer
    var report: CompilationReport
    var urlIDs = PatternIDs()
    var topIDs = PatternIDs()
    var frameIDs = PatternIDs()
    /// The url pattern of each rule slot, nil when it matches everything.
    var urlPatternOfRule: [Int?] = []
    var records: [RuleRecord] = []
    var conditions: [UInt32] = []
    var actions: [Action] = []

    init(list: RuleList, timer: PhaseTimer) {
        self.list = list
        self.timer = timer
        report = CompilationReport(rules: list.rules.count, urlPatterns: 0, universalRules: 0, topPatterns: 0, framePatterns: 0)
    }

    mutating func collect(patterns: consuming PatternTable?) throws(CompileError) {
        let firstIgnore = list.rules.firstIndex { $0.action == .ignorePreviousRules || $0.action == .ignoreFollowingRules }
            ?? list.rules.count
        let numbering = timer.begin(.parse)
        let allPatterns = PatternTableWithDomains(patterns ?? PatternTable(rules: list.rules))
        timer.end(numbering)
        let parsing = timer.begin(.parse)
        recordRules(consume allPatterns, firstIgnore: firstIgnore)
        timer.end(parsing)
    }

    /// Each rule's record and pattern ids, then each kind's patterns. The table is consumed: it,
    /// its texts and the readings left over are let go here, inside parsing's stretch.
    private mutating func recordRules(_ allPatterns: consuming PatternTableWithDomains, firstIgnore: Int) {
        records.reserveCapacity(list.rules.count)
        urlPatternOfRule.reserveCapacity(list.rules.count)
        urlIDs.reserveCapacity(list.rules.count)
        let ruleTexts = Self.ruleTexts(list.rules, &allPatterns)
        allPatterns.table.parseNewKeys()
        urlIDs.reserveTexts(allPatterns.table.count)
        topIDs.reserveTexts(allPatterns.table.count)
        frameIDs.reserveTexts(allPatterns.table.count)
        recordEachRule(ruleTexts, statuses: allPatterns.table.statuses, firstIgnore: firstIgnore)
        gatherPatterns(from: allPatterns.table.takeResults())
    }

    /// A record per rule, and the ids of its url pattern and its condition's patterns (its texts
    /// `ruleTexts`, in rule order; `statuses` by text).
    private mutating func recordEachRule(_ ruleTexts: [Int32], statuses: [URLFilterParseStatus], firstIgnore: Int) {
        var cursor = 0
        // Whether a text matches everything, from the table's statuses: a pattern's parse is
        // read (and copied) only for its first use, when it gets its id.
        func matchesEverything(_ text: Int32) -> Bool { statuses[Int(text)] == .matchesEverything }
        // (The rules read in place, a field at a time: a rule copied out of the array retains and
        // releases each of its strings and lists.)
        let rules = list.rules
        rules.withUnsafeBufferPointer { rules in
            for slot in rules.indices {
                let urlText = ruleTexts[cursor]
                cursor += 1
                urlPatternOfRule.append(matchesEverything(urlText) ? nil : urlIDs.id(for: urlText, rule: rules[slot].index))
                let start = conditions.count
                var kind = ConditionKind.none
                if let condition = rules[slot].trigger.condition {
                    kind = addCondition(condition, of: rules[slot].index, ruleTexts, &cursor, matchesEverything)
                }
                let rule = rules.baseAddress! + slot
                let role = Self.role(of: rule, matchesEveryURL: matchesEverything(urlText), isBeforeFirstIgnore: slot < firstIgnore)
                records.append(Self.record(of: rule, condition: kind, role: role, conditionEntries: start..<conditions.count))
            }
        }
    }

    /// What a rule is to the file's outcomes (MatchOutcome.swift): an ignore rule or make-https as
    /// its action says; a css-display-none rule without flags or condition whose url-filter
    /// matches every URL, before the list's first ignore rule, is the global style sheet's; any
    /// other is listed. (The rule read in place, as in `recordEachRule`.)
    @inline(__always)
    private static func role(of rule: UnsafePointer<Rule>, matchesEveryURL: Bool, isBeforeFirstIgnore: Bool) -> RuleRole {
        switch rule.pointee.action {
        case .ignorePreviousRules: .ignorePreviousRules
        case .ignoreFollowingRules: .ignoreFollowingRules
        case .makeHTTPS: .makeHTTPS
        case .cssDisplayNone
        where isBeforeFirstIgnore && matchesEveryURL && rule.pointee.trigger.flags == .none && rule.pointee.trigger.condition == nil:
            .globalStyleSheet
        default: .listed
        }
    }

    /// A rule's record: its trigger's flags, its condition (its entries `conditions[conditionEntries]`)
    /// and its role; its action not yet located (`assignActionLocations`). (The rule read in place.)
    @inline(__always)
    private static func record(of rule: UnsafePointer<Rule>, condition: ConditionKind, role: RuleRole, conditionEntries: Range<Int>) -> RuleRecord {
        let method = rule.pointee.trigger.requestMethod.map { UInt8(RequestMethod.allCases.firstIndex(of: $0)! + 1) } ?? 0
        return RuleRecord(
            ruleIndex: UInt32(rule.pointee.index.rawValue), resourceTypes: rule.pointee.trigger.resourceTypes.rawValue,
            loadTypes: rule.pointee.trigger.loadTypes.rawValue, loadContexts: rule.pointee.trigger.loadContexts.rawValue, method: method,
            condition: condition, role: role, actionLocation: RuleRecord.notListed,
            conditionStart: conditionEntries.isEmpty ? 0 : UInt32(conditionEntries.lowerBound),
            conditionCount: UInt32(conditionEntries.count))
    }

    /// Each kind's patterns out of the table's readings, each moved by the last kind that reads it.
    private mutating func gatherPatterns(from readings: consuming [Result<AcceptedPattern, URLFilterParseError>]) {
        let (top, frame) = (topIDs, frameIDs)
        urlIDs.gatherPatterns(from: &readings) { top.hasID(ofText: $0) || frame.hasID(ofText: $0) }
        topIDs.gatherPatterns(from: &readings) { frame.hasID(ofText: $0) }
        frameIDs.gatherPatterns(from: &readings) { _ in false }
    }

    /// Each rule's pattern numbers in the order `collect` reads them: the table's, with those of
    /// the rule's domains in place (numbered here; parsed at once after).
    private static func ruleTexts(_ rules: [Rule], _ allPatterns: inout PatternTableWithDomains) -> [Int32] {
        var ruleTexts: [Int32] = []
        ruleTexts.reserveCapacity(allPatterns.table.numbersOfRules.count)
        // (The rules read in place, a field at a time: a rule copied out of the array
        // retains and releases each of its strings and lists.)
        let numbersOfRules = allPatterns.table.numbersOfRules
        var tableCursor = 0
        func fromTable() -> Int32 {
            defer { tableCursor += 1 }
            return numbersOfRules[tableCursor]
        }
        rules.withUnsafeBufferPointer { rules in
            for index in rules.indices {
                ruleTexts.append(fromTable())
                switch rules[index].trigger.condition {
                case nil: break
                case .ifDomain(let domains), .unlessDomain(let domains):
                    for domain in domains { ruleTexts.append(allPatterns.number(ofDomain: domain)) }
                case .ifTopURL(let patterns), .unlessTopURL(let patterns), .ifFrameURL(let patterns), .unlessFrameURL(let patterns):
                    for _ in patterns { ruleTexts.append(fromTable()) }
                }
            }
        }
        return ruleTexts
    }

    /// The ids of `condition`'s patterns (its texts from `ruleTexts[cursor...]`, parsed by
    /// `pattern`) appended to `conditions`, unless one matches everything; returns the record's
    /// condition kind.
    @inline(__always)
    private mutating func addCondition(
        _ condition: Condition, of rule: RuleIndex, _ ruleTexts: [Int32], _ cursor: inout Int, _ matchesEverything: (Int32) -> Bool
    ) -> ConditionKind {
        func nextText() -> Int32 {
            defer { cursor += 1 }
            return ruleTexts[cursor]
        }
        // (The ids appended to `conditions` as they come, and taken back off when a pattern
        // matches everything: no list of them made per rule.)
        let start = conditions.count
        let isFrame: Bool
        var everything = false
        switch condition {
        case .ifDomain(let domains), .unlessDomain(let domains):
            isFrame = false
            for _ in domains {
                let text = nextText()
                conditions.append(UInt32(topIDs.id(for: text, rule: rule)))
            }
        case .ifTopURL(let patterns), .unlessTopURL(let patterns), .ifFrameURL(let patterns), .unlessFrameURL(let patterns):
            isFrame = if case .ifFrameURL = condition { true } else if case .unlessFrameURL = condition { true } else { false }
            for _ in patterns {
                let text = nextText()
                if matchesEverything(text) {
                    everything = true
                } else if isFrame {
                    conditions.append(UInt32(frameIDs.id(for: text, rule: rule)))
                } else {
                    conditions.append(UInt32(topIDs.id(for: text, rule: rule)))
                }
            }
        }
        if everything {
            conditions.removeSubrange(start...)
            return condition.isPositive ? .none : .never
        }
        return switch (isFrame, condition.isPositive) {
        case (false, true): .ifTopURL
        case (false, false): .unlessTopURL
        case (true, true): .ifFrameURL
        case (true, false): .unlessFrameURL
        }
    }

    /// The actions of `rules` and each record's action location, as MatchOutcome.swift defines
    /// them. Static, over what it reads and writes alone: it runs on another thread while the url
    /// patterns are planned, so that it adds nothing to the compile's serial part.
    static func assignActionLocations(_ rules: [Rule], _ records: inout [RuleRecord]) -> [Action] {
        var actions: [Action] = []
        // Per segment: the location of each (action, flags) of the rules without a condition, and
        // the css-display-none batches (whole trigger -> selectors and rules), in first-rule order.
        var shared: [SharedKey: UInt32] = [:]
        var batchOfTrigger: [Trigger: Int] = [:]
        var batches: [(selectors: [String], slots: [Int])] = []
        // The last (action, flags) and its location: consecutive rules most often share them
        // (a converter writes a list's rules grouped), and comparing costs less than hashing.
        var lastShared: (key: SharedKey, location: UInt32)?
        func closeSegment() {
            for batch in batches {
                let location = UInt32(actions.count)
                actions.append(.cssDisplayNone(selector: batch.selectors.joined(separator: ",")))
                for slot in batch.slots { records[slot].actionLocation = location }
            }
            batchOfTrigger.removeAll()
            batches.removeAll()
            shared.removeAll()
            lastShared = nil
        }
        func listAlone(_ action: Action, slot: Int) {
            records[slot].actionLocation = UInt32(actions.count)
            actions.append(action)
        }
        // (The rules read in place, a field at a time: a rule copied out of the array retains and
        // releases each of its strings and lists.)
        rules.withUnsafeBufferPointer { rules in
            for slot in rules.indices {
                switch records[slot].role {
                case .ignorePreviousRules, .ignoreFollowingRules:
                    closeSegment()
                case .globalStyleSheet:
                    break
                case .listed, .makeHTTPS:
                    if rules[slot].trigger.condition != nil {
                        listAlone(rules[slot].action, slot: slot)
                    } else if case .cssDisplayNone(let selector) = rules[slot].action {
                        let (batch, isNew) = batchOfTrigger.value(of: rules[slot].trigger, storing: batches.count, absent: -1)
                        if isNew { batches.append(([], [])) }
                        batches[batch].selectors.append(selector)
                        batches[batch].slots.append(slot)
                    } else {
                        let key = SharedKey(action: rules[slot].action, flags: rules[slot].trigger.flags)
                        if let lastShared, lastShared.key == key {
                            records[slot].actionLocation = lastShared.location
                            continue
                        }
                        let (location, isNew) = shared.value(of: key, storing: UInt32(actions.count), absent: .max)
                        if isNew { actions.append(rules[slot].action) }
                        records[slot].actionLocation = location
                        lastShared = (key, location)
                    }
                }
            }
        }
        closeSegment()
        return actions
    }

    /// What the thread that builds the condition programs is handed: their patterns, and the rules
    /// and records whose action locations it assigns first.
    struct ConditionThreadWork: Sendable {
        var patterns: [[AcceptedPattern]]
        var rules: [Rule]
        var records: [RuleRecord]
    }

    struct SharedKey: Hashable {
        var action: Action
        var flags: Trigger.Flags
    }

    mutating func build(limits: AutomataLimits, minimizing: Bool) throws(CompileError) -> CompiledFile {
        // The condition programs (a big list's are mostly one large group: one core)
        // are built on a thread of their own while the url patterns are planned, a serial step;
        // the url automata come after both, so that the condition automata never add to theirs
        // in memory. Each kind's parsed patterns are handed over and let go as its programs are
        // built. A failure is still reported for the url patterns first.
        // The rules' action locations are assigned on the same thread, before the condition
        // programs (EasyList: both together still end before the url patterns' plan); the list
        // is let go there, once they are.
        let conditionPatterns = [topIDs.takePatterns(), frameIDs.takePatterns()]
        let conditionThreadWork = ConditionThreadWork(patterns: conditionPatterns, rules: list.rules, records: records)
        let marker = timer.marker
        list = RuleList(rules: [])
        records = []
        let (conditionPrograms, urlPlan) = Parallel.both(consume conditionThreadWork) { (given: consuming ConditionThreadWork) in
            var work = given
            // (The action table is the file's: emitting. The list let go is parsing's output.)
            var timer = PhaseTimer(marker: marker)
            let assigning = timer.begin(.emit)
            let actions = Builder.assignActionLocations(work.rules, &work.records)
            timer.end(assigning)
            let letting = timer.begin(.parse)
            work.rules = []  // (the list let go before the condition automata are built)
            timer.end(letting)
            let top = PartitionedPrograms(work.patterns.removeFirst(), timer: PhaseTimer(marker: marker), limits: limits, minimizing: minimizing)
            let frame = PartitionedPrograms(work.patterns.removeFirst(), timer: PhaseTimer(marker: marker), limits: limits, minimizing: minimizing)
            return (top: top, frame: frame, records: work.records, actions: actions, timer: timer)
        } _: {
            var timer = PhaseTimer(marker: marker)
            let plan = PartitionedPrograms.plan(urlIDs.takePatterns(), limits: limits, timer: &timer)
            return (plan: plan, timer: timer)
        }
        records = conditionPrograms.records
        actions = conditionPrograms.actions
        report.conditionThread.add(conditionPrograms.timer)
        let url = PartitionedPrograms(urlPlan.plan, timer: urlPlan.timer, limits: limits, minimizing: minimizing)
        // (The program sets and the patterns' rules put in the file's shape: emitting.)
        let emitting = timer.begin(.emit)
        defer { timer.end(emitting) }
        let urlPrograms = try finish(url, \.urlIDs, into: \.url, timedIn: \.timer)
        let topPrograms = try finish(conditionPrograms.top, \.topIDs, into: \.topURL, timedIn: \.report.conditionThread)
        let framePrograms = try finish(conditionPrograms.frame, \.frameIDs, into: \.frameURL, timedIn: \.report.conditionThread)
        let (patternRuleStart, patternRules, universal) = Self.rulesOfPatterns(urlPatternOfRule, patternCount: urlIDs.count)
        report.urlPatterns = urlIDs.count
        report.universalRules = universal.count
        report.topPatterns = topIDs.count
        report.framePatterns = frameIDs.count
        return CompiledFile(
            urlPrograms: urlPrograms, topURLPrograms: topPrograms, framePrograms: framePrograms,
            urlPatternCount: urlIDs.count, topPatternCount: topIDs.count,
            framePatternCount: frameIDs.count, patternRuleStart: patternRuleStart, patternRules: patternRules,
            universalRules: universal, rules: records, conditions: conditions, actions: actions)
    }

    /// The rule slots of each url pattern `p`, `rules[start[p] ..< start[p + 1]]` in slot order,
    /// and those of the rules whose url-filter matches everything: each pattern's rules counted,
    /// then each slot put in its place (no list per pattern: a big list has tens of thousands).
    static func rulesOfPatterns(_ patternOfRule: [Int?], patternCount: Int) -> (start: [UInt32], rules: [UInt32], universal: [UInt32]) {
        var start = [UInt32](repeating: 0, count: patternCount + 1)
        var universal: [UInt32] = []
        for (slot, pattern) in patternOfRule.enumerated() {
            if let pattern { start[pattern + 1] += 1 } else { universal.append(UInt32(slot)) }
        }
        for pattern in 0..<patternCount { start[pattern + 1] += start[pattern] }
        var next = start
        var rules = [UInt32](repeating: 0, count: Int(start[patternCount]))
        for (slot, pattern) in patternOfRule.enumerated() {
            guard let pattern else { continue }
            rules[Int(next[pattern])] = UInt32(slot)
            next[pattern] += 1
        }
        return (start, rules, universal)
    }

    /// One kind's programs and figures, or its first failure; its time added to `timeline`'s (the
    /// thread's it was built on).
    mutating func finish(
        _ built: PartitionedPrograms, _ ids: KeyPath<Builder, PatternIDs>, into figures: WritableKeyPath<CompilationReport, CompilationReport.Automata>,
        timedIn timeline: WritableKeyPath<Builder, PhaseTimer>
    ) throws(CompileError) -> ProgramSet {
        self[keyPath: timeline].add(built.timer)
        if let failure = built.partition.failures.first(where: \.patterns.isEmpty) {
            throw .listTooComplex(patterns: figures == \.url ? "url" : figures == \.topURL ? "top-url" : "frame-url", failure)
        }
        if let failure = built.partition.failures.first {
            let id = Int(failure.patterns[0].rawValue)
            throw .patternTooComplex(pattern: self[keyPath: ids].sources[id], rules: self[keyPath: ids].users(of: id), failure)
        }
        let partition = built.partition
        report[keyPath: figures].dfas = partition.all.count
        report[keyPath: figures].stages = partition.stages.count
        report[keyPath: figures].nfaStates = partition.nfaStates
        report[keyPath: figures].statesBeforeMinimization = partition.statesBeforeMinimization
        report[keyPath: figures].states = partition.states
        report[keyPath: figures].transitions = partition.transitions
        report[keyPath: figures].domains = built.domains.count
        report[keyPath: figures].domainConditions = built.domainConditions.count
        // (Written, not run here: the evaluator prepares the sets it runs.)
        return ProgramSet(
            partition, domains: built.domains, domainConditions: built.domainConditions, hostContexts: built.hostContexts,
            preparing: false)
    }
}

extension Dictionary where Value: Equatable {
    /// The value of `key`, or `new` stored as its value when it has none (then `isNew`): the key
    /// hashed once, where a read then a write would hash it twice. `absent` is never a value.
    fileprivate mutating func value(of key: Key, storing new: Value, absent: Value) -> (value: Value, isNew: Bool) {
        func take(_ value: inout Value) -> (value: Value, isNew: Bool) {
            if value != absent { return (value, false) }
            value = new
            return (new, true)
        }
        return take(&self[key, default: absent])
    }
}

/// The programs of one kind's patterns (consumed), as the partitioner made them, with its time.
struct PartitionedPrograms: Sendable {
    var partition: Partitioned<Program>
    var domains: DomainTable
    var domainConditions: DomainConditionTable
    var hostContexts: [HostContextTable]
    var timer: PhaseTimer

    /// The programs of one kind's patterns (consumed), planned then built: their time added to `timer`'s.
    init(_ patterns: consuming [AcceptedPattern], timer: PhaseTimer, limits: AutomataLimits, minimizing: Bool) {
        var timer = timer
        let plan = Self.plan(consume patterns, limits: limits, timer: &timer)
        self.init(consume plan, timer: timer, limits: limits, minimizing: minimizing)
    }

    /// The programs of one kind's plan (`plan`); `timer` has the planning's time.
    init(_ plan: consuming Planned, timer: PhaseTimer, limits: AutomataLimits, minimizing: Bool) {
        self.timer = timer
        let planned = consume plan
        domains = planned.domains
        domainConditions = planned.domainConditions
        hostContexts = planned.hostContexts
        partition = DFAPartitioner.build(planned.automata, limits: limits, minimizing: minimizing, phaseTimer: &self.timer) { Program($0) }
    }

    /// One kind's patterns: those of a domain table's shape in that table, the others planned
    /// into stages.
    struct Planned: Sendable {
        var automata: DFAPartitioner.Plan
        var domains: DomainTable
        var domainConditions: DomainConditionTable
        var hostContexts: [HostContextTable]
    }

    /// One kind's patterns (consumed) planned, numbered by their ids.
    static func plan(_ patterns: consuming [AcceptedPattern], limits: AutomataLimits, timer: inout PhaseTimer) -> Planned {
        var automata: [(id: PatternID, filter: URLFilter)] = []
        var domains: [(pattern: UInt32, domain: [UInt8], tail: [UInt8])] = []
        var domainConditions: [(pattern: UInt32, domain: [UInt8], subdomains: Bool)] = []
        var hosts = HostContextPlanner(minimumPatterns: limits.minimumPatternsPerHostContext)
        let planning = timer.begin(.plan)
        let patternCount = patterns.count
        for (id, pattern) in (consume patterns).enumerated() {
            switch consume pattern {
            case .host(let host):
                // (Read from its text as `DomainTable.split` reads a parse; a domain pattern as
                // `DomainConditionTable.split` does.)
                domains.append((UInt32(id), host.domain, DomainTable.encode(host.tail)))
            case .domain(let domain):
                domainConditions.append((UInt32(id), domain.domain, domain.subdomains))
            case .shaped(let shaped):
                // (`DomainTable.split` would not take it: its L is not AdGuard's, or its R's first
                // term is not a set within `/` and `:`.)
                switch hosts.take(UInt32(id), shaped) {
                case .domainTable(let domain, let tail): domains.append((UInt32(id), domain, tail))
                case .context: break
                case .none: automata.append((PatternID(id), AcceptedPattern.shaped(shaped).filter))
                }
            case .filter(let filter):
                if let (domain, tail) = DomainTable.split(filter) {
                    domains.append((UInt32(id), domain, tail))
                } else if let (domain, subdomains) = DomainConditionTable.split(filter) {
                    domainConditions.append((UInt32(id), domain, subdomains))
                } else {
                    switch hosts.take(UInt32(id), filter) {
                    case .domainTable(let domain, let tail): domains.append((UInt32(id), domain, tail))
                    case .context: break
                    case .none: automata.append((PatternID(id), filter))
                    }
                }
            }
        }
        // (Contexts too small for a table of their own go back to the automata, in pattern order.)
        let (smallContexts, contextGated) = hosts.settle()
        if !smallContexts.isEmpty { automata = (automata + smallContexts).sorted { $0.id < $1.id } }
        timer.end(planning)
        var plan = DFAPartitioner.plan(consume automata, patternCount: patternCount, limits: limits, phaseTimer: &timer)
        // Gates that are domains (`||` patterns with a loop after the domain) are the domain
        // table's: it reports gate `gateBase + g` where it finds group g's domain; the gates of
        // other converters' `||` patterns with a loop are their host contexts' (after the others).
        let tabling = timer.begin(.plan)
        for (group, gated) in plan.gated.enumerated() {
            if let domain = gated.domain { domains.append((UInt32(plan.gateBase + group), domain, [])) }
        }
        let hostContexts = hosts.tables(firstGate: plan.appendCallerGated(contextGated))
        // (The domain table's lookup index is made when its program set is prepared to run.)
        let tables = (DomainTable(domains, indexing: false), DomainConditionTable(domainConditions))
        (domains, domainConditions) = ([], [])  // (let go inside the stretch: the tables hold their bytes)
        timer.end(tabling)
        return Planned(automata: plan, domains: tables.0, domainConditions: tables.1, hostContexts: hostContexts)
    }
}
