// RuleListParser: JSON text -> RuleList, with WebKit's verdict.
//
// WebKit reads a list in two passes, and so do we: first the structure of every rule in order
// (the first structural error in any rule is the verdict), then the url-filter and condition
// patterns of the rules it kept (the first invalid pattern gives JSONInvalidRegex). Within a
// rule the trigger is read before the action, and within a trigger the keys are read in a fixed
// order (url-filter, case flags, resource-type, load-type, load-context, request-method, then the
// conditions), which decides which error a rule with several problems gets. A css-display-none
// rule whose selector does not parse is dropped silently, before its patterns are looked at.
// `check` goes on past the first error so a linter can show every problem; the verdict is still
// the first in WebKit's order. A SafariProfile answers for an older release (keys it does not
// read ignored, action types and flag values it does not know rejected, its rule limit); the
// default, the newest, restricts nothing. Tested by ContentRuleListTests/RuleListParserTests.swift,
// SafariProfileTests.swift and the compiler-error vectors.

public import URLFilterSyntax
import CSSSelectorSyntax
import URLStandard
import Parallelism
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Told where a rule list's JSON text is read (the JSON reader's share of parsing), on the thread
/// that reads it, when given to `RuleListParser.check`: an instruction counter's region markers (Benchmarks/Cost/CostRegion.swift) count
/// the reader apart from the rest of parsing. A list is read in stretches (the scan for its
/// elements, then each batch of elements onto a tape before the batch's rules are read from it),
/// each told.
public protocol JSONReadingMarker: AnyObject, Sendable {
    func beganReadingJSON()
    func endedReadingJSON()
}

public enum RuleListParser {
    /// WebKit rejects lists with more rules than this (the newest Safari's limit; a profile has its own).
    public static let maximumRuleCount = SafariProfile.newest.maximumRuleCount

    /// `read`, told to `marker` (when there is one) as a stretch of JSON reading.
    @inline(__always)
    static func readingJSON<T, E: Error>(_ marker: (any JSONReadingMarker)?, _ read: () throws(E) -> T) throws(E) -> T {
        guard let marker else { return try read() }
        marker.beganReadingJSON()
        defer { marker.endedReadingJSON() }
        return try read()
    }

    /// WebKit's verdict: the rule list, or the error WebKit reports.
    public static func parse(_ bytes: [UInt8]) -> Result<RuleList, ContentRuleListError> {
        check(bytes, collectingEveryError: false).verdict
    }

    public static func parse(_ text: String) -> Result<RuleList, ContentRuleListError> {
        parse(Array(text.utf8))
    }

    /// Everything a linter needs: the verdict, every error (in WebKit's order, the verdict first),
    /// and the status of every kept rule's url-filter.
    /// The bytes are consumed: a caller passing its last reference has them freed once the rules
    /// are read, before the patterns are parsed.
    /// `profile`: the Safari release to answer for (SafariProfile.swift); the newest by default.
    /// `jsonMarker`: told each stretch of JSON reading, on the thread that reads it (nil: none).
    public static func check(
        _ bytes: consuming [UInt8], collectingEveryError: Bool = true, profile: SafariProfile = .newest,
        jsonMarker: (any JSONReadingMarker)? = nil
    ) -> RuleListCheck {
        check(bytes, collectingEveryError: collectingEveryError, readingApart: true, profile: profile, jsonMarker: jsonMarker)
    }

    /// `readingApart`: read a valid array's elements apart, on every core (false: the whole text's
    /// tape on one core, for tests that hold the two to each other).
    static func check(
        _ bytes: consuming [UInt8], collectingEveryError: Bool, readingApart: Bool, profile: SafariProfile = .newest,
        jsonMarker: (any JSONReadingMarker)? = nil
    ) -> RuleListCheck {
        // The rules first, in a function of their own: the text and its tapes are let go before
        // the patterns are parsed, so that their trees do not sit among the freed allocations.
        let rules: [Rule]
        let dropped: [DroppedRule]
        var errors: [ContentRuleListError]
        switch readRules(
            consume bytes, collectingEveryError: collectingEveryError, readingApart: readingApart, profile: profile,
            jsonMarker: jsonMarker
        ) {
        case .failure(let failure): return RuleListCheck(failure: failure)
        case .success(let read): (rules, dropped, errors) = read
        }
        if errors.isEmpty && rules.isEmpty {
            errors.append(ContentRuleListError(
                .jsonContainsNoRules, detail: dropped.isEmpty ? nil : "every rule was dropped for an invalid selector"))
        }

        // Patterns, of the kept rules only; after every structural error. Each distinct text is
        // parsed once (on every core), then the rules are read in order for their verdicts.
        var statuses: [URLFilterParseStatus] = []
        var patterns = PatternTable()
        if errors.isEmpty || collectingEveryError {
            patterns = PatternTable(rules: rules)
            statuses.reserveCapacity(rules.count)
            // Read from the table's flat numbers and statuses: a rule itself only when one of its
            // patterns is in error (for the error's key path).
            // (The rules and the table's arrays read in place: a rule's condition copied out of the
            // array is retained and released.)
            let table = patterns
            rules.withUnsafeBufferPointer { rules in
                table.ruleStarts.withUnsafeBufferPointer { ruleStarts in
                    table.numbersOfRules.withUnsafeBufferPointer { numbers in
                        table.statuses.withUnsafeBufferPointer { patternStatuses in
                            for index in rules.indices {
                                let start = Int(ruleStarts[index]), end = Int(ruleStarts[index + 1])
                                statuses.append(patternStatuses[Int(numbers[start])])
                                let hasDomainWithNUL = PatternChecker.hasDomainWithNUL(rules[index].trigger.condition)
                                let hasPatternInError = (start..<end).contains { !patternStatuses[Int(numbers[$0])].isAccepted }
                                guard hasDomainWithNUL || hasPatternInError else { continue }
                                let domainErrors = hasDomainWithNUL ? PatternChecker.domainErrors(of: rules[index].trigger) : []
                                guard !domainErrors.isEmpty || hasPatternInError else { continue }
                                for var error in PatternChecker.errors(of: rules[index].trigger, in: table, numbers: start..<end) + domainErrors {
                                    error.ruleIndex = rules[index].index.rawValue
                                    errors.append(error)
                                }
                                if !collectingEveryError { break }
                            }
                        }
                    }
                }
            }
        }
        let list = RuleList(rules: rules, droppedRules: dropped)
        return RuleListCheck(
            verdict: errors.first.map { .failure($0) } ?? .success(list),
            errors: errors, list: list, urlFilterStatuses: statuses, patterns: patterns)
    }
}

