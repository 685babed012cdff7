// ContentBlockers.swift — ContentBlocker
//
// Several compiled lists asked about each request, as a browser asks each of its content
// blockers: every list answers on its own (its outcome is what its `Evaluator` alone would give),
// and what does not depend on a list is found once per request: the request's page (compared by
// its URLs, with the main document's registrable domain), whether it is third party, its flags
// as the lists' pages keep their lists by them (`Evaluator.requestFlags`), its URL's bytes, and
// the host labels of its URL that the domain tables read. The lists' evaluators share one page
// table, so that each knows the page by the same place. Two lists' whole url programs run in one pass
// (`ProgramSet.WholeTogether`): each list's table reads are waited for beside the other's; taken
// when each list has a whole program that searches the URL (one whose programs all end at the
// URL's start would leave the pass at once, the other's then dearer than its pass alone).
// With more lists, pairs of them run so (each list with the first after it that can), their
// domain tables looked up with the others'. Otherwise (two lists not run so, or more lists) the
// lists' domain tables are looked up together (`ProgramSet.DomainsTogether`): a host's
// candidates hashed once, probed in each table,
// and in the tables of the lists' host contexts (other converters' `||` rules) whose candidates
// are the host's labels. Where the domain tables are not looked up so, lists' host contexts of one
// L are looked up together (`ProgramSet.HostContextsTogether`): L's automaton run and its
// candidates hashed once.
//
// Threads. Like an `Evaluator`, a ContentBlockers serves one thread at a time (its evaluators and
// page table are its working memory); threads share the compiled lists, each with a
// ContentBlockers of its own. ConcurrencyTests/ConcurrencyTests.swift holds such threads' answers
// to one thread's, under ThreadSanitizer in CI.

public import RequestContext
public import Search

public final class ContentBlockers {
    /// One evaluator per list, in the order given.
    public let evaluators: [Evaluator]
    private let pageTable: PageTable
    /// `evaluators`, which hold them, as lent to each answer: not retained and released per list
    /// and request.
    private let lent: [Unmanaged<Evaluator>]
    /// Pairs of lists whose whole url programs run in one pass, each's table reads waited for
    /// beside the other's (`Evaluator.wholeTogether`; `wholePairs`), and their passes, held
    /// (`wholePairs` lends them to each request, not retained and released per pair).
    private let wholePairs: [WholePair]
    private let wholePasses: [ProgramSet.WholeTogether]
    /// Per list, the steps of its whole programs run in a pair for the request being answered
    /// (-1, never written: a list not in a pair). Working memory, as the evaluators'.
    private let wholeSteps: UnsafeMutableBufferPointer<Int>
    /// Unless two lists run as a pair: the lists with a url domain table (two or more), their
    /// tables looked up together, with the lists' host contexts (nil when fewer have one:
    /// `Evaluator.domainsTogether`).
    private let domainsTogether: ProgramSet.DomainsTogether?
    /// Otherwise, two lists or more with host contexts of one L: their contexts looked up together.
    private let hostContextsTogether: ProgramSet.HostContextsTogether?
    /// Per list, its tables looked up before its answer, and whether its working gates were
    /// emptied by a lookup that comes first (`WholeTogether` or `DomainsTogether`).
    private let lookedUp: [ProgramSet.LookedUp]
    private let gatesListed: [Bool]
    /// Some list's pages' lists are kept by the request's upgradability (`Evaluator.requestFlags`).
    private let readsUpgradable: Bool

