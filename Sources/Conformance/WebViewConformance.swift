// WebViewConformance.swift — Conformance
//
// BlockBench against what a real WebKit web view does (`blockbench conform --against webkit-view`).
// A plan's pages are loaded twice by the same WebKitGTK: without rules (the control) and with the
// list compiled by WebKit's own content rule list store. Then, request by request:
//  - blocked: the control run sent it and the run with the list did not;
//  - made HTTPS: the run with the list sent the https: form of an http: request instead;
//  - cookies blocked: the control run sent it with the cookie set for its host and the run with the
//    list sent it without;
// and BlockBench's outcome for the same request (as ViewPlan models it) must say the same: `block`
// among its actions, else `make-https`, and `block-cookies`. A request the control run never sent
// is left out and counted (WebKit did not make it: mixed content, a URL it rewrote, an element it
// did not load); so is every request of a page whose own load was blocked.
//
// Element hiding: each page holds targets built to match css-display-none selectors (those
// BlockBench applies to the page, others of the list, and a share of the global style sheet). A
// target is hidden by WebKit when its computed display is none with the list and not without it;
// BlockBench hides it when one of the selectors it applies to the page matches it, as the
// browser's own selector engine decides. A page gets what every load it makes brings
// (docs/SEMANTICS.md §4): the selectors of each css-display-none action of its document load and
// of each request it sent (blocked or not) except its child frames' own loads, which style the
// frame's document, and the global style sheet when any of those loads has no
// ignore-previous-rules acting.
// Tested by ConformanceTests (WebViewTests: verdicts read from two made-up passes); against a real
// web view by .ci/run.

internal import Search
internal import ContentBlocker
internal import ContentRuleList
import Foundation
internal import RequestContext
public import Corpus
public import Engines
internal import TerminalText

public struct WebViewDifference: Sendable, Codable {
    public var page: Int
    public var pageURL: String
    /// The corpus row (0: the page's own load; -1: an element).
    public var row: Int
    public var url: String
    public var what: String
    public var ours: String
    public var webKit: String
}

/// What WebKit and BlockBench did with one request ("blocked", "sent", "made https", each maybe
/// "without cookies") or one element ("hidden", "shown"; `type` "element", `url` its selector).
public struct ViewVerdict: Sendable, Codable, Hashable {
    public var page: Int
    public var url: String
    public var type: String
    public var webKit: String
    public var ours: String
}

public struct WebViewResult: Sendable, Codable {
    public var list: String
    public var requests: Int = 0
    public var pageLoads: Int = 0
    public var compared: Int = 0
    /// Requests left out, by reason.
    public var leftOut: [String: Int] = [:]
    public var blockedByBoth = 0
    public var madeHTTPSByBoth = 0
    public var cookiesBlockedByBoth = 0
    /// Requests whose Cookie header could be compared (the control run sent the cookie).
    public var cookieChecks = 0
    public var elements = 0
    public var hiddenByBoth = 0
    public var elementsLeftOut: [String: Int] = [:]
    public var differences: [WebViewDifference] = []
    /// Differences that did not come back when their pages were loaded again.
    public var unreproduced: [WebViewDifference] = []
    /// Every verdict, when recorded (`WebViewConformance.recordsVerdicts`).
    public var verdicts: [ViewVerdict] = []
    /// The pass with the list, and the control pass (shared by the lists of one run).
    public var seconds: Double = 0
    public var controlSeconds: Double = 0
    public var passed: Bool { differences.isEmpty }

