// ReferenceEvaluator.swift — PCRE2Oracle
//
// The specification in code: what a rule list decides for a request, rule by rule, with PCRE2
// answering every pattern. It follows the definition at the top of
// Sources/RequestContext/MatchOutcome.swift step by step and shares nothing with the engine but
// the rule-list model (ContentRuleList) and the request (RequestContext).
//
// The one shortcut: a rule whose url-filter requires a literal (URLFilterTranslation) is not
// tried on a URL that does not contain it, and a condition pattern (if-domain, if-top-url, ...)
// that requires one is not asked of PCRE2 when the page or frame URL lacks it. Which rules to look at is found through one
// three-byte piece of each literal, the one fewest rules' literals hold (any piece of a literal
// the URL lacks rules the literal out; a rare one names few rules). A rule without such a url-filter literal but with a positive
// condition (if-domain, if-top-url, if-frame-url) whose every pattern requires one is looked at
// only on pages whose main document (or frame) URL holds one of those literals' first three bytes:
// the condition cannot hold otherwise. `usesPrefilter = false` tries every rule, and a test shows
// the two give the same answers on the corpora.
// Tested by PCRE2OracleTests (WebKit's request vectors; ReferenceRuleListTests: patterns compiled
// once, the prefilter changes no answer) and ConformanceTests/ConformanceTests.swift.

public import ContentRuleList
public import RequestContext

public enum OracleError: Error, Hashable, Sendable, CustomStringConvertible {
    case translation(rule: RuleIndex, TranslationError)
    case pcre2(rule: RuleIndex?, PCRE2Error)

    public var description: String {
        switch self {
        case .translation(let rule, let error): "rule \(rule): \(error)"
        case .pcre2(let rule, let error): (rule.map { "rule \($0): " } ?? "") + error.description
        }
    }
}

/// A pattern as the oracle runs it: the translation, and PCRE2's compiled pattern unless PCRE2
/// says the filter matches everything. Public for the differential fuzzer, which asks the oracle
/// one pattern at a time.
public final class OraclePattern: Sendable {
    public let translation: URLFilterTranslation
    /// nil when the pattern matches everything.
    public let regex: PCRE2Regex?

    public init(_ translation: URLFilterTranslation, jit: Bool) throws(PCRE2Error) {
        self.translation = translation
        let body = try PCRE2Regex(translation.body, options: translation.options, jit: false)
        let matchesEmpty = try body.matches("", using: PCRE2MatchData())
        regex = matchesEmpty ? nil : try PCRE2Regex(translation.pattern, options: translation.options, jit: jit)
    }

    public var matchesEverything: Bool { regex == nil }
    var isCaseSensitive: Bool { !translation.options.contains(.caseless) }

    /// Whether the filter matches; `subject` is the URL's bytes followed by one NUL, the end of
    /// the URL as WebKit reads it (URLFilterTranslation.swift).
    public func matches(_ subject: UnsafeBufferPointer<UInt8>, using data: PCRE2MatchData, interpreter: Bool = false) throws(PCRE2Error) -> Bool {
        guard let regex else { return true }
        return try regex.matches(subject, using: data, interpreter: interpreter)
    }
}

/// A rule list prepared for the oracle: every pattern compiled by PCRE2, the listing of every
/// action worked out once. Immutable; any number of `ReferenceEvaluator`s may share it.
public final class ReferenceRuleList: Sendable {
    public let rules: [Rule]
    /// Every distinct pattern (url-filters, condition patterns, domain patterns), by id.
    let patterns: [OraclePattern]
    /// Per rule: what the evaluator reads on every request, as plain values.
    let facts: [RuleFacts]
    /// The condition patterns of every rule (ranges in `RuleFacts`).
    let conditionPatternIDs: [Int32]
    /// Per rule: where its action is listed (nil: ignore rules and the global style sheet).
    let listings: [Listing?]
    /// Rules without a literal of three bytes or more, in url-filter or condition: tried on every URL.
    let alwaysTried: [Int32]
    /// Rules by the three bytes of their literal that the fewest literals hold.
    let byTrigram: [UInt32: [Int32]]
    /// Rules in neither of the above, by the first three bytes of each of their condition
    /// patterns' literals: those over the main document URL, and those over the frame URL.
    let byMainDocumentTrigram: [UInt32: [Int32]]
    let byFrameTrigram: [UInt32: [Int32]]
    /// Per rule: its literal, lower-case when the filter is case-insensitive (empty: none).
    let literals: [[UInt8]]

