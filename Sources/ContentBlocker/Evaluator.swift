// Evaluator.swift — ContentBlocker
//
// Request -> MatchOutcome over a compiled file, as MatchOutcome.swift defines it:
//
//  1. run the url programs over the request URL; the rules of the patterns reported, with the
//     rules that match every URL, are the candidates, in rule order;
//  2. keep the candidates whose flags accept the request and whose condition holds (the top-url
//     and frame-url programs run at most once per request, and only when a candidate needs them);
//  3. cut at the first ignore-following-rules and after the last ignore-previous-rules, and list the
//     actions at the acting rules' locations, in location order.
//
// Pages. Everything but step 1's URL programs depends on the request's page (main document and
// frame URLs) and flags only, and most of a big list's work is there: EasyList has ~6,000 rules that
// match every URL (css-display-none rules with unless-domain), so each request would check them all
// and list ~270 actions. The evaluator does that once per page and flags (resource type, load
// context, method, and third party or upgradability when a rule that matches every URL looks at
// them) and keeps the last `pageCapacity` pages, as a browser keeps its open pages' style sheets
// (WebKit itself keeps its last top URL's actions). A request then costs its URL programs and the
// few rules they report: the outcome shares the page's lists (`SharedList`) and inserts those.
// When an ignore rule is among the page's or the request's rules, the evaluator cuts the whole list
// as step 3 says.
//
// The evaluator keeps its working memory (pattern marks, candidate lists) between requests: after
// the first few requests, matching allocates only the outcome it returns. One evaluator serves
// one thread at a time.

internal import ContentRuleList
public import RequestContext
internal import Bytecode

public final class Evaluator {
    let file: CompiledFile
    /// How many pages' universal rules the evaluator keeps (0: none; each request starts afresh).
    public let pageCapacity: Int
    private var urlSeen: [Bool]
    private var topSeen: [Bool]
    private var frameSeen: [Bool]
    private var matchedURLPatterns: [UInt32] = []
    private var matchedRules: [UInt32] = []
    private var extra: [UInt32] = []
    private var applying: [UInt32] = []
    private var locations: [UInt32] = []
    private var stageEnds: [Int] = []
    private var pages: [PageKey: Page] = [:]
    private var lastPage: Page?
    private var clock = 0
    /// Whether a rule that matches every URL looks at the load type (third party) or is a
    /// make-https rule (upgradability): only then are these part of a page's flags.
    private let universalUsesLoadType: Bool
    private let universalMakesHTTPS: Bool
    /// Interpreter steps (bytes read by every program run) since this evaluator was made: a
    /// machine-independent measure of matching work.
    public private(set) var steps = 0
    /// Program runs since this evaluator was made.
    public private(set) var programRuns = 0

    public init(_ list: CompiledRuleList, pageCapacity: Int = 16) {
        let file = list.file
        self.file = file
        self.pageCapacity = pageCapacity
        urlSeen = [Bool](repeating: false, count: file.urlPatternCount)
        topSeen = [Bool](repeating: false, count: file.topPatternCount)
        frameSeen = [Bool](repeating: false, count: file.framePatternCount)
        applying.reserveCapacity(file.rules.count)
        locations.reserveCapacity(file.actions.count)
        universalUsesLoadType = file.universalRules.contains { file.rules[Int($0)].loadTypes != 0 }
        universalMakesHTTPS = file.universalRules.contains { file.rules[Int($0)].role == .makeHTTPS }
    }

    /// The URLs a request's conditions read.
    private struct PageKey: Hashable {
        var mainDocument: String
        var frame: String
    }

    /// What the evaluator knows of one page: its condition patterns, once run, and per flags
    /// the rules that match every URL and apply.
    private final class Page {
        let key: PageKey
        var topPatterns: [UInt32]?
        var framePatterns: [UInt32]?
        var universal: [UInt64: Universal] = [:]
        var lastUse = 0
        init(_ key: PageKey) { self.key = key }
    }

    /// The rules that match every URL and apply to a page for one set of flags.
    private struct Universal {
        var slots: [UInt32]
        var rules: [RuleIndex]
        /// An ignore rule among them: the outcome is then cut as a whole (step 3).
        var hasIgnoreRule: Bool
        /// Without an ignore rule: the locations they list, sorted, and those actions.
        var locations: [UInt32]
        var actions: [Action]
    }

    /// What a request's marks came from, to undo them.
    private var markedTop: [UInt32]?
    private var markedFrame: [UInt32]?

    /// Runs `programs` over `url`, marking each reported pattern once in `seen` and listing it.
    private func run(_ programs: ProgramSet, over url: String, seen: inout [Bool], into matched: inout [UInt32]) {
        var url = url
        let (steps, runs) = url.withUTF8 { bytes in
            programs.run(bytes, ends: &stageEnds) { pattern in
                if !seen[Int(pattern)] {
                    seen[Int(pattern)] = true
                    matched.append(pattern)
                }
            }
        }
        self.steps += steps
        programRuns += runs
    }

