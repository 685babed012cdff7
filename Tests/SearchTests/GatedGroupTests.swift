// GatedGroupTests.swift — which run of a pattern becomes its gate, how the planner groups loopy
// patterns by gate, and that a program set with gated groups answers like the NFA of the same
// patterns, before and after a file's round trip.

import Testing
@testable import Automata
import Bytecode
import Search
import URLFilterSyntax

private func filter(_ source: String, caseSensitive: Bool = false) -> URLFilter {
    try! URLFilterParser.parse(source, isCaseSensitive: caseSensitive).get()
}

private func gate(_ source: String) -> String? { GatePlanner.gate(of: filter(source))?.source }

/// A file whose url programs are `set`, with a blocking rule per pattern.
private func compiledFile(urlPrograms set: ProgramSet, patternCount: Int) -> CompiledFile {
    CompiledFile(
        urlPrograms: set, topURLPrograms: ProgramSet(programs: []), framePrograms: ProgramSet(programs: []),
        urlPatternCount: patternCount, topPatternCount: 0, framePatternCount: 0,
        patternRuleStart: Array(0...patternCount).map(UInt32.init), patternRules: (0..<patternCount).map(UInt32.init),
        universalRules: [],
        rules: (0..<patternCount).map {
            RuleRecord(
                ruleIndex: UInt32($0), resourceTypes: 0, loadTypes: 0, loadContexts: 0, method: 0, condition: .none, role: .listed,
                actionLocation: 0, conditionStart: 0, conditionCount: 0)
        }, conditions: [], actions: [.block])
}

@Suite struct GatedGroupTests {
    @Test func theGateIsTheBestRunOfSingleCharacters() {
        #expect(gate(":\\/\\/analytics\\..*\\/collect") == ":\\/\\/analytics\\.")
        #expect(gate("\\/b\\/.*\\/ezoic\\/") == "\\/ezoic\\/", "a later run scoring more")
        #expect(gate("\\/x.*\\/banner[0-9]+\\.gif") == "\\/banner", "a quantified term ends a run")
        #expect(gate("\\/x.*\\/open[/:&?]") == "\\/open[/:&?]", "a class without a quantifier is in the run")
        #expect(gate("\\/a(ds)?\\/.*\\.js") == "\\.js", "a group ends a run (`\\/a` scores 1.25)")
        #expect(gate("\\/a(ds)?\\/.*\\.j") == nil)
        #expect(gate("\\/&.*$") == nil, "punctuation scores a quarter or a half")
        #expect(gate("a.b.*cd") == "cd", "`.` ends a run")
        #expect(GatePlanner.gate(of: filter("ABC.*x", caseSensitive: true)).map { ($0.source, $0.isCaseSensitive) }! == ("ABC", true))
        #expect(GatePlanner.gate(of: filter("abc.*x"))?.hasStartAnchor == false)
    }

