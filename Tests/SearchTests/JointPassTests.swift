// JointPassTests.swift — runs of different tables in one pass (DenseTable.swift's `JointPass`, the
// whole programs of several lists asked together) report what each run alone reports, after the
// same bytes and in the same order, and count the same steps: over programs of every kind (tries,
// anchored patterns that stop early, loops, end anchors), two to four runs of two tables, rows of
// every stride (64 in every lane, and others), URLs with NULs and bytes from 128 on, and empty
// ones; and several program sets' whole programs run together (WholeTogether.swift: their
// searches multiplied across the sets, the runs left in passes) and their domain tables looked up
// together leave each set's `run` the same reports, gates and steps, no set told another's
// patterns.

import Testing
import Automata
import Bytecode
@testable import Search
import URLFilterSyntax
import TestSupport

/// `body` given a view of each table's parts in turn (the views live while it runs).
private func withViews(_ tables: ArraySlice<DenseTable>, _ views: [DenseView] = [], _ body: ([DenseView]) -> Void) {
    guard let table = tables.first else { return body(views) }
    func part(_ index: Int, _ views: [DenseView]) {
        guard index < table.parts.count else { return withViews(tables.dropFirst(), views, body) }
        table.withView(part: index) { part(index + 1, views + [$0]) }
    }
    part(0, views)
}

@Suite struct JointPassTests {
    @Test func runsInOnePassReportAndStepAsEachAlone() throws {
        let atoms = ["a", "b", "/", "\\.", ".", "[ab]", "[^a]", "x", ".*", "\\0", "ab", "b*"]
        var random = SplitMix64(seed: 2711)
        let bytes: [UInt8] = Array("ab/.xy".utf8) + [0, 0x80, 0xC3]
        var (ended, strides) = (0, Set<Int>())
        for _ in 0..<300 {
            let runs = Int(random.next() % 3) + 2
            let programs = try (0..<runs).map { _ in try randomProgram(atoms, &random) }
            let decoded = try programs.map {
                try #require(DenseTable.decode($0, maximumStates: DenseTable.maximumStates, readingExceptions: true))
            }
            // Two tables, the runs split between them, each of its parts' stride or of 64.
            let split = Int(random.next() % UInt64(runs - 1)) + 1
            let tables = [0..<split, split..<runs].map { range in
                let stride = random.next() % 2 == 0 ? 64 : DenseTable.rowEntries(classCount: programs[range].map(\.classCount).max()!)
                strides.insert(stride)
                return DenseTable(Array(decoded[range]), classMaps: programs[range].map(\.classOfByte), stride: stride)
            }
            withViews(tables[...]) { views in
                for _ in 0..<16 {
                    let url = (0..<Int(random.next() % 12)).map { _ in bytes[Int(random.next() % UInt64(bytes.count))] }
                    url.withUnsafeBufferPointer { url in
                        var alone: [[[Int]]] = []
                        var aloneSteps: [Int] = []
                        for view in views {
                            var reports: [[Int]] = []
                            aloneSteps.append(view.run(url) { reports.append([Int($0), $1]) })
                            alone.append(reports)
                        }
                        var together = [[[Int]]](repeating: [], count: views.count)
                        var steps = [Int](repeating: -1, count: 4)
                        views.withUnsafeBufferPointer { views in
                            steps.withUnsafeMutableBufferPointer { steps in
                                JointPass.run(views, url, steps: steps) { together[$0].append([Int($1), $2]) }
                            }
                        }
                        #expect(together == alone, "\(Array(url))")
                        #expect(Array(steps[..<views.count]) == aloneSteps, "\(Array(url))")
                        if Set(aloneSteps).count > 1 { ended += 1 }
                    }
                }
            }
        }
        #expect(ended > 500, "URLs on which some runs end before others")
        #expect(strides.count > 2, "rows of several strides")
    }

    @Test func setsRunTogetherLeaveEachSetsRunTheSame() throws {
        // Two sets whose whole programs are dense tables: a search automaton with an anchored
        // program, and one of literals with a loop; each set's run after the joint pass reports
        // the same patterns and counts the same steps as its run alone. The two searches run as
        // one product. Their domain tables (one with paths) are looked up together.
        let domainsA = DomainTable([
            (pattern: 100, domain: Array("ads.test".utf8), tail: []), (pattern: 101, domain: Array("test".utf8), tail: DomainTable.encode(
                [HostPattern.terminator, ASCIISet(UInt8(ascii: "x"))])),
        ])
        let a = ProgramSet(
            programs: [
                try patternsProgram(["ads", "track", "ban+er", "\\.js$", "pixel"]),
                try patternsProgram(["^https?://a\\.test/", "^http://b\\.test/x"]),
            ], domains: domainsA)
        let b = ProgramSet(
            programs: [try patternsProgram(["/ad/", "beacon", "a[0-9]b", "^ws:"]), try patternsProgram(["c.*d"])],
            domains: DomainTable([(pattern: 200, domain: Array("ads.test".utf8)), (pattern: 201, domain: Array("b.test".utf8))]))
        let (reported, together) = try runTogetherAndApart([a, b], seed: 41)
        #expect(reported[0].isSuperset(of: [100, 101]) && reported[1].isSuperset(of: [200, 201]), "every domain entry found")
        #expect(together.productSets == [[0, 1]], "the two sets' searches run as one product")
    }