    struct RuleFacts: Sendable {
        enum Subject: Sendable { case none, mainDocument, frame }
        var resourceTypes: ResourceTypes
        var loadTypes: LoadTypes
        var loadContexts: LoadContexts
        var method: RequestMethod?
        var urlPattern: Int32
        var urlFilterIsCaseSensitive: Bool
        var conditionSubject: Subject
        var conditionIsPositive: Bool
        var conditionStart: Int32
        var conditionEnd: Int32
        var action: ActionKind
    }

    enum ActionKind: Sendable { case ignoreFollowing, ignorePrevious, makeHTTPS, other }

    struct Listing: Sendable {
        var key: ListingKey
        var action: Action
    }

    /// Location order: segment, then plain actions before the segment's css batches, then the
    /// first rule of the location.
    struct ListingKey: Hashable, Comparable, Sendable {
        var segment: Int
        var isStyleBatch: Bool
        var firstRule: Int
        static func < (a: ListingKey, b: ListingKey) -> Bool {
            (a.segment, a.isStyleBatch ? 1 : 0, a.firstRule) < (b.segment, b.isStyleBatch ? 1 : 0, b.firstRule)
        }
    }

    /// What PCRE2 holds for every distinct pattern: compiled code plus JIT code (PCRE2's own
    /// pattern-info sizes; patterns that match every URL hold nothing).
    public var compiledBytes: Int { patterns.reduce(0) { $0 + ($1.regex?.compiledBytes ?? 0) } }

    /// Distinct patterns compiled (url-filters, condition and domain patterns).
    public var patternCount: Int { patterns.count }

    /// `jit: false` leaves every pattern to PCRE2's interpreter (evaluators then must use it too).
    public init(_ list: RuleList, jit: Bool = true) throws(OracleError) {
        rules = list.rules
        var compiler = PatternCompiler(jit: jit)
        var facts: [RuleFacts] = []
        var conditionPatternIDs: [Int32] = []
        for rule in list.rules {
            facts.append(try Self.facts(of: rule, compiler: &compiler, conditionPatternIDs: &conditionPatternIDs))
        }
        let patterns = compiler.patterns
        self.patterns = patterns
        self.facts = facts
        self.conditionPatternIDs = conditionPatternIDs
        listings = Self.listings(list.rules, matchesEverything: facts.map { patterns[Int($0.urlPattern)].matchesEverything })
        let index = Self.prefilter(facts, patterns, conditionPatternIDs)
        (alwaysTried, byTrigram, literals) = (index.alwaysTried, index.byTrigram, index.literals)
        (byMainDocumentTrigram, byFrameTrigram) = (index.byMainDocumentTrigram, index.byFrameTrigram)
    }

    /// Every distinct pattern compiled once, numbered in the order first asked for.
    private struct PatternCompiler {
        let jit: Bool
        var ids: [String: Int32] = [:]
        var patterns: [OraclePattern] = []

        /// The id of `source`'s pattern, compiled now if new; errors name `rule`.
        mutating func id(of source: String, caseSensitive: Bool, rule: RuleIndex) throws(OracleError) -> Int32 {
            let key = (caseSensitive ? "S" : "I") + source
            if let known = ids[key] { return known }
            let translation: URLFilterTranslation
            do {
                translation = try URLFilterTranslation.translate(source, caseSensitive: caseSensitive)
            } catch {
                throw .translation(rule: rule, error)
            }
            do {
                patterns.append(try OraclePattern(translation, jit: jit))
            } catch {
                throw .pcre2(rule: rule, error)
            }
            ids[key] = Int32(patterns.count - 1)
            return Int32(patterns.count - 1)
        }
    }

