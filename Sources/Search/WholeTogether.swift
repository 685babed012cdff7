// WholeTogether.swift — Search
//
// The whole programs of several program sets (several lists asked about one URL) run in one pass
// over it, each set told its patterns as its own `run` would tell them. A set's whole runs are
// parts of its dense tables, its searches multiplied into one (`DenseTable.together`); across the
// sets, the searches (unanchored, `Decoded.isSearch`, whose runs go on to the URL's end) are
// multiplied again (`DenseTable.product`) under the same rule: a product is kept while its table
// has at most `DenseTable.productGrowth` times its factors' entries, so a load's work and memory
// stay bounded, and the searches of N lists read one entry a byte where they read N. A factor is
// read back from its set's table (`DenseView.decoded()`), not decoded from its programs again.
// The product reports every factor's patterns, told apart by a base per factor: set s's pattern p
// is `base + p` in the product's table, the bases increasing with the sets' order, so that each
// set is told its own patterns only. The runs then go in passes of up to four (`JointPass`), each
// run's reads waited for beside the others': a product's table holds as parts of its own copies
// of the sets' small runs not multiplied (while they have at most `copiedShare` of the products'
// entries), all read in one pass from one base; the sets' other runs read their own tables.
//
// A set's steps are those of its runs, a product's counted for each of its factors: a factor's
// run goes on to the URL's end, in the product as alone, so its steps are the product's. A URL
// with a NUL before its end (no canonical URL has one) may stop one factor there and not another,
// so over such a URL the sets' own runs run instead: the same reports, and every set's own steps.
// Tested by SearchTests/JointPassTests.swift.

internal import Bytecode
internal import Glibc

extension ProgramSet {
    /// The whole programs of several sets (several lists asked about one URL) run together, their
    /// searches as one product where it stays small enough; each set's `run` with `wholeSteps`
    /// then runs the rest. Made once for the sets: the passes read their tables' addresses here.
    public final class WholeTogether: @unchecked Sendable {
        /// The sets, held: the runs' views point into their images.
        private let sets: [ProgramSet]
        /// The tables made for the runs together (the products, with other runs), held: their
        /// runs' views point into them.
        private let tables: [JoinedTable]
        /// The runs, in passes: each table made here in one, then the sets' runs left in their
        /// own tables; and, when there are products, every set's own runs (over a URL with a NUL).
        private let runs: Runs
        private let ownRuns: Runs?
        /// Per product, its factors' sets and bases, the bases increasing: product p's are
        /// `factors[factorStart[p] ..< factorStart[p + 1]]`.
        private let factors: [(base: UInt32, set: Int)]
        private let factorStart: [Int]
        /// Each set's first gate (`Image.gateBase`).
        private let gateBases: [UInt32]
        /// Per set, whether its whole programs run here (the others' in their set's `run`): those
        /// of a prepared set whose whole programs are all dense tables.
        public let runsWhole: [Bool]

        /// Per product, the sets of its factors, in order (for tests and tools).
        public var productSets: [[Int]] {
            (0..<factorStart.count - 1).map { product in factors[factorStart[product]..<factorStart[product + 1]].map(\.set) }
        }

        /// The copies of the sets' runs that are not multiplied, made parts of the products'
        /// tables (one pass with the product, from one base), have at most this share of the
        /// products' entries (as a fraction: numerator, denominator); the others run from their
        /// own tables, in passes of their own.
        static let copiedShare = (1, 8)

