// ProgramSet.swift — Search
//
// The programs that run over one URL (the request's, the main document's or the frame's): some
// run whole, from the URL's start; the others come in stages (StagePlanner.swift in Automata).
// A stage's prefix program reports pattern 0 wherever a match of the shared prefix ends, after
// p bytes; each suffix program then runs over the URL from byte p on, as if the URL began there,
// and reports the patterns it finds like any program. (A suffix whose start state reports nothing
// and stops on byte p is skipped: the same answer without the run; so is one that would report
// nothing and stop on the byte after it, half of EasyList's suffix runs.)
//
// Gated groups (GatePlanner.swift in Automata): the whole programs report pattern
// `patternCount + g` wherever group g's gate ends (the gates are patterns of theirs), and each
// group so reported runs its programs whole over the URL, once; or, for a group whose patterns
// begin with their gate (`GateRunStart`), its programs (those patterns anchored) from where the
// gate begins, at each place it ends (for `||` patterns, only where it begins a host label). The
// domain table reports the gates that are domains, found at the host's end: each group so
// reported runs its programs (its patterns' parts after the domain) from the host's end, once.
//
// In a file (a programs section):
//
//     groupCount     4   gated groups (0: none)
//     programCount   4   then the whole programs (ProgramCoding.swift; their patterns:
//                        0 ..< patternCount + groupCount)
//     stageCount     4   then per stage: the prefix program (its only pattern is 0), the
//                        suffix count 4 and the suffix programs
//     per gated group    where it runs 4 (0: from the URL's start; 1: from where its gate
//                        begins; 2: from where its gate begins a host label), its gate's length
//                        4 (0 for 0), its program count 4 and programs
//     domains            the domain table (DomainTable.swift): patterns of the `||domain^` and
//                        `||domain/path` shapes, answered by a hash lookup of the URL's host
//                        labels, before the programs
//     domain conditions  the domain condition table (DomainConditionTable.swift): patterns of the
//                        shape of an `if-domain` or `unless-domain` entry, answered by hashing
//     host contexts      the host context tables (HostContextTable.swift): other converters'
//                        `||` patterns, and the gates (patternCount + g) of the groups of those
//                        with a loop after D, whose programs then run from the URL's start
// Tested by SearchTests/ProgramSetTests.swift, JointPassTests.swift and GatedGroupTests.swift.

public import Automata
public import Bytecode
public import URLFilterSyntax
internal import Parallelism

public struct ProgramSet: Hashable, Sendable {
    public static func == (lhs: ProgramSet, rhs: ProgramSet) -> Bool {
        lhs.contents === rhs.contents
            || (!lhs.contents.isRunOnly && !rhs.contents.isRunOnly && lhs.programs == rhs.programs && lhs.stages == rhs.stages && lhs.gated == rhs.gated && lhs.domains == rhs.domains
                && lhs.domainConditions == rhs.domainConditions && lhs.hostContexts == rhs.hostContexts)
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(programs)
        hasher.combine(stages)
        hasher.combine(gated)
        hasher.combine(domains)
        hasher.combine(domainConditions)
        hasher.combine(hostContexts)
    }

    public struct Stage: Hashable, Sendable {
        public let prefix: Program
        public let suffixes: [Program]
        /// Per suffix, what its first step does (`Program.StartSummary`): a suffix that reports
        /// nothing at its start and stops on the byte where the prefix ended is not run at all.
        /// The empty prefix ends before every byte of the URL, and most bytes start no pattern.
        public let suffixStarts: [Program.StartSummary]

        public init(prefix: Program, suffixes: [Program]) {
            self.prefix = prefix
            self.suffixes = suffixes
            suffixStarts = suffixes.map { $0.startSummary() }
        }
    }

    /// Gated groups: the whole programs report pattern `gateBase + g` where group g's gate ends
    /// (`gateBase`: the set's pattern count); `groups[g]`'s programs then run from where
    /// `starts[g]` says. Where the domain table reports it (a domain found at the host's end),
    /// they run from the host's end.
    public struct Gated: Hashable, Sendable {
        public let gateBase: UInt32
        public let groups: [[Program]]
        public let starts: [GateRunStart]

        /// `starts` (default: every group from the URL's start) has a start per group.
        public init(gateBase: UInt32, groups: [[Program]], starts: [GateRunStart]? = nil) {
            self.gateBase = gateBase
            self.groups = groups
            self.starts = starts ?? Array(repeating: .urlStart, count: groups.count)
            precondition(self.starts.count == groups.count, "a start per group")
        }
    }

    /// What a set holds, behind one reference: a set is lent to each run over a URL, and the caller
    /// copies a value lent from a class's property, some forty words of it inline, at each run.
    @usableFromInline final class Contents: Sendable {
        @usableFromInline let programs: [Program]
        let stages: [Stage]
        let gated: Gated?
        @usableFromInline let domains: DomainTable
        @usableFromInline let domainConditions: DomainConditionTable
        @usableFromInline let hostContexts: [HostContextTable]
        /// What their lookups read (`HostContextTable.lookup`), for a prepared set.
        @usableFromInline let hostLookups: HostLookups
        /// An empty image for a set made to be written, not run (`prepared()` makes one that runs).
        @usableFromInline let image: Image
        @usableFromInline let isPrepared: Bool
        /// The budget its image's dense tables were made within (a prepared set's).
        let denseBudget: DenseBudget
        /// The programs as read were let go (`runOnly()`): the image alone holds them.
        let isRunOnly: Bool
        /// Some whole program, stage or gated group (told also when the programs were let go).
        let holdsPrograms: Bool

        init(
            programs: [Program], stages: [Stage], gated: Gated?, domains: DomainTable, domainConditions: DomainConditionTable,
            hostContexts: [HostContextTable], makingImage: Bool = true, denseBudget: DenseBudget = .standard
        ) {
            self.programs = programs
            self.stages = stages
            self.gated = gated
            self.domains = makingImage ? domains.indexed() : domains
            self.domainConditions = domainConditions
            self.hostContexts = makingImage ? hostContexts.map { $0.indexed() } : hostContexts
            hostLookups = HostLookups(self.hostContexts.compactMap(\.lookup))
            image = makingImage
                ? Image(programs: programs, stages: stages, gated: gated, budget: denseBudget)
                : Image(programs: [], stages: [], gated: nil, budget: .compact)
            isPrepared = makingImage
            self.denseBudget = denseBudget
            isRunOnly = false
            holdsPrograms = !programs.isEmpty || !stages.isEmpty || gated != nil
        }

        /// `prepared`'s tables and image, without its programs as read.
        init(runningOnly prepared: Contents) {
            precondition(prepared.isPrepared, "a set that runs")
            (programs, stages, gated) = ([], [], nil)
            (domains, domainConditions, hostContexts) = (prepared.domains, prepared.domainConditions, prepared.hostContexts)
            (hostLookups, image, denseBudget) = (prepared.hostLookups, prepared.image, prepared.denseBudget)
            (isPrepared, isRunOnly, holdsPrograms) = (true, true, prepared.holdsPrograms)
        }
    }
    @usableFromInline let contents: Contents

    /// Programs run from the URL's start.
    public var programs: [Program] { contents.programs }
    public var stages: [Stage] { contents.stages }
    public var gated: Gated? { contents.gated }
    /// Patterns answered without an automaton.
    public var domains: DomainTable { contents.domains }
    public var domainConditions: DomainConditionTable { contents.domainConditions }
    /// Host patterns of other prefixes than the domain table's, a table per prefix.
    public var hostContexts: [HostContextTable] { contents.hostContexts }
    /// The same, laid out for the interpreter (`Image`), lent where it lies.
    /// (Empty for a set not prepared: `run` and the counts below prepare one first.)
    @usableFromInline var image: Image {
        _read { yield contents.image }
    }

    /// This set, ready to run: itself, or, for a set made without its image (the compiler's,
    /// `preparing` false), the same set with its image made.
    public func prepared() -> ProgramSet {
        contents.isPrepared ? self : prepared(denseBudget: .standard)
    }

    /// This set, ready to run, its dense tables made within `budget` (`DenseBudget`): itself when
    /// it was prepared so, otherwise the same set with its image made anew. Not for a set whose
    /// programs were let go (`runOnly()`) and prepared within another budget.
    public func prepared(denseBudget budget: DenseBudget) -> ProgramSet {
        if contents.isPrepared && contents.denseBudget == budget { return self }
        precondition(!contents.isRunOnly, "a set kept only to run is not prepared again (`runOnly()`)")
        return ProgramSet(contents: Contents(
            programs: programs, stages: stages, gated: gated, domains: domains, domainConditions: domainConditions,
            hostContexts: hostContexts, denseBudget: budget))
    }

    /// The budget this set's dense tables were made within (a set not prepared: the standard one,
    /// which `prepared()` makes them within).
    public var denseBudget: DenseBudget { contents.isPrepared ? contents.denseBudget : .standard }

    /// The entries of this set's dense tables, which its budget counts (`DenseBudget`).
    public var denseEntryCount: Int {
        guard contents.isPrepared else { return prepared().denseEntryCount }
        return image.admittedEntries
    }

    /// This set as an evaluator keeps it: prepared, without its programs as read (`programs`,
    /// `stages`, `gated` and `allPrograms` empty), which a run never reads: it reads their image,
    /// where a program is its dense table or, without one, its code. It runs, and tells its dense
    /// tables and whole runs, as this set does; it is not written, and equals only itself.
    public func runOnly() -> ProgramSet {
        contents.isRunOnly ? self : ProgramSet(contents: Contents(runningOnly: prepared().contents))
    }

    private init(contents: Contents) { self.contents = contents }

    public init(
        programs: [Program], stages: [Stage] = [], gated: Gated? = nil, domains: DomainTable = .empty,
        domainConditions: DomainConditionTable = .empty, hostContexts: [HostContextTable] = []
    ) {
        contents = Contents(
            programs: programs, stages: stages, gated: gated, domains: domains, domainConditions: domainConditions,
            hostContexts: hostContexts)
    }