    /// What the evaluator reads of `rule` on every request; its condition's patterns appended to
    /// `conditionPatternIDs`.
    private static func facts(
        of rule: Rule, compiler: inout PatternCompiler, conditionPatternIDs: inout [Int32]
    ) throws(OracleError) -> RuleFacts {
        let trigger = rule.trigger
        let urlPattern = try compiler.id(of: trigger.urlFilter, caseSensitive: trigger.urlFilterIsCaseSensitive, rule: rule.index)
        let start = Int32(conditionPatternIDs.count)
        var subject = RuleFacts.Subject.none
        switch trigger.condition {
        case nil: break
        case .ifDomain(let domains), .unlessDomain(let domains):
            subject = .mainDocument
            for domain in domains {
                conditionPatternIDs.append(try compiler.id(of: Self.domainPattern(domain), caseSensitive: false, rule: rule.index))
            }
        case .ifTopURL(let sources), .unlessTopURL(let sources):
            subject = .mainDocument
            for source in sources {
                conditionPatternIDs.append(try compiler.id(of: source, caseSensitive: trigger.topURLFilterIsCaseSensitive, rule: rule.index))
            }
        case .ifFrameURL(let sources), .unlessFrameURL(let sources):
            subject = .frame
            for source in sources {
                conditionPatternIDs.append(try compiler.id(of: source, caseSensitive: trigger.frameURLFilterIsCaseSensitive, rule: rule.index))
            }
        }
        let action: ActionKind = switch rule.action {
        case .ignoreFollowingRules: .ignoreFollowing
        case .ignorePreviousRules: .ignorePrevious
        case .makeHTTPS: .makeHTTPS
        default: .other
        }
        return RuleFacts(
            resourceTypes: trigger.resourceTypes, loadTypes: trigger.loadTypes, loadContexts: trigger.loadContexts,
            method: trigger.requestMethod, urlPattern: urlPattern, urlFilterIsCaseSensitive: trigger.urlFilterIsCaseSensitive,
            conditionSubject: subject, conditionIsPositive: trigger.condition?.isPositive ?? true, conditionStart: start,
            conditionEnd: Int32(conditionPatternIDs.count), action: action)
    }

    /// The prefilter's index (see the properties of the same names).
    private struct PrefilterIndex {
        var alwaysTried: [Int32] = []
        var byTrigram: [UInt32: [Int32]] = [:]
        var byMainDocumentTrigram: [UInt32: [Int32]] = [:]
        var byFrameTrigram: [UInt32: [Int32]] = [:]
        var literals: [[UInt8]] = []
    }

    /// The prefilter's index: per rule its url-filter's required literal, and the rules by the
    /// literal's rarest three bytes; failing that, by their condition patterns' literals; failing
    /// both, tried on every URL.
    private static func prefilter(
        _ facts: [RuleFacts], _ patterns: [OraclePattern], _ conditionPatternIDs: [Int32]
    ) -> PrefilterIndex {
        var index = PrefilterIndex()
        index.literals = facts.map { fact in
            let filter = patterns[Int(fact.urlPattern)]
            return filter.matchesEverything ? [] : filter.translation.requiredLiteral
        }
        let frequency = trigramFrequency(index.literals)
        for (slot, fact) in facts.enumerated() {
            let literal = index.literals[slot]
            if literal.count >= 3 {
                index.byTrigram[rarestTrigram(literal, frequency), default: []].append(Int32(slot))
            } else if let keys = conditionKeys(fact, patterns, conditionPatternIDs) {
                for key in keys {
                    if fact.conditionSubject == .frame {
                        index.byFrameTrigram[key, default: []].append(Int32(slot))
                    } else {
                        index.byMainDocumentTrigram[key, default: []].append(Int32(slot))
                    }
                }
            } else {
                index.alwaysTried.append(Int32(slot))
            }
        }
        return index
    }

    /// How many of `literals` hold each trigram.
    private static func trigramFrequency(_ literals: [[UInt8]]) -> [UInt32: Int] {
        var frequency: [UInt32: Int] = [:]
        for literal in literals where literal.count >= 3 {
            Set((0...(literal.count - 3)).map { trigram(literal[$0], literal[$0 + 1], literal[$0 + 2]) }).forEach { frequency[$0, default: 0] += 1 }
        }
        return frequency
    }