    @Test func aDomainGroupHoldsItsPatternsPartsAfterTheDomain() {
        let sources = [
            #"^[^:]+:\/\/+([^:\/]+\.)?ads\.test[/:].*\/ga\.js"#, #"^[^:]+:\/\/+([^:\/]+\.)?ads\.test\/x.*y$"#,
            #"^[^:]+:\/\/+([^:\/]+\.)?yandex\..*\/clck\/"#,
        ]
        // The part after D: from the `[/:]` character on, anchored, the end anchor kept.
        let after = sources.map { HostPattern.afterDomainGate(of: filter($0)) }
        #expect(after.map { $0?.source } == [#"^[/:].*\/ga\.js"#, #"^\/x.*y$"#, nil], "`yandex.` need not end the host")
        #expect(after[0]?.hasStartAnchor == true && after[0]?.hasEndAnchor == false && after[1]?.hasEndAnchor == true)
        #expect(after[0]?.terms == Array(filter(sources[0]).terms[(HostPattern.prefixTerms.count + "ads.test".count)...]))
        var patterns = sources.enumerated().map { (id: PatternID($0.offset), filter: filter($0.element)) }
        let (groups, ungated) = GatePlanner.groupByDomain([0, 1, 2], of: &patterns)
        #expect(ungated == [2] && groups.count == 1 && groups[0].domain == Array("ads.test".utf8))
        #expect(groups[0].patterns.map(\.id) == [PatternID(0), PatternID(1)])
        #expect(groups[0].patterns.map(\.filter) == [after[0]!, after[1]!], "the group runs from the host's end")
        // `yandex.` begins the terms after the host prefix: it runs from where it begins a host
        // label. A gate that begins with `/` might begin inside the slashes: from the URL's start.
        var loopy = [#"^[^:]+:\/\/+([^:\/]+\.)?yandex\..*\/clck\/"#, #"^[^:]+:\/\/+([^:\/]+\.)?\/adsbox.*x"#]
            .enumerated().map { (id: PatternID($0.offset), filter: filter($0.element)) }
        let (byRun, _) = GatePlanner.group([0, 1], of: &loopy, minimumPatternsPerStage: 0, gatesApart: true)
        #expect(byRun.map(\.runsFrom) == [.hostLabelGate(length: "yandex.".count), .urlStart])
        #expect(byRun.map { $0.patterns[0].filter.source } == [#"^yandex\..*\/clck\/"#, #"^[^:]+:\/\/+([^:\/]+\.)?\/adsbox.*x"#])
    }

    @Test func loopyUnanchoredPatternsAreGroupedByGate() {
        let sources = [
            "\\/ezoic\\/.*\\.js", "\\/ezoic\\/.*\\.css", "\\/EZOIC\\/.*x", "\\/&.*$", "^https?:\\/\\/.*\\/ads\\/", "track.*pixel",
            "ads\\.", "\\/&.*[/:]",
        ]
        let patterns = sources.enumerated().map { (id: PatternID($0.offset), filter: filter($0.element)) }
        // Two patterns have no gate scoring 2 (`\/&`), enough for a stage when a stage takes 2:
        // tried at every byte; with fewer than a stage needs, they are gated by their best run.
        // (With 2, the `\/ezoic\/.*` patterns are a stage of their own first.)
        // (The anchored one is gated first, by its run after its loop: `StagePlanner` gates the
        // anchored patterns built whole, `anchoredLoopyPatternsAreGatedWhenAllHaveAGate`.)
        let staged = StagePlanner.plan(patterns, minimumPatternsPerStage: 2)
        #expect(staged.stages.contains { $0.prefix.terms.isEmpty && $0.suffixes.map(\.id.rawValue) == [3, 7] })
        #expect(staged.gated.map(\.gate.source) == ["\\/ads\\/", "track"])
        // Case-insensitive `\/EZOIC\/` is the same gate as `\/ezoic\/` only by its text: its own group.
        let planned = StagePlanner.plan(patterns, minimumPatternsPerStage: 32)
        #expect(planned.gated.map(\.gate.source) == ["\\/ads\\/", "\\/ezoic\\/", "\\/EZOIC\\/", "\\/&", "track"])
        #expect(planned.gated.map { $0.patterns.map(\.id.rawValue) } == [[4], [0, 1], [2], [3, 7], [5]])
        // Those that begin with their gate run from where it begins, anchored; the anchored one
        // from the URL's start.
        #expect(planned.gated.map(\.runsFrom) == [.urlStart, .gate(length: 7), .gate(length: 7), .gate(length: 2), .gate(length: 5)])
        #expect(planned.gated[1].patterns.map(\.filter.source) == ["^\\/ezoic\\/.*\\.js", "^\\/ezoic\\/.*\\.css"])
        #expect(planned.gated[1].patterns.allSatisfy { $0.filter.hasStartAnchor })
        #expect(planned.stages.isEmpty)
        // The one without a loop is built whole.
        #expect(planned.whole.map(\.id.rawValue) == [6] && staged.whole.map(\.id.rawValue) == [6])
        let ungated = StagePlanner.plan(patterns, minimumPatternsPerStage: 32, gating: false)
        #expect(ungated.gated.isEmpty && ungated.stages.isEmpty && ungated.whole.count == 8)
    }

    @Test func anchoredLoopyPatternsAreGatedWhenAllHaveAGate() {
        // Their loops (`[^/:]+` along the host, `.*` to the URL's end) keep the anchored program
        // alive: each is gated by its best run after its first loop (not the scheme's `http`),
        // and the loop-free one stays, its program dying within a few bytes.
        let sources = [
            #"^https?:\/+([^\/:]+\.)?taboola(syndication)?\.com[:\/]"#, #"^https?:\/\/rcm-.*\.amazon\."#,
            #"^https?:\/\/bat\.bing\.com[:\/]"#, #"^https?:\/+([^\/:]+\.)?phonograph[0-9]*\.voxmedia\.com[:\/]"#,
        ]
        let patterns = sources.enumerated().map { (id: PatternID($0.offset), filter: filter($0.element)) }
        let planned = StagePlanner.plan(patterns, minimumPatternsPerStage: 32)
        #expect(planned.gated.map(\.gate.source) == ["taboola", #"\.amazon\."#, #"\.voxmedia\.com[:\/]"#])
        #expect(planned.gated.allSatisfy { $0.runsFrom == .urlStart && $0.patterns.allSatisfy(\.filter.hasStartAnchor) })
        #expect(planned.whole.map(\.id.rawValue) == [2])
        #expect(StagePlanner.plan(patterns, minimumPatternsPerStage: 32, gating: false).gated.isEmpty)
        // One without a gate after its loop (`:\/\/` and `\?` score less than 2) keeps the
        // anchored program alive anyway: none is gated.
        let ungated = (sources + [#"^http.*:\/\/.*\?"#]).enumerated().map { (id: PatternID($0.offset), filter: filter($0.element)) }
        let kept = StagePlanner.plan(ungated, minimumPatternsPerStage: 32)
        #expect(kept.gated.isEmpty && kept.whole.count == 5)
    }

    /// Patterns whose gates occur in many places, overlap one another and end at the URL's end.
    static let sources = [
        "\\/ezoic\\/.*\\.js", "\\/ezoic\\/.*\\.css$", "ads\\/.*\\/banner", "ADS\\/.*x", "\\/adsx.*ads", "abab.*b",
        "http.*:\\/\\/.*ads", "\\/adserver[0-9]*\\/", "xx[^/]*abab", "\\/&.*[/:]", "^https?:\\/\\/.*\\/ads\\/", "ads\\.",
        "q.*r", "ezoic.*[^a]", "banner.*\\0",
    ]

    static func urls() -> [[UInt8]] {
        let pieces = ["http", "://", "/", "ads", "ADS", "/", ".", "ezoic", "/ezoic/", ".js", ".css", "banner", "x", "abab", "ab",
                      "q", "r", "&", ":", "0", "9", "adsx", "server", "Ads"].map { Array($0.utf8) }
        var result: [[UInt8]] = [[], Array("/ezoic/".utf8), Array("/ezoic/.css".utf8), Array("ababab".utf8)]
        var random = UInt64(7)
        func next(_ bound: Int) -> Int {
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return Int((random >> 33) % UInt64(bound))
        }
        for _ in 0..<20_000 {
            var url: [UInt8] = next(3) == 0 ? [] : Array("https://".utf8)
            for _ in 0..<next(10) { url += pieces[next(pieces.count)] }
            result.append(url)
        }
        return result
    }

    @Test func anotherPrefixsFewWeakPatternsTakeTheirBestRun() {
        // Another converter's `||` prefix: its stage's prefix is a program run over every URL.
        // `\[::\]` scores 1.5, under a gate's 2; with fewer such patterns than a stage needs they
        // are gated by it rather than keep that run for themselves.
        let prefix = #"^[^:]+:(\/\/)?([^\/]+\.)?"#
        let sources = ["ads\\.test\\/.*x", "track\\.test\\/.*y", "pixel\\.test\\/.*z", #"\[::\]"#, #"\[::\].*q"#]
        let patterns = sources.enumerated().map { (id: PatternID($0.offset), filter: filter(prefix + $0.element)) }
        let planned = StagePlanner.plan(patterns, minimumPatternsPerStage: 4)
        #expect(planned.stages.isEmpty, "no prefix run for two patterns")
        #expect(planned.gated.map(\.gate.source) == ["ads\\.test\\/", "track\\.test\\/", "pixel\\.test\\/", #"\[::\]"#])
        #expect(planned.gated.last?.patterns.map(\.id.rawValue) == [3, 4])
        // As many weak ones as a stage needs keep their stage.
        let weak = ["", ":", "::", ":::"].enumerated().map { (id: PatternID(UInt32($0.offset)), filter: filter(prefix + #"\["# + $0.element + #"\]"#)) }
        let staged = StagePlanner.plan(weak, minimumPatternsPerStage: 4)
        #expect(staged.gated.isEmpty && staged.stages.count == 1 && staged.stages[0].suffixes.count == 4)
    }

    @Test func gatedGroupsAnswerLikeTheNFA() throws {
        let patterns = Self.sources.enumerated().map { (id: PatternID($0.offset), filter: filter($0.element)) }
        let nfa = NFA(patterns: patterns)
        var timer = PhaseTimer()
        let set = ProgramSet(DFAPartitioner.build(patterns, limits: AutomataLimits(minimumPatternsPerStage: 2), phaseTimer: &timer) {
            Program($0)
        })
        let gated = try #require(set.gated)
        #expect(gated.groups.count >= 6, "most of the loopy patterns have a gate")
        #expect(set.disassemble(name: "url").contains("url gated group 0 program 0"))
        // The same set through a file: written, validated, read.
        let read = try CompiledFile(validating: compiledFile(urlPrograms: set, patternCount: patterns.count).serialized())
        #expect(read.urlPrograms == set)
        var ends: [Int] = []
        // The same programs without the groups, to count the URLs where a group ran.
        let ungated = ProgramSet(programs: set.programs, stages: set.stages, domains: set.domains)
        var urlsRunningAGroup = 0
        let urls = Self.urls()
        for url in urls {
            let expected = nfa.matches(url).map(\.rawValue)
            for programs in [set, read.urlPrograms] {
                var found = Set<UInt32>()
                _ = url.withUnsafeBufferPointer { programs.run($0, ends: &ends) { found.insert($0) } }
                #expect(found.sorted() == expected, "url \(String(decoding: url, as: UTF8.self))")
            }
            let with = url.withUnsafeBufferPointer { set.run($0, ends: &ends) { _ in } }.runs
            let without = url.withUnsafeBufferPointer { ungated.run($0, ends: &ends) { _ in } }.runs
            if with > without { urlsRunningAGroup += 1 }
        }
        // Groups run in some URLs, not in all: their gates decide.
        #expect(urlsRunningAGroup > 0 && urlsRunningAGroup < urls.count)
    }

    @Test func groupsPastTheirMostAreTriedAtEveryByte() {
        // 4,100 loopy patterns with distinct gates: the first 4,096 are gated, the rest suffixes
        // of the empty prefix.
        let patterns = (0..<4_100).map { (id: PatternID(UInt32($0)), filter: filter("\\/q\($0)zz.*x")) }
        let planned = StagePlanner.plan(patterns, minimumPatternsPerStage: 2)
        #expect(planned.gated.count == 4_096 && planned.gated.allSatisfy { $0.patterns.count == 1 })
        #expect(planned.stages.count == 1 && planned.stages[0].prefix.terms.isEmpty)
        #expect(planned.stages.first?.suffixes.map(\.id.rawValue) == Array(4_096..<4_100))
    }

    @Test func aGateTooBigForTheLimitsIsReportedAsItsPattern() {
        // Under limits smaller than the gate's automaton, the failure names the pattern (id 1),
        // not the gate's number (2, after the set's patterns).
        let long = String(repeating: "abcdefgh", count: 8)
        let patterns = [(id: PatternID(0), filter: filter("^x")), (id: PatternID(1), filter: filter(long + ".*z"))]
        var timer = PhaseTimer()
        let built = DFAPartitioner.build(patterns, limits: AutomataLimits(maximumDFAStates: 40), phaseTimer: &timer)
        #expect(!built.failures.isEmpty && built.failures.allSatisfy { $0.patterns == [PatternID(1)] })
    }

    @Test func aGroupsStartIsWrittenReadAndChecked() throws {
        let whole = Program(Minimizer.minimize(try SubsetConstruction.determinize(NFA(patterns: [
            (id: PatternID(0), filter: filter("^x")), (id: PatternID(1), filter: filter("ads")), (id: PatternID(2), filter: filter("track")),
        ]))))
        let group = Program(Minimizer.minimize(try SubsetConstruction.determinize(NFA(patterns: [(id: PatternID(0), filter: filter("^ads.*x"))]))))
        let set = ProgramSet(
            programs: [whole], gated: ProgramSet.Gated(gateBase: 1, groups: [[group], [group]], starts: [.gate(length: 3), .hostLabelGate(length: 5)]))
        let bytes = compiledFile(urlPrograms: set, patternCount: 1).serialized()
        #expect(try CompiledFile(validating: bytes).urlPrograms.gated?.starts == [.gate(length: 3), .hostLabelGate(length: 5)])
        #expect(set.disassemble(name: "url").contains("from where the gate begins a host label"))
        // A start of no kind, or a gate of no length, is refused (the checksum made anew).
        let written: [UInt8] = [1, 0, 0, 0, 3, 0, 0, 0]
        let at = try #require((0...(bytes.count - 8)).first { Array(bytes[$0..<($0 + 8)]) == written })
        for (offset, value) in [(0, 3 as UInt8), (4, 0)] {
            var bad = bytes
            bad[at + offset] = value
            let checksum = CRC32.checksum(bad[32...])
            for index in 0..<4 { bad[24 + index] = UInt8(truncatingIfNeeded: checksum >> (8 * index)) }
            #expect {
                try CompiledFile(validating: bad)
            } throws: { error in
                guard case .malformed(_, let reason)? = error as? BytecodeError else { return false }
                return reason.contains("start")
            }
        }
    }

    @Test func aGateReportingAGroupThatIsNotThereIsRefused() throws {
        // A whole program reporting pattern 0 and the gates of groups 0 and 1 (patterns 1 and 2 of
        // a set of 1 pattern).
        let whole = Program(Minimizer.minimize(try SubsetConstruction.determinize(NFA(patterns: [
            (id: PatternID(0), filter: filter("^x")), (id: PatternID(1), filter: filter("ads")), (id: PatternID(2), filter: filter("track")),
        ]))))
        let group = Program(Minimizer.minimize(try SubsetConstruction.determinize(NFA(patterns: [(id: PatternID(0), filter: filter("ads.*x"))]))))
        func file(groups: [[Program]]) -> CompiledFile {
            compiledFile(urlPrograms: ProgramSet(programs: [whole], gated: ProgramSet.Gated(gateBase: 1, groups: groups)), patternCount: 1)
        }
        let read = try CompiledFile(validating: file(groups: [[group], []]).serialized())
        var ends: [Int] = []
        var found: [UInt32] = []
        _ = Array("https://ads.example/x".utf8).withUnsafeBufferPointer { read.urlPrograms.run($0, ends: &ends) { found.append($0) } }
        #expect(Set(found) == [0], "the gate of group 0 ran its program; no gate is reported as a pattern")
        #expect(throws: BytecodeError.self) { try CompiledFile(validating: file(groups: [[group]]).serialized()) }
    }
}
