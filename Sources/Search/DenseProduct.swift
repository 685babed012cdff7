// DenseProduct.swift — Search
//
// Programs that run over the same URL from its start (a set's whole programs) may run as one
// automaton: their product, whose state is a state of each (or none, once that one's run has
// stopped), reports what they report together. A pass then reads one entry a byte where it read
// one per program. The product of two automata may have as many states as the product of their
// state counts, but that of two unanchored searches (Aho-Corasick automata, whose states are the
// prefixes of their words and fall back to the start's row but for the classes that go on with a
// word) is the automaton of both word lists, about as large as the two (its states are the two
// lists' prefixes, less those they share). So searches are multiplied,
// and a product is kept only while its table has at most a quarter more entries than its factors'
// apart: a load is bounded work and memory, and the factors run on their own otherwise. (A
// program that waits for a `.*` or stays alive along the host, multiplied with a search, makes
// several times their states: each of its states pairs with many of the search's.) An anchored
// program that dies within a few bytes pairs each of its states with about one of the search's;
// it is tried too, where both are small (a small list's), so that the failed tries cost a load
// little.
//
// A product's row is built from its start's row, replaced only in the classes where one of its
// states leads elsewhere than that factor's start does: a few classes per state, not a look-up
// per entry.
// Tested by SearchTests/DenseProductTests.swift.

internal import Bytecode
internal import Parallelism

extension DenseTable {
    /// The product of `a` and `b` (with class maps `classMapA` and `classMapB`): its start is the
    /// pair of their starts; it leads on a byte to the pair of their next states and stops when
    /// both stop; a pair reports `a`'s patterns, then `b`'s. Nil when its table would have more
    /// than `maximumEntries` entries (or more than `DenseTable.maximumStates` states). Returns the
    /// product and its class map (a class per pair of classes some byte has, numbered as bytes
    /// 0...127 first meet them).
    /// `differencesA` and `differencesB`: `a`'s and `b`'s (`Decoded.differencesFromStart()`).
    static func product(
        _ a: Decoded, _ classMapA: [UInt8], _ differencesA: Decoded.Differences, _ b: Decoded, _ classMapB: [UInt8],
        _ differencesB: Decoded.Differences, maximumEntries: Int
    ) -> (product: Decoded, classMap: [UInt8])? {
        let (classOf, classA, classB) = productClassMap(classMapA, a.classCount, classMapB, b.classCount)
        let classCount = classA.count
        let maximumStates = min(maximumEntries / rowEntries(classCount: classCount), DenseTable.maximumStates)
        var walk = PairWalk(a, differencesA, classA, b, differencesB, classB, classCount: classCount, maximumStates: maximumStates)
        defer { walk.deallocate() }
        guard walk.run() else { return nil }
        return (walk.decoded(), classOf)
    }

    /// The product's classes, each a pair of classes (`classA[c]` of `a`'s, `classB[c]` of `b`'s),
    /// numbered as bytes 0...127 first meet them, and its class map.
    private static func productClassMap(
        _ classMapA: [UInt8], _ classCountA: Int, _ classMapB: [UInt8], _ classCountB: Int
    ) -> (classOf: [UInt8], classA: [Int], classB: [Int]) {
        var classOf = [UInt8](repeating: 0, count: 128)
        var classOfPair = [Int](repeating: -1, count: classCountA * classCountB)
        var classA: [Int] = []
        var classB: [Int] = []
        for byte in 0..<128 {
            let (x, y) = (Int(classMapA[byte]), Int(classMapB[byte]))
            if classOfPair[x * classCountB + y] < 0 {
                classOfPair[x * classCountB + y] = classA.count
                classA.append(x)
                classB.append(y)
            }
            classOf[byte] = UInt8(classOfPair[x * classCountB + y])
        }
        return (classOf, classA, classB)
    }

    /// `product`'s walk of the pairs met from the starts, numbered in the order met (state 0: the
    /// starts), and their rows.
    private struct PairWalk {
        let a: Decoded
        let b: Decoded
        let differencesA: Decoded.Differences
        let differencesB: Decoded.Differences
        let classA: [Int]
        let classB: [Int]
        /// The product's row of a pair of states is its start's row but in the classes where one
        /// of them leads elsewhere than its start (in a product of Aho-Corasick automata, the few
        /// classes that go deeper into a word): the product's classes of each factor's class.
        let productClassesA: (start: [Int], classes: [Int])
        let productClassesB: (start: [Int], classes: [Int])
        let classCount: Int
        let maximumStates: Int
        let numbers: PairNumbers
        let pairs: UnsafeMutablePointer<(a: Int32, b: Int32)>
        let next: UnsafeMutablePointer<Int32>
        /// Per class, the pair it leads to from a factor's start once the other has stopped.
        let startAlone: (a: UnsafeMutablePointer<Int32>, b: UnsafeMutablePointer<Int32>)
        static var unknown: Int32 { -2 }
        var pairCount = 1
        var acceptStart: [Int32] = []
        var accepts: [UInt32] = []