        /// The runs of `sets`' whole programs together; nil unless two of them or more run so.
        public init?(_ sets: [ProgramSet]) {
            // Each set's whole runs, if all are dense.
            let setViews: [[DenseView]] = sets.map { set in
                guard set.contents.isPrepared else { return [] }
                let count = set.image.wholeRunCount
                let views = set.image.withBuffers { buffers in (0..<count).compactMap { buffers.dense($0) } }
                return views.count == count ? views : []
            }
            runsWhole = setViews.map { !$0.isEmpty }
            guard runsWhole.count(where: { $0 }) >= 2 else { return nil }
            let decoded = setViews.map { $0.map { $0.decoded() } }
            let products = Self.multiplied(setViews, decoded).filter { $0.factors.count > 1 }
            var factors: [(base: UInt32, set: Int)] = []
            var factorStart = [0]
            var multiplied = Set<[Int]>()
            for product in products {
                for factor in product.factors {
                    factors.append((factor.base, factor.set))
                    multiplied.insert([factor.set, factor.run])
                }
                factorStart.append(factors.count)
            }
            // Per table, its parts and their owners (a set, or `~p` for product p): each product,
            // then the runs not multiplied, copied into the first with room while the copies stay
            // within `copiedShare` of the products' entries.
            var groups = products.enumerated().map { [(decoded: $1.decoded, classMap: $1.classMap, owner: ~$0)] }
            var copyRoom = products.reduce(0) { $0 + Self.entries($1.decoded) } * Self.copiedShare.0 / Self.copiedShare.1
            var apart = Runs()
            var ownRuns = Runs()
            for (set, views) in setViews.enumerated() {
                for (run, view) in views.enumerated() {
                    ownRuns.append(view, owner: set)
                    guard !multiplied.contains([set, run]) else { continue }
                    let (part, classMap) = decoded[set][run]
                    // (A table whose rows hold the part's classes: a copy never widens a product's rows.)
                    let room = groups.firstIndex { group in
                        group.count < 4 && group.reduce(part.stateCount) { $0 + $1.decoded.stateCount } <= DenseTable.maximumStates
                            && DenseTable.rowEntries(classCount: group[0].decoded.classCount) >= DenseTable.rowEntries(classCount: part.classCount)
                    }
                    let entries = part.stateCount * DenseTable.rowEntries(classCount: room.map { groups[$0][0].decoded.classCount } ?? 0)
                    guard let room, entries <= copyRoom else {
                        apart.append(view, owner: set)
                        continue
                    }
                    copyRoom -= entries
                    groups[room].append((part, classMap, set))
                }
            }
            let tables = groups.map { group in
                JoinedTable(DenseTable(
                    group.map(\.decoded), classMaps: group.map(\.classMap),
                    stride: DenseTable.rowEntries(classCount: group.map(\.decoded.classCount).max()!)))
            }
            var runs = Runs()
            for (table, group) in zip(tables, groups) { runs.appendPass(table.views, owners: group.map(\.owner)) }
            runs.append(apart)
            self.sets = sets
            self.tables = tables
            self.runs = products.isEmpty ? ownRuns : runs
            self.ownRuns = products.isEmpty ? nil : ownRuns
            self.factors = factors
            self.factorStart = factorStart
            gateBases = sets.map(\.image.gateBase)
        }

        /// A decoded table's entries, a row a state.
        private static func entries(_ decoded: DenseTable.Decoded) -> Int {
            decoded.stateCount * DenseTable.rowEntries(classCount: decoded.classCount)
        }

        /// Runs over a URL, in passes.
        private struct Runs {
            var views: [DenseView] = []
            /// Per run, the set it runs for, or `~p` for product p.
            var owners: [Int] = []
            /// Per pass, where its runs end in `views`, and whether they are parts of one table.
            var passes: [(end: Int, oneTable: Bool)] = []
            /// The runs appended (`append(_:owner:)`) since the last pass, of their own tables.
            private var pending = 0

            /// A run of its own table, in passes of up to four with the others so appended (as
            /// few as four a pass allow, the runs shared out evenly).
            mutating func append(_ view: DenseView, owner: Int) {
                if pending > 0 { passes.removeLast((pending + 3) / 4) }
                views.append(view)
                owners.append(owner)
                pending += 1
                let first = views.count - pending
                let count = (pending + 3) / 4
                for pass in 0..<count {
                    passes.append(((passes.last?.end ?? first) + pending / count + (pass < pending % count ? 1 : 0), false))
                }
            }

            /// `other`'s runs after these, in passes of their own.
            mutating func append(_ other: Runs) {
                for (view, owner) in zip(other.views, other.owners) { append(view, owner: owner) }
            }

            /// The parts of one table, in one pass.
            mutating func appendPass(_ parts: [DenseView], owners: [Int]) {
                precondition(pending == 0 && parts.count <= 4, "a table's parts in a pass of their own, before the others")
                views += parts
                self.owners += owners
                passes.append((views.count, true))
            }
        }

        /// A part of the runs: a search's run alone (one factor), or the product of several.
        private struct Part {
            var decoded: DenseTable.Decoded
            var classMap: [UInt8]
            /// Its differences from its start (`Decoded.differencesFromStart()`) once read, and
            /// whether it is a search another may be multiplied into (nil: not known yet).
            var differences: DenseTable.Decoded.Differences?
            var isSearch: Bool?
            /// Its factors, in increasing bases.
            var factors: [(set: Int, run: Int, base: UInt32)]

