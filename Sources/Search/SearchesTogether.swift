// SearchesTogether.swift — Search
//
// Several lists asked about one URL (ContentBlockers) each run their whole url programs over it
// from its start, and the largest of those are searches: automata whose every state goes on on
// every byte but the end-of-URL NUL (their states all hold the start's loop of an unanchored
// pattern), so that each reads the URL to its end, or to its first byte from 128 on. Such runs of
// several lists run here as one: their product (DenseProduct.swift), a read a byte for all of
// them where each list read its own. The product of two searches' automata has about the states
// of the two, as it has within a list, so a list's search is multiplied in while the product has
// at most `growth` times the states of its factors apart (counted in states: the product's
// classes may round its rows up to twice a factor's, which its table's memory pays, not its
// steps); one left out runs in its list's pass, as do the lists' other whole runs.
//
// Each pattern a product state reports carries its list in its high bits (`listShift`), so that it
// is told to its own list, after the bytes its list's run alone tells it after; and as every
// factor reads as far as the product does, each list's steps are those of its runs alone. The
// factors are the lists' whole runs as their images hold them (dense parts, a list's searches
// already multiplied: `DenseTable.together`), read back from their tables (`DenseView.decoded`):
// a list read from a file holds its tables, not its programs' decoding.
// Tested by SearchTests/SearchesTogetherTests.swift and ContentBlockerTests/PageCacheTests.swift
// (searchesOfListsRunAsOneProduct, listsAskedTogetherAnswerEachAsAlone).

extension ProgramSet {
    /// The whole url programs that search the URL, of several sets (several lists asked about one
    /// URL), run as one product; each set's `run` with `wholeSteps` then runs the rest. Made once
    /// for the sets: the run reads the product and the sets' images from here.
    public final class SearchesTogether: @unchecked Sendable {
        /// The sets, held: the run reads their images.
        private let sets: [ProgramSet]
        /// The product's table, and the run's view of it.
        private let product: Product
        /// Per set (in `sets`' order), the whole runs the product runs (a bit per run, run 0 the
        /// lowest; 0: none).
        public let covered: [UInt64]
        /// The sets the product runs searches of, as a run reads them (`Covered`), the stretches of
        /// their whole runs it leaves, and per set its first gate (`Image.gateBase`): read where
        /// they lie, no reference counted per request.
        private let coveredSets: UnsafeMutableBufferPointer<Covered>
        private let rest: UnsafeMutableBufferPointer<(first: Int, end: Int)>
        private let gateBases: UnsafeMutableBufferPointer<UInt32>
        /// The covered sets whose domain tables are looked up here (not looked up with other sets').
        private let domainSets: [Int]

        /// A set the product runs searches of: its index, its image's buffers (read here, not
        /// copied from its image per request), where the stretches of its whole runs the product
        /// leaves lie in `rest`, and how many runs the product runs.
        private struct Covered {
            let set: Int
            let buffers: Image.Buffers
            let rest: Range<Int>
            let count: Int
        }

        /// A pattern's list is its high bits from this one on: a list's patterns (and gates) are
        /// fewer than 2^24, and the lists fewer than 2^8.
        static let listShift: UInt32 = 24
        static let patternMask: UInt32 = 1 << listShift - 1
        /// A list's search is multiplied in while the product has at most this many times the states
        /// of its factors apart (as a fraction: numerator, denominator), as a list's own are within
        /// their entries (`DenseTable.productGrowth`).
        static let growth = (5, 4)