    /// The trigram of `literal` (three bytes or more) that the fewest literals hold; the first
    /// such on a tie.
    private static func rarestTrigram(_ literal: [UInt8], _ frequency: [UInt32: Int]) -> UInt32 {
        var best = trigram(literal[0], literal[1], literal[2])
        for start in 0...(literal.count - 3) {
            let key = trigram(literal[start], literal[start + 1], literal[start + 2])
            if frequency[key, default: 0] < frequency[best, default: 0] { best = key }
        }
        return best
    }

    /// The first three bytes of each literal of a positive condition's patterns, when every
    /// pattern requires one of three bytes or more: the condition holds only on a subject holding
    /// one of them. nil for any other rule.
    private static func conditionKeys(_ fact: RuleFacts, _ patterns: [OraclePattern], _ conditionPatternIDs: [Int32]) -> Set<UInt32>? {
        guard fact.conditionSubject != .none, fact.conditionIsPositive else { return nil }
        var keys = Set<UInt32>()
        for id in conditionPatternIDs[Int(fact.conditionStart)..<Int(fact.conditionEnd)] {
            let pattern = patterns[Int(id)]
            let literal = pattern.matchesEverything ? [] : pattern.translation.requiredLiteral
            guard literal.count >= 3 else { return nil }
            keys.insert(Self.trigram(literal[0], literal[1], literal[2]))
        }
        return keys
    }

    static func trigram(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt32 { UInt32(a) << 16 | UInt32(b) << 8 | UInt32(c) }

    /// WebKit's pattern for a domain condition over the main document URL (docs/SEMANTICS.md §2):
    /// a scheme, `://`, any subdomains when the domain starts with `*`, the domain, then `:` or `/`.
    static func domainPattern(_ domain: String) -> String {
        var name = Substring(domain)
        var pattern = "[a-z][a-z+.-]*:\\/\\/"
        if name.first == "*" {
            name = name.dropFirst()
            pattern += "([^/]*\\.)*"
        }
        for character in name {
            if !(character.isLetter || character.isNumber) { pattern += "\\" }
            pattern.append(character)
        }
        return pattern + "[:/]"
    }

    /// Step 4 and 5 of the definition, worked out per rule.
    static func listings(_ rules: [Rule], matchesEverything: [Bool]) -> [Listing?] {
        var segment = 0
        var beforeFirstIgnore = true
        var listings: [Listing?] = []
        // Per segment: the first rule of each (action, flags) among the rules without a condition,
        // and the css batches (whole trigger -> first rule, selectors).
        var firstOfShared: [SharedKey: Int] = [:]
        var styleBatches: [Trigger: (first: Int, selectors: [String], members: [Int])] = [:]
        func closeSegment() {
            for batch in styleBatches.values {
                let action = Action.cssDisplayNone(selector: batch.selectors.joined(separator: ","))
                for member in batch.members {
                    listings[member] = Listing(key: ListingKey(segment: segment, isStyleBatch: true, firstRule: batch.first), action: action)
                }
            }
            styleBatches = [:]
            firstOfShared = [:]
            segment += 1
            beforeFirstIgnore = false
        }
        for (slot, rule) in rules.enumerated() {
            listings.append(nil)
            let trigger = rule.trigger
            switch rule.action {
            case .ignorePreviousRules, .ignoreFollowingRules:
                closeSegment()
            case _ where trigger.condition != nil:
                listings[slot] = Listing(key: ListingKey(segment: segment, isStyleBatch: false, firstRule: slot), action: rule.action)
            case .cssDisplayNone(let selector):
                if beforeFirstIgnore && matchesEverything[slot] && trigger.flags == .none { break }  // the global style sheet
                styleBatches[trigger, default: (slot, [], [])].selectors.append(selector)
                styleBatches[trigger]!.members.append(slot)
            default:
                let key = SharedKey(action: rule.action, flags: trigger.flags)
                let first = firstOfShared[key] ?? slot
                firstOfShared[key] = first
                listings[slot] = Listing(key: ListingKey(segment: segment, isStyleBatch: false, firstRule: first), action: rule.action)
            }
        }
        closeSegment()
        return listings
    }

    /// What makes two rules without a condition report one action within a segment: the action
    /// and the flags (not the url-filter, nor any case-sensitivity switch).
    struct SharedKey: Hashable {
        var action: Action
        var flags: Trigger.Flags
    }
}

/// Answers requests over a `ReferenceRuleList`. One evaluator per thread.
///
/// Conditions depend only on the main document or frame URL, so while those stay the same from
/// one request to the next (a page's subresources) each condition pattern's answer is kept.
public final class ReferenceEvaluator {
    public let list: ReferenceRuleList
    /// Whether to skip rules whose required literal is absent from the URL.
    public var usesPrefilter: Bool
    /// Counters since creation: rules whose url-filter PCRE2 was asked about, rules skipped
    /// because their literal was absent.
    public private(set) var urlFiltersTried = 0
    public private(set) var skippedByPrefilter = 0
    /// Matches PCRE2's backtracking matcher gave up on (its limits) and `pcre2_dfa_match` answered.
    public var dfaFallbacks: Int { data.dfaFallbacks }
    /// Sampled url-filter matches where PCRE2's JIT and its interpreter disagreed.
    public private(set) var jitDisagreements = 0

