// ProgramSetTests.swift — a program set's stages (a shared prefix, then each pattern's rest from
// wherever the prefix ended) answer exactly like one automaton of the whole patterns; programs
// too large for a dense table run from their code beside those that have one; a set kept only
// to run answers as its set does.

import Testing
import Automata
import Bytecode
@testable import Search
import URLFilterSyntax

@Suite struct ProgramSetTests {
    /// Stages (a shared looping prefix, then each pattern's rest from wherever the prefix ended)
    /// answer exactly like one automaton of the whole patterns: generated lists built around the
    /// idioms of real lists, with a planner that stages any two patterns sharing a prefix.
    @Test func stagedProgramsAnswerLikeTheWholePatterns() throws {
        var random = UInt64(11)
        func next(_ bound: Int) -> Int {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return Int((random >> 33) % UInt64(bound))
        }
        let prefixes = [
            "^[^:]+://+([^:/]+\\.)?", "[a-z][a-z+.-]*:\\/\\/", "[a-z][a-z+.-]*:\\/\\/([^/]*\\.)*", "^https?:/+([^/:]+\\.)?", "", "^a*",
        ]
        let atoms = ["a", "b", ".", "\\.", "/", ":", "[/:]", "[^/]", "x", "(ab)", "\\0", "$"]
        let quantifiers = ["", "", "", "?", "*", "+"]
        let alphabet = Array("ab.:/x".utf8)
        var stagedLists = 0
        var listsStartingEverywhere = 0
        var checked = 0
        for _ in 0..<120 {
            let sources = (0..<(2 + next(10))).map { _ in
                prefixes[next(prefixes.count)] + (0..<(1 + next(4))).map { _ in atoms[next(atoms.count)] + quantifiers[next(quantifiers.count)] }.joined()
            }
            let patterns = sources.enumerated().compactMap { item -> (id: PatternID, filter: URLFilter)? in
                guard case .success(let filter) = URLFilterParser.parse(item.element), !filter.matchesEverything else { return nil }
                return (PatternID(item.offset), filter)
            }
            var timer = PhaseTimer()
            let limits = AutomataLimits(minimumPatternsPerStage: 2)
            let partition = DFAPartitioner.build(patterns, limits: limits, phaseTimer: &timer)
            guard partition.failures.isEmpty else { continue }
            let programs = ProgramSet(partition)
            if !programs.stages.isEmpty { stagedLists += 1 }
            if programs.stages.contains(where: { $0.prefix.reportsAtEveryPosition }) { listsStartingEverywhere += 1 }
            let whole = NFA(patterns: patterns)
            for _ in 0..<80 {
                let url = Array((next(3) == 0 ? "" : "http://").utf8) + (0..<next(12)).map { _ in alphabet[next(alphabet.count)] }
                var found = Set<UInt32>()
                var ends: [Int] = []
                _ = url.withUnsafeBufferPointer { programs.run($0, ends: &ends) { found.insert($0) } }
                #expect(found.sorted() == whole.matches(url).map(\.rawValue), "\(sources) on \(String(decoding: url, as: UTF8.self))")
                checked += 1
            }
        }
        #expect(stagedLists > 60, "most generated lists have a stage")
        #expect(listsStartingEverywhere > 20, "many have an empty prefix, whose places are counted, not run")
        #expect(checked > 8_000)
    }