        /// The product of `sets`' searches; nil unless two sets or more have one multiplied in.
        /// `domainsLookedUp`: per set, whether its domain table is looked up with others' before
        /// (`DomainsTogether`); the others' are looked up by `run`, as their sets' `run` given
        /// `wholeSteps` looks up none.
        public init?(_ sets: [ProgramSet], domainsLookedUp: [Bool]) {
            guard sets.count >= 2, sets.count <= 1 << (32 - Self.listShift), sets.allSatisfy(\.contents.isPrepared),
                let (product, covered) = Self.multiply(sets), covered.count { $0 != 0 } >= 2
            else { return nil }
            self.sets = sets
            self.product = product
            self.covered = covered
            var rest: [(first: Int, end: Int)] = []
            let coveredSets = covered.indices.filter { covered[$0] != 0 }.map { set in
                let first = rest.count
                rest += Self.stretches(leftBy: covered[set], of: sets[set].image.wholeRunCount)
                return Covered(set: set, buffers: sets[set].image.packed.buffers, rest: first..<rest.count, count: covered[set].nonzeroBitCount)
            }
            self.coveredSets = .allocate(capacity: coveredSets.count)
            _ = self.coveredSets.initialize(from: coveredSets)
            self.rest = .allocate(capacity: max(rest.count, 1))
            _ = self.rest.initialize(from: rest)
            gateBases = .allocate(capacity: sets.count)
            _ = gateBases.initialize(from: sets.map(\.image.gateBase))
            domainSets = covered.indices.filter { covered[$0] != 0 && !domainsLookedUp[$0] && !sets[$0].contents.domains.isEmpty }
        }

        deinit {
            coveredSets.deallocate()
            rest.deallocate()
            gateBases.deallocate()
        }

        /// The stretches of runs `0 ..< count` that `runs` (a bit per run) does not hold.
        private static func stretches(leftBy runs: UInt64, of count: Int) -> [(first: Int, end: Int)] {
            var stretches: [(first: Int, end: Int)] = []
            var first = 0
            for run in 0...count where run == count || (runs >> run) & 1 != 0 {
                if first < run { stretches.append((first, run)) }
                first = run + 1
            }
            return stretches
        }

        /// Runs the product over `url`, whose host labels are `labels` (as `DomainTable.HostReading`
        /// reads them), then each covered set's other whole runs, after looking up the domain tables
        /// of those not looked up before: telling `found` a program's pattern (its set, the pattern,
        /// where it ends and the set's first gate) and `domainFound` a domain table's, for
        /// `ProgramSet.found` and `domainFound` to list as the set's `run` would. Sets each covered
        /// set's whole programs' steps in `steps` (`wholeSteps`). The covered sets' `ends` are to be
        /// emptied first, where no lookup before listed gates in them.
        public func run(
            _ url: UnsafeBufferPointer<UInt8>, labels: DomainTable.HostLabels?, steps: UnsafeMutablePointer<Int>,
            found: (_ set: Int, _ pattern: UInt32, _ end: Int, _ gateBase: UInt32) -> Void,
            domainFound: (_ set: Int, _ pattern: UInt32, _ gateBase: UInt32) -> Void
        ) {
            let gateBases = UnsafePointer(self.gateBases.baseAddress!)
            if let labels, !domainSets.isEmpty {
                for set in domainSets { sets[set].contents.domains.lookUp(url, labels) { domainFound(set, $0, gateBases[set]) } }
            }
            let productSteps = product.view.run(url) { tagged, end in
                let set = Int(tagged >> Self.listShift)
                found(set, tagged & Self.patternMask, end, gateBases[set])
            }
            let (coveredSets, rest) = (UnsafePointer(self.coveredSets.baseAddress!), UnsafePointer(self.rest.baseAddress!))
            for index in 0..<self.coveredSets.count {
                let covered = coveredSets + index
                let set = covered.pointee.set
                var setSteps = productSteps * covered.pointee.count
                for stretch in covered.pointee.rest {
                    setSteps += ProgramSet.runWhole(covered.pointee.buffers, from: rest[stretch].first, to: rest[stretch].end, url) {
                        found(set, $0, $1, gateBases[set])
                    }
                }
                steps[set] = setSteps
            }
        }

        /// What the product holds (its sets' own, their `held(into:)`).
        public func held(into memory: inout HeldMemory) { product.held(into: &memory) }