    /// Which of PCRE2's matchers answers: its JIT code (when PCRE2 has a JIT) or its interpreter.
    public enum Matcher: String, Sendable { case jit, interpreter }
    public let matcher: Matcher
    /// Whether one url-filter match in 64 is asked again of the interpreter (JIT matcher only).
    public let samplesInterpreter: Bool

    private let data = PCRE2MatchData()
    private var marks: [UInt32]
    private var generation: UInt32 = 0
    private var candidates: [Int32] = []
    /// The rules indexed by condition literals that the memoised main document and frame URLs
    /// hold, in rule order.
    private var pageCandidates: [Int32] = []
    /// Condition answers per pattern for `memoMainDocument` / `memoFrame`: 0 unknown, 1 no, 2 yes.
    private var mainDocumentMemo: [UInt8]
    private var frameMemo: [UInt8]
    private var memoMainDocument: String?
    private var memoFrame: String?
    /// The memoised URLs lower-cased, for the literal prefilter of condition patterns.
    private var mainDocumentLowered: [UInt8] = []
    private var frameLowered: [UInt8] = []

    public init(_ list: ReferenceRuleList, usesPrefilter: Bool = true, matcher: Matcher = .jit, samplesInterpreter: Bool = true) {
        self.list = list
        self.usesPrefilter = usesPrefilter
        self.matcher = matcher
        self.samplesInterpreter = samplesInterpreter && matcher == .jit
        marks = [UInt32](repeating: 0, count: list.rules.count)
        mainDocumentMemo = [UInt8](repeating: 0, count: list.patterns.count)
        frameMemo = [UInt8](repeating: 0, count: list.patterns.count)
    }