        init(
            _ a: Decoded, _ differencesA: Decoded.Differences, _ classA: [Int], _ b: Decoded, _ differencesB: Decoded.Differences,
            _ classB: [Int], classCount: Int, maximumStates: Int
        ) {
            (self.a, self.differencesA, self.classA, self.b, self.differencesB, self.classB) = (a, differencesA, classA, b, differencesB, classB)
            (self.classCount, self.maximumStates) = (classCount, maximumStates)
            productClassesA = Self.productClasses(classA, a.classCount)
            productClassesB = Self.productClasses(classB, b.classCount)
            numbers = PairNumbers(statesA: a.stateCount, statesB: b.stateCount, capacity: maximumStates)
            pairs = .allocate(capacity: maximumStates)
            next = .allocate(capacity: maximumStates * classCount)
            startAlone = (a: .allocate(capacity: classCount), b: .allocate(capacity: classCount))
            startAlone.a.initialize(repeating: Self.unknown, count: classCount)
            startAlone.b.initialize(repeating: Self.unknown, count: classCount)
            pairs[0] = (0, 0)
            _ = numbers.number(0, 0, orNext: 0)
        }

        func deallocate() {
            pairs.deallocate()
            next.deallocate()
            startAlone.a.deallocate()
            startAlone.b.deallocate()
        }

        /// Per factor's class, the product's classes of it: where they start in `classes`.
        static func productClasses(_ classes: [Int], _ classCount: Int) -> (start: [Int], classes: [Int]) {
            var start = [Int](repeating: 0, count: classCount + 1)
            for byteClass in classes { start[byteClass + 1] += 1 }
            for index in 0..<classCount { start[index + 1] += start[index] }
            var listed = [Int](repeating: 0, count: classes.count)
            var at = start
            for (productClass, byteClass) in classes.enumerated() {
                listed[at[byteClass]] = productClass
                at[byteClass] += 1
            }
            return (start, listed)
        }

        /// Fills every pair's row, numbering the pairs met; false when they are more than
        /// `maximumStates`.
        mutating func run() -> Bool {
            let (nextA, nextB, classA, classB) = (a.next, b.next, self.classA, self.classB)
            return nextA.withUnsafeBufferPointer { nextA in
                nextB.withUnsafeBufferPointer { nextB in
                    classA.withUnsafeBufferPointer { classA in
                        classB.withUnsafeBufferPointer { classB in
                            let factors = (nextA.baseAddress!, nextB.baseAddress!, classA.baseAddress!, classB.baseAddress!)
                            var index = 0
                            while index < pairCount {
                                guard fillRow(index, factors) else { return false }
                                index += 1
                            }
                            return true
                        }
                    }
                }
            }
        }