    /// How many of these programs (prefixes and suffixes included) the interpreter runs from a
    /// dense table (`DenseTable`), of `allPrograms.count`.
    public var denseProgramCount: Int {
        guard contents.isPrepared else { return prepared().denseProgramCount }
        let image = image
        let entries = image.packed.buffers.entries
        let whole = (0..<image.wholeRunCount).reduce(0) { $0 + (entries[$1].isDense ? image.wholeRunPrograms[$1].count : 0) }
        return whole + entries[image.wholeRunCount...].count(where: \.isDense)
    }

    /// The runs of the whole programs over a URL, in order: the programs each runs (one, or the
    /// factors of a product: `DenseTable.together`) and its states (a product's, or a dense table's
    /// with a chain's members apart, or the compact program's).
    public var wholeRuns: [(programs: [Int], states: Int)] {
        guard contents.isPrepared else { return prepared().wholeRuns }
        return Array(zip(image.wholeRunPrograms, image.wholeRunStates))
    }

    /// The bytes of these programs' dense tables (the entries the interpreter reads a step from).
    public var denseTableBytes: Int {
        guard contents.isPrepared else { return prepared().denseTableBytes }
        return image.denseEntries.count * MemoryLayout<UInt16>.size
    }

    /// The programs the partitioner made (`DFAPartitioner.build(_:limits:minimizing:phaseTimer:product:)`
    /// with `Program.init`).
    /// The groups a domain gates get their entries in `domains` (a caller that added them, as the
    /// compiler does while it makes the table, keeps its table). Without `preparing`, the
    /// interpreter's image (its dense tables: a twentieth of a big list's compile) is not made: a
    /// set the compiler makes is written, and runs once `prepared()` (the evaluator prepares it;
    /// a run of an unprepared set makes a prepared one first).
    public init(
        _ partition: Partitioned<Program>, domains: DomainTable = .empty, domainConditions: DomainConditionTable = .empty,
        hostContexts: [HostContextTable] = [], preparing: Bool = true
    ) {
        contents = Contents(
            programs: partition.dfas, stages: partition.stages.map { Stage(prefix: $0.prefix, suffixes: $0.suffixes) },
            gated: partition.gated.map { Gated(gateBase: UInt32($0.gateBase), groups: $0.groups, starts: $0.starts) },
            domains: partition.gated.map { domains.includingGates(from: UInt32($0.gateBase), $0.domains) } ?? domains,
            domainConditions: domainConditions, hostContexts: hostContexts, makingImage: preparing)
    }

    /// The programs of the DFAs `dfas` (the groups a domain gates with a table of their domains).
    public init(_ dfas: PartitionedDFAs) {
        self.init(
            programs: dfas.dfas.map(Program.init),
            stages: dfas.stages.map { Stage(prefix: Program($0.prefix), suffixes: $0.suffixes.map(Program.init)) },
            gated: dfas.gated.map { Gated(gateBase: UInt32($0.gateBase), groups: $0.groups.map { $0.map(Program.init) }, starts: $0.starts) },
            domains: dfas.gated.map { DomainTable.empty.includingGates(from: UInt32($0.gateBase), $0.domains) } ?? .empty)
    }

    /// Every program end to end in one code buffer and one class-map buffer, each described by a
    /// record of plain integers: matching a URL touches no reference count (iterating `Program`
    /// values copies them, retaining their arrays, at every URL position an empty prefix reports).
    @usableFromInline struct Image: Sendable {
        /// A program as a run reads it: its dense table's part (`Dense`) when it has one, its
        /// compact code (`Compact`) otherwise, each's fields in the same words: 64 bytes, a line
        /// (a run reads its entry's line before its code or table). Plain fields, not an enum's
        /// payloads: those are read as whole words and shifted apart, where a field is one load. A
        /// table's fields are whole words, read two at a time into the run's `DenseView`: in 32
        /// bits, each read, widened and stored apart, would cost a request some instructions more.
        @usableFromInline struct Entry: Sendable {
            @usableFromInline let words: (Int, Int, Int, Int, Int, Int, Int)
            @usableFromInline let nowhere: UInt32
            /// The compact code's reference row count.
            @usableFromInline let referenceRowCount: UInt16
            /// The compact code's target width (2 to 4); 0 for a dense table.
            @usableFromInline let width: UInt8

            init(_ program: Compact) {
                precondition(program.width != 0, "a compact program's targets take bytes")
                words = (
                    program.codeStart, program.codeEnd, program.classStart, program.reference, program.referenceTransitions,
                    program.referenceRowStart, 0)
                (nowhere, referenceRowCount, width) = (program.nowhere, program.referenceRowCount, program.width)
            }

            init(_ table: Dense) {
                words = (table.start, table.shift, table.startState, table.loopStart, table.reportStart, table.acceptStartStart, table.columnStart)
                (nowhere, referenceRowCount, width) = (0, 0, 0)
            }

            @inlinable var isDense: Bool { width == 0 }

            @inlinable var dense: Dense? {
                guard isDense else { return nil }
                return Dense(
                    start: words.0, shift: words.1, startState: words.2, loopStart: words.3, reportStart: words.4,
                    acceptStartStart: words.5, columnStart: words.6)
            }

            /// Its compact code's fields (not for a dense table's).
            @inlinable var compact: Compact {
                Compact(
                    codeStart: words.0, codeEnd: words.1, classStart: words.2, reference: words.3, referenceTransitions: words.4,
                    referenceRowStart: words.5, nowhere: nowhere, referenceRowCount: referenceRowCount, width: width)
            }
        }
        /// A program run from its code (`Program.execute`), in `code`, `classes` and `referenceRows`.
        @usableFromInline struct Compact: Sendable {
            @usableFromInline var codeStart = 0
            @usableFromInline var codeEnd = 0
            @usableFromInline var classStart = 0
            /// The reference state and where its transitions start, from the code's start.
            @usableFromInline var reference: Int
            @usableFromInline var referenceTransitions: Int
            /// The reference state's row in `referenceRows` (`Program.referenceRow()`; count 0: none).
            @usableFromInline var referenceRowStart = 0
            @usableFromInline var nowhere: UInt32
            @usableFromInline var referenceRowCount: UInt16 = 0
            @usableFromInline var width: UInt8

            @inlinable init(
                codeStart: Int, codeEnd: Int, classStart: Int, reference: Int, referenceTransitions: Int, referenceRowStart: Int,
                nowhere: UInt32, referenceRowCount: UInt16, width: UInt8
            ) {
                (self.codeStart, self.codeEnd, self.classStart) = (codeStart, codeEnd, classStart)
                (self.reference, self.referenceTransitions, self.referenceRowStart) = (reference, referenceTransitions, referenceRowStart)
                (self.nowhere, self.referenceRowCount, self.width) = (nowhere, referenceRowCount, width)
            }

            /// `program`'s, its code, class map and reference row not yet placed.
            init(_ program: Program) {
                (width, nowhere) = (UInt8(program.targetWidth), program.nowhere)
                (reference, referenceTransitions) = (program.referenceState, program.referenceTransitions)
            }
        }
        /// A part of a dense table (`DenseView`): where the table starts in `denseEntries`, its
        /// part's start state, its accept starts in `denseAcceptStart` (counted in `denseAccepts`)
        /// and its places of each byte's entry in `denseColumns`.
        @usableFromInline struct Dense: Sendable {
            @usableFromInline var start = 0
            @usableFromInline var shift = 0
            @usableFromInline var startState = 0
            @usableFromInline var loopStart = 0
            @usableFromInline var reportStart = 0
            @usableFromInline var acceptStartStart = 0
            @usableFromInline var columnStart = 0

            @inlinable init(
                start: Int, shift: Int, startState: Int, loopStart: Int, reportStart: Int, acceptStartStart: Int, columnStart: Int
            ) {
                (self.start, self.shift, self.startState, self.loopStart) = (start, shift, startState, loopStart)
                (self.reportStart, self.acceptStartStart, self.columnStart) = (reportStart, acceptStartStart, columnStart)
            }

            /// A product's, its table not yet placed (`placeDenseTables`).
            init() {}
        }
        @usableFromInline var code: [UInt8] = []
        @usableFromInline var classes: [UInt8] = []
        @usableFromInline var referenceRows: [UInt32] = []
        @usableFromInline var denseEntries = DenseEntries(tables: [])
        @usableFromInline var denseAcceptStart: [Int32] = []
        @usableFromInline var denseAccepts: [UInt32] = []
        /// Per dense part, the place of each byte 0...127's entry from a row's start
        /// (`DenseTable.columns`).
        @usableFromInline var denseColumns: [UInt32] = []
        /// The whole programs, then per stage its prefix and its suffixes, then the gated groups'
        /// programs. (An entry with a dense table has no code, class map or reference row: a run
        /// reads its table alone.)
        @usableFromInline var entries: [Entry] = []
        /// `code`, `classes`, `referenceRows`, `denseAcceptStart`, `denseAccepts`, `denseColumns`,
        /// `entries`, `firstByteStart`, `startingSuffixes` and `secondBytes` as a run reads them;
        /// they are emptied once copied there.
        @usableFromInline var packed = Packed.empty
        /// Per stage: its prefix's entry, and where its 130 first-byte slots start in `firstByteStart`.
        @usableFromInline var stagePrefixes: [Int32] = []
        /// `stagePrefixes.count`, read by every run (an array's count is a line of its own).
        @usableFromInline var stageCount = 0
        /// Per stage: its prefix reports at every position (`Program.reportsAtEveryPosition`), so
        /// the places are listed, not found by a run that reports at every byte (a step per byte
        /// of every URL saved).
        @usableFromInline var stageStartsEverywhere: [Bool] = []
        /// Per stage: its prefix is the domain shape's (`ProgramSet.hostLabelPrefix`), so its ends
        /// are read off the URL's host labels (`DomainTable.HostLabels`) instead of by its run.
        @usableFromInline var stageReadsHostLabels: [Bool] = []
        /// Some stage reads them (`stageReadsHostLabels`), so a run reads them first.
        @usableFromInline var readsHostLabels = false
        /// Per stage: the bytes below 128 from which some suffix goes on (`firstByteStart`'s
        /// non-empty slots): the every-position stage skips the other places without a look at
        /// their slots (EasyList and EasyPrivacy: most bytes of a URL).
        @usableFromInline var stageStartBytes: [ASCIISet] = []
        /// Per stage and byte b (128: every byte from 128 on; 129 ends the list), where the entries
        /// of the suffixes that go on from b start in `startingSuffixes` (`Stage.suffixStarts`).
        @usableFromInline var firstByteStart: [Int32] = []
        @usableFromInline var startingSuffixes: [Int32] = []
        /// Alongside `startingSuffixes`: the bytes after the first on which each may report
        /// something (`Program.secondBytes(after:)`).
        @usableFromInline var secondBytes: [ASCIISet] = []
        /// The whole programs' runs: entries `0 ..< wholeRunCount`, in the order they run; per
        /// run, the programs it runs (one, or a product's factors: `DenseTable.together`) and its
        /// states.
        @usableFromInline var wholeRunCount = 0
        var wholeRunPrograms: [[Int]] = []
        var wholeRunStates: [Int] = []
        /// The whole programs' first pattern that is a gate (`Gated.gateBase`; none: `UInt32.max`),
        /// and per gated group where its programs' entries start (then the end of the last).
        @usableFromInline var gateBase = UInt32.max
        @usableFromInline var groupStart: [Int32] = []
        /// Per gated group, where its programs run: the URL's start (0), or the gate's first
        /// byte, anywhere (its length) or where it begins a host label (minus its length).
        @usableFromInline var groupGateLength: [Int32] = []
        /// The entries of the dense tables admitted (their alignment in `denseEntries` aside): what
        /// the budget counts.
        var admittedEntries = 0