    /// The page of `request`, made (and the least recently used one dropped) when new.
    private func page(for request: Request) -> Page {
        let key = PageKey(mainDocument: request.mainDocumentURL.string, frame: request.frameURL.string)
        clock += 1
        if let lastPage, lastPage.key == key {
            lastPage.lastUse = clock
            return lastPage
        }
        let page: Page
        if let known = pages[key] {
            page = known
        } else {
            page = Page(key)
            if pageCapacity > 0 {
                if pages.count >= pageCapacity, let oldest = pages.values.min(by: { $0.lastUse < $1.lastUse }) {
                    pages[oldest.key] = nil
                }
                pages[key] = page
            }
        }
        page.lastUse = clock
        lastPage = pageCapacity > 0 ? page : nil
        return page
    }

    /// Whether the rule in `slot` applies to `request` on `page`, its url-filter aside (step 2).
    private func applies(_ slot: UInt32, _ request: Request, _ page: Page, thirdParty: inout Bool?) -> Bool {
        let rule = file.rules[Int(slot)]
        if rule.resourceTypes != 0 && rule.resourceTypes & request.resourceType.rawValue == 0 { return false }
        if rule.loadContexts != 0 && rule.loadContexts & request.loadContext.rawValue == 0 { return false }
        if rule.method != 0 && rule.method != Self.methodCode(request) { return false }
        if rule.loadTypes != 0 {
            let isThirdParty = thirdParty ?? request.isThirdParty
            thirdParty = isThirdParty
            let loadType = isThirdParty ? LoadTypes.thirdParty.rawValue : LoadTypes.firstParty.rawValue
            if rule.loadTypes & loadType == 0 { return false }
        }
        let entries = file.conditions[Int(rule.conditionStart)..<Int(rule.conditionStart + rule.conditionCount)]
        switch rule.condition {
        case .none: return true
        case .never: return false
        case .ifTopURL, .unlessTopURL:
            if markedTop == nil {
                if page.topPatterns == nil {
                    var matched: [UInt32] = []
                    run(file.topURLPrograms, over: request.mainDocumentURL.string, seen: &topSeen, into: &matched)
                    page.topPatterns = matched
                } else {
                    for pattern in page.topPatterns! { topSeen[Int(pattern)] = true }
                }
                markedTop = page.topPatterns
            }
            return entries.contains { topSeen[Int($0)] } == (rule.condition == .ifTopURL)
        case .ifFrameURL, .unlessFrameURL:
            if markedFrame == nil {
                if page.framePatterns == nil {
                    var matched: [UInt32] = []
                    run(file.framePrograms, over: request.frameURL.string, seen: &frameSeen, into: &matched)
                    page.framePatterns = matched
                } else {
                    for pattern in page.framePatterns! { frameSeen[Int(pattern)] = true }
                }
                markedFrame = page.framePatterns
            }
            return entries.contains { frameSeen[Int($0)] } == (rule.condition == .ifFrameURL)
        }
    }

    private static func methodCode(_ request: Request) -> UInt8 {
        request.method.map { UInt8(RequestMethod.allCases.firstIndex(of: $0)! + 1) } ?? 0
    }

    private static func isUpgradable(_ request: Request) -> Bool {
        (request.url.scheme == "http" || request.url.scheme == "ws") && request.url.port == nil
    }

    /// The flags a page's universal rules are kept by: the ones they can look at.
    private func flagsKey(_ request: Request, thirdParty: inout Bool?) -> UInt64 {
        var key = UInt64(request.resourceType.rawValue)
        key |= UInt64(request.loadContext.rawValue) << 16
        key |= UInt64(Self.methodCode(request)) << 24
        if universalUsesLoadType {
            let isThirdParty = thirdParty ?? request.isThirdParty
            thirdParty = isThirdParty
            key |= (isThirdParty ? 1 : 2) << 32
        }
        if universalMakesHTTPS && Self.isUpgradable(request) { key |= 1 << 34 }
        return key
    }

    private func universal(_ request: Request, _ page: Page, _ key: UInt64, thirdParty: inout Bool?) -> Universal {
        if let known = page.universal[key] { return known }
        let slots = file.universalRules.filter { applies($0, request, page, thirdParty: &thirdParty) }
        let hasIgnoreRule = slots.contains { file.rules[Int($0)].role == .ignorePreviousRules || file.rules[Int($0)].role == .ignoreFollowingRules }
        var universal = Universal(
            slots: slots, rules: slots.map { RuleIndex(Int(file.rules[Int($0)].ruleIndex)) },
            hasIgnoreRule: hasIgnoreRule, locations: [], actions: [])
        if !hasIgnoreRule {
            universal.locations = listedLocations(slots[...], upgradable: Self.isUpgradable(request))
            universal.actions = universal.locations.map { file.actions[Int($0)] }
        }
        if pageCapacity > 0 { page.universal[key] = universal }
        return universal
    }