        /// Pair `index`'s patterns and row, its new targets numbered; false when that makes one
        /// pair too many. `factors`: `a.next`, `b.next`, `classA` and `classB`.
        @inline(__always)
        private mutating func fillRow(
            _ index: Int, _ factors: (UnsafePointer<Int32>, UnsafePointer<Int32>, UnsafePointer<Int>, UnsafePointer<Int>)
        ) -> Bool {
            let (nextA, nextB, classA, classB) = factors
            let (stateA, stateB) = pairs[index]
            let row = next + index * classCount
            acceptStart.append(Int32(accepts.count))
            if stateA >= 0 { accepts += a.accepts[Int(a.acceptStart[Int(stateA)])..<Int(a.acceptStart[Int(stateA) + 1])] }
            if stateB >= 0 { accepts += b.accepts[Int(b.acceptStart[Int(stateB)])..<Int(b.acceptStart[Int(stateB) + 1])] }
            // (A factor that stopped reads nothing: its row is no row's.)
            let (rowA, rowB) = (nextA + Int(max(stateA, 0)) * a.classCount, nextB + Int(max(stateB, 0)) * b.classCount)
            /// The entry of class `byteClass`, its pair numbered if new; false when that is one
            /// too many.
            @inline(__always) func fill(_ byteClass: Int) -> Bool {
                let targetA = stateA >= 0 ? rowA[classA[byteClass]] : -1
                let targetB = stateB >= 0 ? rowB[classB[byteClass]] : -1
                guard targetA >= 0 || targetB >= 0 else {
                    row[byteClass] = -1
                    return true
                }
                let number = numbers.number(targetA, targetB, orNext: Int32(pairCount))
                if number == Int32(pairCount) {
                    guard pairCount < maximumStates else { return false }
                    pairs[pairCount] = (targetA, targetB)
                    pairCount += 1
                }
                row[byteClass] = number
                return true
            }
            guard index > 0 else {
                for byteClass in 0..<classCount where !fill(byteClass) { return false }
                return true
            }
            // The start's row, or, once a factor has stopped, the row of the other's start alone,
            // as far as it is known (`unknown`: not yet met).
            let reference = stateA >= 0 && stateB >= 0 ? next : stateB < 0 ? startAlone.a : startAlone.b
            row.update(from: reference, count: classCount)
            if stateA >= 0 {
                for byteClass in differencesA.classes(of: Int(stateA)) {
                    for at in productClassesA.start[Int(byteClass)]..<productClassesA.start[Int(byteClass) + 1] {
                        guard fill(productClassesA.classes[at]) else { return false }
                    }
                }
            }
            if stateB >= 0 {
                for byteClass in differencesB.classes(of: Int(stateB)) {
                    for at in productClassesB.start[Int(byteClass)]..<productClassesB.start[Int(byteClass) + 1] {
                        guard fill(productClassesB.classes[at]) else { return false }
                    }
                }
            }
            if reference != next {
                for byteClass in 0..<classCount where row[byteClass] == Self.unknown {
                    guard fill(byteClass) else { return false }
                    reference[byteClass] = row[byteClass]
                }
            }
            return true
        }

        /// The product: the rows filled, and each pair's patterns.
        func decoded() -> Decoded {
            let rows = Array(UnsafeBufferPointer(start: next, count: pairCount * classCount))
            return Decoded(next: rows, classCount: classCount, acceptStart: acceptStart + [Int32(accepts.count)], accepts: accepts)
        }
    }
}

extension DenseTable.Decoded {
    /// Per state, the classes on which it leads elsewhere than the start state does.
    func differencesFromStart() -> Differences {
        var start = [Int32](repeating: 0, count: stateCount + 1)
        // (Each class written, the count moved on where it differs: no branch a class.)
        let listed = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: stateCount * classCount + 1)
        defer { listed.deallocate() }
        var count = 0
        next.withUnsafeBufferPointer { next in
            let first = next.baseAddress!
            for state in 0..<stateCount {
                let row = first + state * classCount
                for byteClass in 0..<classCount {
                    listed[count] = UInt8(truncatingIfNeeded: byteClass)
                    count &+= row[byteClass] != first[byteClass] ? 1 : 0
                }
                start[state + 1] = Int32(count)
            }
        }
        return Differences(start: start, classes: Array(listed[0..<count]))
    }

    /// Classes listed per state.
    struct Differences {
        var start: [Int32]
        var classes: [UInt8]

        func classes(of state: Int) -> ArraySlice<UInt8> { classes[Int(start[state])..<Int(start[state + 1])] }
    }

    /// An unanchored search's automaton: its start goes on on every byte but the end-of-URL NUL
    /// (class `nulClass`), and its states lead where the start leads on all but at most a
    /// `searchDifferences` share of their classes (`differences`: this automaton's), falling back
    /// to the start's row but for the classes that go on with a word. The product of two such
    /// automata is about as large as both together.
    func isSearch(_ differences: Differences, nulClass: Int) -> Bool {
        (0..<classCount).allSatisfy { $0 == nulClass || next[$0] >= 0 }
            && differences.classes.count * DenseTable.searchDifferences.1 <= stateCount * classCount * DenseTable.searchDifferences.0
    }
}