        /// The image's arrays as buffers, for one run over a URL.
        @usableFromInline struct Buffers {
            @usableFromInline let code: UnsafeBufferPointer<UInt8>
            @usableFromInline let classes: UnsafeBufferPointer<UInt8>
            @usableFromInline let referenceRows: UnsafeBufferPointer<UInt32>
            @usableFromInline let denseEntries: UnsafePointer<UInt16>
            @usableFromInline let denseAcceptStart: UnsafeBufferPointer<Int32>
            @usableFromInline let denseAccepts: UnsafeBufferPointer<UInt32>
            @usableFromInline let denseColumns: UnsafeBufferPointer<UInt32>
            @usableFromInline let entries: UnsafeBufferPointer<Entry>
            /// Per entry, its dense table's view (`view`), made once: a run is lent it where it
            /// lies, not given one made from the entry's words at each run. (A compact entry's is
            /// read by nothing.)
            @usableFromInline let views: UnsafePointer<DenseView>
            /// The stages' suffixes by first byte (`Image.firstByteStart`, `startingSuffixes`,
            /// `secondBytes`), read at every place where a prefix ends.
            @usableFromInline let firstByteStart: UnsafePointer<Int32>
            @usableFromInline let startingSuffixes: UnsafePointer<Int32>
            @usableFromInline let secondBytes: UnsafePointer<ASCIISet>

            @inlinable init(
                code: UnsafeBufferPointer<UInt8>, classes: UnsafeBufferPointer<UInt8>, referenceRows: UnsafeBufferPointer<UInt32>,
                denseEntries: UnsafePointer<UInt16>, denseAcceptStart: UnsafeBufferPointer<Int32>,
                denseAccepts: UnsafeBufferPointer<UInt32>, denseColumns: UnsafeBufferPointer<UInt32>, entries: UnsafeBufferPointer<Entry>,
                views: UnsafePointer<DenseView>, firstByteStart: UnsafePointer<Int32>, startingSuffixes: UnsafePointer<Int32>,
                secondBytes: UnsafePointer<ASCIISet>
            ) {
                self.code = code
                self.classes = classes
                self.referenceRows = referenceRows
                self.denseEntries = denseEntries
                self.denseAcceptStart = denseAcceptStart
                self.denseAccepts = denseAccepts
                self.denseColumns = denseColumns
                self.entries = entries
                self.views = views
                self.firstByteStart = firstByteStart
                self.startingSuffixes = startingSuffixes
                self.secondBytes = secondBytes
            }

            /// Entry `index`'s dense table, if it has one.
            @inlinable @inline(__always)
            func dense(_ index: Int) -> DenseView? {
                guard let table = entries[index].dense else { return nil }
                return view(table)
            }

            /// Whether entries `a` and `b` are parts of one dense table (`runWhole` runs them in one
            /// pass). Read off the entries' words, so that no view is made (and kept on the stack)
            /// for entries that are not such a pair.
            @inlinable @inline(__always)
            func sharesTable(_ a: Int, _ b: Int) -> Bool {
                let (first, second) = (entries[a], entries[b])
                return first.isDense && second.isDense && first.words.0 == second.words.0
            }

            /// Entry `index`'s dense table (one that has one: `sharesTable`), where its view lies.
            @inlinable @inline(__always)
            func denseView(_ index: Int) -> UnsafePointer<DenseView> { views + index }

            /// `view`'s run over `url`, in a function of its own: its loop keeps its state, place and
            /// addresses in registers, which a run inlined into a set's run, with that run's
            /// values live around it, does not.
            @usableFromInline @inline(never)
            static func runAlone(_ view: UnsafePointer<DenseView>, _ url: UnsafeBufferPointer<UInt8>, report: (UInt32, Int) -> Void) -> Int {
                view.pointee.run(url, report: report)
            }

            /// The pass of the parts whose views lie at `views` and the next one (`DenseView.run`),
            /// in a function of its own as `runAlone` is: a set's run hands it one address, the
            /// views' start states read there.
            @usableFromInline @inline(never)
            static func runPair(_ views: UnsafePointer<DenseView>, _ url: UnsafeBufferPointer<UInt8>, report: (UInt32, Int) -> Void) -> Int {
                DenseView.run(views, views + 1, url, report: report)
            }

            @inlinable @inline(__always)
            func view(_ table: Dense) -> DenseView {
                DenseView(
                    entries: denseEntries + table.start, shift: table.shift, start: table.startState, loopStart: table.loopStart,
                    reportStart: table.reportStart, acceptStart: denseAcceptStart.baseAddress.unsafelyUnwrapped + table.acceptStartStart,
                    accepts: denseAccepts, columns: denseColumns.baseAddress.unsafelyUnwrapped + table.columnStart)
            }

            /// Runs entry `index` over `url`, by its dense table when it has one; returns the steps.
            @inlinable @inline(__always)
            func execute(_ index: Int, _ url: UnsafeBufferPointer<UInt8>, _ report: (UInt32, Int) -> Void) -> Int {
                let entry = entries[index]
                if entry.isDense { return Self.runAlone(views + index, url, report: report) }
                let program = entry.compact
                let (classStart, rowStart) = (program.classStart, program.referenceRowStart)
                return Program.execute(
                    code: UnsafeBufferPointer(rebasing: code[program.codeStart..<program.codeEnd]),
                    classOf: UnsafeBufferPointer(rebasing: classes[classStart..<classStart + 128]),
                    width: Int(program.width), nowhere: program.nowhere, reference: program.reference,
                    referenceTransitions: program.referenceTransitions,
                    referenceRow: UnsafeBufferPointer(rebasing: referenceRows[rowStart..<rowStart + Int(program.referenceRowCount)]),
                    url: url, report: report)
            }
        }

        @inlinable @inline(__always)
        func withBuffers<Result>(_ body: (Buffers) -> Result) -> Result {
            body(packed.buffers)
        }

        /// Runs the programs of each group `listed` (`ProgramSet.found`, `domainFound`): one the
        /// domain table listed from the host's end (where its domain ends: its programs are its
        /// patterns' parts after it); one the whole programs listed from the URL's start, once, or
        /// from where its gate begins at each place (for a `||` group, where that is the start of a
        /// host label).
        /// (This, `runStage` and `runWhole` are transparent, inlined before optimization: with
        /// `@inline(__always)` alone, the closure specializer made a copy per caller of `run`,
        /// called once per request and stage.)
        @usableFromInline @_transparent
        func runGroups(
            _ buffers: Buffers, _ url: UnsafeBufferPointer<UInt8>, labels: DomainTable.HostLabels?, listed ends: [Int],
            steps: inout Int, runs: inout Int, report: (UInt32) -> Void
        ) {
            for (at, listed) in ends.enumerated() {
                let group: Int, from: Int
                if listed < 0 {
                    (group, from) = (~listed, labels!.end)
                } else {
                    group = listed & 0xFFFF_FFFF
                    let length = Int(groupGateLength[group])
                    if length == 0 {
                        guard !ends[..<at].contains(where: { $0 >= 0 && $0 & 0xFFFF_FFFF == group }) else { continue }
                        from = 0
                    } else {
                        from = listed >> 32 - abs(length)
                        guard from >= 0, length > 0 || ProgramSet.beginsHostLabel(from, url, labels) else { continue }
                    }
                }
                let rest = UnsafeBufferPointer(rebasing: url[from...])
                for entry in Int(groupStart[group])..<Int(groupStart[group + 1]) {
                    steps &+= buffers.execute(entry, rest) { pattern, _ in report(pattern) }
                    runs &+= 1
                }
            }
        }

