// JointPassTests.swift — runs of different tables in one pass (DenseTable.swift's `JointPass`, the
// whole programs of two lists asked together) report what each run alone reports, after the same
// bytes and in the same order, and count the same steps: over programs of every kind (tries,
// anchored patterns that stop early, loops, end anchors), two to four runs of two tables, rows of
// every stride (64 in every lane, and others), URLs with NULs and bytes from 128 on, and empty
// ones; and two program sets' whole programs and domain tables run together leave each set's `run`
// the same reports, gates and steps.

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
                return DenseTable(Array(decoded[range]), classMaps: programs[range].map(\.classOfByte), stride: stride, narrowing: false)
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
        // program (one product: `DenseTable.smallProductEntries`), and one of literals; each
        // set's run after the joint pass reports the same
        // patterns and counts the same steps as its run alone.
        // Their domain tables (one with paths) are looked up together with them.
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
            programs: [try patternsProgram(["/ad/", "beacon", "a[0-9]b", "^ws:", "c.*d"])],
            domains: DomainTable([(pattern: 200, domain: Array("ads.test".utf8)), (pattern: 201, domain: Array("b.test".utf8))]))
        let (reportedA, reportedB) = try runTogetherAndApart(a, b, seed: 41)
        #expect(reportedA.isSuperset(of: [100, 101]) && reportedB.isSuperset(of: [200, 201]), "every domain entry found")
        // Sets whose whole runs are more than four together are not run so (anchored programs:
        // no search to be multiplied into).
        let three = ProgramSet(programs: [
            try patternsProgram(["^ads", "^track"]), try patternsProgram(["^https?://a\\.test/"]), try patternsProgram(["x$", "^y"]),
        ])
        #expect(three.image.wholeRunCount == 3 && ProgramSet.WholeTogether(three, three) == nil)
    }

    @Test func aSetWithoutDomainsRunsTogetherWithOneWith() throws {
        // One set's domain table empty (a list without `||` rules): the other's is looked up
        // alone, each set's run after the pass still the same as its run alone.
        let withDomains = ProgramSet(
            programs: [try patternsProgram(["ads", "track", "\\.js$"]), try patternsProgram(["^https?://a\\.test/"])],
            domains: DomainTable([(pattern: 100, domain: Array("ads.test".utf8)), (pattern: 101, domain: Array("b.test".utf8))]))
        let without = ProgramSet(programs: [try patternsProgram(["/ad/", "beacon", "c.*d"])])
        #expect(without.domains.isEmpty && !withDomains.domains.isEmpty)
        let (foundA, _) = try runTogetherAndApart(withDomains, without, seed: 43)
        let (_, foundB) = try runTogetherAndApart(without, withDomains, seed: 47)
        #expect(foundA.isSuperset(of: [100, 101]) && foundB.isSuperset(of: [100, 101]), "every domain entry found")
        _ = try runTogetherAndApart(without, without, seed: 53)
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
                together.lookUp(url, labels: reading.labels) { set, pattern, gateBase, byContext in
                    ProgramSet.listed(pattern, gateBase: gateBase, byContext: byContext, &ends[set]) { joint[set].append($0) }
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

    /// Runs `a` and `b` together (`ProgramSet.WholeTogether`) and each alone over random URLs:
    /// each set's reports and steps the same; returns the patterns each reported.
    private func runTogetherAndApart(_ a: ProgramSet, _ b: ProgramSet, seed: UInt64) throws -> (Set<UInt32>, Set<UInt32>) {
        var random = SplitMix64(seed: seed)
        let together = try #require(ProgramSet.WholeTogether(a, b))
        let pieces = ["https://", "http://", "ws:", "a.test/", "b.test/x", "ads", "track", "banner", "bannner", ".js", "/ad/", "beacon",
            "a5b", "c", "d", "pixel", "?", "\u{80}", "\u{0}", "ads.test/", "x.ads.test:", "ADS.Test/", "b.test:", "test/x"]
        var (reportedA, reportedB) = (Set<UInt32>(), Set<UInt32>())
        for _ in 0..<3_000 {
            let url = Array((0..<Int(random.next() % 7)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined().utf8)
            url.withUnsafeBufferPointer { url in
                let reading = DomainTable.HostReading(url)
                var (endsA, endsB) = ([Int](), [Int]())
                var (aloneA, aloneB) = ([UInt32](), [UInt32]())
                let (stepsA, _) = a.run(url, hostReading: reading, ends: &endsA) { aloneA.append($0) }
                let (stepsB, _) = b.run(url, hostReading: reading, ends: &endsB) { aloneB.append($0) }
                var (jointA, jointB) = ([UInt32](), [UInt32]())
                let (wholeA, wholeB) = together.run(
                    url, labels: reading.labels, endsA: &endsA, endsB: &endsB, reportA: { jointA.append($0) }, reportB: { jointB.append($0) })
                let (restA, _) = a.run(url, hostReading: reading, ends: &endsA, wholeSteps: wholeA) { jointA.append($0) }
                let (restB, _) = b.run(url, hostReading: reading, ends: &endsB, wholeSteps: wholeB) { jointB.append($0) }
                #expect(jointA.sorted() == aloneA.sorted() && jointB.sorted() == aloneB.sorted(), "\(Array(url))")
                #expect(restA == stepsA && restB == stepsB, "\(Array(url))")
                reportedA.formUnion(aloneA)
                reportedB.formUnion(aloneB)
            }
        }
        return (reportedA, reportedB)
    }
}