            /// Its differences if it is a search, read when first asked.
            mutating func searchDifferences() -> DenseTable.Decoded.Differences? {
                if isSearch == nil {
                    let differences = decoded.differencesFromStart()
                    isSearch = decoded.isSearch(differences, nulClass: Int(classMap[0]))
                    self.differences = isSearch! ? differences : nil
                }
                return differences
            }
        }

        /// The sets' searches (whole runs, `setViews` read back as `setDecoded`, that are searches
        /// and run to the URL's end), largest first, each multiplied into the first part before
        /// it, of other sets, that is a search and whose product with it has at most
        /// `DenseTable.productGrowth` times their entries apart. (Largest first: their classes,
        /// which a product's row has one of per pair met, are most of the product's; a small
        /// search multiplied first would have its rows widened by a large one's classes.)
        private static func multiplied(_ setViews: [[DenseView]], _ setDecoded: [[(decoded: DenseTable.Decoded, classMap: [UInt8])]]) -> [Part] {
            // The searches, each a part of its own, with its set's base: its patterns numbered from
            // it in a product, past every pattern the set's tables report.
            var searches: [Part] = []
            var nextBase = 0
            for (set, runs) in setViews.enumerated() {
                var base: UInt32?
                for (run, view) in runs.enumerated() {
                    var part = Part(decoded: setDecoded[set][run].decoded, classMap: setDecoded[set][run].classMap, factors: [])
                    guard part.searchDifferences() != nil, part.decoded.runsToTheEnd(nulClass: Int(part.classMap[0])) else { continue }
                    if base == nil {
                        let bound = nextBase + Int(view.accepts.max() ?? 0) + 1
                        guard bound <= Int(UInt32.max) else { break }
                        base = UInt32(nextBase)
                        nextBase = bound
                    }
                    part.factors = [(set, run, base!)]
                    part.decoded = DenseTable.Decoded(
                        next: part.decoded.next, classCount: part.decoded.classCount, acceptStart: part.decoded.acceptStart,
                        accepts: part.decoded.accepts.map { $0 + base! })
                    searches.append(part)
                }
            }
            var parts: [Part] = []
            // (Ties in the sets' order: the same parts on every load.)
            let order = searches.indices.sorted { (-entries(searches[$0].decoded), $0) < (-entries(searches[$1].decoded), $1) }
            for search in order.map({ searches[$0] }) {
                let set = search.factors[0].set
                let into = parts.indices.first { at in
                    // (A set's searches that are apart were not multiplied in their set: by the
                    // same rule, they are not here either.)
                    guard !parts[at].factors.contains(where: { $0.set == set }), let partDifferences = parts[at].searchDifferences() else {
                        return false
                    }
                    let apart = entries(parts[at].decoded) + entries(search.decoded)
                    guard let (product, productClassMap) = DenseTable.product(
                        parts[at].decoded, parts[at].classMap, partDifferences, search.decoded, search.classMap, search.differences!,
                        maximumEntries: apart * DenseTable.productGrowth.0 / DenseTable.productGrowth.1)
                    else { return false }
                    // (A product reports its first factor's patterns, then its second's: the
                    // factors kept in the order of their bases.)
                    parts[at] = Part(
                        decoded: product, classMap: productClassMap,
                        factors: (parts[at].factors + search.factors).sorted { $0.base < $1.base })
                    return true
                }
                if into == nil { parts.append(search) }
            }
            return parts
        }

        /// Runs the sets' whole programs over `url`, telling `found` each pattern a run reports
        /// with its set, after how many bytes, and the set's first gate (`ProgramSet.found` then
        /// lists it as the set's `run` would); `steps[s]` is told set s's steps, as its `run`
        /// counts them (0 for a set whose whole programs do not run here).
        public func run(
            _ url: UnsafeBufferPointer<UInt8>, steps: UnsafeMutableBufferPointer<Int>,
            found: (_ set: Int, _ pattern: UInt32, _ end: Int, _ gateBase: UInt32) -> Void
        ) {
            for set in sets.indices { steps[set] = 0 }
            // (A NUL before the URL's end may stop one factor of a product and not another.)
            if let ownRuns, let bytes = url.baseAddress, memchr(bytes, 0, url.count) != nil {
                return run(ownRuns, url, steps: steps, found: found)
            }
            run(runs, url, steps: steps, found: found)
        }