/// Numbers of pairs of states (each a state or -1), as a product's construction looks a pair up
/// for each of its entries. Most pairs are the only one met with their first state, or with their
/// second (in a product of Aho-Corasick automata, a state is a prefix of some word, and it
/// determines the state of the other's that it pairs with): such a pair is kept in a slot of its
/// first state, or of its second, read directly; the others in an open-addressing table keyed by
/// the pair packed in 64 bits.
final class PairNumbers {
    /// Per first state (plus one): the second state plus one in the high 32 bits, the number plus
    /// one in the low (0: none); per second state, the same with the first state.
    private let byFirst: UnsafeMutableBufferPointer<UInt64>
    private let bySecond: UnsafeMutableBufferPointer<UInt64>
    private let keys: UnsafeMutableBufferPointer<UInt64>
    private let numbers: UnsafeMutableBufferPointer<Int32>
    private let mask: Int

    /// For pairs of `statesA` and `statesB` states, at most `capacity` of them.
    init(statesA: Int, statesB: Int, capacity: Int) {
        var size = 64
        while size < 2 * capacity { size *= 2 }
        byFirst = .allocate(capacity: statesA + 1)
        bySecond = .allocate(capacity: statesB + 1)
        keys = .allocate(capacity: size)
        numbers = .allocate(capacity: size)
        byFirst.initialize(repeating: 0)
        bySecond.initialize(repeating: 0)
        keys.initialize(repeating: Self.empty)
        numbers.initialize(repeating: 0)
        mask = size - 1
    }

    deinit {
        byFirst.deallocate()
        bySecond.deallocate()
        keys.deallocate()
        numbers.deallocate()
    }

    /// No pair's key: both states -1 (the pair that stops is never numbered).
    private static let empty: UInt64 = 0

    /// The number of the pair (`a`, `b`), or `next` given to it if it has none yet.
    @inline(__always) func number(_ a: Int32, _ b: Int32, orNext next: Int32) -> Int32 {
        let (first, second) = (Int(a &+ 1), Int(b &+ 1))
        let inFirst = byFirst[first]
        if inFirst >> 32 == UInt64(second) && inFirst != 0 { return Int32(truncatingIfNeeded: inFirst) &- 1 }
        let inSecond = bySecond[second]
        if inSecond >> 32 == UInt64(first) && inSecond != 0 { return Int32(truncatingIfNeeded: inSecond) &- 1 }
        let key = UInt64(first) << 32 | UInt64(second)
        var slot = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
        while true {
            let found = keys[slot]
            if found == key { return numbers[slot] }
            if found == Self.empty { break }
            slot = (slot &+ 1) & mask
        }
        let value = UInt64(UInt32(bitPattern: next &+ 1))
        if inFirst == 0 {
            byFirst[first] = UInt64(second) << 32 | value
        } else if inSecond == 0 {
            bySecond[second] = UInt64(first) << 32 | value
        } else {
            keys[slot] = key
            numbers[slot] = next
        }
        return next
    }
}

extension DenseTable {
    /// A table of programs run together, and the programs each of its parts runs (one, or the
    /// factors of a product).
    struct Joined {
        let table: DenseTable
        let members: [[Int]]
        /// Per part, its states (a product's, or its program's with a chain's members apart).
        let states: [Int]
    }

    /// A product is kept while its table's entries are at most this many times its factors'
    /// apart (as fractions: numerator, denominator). Two Aho-Corasick automata's product has their
    /// states but for the words' shared prefixes; a little room takes a few more classes.
    static let productGrowth = (5, 4)
    /// A program that is no search (an anchored one) is multiplied into a search while the two
    /// have at most this many entries apart (a small list's whole programs), and their product at
    /// most `smallProductGrowth` times that: one that dies within a few bytes
    /// (`^https?://bat\.bing\.com`) pairs each of its states with about one of the search's, and
    /// the pass then reads one entry a byte where it read two; one with a loop along the host or
    /// the URL multiplies the search's states past that bound, and the product, tried at a small
    /// cost, is dropped.
    static let smallProductEntries = 1 << 16
    /// The most a small product's table may have of its factors' entries apart: its states have
    /// the factors' but for a few, in rows of the wider one's stride.
    static let smallProductGrowth = 2
    /// A search automaton's states differ from its start in at most this share of their classes
    /// (`Decoded.isSearch`): an Aho-Corasick automaton's states differ from its start in a few
    /// classes each, a program of loopy or anchored patterns in most.
    static let searchDifferences = (1, 4)