        /// The product of `sets`' whole runs that search (`DenseTable.Decoded.searchesEverywhere`),
        /// each multiplied in, in the sets' order, while the product's states stay within `growth`
        /// of its factors' apart; and per set, the runs multiplied.
        private static func multiply(_ sets: [ProgramSet]) -> (Product, [UInt64])? {
            var product: Factor?
            var covered = [UInt64](repeating: 0, count: sets.count)
            for (set, item) in sets.enumerated() {
                for (run, factor) in searches(item, tag: UInt32(set) << listShift) {
                    guard let multiplied = product == nil ? factor : product!.times(factor) else { continue }
                    product = multiplied
                    covered[set] |= 1 << run
                }
            }
            return product.map { (Product($0), covered) }
        }

        /// `set`'s whole runs (the first 64) that are dense parts searching every URL to its end,
        /// decoded, their patterns tagged with `tag` (those whose patterns fit below it).
        private static func searches(_ set: ProgramSet, tag: UInt32) -> [(run: Int, factor: Factor)] {
            let image = set.image
            return image.withBuffers { buffers in
                (0..<min(image.wholeRunCount, UInt64.bitWidth)).compactMap { run in
                    guard let view = buffers.dense(run) else { return nil }
                    let (decoded, classMap) = view.decoded()
                    guard decoded.searchesEverywhere(classMap), decoded.accepts.allSatisfy({ $0 <= patternMask })
                    else { return nil }
                    return (run, Factor(decoded.tagged(tag), classMap))
                }
            }
        }
    }

    /// A product being made: its states and class map, and its factors' states apart.
    fileprivate struct Factor {
        let decoded: DenseTable.Decoded
        let classMap: [UInt8]
        let statesApart: Int

        init(_ decoded: DenseTable.Decoded, _ classMap: [UInt8], statesApart: Int? = nil) {
            (self.decoded, self.classMap) = (decoded, classMap)
            self.statesApart = statesApart ?? decoded.stateCount
        }

        /// This product times `other`, nil when it would have more than `SearchesTogether.growth`
        /// times their states apart (or a table of more than `DenseTable.maximumEntries`).
        func times(_ other: Factor) -> Factor? {
            let apart = statesApart + other.statesApart
            let growth = SearchesTogether.growth
            guard let (product, classMap) = DenseTable.product(
                decoded, classMap, decoded.differencesFromStart(), other.decoded, other.classMap, other.decoded.differencesFromStart(),
                maximumEntries: DenseTable.maximumEntries, maximumStates: apart * growth.0 / growth.1)
            else { return nil }
            return Factor(product, classMap, statesApart: apart)
        }
    }

    /// A product's table in memory a run reads (its entries in a `DenseEntries`), and its view.
    fileprivate final class Product: @unchecked Sendable {
        let view: DenseView
        private let entries: DenseEntries
        private let acceptStart: UnsafeMutableBufferPointer<Int32>
        private let accepts: UnsafeMutableBufferPointer<UInt32>
        private let columns: UnsafeMutableBufferPointer<UInt32>

        init(_ factor: Factor) {
            let table = DenseTable(
                [factor.decoded], classMaps: [factor.classMap], stride: DenseTable.rowEntries(classCount: factor.decoded.classCount))
            entries = DenseEntries(tables: [table.entries])
            func copy<T>(_ array: [T]) -> UnsafeMutableBufferPointer<T> {
                let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(array.count, 1))
                _ = buffer.initialize(from: array)
                return buffer
            }
            (acceptStart, accepts, columns) = (copy(table.acceptStart), copy(table.accepts), copy(table.columns))
            view = DenseView(
                entries: entries.base + entries.starts[0], shift: table.shift, start: table.start, loopStart: table.loopStart,
                reportStart: table.reportStart, acceptStart: acceptStart.baseAddress!,
                accepts: UnsafeBufferPointer(rebasing: accepts[..<table.accepts.count]), columns: columns.baseAddress!)
        }

        /// Its table's entries, and the arrays a run reads beside them.
        func held(into memory: inout HeldMemory) {
            let name = "lists' searches together: product table"
            entries.memory.held(name, into: &memory)
            memory.add(name, acceptStart.count * MemoryLayout<Int32>.stride + (accepts.count + columns.count) * MemoryLayout<UInt32>.stride)
        }