    /// The lists' evaluators, keeping the last `pageCapacity` pages, each list's dense tables
    /// within `denseBudget` (nil: the list's own), as `Evaluator` does.
    public init(_ lists: [CompiledRuleList], pageCapacity: Int = 16, denseBudget: DenseBudget? = nil) {
        let pageTable = PageTable(capacity: pageCapacity)
        self.pageTable = pageTable
        evaluators = lists.map { Evaluator($0, pageTable: pageTable, denseBudget: denseBudget) }
        lent = evaluators.map(Unmanaged.passUnretained)
        readsUpgradable = evaluators.contains(where: \.universalMakesHTTPS)
        let wholePasses = Self.wholePasses(evaluators)
        self.wholePasses = wholePasses.map(\.2)
        var wholePairs = wholePasses.map { WholePair(first: $0.0, second: $0.1, together: .passUnretained($0.2)) }
        wholeSteps = .allocate(capacity: evaluators.count)
        wholeSteps.initialize(repeating: -1)
        // (Two lists run as a pair look up their domain tables in its pass.)
        let domainsTogether = evaluators.count == 2 && !wholePairs.isEmpty ? nil : Evaluator.domainsTogether(evaluators)
        if let domainsTogether {
            for index in wholePairs.indices {
                let listed = { (list: Int) in domainsTogether.looksUp[list] || domainsTogether.looksUpContexts[list] }
                wholePairs[index].listed = (listed(wholePairs[index].first), listed(wholePairs[index].second))
            }
        }
        let contextsLookedUp = domainsTogether?.looksUpContexts.contains(true) == true
        let hostContextsTogether = contextsLookedUp ? nil : Evaluator.hostContextsTogether(evaluators)
        self.wholePairs = wholePairs
        (self.domainsTogether, self.hostContextsTogether) = (domainsTogether, hostContextsTogether)
        lookedUp = evaluators.indices.map { list in
            var lookedUp: ProgramSet.LookedUp = []
            if domainsTogether?.looksUp[list] == true { lookedUp.insert(.domains) }
            if domainsTogether?.looksUpContexts[list] == true || hostContextsTogether?.looksUp[list] == true { lookedUp.insert(.hostContexts) }
            return lookedUp
        }
        gatesListed = evaluators.indices.map { list in
            wholePasses.contains { $0.0 == list || $0.1 == list }
                || domainsTogether.map { $0.looksUp[list] || $0.looksUpContexts[list] } == true
        }
    }

    deinit { wholeSteps.deallocate() }

    /// Two lists whose whole url programs run in one pass (`ProgramSet.WholeTogether`, held by
    /// `wholePasses`), and whether each one's gates were listed by the domain tables' lookup
    /// before (more lists, looked up together: `Evaluator.runWhole`; nil: the pass looks its
    /// domain tables up).
    private struct WholePair {
        let first: Int
        let second: Int
        let together: Unmanaged<ProgramSet.WholeTogether>
        var listed: (Bool, Bool)? = nil
    }

    /// The pairs of `lists` whose whole url programs run in one pass, with their passes: each
    /// list with the first after it, not paired yet, that it can run with
    /// (`Evaluator.wholeTogether`).
    private static func wholePasses(_ lists: [Evaluator]) -> [(Int, Int, ProgramSet.WholeTogether)] {
        var pairs: [(Int, Int, ProgramSet.WholeTogether)] = []
        var paired = [Bool](repeating: false, count: lists.count)
        for first in lists.indices where !paired[first] {
            for second in lists.indices.dropFirst(first + 1) where !paired[second] {
                guard let together = Evaluator.wholeTogether(lists[first], lists[second]) else { continue }
                pairs.append((first, second, together))
                (paired[first], paired[second]) = (true, true)
                break
            }
        }
        return pairs
    }

    /// Whether some lists' whole url programs run in one pass: pairs of lists whose whole
    /// programs are dense tables, four at most a pair, each list with one that searches the URL
    /// rather than ends at its start (`ProgramSet.WholeTogether`).
    public var runsWholeProgramsTogether: Bool { !wholePairs.isEmpty }

    /// The lists whose whole url programs run in one pass, in pairs.
    public var wholeProgramPairs: [(Int, Int)] { wholePairs.map { ($0.first, $0.second) } }

    /// Whether the lists' url domain tables are looked up together (otherwise: two lists or more
    /// with one).
    public var looksUpDomainsTogether: Bool { domainsTogether != nil }

    /// Whether some lists' host contexts are looked up together (two lists or more with contexts
    /// of one L, their domain tables not looked up together).
    public var looksUpHostContextsTogether: Bool { hostContextsTogether != nil }

    /// Whether some lists' host contexts are looked up with the lists' domain tables (those whose
    /// candidates are a plain host's labels probed with the host's candidates hashed once).
    public var looksUpHostContextsWithDomains: Bool { domainsTogether?.looksUpContexts.contains(true) == true }