extension RuleListParser {
    /// The structure of every rule (the verdict's first part): the rules kept, those dropped for
    /// their selector and the structural errors; or a failure of the list as a whole.
    fileprivate static func readRules(
        _ bytes: consuming [UInt8], collectingEveryError: Bool, readingApart: Bool, profile: SafariProfile,
        jsonMarker: (any JSONReadingMarker)?
    ) -> Result<(rules: [Rule], dropped: [DroppedRule], errors: [ContentRuleListError]), ContentRuleListError> {
        if readingApart, let read = readRulesApart(bytes, collectingEveryError: collectingEveryError, profile: profile, jsonMarker: jsonMarker) {
            return .success(read)
        }
        let maximumRuleCount = profile.maximumRuleCount
        return bytes.withUnsafeBufferPointer { text in
            let tape = JSONTape()
            do throws(JSONSyntaxError) {
                try readingJSON(jsonMarker) { () throws(JSONSyntaxError) in try JSONReader.read(text, depth: 0, into: tape) }
            } catch {
                return .failure(ContentRuleListError(.jsonInvalid, detail: error.description))
            }
            return tape.withRoot(in: text) { json in
                guard json.kind == .array else {
                    return .failure(ContentRuleListError(.jsonTopLevelStructureNotAnArray, detail: "found \(json.kindDescription)"))
                }
                guard json.count <= maximumRuleCount else {
                    return .failure(ContentRuleListError(
                        .jsonTooManyRules, detail: "\(json.count) rules; the limit is \(maximumRuleCount)"))
                }
                var read = ReadRules(profile: profile)
                read.rules.reserveCapacity(json.count)
                for (position, element) in json.elements.enumerated() where !read.read(element, at: position) && !collectingEveryError {
                    break
                }
                return .success((read.rules, read.dropped, read.errors))
            }
        }
    }
}

/// The rules read from a list's elements, those dropped for their selector and the structural
/// errors, each in the list's order.
private struct ReadRules {
    var rules: [Rule] = []
    var dropped: [DroppedRule] = []
    var errors: [ContentRuleListError] = []
    /// The profile when it restricts anything (nil: it reads as the newest does).
    let restrictingProfile: RestrictingProfile?

    init(profile: SafariProfile) {
        restrictingProfile = RestrictingProfile(profile)
    }

    /// Reads element `position` of the list's array; false when it is in error.
    mutating func read(_ element: JSONTape.Value, at position: Int) -> Bool {
        var isInError = false
        if let rule = keptRule(element, at: position, isInError: &isInError) { rules.append(rule) }
        return !isInError
    }

    /// Reads element `position` of the list's array: its rule when it is kept, for the caller to
    /// keep (not in `rules`); nil when it is dropped or in error, which is recorded here.
    @inline(__always)
    mutating func keptRule(_ element: JSONTape.Value, at position: Int, isInError: inout Bool) -> Rule? {
        do throws(ContentRuleListError) {
            guard element.kind == .object else {
                throw ContentRuleListError(.jsonInvalidRule, detail: "found \(element.kindDescription)")
            }
            switch try RuleReader.read(element, index: RuleIndex(position), profile: restrictingProfile) {
            case .kept(let rule): return rule
            case .dropped(let rule): dropped.append(rule)
            }
            return nil
        } catch {
            var error = error
            error.ruleIndex = position
            errors.append(error)
            isInError = true
            return nil
        }
    }
}