        deinit {
            acceptStart.deallocate()
            accepts.deallocate()
            columns.deallocate()
        }
    }
}

extension DenseView {
    /// This part's states met from its start, numbered as met (its start 0), their classes the
    /// places of a row its bytes 0...127 read (numbered as the bytes first meet them), and its
    /// class map: its automaton as `DenseTable.decode` decodes a program, read back from its table.
    func decoded() -> (decoded: DenseTable.Decoded, classMap: [UInt8]) {
        var classMap = [UInt8](repeating: 0, count: 128)
        var places: [Int] = []
        for byte in 0..<128 {
            let place = Int(columns[byte])
            if let known = places.firstIndex(of: place) {
                classMap[byte] = UInt8(known)
            } else {
                classMap[byte] = UInt8(places.count)
                places.append(place)
            }
        }
        // Per table state, its number here (-1: not met yet); per state here, the table's; the
        // rows, written in place (at most a row per table state).
        let number = UnsafeMutableBufferPointer<Int32>.allocate(capacity: DenseTable.maximumStates)
        let rows = UnsafeMutablePointer<Int32>.allocate(capacity: DenseTable.maximumStates * places.count)
        defer {
            number.deallocate()
            rows.deallocate()
        }
        number.initialize(repeating: -1)
        var states = [start]
        number[start] = 0
        var acceptStart: [Int32] = [0]
        var accepts: [UInt32] = []
        var at = 0
        while at < states.count {
            let state = states[at]
            let (row, to) = (entries + (state << shift), rows + at * places.count)
            for (column, place) in places.enumerated() {
                let target = Int(row[place])
                if target != Int(DenseTable.dead) && number[target] < 0 {
                    number[target] = Int32(states.count)
                    states.append(target)
                }
                to[column] = target == Int(DenseTable.dead) ? -1 : number[target]
            }
            if state >= reportStart { reportState(state, 0) { pattern, _ in accepts.append(pattern) } }
            acceptStart.append(Int32(accepts.count))
            at += 1
        }
        let next = Array(UnsafeBufferPointer(start: rows, count: states.count * places.count))
        return (DenseTable.Decoded(next: next, classCount: places.count, acceptStart: acceptStart, accepts: accepts), classMap)
    }
}

extension DenseTable.Decoded {
    /// Whether every state a byte before the end-of-URL NUL leads to (or the start) goes on on
    /// every byte but the NUL (whose class, with class map `classMap`, holds it alone, or no state
    /// stops on it): a run then reads a URL to its end, or to its first byte from 128 on,
    /// whatever its bytes, as an unanchored search's automaton does (its states all hold the
    /// start's loop). (A state the NUL alone leads to reads nothing after it.)
    func searchesEverywhere(_ classMap: [UInt8]) -> Bool {
        let nulClass = classMap[1...].contains(classMap[0]) ? -1 : Int(classMap[0])
        let read = UnsafeMutableBufferPointer<Bool>.allocate(capacity: stateCount)
        defer { read.deallocate() }
        read.initialize(repeating: false)
        read[0] = true
        return next.withUnsafeBufferPointer { next in
            let (first, classCount) = (next.baseAddress!, self.classCount)
            for state in 0..<stateCount {
                let row = first + state * classCount
                for byteClass in 0..<classCount where byteClass != nulClass && row[byteClass] >= 0 { read[Int(row[byteClass])] = true }
            }
            return (0..<stateCount).allSatisfy { state in
                let row = first + state * classCount
                return !read[state] || (0..<classCount).allSatisfy { $0 == nulClass || row[$0] >= 0 }
            }
        }
    }

    /// The same automaton, its patterns `tag` added (a list's, in a product of several lists').
    func tagged(_ tag: UInt32) -> DenseTable.Decoded {
        DenseTable.Decoded(next: next, classCount: classCount, acceptStart: acceptStart, accepts: accepts.map { $0 | tag })
    }
}