    public func outcome(for request: Request) throws(OracleError) -> MatchOutcome {
        // 1. Nothing applies to an unmatchable URL.
        guard request.url.isMatchable else { return .none }
        // Every subject ends with the NUL WebKit reads after a URL (URLFilterTranslation.swift).
        var url = request.url.string + "\u{0}"
        var lowered = String(decoding: url.utf8.map(ReferenceEvaluator.lowercased), as: UTF8.self)
        var mainDocument = request.mainDocumentURL.string + "\u{0}"
        var frame = request.frameURL.string + "\u{0}"
        var pageChanged = false
        if memoMainDocument != mainDocument {
            memoMainDocument = mainDocument
            mainDocumentLowered = mainDocument.utf8.map(ReferenceEvaluator.lowercased)
            for index in mainDocumentMemo.indices { mainDocumentMemo[index] = 0 }
            pageChanged = true
        }
        if memoFrame != frame {
            memoFrame = frame
            frameLowered = frame.utf8.map(ReferenceEvaluator.lowercased)
            for index in frameMemo.indices { frameMemo[index] = 0 }
            pageChanged = true
        }
        if pageChanged { collectPageCandidates(Array(mainDocument.utf8), Array(frame.utf8)) }
        var context = RequestFacts(request: request)

        // 2. The applying rules, in rule order.
        var applying: [Int] = []
        var failure: OracleError?
        url.withUTF8 { urlBytes in
            lowered.withUTF8 { lowerBytes in
                mainDocument.withUTF8 { mainBytes in
                    frame.withUTF8 { frameBytes in
                        collectCandidates(urlBytes, lowerBytes)
                        for slot in candidates {
                            let slot = Int(slot)
                            if usesPrefilter && !list.literals[slot].isEmpty {
                                let haystack = list.facts[slot].urlFilterIsCaseSensitive ? urlBytes : lowerBytes
                                if !Self.contains(haystack, list.literals[slot]) {
                                    skippedByPrefilter += 1
                                    continue
                                }
                            }
                            do throws(OracleError) {
                                if try applies(slot, &context, urlBytes, mainBytes, frameBytes) { applying.append(slot) }
                            } catch {
                                failure = error
                                return
                            }
                        }
                    }
                }
            }
        }
        if let failure { throw failure }
        let matchingRules = applying.map { list.rules[$0].index }

        // 3. The rules that act.
        var acting = applying[...]
        if let cut = acting.firstIndex(where: { list.facts[$0].action == .ignoreFollowing }) {
            acting = acting[...cut]
        }
        var appliesGlobalStyleSheet = true
        if let last = acting.lastIndex(where: { list.facts[$0].action == .ignorePrevious }) {
            acting = acting[(last + 1)...]
            appliesGlobalStyleSheet = false
        }

        // 4. Their actions, each at its location, in location order.
        let upgradable = (request.url.scheme == "http" || request.url.scheme == "ws") && request.url.port == nil
        var listed: [ReferenceRuleList.ListingKey: Action] = [:]
        for slot in acting {
            guard let listing = list.listings[slot] else { continue }
            if list.facts[slot].action == .makeHTTPS && !upgradable { continue }
            listed[listing.key] = listing.action
        }
        let actions = listed.keys.sorted().map { listed[$0]! }
        return MatchOutcome(actions: actions, matchingRules: matchingRules, appliesGlobalStyleSheet: appliesGlobalStyleSheet)
    }

    /// What the flags compare, read once per request (third party only when a rule asks).
    struct RequestFacts {
        let request: Request
        private var thirdParty: Bool?
        init(request: Request) { self.request = request }
        mutating func isThirdParty() -> Bool {
            if let thirdParty { return thirdParty }
            let value = request.isThirdParty
            thirdParty = value
            return value
        }
    }

    /// Whether rule `slot` applies (step 1 of the definition).
    private func applies(
        _ slot: Int, _ context: inout RequestFacts, _ url: UnsafeBufferPointer<UInt8>, _ mainDocument: UnsafeBufferPointer<UInt8>,
        _ frame: UnsafeBufferPointer<UInt8>
    ) throws(OracleError) -> Bool {
        let facts = list.facts[slot]
        let request = context.request
        if !facts.resourceTypes.isEmpty && !facts.resourceTypes.contains(request.resourceType) { return false }
        if !facts.loadContexts.isEmpty && !facts.loadContexts.contains(request.loadContext) { return false }
        if let method = facts.method, method != request.method { return false }
        if !facts.loadTypes.isEmpty && !facts.loadTypes.contains(context.isThirdParty() ? .thirdParty : .firstParty) { return false }
        do {
            urlFiltersTried += 1
            let filter = list.patterns[Int(facts.urlPattern)]
            let interpreter = matcher == .interpreter
            let matched = try filter.matches(url, using: data, interpreter: interpreter)
            // One url-filter match in 64 is asked again of PCRE2's interpreter: a JIT that answers
            // differently is PCRE2's problem, counted apart from mismatches with the engine.
            if samplesInterpreter, urlFiltersTried % 64 == 0, let regex = filter.regex, regex.isJITCompiled,
                try regex.matches(url, using: data, interpreter: true) != matched {
                jitDisagreements += 1
            }
            guard matched else { return false }
            if facts.conditionSubject == .none { return true }
            var anyMatches = false
            for id in list.conditionPatternIDs[Int(facts.conditionStart)..<Int(facts.conditionEnd)] {
                let id = Int(id)
                let known = facts.conditionSubject == .frame ? frameMemo[id] : mainDocumentMemo[id]
                let matches: Bool
                if known != 0 {
                    matches = known == 2
                } else {
                    let pattern = list.patterns[id]
                    let isFrame = facts.conditionSubject == .frame
                    let literal = pattern.translation.requiredLiteral
                    if usesPrefilter && !pattern.matchesEverything && !literal.isEmpty
                        && !(pattern.isCaseSensitive
                            ? Self.contains(isFrame ? frame : mainDocument, literal)
                            : (isFrame ? frameLowered : mainDocumentLowered).withUnsafeBufferPointer { Self.contains($0, literal) })
                    {
                        // A string the pattern requires is absent: PCRE2 need not be asked.
                        matches = false
                    } else {
                        matches = try pattern.matches(isFrame ? frame : mainDocument, using: data, interpreter: interpreter)
                    }
                    if facts.conditionSubject == .frame { frameMemo[id] = matches ? 2 : 1 } else { mainDocumentMemo[id] = matches ? 2 : 1 }
                }
                if matches {
                    anyMatches = true
                    break
                }
            }
            return anyMatches == facts.conditionIsPositive
        } catch {
            throw .pcre2(rule: list.rules[slot].index, error)
        }
    }