extension RuleListParser {
    /// The rules of a valid JSON array read element by element, in chunks on every core: each
    /// element is read onto the chunk's tape and from there into its rule. Nil when the text is not valid JSON or not an
    /// array of at most `maximumRuleCount` elements: `readRules` then reads it whole, for the
    /// error WebKit gives (the position of a syntax error is the whole text's).
    private static func readRulesApart(
        _ bytes: borrowing [UInt8], collectingEveryError: Bool, profile: SafariProfile, jsonMarker: (any JSONReadingMarker)?
    ) -> (rules: [Rule], dropped: [DroppedRule], errors: [ContentRuleListError])? {
        struct Chunk {
            var read: ReadRules
            var isJSON = true
            /// The chunk's kept rules, in order (its own room, one place an element): moved out
            /// into the list's rules, not copied.
            var kept: UnsafeMutablePointer<Rule>?
            var keptCount = 0
        }
        return bytes.withUnsafeBufferPointer { buffer -> (rules: [Rule], dropped: [DroppedRule], errors: [ContentRuleListError])? in
            guard let elements = readingJSON(jsonMarker, { JSONReader.topLevelElements(buffer) }), elements.count <= profile.maximumRuleCount else {
                return nil
            }
            let size = 1_024
            // Elements read onto a tape at once: a batch's tape and text stay in the level-1 cache
            // while its rules are read.
            let batchSize = 64
            let chunkCount = (elements.count + size - 1) / size
            let chunks = UnsafeMutableBufferPointer<Chunk>.allocate(capacity: chunkCount)
            chunks.initialize(repeating: Chunk(read: ReadRules(profile: profile)))
            defer {
                for chunk in chunks {
                    guard let kept = chunk.kept else { continue }
                    kept.deinitialize(count: chunk.keptCount)
                    kept.deallocate()
                }
                chunks.deinitialize()
                chunks.deallocate()
            }
            nonisolated(unsafe) let text = buffer
            nonisolated(unsafe) let results = chunks
            Parallel.forEach(iterations: chunkCount) { chunkIndex in
                var chunk = Chunk(read: ReadRules(profile: profile))
                let tape = JSONTape()
                var roots: [Int] = []
                // A batch of elements onto the tape, then their rules from there. After a first
                // error when not collecting every error, the elements are still read: a syntax
                // error anywhere decides the verdict before any rule does.
                var stopped = false
                let positions = chunkIndex * size..<min(chunkIndex * size + size, elements.count)
                let kept = UnsafeMutablePointer<Rule>.allocate(capacity: positions.count)
                chunk.kept = kept
                for batchStart in stride(from: positions.lowerBound, to: positions.upperBound, by: batchSize) {
                    let batch = batchStart..<min(batchStart + batchSize, positions.upperBound)
                    do throws(JSONSyntaxError) {
                        try readingJSON(jsonMarker) { () throws(JSONSyntaxError) in try JSONReader.readElements(text, elements[batch], into: tape, roots: &roots) }
                    } catch {
                        chunk.isJSON = false
                        break
                    }
                    if stopped { continue }
                    for (position, root) in zip(batch, roots) {
                        var isInError = false
                        if let rule = tape.withValue(at: root, in: text, { chunk.read.keptRule($0, at: position, isInError: &isInError) }) {
                            (kept + chunk.keptCount).initialize(to: rule)
                            chunk.keptCount += 1
                        }
                        if isInError {
                            stopped = !collectingEveryError
                            if stopped { break }
                        }
                    }
                }
                results[chunkIndex] = chunk
            }
            guard chunks.allSatisfy(\.isJSON) else { return nil }
            // Not collecting every error, the rules end with the first error, as `readRules`'s do.
            var taken = chunkCount
            if !collectingEveryError, let first = chunks.firstIndex(where: { !$0.read.errors.isEmpty }) { taken = first + 1 }
            var read = ReadRules(profile: profile)
            let rules = [Rule](unsafeUninitializedCapacity: chunks[..<taken].reduce(0) { $0 + $1.keptCount }) { rules, count in
                for index in 0..<taken where chunks[index].keptCount > 0 {
                    (rules.baseAddress! + count).moveInitialize(from: chunks[index].kept!, count: chunks[index].keptCount)
                    count += chunks[index].keptCount
                    chunks[index].keptCount = 0
                }
            }
            for chunk in chunks[..<taken] {
                read.dropped += chunk.read.dropped
                read.errors += chunk.read.errors
            }
            return (rules, read.dropped, read.errors)
        }
    }
}

/// The outcome of checking a list.
public struct RuleListCheck: Sendable {
    /// What WebKit says: the list, or its first error.
    public var verdict: Result<RuleList, ContentRuleListError>
    /// Every error found, in WebKit's order (empty when the list compiles).
    public var errors: [ContentRuleListError]
    /// The rules read, whatever the verdict (those with structural errors left out).
    public var list: RuleList
    /// The url-filter status of each rule of `list.rules`, in order (when patterns were checked).
    public var urlFilterStatuses: [URLFilterParseStatus]
    /// The patterns of `list.rules`, parsed (empty when patterns were not checked); the compiler
    /// takes them instead of parsing them again.
    public var patterns: PatternTable

