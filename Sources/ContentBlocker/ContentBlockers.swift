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
    /// Two lists: their whole url programs run in one pass, each's table reads waited for beside
    /// the other's (nil when they cannot be: `Evaluator.wholeTogether`).
    private let wholeTogether: ProgramSet.WholeTogether?
    /// Otherwise, two lists or more with a url domain table: their tables looked up together,
    /// with the lists' host contexts (nil when fewer have one: `Evaluator.domainsTogether`).
    private let domainsTogether: ProgramSet.DomainsTogether?
    /// `domainsTogether`, which holds it, as lent to each request's lookup: not retained and
    /// released per request.
    private let lentDomainsTogether: Unmanaged<ProgramSet.DomainsTogether>?
    /// The lists whose tables `domainsTogether` looks up, lent (`Evaluator.domainsLookedUp`).
    private let lentDomainsLookedUp: [Unmanaged<Evaluator>]
    /// Otherwise, two lists or more with host contexts of one L: their contexts looked up together.
    private let hostContextsTogether: ProgramSet.HostContextsTogether?
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
        let lent = evaluators.map(Unmanaged.passUnretained)
        self.lent = lent
        readsUpgradable = evaluators.contains(where: \.universalMakesHTTPS)
        let wholeTogether = evaluators.count == 2 ? Evaluator.wholeTogether(evaluators[0], evaluators[1]) : nil
        let domainsTogether = wholeTogether == nil ? Evaluator.domainsTogether(evaluators) : nil
        let contextsLookedUp = domainsTogether?.looksUpContexts.contains(true) == true
        let hostContextsTogether = contextsLookedUp ? nil : Evaluator.hostContextsTogether(evaluators)
        (self.wholeTogether, self.domainsTogether, self.hostContextsTogether) = (wholeTogether, domainsTogether, hostContextsTogether)
        lentDomainsTogether = domainsTogether.map(Unmanaged.passUnretained)
        lentDomainsLookedUp = domainsTogether.map { Evaluator.domainsLookedUp(lent, by: $0) } ?? []
        lookedUp = evaluators.indices.map { list in
            var lookedUp: ProgramSet.LookedUp = []
            if domainsTogether?.looksUp[list] == true { lookedUp.insert(.domains) }
            if domainsTogether?.looksUpContexts[list] == true || hostContextsTogether?.looksUp[list] == true { lookedUp.insert(.hostContexts) }
            return lookedUp
        }
        gatesListed = evaluators.indices.map { list in
            wholeTogether != nil || domainsTogether.map { $0.looksUp[list] || $0.looksUpContexts[list] } == true
        }
    }

    /// Whether the lists' whole url programs run in one pass (two lists whose whole programs are
    /// dense tables, four at most, each list with one that searches the URL rather than ends at
    /// its start: `ProgramSet.WholeTogether`).
    public var runsWholeProgramsTogether: Bool { wholeTogether != nil }

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
            if lentDomainsTogether != nil { lookUpDomains(url, labels: hostReading.labels) }
            if let hostContextsTogether {
                Evaluator.lookUpHostContexts(lent, hostContextsTogether, url: url, labels: hostReading.labels, listed: gatesListed)
            }
            for list in lent.indices {
                let steps = wholeSteps.map { list == 0 ? $0.0 : $0.1 }
                lent[list]._withUnsafeGuaranteedRef {
                    $0.outcome(
                        for: request, at: place, flags: flags, url: url, hostReading: hostReading, wholeSteps: steps, lookedUp: lookedUp[list])
                }.lend { each(list, $0) }
            }
        }
    }

    /// The lists' domain tables looked up together over `url` (`Evaluator.lookUpDomains`). (Out of
    /// line: the answer's loop over the lists, every request's, is kept to its own values.)
    @inline(never)
    private func lookUpDomains(_ url: UnsafeBufferPointer<UInt8>, labels: DomainTable.HostLabels?) {
        lentDomainsTogether?._withUnsafeGuaranteedRef {
            Evaluator.lookUpDomains(lent, emptying: lentDomainsLookedUp, $0, url: url, labels: labels)
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