    public var text: String {
        var lines = [
            String(
                format: "%@: %@ requests in %@ page loads, %@ compared (%@ blocked, %@ made https, %@ cookies blocked of %@ checked), %@ elements (%@ hidden), %@ differences, %.1f s (control pass %.1f s)",
                list, requests.grouped, pageLoads.grouped, compared.grouped, blockedByBoth.grouped, madeHTTPSByBoth.grouped,
                cookiesBlockedByBoth.grouped, cookieChecks.grouped, elements.grouped, hiddenByBoth.grouped, differences.count.grouped, seconds,
                controlSeconds)
        ]
        if !leftOut.isEmpty {
            lines.append("  requests left out: " + leftOut.sorted { $0.key < $1.key }.map { "\($0.value.grouped) \($0.key)" }.joined(separator: ", "))
        }
        if !unreproduced.isEmpty {
            lines.append("  \(unreproduced.count.grouped) differences did not come back when their pages were loaded again (the view's timing):")
            for difference in unreproduced.prefix(5) {
                lines.append("    page \(difference.page) \(difference.what) \(difference.url): first ours \(difference.ours), WebKit \(difference.webKit)")
            }
        }
        if !elementsLeftOut.isEmpty {
            lines.append("  elements left out: " + elementsLeftOut.sorted { $0.key < $1.key }.map { "\($0.value.grouped) \($0.key)" }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }
}

public struct WebViewConformance {
    public var runner: WebViewRunner
    /// A scratch folder for the passes' pages and logs.
    public var scratch: String
    /// Targets per page load: from the selectors BlockBench applies, from the list's other
    /// css-display-none rules, and from the global style sheet.
    public var appliedTargets = 12
    public var otherTargets = 8
    public var globalTargets = 8
    /// Whether results list every request's and element's verdicts (vectors are written from them).
    public var recordsVerdicts = false
    /// Whether pages that showed differences are loaded again before the differences count.
    public var rechecksDifferences = true
    public var progress: (@Sendable (String) -> Void)?

    public init(runner: WebViewRunner, scratch: String) {
        self.runner = runner
        self.scratch = scratch
    }

    /// Every list against `plan`, after one control pass; results in list order.
    public func run(plan: ViewPlan, lists: [(name: String, json: [UInt8])]) throws -> [WebViewResult] {
        // Each list gets its own targets (numbered apart: list k's from k * 100,000 on). The
        // control pass loads every list's targets at once: its requests are the same for all.
        var prepared: [(name: String, json: [UInt8], plan: ViewPlan, outcomes: [[MatchOutcome]])] = []
        var control = plan
        for (number, (name, json)) in lists.enumerated() {
            let list: RuleList
            switch RuleListParser.parse(json) {
            case .success(let parsed): list = parsed
            case .failure(let error): throw WebViewError.failed("\(name) is not a valid rule list: \(error)")
            }
            // As a browser runs it: compiled, written, loaded (validated).
            let compiled = try CompiledRuleList(validating: RuleListCompiler.compile(list).0.serialized())
            let evaluator = Evaluator(compiled)
            let matcher = { evaluator.outcome(for: $0) }
            var listPlan = plan
            var outcomes: [[MatchOutcome]] = []
            let styleRules = StyleRules(list, compiled.file)
            for index in listPlan.loads.indices {
                let load = listPlan.loads[index]
                let pageOutcomes = ([load.document] + load.subresources).map { matcher($0.request) }
                outcomes.append(pageOutcomes)
                let (targets, candidates, global) = targets(for: load, outcomes: pageOutcomes, styleRules: styleRules, firstID: number * 100_000 + 1)
                listPlan.loads[index].targets = targets
                listPlan.loads[index].candidates = candidates
                listPlan.loads[index].globalCandidates = global
                control.loads[index].targets += targets
            }
            prepared.append((name, json, listPlan, outcomes))
        }
        progress?("control pass (no rules): \(control.loads.count) page loads")
        let controlPass = try runner.pass(control, rules: nil, name: "control", scratch: scratch)
        var results: [WebViewResult] = []
        for (name, json, listPlan, outcomes) in prepared {
            progress?("\(name): \(listPlan.loads.count) page loads")
            let withList = try runner.pass(listPlan, rules: json, name: "rules", scratch: scratch)
            var result = compare(plan: listPlan, outcomes: outcomes, control: controlPass, withList: withList)
            result.list = name
            result.seconds = withList.seconds
            result.controlSeconds = controlPass.seconds
            if !result.differences.isEmpty && rechecksDifferences {
                result = try recheck(result, plan: listPlan, outcomes: outcomes, json: json)
            }
            results.append(result)
        }
        return results
    }

    /// Loads the pages that showed differences again, each after the page before it (so its
    /// frame URL is the same), with and without the list: a difference that does not come back
    /// was the view's timing (a load that timed out in one pass), not a verdict. Those are counted
    /// and listed apart (`unreproduced`); the rest stay differences.
    func recheck(_ first: WebViewResult, plan: ViewPlan, outcomes: [[MatchOutcome]], json: [UInt8]) throws -> WebViewResult {
        let pages = Set(first.differences.map(\.page))
        var keep: [Int] = []
        for page in pages.sorted() {
            if page > 0 && !pages.contains(page - 1) && keep.last != page - 1 { keep.append(page - 1) }
            keep.append(page)
        }
        var again = plan
        again.loads = keep.map { plan.loads[$0] }
        again = again.sequenced()
        progress?("\(first.list): loading \(pages.count) pages with differences again")
        let control = try runner.pass(again, rules: nil, name: "control-again", scratch: scratch)
        let withList = try runner.pass(again, rules: json, name: "rules-again", scratch: scratch)
        let second = compare(plan: again, outcomes: keep.map { outcomes[$0] }, control: control, withList: withList)
        // The second run's differences, numbered as the first run's pages.
        let persisting = Set(second.differences.map { "\(keep[$0.page]) \($0.what) \($0.url)" })
        var result = first
        result.differences = first.differences.filter { persisting.contains("\($0.page) \($0.what) \($0.url)") }
        result.unreproduced = first.differences.filter { !persisting.contains("\($0.page) \($0.what) \($0.url)") }
        result.seconds += control.seconds + withList.seconds
        return result
    }

    /// Runs a web-view vector: WebKit must still do what it says, and BlockBench the same. The
    /// problems, none when it holds.
    public func check(_ vector: WebViewVector) throws -> (result: WebViewResult, problems: [String]) {
        var conformance = self
        conformance.recordsVerdicts = true
        let result = try conformance.run(plan: vector.plan, lists: [(name: vector.test, json: Array(vector.rules.utf8))])[0]
        var problems: [String] = []
        let seen = Dictionary(result.verdicts.map { ("\($0.page) \($0.type) \($0.url)", $0) }, uniquingKeysWith: { first, _ in first })
        for expected in vector.expected {
            guard let got = seen["\(expected.page) \(expected.type) \(expected.url)"] else {
                problems.append("page \(expected.page) \(expected.type) \(expected.url): WebKit did not show it (the vector says \(expected.webKit))")
                continue
            }
            if got.webKit != expected.webKit {
                problems.append("page \(expected.page) \(expected.type) \(expected.url): WebKit \(got.webKit), the vector says \(expected.webKit)")
            }
        }
        for difference in result.differences {
            problems.append("page \(difference.page) \(difference.what) \(difference.url): ours \(difference.ours), WebKit \(difference.webKit)")
        }
        return (result, problems)
    }

    /// The list's css-display-none rules: the global style sheet's selectors (the compiler's
    /// choice, read from the file) and the others.
    struct StyleRules {
        var global: [String] = []
        var other: [String] = []
        /// The single selectors of each, those a target can be built for.
        var globalParts: [String] = []
        var otherParts: [String] = []

        init(_ list: RuleList, _ file: CompiledFile) {
            let globalRules = Set(file.rules.filter { $0.role == .globalStyleSheet }.map { RuleIndex(Int($0.ruleIndex)) })
            for rule in list.rules {
                guard case .cssDisplayNone(let selector) = rule.action else { continue }
                if globalRules.contains(rule.index) { global.append(selector) } else { other.append(selector) }
            }
            globalParts = global.flatMap(WebViewConformance.split).filter { TargetMarkup.parse($0) != nil }
            otherParts = other.flatMap(WebViewConformance.split).filter { TargetMarkup.parse($0) != nil }
        }
    }

    /// Targets for a page load, and the candidate selector lists it reads back.
    func targets(
        for load: ViewPageLoad, outcomes: [MatchOutcome], styleRules: StyleRules, firstID: Int
    ) -> ([ViewTarget], [[String]], Range<Int>) {
        var candidates: [[String]] = []
        var applied: [String] = []
        for outcome in outcomes {
            for case .cssDisplayNone(let selector) in outcome.actions.flattened where !candidates.contains([selector]) {
                candidates.append([selector])
                applied += Self.split(selector)
            }
        }
        // The global style sheet, a few hundred selectors a candidate (each its own rule: the
        // page reads a refused one apart from the rest; see ViewPage).
        let globalStart = candidates.count
        for start in stride(from: 0, to: styleRules.global.count, by: 300) {
            candidates.append(Array(styleRules.global[start..<min(start + 300, styleRules.global.count)]))
        }
        var selectors: [String] = []
        var seen = Set<String>()
        func take(_ pool: [String], _ count: Int, seed: Int) {
            guard !pool.isEmpty else { return }
            var taken = 0
            var attempt = 0
            while taken < count && attempt < count * 6 {
                let selector = pool[Int(UInt(bitPattern: seed &* 2_654_435_761 &+ attempt &* 40_503) % UInt(pool.count))]
                attempt += 1
                for part in Self.split(selector) where taken < count && TargetMarkup.parse(part) != nil && seen.insert(part).inserted {
                    selectors.append(part)
                    taken += 1
                }
            }
        }
        if let fixed = load.targetSelectors {
            selectors = fixed
        } else {
            take(applied, appliedTargets, seed: load.index)
            take(styleRules.otherParts, otherTargets, seed: load.index &+ 1)
            take(styleRules.globalParts, globalTargets, seed: load.index &+ 2)
        }
        var targets: [ViewTarget] = []
        for selector in selectors {
            let id = firstID + targets.count
            if let html = TargetMarkup.markup(for: selector, id: id) {
                targets.append(ViewTarget(id: id, selector: selector, html: html))
            }
        }
        return (targets, candidates, globalStart..<candidates.count)
    }

    /// A selector list's selectors (commas inside brackets, parentheses and quotes do not split).
    static func split(_ list: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var depth = 0
        var quote: Character?
        for character in list {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "[" || character == "(" {
                depth += 1
            } else if character == "]" || character == ")" {
                depth -= 1
            } else if character == "," && depth == 0 {
                parts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
                continue
            }
            current.append(character)
        }
        parts.append(current.trimmingCharacters(in: .whitespaces))
        return parts.filter { !$0.isEmpty }
    }

    /// The URL as it reaches a server: without its fragment.
    static func wire(_ url: String) -> String {
        url.firstIndex(of: "#").map { String(url[..<$0]) } ?? url
    }

    /// The https: form of an http: URL, as make-https rewrites it (canonical URLs carry no
    /// default port).
    static func upgraded(_ url: String) -> String? {
        url.hasPrefix("http://") ? "https://" + url.dropFirst("http://".count) : nil
    }

    /// A request's fate in words: blocked, sent or made https, and whether its cookie was kept
    /// from it.
    static func verdict(blocks: Bool, upgrades: Bool, stripsCookies: Bool) -> String {
        (blocks ? "blocked" : upgrades ? "made https" : "sent") + (stripsCookies ? " without cookies" : "")
    }

    /// Both passes read against BlockBench's outcomes, page load by page load: the page's own load
    /// and its requests, then its elements.
    func compare(plan: ViewPlan, outcomes: [[MatchOutcome]], control: ViewPass, withList: ViewPass) -> WebViewResult {
        var result = WebViewResult(list: "")
        result.pageLoads = plan.loads.count
        for (position, load) in plan.loads.enumerated() {
            result.requests += load.subresources.count
            let page = PageComparison(load: load, outcomes: outcomes[position], control: control, withList: withList, recordsVerdicts: recordsVerdicts)
            guard let madeInControl = page.compareRequests(into: &result) else { continue }
            page.compareElements(madeInControl: madeInControl, into: &result)
        }
        return result
    }
}

/// One page load compared: what the control pass and the pass with the list sent, and what each
/// showed, against BlockBench's outcome for each of the load's requests.
private struct PageComparison {
    typealias Judged = (webKit: String, ours: String, cookieChecked: Bool)

    let load: ViewPageLoad
    /// The page's own load's outcome first, then each subresource's.
    let outcomes: [MatchOutcome]
    let control: ViewPass
    let withList: ViewPass
    let recordsVerdicts: Bool
    /// Requests, one per URL: a URL sent twice (a preload and its use, a retry) counts once.
    let controlByURL: [String: ViewLoggedRequest]
    let listByURL: [String: ViewLoggedRequest]

    init(load: ViewPageLoad, outcomes: [MatchOutcome], control: ViewPass, withList: ViewPass, recordsVerdicts: Bool) {
        self.load = load
        self.outcomes = outcomes
        self.control = control
        self.withList = withList
        self.recordsVerdicts = recordsVerdicts
        controlByURL = Dictionary((control.requestsByPage[load.index] ?? []).map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        listByURL = Dictionary((withList.requestsByPage[load.index] ?? []).map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
    }

    var page: Int { load.index }

    func difference(row: Int, url: String, what: String, ours: String, webKit: String, into result: inout WebViewResult) {
        result.differences.append(WebViewDifference(page: page, pageURL: load.url, row: row, url: url, what: what, ours: ours, webKit: webKit))
    }

    /// Both verdicts on a request the control run sent, or nil when it did not.
    func judge(_ request: ViewRequest, _ outcome: MatchOutcome) -> Judged? {
        let wire = WebViewConformance.wire(request.url)
        guard let sent = controlByURL[wire] else { return nil }
        let actions = outcome.actions.flattened
        let oursBlocks = actions.contains(.block)
        let oursUpgrades = !oursBlocks && actions.contains(.makeHTTPS)
        let asSent = listByURL[wire]
        let asUpgraded = WebViewConformance.upgraded(wire).flatMap { listByURL[$0] }
        let webKitBlocks = asSent == nil && asUpgraded == nil
        let webKitUpgrades = asSent == nil && asUpgraded != nil
        // The Cookie header tells only where the control run sent the cookie and the
        // request went out with the list.
        let cookieChecked = !webKitBlocks && sent.cookie?.contains("bb=1") == true
        let webKitStrips = cookieChecked && (asSent ?? asUpgraded)?.cookie?.contains("bb=1") != true
        let oursStrips = cookieChecked && !oursBlocks && actions.contains(.blockCookies)
        return (
            WebViewConformance.verdict(blocks: webKitBlocks, upgrades: webKitUpgrades, stripsCookies: webKitStrips),
            WebViewConformance.verdict(blocks: oursBlocks, upgrades: oursUpgrades, stripsCookies: oursStrips), cookieChecked)
    }

    /// A judged request counted: a difference, or a verdict both sides share.
    func tally(_ request: ViewRequest, _ outcome: MatchOutcome, _ judged: Judged, into result: inout WebViewResult) {
        let what = request.kind.map { "\($0) request" } ?? "page load"
        if recordsVerdicts {
            result.verdicts.append(ViewVerdict(page: page, url: request.url, type: request.kind.map { "\($0)" } ?? "page", webKit: judged.webKit, ours: judged.ours))
        }
        if judged.webKit != judged.ours {
            let actions = outcome.actions.flattened.map(\.typeName).joined(separator: ", ")
            difference(row: request.row, url: request.url, what: what, ours: judged.ours + " (actions: \(actions))", webKit: judged.webKit, into: &result)
            return
        }
        // The counts are of the set's requests; a page's own load is compared, not counted.
        guard request.kind != nil else { return }
        if judged.ours.hasPrefix("blocked") { result.blockedByBoth += 1 }
        if judged.ours.hasPrefix("made https") { result.madeHTTPSByBoth += 1 }
        if judged.cookieChecked && !judged.ours.hasPrefix("blocked") { result.cookieChecks += 1 }
        if judged.ours.hasSuffix("without cookies") { result.cookiesBlockedByBoth += 1 }
    }

    /// The page's own load, then its requests; the offsets of the subresources the control run
    /// made, or nil when the page's requests are left out (the page was not loaded as itself).
    func compareRequests(into result: inout WebViewResult) -> Set<Int>? {
        // The page's own load: its requests are compared only when it loaded as itself.
        guard let documentVerdict = judge(load.document, outcomes[0]) else {
            result.leftOut["of a page the control run did not load", default: 0] += load.subresources.count
            return nil
        }
        tally(load.document, outcomes[0], documentVerdict, into: &result)
        if documentVerdict.webKit.hasPrefix("blocked") {
            result.leftOut["of a page whose load was blocked", default: 0] += load.subresources.count
            return nil
        }
        if documentVerdict.webKit.hasPrefix("made https") {
            // Another page: its http: requests are mixed content there.
            result.leftOut["of a page made https", default: 0] += load.subresources.count
            return nil
        }
        var madeInControl = Set<Int>()
        for (offset, subresource) in load.subresources.enumerated() {
            guard let judged = judge(subresource, outcomes[offset + 1]) else {
                result.leftOut["not sent in the control run (\(subresource.kind.map { "\($0)" } ?? "page"))", default: 0] += 1
                continue
            }
            madeInControl.insert(offset)
            result.compared += 1
            tally(subresource, outcomes[offset + 1], judged, into: &result)
        }
        return madeInControl
    }

    /// The page's targets: hidden by WebKit with the list, against hidden by the selectors
    /// BlockBench applies to the requests both runs made.
    func compareElements(madeInControl: Set<Int>, into result: inout WebViewResult) {
        guard let report = withList.pages[page], report.reported, let controlReport = control.pages[page], controlReport.reported else {
            result.elementsLeftOut["on a page whose script did not report"] = (result.elementsLeftOut["on a page whose script did not report"] ?? 0) + load.targets.count
            return
        }
        var applicable = Set<Int>()
        // A child frame's own load styles the frame's document, not the page.
        for (offset, outcome) in outcomes.enumerated()
        where offset == 0 || (madeInControl.contains(offset - 1) && load.subresources[offset - 1].kind != .childDocument) {
            for case .cssDisplayNone(let selector) in outcome.actions.flattened {
                if let candidate = load.candidates.firstIndex(of: [selector]) { applicable.insert(candidate) }
            }
            if outcome.appliesGlobalStyleSheet { applicable.formUnion(load.globalCandidates) }
        }
        for target in load.targets {
            if controlReport.hidden.contains(target.id) {
                result.elementsLeftOut["hidden without the list", default: 0] += 1
                continue
            }
            result.elements += 1
            let webKitHides = report.hidden.contains(target.id)
            let oursHides = applicable.contains { candidate in
                candidate < report.matches.count && report.matches[candidate]?.contains(target.id) == true
            }
            if recordsVerdicts {
                result.verdicts.append(ViewVerdict(page: page, url: target.selector, type: "element", webKit: webKitHides ? "hidden" : "shown", ours: oursHides ? "hidden" : "shown"))
            }
            if webKitHides != oursHides {
                difference(row: -1, url: target.selector, what: "element", ours: oursHides ? "hidden" : "shown", webKit: webKitHides ? "hidden" : "shown", into: &result)
            } else if webKitHides {
                result.hiddenByBoth += 1
            }
        }
    }
}
