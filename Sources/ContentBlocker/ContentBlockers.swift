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
// Otherwise (more lists, or two that are not run so) the lists' domain tables are looked up
// together (`ProgramSet.DomainsTogether`): a host's candidates hashed once, probed in each table,
// and in the tables of the lists' host contexts (other converters' `||` rules) whose candidates
// are the host's labels. Where the domain tables are not looked up so, lists' host contexts of one
// L are looked up together (`ProgramSet.HostContextsTogether`): L's automaton run and its
// candidates hashed once. And then the lists' whole url programs that search the URL (unanchored
// patterns' automata, the largest of a big list's) run as one product made at load
// (`ProgramSet.SearchesTogether`): a read a byte for every list multiplied in, each reported
// pattern told to its own list; the product runs with each covered list's other whole programs,
// and each such list's answer is given their steps, as after `WholeTogether`.
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
    /// Two lists: their whole url programs run in one pass, each's table reads waited for beside
    /// the other's (nil when they cannot be: `Evaluator.wholeTogether`).
    private let wholeTogether: ProgramSet.WholeTogether?
    /// Otherwise, two lists or more with a url domain table: their tables looked up together,
    /// with the lists' host contexts (nil when fewer have one: `Evaluator.domainsTogether`).
    private let domainsTogether: ProgramSet.DomainsTogether?
    /// `domainsTogether`, which holds it, as lent to each request's lookup: not retained and
    /// released per request.
    private let lentDomainsTogether: Unmanaged<ProgramSet.DomainsTogether>?
    /// Otherwise, two lists or more with host contexts of one L: their contexts looked up together.
    private let hostContextsTogether: ProgramSet.HostContextsTogether?
    /// Where `wholeTogether` is not made, the lists' url searches run as one product (nil when
    /// fewer than two lists have one multiplied in: `Evaluator.searchesTogether`).
    private let searchesTogether: ProgramSet.SearchesTogether?
    /// Per list, the steps of its whole programs run by `searchesTogether`, for its answer
    /// (working memory: a request's), -1 for a list whose whole programs it does not run.
    private let searchSteps: UnsafeMutableBufferPointer<Int>
    /// Per list, whether its working gates were emptied by the lookup of domain tables before
    /// `searchesTogether`'s run.
    private let gatesListedByDomains: [Bool]
    /// Per list, its tables looked up before its answer, and whether its working gates were
    /// emptied by the lookup that comes first (`WholeTogether` or `DomainsTogether`).
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
        let wholeTogether = evaluators.count == 2 ? Evaluator.wholeTogether(evaluators[0], evaluators[1]) : nil
        let domainsTogether = wholeTogether == nil ? Evaluator.domainsTogether(evaluators) : nil
        let contextsLookedUp = domainsTogether?.looksUpContexts.contains(true) == true
        let hostContextsTogether = contextsLookedUp ? nil : Evaluator.hostContextsTogether(evaluators)
        (self.wholeTogether, self.domainsTogether, self.hostContextsTogether) = (wholeTogether, domainsTogether, hostContextsTogether)
        lentDomainsTogether = domainsTogether.map(Unmanaged.passUnretained)
        let listedByDomains = evaluators.indices.map { list in domainsTogether.map { $0.looksUp[list] || $0.looksUpContexts[list] } == true }
        let searchesTogether = wholeTogether == nil
            ? Evaluator.searchesTogether(evaluators, domainsLookedUp: evaluators.indices.map { domainsTogether?.looksUp[$0] == true }) : nil
        let searchesCover = evaluators.indices.map { list in searchesTogether.map { $0.covered[list] != 0 } == true }
        (self.searchesTogether, gatesListedByDomains) = (searchesTogether, listedByDomains)
        searchSteps = .allocate(capacity: evaluators.count)
        searchSteps.initialize(repeating: -1)
        for list in searchesCover.indices where searchesCover[list] { searchSteps[list] = 0 }
        lookedUp = evaluators.indices.map { list in
            var lookedUp: ProgramSet.LookedUp = []
            if domainsTogether?.looksUp[list] == true { lookedUp.insert(.domains) }
            if domainsTogether?.looksUpContexts[list] == true || hostContextsTogether?.looksUp[list] == true { lookedUp.insert(.hostContexts) }
            return lookedUp
        }
        gatesListed = evaluators.indices.map { list in wholeTogether != nil || listedByDomains[list] || searchesCover[list] }
    }

    deinit { searchSteps.deallocate() }

    /// Whether the lists' whole url programs run in one pass (two lists whose whole programs are
    /// dense tables, four at most, each list with one that searches the URL rather than ends at
    /// its start: `ProgramSet.WholeTogether`).
    public var runsWholeProgramsTogether: Bool { wholeTogether != nil }

    /// Whether some lists' url searches run as one product (`ProgramSet.SearchesTogether`: where
    /// their whole programs do not run in one pass, two lists or more with a search multiplied in).
    public var runsSearchesTogether: Bool { searchesTogether != nil }

    /// Whether the lists' url domain tables are looked up together (otherwise: two lists or more
    /// with one).
    public var looksUpDomainsTogether: Bool { domainsTogether != nil }

    /// Whether some lists' host contexts are looked up together (two lists or more with contexts
    /// of one L, their domain tables not looked up together).
    public var looksUpHostContextsTogether: Bool { hostContextsTogether != nil }

    /// Whether some lists' host contexts are looked up with the lists' domain tables (those whose
    /// candidates are a plain host's labels probed with the host's candidates hashed once).
    public var looksUpHostContextsWithDomains: Bool { domainsTogether?.looksUpContexts.contains(true) == true }

    /// What the lists' evaluators hold, by structure (`Evaluator.heldMemory`), added up, and the
    /// product of their searches (`ProgramSet.SearchesTogether`).
    public var heldMemory: HeldMemory {
        var memory = HeldMemory()
        for evaluator in evaluators { memory.add(evaluator.heldMemory) }
        searchesTogether?.held(into: &memory)
        return memory
    }

    /// Tells `each` every list's outcome for `request`, in the lists' order, lent (`each` copies
    /// one to keep it): a list's page outcome, most requests', is then not retained and released
    /// per list and request (`Answer`).
    public func outcomes(for request: Request, _ each: (_ list: Int, _ outcome: MatchOutcome) -> Void) {
        guard request.url.isMatchable else {
            for list in evaluators.indices { each(list, .none) }
            return
        }
        let place = pageTable.place(of: request)
        let flags = Evaluator.requestFlags(request, thirdParty: place.thirdParty, readsUpgradable: readsUpgradable)
        Evaluator.withBytes(request.url.string) { url in
            let hostReading = DomainTable.HostReading(url)
            let wholeSteps = wholeTogether.map { together in
                lent[0]._withUnsafeGuaranteedRef { a in
                    lent[1]._withUnsafeGuaranteedRef { b in Evaluator.runWhole(a, b, together, url: url, labels: hostReading.labels) }
                }
            }
            if let lentDomainsTogether {
                lentDomainsTogether._withUnsafeGuaranteedRef { Evaluator.lookUpDomains(lent, $0, url: url, labels: hostReading.labels) }
            }
            if let searchesTogether {
                Evaluator.runSearches(
                    lent, searchesTogether, url: url, labels: hostReading.labels, listed: gatesListedByDomains, steps: searchSteps.baseAddress!)
            }
            if let hostContextsTogether {
                Evaluator.lookUpHostContexts(lent, hostContextsTogether, url: url, labels: hostReading.labels, listed: gatesListed)
            }
            // List `list`'s answer, its whole programs run already when `steps` is given.
            @inline(__always) func answer(_ list: Int, wholeSteps steps: Int?) {
                lent[list]._withUnsafeGuaranteedRef {
                    $0.outcome(
                        for: request, at: place, flags: flags, url: url, hostReading: hostReading, wholeSteps: steps, lookedUp: lookedUp[list])
                }.lend { each(list, $0) }
            }
            if let wholeSteps {
                answer(0, wholeSteps: wholeSteps.0)
                answer(1, wholeSteps: wholeSteps.1)
            } else {
                for list in lent.indices { answer(list, wholeSteps: searchSteps[list] < 0 ? nil : searchSteps[list]) }
            }
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