    @Test func severalSetsSearchesRunAsOneProduct() throws {
        // Five sets, their patterns numbered alike (pattern 0 of each is another word): the
        // searches of four multiplied into one product, one set without whole programs, one set
        // twice; more runs than one pass takes. Each set is told exactly its own patterns.
        var random = SplitMix64(seed: 61)
        func words(_ count: Int) -> [String] {
            let letters = "abcdefghijklmnopqrstuvwxyz/-".map(String.init) + ["\\."]
            return (0..<count).map { _ in (0..<Int(random.next() % 4) + 2).map { _ in letters[Int(random.next() % UInt64(letters.count))] }.joined() }
        }
        let first = ProgramSet(
            programs: [try patternsProgram(["ads", "track"] + words(40)), try patternsProgram(["^https?://a\\.test/"])],
            domains: DomainTable([(pattern: 100, domain: Array("ads.test".utf8))]))
        let second = ProgramSet(programs: [try patternsProgram(["beacon", "/ad/", "x$"] + words(40)), try patternsProgram(["c.*d"])])
        let domainsOnly = ProgramSet(programs: [], domains: DomainTable([(pattern: 0, domain: Array("b.test".utf8))]))
        let third = ProgramSet(programs: [try patternsProgram(["pixel", "^ws:", "ban+er"] + words(40)), try patternsProgram(["^http://b"])])
        let sets = [first, second, domainsOnly, third, first]
        let (reported, together) = try runTogetherAndApart(sets, seed: 67)
        #expect(together.runsWhole == [true, true, false, true, true])
        #expect(together.productSets == [[0, 1, 3, 4]], "every set's search in one product")
        #expect(reported[0].contains(0) && reported[1].contains(0) && reported[3].contains(0) && reported[2].contains(0))
        #expect(reported[0] == reported[4], "a set twice told the same as once")
        // Two searches whose product has more classes than a row of theirs holds: not multiplied.
        let low = ProgramSet(programs: [try patternsProgram(["abcd", "efgh", "ijkl", "mnop", "qrst", "bdfh"])])
        let high = ProgramSet(programs: [try patternsProgram(["uvwx", "yz01", "2345", "6789", "-_~!", "wy02"])])
        let (_, apart) = try runTogetherAndApart([low, high], seed: 71)
        #expect(apart.productSets.isEmpty, "a product past the growth allowed is not made")
    }

    @Test func aSetWithoutDomainsRunsTogetherWithOneWith() throws {
        // One set's domain table empty (a list without `||` rules): the other's is looked up
        // alone, each set's run after the pass still the same as its run alone.
        let withDomains = ProgramSet(
            programs: [try patternsProgram(["ads", "track", "\\.js$"]), try patternsProgram(["^https?://a\\.test/"])],
            domains: DomainTable([(pattern: 100, domain: Array("ads.test".utf8)), (pattern: 101, domain: Array("b.test".utf8))]))
        let without = ProgramSet(programs: [try patternsProgram(["/ad/", "beacon", "c.*d"])])
        #expect(without.domains.isEmpty && !withDomains.domains.isEmpty)
        let (foundA, _) = try runTogetherAndApart([withDomains, without], seed: 43)
        let (foundB, _) = try runTogetherAndApart([without, withDomains], seed: 47)
        #expect(foundA[0].isSuperset(of: [100, 101]) && foundB[1].isSuperset(of: [100, 101]), "every domain entry found")
        _ = try runTogetherAndApart([without, without], seed: 53)
    }

