// Evaluator.swift — ContentBlocker
//
// Request -> MatchOutcome over a compiled file, as MatchOutcome.swift defines it:
//
//  1. run the url programs over the request URL; the rules of the patterns reported, with the
//     rules that match every URL, are the candidates, in rule order;
//  2. keep the candidates whose flags accept the request and whose condition holds (the top-url
//     and frame-url programs run at most once per page, and only when a candidate needs them);
//  3. cut at the first ignore-following-rules and after the last ignore-previous-rules, and list the
//     actions at the acting rules' locations, in location order.
//
// Pages. Everything but step 1's URL programs depends on the request's page (main document and
// frame URLs) and flags only, and most of a big list's work is there: EasyList has thousands of
// rules that match every URL (css-display-none rules with unless-domain), so each request would
// check them all and list hundreds of actions. The evaluator does that once per page and flags (resource type, load
// context, method, and third party or upgradability when a rule that matches every URL looks at
// them) and keeps the last `pageCapacity` pages, as a browser keeps its open pages' style sheets
// (WebKit itself keeps its last top URL's actions). A request then costs its URL programs and the
// few rules they report: the outcome shares the page's lists (`SharedList`) and inserts those.
// When the page's rules include an ignore rule, its list is of the rules between its cuts (step 3),
// made once too; when the request's own rules do, the actions come from the rules between the cuts
// alone (`cutOutcome`).
//
// A new page. The rules that match every URL are indexed by the condition patterns they name:
// per flags, the evaluator keeps once the base list, for a page whose URLs match no condition
// pattern (the rules without a condition and the unless- ones: `UniversalsForFlags`); a new page
// then costs its condition programs' runs and an edit of that list by the few rules whose
// patterns its URLs matched (an unless-domain rule leaves, an if-domain rule joins), giving its
// `UniversalsForPage`, not a check of every rule. The edit is kept as such
// (`EditedList`: the base's arrays shared, the offsets removed and the entries added), so a new
// page neither copies the base's thousands of rules and actions nor frees them when it is
// dropped, and each outcome shares the base with the page's and its own edits (`SharedList`). The
// edited lists are values in the page's `Kept`, and a page that takes a dropped page's place refills
// that page's `Kept`s in place (`Page.spare`), so an edit reuses their storage rather than making
// and freeing objects and arrays per page. An evaluator that keeps no page checks every rule
// instead, the plain reading of step 2, which the tests hold the index to.
//
// The evaluator keeps its working memory (pattern marks, candidate lists) between requests: after
// the first few requests, matching allocates only the outcome it returns, and that only while the
// caller holds the last one (`MatchOutcome.Reusing`). One evaluator serves
// one thread at a time, and no access to its state overlaps another (the tests ran with Swift's
// checks): its stored state is `@exclusivity(unchecked)`, since a run-time check of each access to
// a class's property is a call per access, a sizeable share of a request on a small list.

internal import ContentRuleList
public import RequestContext
internal import Bytecode
public import Search

public final class Evaluator {
    let file: CompiledFile
    /// How many pages' universal rules the evaluator keeps (0: none; each request starts afresh).
    public var pageCapacity: Int { pageTable.capacity }
    @exclusivity(unchecked) private var topSeen: PatternMarks
    @exclusivity(unchecked) private var frameSeen: PatternMarks
    /// An answer's working memory (`Work`), kept between answers so that they allocate nothing.
    private let work: Work
    /// Which page each request is on (the evaluator's own, or the one its `ContentBlockers` shares
    /// among its lists).
    private let pageTable: PageTable
    /// What the evaluator knows of each page, by the page's place in `pageTable`. Pages stay where
    /// they are: moving the one used to the front would reallocate the list at every change of page.
    @exclusivity(unchecked) private var pages: [Page] = []
    /// The rules that match every URL by what a new set of flags reads of them: their flags and
    /// condition kinds, each distinct once (`universalGroups`, with how many rules each has), and
    /// each rule's group, in the rules' order (`universalGroupOf`). A set of flags checks each
    /// group once, then lists the rules of the groups it accepts.
    private let universalGroups: [HeldRule]
    private let universalGroupSizes: [Int]
    private let universalGroupOf: [UInt32]
    /// The rules by slot, as an answer reads them (HeldRules.swift): the file's records are let go.
    private let rules: HeldRules
    /// Per url pattern, the slots of its rules (the file's lists of every pattern's rules are let
    /// go).
    private let rulesOfURLPattern: URLPatternRules
    /// Whether a rule that matches every URL looks at the load type (third party) or is a
    /// make-https rule (upgradability): only then are these part of a page's flags.
    private let universalUsesLoadType: Bool
    let universalMakesHTTPS: Bool
    /// The bits of a request's flags (`requestFlags`) that the page's lists are kept by: the
    /// resource type, load context and method, and the party and upgradability when these are
    /// part of them.
    private let flagsMask: UInt64
    /// The rules that match every URL and name each top-url (frame-url) pattern in their
    /// condition: `universalOfTop[universalOfTopStart[p] ..< universalOfTopStart[p + 1]]`, slots.
    private let universalOfTopStart: [UInt32]
    private let universalOfTop: [UInt32]
    private let universalOfFrameStart: [UInt32]
    private let universalOfFrame: [UInt32]
    /// Per flags, the rules that match every URL and apply on a page that matches no condition
    /// pattern, `baseLists[i]` for flags `baseFlags[i]`. Flags seen are few (resource types x
    /// contexts x party): a scan of their keys, where a hash table hashed each new page's; past
    /// `baseCapacity`, all go.
    @exclusivity(unchecked) private var baseFlags: [UInt64] = []
    @exclusivity(unchecked) private var baseLists: [UniversalsForFlags] = []
    private static let baseCapacity = 64
    /// Interpreter steps (bytes read by every program run) since this evaluator was made: a
    /// machine-independent measure of matching work.
    @exclusivity(unchecked) public private(set) var steps = 0
    /// Program runs since this evaluator was made.
    @exclusivity(unchecked) public private(set) var programRuns = 0
    /// Pages made since this evaluator was made (a request whose page was not kept makes one).
    @exclusivity(unchecked) public private(set) var pagesMade = 0

    /// `denseBudget`: the memory the list's dense tables may take (Search/DenseBudget.swift), nil
    /// for the list's own (the budget it was read within; a list compiled here: the standard
    /// one). Another than the list's makes its programs' images anew: a list is best read within
    /// the budget it is to run in (`CompiledRuleList(validating:denseBudget:)`).
    public convenience init(_ list: CompiledRuleList, pageCapacity: Int = 16, denseBudget: DenseBudget? = nil) {
        self.init(list, pageTable: PageTable(capacity: pageCapacity), denseBudget: denseBudget)
    }