    init(failure: ContentRuleListError) {
        verdict = .failure(failure)
        errors = [failure]
        list = RuleList(rules: [])
        urlFilterStatuses = []
        patterns = PatternTable()
    }

    init(
        verdict: Result<RuleList, ContentRuleListError>, errors: [ContentRuleListError], list: RuleList,
        urlFilterStatuses: [URLFilterParseStatus], patterns: PatternTable
    ) {
        self.verdict = verdict
        self.errors = errors
        self.list = list
        self.urlFilterStatuses = urlFilterStatuses
        self.patterns = patterns
    }
}

// MARK: - Patterns

private enum PatternChecker {
    /// The errors of a trigger's url-filter and condition patterns, whose parses are `table`'s
    /// numbers at `numbers` of `numbersOfRules`.
    static func errors(of trigger: Trigger, in table: PatternTable, numbers: Range<Int>) -> [ContentRuleListError] {
        var errors: [ContentRuleListError] = []
        for (position, at) in numbers.enumerated() {
            guard case .failure(let error) = table[table.numbersOfRules[at]] else { continue }
            // The first number is the url-filter's, the others its condition's patterns, in order.
            let keyPath = position == 0 ? "trigger.url-filter" : "trigger.\(trigger.condition?.key ?? "")[\(position - 1)]"
            errors.append(ContentRuleListError(.jsonInvalidRegex, keyPath: keyPath, patternError: error))
        }
        return errors
    }
}

extension PatternChecker {
    /// The errors of a trigger's domains. WebKit tests a domain with a pattern made of it
    /// (DomainPattern.swift), and a NUL in a domain, which the JSON reader and the domain check
    /// let through, is the end of the URL there: WebKit (2.50.6) rejects the list with
    /// JSONInvalidRegex, MisplacedEndOfLine, on that domain's pattern. Only a domain holding a
    /// NUL is parsed here; any other domain's pattern parses.
    /// Tested by ContentRuleListTests (RuleListParserTests) and FuzzingTests (ReaderEntryPointTests).
    static func domainErrors(of trigger: Trigger) -> [ContentRuleListError] {
        guard hasDomainWithNUL(trigger.condition) else { return [] }
        guard let condition = trigger.condition else { return [] }
        var errors: [ContentRuleListError] = []
        for (position, domain) in condition.values.enumerated() where domain.utf8.contains(0) {
            guard case .failure(let error) = URLFilterParser.parse(DomainPattern.source(forDomain: domain), isCaseSensitive: false) else {
                continue
            }
            errors.append(ContentRuleListError(.jsonInvalidRegex, keyPath: "trigger.\(condition.key)[\(position)]", patternError: error))
        }
        return errors
    }

    /// Whether `condition` is a domain condition with a domain holding a NUL (read in place).
    static func hasDomainWithNUL(_ condition: Condition?) -> Bool {
        switch condition {
        case .ifDomain(let domains), .unlessDomain(let domains):
            domains.contains { domain in
                domain.utf8.withContiguousStorageIfAvailable { $0.baseAddress.map { memchr($0, 0, domain.utf8.count) != nil } ?? false } ?? domain.utf8.contains(0)
            }
        default: false
        }
    }
}

// MARK: - One rule

/// The trigger keys the parser reads, in WebKit's order (`SafariProfile.allTriggerKeys`).
private enum TriggerKey: Int, CaseIterable, Comparable {
    case urlFilter, urlFilterIsCaseSensitive, topURLFilterIsCaseSensitive, frameURLFilterIsCaseSensitive
    case resourceType, loadType, loadContext, requestMethod
    case ifDomain, unlessDomain, ifTopURL, unlessTopURL, ifFrameURL, unlessFrameURL

    private static let allNames: [StaticString] = [
        "url-filter", "url-filter-is-case-sensitive", "top-url-filter-is-case-sensitive", "frame-url-filter-is-case-sensitive",
        "resource-type", "load-type", "load-context", "request-method",
        "if-domain", "unless-domain", "if-top-url", "unless-top-url", "if-frame-url", "unless-frame-url",
    ]
    static let names = JSONNames(allNames.map { "\($0)" })

    var name: StaticString { Self.allNames[rawValue] }