        /// Runs stage `stage` over `url`: the places where its prefix ends (read off the host labels
        /// for the domain shape's prefix as the stage goes, `HostLabelEnds`, found by the prefix's
        /// run otherwise), then at each the
        /// suffixes its byte and the next one may start (`firstByteStart`, `secondBytes`).
        /// The every-position stage's ends are every place up to the URL's end or its first byte
        /// from 128 on: counted, not listed (an append per byte of every URL).
        @usableFromInline @_transparent
        func runStage(
            _ stage: Int, _ buffers: Buffers, _ url: UnsafeBufferPointer<UInt8>, labels: DomainTable.HostLabels?,
            ends: inout [Int], steps: inout Int, runs: inout Int, report: (UInt32) -> Void
        ) {
            let everywhere = stageStartsEverywhere[stage]
            let readsLabels = stageReadsHostLabels[stage]
            var labelEnds = HostLabelEnds(labels)
            if !readsLabels && !everywhere {
                ends.clear()
                steps &+= buffers.execute(Int(stagePrefixes[stage]), url) { _, end in
                    // A prefix never reads the end-of-URL NUL (the planner keeps end markers out
                    // of prefixes); the bound also holds for a valid file built otherwise.
                    if end <= url.count && ends.last != end { ends.append(end) }
                }
                runs &+= 1
            }
            let slots = stage &* 130
            let startBytes = stageStartBytes[stage]
            var next = 0
            while true {
                let end: Int
                if everywhere {
                    // (Past the places whose byte starts no suffix; the URL's end and a byte
                    // from 128 on are looked at.)
                    while next < url.count && url[next] < 128 && !startBytes.contains(url[next]) { next += 1 }
                    guard next <= url.count else { break }
                    end = next
                } else if readsLabels {
                    guard let place = labelEnds.next(url) else { break }
                    end = place
                } else {
                    guard next < ends.count else { break }
                    end = ends[next]
                }
                next += 1
                let byte = min(end < url.count ? Int(url[end]) : 0, 128)
                // The input after it: the URL's next byte, the end-of-URL NUL, or none
                // (128 also stands for bytes from 128 on: the run stops there).
                let second = end + 1 < url.count ? min(url[end + 1], 128) : end + 1 == url.count ? 0 : 128
                // (Read where the image packed them: the places and slots it made, unchecked.)
                for at in Int(buffers.firstByteStart[slots &+ byte])..<Int(buffers.firstByteStart[slots &+ byte &+ 1]) {
                    let goesOn = buffers.secondBytes[at]
                    guard second < 128 ? goesOn.contains(second) : goesOn == Program.everyByte else { continue }
                    let rest = UnsafeBufferPointer(rebasing: url[end...])
                    steps += buffers.execute(Int(buffers.startingSuffixes[at]), rest) { pattern, _ in report(pattern) }
                    runs += 1
                }
                // (A byte from 128 on stops every run: no place after it counts.)
                if everywhere && byte == 128 { break }
            }
        }

        /// The arrays a run reads (`Buffers`), copied into one allocation whose addresses one
        /// object holds: a run reads them from here, where reading each array's address and count
        /// would be a line of its own each (its header), most of them evicted between requests.
        @usableFromInline final class Packed: @unchecked Sendable {
            @usableFromInline let buffers: Buffers
            fileprivate let memory: TableMemory
            /// The dense tables, whose entries `buffers` points to.
            fileprivate let denseEntries: DenseEntries

            init(
                code: [UInt8], classes: [UInt8], referenceRows: [UInt32], denseEntries: DenseEntries, denseAcceptStart: [Int32],
                denseAccepts: [UInt32], denseColumns: [UInt32], entries: [Entry], firstByteStart: [Int32] = [],
                startingSuffixes: [Int32] = [], secondBytes: [ASCIISet] = []
            ) {
                // Each array from a 16-byte boundary, the entries first, from a line's start: an
                // entry then lies on one line.
                func size<T>(_ array: [T]) -> Int { (array.count * MemoryLayout<T>.stride + 15) / 16 * 16 }
                let viewsSize = (entries.count * MemoryLayout<DenseView>.stride + 15) / 16 * 16
                let total = size(code) + size(classes) + size(referenceRows) + size(denseAcceptStart) + size(denseAccepts)
                    + size(denseColumns) + size(entries) + viewsSize + size(firstByteStart) + size(startingSuffixes) + size(secondBytes)
                let memory = TableMemory(byteCount: max(total, 16), alignment: 64)
                var offset = 0
                func place<T>(_ array: [T]) -> UnsafeBufferPointer<T> {
                    let start = (memory.base + offset).bindMemory(to: T.self, capacity: array.count)
                    array.withUnsafeBufferPointer { if let base = $0.baseAddress { start.initialize(from: base, count: $0.count) } }
                    offset += size(array)
                    return UnsafeBufferPointer(start: start, count: array.count)
                }
                let placedEntries = place(entries)
                let views = (memory.base + offset).bindMemory(to: DenseView.self, capacity: entries.count)
                offset += viewsSize
                let placed = Buffers(
                    code: place(code), classes: place(classes), referenceRows: place(referenceRows),
                    denseEntries: UnsafePointer(denseEntries.base), denseAcceptStart: place(denseAcceptStart),
                    denseAccepts: place(denseAccepts), denseColumns: place(denseColumns), entries: placedEntries, views: views,
                    firstByteStart: place(firstByteStart).baseAddress!, startingSuffixes: place(startingSuffixes).baseAddress!,
                    secondBytes: place(secondBytes).baseAddress!)
                // (A compact entry's view: the empty table's, read by nothing.)
                for (index, entry) in entries.enumerated() { (views + index).initialize(to: placed.view(entry.dense ?? Dense())) }
                buffers = placed
                self.memory = memory
                self.denseEntries = denseEntries
            }

            /// An image's with no programs.
            static let empty = Packed(
                code: [], classes: [], referenceRows: [], denseEntries: DenseEntries(tables: []), denseAcceptStart: [], denseAccepts: [],
                denseColumns: [], entries: [])

            // (The arrays' elements are plain values: nothing to deinitialize; `memory` frees itself.)
        }

        /// The image of these programs, their dense tables made while their entries fit `budget`.
        init(programs: [Program], stages: [Stage], gated: Gated?, budget: DenseBudget) {
            var admitted = addWholeRuns(programs, budget: budget.entries)
            addStages(stages)
            let gatesBeginLabels = addGated(gated)
            readsHostLabels = stageReadsHostLabels.contains(true) || gatesBeginLabels
            admitTables(stages: stages, gated: gated, budget: budget.entries, after: &admitted)
            admittedEntries = admitted.reduce(0) { $0 + $1.table.entries.count }
            placeDenseTables(admitted)
            placeCode(programs: programs, stages: stages, gated: gated)
            stageCount = stagePrefixes.count
            packed = Packed(
                code: code, classes: classes, referenceRows: referenceRows, denseEntries: denseEntries,
                denseAcceptStart: denseAcceptStart, denseAccepts: denseAccepts, denseColumns: denseColumns, entries: entries,
                firstByteStart: firstByteStart, startingSuffixes: startingSuffixes, secondBytes: secondBytes)
            (code, classes, referenceRows, denseAcceptStart, denseAccepts, denseColumns, entries) = ([], [], [], [], [], [], [])
            (firstByteStart, startingSuffixes, secondBytes) = ([], [], [])
        }

        /// Appends `program`'s entry (its code, class map and reference row placed by `placeCode`).
        private mutating func add(_ program: Program) {
            entries.append(Entry(Compact(program)))
        }

        /// The code, class map and reference row of each entry left without a dense table, the
        /// programs those of `init`'s, in the entries' order; an entry with a table has none.
        private mutating func placeCode(programs: [Program], stages: [Stage], gated: Gated?) {
            let others = stages.flatMap { [$0.prefix] + $0.suffixes } + (gated.map { Array($0.groups.joined()) } ?? [])
            for index in entries.indices {
                // (A product, an entry of several programs, always has a table.)
                guard !entries[index].isDense else { continue }
                var entry = entries[index].compact
                let program = index < wholeRunCount ? programs[wholeRunPrograms[index][0]] : others[index - wholeRunCount]
                let row = program.referenceRow()
                (entry.codeStart, entry.codeEnd) = (code.count, code.count + program.code.count)
                entry.classStart = classes.count
                (entry.referenceRowStart, entry.referenceRowCount) = (referenceRows.count, UInt16(row.count))
                entries[index] = Entry(entry)
                referenceRows += row
                code += program.code
                classes += program.classOfByte
            }
        }

        /// The whole programs' runs first, an entry each in the order they run: their tables
        /// (`DenseTable.together`: searches multiplied, parts run in one pass), a part a run (a
        /// program, or a product: an entry with a table and neither code nor class map, its
        /// table's places in `denseColumns` as every dense entry's); then the programs left
        /// without a table. Returns per table the entry of each part.
        private mutating func addWholeRuns(_ programs: [Program], budget: Int) -> [(parts: [Int], table: DenseTable)] {
            let wholeTables = DenseTable.together(programs, budget: budget)
            var admitted: [(parts: [Int], table: DenseTable)] = []
            for joined in wholeTables {
                var parts: [Int] = []
                for (members, states) in zip(joined.members, joined.states) {
                    wholeRunPrograms.append(members)
                    wholeRunStates.append(states)
                    parts.append(entries.count)
                    if members.count == 1 {
                        add(programs[members[0]])
                    } else {
                        // (Its table placed with the others, `placeDenseTables`.)
                        entries.append(Entry(Dense()))
                    }
                }
                admitted.append((parts, joined.table))
            }
            let tabled = Set(wholeTables.flatMap { $0.members.joined() })
            for index in programs.indices where !tabled.contains(index) {
                wholeRunPrograms.append([index])
                wholeRunStates.append(programs[index].stateCount)
                add(programs[index])
            }
            wholeRunCount = entries.count
            return admitted
        }

        /// Per stage, its prefix's entry and its suffixes', and the suffixes each first byte (and
        /// the end of the URL, 128) may start.
        private mutating func addStages(_ stages: [Stage]) {
            for stage in stages {
                stagePrefixes.append(Int32(entries.count))
                stageStartsEverywhere.append(stage.prefix.reportsAtEveryPosition)
                stageReadsHostLabels.append(stage.prefix == ProgramSet.hostLabelPrefix)
                add(stage.prefix)
                let firstSuffix = entries.count
                for suffix in stage.suffixes { add(suffix) }
                var startBytes = ASCIISet()
                for byte in 0...128 {
                    firstByteStart.append(Int32(startingSuffixes.count))
                    for (index, start) in stage.suffixStarts.enumerated() where byte < 128 ? start.goesOn(UInt8(byte)) : start.reports {
                        startingSuffixes.append(Int32(firstSuffix + index))
                        secondBytes.append(stage.suffixes[index].secondBytes(after: UInt8(byte)))
                        if byte < 128 { startBytes.insert(UInt8(byte)) }
                    }
                }
                stageStartBytes.append(startBytes)
                firstByteStart.append(Int32(startingSuffixes.count))
            }
        }