    /// An evaluator whose requests' pages `pageTable` finds (shared by several lists' evaluators:
    /// each request is then placed by the table once, before the lists are asked).
    init(_ list: CompiledRuleList, pageTable: PageTable, denseBudget: DenseBudget? = nil) {
        // (A list compiled here rather than read from a file has its programs' images made now;
        // the programs as read are let go, as a run reads their images alone, and so are the url
        // patterns' lists of rules and the rule records, which `rulesOfURLPattern` and `rules`
        // hold.)
        var file = list.file.prepared(denseBudget: denseBudget ?? list.denseBudget)
        file.urlPrograms = file.urlPrograms.runOnly()
        file.topURLPrograms = file.topURLPrograms.runOnly()
        file.framePrograms = file.framePrograms.runOnly()
        rulesOfURLPattern = URLPatternRules(start: file.patternRuleStart, slots: file.patternRules)
        let rules = HeldRules(file.rules)
        self.rules = rules
        (file.patternRuleStart, file.patternRules, file.rules) = ([], [], [])
        self.file = file
        self.pageTable = pageTable
        work = Work(urlSeen: PatternMarks(count: file.urlPatternCount))
        topSeen = PatternMarks(count: file.topPatternCount)
        frameSeen = PatternMarks(count: file.framePatternCount)
        universalUsesLoadType = file.universalRules.contains { rules[$0].loadTypes != 0 }
        universalMakesHTTPS = file.universalRules.contains { rules[$0].role == .makeHTTPS }
        flagsMask = 0xFFFF_FFFF | (universalUsesLoadType ? 3 << 32 : 0) | (universalMakesHTTPS ? 1 << 34 : 0)
        // (Numbered by their records less action and role, `RecordNumbering`: not a dictionary,
        // whose first use of a key type costs every load the runtime's setup of it.)
        var numbering = RecordNumbering(ruleCount: file.universalRules.count)
        var groupSizes: [Int] = []
        universalGroupOf = file.universalRules.map { slot in
            let group = numbering.place(of: rules[slot].flagsAndCondition)
            if Int(group) == groupSizes.count { groupSizes.append(1) } else { groupSizes[Int(group)] += 1 }
            return group
        }
        universalGroups = numbering.distinct
        universalGroupSizes = groupSizes
        (universalOfTopStart, universalOfTop) = Self.index(file, rules, patternCount: file.topPatternCount) {
            $0 == .ifTopURL || $0 == .unlessTopURL
        }
        (universalOfFrameStart, universalOfFrame) = Self.index(file, rules, patternCount: file.framePatternCount) {
            $0 == .ifFrameURL || $0 == .unlessFrameURL
        }
        precondition(
            RequestMethod.allCases.enumerated().allSatisfy { Self.methodCode($0.element) == $0.offset + 1 },
            "a method's code is its place among the cases")
        precondition(
            Self.loadContextBits(true) == LoadContexts.topFrame.rawValue && Self.loadContextBits(false) == LoadContexts.childFrame.rawValue,
            "a load context's bits are its option's")
        // The page lists' generic types, and the layout of the `Kept` that holds them, are set up
        // by the runtime when first used: here, at load, rather than in the first requests' answers.
        var ruleList = EditedList<RuleIndex>(keys: [], pool: [])
        EditedList<RuleIndex>(keys: [], pool: []).edit(&ruleList, removing: [], adding: [0])
        var actions = EditedList<Action>(keys: [], pool: [])
        EditedList<Action>(keys: [], pool: []).edit(&actions, removing: [], adding: [0])
        _ = Kept(
            UniversalsForPage(
                rules: EditedList(keys: [], pool: []), ignorePrevious: [], ignoreFollowing: [], low: nil, high: .max,
                actions: EditedList(keys: [], pool: [])))
    }

    /// What the evaluator holds once made, by structure (Search/HeldMemory.swift): its file's
    /// structures, its rules (HeldRules.swift), its indexes of the rules, and the working memory it
    /// sizes at load (pattern marks); not the pages it keeps nor the lists an answer grows as
    /// requests come.
    public var heldMemory: HeldMemory {
        var memory = file.heldMemory()
        rules.held("rules", into: &memory)
        let indexes = "evaluator: rule indexes"
        rulesOfURLPattern.held(indexes, into: &memory)
        memory.add(indexes, array: universalGroups)
        memory.add(indexes, array: universalGroupSizes)
        memory.add(indexes, array: universalGroupOf)
        memory.add(indexes, array: universalOfTopStart)
        memory.add(indexes, array: universalOfTop)
        memory.add(indexes, array: universalOfFrameStart)
        memory.add(indexes, array: universalOfFrame)
        let working = "evaluator: working memory"
        memory.add(working, topSeen.heldBytes)
        memory.add(working, frameSeen.heldBytes)
        memory.add(working, work.urlSeen.heldBytes)
        // (The lists an answer fills start empty: they grow to what the requests asked need.)
        memory.add(working, array: work.applying)
        return memory
    }

    /// The universal rules naming each pattern, for the rules whose condition `kind` accepts.
    private static func index(
        _ file: CompiledFile, _ rules: HeldRules, patternCount: Int, kind: (ConditionKind) -> Bool
    ) -> (start: [UInt32], slots: [UInt32]) {
        // Each pattern's rules counted, then placed in the universal rules' order (increasing
        // slots): each pattern's slots come out increasing, with no sort.
        let naming = file.universalRules.filter { kind(rules[$0].condition) }
        var start = [UInt32](repeating: 0, count: patternCount + 1)
        for slot in naming {
            for entry in rules.conditionEntries(of: slot) { start[Int(file.conditions[entry]) + 1] += 1 }
        }
        for pattern in 0..<patternCount { start[pattern + 1] += start[pattern] }
        var next = start
        var slots = [UInt32](repeating: 0, count: Int(start[patternCount]))
        for slot in naming {
            for entry in rules.conditionEntries(of: slot) {
                let pattern = Int(file.conditions[entry])
                slots[Int(next[pattern])] = slot
                next[pattern] += 1
            }
        }
        return (start, slots)
    }

    /// What the evaluator knows of one page: its condition patterns, once run, and per flags
    /// the rules that match every URL and apply.
    private final class Page {
        /// The page's top-url (frame-url) patterns, meaningful once run (`topRun`, `frameRun`).
        @exclusivity(unchecked) var topPatterns = WorkList<UInt32>()
        @exclusivity(unchecked) var framePatterns = WorkList<UInt32>()
        @exclusivity(unchecked) var topRun = false
        @exclusivity(unchecked) var frameRun = false
        /// Per flags seen on the page, its list (a page sees a few flags: a scan, not a hash table).
        @exclusivity(unchecked) var universal: [(flags: UInt64, kept: Kept)] = []
        /// The page's own `Kept`s (its edits of a base) of the pages that had its place before,
        /// refilled by its edits (`Kept.refill`): a new page's edit then allocates only what an
        /// outcome of the page before still holds, rather than objects and arrays made and freed
        /// per page.
        @exclusivity(unchecked) var spare: [Kept] = []

        /// This page, dropped, made another: its lists emptied with their storage kept (a page's
        /// list of flags grows to about ten entries, reallocated at each doubling; its patterns'
        /// lists are emptied when they are run again), its own `Kept`s kept for its edits.
        func reuse() {
            topRun = false
            frameRun = false
            // (Element by element: `removeAll(keepingCapacity:)` goes through the generic range
            // replacement, far more instructions than a few `removeLast` calls.)
            while let (_, kept) = universal.popLast() {
                if kept.isPageOwn { spare.append(kept) }
            }
        }
    }

    /// A page's `UniversalsForPage` as kept: handed to each of its requests by one reference,
    /// not as a copy of its lists.
    private final class Kept {
        /// (Read through a borrow, `_read`: an answer reading a stored `var` would copy it out, a
        /// retain and a release of each of its lists.)
        var universal: UniversalsForPage { _read { yield stored } }
        @exclusivity(unchecked) private var stored: UniversalsForPage
        /// The outcome of a request on the page to which no rule of its own applies (most
        /// requests): the page's lists as they are, made once rather than per request.
        var plainOutcome: MatchOutcome { _read { yield storedOutcome } }
        @exclusivity(unchecked) private var storedOutcome: MatchOutcome {
            didSet { lentOutcome = MatchOutcome.Unretained(storedOutcome) }
        }
        /// `storedOutcome` unretained, as an answer hands it out (`Answer.page`).
        @exclusivity(unchecked) private(set) var lentOutcome: MatchOutcome.Unretained
        /// Made for one page (an edit of its flags' base), not a base's own: the page's alone,
        /// refilled by the next page of its place (`Page.spare`).
        let isPageOwn: Bool

        init(_ universal: UniversalsForPage, isPageOwn: Bool = false) {
            stored = universal
            self.isPageOwn = isPageOwn
            let outcome = Self.plainOutcome(universal)
            storedOutcome = outcome
            lentOutcome = MatchOutcome.Unretained(outcome)
        }

        /// This page's own `Kept` made another page's: `edit` writes its lists in place (the
        /// plain outcome let go first, so that storage no other outcome holds is reused).
        func refill(_ edit: (inout UniversalsForPage) -> Void) {
            storedOutcome = .none
            edit(&stored)
            storedOutcome = Self.plainOutcome(stored)
        }