    /// The sorted, distinct action locations `acting` lists (step 4).
    private func listedLocations(_ acting: ArraySlice<UInt32>, upgradable: Bool) -> [UInt32] {
        locations.removeAll(keepingCapacity: true)
        for slot in acting {
            let rule = file.rules[Int(slot)]
            switch rule.role {
            case .listed: locations.append(rule.actionLocation)
            case .makeHTTPS where upgradable: locations.append(rule.actionLocation)
            default: break
            }
        }
        locations.sort()
        var distinct: [UInt32] = []
        for location in locations where location != distinct.last { distinct.append(location) }
        return distinct
    }

    /// The outcome for `request`.
    public func outcome(for request: Request) -> MatchOutcome {
        guard request.url.isMatchable else { return .none }
        let page = page(for: request)
        var thirdParty: Bool?
        let key = flagsKey(request, thirdParty: &thirdParty)
        let universal = universal(request, page, key, thirdParty: &thirdParty)

        // 1. The rules of the patterns the URL programs report (a few), in rule order; 2. those
        // that apply.
        run(file.urlPrograms, over: request.url.string, seen: &urlSeen, into: &matchedURLPatterns)
        matchedRules.removeAll(keepingCapacity: true)
        for pattern in matchedURLPatterns {
            urlSeen[Int(pattern)] = false
            let start = Int(file.patternRuleStart[Int(pattern)])
            let end = Int(file.patternRuleStart[Int(pattern) + 1])
            matchedRules.append(contentsOf: file.patternRules[start..<end])
        }
        matchedURLPatterns.removeAll(keepingCapacity: true)
        matchedRules.sort()
        extra.removeAll(keepingCapacity: true)
        for slot in matchedRules where applies(slot, request, page, thirdParty: &thirdParty) { extra.append(slot) }
        if let marked = markedTop { for pattern in marked { topSeen[Int(pattern)] = false } }
        if let marked = markedFrame { for pattern in marked { frameSeen[Int(pattern)] = false } }
        markedTop = nil
        markedFrame = nil

        let extraIgnores = extra.contains {
            file.rules[Int($0)].role == .ignorePreviousRules || file.rules[Int($0)].role == .ignoreFollowingRules
        }
        guard !universal.hasIgnoreRule && !extraIgnores else { return cutOutcome(universal, request) }

        // No ignore rule: every applying rule acts. The page's lists plus this request's rules.
        if extra.isEmpty {
            return MatchOutcome(
                actions: SharedList(universal.actions), matchingRules: SharedList(universal.rules), appliesGlobalStyleSheet: true)
        }
        let rules = extra.map { slot in
            (offset: Self.lowerBound(slot, in: universal.slots), element: RuleIndex(Int(file.rules[Int(slot)].ruleIndex)))
        }
        var actions: [(offset: Int, element: Action)] = []
        for location in listedLocations(extra[...], upgradable: Self.isUpgradable(request)) {
            let offset = Self.lowerBound(location, in: universal.locations)
            if offset < universal.locations.count && universal.locations[offset] == location { continue }
            actions.append((offset, file.actions[Int(location)]))
        }
        return MatchOutcome(
            actions: SharedList(base: universal.actions, inserting: actions),
            matchingRules: SharedList(base: universal.rules, inserting: rules), appliesGlobalStyleSheet: true)
    }

    /// Step 3 when an ignore rule applies: the applying rules merged, cut, and their actions listed.
    private func cutOutcome(_ universal: Universal, _ request: Request) -> MatchOutcome {
        applying.removeAll(keepingCapacity: true)
        var pageRules = universal.slots[...]
        for slot in extra {
            while let first = pageRules.first, first < slot {
                applying.append(first)
                pageRules.removeFirst()
            }
            applying.append(slot)
        }
        applying.append(contentsOf: pageRules)
        let matchingRules = applying.map { RuleIndex(Int(file.rules[Int($0)].ruleIndex)) }

        var acting = applying[...]
        if let cut = acting.firstIndex(where: { file.rules[Int($0)].role == .ignoreFollowingRules }) {
            acting = acting[...cut]
        }
        var appliesGlobalStyleSheet = true
        if let last = acting.lastIndex(where: { file.rules[Int($0)].role == .ignorePreviousRules }) {
            acting = acting[(last + 1)...]
            appliesGlobalStyleSheet = false
        }
        let actions = listedLocations(acting, upgradable: Self.isUpgradable(request)).map { file.actions[Int($0)] }
        return MatchOutcome(actions: actions, matchingRules: matchingRules, appliesGlobalStyleSheet: appliesGlobalStyleSheet)
    }

    /// The first index of `sorted` whose value is not below `value`.
    private static func lowerBound(_ value: UInt32, in sorted: [UInt32]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