    static func < (lhs: TriggerKey, rhs: TriggerKey) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A profile that restricts something, held by reference: reading a rule copies a reference (or
/// nil, for the newest), not the profile's sets.
private final class RestrictingProfile: Sendable {
    let profile: SafariProfile

    /// Nil when `profile` restricts nothing.
    init?(_ profile: SafariProfile) {
        guard profile.triggerKeys != nil || profile.actionTypes != nil || !profile.flagValues.isEmpty else { return nil }
        self.profile = profile
    }
}

/// A trigger's keys as one Safari release reads them: a key it does not read is absent. The
/// trigger's members are matched to the keys in one pass.
private struct TriggerKeys {
    let found: JSONNames.Found
    /// The profile when it restricts anything (nil: the newest, which restricts nothing).
    let restrictingProfile: RestrictingProfile?

    init(_ object: JSONTape.Value, profile: RestrictingProfile?) {
        found = object.members(named: TriggerKey.names)
        restrictingProfile = profile
    }

    /// The key's value, whatever the release.
    func value(_ key: TriggerKey) -> JSONTape.Value? { found[key.rawValue] }

    /// Whether the trigger has a member named as one of `keys`, whatever the release.
    func hasAny(_ keys: ClosedRange<TriggerKey>) -> Bool {
        found.numbers & (UInt16(1) << (keys.upperBound.rawValue + 1) - UInt16(1) << keys.lowerBound.rawValue) != 0
    }

    /// Whether the trigger has a member named as a condition key, whatever the release (most
    /// triggers have none).
    var hasConditionKey: Bool { hasAny(.ifDomain ... .unlessFrameURL) }

    /// (Inlined where it is asked: a trigger with any key besides its url-filter asks for seven.)
    @inline(__always)
    subscript(key: TriggerKey) -> JSONTape.Value? {
        guard found.contains(key.rawValue), let value = found[key.rawValue] else { return nil }
        if let restricting = restrictingProfile, !restricting.profile.reads("\(key.name)") { return nil }
        return value
    }
}

/// The flag names of each flags key, for matching as bytes (in the order of the types' `jsonNames`).
extension ResourceTypes {
    fileprivate static let jsonNameSet = JSONNames(jsonNames.map(\.name))
}

extension LoadTypes {
    fileprivate static let jsonNameSet = JSONNames(jsonNames.map(\.name))
}

extension LoadContexts {
    fileprivate static let jsonNameSet = JSONNames(jsonNames.map(\.name))
}

/// The action types, in the order of `Action.typeNames`.
private enum ActionType: Int, CaseIterable {
    case block, blockCookies, cssDisplayNone, ignorePreviousRules, ignoreFollowingRules, makeHTTPS, notify, redirect, modifyHeaders

    static let names: JSONNames = {
        assert(Action.typeNames.count == allCases.count && Action.typeNames[cssDisplayNone.rawValue] == "css-display-none")
        return JSONNames(Action.typeNames)
    }()
}

private enum ReadRule {
    case kept(Rule)
    case dropped(DroppedRule)
}

private enum RuleReader {
    /// `profile`: the profile when it restricts anything (nil: the newest).
    static func read(_ object: JSONTape.Value, index: RuleIndex, profile: RestrictingProfile?) throws(ContentRuleListError) -> ReadRule {
        let trigger = try readTrigger(object["trigger"], profile: profile)
        let action = try readAction(object["action"], profile: profile)
        if case .cssDisplayNone(let selector) = action, let problem = CSSSelectorValidator.validate(selector) {
            return .dropped(DroppedRule(index: index, selector: selector, reason: problem.message, offset: problem.offset))
        }
        return .kept(Rule(index: index, trigger: trigger, action: action))
    }

    // MARK: Trigger

    static func readTrigger(_ value: JSONTape.Value?, profile: RestrictingProfile?) throws(ContentRuleListError) -> Trigger {
        guard let object = value, object.kind == .object else {
            throw ContentRuleListError(.jsonInvalidTrigger, keyPath: "trigger", detail: found(value))
        }
        let keys = TriggerKeys(object, profile: profile)
        guard let urlFilter = keys.value(.urlFilter)?.stringValue, !urlFilter.isEmpty else {
            let value = keys.value(.urlFilter)
            throw ContentRuleListError(
                .jsonInvalidURLFilterInTrigger, keyPath: "trigger.url-filter",
                detail: value?.stringValue == "" ? "it is empty" : found(value))
        }
        // Most triggers have a url-filter alone (made where it is returned).
        guard keys.hasAny(.urlFilterIsCaseSensitive ... .unlessFrameURL) else { return Trigger(urlFilter: urlFilter) }
        var trigger = Trigger(urlFilter: urlFilter)
        // Booleans that are not booleans are ignored; so is every key the profile's release does not read.
        trigger.urlFilterIsCaseSensitive = keys[.urlFilterIsCaseSensitive]?.boolValue ?? false
        trigger.topURLFilterIsCaseSensitive = keys[.topURLFilterIsCaseSensitive]?.boolValue ?? false
        trigger.frameURLFilterIsCaseSensitive = keys[.frameURLFilterIsCaseSensitive]?.boolValue ?? false

        if let value = keys[.resourceType] {
            trigger.resourceTypes = try readFlags(value, keys, .resourceType, ResourceTypes.jsonNames, ResourceTypes.jsonNameSet)
        }
        if let value = keys[.loadType] {
            trigger.loadTypes = try readFlags(value, keys, .loadType, LoadTypes.jsonNames, LoadTypes.jsonNameSet)
        }
        if let value = keys[.loadContext] {
            trigger.loadContexts = try readFlags(value, keys, .loadContext, LoadContexts.jsonNames, LoadContexts.jsonNameSet)
        }

        if let value = keys[.requestMethod] {
            // Compared without regard to ASCII case: "GET" is accepted.
            guard let name = value.stringValue, let method = RequestMethod(rawValue: name.asciiLowercased) else {
                throw ContentRuleListError(
                    .jsonInvalidRequestMethod, keyPath: "trigger.request-method",
                    detail: value.stringValue.map { "\"\($0)\"" } ?? found(value))
            }
            trigger.requestMethod = method
        }

        guard keys.hasConditionKey else { return trigger }
        for (key, make) in conditionKeys {
            guard let value = keys[key] else { continue }
            if let existing = trigger.condition {
                throw ContentRuleListError(
                    .jsonMultipleConditions, keyPath: "trigger.\(key.name)", detail: "the trigger already has \(existing.key)")
            }
            let values = try readConditionList(value, key: key.name, isDomainList: !make([]).isPattern)
            trigger.condition = make(values)
        }
        return trigger
    }

    /// The condition keys in the order WebKit reads them.
    static let conditionKeys: [(key: TriggerKey, make: @Sendable ([String]) -> Condition)] = [
        (.ifDomain, Condition.ifDomain), (.unlessDomain, Condition.unlessDomain),
        (.ifTopURL, Condition.ifTopURL), (.unlessTopURL, Condition.unlessTopURL),
        (.ifFrameURL, Condition.ifFrameURL), (.unlessFrameURL, Condition.unlessFrameURL),
    ]

    /// The flags of the flags array `value` of `key`, each name matched as bytes against the
    /// key's names.
    static func readFlags<Flags: OptionSet>(
        _ value: JSONTape.Value, _ keys: TriggerKeys, _ key: TriggerKey, _ allNames: [(name: String, types: Flags)], _ nameSet: JSONNames
    ) throws(ContentRuleListError) -> Flags {
        guard value.kind == .array else {
            throw ContentRuleListError(.jsonInvalidTriggerFlagsArray, keyPath: "trigger.\(key.name)", detail: found(value))
        }
        let profile = keys.restrictingProfile.flatMap { $0.profile.flagValues.isEmpty ? nil : $0.profile }
        var flags: Flags = []
        for (position, element) in value.elements.enumerated() {
            if let bytes = element.stringBytes, let number = nameSet.number(of: bytes),
               profile?.knowsFlag(allNames[number].name, of: "\(key.name)") ?? true {
                flags.formUnion(allNames[number].types)
                continue
            }
            let names = profile.map { profile in allNames.filter { profile.knowsFlag($0.name, of: "\(key.name)") } } ?? allNames
            let known = names.map(\.name).joined(separator: ", ")
            throw ContentRuleListError(
                .jsonInvalidStringInTriggerFlagsArray, keyPath: "trigger.\(key.name)[\(position)]",
                detail: (element.stringValue.map { "\"\($0)\"" } ?? found(element)) + "; expected one of \(known)")
        }
        return flags
    }

    static func readConditionList(_ value: JSONTape.Value, key: StaticString, isDomainList: Bool) throws(ContentRuleListError) -> [String] {
        guard value.kind == .array else {
            throw ContentRuleListError(.jsonInvalidConditionList, keyPath: "trigger.\(key)", detail: found(value))
        }
        guard value.count > 0 else {
            throw ContentRuleListError(.jsonInvalidConditionList, keyPath: "trigger.\(key)", detail: "the list is empty")
        }
        var values: [String] = []
        values.reserveCapacity(value.count)
        var firstNotLowerCaseASCII: Int?
        for (position, element) in value.elements.enumerated() {
            guard let bytes = element.stringBytes, !bytes.isEmpty else {
                throw ContentRuleListError(
                    .jsonInvalidConditionList, keyPath: "trigger.\(key)[\(position)]",
                    detail: element.stringValue == "" ? "an empty string" : found(element))
            }
            if isDomainList, firstNotLowerCaseASCII == nil, !isLowerCaseASCII(bytes) { firstNotLowerCaseASCII = position }
            values.append(String(decoding: bytes, as: UTF8.self))
        }
        // Domains are checked once the whole list has been read: `["A", 5]` is an invalid list.
        if let position = firstNotLowerCaseASCII {
            throw ContentRuleListError(
                .jsonDomainNotLowerCaseASCII, keyPath: "trigger.\(key)[\(position)]", detail: "\"\(values[position])\"")
        }
        return values
    }

    /// Whether `bytes` are all ASCII and none an upper-case letter.
    static func isLowerCaseASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }

    // MARK: Action

    static func readAction(_ value: JSONTape.Value?, profile restricting: RestrictingProfile?) throws(ContentRuleListError) -> Action {
        guard let object = value, object.kind == .object else {
            throw ContentRuleListError(.jsonInvalidAction, keyPath: "action", detail: found(value))
        }
        let typeValue = object["type"]
        if let profile = restricting?.profile, profile.actionTypes != nil, let type = typeValue?.stringValue, !profile.knowsAction(type) {
            throw ContentRuleListError(
                .jsonInvalidActionType, keyPath: "action.type",
                detail: "\"\(type)\" is not an action type in Safari \(profile.version)")
        }
        // The type's bytes matched against the names (no String made of it).
        switch typeValue?.stringBytes.flatMap(ActionType.names.number(of:)).flatMap(ActionType.init(rawValue:)) {
        case .block: return .block
        case .blockCookies: return .blockCookies
        case .ignorePreviousRules: return .ignorePreviousRules
        case .ignoreFollowingRules: return .ignoreFollowingRules
        case .makeHTTPS: return .makeHTTPS
        case .cssDisplayNone:
            guard let selector = object["selector"]?.stringValue else {
                throw ContentRuleListError(
                    .jsonInvalidCSSDisplayNoneActionType, keyPath: "action.selector", detail: found(object["selector"]))
            }
            return .cssDisplayNone(selector: selector)
        case .notify:
            guard let notification = object["notification"]?.stringValue else {
                throw ContentRuleListError(
                    .jsonInvalidNotification, keyPath: "action.notification", detail: found(object["notification"]))
            }
            return .notify(notification: notification)
        case .redirect:
            return .redirect(try readRedirect(object))
        case .modifyHeaders:
            return .modifyHeaders(try readModifyHeaders(object))
        case nil:
            throw ContentRuleListError(
                .jsonInvalidActionType, keyPath: "action.type",
                detail: (typeValue?.stringValue.map { "\"\($0)\"" } ?? found(typeValue)) + "; expected one of " + Action.typeNames.joined(separator: ", "))
        }
    }

    static func readRedirect(_ action: JSONTape.Value) throws(ContentRuleListError) -> Redirect {
        guard let redirect = action["redirect"], redirect.kind == .object else {
            throw ContentRuleListError(.jsonRedirectMissing, keyPath: "action.redirect", detail: found(action["redirect"]))
        }
        if let path = redirect["extension-path"]?.stringValue {
            guard path.hasPrefix("/") else {
                throw ContentRuleListError(.jsonRedirectExtensionPathDoesNotStartWithSlash, keyPath: "action.redirect.extension-path")
            }
            return .extensionPath(path)
        }
        if let substitution = redirect["regex-substitution"]?.stringValue {
            return .regexSubstitution(substitution)
        }
        if let transform = redirect["transform"], transform.kind == .object {
            return .transform(try readTransform(transform))
        }
        if let url = redirect["url"]?.stringValue {
            // WebKit's URL parser decides, as the WHATWG URL Standard does (`https://127..1/` fails).
            guard let scheme = URLSchemes.scheme(ofAbsoluteURL: url), URLValidity.isValid(url) else {
                throw ContentRuleListError(.jsonRedirectURLInvalid, keyPath: "action.redirect.url", detail: "\"\(url)\"")
            }
            if scheme == "javascript" {
                throw ContentRuleListError(.jsonRedirectToJavaScriptURL, keyPath: "action.redirect.url")
            }
            return .url(url)
        }
        throw ContentRuleListError(.jsonRedirectInvalidType, keyPath: "action.redirect")
    }

    static func readTransform(_ object: JSONTape.Value) throws(ContentRuleListError) -> URLTransform {
        let path = "action.redirect.transform"
        var transform = URLTransform()
        if let fragment = object["fragment"]?.stringValue {
            guard fragment.isEmpty || fragment.hasPrefix("#") else {
                throw ContentRuleListError(.jsonRedirectInvalidFragment, keyPath: path + ".fragment")
            }
            transform.fragment = fragment
        }
        transform.host = object["host"]?.stringValue
        transform.password = object["password"]?.stringValue
        transform.path = object["path"]?.stringValue
        if let port = object["port"]?.stringValue {
            if port.isEmpty {
                transform.port = .some(nil)
            } else {
                guard port.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let number = UInt16(port) else {
                    throw ContentRuleListError(.jsonRedirectInvalidPort, keyPath: path + ".port", detail: "\"\(port)\"")
                }
                transform.port = .some(number)
            }
        }
        if let scheme = object["scheme"]?.stringValue {
            guard let canonical = URLSchemes.canonicalScheme(scheme) else {
                throw ContentRuleListError(.jsonRedirectURLSchemeInvalid, keyPath: path + ".scheme", detail: "\"\(scheme)\"")
            }
            if canonical == "javascript" {
                throw ContentRuleListError(.jsonRedirectToJavaScriptURL, keyPath: path + ".scheme")
            }
            transform.scheme = canonical
        }
        transform.username = object["username"]?.stringValue
        if let queryTransform = object["query-transform"], queryTransform.kind == .object {
            transform.queryTransform = try readQueryTransform(queryTransform, path: path + ".query-transform")
        } else if let query = object["query"]?.stringValue {
            guard query.isEmpty || query.hasPrefix("?") else {
                throw ContentRuleListError(.jsonRedirectInvalidQuery, keyPath: path + ".query", detail: "\"\(query)\"")
            }
            transform.query = query
        }
        return transform
    }

    static func readQueryTransform(_ object: JSONTape.Value, path: String) throws(ContentRuleListError) -> QueryTransform {
        var transform = QueryTransform()
        // WebKit reads remove-parameters first.
        if let value = object["remove-parameters"] {
            guard value.kind == .array else {
                throw ContentRuleListError(.jsonRemoveParametersNotStringArray, keyPath: path + ".remove-parameters", detail: found(value))
            }
            for (position, element) in value.elements.enumerated() {
                guard let name = element.stringValue else {
                    throw ContentRuleListError(.jsonRemoveParametersNotStringArray, keyPath: path + ".remove-parameters[\(position)]", detail: found(element))
                }
                transform.removeParameters.append(name)
            }
        }
        if let value = object["add-or-replace-parameters"] {
            guard value.kind == .array else {
                throw ContentRuleListError(.jsonAddOrReplaceParametersNotArray, keyPath: path + ".add-or-replace-parameters", detail: found(value))
            }
            for (position, parameter) in value.elements.enumerated() {
                let elementPath = path + ".add-or-replace-parameters[\(position)]"
                guard parameter.kind == .object else {
                    throw ContentRuleListError(.jsonAddOrReplaceParametersKeyValueNotADictionary, keyPath: elementPath, detail: found(parameter))
                }
                guard let key = parameter["key"]?.stringValue else {
                    throw ContentRuleListError(.jsonAddOrReplaceParametersKeyValueMissingKeyString, keyPath: elementPath + ".key")
                }
                guard let value = parameter["value"]?.stringValue else {
                    throw ContentRuleListError(.jsonAddOrReplaceParametersKeyValueMissingValueString, keyPath: elementPath + ".value")
                }
                transform.addOrReplaceParameters.append(.init(key: key, value: value, replaceOnly: parameter["replace-only"]?.boolValue ?? false))
            }
        }
        return transform
    }

    static func readModifyHeaders(_ object: JSONTape.Value) throws(ContentRuleListError) -> ModifyHeaders {
        func readHeaders(_ key: StaticString) throws(ContentRuleListError) -> [ModifyHeaders.Operation] {
            guard let value = object[key] else { return [] }
            guard value.kind == .array else {
                throw ContentRuleListError(.jsonModifyHeadersNotArray, keyPath: "action.\(key)", detail: found(value))
            }
            var operations: [ModifyHeaders.Operation] = []
            for (position, info) in value.elements.enumerated() {
                let path = "action.\(key)[\(position)]"
                guard info.kind == .object else {
                    throw ContentRuleListError(.jsonModifyHeadersInfoNotADictionary, keyPath: path, detail: found(info))
                }
                guard let operation = info["operation"]?.stringValue else {
                    throw ContentRuleListError(.jsonModifyHeadersMissingOperation, keyPath: path + ".operation")
                }
                guard let header = info["header"]?.stringValue else {
                    throw ContentRuleListError(.jsonModifyHeadersMissingHeader, keyPath: path + ".header")
                }
                let value = info["value"]?.stringValue
                switch operation {
                case "set", "append":
                    guard let value else {
                        throw ContentRuleListError(.jsonModifyHeadersMissingValue, keyPath: path + ".value")
                    }
                    operations.append(operation == "set" ? .set(header: header, value: value) : .append(header: header, value: value))
                case "remove":
                    operations.append(.remove(header: header))
                default:
                    throw ContentRuleListError(.jsonModifyHeadersInvalidOperation, keyPath: path + ".operation", detail: "\"\(operation)\"")
                }
            }
            return operations
        }
        let requestHeaders = try readHeaders("request-headers")
        let responseHeaders = try readHeaders("response-headers")
        // The priority is required: a number whose integer part fits a non-negative Int32
        // (1.5 is read as 1; 2147483648 and "2" are errors).
        guard let number = object["priority"]?.numberValue, number.isFinite,
              case let priority = number.rounded(.towardZero), priority >= 0, priority <= Double(Int32.max)
        else {
            throw ContentRuleListError(.jsonModifyHeadersInvalidPriority, keyPath: "action.priority", detail: found(object["priority"]))
        }
        return ModifyHeaders(requestHeaders: requestHeaders, responseHeaders: responseHeaders, priority: UInt32(priority))
    }

    /// "found a number", "it is missing".
    static func found(_ value: JSONTape.Value?) -> String {
        guard let value else { return "it is missing" }
        return "found \(value.kindDescription)"
    }
}

/// The little of URL parsing that validating redirects needs (WHATWG URL scheme rules).
extension String {
    /// The string with ASCII letters lower-cased (and nothing else changed).
    var asciiLowercased: String {
        String(decoding: utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

enum URLSchemes {
    /// The lower-cased scheme when `text` is a valid scheme: an ASCII letter, then letters,
    /// digits, `+`, `-` or `.`.
    static func canonicalScheme(_ text: String) -> String? {
        let units = Array(text.utf8)
        guard let first = units.first, isLetter(first),
              units.allSatisfy({ isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") })
        else { return nil }
        return String(decoding: units.map { $0 | 0x20 }, as: UTF8.self)
    }

    /// The scheme of an absolute URL, or nil when the text has none.
    static func scheme(ofAbsoluteURL text: String) -> String? {
        let trimmed = text.drop(while: { $0.isWhitespace })
        guard let colon = trimmed.firstIndex(of: ":") else { return nil }
        return canonicalScheme(String(trimmed[..<colon]))
    }

    private static func isLetter(_ unit: UInt8) -> Bool {
        (unit | 0x20) >= UInt8(ascii: "a") && (unit | 0x20) <= UInt8(ascii: "z")
    }
}