        private static func plainOutcome(_ universal: UniversalsForPage) -> MatchOutcome {
            MatchOutcome(
                actions: universal.actions.outcomeList, matchingRules: universal.rules.outcomeList,
                appliesGlobalStyleSheet: universal.low == nil)
        }
    }

    /// The rules that match every URL and apply on one page for one set of flags, with their cuts
    /// and the actions they list. A page's lists are its flags' base lists (shared, never copied)
    /// edited by the rules its conditions turn off or on (`EditedList`): a new page costs its
    /// edits, not a copy of the base's thousands of rules, and dropping it frees its edits only.
    private struct UniversalsForPage {
        /// The rules by slot, with their rule indices.
        var rules: EditedList<RuleIndex>
        /// Their ignore-previous-rules and ignore-following-rules rules' slots, in order.
        var ignorePrevious: [UInt32]
        var ignoreFollowing: [UInt32]
        /// An ignore rule among them: every outcome on the page is cut (step 3).
        var hasIgnoreRule: Bool { !ignorePrevious.isEmpty || !ignoreFollowing.isEmpty }
        /// Their own cuts (step 3): the rules after `low` (the last ignore-previous-rules before
        /// `high`), up to and including `high` (the first ignore-following-rules), act.
        var low: UInt32?
        var high: UInt32
        /// The actions the rules between the cuts list, by location: an outcome's list unless the
        /// request's own rules include an ignore rule.
        var actions: EditedList<Action>

        /// Whether a rule in `slot` (one of a request's) is between the cuts.
        func acts(_ slot: UInt32) -> Bool { slot <= high && low.map { slot > $0 } ?? true }
    }

    /// The base list of one set of flags: the rules that match every URL and apply, for these
    /// flags, on a page whose URLs match none of their condition patterns (those without a
    /// condition and the unless- ones). A page's `UniversalsForPage` is this list edited by the
    /// patterns its URLs match. (A class: a new page's lookup hands it over by one reference, not
    /// as a copy of its lists.)
    private final class UniversalsForFlags {
        let universal: UniversalsForPage
        /// `universal` as kept for the pages whose conditions leave it as it is.
        let kept: Kept
        /// Without an ignore rule: how many of its rules list each location of `universal.actions`.
        let locationUses: [Int]
        /// Whether a rule the flags accept has a top-url (frame-url) condition.
        let readsTop: Bool
        let readsFrame: Bool

        init(universal: UniversalsForPage, kept: Kept, locationUses: [Int], readsTop: Bool, readsFrame: Bool) {
            self.universal = universal
            self.kept = kept
            self.locationUses = locationUses
            self.readsTop = readsTop
            self.readsFrame = readsFrame
        }
    }

    /// The working memory of one answer, kept by the evaluator and used in place (its lists'
    /// accesses unchecked, as the evaluator's own state is).
    private final class Work {
        /// The url patterns reported so far (each listed once in `matchedURLPatterns`).
        @exclusivity(unchecked) var urlSeen: PatternMarks
        @exclusivity(unchecked) var matchedURLPatterns = WorkList<UInt32>()
        /// The candidates, then the slots of those that apply (`extra`) and act (`applying`).
        @exclusivity(unchecked) var matchedRules = WorkList<CandidateRule>()
        @exclusivity(unchecked) var extra = WorkList<UInt32>()
        @exclusivity(unchecked) var applying: [UInt32] = []
        /// The acting rules' locations (`listLocations`), and the programs' stage ends.
        @exclusivity(unchecked) var locations = WorkList<UInt32>()
        @exclusivity(unchecked) var stageEnds: [Int] = []
        /// The insertions of an outcome's actions and rules when more than one
        /// (`EditedList.insertions(of:spilling:)`).
        @exclusivity(unchecked) var actionInsertions = WorkList<ListInsertion>()
        @exclusivity(unchecked) var ruleInsertions = WorkList<ListInsertion>()
        /// The outcomes of requests with rules of their own, each in the last one's storage once
        /// the caller dropped that one.
        @exclusivity(unchecked) var outcomes = MatchOutcome.Reusing()

        init(urlSeen: PatternMarks) { self.urlSeen = urlSeen }
    }

    /// The working lists of a page's edit (`editedBase`), kept between pages so that an edit
    /// allocates only what the page keeps; used in place, as `Work` is.
    private final class EditWork {
        /// The universal rules the page's matched patterns name (some twice), then those that leave
        /// its base and join it, and the action locations that change.
        @exclusivity(unchecked) var named: [UInt32] = []
        @exclusivity(unchecked) var leaving: [UInt32] = []
        @exclusivity(unchecked) var joining: [UInt32] = []
        @exclusivity(unchecked) var changes: [(location: UInt32, change: Int)] = []
        @exclusivity(unchecked) var removing: [UInt32] = []
        @exclusivity(unchecked) var adding: [UInt32] = []
    }
    private let editWork = EditWork()

    /// The condition programs' stage ends (working memory, as `Work.stageEnds` is the url programs').
    @exclusivity(unchecked) private var conditionEnds: [Int] = []

    /// What a request's marks came from, to undo them: the page's lists, read in place (the page
    /// is held, and its lists not written, until the answer unmarks them; no reference counted).
    @exclusivity(unchecked) private var markedTop: UnsafeMutableBufferPointer<UInt32>?
    @exclusivity(unchecked) private var markedFrame: UnsafeMutableBufferPointer<UInt32>?

    /// Runs `programs` over `url`, marking each reported pattern once in `seen` and listing it.
    private func run(
        _ programs: ProgramSet, over url: String, seen: inout PatternMarks, into matched: inout WorkList<UInt32>, ends: inout [Int]
    ) {
        Self.withBytes(url) { run(programs, over: $0, seen: &seen, into: &matched, ends: &ends) }
    }

    /// `run(_:over:seen:into:ends:)` over a URL's bytes, with its host labels when a caller asking
    /// several lists read them once for all. `wholeSteps`: the domain table was looked up and the
    /// whole programs run already (`runWhole`), taking these steps; `lookedUp`: the tables looked
    /// up already with other lists' (`lookUpDomains`, `lookUpHostContexts`).
    @inline(__always)
    private func run(
        _ programs: ProgramSet, over url: UnsafeBufferPointer<UInt8>, hostReading: DomainTable.HostReading? = nil, wholeSteps: Int? = nil,
        lookedUp: ProgramSet.LookedUp = [], seen: inout PatternMarks, into matched: inout WorkList<UInt32>, ends: inout [Int]
    ) {
        let (steps, runs) = programs.run(url, hostReading: hostReading, ends: &ends, wholeSteps: wholeSteps, lookedUp: lookedUp) { pattern in
            Self.mark(pattern, in: &seen, listing: &matched)
        }
        // (Wrapping adds: counts of a machine's lifetime of requests, never near Int's limit, and
        // an overflow check per run is two instructions on every list's every answer.)
        self.steps &+= steps
        programRuns &+= runs
    }