    /// Programs with more states than a dense table numbers run from their code, beside programs
    /// that run from their tables (the image keeps code for those alone: each compact program's
    /// code, class map and reference row where its entry says), and the set kept only to run
    /// (`runOnly()`), which holds none of the programs as read, answers as the set does.
    @Test func programsLeftCompactRunBesideDenseOnesAndASetKeptToRunAnswersAlike() throws {
        var random = UInt64(5)
        func next(_ bound: Int) -> Int {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return Int((random >> 33) % UInt64(bound))
        }
        func word() -> String { String(decoding: (0..<14).map { _ in UInt8(0x61 + next(20)) }, as: UTF8.self) }
        var id = 0
        func program(_ sources: [String]) throws -> (program: Program, dfa: DFA) {
            let patterns = sources.map { source -> (id: PatternID, filter: URLFilter) in
                defer { id += 1 }
                guard case .success(let filter) = URLFilterParser.parse(source) else { preconditionFailure(source) }
                return (PatternID(id), filter)
            }
            let dfa = Minimizer.minimize(try SubsetConstruction.determinize(NFA(patterns: patterns)))
            return (Program(dfa), dfa)
        }
        // (Anchored and unanchored: the second large one is a search, with a reference row.)
        let (anchoredWords, searchedWords) = ((0..<6_000).map { _ in word() }, (0..<6_000).map { _ in word() })
        let parts = [
            try program(["^ab", "^a[bc]d"]), try program(anchoredWords.map { "^" + $0 }), try program(["ba+c", "cab"]),
            try program(searchedWords),
        ]
        #expect(parts.count { $0.program.stateCount > DenseTable.maximumStates } == 2)
        let set = ProgramSet(programs: parts.map(\.program))
        let runOnly = set.runOnly()
        #expect((1...2).contains(set.denseProgramCount) && runOnly.denseProgramCount == set.denseProgramCount, "the large ones run from their code")
        #expect(runOnly.allPrograms.isEmpty && !runOnly.isEmpty && runOnly == runOnly && runOnly != set.runOnly())
        let urls = ["abd", "acd", "zzcabaac", "ab"] + anchoredWords.prefix(20).map { $0 + "/x" } + anchoredWords.suffix(5)
            + searchedWords.prefix(20).map { "http://q" + $0 + "q" } + searchedWords.suffix(5).map { "ba" + $0.dropLast() }
        for url in urls {
            let bytes = Array(url.utf8)
            var (fromSet, fromRunOnly) = (Set<UInt32>(), Set<UInt32>())
            var ends: [Int] = []
            let (steps, stepsRunOnly) = bytes.withUnsafeBufferPointer { url in
                (set.run(url, ends: &ends) { fromSet.insert($0) }, runOnly.run(url, ends: &ends) { fromRunOnly.insert($0) })
            }
            #expect(fromSet.sorted() == parts.flatMap { $0.dfa.matches(bytes) }.map(\.rawValue).sorted(), "\(url)")
            #expect(fromRunOnly == fromSet && stepsRunOnly == steps, "\(url)")
        }
    }