    /// What the lists' evaluators hold, by structure (`Evaluator.heldMemory`), added up.
    public var heldMemory: HeldMemory {
        var memory = HeldMemory()
        for evaluator in evaluators { memory.add(evaluator.heldMemory) }
        return memory
    }

    /// Tells `each` every list's outcome for `request`, in the lists' order.
    public func outcomes(for request: Request, _ each: (_ list: Int, _ outcome: MatchOutcome) -> Void) {
        guard request.url.isMatchable else {
            for list in evaluators.indices { each(list, .none) }
            return
        }
        let place = pageTable.place(of: request)
        let flags = Evaluator.requestFlags(request, thirdParty: place.thirdParty, readsUpgradable: readsUpgradable)
        Evaluator.withBytes(request.url.string) { url in
            let hostReading = DomainTable.HostReading(url)
            if let domainsTogether { Evaluator.lookUpDomains(lent, domainsTogether, url: url, labels: hostReading.labels) }
            // Two lists run as a pair: their steps kept where they are made (no working memory read).
            if lent.count == 2, wholePairs.count == 1 {
                let steps = runPair(0, url: url, labels: hostReading.labels)
                lookUpHostContexts(url, hostReading)
                answerEach(request, place, flags, url, hostReading, each) { $0 == 0 ? steps.0 : steps.1 }
                return
            }
            // (By index: a loop over the pairs would retain and release their list.)
            for index in wholePairs.indices {
                (wholeSteps[wholePairs[index].first], wholeSteps[wholePairs[index].second]) = runPair(
                    index, url: url, labels: hostReading.labels)
            }
            lookUpHostContexts(url, hostReading)
            answerEach(request, place, flags, url, hostReading, each) { wholeSteps[$0] >= 0 ? wholeSteps[$0] : nil }
        }
    }

    /// Looks up the lists' host contexts together where they are (`hostContextsTogether`), after
    /// the lookups and passes that list gates first.
    @inline(__always)
    private func lookUpHostContexts(_ url: UnsafeBufferPointer<UInt8>, _ hostReading: DomainTable.HostReading) {
        guard let hostContextsTogether else { return }
        Evaluator.lookUpHostContexts(lent, hostContextsTogether, url: url, labels: hostReading.labels, listed: gatesListed)
    }

    /// Runs the whole url programs of the pair `wholePairs[index]` over `url` (`Evaluator.runWhole`),
    /// returning each list's steps.
    @inline(__always)
    private func runPair(_ index: Int, url: UnsafeBufferPointer<UInt8>, labels: DomainTable.HostLabels?) -> (Int, Int) {
        let pair = wholePairs[index]
        return lent[pair.first]._withUnsafeGuaranteedRef { a in
            lent[pair.second]._withUnsafeGuaranteedRef { b in
                pair.together._withUnsafeGuaranteedRef { Evaluator.runWhole(a, b, $0, url: url, labels: labels, listed: pair.listed) }
            }
        }
    }

    /// Tells `each` every list's outcome, its tables looked up before and its whole programs'
    /// steps when they ran in a pair (`wholeSteps`, nil otherwise).
    @inline(__always)
    private func answerEach(
        _ request: Request, _ place: PageTable.Place, _ flags: UInt64, _ url: UnsafeBufferPointer<UInt8>,
        _ hostReading: DomainTable.HostReading, _ each: (_ list: Int, _ outcome: MatchOutcome) -> Void, wholeSteps: (Int) -> Int?
    ) {
        for list in lent.indices {
            let outcome = lent[list]._withUnsafeGuaranteedRef {
                $0.outcome(
                    for: request, at: place, flags: flags, url: url, hostReading: hostReading, wholeSteps: wholeSteps(list),
                    lookedUp: lookedUp[list])
            }
            each(list, outcome)
        }
    }

    /// Every list's outcome for `request`, in the lists' order.
    public func outcomes(for request: Request) -> [MatchOutcome] {
        var outcomes: [MatchOutcome] = []
        outcomes.reserveCapacity(evaluators.count)
        self.outcomes(for: request) { outcomes.append($1) }
        return outcomes
    }
}