        /// Per gated group, its programs' entries and where they run; returns whether some group
        /// runs where its gate begins a host label.
        private mutating func addGated(_ gated: Gated?) -> Bool {
            guard let gated else { return false }
            var gatesBeginLabels = false
            gateBase = gated.gateBase
            for (group, start) in zip(gated.groups, gated.starts) {
                groupStart.append(Int32(entries.count))
                for program in group { add(program) }
                switch start {
                case .urlStart: groupGateLength.append(0)
                case .gate(let length): groupGateLength.append(Int32(length))
                case .hostLabelGate(let length):
                    groupGateLength.append(-Int32(length))
                    gatesBeginLabels = true
                }
            }
            groupStart.append(Int32(entries.count))
            return gatesBeginLabels
        }

        /// Then a table each for the prefixes that are run, the suffixes and the gated groups'
        /// programs, while the budget lasts, appended to `admitted`.
        private mutating func admitTables(
            stages: [Stage], gated: Gated?, budget: Int, after admitted: inout [(parts: [Int], table: DenseTable)]
        ) {
            // (`others[i]` is entry `wholeRunCount + i`; `units`, the order they are admitted in.)
            var units: [Int] = []
            var others: [Program] = []
            var later: [Int] = []
            for (stage, item) in stages.enumerated() {
                if !stageStartsEverywhere[stage] && !stageReadsHostLabels[stage] { units.append(others.count) }
                others.append(item.prefix)
                for suffix in item.suffixes {
                    later.append(others.count)
                    others.append(suffix)
                }
            }
            if let gated {
                for program in gated.groups.joined() {
                    later.append(others.count)
                    others.append(program)
                }
            }
            units += later
            var admittedEntries = admitted.reduce(0) { $0 + $1.table.entries.count }
            var madeAhead = Self.tablesAhead(units, others, admittedEntries: admittedEntries, budget: budget)
            for (index, unit) in units.enumerated() {
                guard admittedEntries < budget else { break }
                let made = madeAhead[index]
                madeAhead[index] = nil  // (each table let go once admitted)
                guard Self.size(others[unit]) <= DenseTable.maximumEntries, let table = made ?? DenseTable(others[unit]),
                    admittedEntries + table.entries.count <= budget
                else { continue }
                admitted.append(([wholeRunCount + unit], table))
                admittedEntries += table.entries.count
            }
        }

        /// A program's table's entries if it has a row per state, as tables of valid programs do.
        private static func size(_ program: Program) -> Int {
            program.stateCount * DenseTable.rowEntries(classCount: program.classCount)
        }

        /// The tables `admitTables` admits, made on every core first: those the budget admits if
        /// each has `size` entries (per unit; nil: not made ahead). They are then admitted one at
        /// a time as the budget says, a table not made ahead made then: the same tables whatever
        /// was made.
        private static func tablesAhead(_ units: [Int], _ others: [Program], admittedEntries: Int, budget: Int) -> [DenseTable??] {
            var ahead: [Int] = []
            var predicted = admittedEntries
            for (index, unit) in units.enumerated() {
                guard predicted < budget else { break }
                guard size(others[unit]) <= DenseTable.maximumEntries, predicted + size(others[unit]) <= budget else { continue }
                ahead.append(index)
                predicted += size(others[unit])
            }
            var madeAhead = [DenseTable??](repeating: nil, count: units.count)
            for (index, table) in zip(ahead, Parallel.map(handingOver: ahead) { _, index in DenseTable(others[units[index]]) }) {
                madeAhead[index] = .some(table)
            }
            return madeAhead
        }

        /// The admitted tables' entries in one allocation (`DenseEntries`), and each part's entry
        /// told where its table, accepts and columns lie.
        private mutating func placeDenseTables(_ admitted: [(parts: [Int], table: DenseTable)]) {
            denseEntries = DenseEntries(tables: admitted.map(\.table.entries))
            for ((parts, table), start) in zip(admitted, denseEntries.starts) {
                // (Parts of one table run in one pass, which reads two-byte entries.)
                precondition(parts.count == 1 || !table.narrow, "a table of several parts has two-byte entries")
                for (part, index) in parts.enumerated() {
                    entries[index] = Entry(Dense(
                        start: start, shift: table.shift, startState: table.parts[part].start, loopStart: table.loopStart,
                        reportStart: table.reportStart, acceptStartStart: denseAcceptStart.count, columnStart: denseColumns.count + 128 * part))
                }
                // (A table's parts' places one after another: a pass of several reads them from one
                // address.)
                denseColumns += table.columns
                let base = Int32(denseAccepts.count)
                denseAcceptStart += table.acceptStart.map { $0 + base }
                denseAccepts += table.accepts
            }
        }
    }

    /// The entries of a set's dense tables, in one allocation: each table starts on a cache line,
    /// so that a row of 32 entries or more lies on whole lines.
    @usableFromInline final class DenseEntries: @unchecked Sendable {
        static let alignment = 64
        @usableFromInline let base: UnsafeMutablePointer<UInt16>
        fileprivate let memory: TableMemory
        let count: Int
        /// Where each table starts.
        let starts: [Int]

        /// `offset` rounded up to a cache line's entries.
        private static func aligned(_ offset: Int) -> Int {
            let line = alignment / MemoryLayout<UInt16>.size
            return (offset + line - 1) / line * line
        }

        /// The tables' entries, each from the line after the previous one's end (`aligned`).
        init(tables: [[UInt16]]) {
            let count = tables.reduce(0) { Self.aligned($0) + $1.count }
            let memory = TableMemory(byteCount: max(count, 1) * MemoryLayout<UInt16>.size, alignment: Self.alignment)
            let base = memory.base.bindMemory(to: UInt16.self, capacity: max(count, 1))
            var offset = 0
            var starts: [Int] = []
            for table in tables {
                let start = Self.aligned(offset)
                (base + offset).initialize(repeating: DenseTable.dead, count: start - offset)
                table.withUnsafeBufferPointer { (base + start).initialize(from: $0.baseAddress!, count: $0.count) }
                starts.append(start)
                offset = start + table.count
            }
            (base + offset).initialize(repeating: DenseTable.dead, count: max(count, 1) - offset)
            (self.count, self.base, self.memory, self.starts) = (count, base, memory, starts)
        }
    }

    /// The program the partitioner makes of the `||` prefix (`StagePlanner.hostLabelPrefix`),
    /// which every `||` rule of a converted list starts with.
    public static let hostLabelPrefix: Program? = {
        let prefix = URLFilter(
            source: "^[^:]+://+([^:/]+\\.)?", isCaseSensitive: false, hasStartAnchor: true, hasEndAnchor: false,
            terms: StagePlanner.hostLabelPrefix)
        guard let dfa = try? SubsetConstruction.determinize(NFA(prefix: prefix, reportingAs: PatternID(0))) else { return nil }
        return Program(Minimizer.minimize(dfa))
    }()

    /// Every program, prefixes and gated groups' included.
    public var allPrograms: [Program] {
        let staged: [Program] = stages.flatMap { [$0.prefix] + $0.suffixes }
        let gatedPrograms: [Program] = gated.map { Array($0.groups.joined()) } ?? []
        return programs + staged + gatedPrograms
    }

    public var isEmpty: Bool { !contents.holdsPrograms && domains.isEmpty && domainConditions.isEmpty && hostContexts.isEmpty }

    /// Runs every program over `url` (then the end-of-URL NUL), telling `report` each pattern
    /// found (a pattern may be told more than once). `ends` is working memory, kept by the
    /// caller between runs so that this allocates nothing once it has grown; `hostReading`, the
    /// URL's host labels when the caller read them already (for several sets run over one URL),
    /// counted in the steps as if read here. Returns the interpreter steps (bytes read by every
    /// run) and the program runs.
    /// `wholeSteps`: the domain table was looked up and the whole programs run already
    /// (`WholeTogether`), taking these steps, and `ends` holds the gates they listed.
    /// `lookedUp`: the tables looked up already with other sets' (`DomainsTogether`,
    /// `HostContextsTogether`), `ends` holding the gates they listed.
    @inlinable
    public func run(
        _ url: UnsafeBufferPointer<UInt8>, hostReading: DomainTable.HostReading? = nil, ends: inout [Int], wholeSteps: Int? = nil,
        lookedUp: LookedUp = [], report: (UInt32) -> Void
    ) -> (steps: Int, runs: Int) {
        guard contents.isPrepared else {
            return prepared().run(url, hostReading: hostReading, ends: &ends, wholeSteps: wholeSteps, lookedUp: lookedUp, report: report)
        }
        let contents = contents
        var steps = wholeSteps ?? 0
        var runs = image.wholeRunCount
        let gateBase = image.gateBase
        if wholeSteps == nil && lookedUp.isEmpty { ends.clear() }
        // The host labels, read once for the domain table, the stages whose prefix they answer and
        // the `||` groups that run where their gate begins a host label.
        let labels: DomainTable.HostLabels?
        if image.readsHostLabels || !contents.domains.isEmpty {
            if let hostReading {
                steps &+= hostReading.steps
                labels = hostReading.labels
            } else {
                labels = DomainTable.hostLabels(url, steps: &steps)
            }
        } else {
            labels = nil
        }
        // A pattern reported after `end` bytes, or, past the set's patterns, a gate: its group
        // listed with the place, as `end << 32 | g`, once (a gate may be found at several places;
        // the group then runs once, or once per place where its gate begins).
        @inline(__always) func found(_ pattern: UInt32, _ end: Int) { Self.found(pattern, end, gateBase: gateBase, &ends, report) }
        // The domain table reports patterns, and the gates that are domains: those list their
        // groups, to run from the host's end (as `~g`: a group may be listed both ways in a file
        // made elsewhere, and then runs both ways).
        // (Looked up already with the whole programs when `wholeSteps` is given, `WholeTogether`,
        // or with other sets' tables, `DomainsTogether`.)
        if let labels, !contents.domains.isEmpty {
            if wholeSteps == nil && !lookedUp.contains(.domains) {
                contents.domains.lookUp(url, labels) { pattern in Self.domainFound(pattern, gateBase: gateBase, &ends, report) }
            }
            runs &+= 1
        }
        if !contents.domainConditions.isEmpty {
            steps &+= contents.domainConditions.run(url, report: report)
            runs &+= 1
        }
        // The host contexts report patterns, and the gates of their `||` groups with a loop: those
        // run from the URL's start, once.
        if contents.hostLookups.count > 0 {
            // (Their candidates are a plain host's labels where those were read: for this set, or
            // for several lists at once, `hostReading`.)
            if !lookedUp.contains(.hostContexts) {
                contents.hostLookups.lookUp(url, labels: labels ?? hostReading?.labels) { pattern in found(pattern, 0) }
            }
            runs &+= contents.hostLookups.count
        }
        // The whole programs, listing the groups whose gate occurs, each once (a gate may end at
        // several places); then those groups' programs; then the stages.
        // (In this function's frame, not a closure's given the buffers: a call per set and request
        // with a dozen arguments on the stack and the buffers copied to it.)
        let buffers = image.packed.buffers
        let wholeRunCount = wholeSteps == nil ? image.wholeRunCount : 0
        steps &+= Self.runWhole(buffers, count: wholeRunCount, url) { pattern, end in found(pattern, end) }
        image.runGroups(buffers, url, labels: labels, listed: ends, steps: &steps, runs: &runs, report: report)
        for stage in 0..<image.stageCount {
            image.runStage(stage, buffers, url, labels: labels, ends: &ends, steps: &steps, runs: &runs, report: report)
        }
        return (steps, runs)
    }