    /// An image's entry is a line at most (it was 17 words: a run reads its entry's lines before
    /// its code or table), and says which form the program runs in.
    @Test func anImageEntryIsALine() {
        #expect(MemoryLayout<ProgramSet.Image.Entry>.stride <= 64)
        let program = ProgramSet.Image.Compact(
            codeStart: 7, codeEnd: 90, classStart: 128, reference: 3, referenceTransitions: 5, referenceRowStart: 40, nowhere: 0xFFFF,
            referenceRowCount: 12, width: 2)
        let compact = ProgramSet.Image.Entry(program)
        #expect(!compact.isDense && compact.dense == nil)
        let read = compact.compact
        #expect([read.codeStart, read.codeEnd, read.classStart, read.reference, read.referenceTransitions, read.referenceRowStart] == [7, 90, 128, 3, 5, 40])
        #expect(read.nowhere == 0xFFFF && read.referenceRowCount == 12 && read.width == 2)
        let table = ProgramSet.Image.Entry(ProgramSet.Image.Dense(
            start: 64, shift: 5, startState: 2, loopStart: 9, reportStart: 11, acceptStartStart: 4, columnStart: 256))
        let dense = table.dense
        #expect(table.isDense && dense != nil)
        if let dense {
            #expect([dense.start, dense.shift, dense.startState, dense.loopStart, dense.reportStart, dense.acceptStartStart, dense.columnStart]
                == [64, 5, 2, 9, 11, 4, 256])
        }
    }

    /// Unanchored patterns with a loop inside become suffixes of the empty prefix, whose places
    /// (every position, up to the end or the first byte from 128 on) are counted, not run: the
    /// first and the last places count, and a byte from 128 on ends them.
    @Test func theEmptyPrefixStartsSuffixesEverywhere() throws {
        let sources = ["a+b", "b[^/]*c", "c.*\\0", "x/*a"]
        let patterns = sources.enumerated().map { item -> (id: PatternID, filter: URLFilter) in
            guard case .success(let filter) = URLFilterParser.parse(item.element) else { fatalError(item.element) }
            return (PatternID(item.offset), filter)
        }
        var timer = PhaseTimer()
        let programs = ProgramSet(DFAPartitioner.build(patterns, limits: AutomataLimits(minimumPatternsPerStage: 2), phaseTimer: &timer))
        #expect(programs.programs.isEmpty && programs.stages.count == 1)
        #expect(programs.stages.allSatisfy { $0.prefix.reportsAtEveryPosition })
        let whole = NFA(patterns: patterns)
        for url in ["ab", "zab", "bc", "xbc", "c", "zc", "zzc", "x", "xa", "bxc\u{80}c", "a\u{80}b", "\u{80}ab", "b/c", "xx//a"] {
            let bytes = Array(url.utf8)
            var found = Set<UInt32>()
            var ends: [Int] = []
            _ = bytes.withUnsafeBufferPointer { programs.run($0, ends: &ends) { found.insert($0) } }
            #expect(found.sorted() == whole.matches(bytes).map(\.rawValue), "\(url)")
        }
    }

    /// A stage with the domain shape's prefix reads its ends off the host labels as it goes
    /// (`HostLabelEnds`): the same places, in the same order, as the labels' definition lists
    /// them (`listedEnds` below), for hosts with and without labels, several slashes,
    /// a port, user info, upper-case letters and URLs whose prefix cannot match (no labels).
    @Test func hostLabelEndsAreTheListedEnds() {
        let urls = [
            "https://a.b.example.com/x.y", "http://example/", "https:///a..b./", "ws://x.y:8080/a.b", "https://u.v@h.i.j/",
            "https://A.B.C/", "https://a.b", "https://", "https:/a.b/", "noscheme.a.b", "https://.a./", "h://.", "h://a.b?c.d#e.f",
            // (Hosts and labels of eight bytes and more, dots just past the host's end.)
            "https://averyverylonglabel.anotherlonglabel.example-domain.com/path.with.dots/and.more.dots.here",
            "https://abcdefg.ijklmnop.qrstuvwx/abc.def.ghi.jkl", "https://abcdefghijklmnop/........", "https://abcdefgh.j/x",
            "https://abcdefghijklmno.x", "https://abcdefghijklmnop", "https://www.example.co.uk:443/a.b.c.d.e.f.g.h",
            "https://a.bc/d.efghijkl", "https://host.example.org/x.y.z/more/path",
        ]
        for url in urls {
            let bytes = Array(url.utf8)
            bytes.withUnsafeBufferPointer { url in
                var steps = 0
                let labels = DomainTable.hostLabels(url, steps: &steps)
                var listed: [Int] = []
                labels?.listedEnds(url, to: &listed)
                var told: [Int] = []
                var ends = HostLabelEnds(labels)
                while let end = ends.next(url) { told.append(end) }
                #expect(told == listed, "\(String(decoding: url, as: UTF8.self))")
            }
        }
    }
}

extension DomainTable.HostLabels {
    /// The places where the domain shape's prefix ends, listed as `HostLabels` defines them: after
    /// each `/` from the second on (`slashesEnd ... start`), then after each `.` of the host but
    /// its first byte.
    func listedEnds(_ url: UnsafeBufferPointer<UInt8>, to ends: inout [Int]) {
        for place in slashesEnd...start { ends.append(place) }
        var at = start + 1
        while at < end {
            if url[at] == UInt8(ascii: ".") { ends.append(at + 1) }
            at += 1
        }
    }
}