    @Test func domainTablesLookedUpTogetherLeaveEachSetsRunTheSame() throws {
        // Four sets, one without a domain table, one twice: their tables looked up together
        // (`ProgramSet.DomainsTogether`), each set's run after the lookup reports the same
        // patterns and counts the same steps as its run alone.
        let withPaths = ProgramSet(
            programs: [try patternsProgram(["ads", "track"])],
            domains: DomainTable([
                (pattern: 100, domain: Array("ads.test".utf8), tail: []), (pattern: 101, domain: Array("test".utf8), tail: DomainTable.encode(
                    [HostPattern.terminator, ASCIISet(UInt8(ascii: "x"))])),
            ]))
        let plain = ProgramSet(
            programs: [try patternsProgram(["/ad/", "beacon"])],
            domains: DomainTable([(pattern: 200, domain: Array("ads.test".utf8)), (pattern: 201, domain: Array("b.test".utf8))]))
        let without = ProgramSet(programs: [try patternsProgram(["c.*d"])])
        let sets = [withPaths, without, plain, withPaths]
        let together = try #require(ProgramSet.DomainsTogether(sets))
        #expect(together.looksUp == [true, false, true, true])
        #expect(ProgramSet.DomainsTogether([withPaths, without]) == nil, "one table is looked up alone")
        var random = SplitMix64(seed: 59)
        let pieces = ["https://", "http://", "ws:", "a.test/", "b.test/x", "ads", "track", "/ad/", "beacon", "c", "d", "\u{80}", "\u{0}",
            "ads.test/", "x.ads.test:", "ADS.Test/", "b.test:", "test/x", "test/y"]
        var reported = Set<UInt32>()
        for _ in 0..<3_000 {
            let url = Array((0..<Int(random.next() % 7)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined().utf8)
            url.withUnsafeBufferPointer { url in
                let reading = DomainTable.HostReading(url)
                var alone: [[UInt32]] = []
                var aloneSteps: [Int] = []
                for set in sets {
                    var (ends, reports) = ([Int](), [UInt32]())
                    aloneSteps.append(set.run(url, hostReading: reading, ends: &ends) { reports.append($0) }.steps)
                    alone.append(reports)
                }
                var ends = [[Int]](repeating: [], count: sets.count)
                var joint = [[UInt32]](repeating: [], count: sets.count)
                together.lookUp(url, labels: reading.labels) { set, pattern, gateBase in
                    ProgramSet.domainFound(pattern, gateBase: gateBase, &ends[set]) { joint[set].append($0) }
                }
                for (index, set) in sets.enumerated() {
                    let (steps, _) = set.run(url, hostReading: reading, ends: &ends[index], lookedUp: together.looksUp[index] ? .domains : []) {
                        joint[index].append($0)
                    }
                    #expect(joint[index].sorted() == alone[index].sorted() && steps == aloneSteps[index], "set \(index): \(Array(url))")
                    reported.formUnion(alone[index])
                }
            }
        }
        #expect(reported.isSuperset(of: [100, 101, 200, 201]), "every domain entry found")
    }

    /// Runs `sets` together (their domain tables, `ProgramSet.DomainsTogether`, then their whole
    /// programs, `ProgramSet.WholeTogether`) and each alone over random URLs: each set's reports
    /// and steps the same; returns the patterns each reported, and the runs together.
    private func runTogetherAndApart(_ sets: [ProgramSet], seed: UInt64) throws -> ([Set<UInt32>], ProgramSet.WholeTogether) {
        var random = SplitMix64(seed: seed)
        let together = try #require(ProgramSet.WholeTogether(sets))
        let domains = ProgramSet.DomainsTogether(sets)
        let pieces = ["https://", "http://", "ws:", "a.test/", "b.test/x", "ads", "track", "banner", "bannner", ".js", "/ad/", "beacon",
            "a5b", "c", "d", "pixel", "?", "\u{80}", "\u{0}", "ads.test/", "x.ads.test:", "ADS.Test/", "b.test:", "test/x", "x", "ab",
            "ef", "uv", "01", "/", "-", "mnop", "yz01"]
        var reported = [Set<UInt32>](repeating: [], count: sets.count)
        for _ in 0..<3_000 {
            let url = Array((0..<Int(random.next() % 7)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined().utf8)
            url.withUnsafeBufferPointer { url in
                let reading = DomainTable.HostReading(url)
                var alone: [[UInt32]] = []
                var aloneSteps: [Int] = []
                for set in sets {
                    var (ends, reports) = ([Int](), [UInt32]())
                    aloneSteps.append(set.run(url, hostReading: reading, ends: &ends) { reports.append($0) }.steps)
                    alone.append(reports)
                }
                var ends = [[Int]](repeating: [], count: sets.count)
                var joint = [[UInt32]](repeating: [], count: sets.count)
                domains?.lookUp(url, labels: reading.labels) { set, pattern, gateBase in
                    ProgramSet.domainFound(pattern, gateBase: gateBase, &ends[set]) { joint[set].append($0) }
                }
                var steps = [Int](repeating: -1, count: sets.count)
                steps.withUnsafeMutableBufferPointer { steps in
                    together.run(url, steps: steps) { set, pattern, end, gateBase in
                        ProgramSet.found(pattern, end, gateBase: gateBase, &ends[set]) { joint[set].append($0) }
                    }
                }
                for (index, set) in sets.enumerated() {
                    let (rest, _) = set.run(
                        url, hostReading: reading, ends: &ends[index], wholeSteps: together.runsWhole[index] ? steps[index] : nil,
                        lookedUp: domains?.looksUp[index] == true ? .domains : []
                    ) { joint[index].append($0) }
                    #expect(joint[index].sorted() == alone[index].sorted() && rest == aloneSteps[index], "set \(index): \(Array(url))")
                    reported[index].formUnion(alone[index])
                }
            }
        }
        return (reported, together)
    }
}