    /// Runs the whole programs `0 ..< count` over `url`, telling `found` each pattern and where it
    /// ends; returns the steps. Three or two at a time where they are parts of one dense table:
    /// one pass, each step's wait filled by the others' (DenseView.run).
    @usableFromInline @_transparent
    static func runWhole(
        _ buffers: Image.Buffers, count wholeRunCount: Int, _ url: UnsafeBufferPointer<UInt8>, _ found: (UInt32, Int) -> Void
    ) -> Int {
        // (Steps are counted in bytes of URLs, entries in an image's: wrapping arithmetic.)
        var steps = 0
        var index = 0
        while index < wholeRunCount {
            if index &+ 1 < wholeRunCount, buffers.sharesTable(index, index &+ 1) {
                let (first, second) = (buffers.denseView(index), buffers.denseView(index &+ 1))
                if index &+ 2 < wholeRunCount, buffers.sharesTable(index, index &+ 2) {
                    steps &+= DenseView.run(first, second, buffers.denseView(index &+ 2), url, report: found)
                    index &+= 3
                } else {
                    steps &+= Image.Buffers.runPair(first, url, report: found)
                    index &+= 2
                }
            } else {
                steps &+= buffers.execute(index, url, found)
                index &+= 1
            }
        }
        return steps
    }

    /// A pattern the domain table reported: told `report`, or, past the set's patterns, a gate
    /// that is a domain: its group listed in `ends` to run from the host's end, as `~g`, once.
    @inlinable @inline(__always)
    public static func domainFound(_ pattern: UInt32, gateBase: UInt32, _ ends: inout [Int], _ report: (UInt32) -> Void) {
        if pattern < gateBase {
            report(pattern)
        } else if !ends.contains(~Int(pattern - gateBase)) {
            ends.append(~Int(pattern - gateBase))
        }
    }

    /// A pattern a whole program reported after `end` bytes: told `report`, or, past the set's
    /// patterns, a gate: its group listed in `ends` with the place, as `end << 32 | g`, once (a
    /// gate may be found at several places; the group then runs once, or once per place where its
    /// gate begins).
    @inlinable @inline(__always)
    public static func found(_ pattern: UInt32, _ end: Int, gateBase: UInt32, _ ends: inout [Int], _ report: (UInt32) -> Void) {
        if pattern < gateBase {
            report(pattern)
        } else if !ends.contains(end << 32 | Int(pattern - gateBase)) {
            ends.append(end << 32 | Int(pattern - gateBase))
        }
    }

    /// The whole programs of two sets (two lists asked about one URL) run in one pass
    /// (`JointPass`), as each set's `run` runs them; each set's `run` with `wholeSteps` then runs
    /// the rest. Made once for the two: the pass reads its tables' addresses from here.
    public final class WholeTogether: @unchecked Sendable {
        /// The sets, held: `views` point into their images.
        private let sets: (ProgramSet, ProgramSet)
        /// The first set's whole runs, then the second's.
        private let views: [DenseView]
        private let countA: Int
        /// Each set's first gate (`Image.gateBase`).
        private let gateBases: (UInt32, UInt32)
        /// What each set's domain table's lookups read (nil: an empty table).
        private let domains: (DomainTable.Tables?, DomainTable.Tables?)

        /// The pass of `a`'s and `b`'s whole programs; nil unless both are prepared, their whole
        /// programs are dense tables of two-byte entries (not `DenseTable.narrow`: the pass reads
        /// two), four in all at most, and each set has one that searches the URL (`searches`).
        public init?(_ a: ProgramSet, _ b: ProgramSet) {
            let (countA, countB) = (a.image.wholeRunCount, b.image.wholeRunCount)
            guard a.contents.isPrepared, b.contents.isPrepared, countA > 0, countB > 0, countA + countB <= 4 else { return nil }
            let views = (a.image.withBuffers { buffers in (0..<countA).compactMap { buffers.dense($0) } })
                + (b.image.withBuffers { buffers in (0..<countB).compactMap { buffers.dense($0) } })
            guard views.count == countA + countB, !views.contains(where: \.narrow) else { return nil }
            // The pass steps both sets' runs in one loop: it pays where both go on over the URL.
            // A set whose whole programs are all anchored at the URL's start leaves the pass at
            // once, most often, and the other's pass alone (a table's parts in one walk,
            // `DenseView.run`) costs less than the joint pass left to it.
            guard Self.searches(views[..<countA]), Self.searches(views[countA...]) else { return nil }
            sets = (a, b)
            self.views = views
            self.countA = countA
            gateBases = (a.image.gateBase, b.image.gateBase)
            domains = (a.contents.domains.lookupTables, b.contents.domains.lookupTables)
        }

        /// Whether one of a set's whole programs (`views`, of two-byte entries) searches the URL:
        /// its start state is kept alive (not `DenseTable.dead`) by most bytes, as a pattern's
        /// with no `^` is, where one anchored at the URL's start ends at its first byte that
        /// differs.
        private static func searches(_ views: ArraySlice<DenseView>) -> Bool {
            views.contains { view in
                (1..<128).count { byte in Int(view.entries[(view.start &<< view.shift) &+ Int(view.columns[byte])]) != Int(DenseTable.dead) } > 64
            }
        }

        /// Runs both sets' domain tables and whole programs over `url`, whose host labels are
        /// `labels` (as `DomainTable.HostReading` reads them): each set's patterns told its
        /// `report`, its gates listed in its `ends` (emptied first), as its `run` would. The
        /// tables are looked up together (`DomainTable.lookUp(_:_:_:_:reportA:reportB:)`), each's
        /// misses waited for beside the other's. Returns each set's steps.
        public func run(
            _ url: UnsafeBufferPointer<UInt8>, labels: DomainTable.HostLabels?, endsA: inout [Int], endsB: inout [Int],
            reportA: (UInt32) -> Void, reportB: (UInt32) -> Void
        ) -> (Int, Int) {
            endsA.clear()
            endsB.clear()
            let (countA, lanes) = (self.countA, views.count)
            let (gateA, gateB) = gateBases
            if let labels {
                switch domains {
                case (let a?, let b?):
                    DomainTable.lookUp(
                        a, b, url, labels, reportA: { ProgramSet.domainFound($0, gateBase: gateA, &endsA, reportA) },
                        reportB: { ProgramSet.domainFound($0, gateBase: gateB, &endsB, reportB) })
                case (let a?, nil): DomainTable.lookUp(a, url, labels) { ProgramSet.domainFound($0, gateBase: gateA, &endsA, reportA) }
                case (nil, let b?): DomainTable.lookUp(b, url, labels) { ProgramSet.domainFound($0, gateBase: gateB, &endsB, reportB) }
                case (nil, nil): break
                }
            }
            return views.withUnsafeBufferPointer { views in
                // (The steps on the stack: nothing allocated per request.)
                withUnsafeTemporaryAllocation(of: Int.self, capacity: 4) { steps in
                    JointPass.run(views, url, steps: steps) { lane, pattern, end in
                        if lane < countA {
                            ProgramSet.found(pattern, end, gateBase: gateA, &endsA, reportA)
                        } else {
                            ProgramSet.found(pattern, end, gateBase: gateB, &endsB, reportB)
                        }
                    }
                    return (steps[..<countA].reduce(0, +), steps[countA..<lanes].reduce(0, +))
                }
            }
        }
    }

    /// Which of a set's tables were looked up before its `run`, with other sets' (several lists
    /// asked about one URL): its domain table (`DomainsTogether`), its host contexts
    /// (`HostContextsTogether`).
    public struct LookedUp: OptionSet, Sendable {
        public let rawValue: UInt8
        @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
        // (Computed and inlinable: a stored static is read through an accessor, a call per run.)
        @inlinable public static var domains: LookedUp { LookedUp(rawValue: 1) }
        @inlinable public static var hostContexts: LookedUp { LookedUp(rawValue: 2) }
    }

