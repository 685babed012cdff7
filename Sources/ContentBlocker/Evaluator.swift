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
// The evaluator keeps its working memory (pattern marks, candidate lists) between requests: after
// the first few requests, matching allocates only the outcome it returns. One evaluator serves
// one thread at a time.

internal import ContentRuleList
public import RequestContext
internal import Bytecode

public final class Evaluator {
    let file: CompiledFile
    private var urlSeen: [Bool]
    private var topSeen: [Bool]
    private var frameSeen: [Bool]
    private var matchedURLPatterns: [UInt32] = []
    private var matchedTopPatterns: [UInt32] = []
    private var matchedFramePatterns: [UInt32] = []
    private var candidates: [UInt32] = []
    private var matchedRules: [UInt32] = []
    private var applying: [UInt32] = []
    private var locations: [UInt32] = []
    private var stageEnds: [Int] = []
    /// Interpreter steps (bytes read by every program run) since this evaluator was made: a
    /// machine-independent measure of matching work.
    public private(set) var steps = 0
    /// Program runs since this evaluator was made.
    public private(set) var programRuns = 0

    public init(_ list: CompiledRuleList) {
        file = list.file
        urlSeen = [Bool](repeating: false, count: file.urlPatternCount)
        topSeen = [Bool](repeating: false, count: file.topPatternCount)
        frameSeen = [Bool](repeating: false, count: file.framePatternCount)
        candidates.reserveCapacity(file.rules.count)
        applying.reserveCapacity(file.rules.count)
        locations.reserveCapacity(file.actions.count)
    }

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

    private static func reset(_ seen: inout [Bool], _ matched: inout [UInt32]) {
        for pattern in matched { seen[Int(pattern)] = false }
        matched.removeAll(keepingCapacity: true)
    }

    /// The outcome for `request`.
    public func outcome(for request: Request) -> MatchOutcome {
        guard request.url.isMatchable else { return .none }
        collectApplyingRules(request)
        let matchingRules = applying.map { RuleIndex(Int(file.rules[Int($0)].ruleIndex)) }

        // 3. Which rules act.
        var acting = applying[...]
        if let cut = acting.firstIndex(where: { file.rules[Int($0)].role == .ignoreFollowingRules }) {
            acting = acting[...cut]
        }
        var appliesGlobalStyleSheet = true
        if let last = acting.lastIndex(where: { file.rules[Int($0)].role == .ignorePreviousRules }) {
            acting = acting[(last + 1)...]
            appliesGlobalStyleSheet = false
        }
        let upgradable = (request.url.scheme == "http" || request.url.scheme == "ws") && request.url.port == nil
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
        var actions: [Action] = []
        var previous: UInt32?
        for location in locations where location != previous {
            actions.append(file.actions[Int(location)])
            previous = location
        }
        return MatchOutcome(actions: actions, matchingRules: matchingRules, appliesGlobalStyleSheet: appliesGlobalStyleSheet)
    }

    /// Steps 1 and 2: the slots of the rules that apply, in rule order, into `applying`.
    private func collectApplyingRules(_ request: Request) {
        run(file.urlPrograms, over: request.url.string, seen: &urlSeen, into: &matchedURLPatterns)
        // The matched patterns' rules (a few), sorted, then merged with the rules that match
        // every URL (thousands in EasyList, sorted in the file): no sort of the whole list.
        matchedRules.removeAll(keepingCapacity: true)
        for pattern in matchedURLPatterns {
            let start = Int(file.patternRuleStart[Int(pattern)])
            let end = Int(file.patternRuleStart[Int(pattern) + 1])
            matchedRules.append(contentsOf: file.patternRules[start..<end])
        }
        Self.reset(&urlSeen, &matchedURLPatterns)
        matchedRules.sort()
        candidates.removeAll(keepingCapacity: true)
        var universal = file.universalRules[...]
        for slot in matchedRules {
            while let first = universal.first, first < slot {
                candidates.append(first)
                universal.removeFirst()
            }
            candidates.append(slot)
        }
        candidates.append(contentsOf: universal)

        applying.removeAll(keepingCapacity: true)
        var isThirdParty: Bool?
        var topDone = false
        var frameDone = false
        let resourceType = request.resourceType.rawValue
        let loadContext = request.loadContext.rawValue
        let method = request.method.map { UInt8(RequestMethod.allCases.firstIndex(of: $0)! + 1) } ?? 0
        for slot in candidates {
            let rule = file.rules[Int(slot)]
            if rule.resourceTypes != 0 && rule.resourceTypes & resourceType == 0 { continue }
            if rule.loadContexts != 0 && rule.loadContexts & loadContext == 0 { continue }
            if rule.method != 0 && rule.method != method { continue }
            if rule.loadTypes != 0 {
                let thirdParty = isThirdParty ?? request.isThirdParty
                isThirdParty = thirdParty
                let loadType = thirdParty ? LoadTypes.thirdParty.rawValue : LoadTypes.firstParty.rawValue
                if rule.loadTypes & loadType == 0 { continue }
            }
            let entries = file.conditions[Int(rule.conditionStart)..<Int(rule.conditionStart + rule.conditionCount)]
            switch rule.condition {
            case .none: break
            case .never: continue
            case .ifTopURL, .unlessTopURL:
                if !topDone {
                    run(file.topURLPrograms, over: request.mainDocumentURL.string, seen: &topSeen, into: &matchedTopPatterns)
                    topDone = true
                }
                let holds = entries.contains { topSeen[Int($0)] }
                if holds != (rule.condition == .ifTopURL) { continue }
            case .ifFrameURL, .unlessFrameURL:
                if !frameDone {
                    run(file.framePrograms, over: request.frameURL.string, seen: &frameSeen, into: &matchedFramePatterns)
                    frameDone = true
                }
                let holds = entries.contains { frameSeen[Int($0)] }
                if holds != (rule.condition == .ifFrameURL) { continue }
            }
            applying.append(slot)
        }
        Self.reset(&topSeen, &matchedTopPatterns)
        Self.reset(&frameSeen, &matchedFramePatterns)
    }
}