        /// `run(_:steps:found:)` by `runs`.
        private func run(
            _ runs: Runs, _ url: UnsafeBufferPointer<UInt8>, steps: UnsafeMutableBufferPointer<Int>,
            found: (_ set: Int, _ pattern: UInt32, _ end: Int, _ gateBase: UInt32) -> Void
        ) {
            runs.views.withUnsafeBufferPointer { views in
                runs.owners.withUnsafeBufferPointer { owners in
                    factors.withUnsafeBufferPointer { factors in
                        factorStart.withUnsafeBufferPointer { factorStart in
                            gateBases.withUnsafeBufferPointer { gateBases in
                                /// Run `run`'s report of `pattern` after `end` bytes, told its set.
                                func report(_ run: Int, _ pattern: UInt32, _ end: Int) {
                                    let owner = owners[run]
                                    guard owner < 0 else { return found(owner, pattern, end, gateBases[owner]) }
                                    var at = factorStart[~owner + 1] - 1
                                    while factors[at].base > pattern { at -= 1 }
                                    let set = factors[at].set
                                    found(set, pattern - factors[at].base, end, gateBases[set])
                                }
                                // (The runs' steps on the stack: nothing allocated per request.)
                                withUnsafeTemporaryAllocation(of: Int.self, capacity: 4) { passSteps in
                                    var first = 0
                                    for (end, oneTable) in runs.passes {
                                        if end - first == 1 {
                                            passSteps[0] = views[first].run(url) { report(first, $0, $1) }
                                        } else {
                                            JointPass.run(
                                                UnsafeBufferPointer(rebasing: views[first..<end]), url, steps: passSteps, oneTable: oneTable
                                            ) { report(first + $0, $1, $2) }
                                        }
                                        for run in first..<end {
                                            let owner = owners[run]
                                            if owner >= 0 {
                                                steps[owner] += passSteps[run - first]
                                                continue
                                            }
                                            for factor in factorStart[~owner]..<factorStart[~owner + 1] {
                                                steps[factors[factor].set] += passSteps[run - first]
                                            }
                                        }
                                        first = end
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }

        /// What the tables made here hold (the sets' own are theirs).
        public func held(into memory: inout HeldMemory) {
            for table in tables { table.held(into: &memory) }
        }
    }
}

/// A table made for runs together (a product, with other runs as parts of it) as a run reads it,
/// laid out as a set's tables are (`ProgramSet.DenseEntries`: its rows from a cache line, in huge
/// pages when large), with the arrays beside them.
final class JoinedTable: @unchecked Sendable {
    private let entries: ProgramSet.DenseEntries
    private let acceptStart: UnsafeMutableBufferPointer<Int32>
    private let accepts: UnsafeMutableBufferPointer<UInt32>
    private let columns: UnsafeMutableBufferPointer<UInt32>
    /// Each part's run.
    let views: [DenseView]

    init(_ table: DenseTable) {
        func copy<Element>(_ array: [Element]) -> UnsafeMutableBufferPointer<Element> {
            let copy = UnsafeMutableBufferPointer<Element>.allocate(capacity: max(array.count, 1))
            _ = copy.initialize(from: array)
            return copy
        }
        let entries = ProgramSet.DenseEntries(tables: [table.entries])
        let (acceptStart, accepts, columns) = (copy(table.acceptStart), copy(table.accepts), copy(table.columns))
        views = table.parts.indices.map { part in
            DenseView(
                entries: UnsafePointer(entries.base), shift: table.shift, start: table.parts[part].start, loopStart: table.loopStart,
                reportStart: table.reportStart, acceptStart: UnsafePointer(acceptStart.baseAddress!),
                accepts: UnsafeBufferPointer(start: accepts.baseAddress, count: table.accepts.count),
                columns: UnsafePointer(columns.baseAddress! + 128 * part))
        }
        (self.entries, self.acceptStart, self.accepts, self.columns) = (entries, acceptStart, accepts, columns)
    }

    deinit {
        acceptStart.deallocate()
        accepts.deallocate()
        columns.deallocate()
    }

    func held(into memory: inout HeldMemory) {
        let name = "lists together: product tables"
        entries.memory.held(name, into: &memory)
        memory.add(name, (acceptStart.count + accepts.count + columns.count) * 4 + views.count * MemoryLayout<DenseView>.stride)
    }
}