    /// The domain tables of several sets (several lists asked about one URL) looked up together:
    /// a host's candidates read and hashed once, each probed in every set's table
    /// (`DomainTable.lookUp(_:domainCount:groupEnds:reading:_:_:report:)`), and with them the
    /// sets' host contexts (`HostContextGroups`): a group of contexts whose candidates are the
    /// host's labels (HostLabelStarts.swift) is probed with those same candidates and hashes, the
    /// others' automaton reads the URL. Each set's `run` with `.domains` (`.hostContexts`) looked
    /// up then runs the rest. Made once for the sets: the lookup reads the tables' addresses from
    /// here.
    public final class DomainsTogether: @unchecked Sendable {
        /// The sets, held: `tables` and `contexts` point into their indexes.
        private let sets: [ProgramSet]
        /// The tables probed with a host's candidates: the domain tables, then the contexts'
        /// (`contexts.lookups`' tables, group by group), and per table its set's index and first
        /// gate (`Image.gateBase`).
        private let tables: [DomainTable.Tables]
        private let owners: [(set: Int, gateBase: UInt32)]
        private let domainCount: Int
        /// The sets' host contexts (none when their groups are more than a lookup's mask holds),
        /// and per group the end of its tables in `tables`.
        private let contexts: HostContextGroups
        private let groupEnds: [Int]
        /// Per set, whether its domain table is looked up here (the others' are empty).
        public let looksUp: [Bool]
        /// Per set, whether its host contexts are looked up here.
        public let looksUpContexts: [Bool]

        /// The lookup of `sets`' domain tables and host contexts; nil unless they are prepared and
        /// two or more of them have a domain table that is not empty.
        public init?(_ sets: [ProgramSet]) {
            guard sets.allSatisfy(\.contents.isPrepared) else { return nil }
            var tables: [DomainTable.Tables] = []
            var owners: [(set: Int, gateBase: UInt32)] = []
            for (index, set) in sets.enumerated() {
                guard let table = set.contents.domains.lookupTables else { continue }
                tables.append(table)
                owners.append((index, set.image.gateBase))
            }
            guard tables.count >= 2 else { return nil }
            looksUp = sets.indices.map { index in owners.contains { $0.set == index } }
            let domainCount = tables.count
            // (A group's bit in a lookup's mask: past 64 groups, the contexts are each set's own.)
            var contexts = HostContextGroups(sets)
            if contexts.ends.count > UInt64.bitWidth { contexts = HostContextGroups(none: sets.count) }
            for (lookup, owner) in zip(contexts.lookups, contexts.owners) {
                tables.append(lookup.tables!)
                owners.append(owner)
            }
            self.domainCount = domainCount
            self.contexts = contexts
            groupEnds = contexts.ends.map { domainCount + $0 }
            looksUpContexts = contexts.looksUp
            self.sets = sets
            self.tables = tables
            self.owners = owners
        }

        /// Looks up every table and context over `url`, whose host labels are `labels` (nil: no
        /// domain table is looked up, as a set's `run` looks up none, and contexts are read by
        /// their automata), telling `found` each table's set, the pattern reported, the set's
        /// first gate and whether a host context reported it: `ProgramSet.listed` then lists the
        /// pattern as the set's `run` would. The sets' `ends` are to be emptied first.
        public func lookUp(
            _ url: UnsafeBufferPointer<UInt8>, labels: DomainTable.HostLabels?,
            found: (_ set: Int, _ pattern: UInt32, _ gateBase: UInt32, _ byContext: Bool) -> Void
        ) {
            let reading = contexts.lookUpUnlessLabels(url, labels: labels) { set, pattern, gateBase in found(set, pattern, gateBase, true) }
            guard let labels else { return }
            let (owners, domainCount) = (self.owners, self.domainCount)
            tables.withUnsafeBufferPointer { tables in
                owners.withUnsafeBufferPointer { owners in
                    groupEnds.withUnsafeBufferPointer { groupEnds in
                        DomainTable.lookUp(tables, domainCount: domainCount, groupEnds: groupEnds, reading: reading, url, labels) { table, pattern in
                            found(owners[table].set, pattern, owners[table].gateBase, table >= domainCount)
                        }
                    }
                }
            }
        }
    }

    /// A pattern a domain table (`byContext` false) or a host context reported: listed as a set's
    /// `run` lists it (`domainFound`, `found` at place 0).
    @inlinable @inline(__always)
    public static func listed(_ pattern: UInt32, gateBase: UInt32, byContext: Bool, _ ends: inout [Int], _ report: (UInt32) -> Void) {
        if byContext {
            found(pattern, 0, gateBase: gateBase, &ends, report)
        } else {
            domainFound(pattern, gateBase: gateBase, &ends, report)
        }
    }

    /// The host contexts of several sets (several lists asked about one URL) looked up together:
    /// the sets' contexts of one L (one automaton, splitting set and case) looked up at once,
    /// L's automaton run and the candidates hashed once, each probed in every set's table
    /// (`DomainTable.lookUp(_:_:report:)` for contexts); each set's `run` with `.hostContexts`
    /// then runs the rest. Sets with a context with open domains (read otherwise) are left out.
    public final class HostContextsTogether: @unchecked Sendable {
        /// The sets, held: `contexts` point into their contexts.
        private let sets: [ProgramSet]
        private let contexts: HostContextGroups
        /// Per set, whether its contexts are looked up here.
        public var looksUp: [Bool] { contexts.looksUp }

        /// The lookup of `sets`' host contexts; nil unless they are prepared and two or more of
        /// them have contexts of one L.
        public init?(_ sets: [ProgramSet]) {
            guard sets.allSatisfy(\.contents.isPrepared) else { return nil }
            let contexts = HostContextGroups(sets)
            guard contexts.sharesGroup else { return nil }
            self.sets = sets
            self.contexts = contexts
        }

        /// Looks up every context over `url`, whose host labels are `labels` (nil: none, as a
        /// set's `run` reads them), telling `found` each context's set, the pattern reported and
        /// the set's first gate: `ProgramSet.found` (at place 0) then lists the pattern as the
        /// set's `run` would. The sets' `ends` are to be emptied first.
        public func lookUp(
            _ url: UnsafeBufferPointer<UInt8>, labels: DomainTable.HostLabels?,
            found: (_ set: Int, _ pattern: UInt32, _ gateBase: UInt32) -> Void
        ) {
            contexts.lookUp(url, labels: labels, found: found)
        }
    }

    /// Whether a `||` pattern's terms after its host prefix (`^[^:]+:\/\/+([^:\/]+\.)?`) may
    /// begin at `place` of `url`, whose host labels are `labels`: at the host's first byte, or after
    /// a `.` that a label precedes, in the host. (Nil labels: the prefix matches nowhere.)
    @inlinable
    static func beginsHostLabel(_ place: Int, _ url: UnsafeBufferPointer<UInt8>, _ labels: DomainTable.HostLabels?) -> Bool {
        guard let labels else { return false }
        return place == labels.start || (place >= labels.start + 2 && place - 1 < labels.end && url[place - 1] == UInt8(ascii: "."))
    }

    /// About the bytes `write(to:)` takes (the programs' code and the tables' domains are most of
    /// them), so that a writer is given its room at once rather than growing into it by copies.
    var writtenSizeEstimate: Int {
        var size = 12 + domains.writtenSizeEstimate + domainConditions.writtenSizeEstimate + 5
        for program in programs { size += program.writtenSizeBound }
        for stage in stages { size += 4 + stage.prefix.writtenSizeBound + stage.suffixes.reduce(0) { $0 + $1.writtenSizeBound } }
        for group in gated?.groups ?? [] { size += 12 + group.reduce(0) { $0 + $1.writtenSizeBound } }
        for context in hostContexts { size += context.writtenSizeEstimate }
        return size
    }

    func write(to writer: inout ByteWriter) {
        precondition(!contents.isRunOnly, "a set kept only to run is not written (`runOnly()`)")
        writer.reserve(writtenSizeEstimate)
        writer.u32(UInt32(gated?.groups.count ?? 0))
        writer.u32(UInt32(programs.count))
        for program in programs { program.write(to: &writer) }
        writer.u32(UInt32(stages.count))
        for stage in stages {
            stage.prefix.write(to: &writer)
            writer.u32(UInt32(stage.suffixes.count))
            for suffix in stage.suffixes { suffix.write(to: &writer) }
        }
        if let gated {
            for (group, start) in zip(gated.groups, gated.starts) {
                let (kind, length): (UInt32, Int) = switch start {
                case .urlStart: (0, 0)
                case .gate(let length): (1, length)
                case .hostLabelGate(let length): (2, length)
                }
                writer.u32(kind)
                writer.u32(UInt32(length))
                writer.u32(UInt32(group.count))
                for program in group { program.write(to: &writer) }
            }
        }
        domains.write(to: &writer)
        domainConditions.write(to: &writer)
        writer.varint(UInt32(hostContexts.count))
        for context in hostContexts { context.write(to: &writer) }
    }

    /// Reads and validates a programs section's content; the set is prepared, its dense tables
    /// made within `denseBudget`.
    static func read(from reader: inout ByteReader, patternCount: Int, denseBudget: DenseBudget) throws(BytecodeError) -> ProgramSet {
        func programs(patternCount: Int = patternCount) throws(BytecodeError) -> [Program] {
            let count = try reader.u32Count(of: "programs", itemBytes: Program.smallestEncoding)
            var result: [Program] = []
            for _ in 0..<count { result.append(try Program.read(from: &reader, patternCount: patternCount)) }
            return result
        }
        let groupCount = try reader.u32Count(of: "gated groups", itemBytes: 4)
        let whole = try programs(patternCount: patternCount + groupCount)
        let stageCount = try reader.u32Count(of: "stages", itemBytes: Program.smallestEncoding + 4)
        var stages: [Stage] = []
        for _ in 0..<stageCount {
            let prefix = try Program.read(from: &reader, patternCount: 1)
            stages.append(Stage(prefix: prefix, suffixes: try programs()))
        }
        var gated: Gated?
        if groupCount > 0 {
            var groups: [[Program]] = []
            var starts: [GateRunStart] = []
            for _ in 0..<groupCount {
                let at = reader.offset
                let (kind, length) = (try reader.u32(), try reader.u32())
                switch (kind, length) {
                case (0, 0): starts.append(.urlStart)
                // (A gate is at least one character, and fewer than a URL's.)
                case (1, 1...UInt32(Int32.max)): starts.append(.gate(length: Int(length)))
                case (2, 1...UInt32(Int32.max)): starts.append(.hostLabelGate(length: Int(length)))
                default: throw .malformed(at: at, "a gated group's start \(kind) with gate length \(length)")
                }
                groups.append(try programs())
            }
            gated = Gated(gateBase: UInt32(patternCount), groups: groups, starts: starts)
        }
        // (The domain table reports gates too: the groups' numbers after the patterns'.)
        // (Their entries kept in their indexes alone: a read set is run, and written again only rarely.)
        let domains = try DomainTable.read(from: &reader, patternCount: patternCount + groupCount).compacted()
        let domainConditions = try DomainConditionTable.read(from: &reader, patternCount: patternCount).compacted()
        let contextCount = try reader.varintCount(of: "host contexts", itemBytes: 2 + 129 + 17 + 1)
        var hostContexts: [HostContextTable] = []
        for _ in 0..<contextCount { hostContexts.append(try HostContextTable.read(from: &reader, patternCount: patternCount + groupCount)) }
        return ProgramSet(contents: Contents(
            programs: whole, stages: stages, gated: gated, domains: domains, domainConditions: domainConditions, hostContexts: hostContexts,
            denseBudget: denseBudget))
    }