    /// Tables for `programs` run together over a URL from its start, in their order, while the
    /// tables' entries stay within `budget` (the programs left out run without one): each program
    /// decoded; a search (`Decoded.isSearch`) multiplied into the first part before it that is
    /// one, if their product's table has at most `productGrowth` times their entries apart
    /// (`product`); then a program that is no search into a small search (`smallProductEntries`),
    /// the same way; the parts then joined in their order, up to three to a table of at most
    /// `maximumStates` states. Only for valid programs.
    static func together(_ programs: [Program], budget: Int) -> [Joined] {
        // Decoded on every core, those the budget admits if each has a row per state (a valid
        // program's table has at least its compact states; a product, at most the growth more).
        var admitted = 0
        var count = 0
        for program in programs {
            let size = program.stateCount * rowEntries(classCount: program.classCount)
            guard program.classCount > 0, size <= maximumEntries, admitted + size <= budget else { break }
            admitted += size
            count += 1
        }
        @Sendable func decoded(_ program: Program) -> Decoded? {
            decode(program, maximumStates: min(maximumEntries / rowEntries(classCount: program.classCount), maximumStates),
                readingExceptions: true)
        }
        // (Small programs on this thread: handing them to others costs more than decoding them.)
        let decoded = admitted < 1 << 16
            ? programs[0..<count].map(decoded) : Parallel.map(handingOver: Array(programs[0..<count])) { decoded($1) }
        // Parts: each a program's states or a product's. A search automaton (`isSearch`) is
        // multiplied into the first part, also one, whose product with it is small enough; any
        // other program is a part of its own.
        var parts: [(decoded: Decoded, classMap: [UInt8], members: [Int], differences: Decoded.Differences?)] = []
        func entries(_ part: Decoded) -> Int { part.stateCount * rowEntries(classCount: part.classCount) }
        for (index, item) in decoded.enumerated() {
            guard let item else { break }
            let differences = item.differencesFromStart()
            guard item.isSearch(differences, nulClass: Int(programs[index].classOfByte[0])) else {
                parts.append((item, programs[index].classOfByte, [index], nil))
                continue
            }
            let multiplied = parts.indices.first { at in
                guard let partDifferences = parts[at].differences else { return false }
                let apart = entries(parts[at].decoded) + entries(item)
                guard let (product, classMap) = product(
                    parts[at].decoded, parts[at].classMap, partDifferences, item, programs[index].classOfByte, differences,
                    maximumEntries: apart * productGrowth.0 / productGrowth.1)
                else { return false }
                // (A product's differences are read only if a program after it may join it.)
                let productDifferences = index + 1 < decoded.count ? product.differencesFromStart() : nil
                parts[at] = (
                    product, classMap, parts[at].members + [index], productDifferences.flatMap { product.isSearch($0, nulClass: Int(classMap[0])) ? $0 : nil }
                )
                return true
            }
            if multiplied == nil { parts.append((item, programs[index].classOfByte, [index], differences)) }
        }
        // Then each program that is no search, into the first small search part whose product with
        // it is small enough (`smallProductEntries`); a product so made is no search, and takes
        // no other.
        var at = 0
        while at < parts.count {
            guard parts[at].differences == nil, parts[at].members.count == 1 else {
                at += 1
                continue
            }
            let item = parts[at]
            let into = parts.indices.first { search in
                guard let searchDifferences = parts[search].differences else { return false }
                let apart = entries(parts[search].decoded) + entries(item.decoded)
                guard apart <= smallProductEntries, let (product, classMap) = product(
                    parts[search].decoded, parts[search].classMap, searchDifferences, item.decoded, item.classMap,
                    item.decoded.differencesFromStart(), maximumEntries: apart * smallProductGrowth)
                else { return false }
                parts[search] = (product, classMap, parts[search].members + item.members, nil)
                return true
            }
            if into != nil { parts.remove(at: at) } else { at += 1 }
        }
        // Up to three parts to a table, in order.
        var tables: [Joined] = []
        var used = 0
        var first = 0
        while first < parts.count {
            var end = first + 1
            var states = parts[first].decoded.stateCount
            while end < parts.count, end - first < 3, states + parts[end].decoded.stateCount <= maximumStates {
                states += parts[end].decoded.stateCount
                end += 1
            }
            let group = parts[first..<end]
            let stride = rowEntries(classCount: group.map(\.decoded.classCount).max()!)
            guard states * stride <= maximumEntries, used + states * stride <= budget else { break }
            used += states * stride
            tables.append(Joined(
                table: DenseTable(group.map(\.decoded), classMaps: group.map(\.classMap), stride: stride, narrowing: false),
                members: group.map(\.members), states: group.map(\.decoded.stateCount)))
            first = end
        }
        return tables
    }
}