    /// `body` over `string`'s UTF-8 bytes: where they lie when the string is native (a copy for
    /// `withUTF8` would retain and release the string, two atomic operations per request).
    @inline(__always)
    static func withBytes<Result>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
        var string = string
        return string.withUTF8(body)
    }

    /// The pass of `a`'s and `b`'s whole url programs together (two lists asked about each
    /// request; `runWhole`), nil when they cannot be run so.
    static func wholeTogether(_ a: Evaluator, _ b: Evaluator) -> ProgramSet.WholeTogether? {
        ProgramSet.WholeTogether(a.file.urlPrograms, b.file.urlPrograms)
    }

    /// Runs the domain tables and the whole url programs of `a` and `b` over `url`'s bytes (whose
    /// host labels are `labels`) together (`together`, made for the two by `wholeTogether`), their
    /// patterns marked and listed and their gates listed as each one's answer would; returns the
    /// steps each answer is then given (`outcome(for:at:flags:url:hostReading:wholeSteps:)`).
    static func runWhole(
        _ a: Evaluator, _ b: Evaluator, _ together: ProgramSet.WholeTogether, url: UnsafeBufferPointer<UInt8>,
        labels: DomainTable.HostLabels?
    ) -> (Int, Int) {
        let (workA, workB) = (a.work, b.work)
        return together.run(
            url, labels: labels, endsA: &workA.stageEnds, endsB: &workB.stageEnds,
            reportA: { mark($0, in: &workA.urlSeen, listing: &workA.matchedURLPatterns) },
            reportB: { mark($0, in: &workB.urlSeen, listing: &workB.matchedURLPatterns) })
    }

    /// The lookup of the domain tables of `lists`' url programs together (several lists asked
    /// about each request; `lookUpDomains`), nil when fewer than two have one.
    static func domainsTogether(_ lists: [Evaluator]) -> ProgramSet.DomainsTogether? {
        ProgramSet.DomainsTogether(lists.map(\.file.urlPrograms))
    }

    /// Those of `lists` whose tables `together` looks up (`lookUpDomains`' `emptied`): found once,
    /// not by reading `together`'s two flags per list at every request.
    static func domainsLookedUp(_ lists: [Unmanaged<Evaluator>], by together: ProgramSet.DomainsTogether) -> [Unmanaged<Evaluator>] {
        lists.indices.filter { together.looksUp[$0] || together.looksUpContexts[$0] }.map { lists[$0] }
    }

    /// Looks up the url domain tables and host contexts of `lists` (those `together` looks up,
    /// made for them by `domainsTogether`) over `url`'s bytes, whose host labels are `labels`,
    /// their patterns marked and listed and their gates listed as each one's answer would; each
    /// such list's answer is then given `.domains` (`.hostContexts`) looked up
    /// (`outcome(for:at:flags:url:hostReading:wholeSteps:lookedUp:)`). `emptied`: those of `lists`
    /// that `together` looks up, whose working gates are emptied first (`domainsLookedUp`).
    static func lookUpDomains(
        _ lists: [Unmanaged<Evaluator>], emptying emptied: [Unmanaged<Evaluator>], _ together: ProgramSet.DomainsTogether,
        url: UnsafeBufferPointer<UInt8>, labels: DomainTable.HostLabels?
    ) {
        for list in emptied.indices { emptied[list]._withUnsafeGuaranteedRef { clear(&$0.work.stageEnds) } }
        together.lookUp(url, labels: labels) { list, pattern, gateBase, byContext in
            lists[list]._withUnsafeGuaranteedRef { evaluator in
                let work = evaluator.work
                ProgramSet.listed(pattern, gateBase: gateBase, byContext: byContext, &work.stageEnds) {
                    mark($0, in: &work.urlSeen, listing: &work.matchedURLPatterns)
                }
            }
        }
    }

    /// The lookup of the host contexts of `lists`' url programs together (`lookUpHostContexts`),
    /// nil unless two or more have contexts of one L. (Where their domain tables are looked up
    /// together, `domainsTogether` looks up their contexts.)
    static func hostContextsTogether(_ lists: [Evaluator]) -> ProgramSet.HostContextsTogether? {
        ProgramSet.HostContextsTogether(lists.map(\.file.urlPrograms))
    }

    /// Looks up the url host contexts of `lists` (those `together` looks up, made for them by
    /// `hostContextsTogether`) over `url`'s bytes, their patterns marked and listed and their gates
    /// listed as each one's answer would, after the gates of the lookups before (`listed`: a list
    /// whose working gates were emptied by them); each such list's answer is then given
    /// `.hostContexts` looked up.
    static func lookUpHostContexts(
        _ lists: [Unmanaged<Evaluator>], _ together: ProgramSet.HostContextsTogether, url: UnsafeBufferPointer<UInt8>,
        labels: DomainTable.HostLabels?, listed: [Bool]
    ) {
        for (list, looksUp) in together.looksUp.enumerated() where looksUp && !listed[list] {
            lists[list]._withUnsafeGuaranteedRef { clear(&$0.work.stageEnds) }
        }
        together.lookUp(url, labels: labels) { list, pattern, gateBase in
            lists[list]._withUnsafeGuaranteedRef { evaluator in
                let work = evaluator.work
                ProgramSet.found(pattern, 0, gateBase: gateBase, &work.stageEnds) {
                    mark($0, in: &work.urlSeen, listing: &work.matchedURLPatterns)
                }
            }
        }
    }

    /// Marks `pattern` in `seen` and lists it in `matched` unless it was marked. (Out of line: the
    /// programs' loops call it where they report, rarely (most requests report few patterns),
    /// and a step's code kept to the step alone is faster at every byte; inlined, it made every
    /// step of the single runs longer: docs/decisions/DECISIONS.md.)
    @inline(never)
    private static func mark(_ pattern: UInt32, in seen: inout PatternMarks, listing matched: inout WorkList<UInt32>) {
        if seen.insert(pattern) { matched.append(pattern) }
    }

    /// What this evaluator knows of the page at `place`, emptied when the page is new there.
    @inline(__always)
    private func page(at place: PageTable.Place) -> Page {
        guard place.slot >= 0 else {
            pagesMade += 1
            return Page()
        }
        if place.isNew {
            pagesMade += 1
            // (The table fills its places in order: a new place is the next one.)
            if place.slot < pages.count { pages[place.slot].reuse() } else { pages.append(Page()) }
        }
        return pages[place.slot]
    }

    /// Whether `candidate` applies to `request` on `page`, its url-filter aside (step 2).
    private func applies(_ candidate: CandidateRule, _ request: Request, _ page: Page, thirdParty: Bool) -> Bool {
        guard Self.flagsAccept(candidate.rule, request, thirdParty: thirdParty) else { return false }
        switch candidate.rule.condition {
        case .none: return true
        case .never: return false
        case .ifTopURL, .unlessTopURL: markTop(page, request)
        case .ifFrameURL, .unlessFrameURL: markFrame(page, request)
        }
        // (The condition's patterns: found by the rule's slot, for the few candidates with one.)
        let entries = rules.conditionEntries(of: candidate.slot)
        return file.conditions.withUnsafeBufferPointer { conditions in
            topSeen.withWords { top in
                frameSeen.withWords { frame in
                    Self.holds(candidate.rule, entries: entries, conditions: conditions, top: top, frame: frame)
                }
            }
        }
    }

    /// Whether `rule`'s flags accept `request` (`thirdParty`: worked out once per request).
    @inline(__always)
    private static func flagsAccept(_ rule: HeldRule, _ request: Request, thirdParty: Bool) -> Bool {
        flagsAccept(
            resourceTypes: rule.resourceTypes, loadTypes: rule.loadTypes, loadContexts: rule.loadContexts, method: rule.method, request,
            thirdParty: thirdParty)
    }

    @inline(__always)
    private static func flagsAccept(
        resourceTypes: UInt16, loadTypes: UInt8, loadContexts: UInt8, method: UInt8, _ request: Request, thirdParty: Bool
    ) -> Bool {
        if resourceTypes != 0 && resourceTypes & request.resourceType.rawValue == 0 { return false }
        if loadContexts != 0 && loadContexts & loadContextBits(request) == 0 { return false }
        if method != 0 && method != methodCode(request) { return false }
        if loadTypes != 0 {
            let loadType = thirdParty ? LoadTypes.thirdParty.rawValue : LoadTypes.firstParty.rawValue
            if loadTypes & loadType == 0 { return false }
        }
        return true
    }

    /// Whether `rule`'s condition, whose patterns are `entries` of `conditions`, holds, the page's
    /// top-url and frame-url patterns marked in `top` and `frame`. Buffers, not the arrays: reading
    /// a class's array property checks exclusive access each time, and slicing `conditions`
    /// retains its storage; with thousands of rules that match every URL checked per page
    /// (EasyList), those would be much of a new page's cost.
    @inline(__always)
    private static func holds(
        _ rule: HeldRule, entries: @autoclosure () -> Range<Int>, conditions: UnsafeBufferPointer<UInt32>,
        top: UnsafeBufferPointer<UInt64>, frame: UnsafeBufferPointer<UInt64>
    ) -> Bool {
        switch rule.condition {
        case .none: return true
        case .never: return false
        case .ifTopURL, .unlessTopURL:
            return entries().contains { PatternMarks.contains(top, conditions[$0]) } == (rule.condition == .ifTopURL)
        case .ifFrameURL, .unlessFrameURL:
            return entries().contains { PatternMarks.contains(frame, conditions[$0]) } == (rule.condition == .ifFrameURL)
        }
    }

    /// Marks the page's top-url patterns in `topSeen` (running the programs once per page, into
    /// the page's list: emptied, its storage kept from the page that had its place before).
    private func markTop(_ page: Page, _ request: Request) {
        guard markedTop == nil else { return }
        if !page.topRun {
            page.topPatterns.removeAll()
            run(file.topURLPrograms, over: request.mainDocumentURL.string, seen: &topSeen, into: &page.topPatterns, ends: &conditionEnds)
            page.topRun = true
        } else {
            for index in page.topPatterns.indices { _ = topSeen.insert(page.topPatterns[index]) }
        }
        markedTop = page.topPatterns.buffer
    }

    /// Marks the page's frame-url patterns in `frameSeen`.
    private func markFrame(_ page: Page, _ request: Request) {
        guard markedFrame == nil else { return }
        if !page.frameRun {
            page.framePatterns.removeAll()
            run(file.framePrograms, over: request.frameURL.string, seen: &frameSeen, into: &page.framePatterns, ends: &conditionEnds)
            page.frameRun = true
        } else {
            for index in page.framePatterns.indices { _ = frameSeen.insert(page.framePatterns[index]) }
        }
        markedFrame = page.framePatterns.buffer
    }

    /// The bits of `request.loadContext` (`LoadContexts`), as literals: the options are another
    /// module's globals, read through an accessor each time (the initializer checks the two agree).
    @inline(__always)
    private static func loadContextBits(_ request: Request) -> UInt8 { loadContextBits(request.isMainFrameContext) }

    @inline(__always)
    private static func loadContextBits(_ isMainFrame: Bool) -> UInt8 { isMainFrame ? 1 : 2 }

    /// The request method's code in a rule record (as the compiler writes it: its place in
    /// `RequestMethod.allCases` + 1; 0 for none), by a switch, not a search of the cases (every
    /// request asks; the evaluator's initializer checks the two agree).
    @inline(__always)
    private static func methodCode(_ request: Request) -> UInt8 {
        guard let method = request.method else { return 0 }
        return methodCode(method)
    }

    private static func methodCode(_ method: RequestMethod) -> UInt8 {
        switch method {
        case .get: 1
        case .head: 2
        case .options: 3
        case .trace: 4
        case .put: 5
        case .delete: 6
        case .post: 7
        case .patch: 8
        case .connect: 9
        }
    }

    /// Whether `request`'s URL is one a make-https rule acts on: `http:` or `ws:`, no port named.
    /// (The scheme's bytes compared: a string comparison of two unequal schemes is a call into
    /// the standard library, and a list with a universal make-https rule asks every request.)
    private static func isUpgradable(_ request: Request) -> Bool {
        guard request.url.port == nil else { return false }
        var scheme = request.url.scheme
        return scheme.withUTF8 { bytes in
            bytes.count == 4
                ? bytes[0] == UInt8(ascii: "h") && bytes[1] == UInt8(ascii: "t") && bytes[2] == UInt8(ascii: "t") && bytes[3] == UInt8(ascii: "p")
                : bytes.count == 2 && bytes[0] == UInt8(ascii: "w") && bytes[1] == UInt8(ascii: "s")
        }
    }

    /// The flags of `request` that the lists of a page's universal rules may be kept by: its
    /// resource type, its load context's bits << 16, its method's code << 24, its party << 32 (1:
    /// third, 2: first) and, when `readsUpgradable`, its upgradability (1 << 34). Worked out once
    /// per request for every list asked; each list keeps its pages' lists by the bits its rules
    /// look at (`flagsMask`).
    @inline(__always)
    static func requestFlags(_ request: Request, thirdParty: Bool, readsUpgradable: Bool) -> UInt64 {
        var flags = UInt64(request.resourceType.rawValue)
        flags |= UInt64(loadContextBits(request)) << 16
        flags |= UInt64(methodCode(request)) << 24
        flags |= (thirdParty ? 1 : 2) << 32
        if readsUpgradable && isUpgradable(request) { flags |= 1 << 34 }
        return flags
    }

    private func universal(_ request: Request, _ page: Page, _ key: UInt64, thirdParty: Bool) -> Kept {
        if let known = page.universal.first(where: { $0.flags == key }) { return known.kept }
        let universal = pageCapacity > 0
            ? editedBase(request, page, key, thirdParty: thirdParty) : Kept(checkingEveryRule(request, page, thirdParty: thirdParty))
        if pageCapacity > 0 { page.universal.append((key, universal)) }
        return universal
    }

    /// Step 2 for the rules that match every URL, read as written: each rule's flags, then (the
    /// condition programs run only when a rule they decide is left) its condition.
    private func checkingEveryRule(_ request: Request, _ page: Page, thirdParty: Bool) -> UniversalsForPage {
        var (slots, readsTop, readsFrame) = acceptedByFlags(request, thirdParty: thirdParty)
        if readsTop { markTop(page, request) }
        if readsFrame { markFrame(page, request) }
        rules.withRecords { records in
            file.conditions.withUnsafeBufferPointer { conditions in
                topSeen.withWords { top in
                    frameSeen.withWords { frame in
                        var kept = 0
                        for index in slots.indices
                        where Self.holds(
                            records[Int(slots[index])], entries: rules.conditionEntries(of: slots[index]), conditions: conditions, top: top,
                            frame: frame)
                        {
                            slots[kept] = slots[index]
                            kept += 1
                        }
                        slots.removeLast(slots.count - kept)
                    }
                }
            }
        }
        return universal(of: slots, upgradable: Self.isUpgradable(request))
    }

    /// The universal rules whose flags accept `request` (`baseOnly`: those of them without an
    /// `if-` condition or a `never` one, a base's), and whether any that the flags accept has a
    /// top-url or frame-url condition.
    private func acceptedByFlags(
        _ request: Request, thirdParty: Bool, baseOnly: Bool = false
    ) -> (slots: [UInt32], readsTop: Bool, readsFrame: Bool) {
        var readsTop = false
        var readsFrame = false
        var count = 0
        let accepted = universalGroups.indices.map { group in
            let kind = universalGroups[group]
            guard
                Self.flagsAccept(
                    resourceTypes: kind.resourceTypes, loadTypes: kind.loadTypes, loadContexts: kind.loadContexts, method: kind.method,
                    request, thirdParty: thirdParty)
            else { return false }
            switch kind.condition {
            case .ifTopURL, .unlessTopURL: readsTop = true
            case .ifFrameURL, .unlessFrameURL: readsFrame = true
            case .none, .never: break
            }
            if baseOnly && (kind.condition == .never || kind.condition == .ifTopURL || kind.condition == .ifFrameURL) { return false }
            count += universalGroupSizes[group]
            return true
        }
        // (None: the empty list, not one made of no capacity, whose making writes the count of the
        // storage every empty array shares, a race between threads.)
        guard count > 0 else { return ([], readsTop, readsFrame) }
        // (Written in place, the list sized by its groups' counts: no growth, no check per rule.)
        let slots = [UInt32](unsafeUninitializedCapacity: count) { buffer, written in
            written = 0
            accepted.withUnsafeBufferPointer { accepted in
                universalGroupOf.withUnsafeBufferPointer { groupOf in
                    file.universalRules.withUnsafeBufferPointer { rules in
                        for index in rules.indices where accepted[Int(groupOf[index])] {
                            buffer[written] = rules[index]
                            written += 1
                        }
                    }
                }
            }
        }
        return (slots, readsTop, readsFrame)
    }

    /// The page's list of applying universal rules `slots` (sorted), with what outcomes read of it.
    private func universal(of slots: [UInt32], upgradable: Bool) -> UniversalsForPage {
        var universal = UniversalsForPage(
            rules: EditedList(keys: slots, pool: rules.indices),
            ignorePrevious: slots.filter { rules[$0].role == .ignorePreviousRules },
            ignoreFollowing: slots.filter { rules[$0].role == .ignoreFollowingRules }, low: nil, high: .max,
            actions: EditedList(keys: [], pool: file.actions))
        cut(&universal, upgradable: upgradable)
        return universal
    }

    /// Sets `universal`'s cuts from its ignore rules and lists the actions of its rules between them.
    private func cut(_ universal: inout UniversalsForPage, upgradable: Bool) {
        universal.high = universal.ignoreFollowing.first ?? .max
        universal.low = universal.ignorePrevious.last { $0 < universal.high }
        var acting: [UInt32] = []
        universal.rules.appendKeys(above: universal.low, through: universal.high, to: &acting)
        var locations = WorkList<UInt32>()
        listLocations(acting[...], upgradable: upgradable, into: &locations)
        universal.actions = EditedList(keys: Array(locations.buffer), pool: file.actions)
    }

    /// The flags' base list (made once per flags), lent: `baseLists` holds it until a later base
    /// is made (a page change reads it, where returning it would retain and release it).
    private func base(_ request: Request, _ key: UInt64, thirdParty: Bool) -> Unmanaged<UniversalsForFlags> {
        if let known = baseFlags.firstIndex(of: key) { return Unmanaged.passUnretained(baseLists[known]) }
        let (slots, readsTop, readsFrame) = acceptedByFlags(request, thirdParty: thirdParty, baseOnly: true)
        let upgradable = Self.isUpgradable(request)
        let universal = universal(of: slots, upgradable: upgradable)
        let locations = universal.actions.keys
        var uses = [Int](repeating: 0, count: locations.count)
        if !universal.hasIgnoreRule {
            for slot in slots {
                guard let location = listedLocation(rules[slot], upgradable: upgradable) else { continue }
                uses[universal.actions.ranked.below(location)] += 1
            }
        }
        let base = UniversalsForFlags(
            universal: universal, kept: Kept(universal), locationUses: uses, readsTop: readsTop, readsFrame: readsFrame)
        if baseFlags.count >= Self.baseCapacity {
            baseFlags.removeAll()
            baseLists.removeAll()
        }
        baseFlags.append(key)
        baseLists.append(base)
        return Unmanaged.passUnretained(base)
    }

    /// The page's list: the flags' base, without the unless- rules and with the if- rules that
    /// the page's matched condition patterns name. The base's own `Kept` when they change nothing
    /// (most pages): shared by those pages, not made and freed with each.
    private func editedBase(_ request: Request, _ page: Page, _ key: UInt64, thirdParty: Bool) -> Kept {
        base(request, key, thirdParty: thirdParty)._withUnsafeGuaranteedRef { edited($0, request, page, thirdParty: thirdParty) }
    }

    /// `editedBase` of the flags' base `base`.
    private func edited(_ base: UniversalsForFlags, _ request: Request, _ page: Page, thirdParty: Bool) -> Kept {
        if base.readsTop { markTop(page, request) }
        if base.readsFrame { markFrame(page, request) }
        // The working lists, used in place, each emptied where it is first used (most pages' edits
        // stop at the first).
        let edit = editWork
        // The rules named by a matched pattern: only their conditions can differ from the base's.
        Self.clear(&edit.named)
        // (Most matched patterns name no such rule, only rules of their own url-filter.)
        if let marked = markedTop {
            for pattern in marked {
                let (start, end) = (Int(universalOfTopStart[Int(pattern)]), Int(universalOfTopStart[Int(pattern) + 1]))
                if start < end { edit.named += universalOfTop[start..<end] }
            }
        }
        if let marked = markedFrame {
            for pattern in marked {
                let (start, end) = (Int(universalOfFrameStart[Int(pattern)]), Int(universalOfFrameStart[Int(pattern) + 1]))
                if start < end { edit.named += universalOfFrame[start..<end] }
            }
        }
        guard !edit.named.isEmpty else { return base.kept }
        edit.named.sort()
        // A named rule's condition names a pattern the page matched, so it is decided without
        // reading its other patterns: an if- rule applies (it joins), an unless- rule does not (it
        // leaves the base, which holds the unless- rules).
        Self.clear(&edit.leaving)
        Self.clear(&edit.joining)
        // (Whether one of them is an ignore rule, noted as they are read: most pages' edits hold
        // none, and their ignore lists are then the base's.)
        var movesIgnoreRule = false
        rules.withRecords { rules in
            for (index, slot) in edit.named.enumerated() where index == 0 || edit.named[index - 1] != slot {
                let rule = rules[Int(slot)]
                guard Self.flagsAccept(rule, request, thirdParty: thirdParty) else { continue }
                if rule.role == .ignorePreviousRules || rule.role == .ignoreFollowingRules { movesIgnoreRule = true }
                if rule.condition == .unlessTopURL || rule.condition == .unlessFrameURL {
                    edit.leaving.append(slot)
                } else {
                    edit.joining.append(slot)
                }
            }
        }
        let (leaving, joining) = (edit.leaving, edit.joining)
        guard !leaving.isEmpty || !joining.isEmpty else { return base.kept }
        let upgradable = Self.isUpgradable(request)
        // (The page's place's own `Kept` of a page before refilled, its storage reused; a new one
        // made from the base's lists until the place has one.)
        guard let kept = page.spare.popLast() else {
            var universal = base.universal
            fill(&universal, editing: base, leaving: leaving, joining: joining, movesIgnoreRule: movesIgnoreRule, upgradable: upgradable)
            return Kept(universal, isPageOwn: true)
        }
        kept.refill { fill(&$0, editing: base, leaving: leaving, joining: joining, movesIgnoreRule: movesIgnoreRule, upgradable: upgradable) }
        return kept
    }

    /// Writes into `universal` (its lists' storage reused) `base`'s lists without the rules
    /// `leaving` and with those `joining` (increasing slots; `movesIgnoreRule`: an ignore rule is
    /// among them).
    private func fill(
        _ universal: inout UniversalsForPage, editing base: UniversalsForFlags, leaving: [UInt32], joining: [UInt32], movesIgnoreRule: Bool,
        upgradable: Bool
    ) {
        let old = base.universal
        let role = { (slot: UInt32) in self.rules[slot].role }
        old.rules.edit(&universal.rules, removing: leaving, adding: joining)
        universal.ignorePrevious = !movesIgnoreRule ? old.ignorePrevious
            : Self.edited(old.ignorePrevious, removing: leaving, adding: joining) { role($0) == .ignorePreviousRules }
        universal.ignoreFollowing = !movesIgnoreRule ? old.ignoreFollowing
            : Self.edited(old.ignoreFollowing, removing: leaving, adding: joining) { role($0) == .ignoreFollowingRules }
        (universal.low, universal.high) = (old.low, old.high)
        guard !universal.hasIgnoreRule && !old.hasIgnoreRule else {
            // Cuts moved, came or went (pages with exception rules): the actions listed afresh.
            cut(&universal, upgradable: upgradable)
            return
        }
        // Actions: a base location goes when every rule of the base listing it left; one joins
        // when a joining rule lists it and the base does not.
        // (The changes sorted by location and summed per location: a few, where a dictionary
        // would hash each.)
        let edit = editWork
        Self.clear(&edit.changes)
        Self.clear(&edit.removing)
        Self.clear(&edit.adding)
        for slot in leaving {
            if let location = listedLocation(rules[slot], upgradable: upgradable) { edit.changes.append((location, -1)) }
        }
        for slot in joining {
            if let location = listedLocation(rules[slot], upgradable: upgradable) { edit.changes.append((location, 1)) }
        }
        edit.changes.sort { $0.location < $1.location }
        let changes = edit.changes
        let locations = old.actions.keys
        var at = 0
        while at < changes.count {
            let location = changes[at].location
            var change = 0
            while at < changes.count && changes[at].location == location {
                change += changes[at].change
                at += 1
            }
            let offset = old.actions.ranked.below(location)
            let listed = offset < locations.count && locations[offset] == location
            let before = listed ? base.locationUses[offset] : 0
            if listed && before + change == 0 { edit.removing.append(location) }
            if !listed && change > 0 { edit.adding.append(location) }
        }
        old.actions.edit(&universal.actions, removing: edit.removing, adding: edit.adding)
    }

    /// `slots` (increasing) less those of `removing` and with those of `adding` (both increasing)
    /// that `kind` accepts: a page's ignore rules, a few, from its base's.
    private static func edited(
        _ slots: [UInt32], removing: [UInt32], adding: [UInt32], kind: (UInt32) -> Bool
    ) -> [UInt32] {
        // (An edit that holds an ignore rule of one kind leaves the other kind's list as it is.)
        guard removing.contains(where: kind) || adding.contains(where: kind) else { return slots }
        let removing = removing.filter(kind)
        let adding = adding.filter(kind)
        return (slots.filter { !removing.contains($0) } + adding).sorted()
    }

    /// The action location `rule` lists when it acts, if any.
    private func listedLocation(_ rule: HeldRule, upgradable: Bool) -> UInt32? {
        Self.lists(rule.role, upgradable: upgradable) ? rule.actionLocation : nil
    }

    /// Whether a rule of `role` lists its action's location when it acts (make-https only on an
    /// upgradable URL, which is worked out only for such a rule).
    @inline(__always)
    private static func lists(_ role: RuleRole, upgradable: @autoclosure () -> Bool) -> Bool {
        switch role {
        case .listed: true
        case .makeHTTPS: upgradable()
        case .ignorePreviousRules, .ignoreFollowingRules, .globalStyleSheet: false
        }
    }

    /// The page's condition patterns marked for this answer unmarked. (Most answers marked
    /// nothing: nil is then left as it is, not released.)
    @inline(__always)
    private func unmarkConditions() {
        if let marked = markedTop {
            for pattern in marked { topSeen.remove(pattern) }
            markedTop = nil
        }
        if let marked = markedFrame {
            for pattern in marked { frameSeen.remove(pattern) }
            markedFrame = nil
        }
    }

    /// The sorted, distinct action locations `acting` lists (step 4), in `locations` (emptied first:
    /// the evaluator's working memory, so that listing allocates nothing).
    private func listLocations(_ acting: ArraySlice<UInt32>, upgradable: Bool, into locations: inout WorkList<UInt32>) {
        locations.removeAll()
        for slot in acting {
            if let location = listedLocation(rules[slot], upgradable: upgradable) { locations.append(location) }
        }
        Self.sortDistinct(&locations)
    }

    /// `locations` sorted, each once.
    private static func sortDistinct(_ locations: inout WorkList<UInt32>) {
        guard locations.count > 1 else { return }
        var buffer = locations.buffer
        buffer.sort()
        var kept = 1
        for index in 1..<buffer.count where buffer[index] != buffer[kept - 1] {
            buffer[kept] = buffer[index]
            kept += 1
        }
        locations.removeLast(locations.count - kept)
    }

    /// The outcome for `request`.
    public func outcome(for request: Request) -> MatchOutcome {
        guard request.url.isMatchable else { return .none }
        let place = pageTable.place(of: request)
        let flags = Self.requestFlags(request, thirdParty: place.thirdParty, readsUpgradable: universalMakesHTTPS)
        return Self.withBytes(request.url.string) { url in outcome(for: request, at: place, flags: flags, url: url, hostReading: nil).outcome }
    }

    /// The outcome for `request` (a matchable URL), whose page is at `place` in this evaluator's
    /// page table, whose flags are `flags` (`requestFlags`, with the upgradability when this list
    /// reads it) and whose URL's bytes are `url`, with its URL's host labels when a caller asking
    /// several lists read them once for all (nil: read here).
    /// `wholeSteps`: the url domain table was looked up and the whole url programs run already
    /// (`runWhole`), taking these steps.
    /// `lookedUp`: the url tables looked up already with other lists' (`lookUpDomains`,
    /// `lookUpHostContexts`).
    @inline(__always)
    func outcome(
        for request: Request, at place: PageTable.Place, flags: UInt64, url: UnsafeBufferPointer<UInt8>,
        hostReading: DomainTable.HostReading?, wholeSteps: Int? = nil, lookedUp: ProgramSet.LookedUp = []
    ) -> Answer {
        let thirdParty = place.thirdParty
        let key = flags & flagsMask
        guard place.slot >= 0 else {
            // A page not kept: made for this answer alone, and held by it (its outcome too: its
            // lists go with the answer, so the outcome is not lent).
            let page = page(at: place)
            let kept = universal(request, page, key, thirdParty: thirdParty)
            return withExtendedLifetime(kept) {
                .own(
                    answer(
                        request, page, kept, thirdParty: thirdParty, url: url, hostReading: hostReading, wholeSteps: wholeSteps,
                        lookedUp: lookedUp
                    ).outcome)
            }
        }
        // A kept page and its lists are held by the evaluator (`pages`, the page's `universal`)
        // for the whole answer: lent to it, not retained and released, each an atomic operation.
        return Unmanaged.passUnretained(page(at: place))._withUnsafeGuaranteedRef { page in
            Unmanaged.passUnretained(universal(request, page, key, thirdParty: thirdParty))._withUnsafeGuaranteedRef { kept in
                answer(
                    request, page, kept, thirdParty: thirdParty, url: url, hostReading: hostReading, wholeSteps: wholeSteps,
                    lookedUp: lookedUp)
            }
        }
    }

    /// The outcome for `request` on `page`, whose lists for the request's flags are `kept`.
    @inline(__always)
    private func answer(
        _ request: Request, _ page: Page, _ kept: Kept, thirdParty: Bool, url: UnsafeBufferPointer<UInt8>,
        hostReading: DomainTable.HostReading?, wholeSteps: Int?, lookedUp: ProgramSet.LookedUp
    ) -> Answer {
        // The working memory: an object, so that its lists are used in place (a value moved out
        // and back would leave seven empty lists to release at each answer).
        let work = self.work

        // 1. The rules of the patterns the URL programs report (a few), in rule order; 2. those
        // that apply.
        run(
            file.urlPrograms, over: url, hostReading: hostReading, wholeSteps: wholeSteps,
            lookedUp: lookedUp, seen: &work.urlSeen, into: &work.matchedURLPatterns, ends: &work.stageEnds)
        work.matchedRules.removeAll()
        // (By index, here and below: the working lists are not sequences, and are read in place.)
        for index in work.matchedURLPatterns.indices {
            let pattern = work.matchedURLPatterns[index]
            work.urlSeen.remove(pattern)
            rulesOfURLPattern.forEachSlot(of: pattern) { slot in work.matchedRules.append(CandidateRule(slot: slot, rule: rules[slot])) }
        }
        work.matchedURLPatterns.removeAll()
        // No candidate of the request's own (most requests of a big list): the page's outcome
        // (the condition patterns a new page's edit marked unmarked).
        guard !work.matchedRules.isEmpty else {
            unmarkConditions()
            return .page(kept.lentOutcome)
        }
        // (Most requests report one pattern: a sort of one is skipped.)
        if work.matchedRules.count > 1 {
            var candidates = work.matchedRules.buffer
            candidates.sort { $0.slot < $1.slot }
        }
        // The candidates that apply, and as they are read, whether one is an ignore rule and the
        // locations of those that act (step 3, the page's cuts aside from a request without an
        // ignore rule of its own): no rule's record read again.
        work.extra.removeAll()
        work.locations.removeAll()
        var extraIgnores = false
        for index in work.matchedRules.indices {
            let candidate = work.matchedRules[index]
            guard applies(candidate, request, page, thirdParty: thirdParty) else { continue }
            work.extra.append(candidate.slot)
            let role = candidate.rule.role
            if role == .ignorePreviousRules || role == .ignoreFollowingRules { extraIgnores = true }
            if Self.lists(role, upgradable: Self.isUpgradable(request))
                && (!kept.universal.hasIgnoreRule || kept.universal.acts(candidate.slot))
            {
                work.locations.append(candidate.rule.actionLocation)
            }
        }
        unmarkConditions()
        // No rule of the request's own applies: the page's outcome.
        if work.extra.isEmpty { return .page(kept.lentOutcome) }

        return .own(extraIgnores ? cutOutcome(kept, request, work) : insertedOutcome(kept, work))
    }

    /// The outcome when the request's own rules (`work.extra`, acting at `work.locations`) include
    /// no ignore rule: the page's list (its rules between its cuts, all of them on most pages),
    /// plus this request's rules between those cuts: their locations that the page's list lacks.
    /// (Out of line: the answer it leaves is every request's, kept short.)
    @inline(never)
    private func insertedOutcome(_ kept: Kept, _ work: Work) -> MatchOutcome {
        Self.sortDistinct(&work.locations)
        var newLocations = 0
        for index in work.locations.indices where !kept.universal.actions.contains(work.locations[index]) {
            work.locations[newLocations] = work.locations[index]
            newLocations += 1
        }
        work.locations.removeLast(work.locations.count - newLocations)
        // (The lists' insertions made before the outcome's storage is written: the page's lists
        // are then only read, and lent to the outcome's without being retained.)
        let actions = kept.universal.actions.insertions(of: work.locations.buffer, spilling: &work.actionInsertions)
        // Every applying rule: the page's, shared, with this request's (`work.extra`) inserted.
        let matching = kept.universal.rules.insertions(of: work.extra.buffer, spilling: &work.ruleInsertions)
        return work.outcomes.outcome(appliesGlobalStyleSheet: kept.universal.low == nil) {
            actions.write(into: &$0)
            matching.write(into: &$1)
        } made: {
            (actions.list(), matching.list())
        }
    }

    /// Step 3 when the request's own rules include an ignore rule: the applying rules (the
    /// page's, shared, and this request's) are cut at the first ignore-following-rules and after the last
    /// ignore-previous-rules before it, and the rules left list their actions. Only the rules
    /// between the cuts are read, found by binary search in the page's list, not the page's
    /// thousands merged with the request's.
    private func cutOutcome(_ kept: Kept, _ request: Request, _ work: Work) -> MatchOutcome {
        let role = { (slot: UInt32) in self.rules[slot].role }
        // The acting slots: after `low` (the last ignore-previous-rules), up to and including
        // `high` (the first ignore-following-rules).
        var high = kept.universal.high
        if let first = work.extra.buffer.first(where: { role($0) == .ignoreFollowingRules }) { high = min(high, first) }
        let previousInPage = high == .max ? kept.universal.ignorePrevious[...]
            : kept.universal.ignorePrevious[..<Self.lowerBound(high + 1, in: kept.universal.ignorePrevious)]
        var low = previousInPage.last
        if let last = work.extra.buffer.last(where: { role($0) == .ignorePreviousRules && $0 <= high }) { low = max(low ?? 0, last) }
        Self.clear(&work.applying)
        kept.universal.rules.appendKeys(above: low, through: high, to: &work.applying)
        for slot in work.extra.buffer where slot <= high && low.map({ slot > $0 }) ?? true { work.applying.append(slot) }
        listLocations(work.applying[...], upgradable: Self.isUpgradable(request), into: &work.locations)
        let listed = SharedList(work.locations.buffer.map { file.actions[Int($0)] })
        // Every applying rule: the page's, shared, with this request's (`work.extra`) inserted.
        let matching = kept.universal.rules.insertions(of: work.extra.buffer, spilling: &work.ruleInsertions)
        return work.outcomes.outcome(appliesGlobalStyleSheet: low == nil) {
            $0 = listed
            matching.write(into: &$1)
        } made: {
            (listed, matching.list())
        }
    }

    /// `list` emptied, its capacity kept; an empty one is left alone: the generic removal costs a
    /// call even with nothing to remove, and most requests' lists are empty. A short one (a
    /// request's few patterns and rules) loses its elements one by one, a few instructions each,
    /// less than the generic removal's fixed cost.
    @inline(__always)
    static func clear<Element>(_ list: inout [Element]) {
        if list.count <= 8 {
            while !list.isEmpty { list.removeLast() }
        } else {
            list.removeAll(keepingCapacity: true)
        }
    }

    /// The first index of `sorted` whose value is not below `value`.
    static func lowerBound<Key: Comparable>(_ value: Key, in sorted: [Key]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// An evaluator's outcome for a request: the page's, which the evaluator holds (most requests'),
/// unretained, or one of the request's own. A caller asking several lists tells each the page's
/// lent (`lend`), where returning it would retain it and the caller release it, two atomic
/// operations per list and request. The page's is valid until the evaluator answers again (a new
/// page may refill the page's lists): read at once, or copied (`outcome`).
enum Answer {
    case page(MatchOutcome.Unretained)
    case own(MatchOutcome)

    /// The outcome, to keep.
    @inline(__always)
    var outcome: MatchOutcome {
        switch self {
        case .page(let page): page.lend { $0 }
        case .own(let own): own
        }
    }

    /// `body` told the outcome, borrowed.
    @inline(__always)
    func lend(_ body: (MatchOutcome) -> Void) {
        switch self {
        case .page(let page): page.lend(body)
        case .own(let own): body(own)
        }
    }
}

/// A url pattern's rule as a request's answer reads it: its slot and its record.
struct CandidateRule {
    var slot: UInt32
    var rule: HeldRule
}

/// Pattern numbers below a count, a bit each: the patterns a request's or a page's runs reported.
/// (An eighth of a flag's bytes each, so more of the marks stays in a core's cache: a flag per
/// pattern, tens of kilobytes for a big list's url patterns, missed the cache at most reports.)
struct PatternMarks {
    /// The words, in an allocation of their own that `owner` frees: a mark or an unmark writes its
    /// word in place, where an array's element written checked first that the array was not shared
    /// (a call per pattern a request reports and per pattern its answer unmarks). A copy of the
    /// marks shares their words: each is held by the one evaluator (or its work) that marks it.
    private let words: UnsafeMutableBufferPointer<UInt64>
    private let owner: Words

    init(count: Int) {
        owner = Words(count: (count + 63) / 64)
        words = owner.words
    }

    /// Marks `pattern`; false when it was marked already.
    @inline(__always)
    mutating func insert(_ pattern: UInt32) -> Bool {
        let index = Self.index(pattern, words.count)
        let bit: UInt64 = 1 << (pattern & 63)
        let word = words[index]
        guard word & bit == 0 else { return false }
        words[index] = word | bit
        return true
    }

    @inline(__always)
    mutating func remove(_ pattern: UInt32) { words[Self.index(pattern, words.count)] &= ~(1 << (pattern & 63)) }

    /// `body` given the words, read in place (`contains`).
    @inline(__always)
    func withWords<Result>(_ body: (UnsafeBufferPointer<UInt64>) -> Result) -> Result {
        withExtendedLifetime(owner) { body(UnsafeBufferPointer(words)) }
    }

    /// The bytes the words take, counted as an array of them would be (`HeldMemory.bytes(of:)`).
    var heldBytes: Int { words.isEmpty ? 0 : HeldMemory.arrayHeader + words.count * MemoryLayout<UInt64>.stride }

    /// Whether `pattern` is marked in `words` (a set's words, read in place).
    @inline(__always)
    static func contains(_ words: UnsafeBufferPointer<UInt64>, _ pattern: UInt32) -> Bool {
        words[index(pattern, words.count)] >> (pattern & 63) & 1 != 0
    }

    /// The word of `pattern`, one of the marks' patterns (their words are not read past).
    @inline(__always)
    private static func index(_ pattern: UInt32, _ count: Int) -> Int {
        let index = Int(pattern >> 6)
        precondition(index < count, "a pattern below the marks' count")
        return index
    }

    /// The words' allocation, zeroed, freed with the marks.
    private final class Words {
        let words: UnsafeMutableBufferPointer<UInt64>

        init(count: Int) {
            words = .allocate(capacity: count)
            words.initialize(repeating: 0)
        }

        deinit { words.deallocate() }
    }
}