    /// Every program as text, headed `name program i`, `name stage i prefix`, `name stage i suffix j`,
    /// `name gated group g program i`.
    public func disassemble(name: String) -> String {
        var lines: [String] = []
        func add(_ title: String, _ program: Program) {
            lines.append(title + ":")
            lines.append(program.disassemble().split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n"))
        }
        for (index, program) in programs.enumerated() { add("\(name) program \(index)", program) }
        for (index, stage) in stages.enumerated() {
            add("\(name) stage \(index) prefix (p0: the suffixes start here)", stage.prefix)
            for (suffixIndex, suffix) in stage.suffixes.enumerated() { add("\(name) stage \(index) suffix \(suffixIndex)", suffix) }
        }
        if let gated {
            lines.append("\(name) gated groups (a whole program's p\(gated.gateBase)+g: group g's gate ends here):")
            for (group, programs) in gated.groups.enumerated() {
                let start = switch gated.starts[group] {
                case .urlStart: "from the URL's start"
                case .gate(let length): "from where the gate begins (\(length) bytes before it ends)"
                case .hostLabelGate(let length): "from where the gate begins a host label (\(length) bytes before it ends)"
                }
                for (index, program) in programs.enumerated() { add("\(name) gated group \(group) program \(index), \(start)", program) }
            }
        }
        if !domains.isEmpty {
            lines.append("\(name) domain table (^[^:]+:\\/\\/+([^:/]+\\.)?D then [/:] or a path; \(domains.count) entries):")
            lines.append(domains.disassemble().split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        }
        if !domainConditions.isEmpty {
            lines.append("\(name) domain condition table ([a-z][a-z+.-]*:\\/\\/D[:/], *D: with ([^/]*\\.)* before D; \(domainConditions.count) entries):")
            lines.append(domainConditions.disassemble().split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        }
        for (index, context) in hostContexts.enumerated() {
            lines.append("\(name) host context \(index): " + context.disassemble())
        }
        return lines.joined(separator: "\n")
    }
}

/// The places where the domain shape's prefix (`ProgramSet.hostLabelPrefix`) ends in a URL whose
/// host labels are `labels` (nil: none), in increasing order: from the slashes' end to the host's
/// start, then after each `.` of the host but its first byte. Told
/// one at a time as a stage reaches them, not listed first: a list emptied and appended to per
/// request and stage costs more than the host's bytes looked at once.
@usableFromInline struct HostLabelEnds {
    /// The next place told, up to the host's start; past it, where the next `.` is looked for.
    @usableFromInline var place: Int
    @usableFromInline let start: Int
    @usableFromInline let end: Int

    @inlinable @inline(__always)
    init(_ labels: DomainTable.HostLabels?) {
        if let labels {
            (place, start, end) = (labels.slashesEnd, labels.start, labels.end)
        } else {
            (place, start, end) = (1, 0, 0)
        }
    }

    /// The next place, nil past the last.
    @inlinable @inline(__always)
    mutating func next(_ url: UnsafeBufferPointer<UInt8>) -> Int? {
        if place <= start {
            place &+= 1
            return place &- 1
        }
        guard let at = Self.firstDot(url, from: place, before: end) else { return nil }
        place = at &+ 1
        return place
    }

    /// The first `.` of `url[from ..< end]` (`end` at most the URL's count), nil if none: eight
    /// bytes at a time while eight lie in the URL (a dot found at `end` or after it is none).
    @inlinable @inline(__always)
    static func firstDot(_ url: UnsafeBufferPointer<UInt8>, from: Int, before end: Int) -> Int? {
        guard from < end, let base = url.baseAddress else { return nil }
        let (dots, ones, highs) = (0x2E2E_2E2E_2E2E_2E2E as UInt64, 0x0101_0101_0101_0101 as UInt64, 0x8080_8080_8080_8080 as UInt64)
        let count = url.count
        var at = from
        while at &+ 8 <= count {
            // A byte of `word` is 0 where the URL's is a dot; the lowest such byte's high bit is
            // the lowest bit set of `zeros` (higher ones may be false).
            let word = UInt64(littleEndian: UnsafeRawPointer(base + at).loadUnaligned(as: UInt64.self)) ^ dots
            let zeros = (word &- ones) & ~word & highs
            if zeros != 0 {
                at &+= zeros.trailingZeroBitCount &>> 3
                return at < end ? at : nil
            }
            at &+= 8
            guard at < end else { return nil }
        }
        while at < end {
            if base[at] == UInt8(ascii: ".") { return at }
            at &+= 1
        }
        return nil
    }
}

extension Array where Element == Int {
    /// Emptied, its capacity kept; an empty one is left alone: the generic removal costs a call
    /// even with nothing to remove, twice in most runs. A short one loses its elements one by one,
    /// a few instructions each, less than the generic removal's fixed cost.
    @inlinable @inline(__always)
    mutating func clear() {
        if count <= 8 {
            while !isEmpty { removeLast() }
        } else {
            removeAll(keepingCapacity: true)
        }
    }
}

/// A prepared set's host context lookups in one buffer of plain values (`HostContextLookup`), so
/// that a run reads them without a retain or a copy; valid while the set's contexts are.
@usableFromInline final class HostLookups: @unchecked Sendable {
    private let lookups: UnsafeMutableBufferPointer<HostContextLookup>
    @usableFromInline let count: Int
    /// Some context takes a plain host's labels for candidates (`HostContextLookup.labelStarts`).
    private let takesLabels: Bool

    init(_ lookups: [HostContextLookup]) {
        self.lookups = .allocate(capacity: lookups.count)
        _ = self.lookups.initialize(from: lookups)
        count = lookups.count
        takesLabels = lookups.contains { $0.labelStarts != nil }
    }

    deinit { lookups.deallocate() }

    /// Reports every pattern of every context's table that matches `url`, whose host labels are
    /// `labels` (nil: not read; a set reads them for its domain table or stages, or several lists
    /// once for all). Not read and taken by a context, they are read here: a host read a word at a
    /// time and hashed from its end costs less than L's automaton run over it a byte at a time,
    /// then split, as a context with no other table beside it would otherwise be read.
    @usableFromInline func lookUp(_ url: UnsafeBufferPointer<UInt8>, labels: DomainTable.HostLabels?, report: (UInt32) -> Void) {
        var labels = labels
        if labels == nil && takesLabels {
            var steps = 0
            labels = DomainTable.hostLabels(url, steps: &steps)
        }
        // (By address: a lookup is read where it lies, not copied out first.)
        let base = lookups.baseAddress!
        for index in 0..<count { DomainTable.lookUp(base + index, url, labels: labels, report: report) }
    }
}

extension ProgramSet {
    /// What the set holds, by structure: its programs as read, its domain, domain condition and
    /// host context tables with their indexes, and its image (a prepared set's: the programs'
    /// code laid out for the interpreter, their dense tables and the stages' and groups' indexes).
    public func held(into memory: inout HeldMemory) {
        let programsName = "programs: compact code and class maps"
        memory.add(programsName, array: programs)
        for program in allPrograms {
            memory.add(programsName, array: program.code)
            memory.add(programsName, array: program.classOfByte)
        }
        memory.add(programsName, array: stages)
        for stage in stages {
            memory.add(programsName, array: stage.suffixes)
            memory.add(programsName, array: stage.suffixStarts)
        }
        if let gated {
            memory.add(programsName, array: gated.groups)
            for group in gated.groups { memory.add(programsName, array: group) }
            memory.add(programsName, array: gated.starts)
        }
        domains.held(entries: "domain table: entries", index: "domain table: index", into: &memory)
        domainConditions.held(entries: "domain condition table: entries", index: "domain condition table: index", into: &memory)
        memory.add("host contexts: entries", array: hostContexts)
        for context in hostContexts { context.held("host contexts", into: &memory) }
        memory.add("host contexts: index", contents.hostLookups.count * MemoryLayout<HostContextLookup>.stride)
        image.held(into: &memory)
    }
}

extension ProgramSet.Image {
    /// The packed buffers, the dense tables and the arrays a run reads beside them.
    func held(into memory: inout HeldMemory) {
        let indexes = "image: stage and group indexes"
        packed.memory.held("image: code, class maps and entries, packed", into: &memory)
        packed.denseEntries.memory.held("image: dense tables", into: &memory)
        memory.add("image: dense tables", array: packed.denseEntries.starts)
        memory.add(indexes, array: stagePrefixes)
        memory.add(indexes, array: stageStartsEverywhere)
        memory.add(indexes, array: stageReadsHostLabels)
        memory.add(indexes, array: stageStartBytes)
        memory.add(indexes, array: wholeRunPrograms)
        for programs in wholeRunPrograms { memory.add(indexes, array: programs) }
        memory.add(indexes, array: wholeRunStates)
        memory.add(indexes, array: groupStart)
        memory.add(indexes, array: groupGateLength)
    }
}