    /// The rules to look at, in rule order: every rule without the prefilter; otherwise the rules
    /// without a literal, those whose literal's indexed three bytes occur in the URL, and the page's
    /// (`pageCandidates`).
    private func collectCandidates(_ url: UnsafeBufferPointer<UInt8>, _ lowered: UnsafeBufferPointer<UInt8>) {
        candidates.removeAll(keepingCapacity: true)
        guard usesPrefilter else {
            candidates.append(contentsOf: 0..<Int32(list.rules.count))
            return
        }
        generation &+= 1
        if generation == 0 {
            for index in marks.indices { marks[index] = 0 }
            generation = 1
        }
        candidates.append(contentsOf: list.alwaysTried)
        candidates.append(contentsOf: pageCandidates)
        Self.forEachTrigram(url, lowered) { key in
            guard let slots = list.byTrigram[key] else { return }
            for slot in slots where marks[Int(slot)] != generation {
                marks[Int(slot)] = generation
                candidates.append(slot)
            }
        }
        candidates.sort()
        skippedByPrefilter += list.rules.count - candidates.count
    }

    /// The rules whose condition literals' first three bytes occur in the main document or
    /// frame URL (each URL given as its bytes, NUL included), in rule order.
    private func collectPageCandidates(_ mainDocument: [UInt8], _ frame: [UInt8]) {
        var found = Set<Int32>()
        for (exact, lowered, index) in [
            (mainDocument, mainDocumentLowered, list.byMainDocumentTrigram), (frame, frameLowered, list.byFrameTrigram),
        ] where !index.isEmpty {
            exact.withUnsafeBufferPointer { exact in
                lowered.withUnsafeBufferPointer { lowered in
                    Self.forEachTrigram(exact, lowered) { key in found.formUnion(index[key] ?? []) }
                }
            }
        }
        pageCandidates = found.sorted()
    }

    /// Calls `body` with every trigram of `exact` and, where it differs, of `lowered` (the same
    /// bytes lower-cased) at the same place.
    private static func forEachTrigram(
        _ exact: UnsafeBufferPointer<UInt8>, _ lowered: UnsafeBufferPointer<UInt8>, _ body: (UInt32) -> Void
    ) {
        guard exact.count >= 3 else { return }
        for start in 0...(exact.count - 3) {
            let key = ReferenceRuleList.trigram(exact[start], exact[start + 1], exact[start + 2])
            let folded = ReferenceRuleList.trigram(lowered[start], lowered[start + 1], lowered[start + 2])
            body(key)
            if folded != key { body(folded) }
        }
    }

    static func lowercased(_ byte: UInt8) -> UInt8 { (65...90).contains(byte) ? byte + 32 : byte }

    static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        guard let first = needle.first else { return true }
        var start = 0
        let last = haystack.count - needle.count
        while start <= last {
            if haystack[start] == first {
                var offset = 1
                while offset < needle.count && haystack[start + offset] == needle[offset] { offset += 1 }
                if offset == needle.count { return true }
            }
            start += 1
        }
        return false
    }
}
