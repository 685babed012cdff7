// ContentBlockers.swift — ContentBlocker
//
// Several compiled lists asked about each request, as a browser asks each of its content
// blockers: every list answers on its own (its outcome is what its `Evaluator` alone would give),
// and what does not depend on a list is found once per request: the request's page (compared by
// its URLs, with the main document's registrable domain), whether it is third party, and the
// host labels of its URL that the domain tables read. The lists' evaluators share one page table,
// so that each knows the page by the same place. The lists' domain tables are looked up together
// (`ProgramSet.DomainsTogether`): a host's candidates hashed once, probed in each table. Their
// whole url programs run together (`ProgramSet.WholeTogether`): the lists' searches as one
// product made at load, where it stays within the bound a list's own product keeps (its patterns
// told apart by list, each list told only its own), and the runs left in passes of up to four,
// each run's table reads waited for beside the others'. Lists' host contexts of one L (other
// converters' `||` rules) are looked up together too (`ProgramSet.HostContextsTogether`): L's
// automaton run and its candidates hashed once.
//
// Threads. Like an `Evaluator`, a ContentBlockers serves one thread at a time (its evaluators and
// page table are its working memory); threads share the compiled lists, each with a
// ContentBlockers of its own (which makes its own product of the lists' searches when made).
// ConcurrencyTests/ConcurrencyTests.swift holds such threads' answers to one thread's, under
// ThreadSanitizer in CI.

public import RequestContext
public import Search

public final class ContentBlockers {
    /// One evaluator per list, in the order given.
    public let evaluators: [Evaluator]
    private let pageTable: PageTable
    /// `evaluators`, which hold them, as lent to each answer: not retained and released per list
    /// and request.
    private let lent: [Unmanaged<Evaluator>]
    /// Two lists or more with a url domain table: their tables looked up together (nil when
    /// fewer have one: `Evaluator.domainsTogether`).
    private let domainsTogether: ProgramSet.DomainsTogether?
    /// Two lists or more whose whole url programs are dense tables: run together (nil when
    /// fewer: `Evaluator.wholeTogether`).
    private let wholeTogether: ProgramSet.WholeTogether?
    /// Two lists or more with host contexts of one L: their contexts looked up together.
    private let hostContextsTogether: ProgramSet.HostContextsTogether?
    /// The three, which hold them, as lent to each request (not retained and released).
    private let lentTogether: (
        domains: Unmanaged<ProgramSet.DomainsTogether>?, whole: Unmanaged<ProgramSet.WholeTogether>?,
        hostContexts: Unmanaged<ProgramSet.HostContextsTogether>?
    )
    /// Per list, its tables looked up before its answer; whether its working gates were emptied
    /// by the domains' lookup, and by that or the whole programs' runs (each emptied by the first
    /// of these a list has).
    private let lookedUp: [ProgramSet.LookedUp]
    private let domainsListed: [Bool]
    private let gatesListed: [Bool]
    /// Per list, whether its whole url programs run together with the others', and then the
    /// steps they took for the request at hand (working memory).
    private let runsWhole: [Bool]
    private let wholeSteps: UnsafeMutableBufferPointer<Int>

    /// The lists' evaluators, keeping the last `pageCapacity` pages (as `Evaluator` does).
    public init(_ lists: [CompiledRuleList], pageCapacity: Int = 16) {
        let pageTable = PageTable(capacity: pageCapacity)
        self.pageTable = pageTable
        evaluators = lists.map { Evaluator($0, pageTable: pageTable) }
        lent = evaluators.map(Unmanaged.passUnretained)
        let domainsTogether = Evaluator.domainsTogether(evaluators)
        let wholeTogether = Evaluator.wholeTogether(evaluators)
        let hostContextsTogether = Evaluator.hostContextsTogether(evaluators)
        (self.domainsTogether, self.wholeTogether, self.hostContextsTogether) = (domainsTogether, wholeTogether, hostContextsTogether)
        lentTogether = (
            domainsTogether.map(Unmanaged.passUnretained), wholeTogether.map(Unmanaged.passUnretained),
            hostContextsTogether.map(Unmanaged.passUnretained)
        )
        runsWhole = evaluators.indices.map { wholeTogether?.runsWhole[$0] == true }
        domainsListed = evaluators.indices.map { domainsTogether?.looksUp[$0] == true }
        gatesListed = evaluators.indices.map { domainsTogether?.looksUp[$0] == true || wholeTogether?.runsWhole[$0] == true }
        lookedUp = evaluators.indices.map { list in
            var lookedUp: ProgramSet.LookedUp = []
            if domainsTogether?.looksUp[list] == true { lookedUp.insert(.domains) }
            if hostContextsTogether?.looksUp[list] == true { lookedUp.insert(.hostContexts) }
            return lookedUp
        }
        wholeSteps = .allocate(capacity: max(lists.count, 1))
        wholeSteps.initialize(repeating: 0)
    }

    deinit { wholeSteps.deallocate() }

    /// Whether the lists' whole url programs run together (two lists or more whose whole programs
    /// are dense tables).
    public var runsWholeProgramsTogether: Bool { wholeTogether != nil }

    /// Per search product the lists' whole programs run together as (their searches multiplied
    /// across lists), the lists of its factors, in order.
    public var wholeProductLists: [[Int]] { wholeTogether?.productSets ?? [] }

    /// Whether the lists' url domain tables are looked up together (two lists or more with one).
    public var looksUpDomainsTogether: Bool { domainsTogether != nil }

    /// Whether some lists' host contexts are looked up together (two lists or more with contexts
    /// of one L).
    public var looksUpHostContextsTogether: Bool { hostContextsTogether != nil }

    /// What the lists' evaluators hold, by structure (`Evaluator.heldMemory`), added up, and the
    /// products their whole programs run as together.
    public var heldMemory: HeldMemory {
        var memory = HeldMemory()
        for evaluator in evaluators { memory.add(evaluator.heldMemory) }
        wholeTogether?.held(into: &memory)
        return memory
    }

    /// Tells `each` every list's outcome for `request`, in the lists' order.
    public func outcomes(for request: Request, _ each: (_ list: Int, _ outcome: MatchOutcome) -> Void) {
        guard request.url.isMatchable else {
            for list in evaluators.indices { each(list, .none) }
            return
        }
        let place = pageTable.place(of: request)
        let url = request.url.string
        let hostReading = url.utf8.withContiguousStorageIfAvailable(DomainTable.HostReading.init) ?? {
            var url = url
            return url.withUTF8(DomainTable.HostReading.init)
        }()
        if let domains = lentTogether.domains {
            domains._withUnsafeGuaranteedRef { Evaluator.lookUpDomains(lent, $0, url: url, labels: hostReading.labels) }
        }
        if let whole = lentTogether.whole {
            whole._withUnsafeGuaranteedRef { Evaluator.runWhole(lent, $0, url: url, listed: domainsListed, steps: wholeSteps) }
        }
        if let hostContexts = lentTogether.hostContexts {
            hostContexts._withUnsafeGuaranteedRef {
                Evaluator.lookUpHostContexts(lent, $0, url: url, labels: hostReading.labels, listed: gatesListed)
            }
        }
        for list in lent.indices {
            let outcome = lent[list]._withUnsafeGuaranteedRef {
                $0.outcome(
                    for: request, at: place, hostReading: hostReading, wholeSteps: runsWhole[list] ? wholeSteps[list] : nil,
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
