// AutomataTests.swift — AutomataTests
//
// The subset construction and the minimizer against a direct NFA simulation, on generated
// patterns and URLs; the minimizer's two methods against each other; golden dumps; the typed
// limit error.

import Testing
@testable import Automata
import URLFilterSyntax
import TestSupport

private func filter(_ pattern: String, caseSensitive: Bool = false) -> URLFilter {
    try! URLFilterParser.parse(pattern, isCaseSensitive: caseSensitive).get()
}

private func patterns(_ sources: [String]) -> [(id: PatternID, filter: URLFilter)] {
    sources.enumerated().map { (PatternID($0.offset), filter($0.element)) }
}

@Suite struct AutomataTests {
    @Test func goldenDumpOfASmallList() throws {
        let nfa = NFA(patterns: patterns(["^ab", "a[b-c]+$"]))
        let dfa = Minimizer.minimize(try SubsetConstruction.determinize(nfa))
        #expect(dfa.dump() == """
            dfa: 7 states, 5 byte classes, 2 accepts
              c0 = [\\x00]
              c1 = [\\x01-@D-`d-\\x7F]
              c2 = [Aa]
              c3 = [Bb]
              c4 = [Cc]
            d0: c1,c3,c4 -> d1, c2 -> d2
            d1: c1,c3,c4 -> d1, c2 -> d3
            d2: c1 -> d1, c2 -> d3, c3 -> d4, c4 -> d5
            d3: c1 -> d1, c2 -> d3, c3,c4 -> d5
            d4: accept p0, c0 -> d6, c1 -> d1, c2 -> d3, c3,c4 -> d5
            d5: c0 -> d6, c1 -> d1, c2 -> d3, c3,c4 -> d5
            d6: accept p1

            """)
    }

    @Test(arguments: [
        (["a"], "xay", [0]), (["^a"], "xay", []), (["^a"], "ay", [0]), (["a$"], "xa", [0]), (["a$"], "xay", []),
        (["a.b"], "a\u{7F}b", [0]), (["a[^x]"], "a", []), (["a\\0"], "xa", [0]), (["ab*c"], "ac", [0]),
        (["(ab)+c"], "ababc", [0]), (["(ab)+c"], "abac", []), (["a", "a"], "a", [0, 1]), (["B"], "b", [0]),
        (["x(a?)*y"], "xy", [0]), (["^(a*)*$"], "", []), (["^a?$"], "", []), (["^(ab)?c$"], "c", [0]),
    ])
    func matchesLikeTheNFA(sources: [String], url: String, expected: [Int]) throws {
        let nfa = NFA(patterns: patterns(sources))
        let dfa = try SubsetConstruction.determinize(nfa)
        let expectedIDs = expected.map(PatternID.init)
        let bytes = Array(url.utf8)
        #expect(nfa.matches(bytes) == expectedIDs.filter { !filter(sources[Int($0.rawValue)]).matchesEverything })
        #expect(dfa.matches(bytes) == nfa.matches(bytes))
        #expect(Minimizer.minimize(dfa).matches(bytes) == nfa.matches(bytes))
    }

    /// Thompson's construction walks groups with a stack of its own: 60,000 nested groups build
    /// the automaton of the flat pattern they amount to.
    @Test func deeplyNestedGroupsBuildLikeTheirFlatPattern() throws {
        let depth = 60_000
        let nested = "x" + String(repeating: "(", count: depth) + "ab" + String(repeating: ")", count: depth) + "(c(d)+)?e$"
        let deep = Minimizer.minimize(try SubsetConstruction.determinize(NFA(patterns: patterns([nested]))))
        let flat = Minimizer.minimize(try SubsetConstruction.determinize(NFA(patterns: patterns(["xab(c(d)+)?e$"]))))
        #expect(deep.dump() == flat.dump())
        for url in ["xab", "xabe", "xabcde", "xabcdddde", "xabce", "-xabe"] {
            #expect(deep.matches(Array(url.utf8)) == flat.matches(Array(url.utf8)))
        }
    }

    @Test func dfaAgreesWithNFASimulationOnGeneratedInput() throws {
        var random = SplitMix64(seed: 42)
        var checked = 0
        for _ in 0..<300 {
            let sources = (0..<Int(random.next() % 6) + 1).map { _ in randomPattern(&random) }
            let list = sources.enumerated().compactMap { item -> (id: PatternID, filter: URLFilter)? in
                guard case .success(let parsed) = URLFilterParser.parse(item.element, isCaseSensitive: random.next() % 2 == 0) else { return nil }
                return (PatternID(item.offset), parsed)
            }
            let nfa = NFA(patterns: list)
            let dfa = try SubsetConstruction.determinize(nfa)
            let minimal = Minimizer.minimize(dfa)
            #expect(minimal.stateCount <= dfa.stateCount)
            for _ in 0..<60 {
                let url = randomURL(&random)
                let expected = nfa.matches(url)
                #expect(dfa.matches(url) == expected, "\(sources) on \(String(decoding: url, as: UTF8.self))")
                #expect(minimal.matches(url) == expected, "\(sources) on \(String(decoding: url, as: UTF8.self))")
                checked += 1
            }
        }
        #expect(checked == 18_000)
    }

    @Test func minimizationMergesEquivalentStates() throws {
        // Two spellings of one language under one pattern id collapse to the same minimal DFA.
        let one = Minimizer.minimize(try SubsetConstruction.determinize(NFA(patterns: [(PatternID(0), filter("^a+b"))])))
        let other = Minimizer.minimize(try SubsetConstruction.determinize(NFA(patterns: [(PatternID(0), filter("^aa*b"))])))
        #expect(one == other)
    }

    @Test func acyclicMinimizationFindsTheRefinementsPartition() throws {
        // Anchored patterns without loops give DFAs without cycles (the one-pass method); ids
        // shared between patterns make states merge. Both methods must give the same DFA, and on
        // a DFA with a cycle the one-pass method must decline.
        var random = SplitMix64(seed: 7)
        var acyclic = 0
        var merged = 0
        for _ in 0..<400 {
            let list = (0..<Int(random.next() % 6) + 1).compactMap { _ -> (id: PatternID, filter: URLFilter)? in
                var source = "^" + randomPattern(&random).filter { $0 != "*" && $0 != "+" && $0 != "^" }
                if source.hasSuffix("\\") { source.removeLast() }
                guard case .success(let parsed) = URLFilterParser.parse(source, isCaseSensitive: false) else { return nil }
                return (PatternID(UInt32(random.next() % 3)), parsed)
            }
            let dfa = try SubsetConstruction.determinize(NFA(patterns: list))
            guard let classes = Minimizer.acyclicClasses(dfa) else {
                Issue.record("a DFA of loop-free anchored patterns has a cycle: \(list.map(\.filter.source))")
                continue
            }
            acyclic += 1
            if classes.count < dfa.stateCount { merged += 1 }
            #expect(Minimizer.minimize(dfa) == Minimizer.minimizeByRefinement(dfa), "\(list.map(\.filter.source))")
        }
        #expect(acyclic == 400)
        #expect(merged > 20)
        let suffixes = try SubsetConstruction.determinize(NFA(patterns: [(PatternID(0), filter("^xab")), (PatternID(0), filter("^yab"))]))
        // Start, x and y's state, a's, the accepting one.
        #expect(suffixes.stateCount == 7 && Minimizer.minimize(suffixes).stateCount == 4)
        let loop = try SubsetConstruction.determinize(NFA(patterns: patterns(["^a+b", "^x"])))
        #expect(Minimizer.acyclicClasses(loop) == nil)
    }

    @Test func explodingPatternEndsInTheTypedLimitError() {
        // (.*a.{n}) needs 2^n states: the construction must stop at the limit, quickly.
        let exploding = filter(".*a" + String(repeating: ".", count: 40) + "b")
        let limits = AutomataLimits(maximumDFAStates: 20_000)
        #expect(throws: AutomataError.tooManyStates(limit: 20_000, reached: 20_001, patterns: [PatternID(7)])) {
            try SubsetConstruction.determinize(NFA(patterns: [(PatternID(7), exploding)]), limits: limits)
        }
    }

    @Test func partitionerSplitsAndReportsTheOneTooBigPattern() {
        let exploding = ".*a" + String(repeating: ".", count: 30) + "b"
        var timer = PhaseTimer()
        let result = DFAPartitioner.build(
            patterns(["abc", exploding, "^x", "y.*z", "q$"]), limits: AutomataLimits(maximumDFAStates: 5_000), phaseTimer: &timer)
        #expect(result.failures.map(\.patterns) == [[PatternID(1)]])
        // `y.*z` has a loop inside: like the exploding pattern, a gated group's (GatePlanner.swift).
        #expect(result.gated?.groups.count == 2)
        let gated = result.gated?.groups.flatMap { $0 } ?? []
        // (Patterns 5 and 6 are the groups' gates, reported by the whole DFAs.)
        #expect(result.gated?.gateBase == 5)
        let covered = (result.dfas + result.stages.flatMap(\.suffixes) + gated).flatMap { dfa in dfa.acceptedPatterns }.filter { $0.rawValue < 5 }
        #expect(Set(covered) == [PatternID(0), PatternID(2), PatternID(3), PatternID(4)])
    }

    @Test func aStagePrefixTooBigAloneLeavesItsPatternsToBeBuiltWhole() {
        // `[ab]*a[ab]{8}` needs 2^9 states: the shared prefix outgrows a 100-state limit, so its
        // patterns are built whole, where each one fails alone with the typed error.
        let prefix = "^[ab]*a" + String(repeating: "[ab]", count: 8) + "x+"
        let list = patterns([prefix + "1", prefix + "2", "^yz"])
        #expect(StagePlanner.plan(list, minimumPatternsPerStage: 2).stages.map(\.prefix.source) == [prefix], "a stage is planned")
        var timer = PhaseTimer()
        let result = DFAPartitioner.build(
            list,
            limits: AutomataLimits(maximumDFAStates: 100, minimumPatternsPerStage: 2), phaseTimer: &timer)
        #expect(result.stages.isEmpty)
        #expect(result.failures.map(\.patterns) == [[PatternID(0)], [PatternID(1)]])
        #expect(result.dfas.flatMap(\.acceptedPatterns) == [PatternID(2)])
    }

    /// The partitioner does not minimize the DFAs of unanchored patterns without loops (an
    /// Aho-Corasick automaton). Of literals (both cases or one) the subset construction makes it
    /// minimal; with classes, `.` and optional terms a few states may agree: measured here, a
    /// handful in 400 generated sets. The partitioner's DFA of such patterns is the subset
    /// construction's.
    @Test func ahoCorasickAutomataAreMinimalOrNearlyAsBuilt() throws {
        for (atoms, most) in [(["a", "b", "c", "A", "\\."], 0), (["a", "b", "c", "A", ".", "[ab]", "[^a]", "\\.", "b?"], 10)] {
            var random = SplitMix64(seed: 11)
            var merged = 0
            for _ in 0..<400 {
                let sources = (0..<Int(random.next() % 12) + 1).map { _ in
                    (0..<Int(random.next() % 5) + 1).map { _ in atoms[Int(random.next() % UInt64(atoms.count))] }.joined()
                }
                let caseSensitive = random.next() % 3 == 0
                let group = sources.enumerated().compactMap { item -> (id: PatternID, filter: URLFilter)? in
                    let parsed = filter(item.element, caseSensitive: caseSensitive)
                    return parsed.matchesEverything ? nil : (PatternID(item.offset), parsed)
                }
                guard !group.isEmpty else { continue }
                let dfa = try SubsetConstruction.determinize(NFA(patterns: group))
                merged += dfa.stateCount - Minimizer.minimize(dfa).stateCount
                var timer = PhaseTimer()
                let built = DFAPartitioner.build(group, phaseTimer: &timer)
                #expect(built.dfas.count == 1 && built.states == dfa.stateCount)
            }
            #expect(merged <= most, "\(atoms)")
        }
    }

    @Test func byteClassesAreTheCoarsestRefinement() {
        let classes = ByteClasses(refining: [ASCIISet(Array("abc".utf8)), ASCIISet(Array("c".utf8))])
        #expect(classes.count == 3)
        #expect(classes.classOfByte[Int(UInt8(ascii: "a"))] == classes.classOfByte[Int(UInt8(ascii: "b"))])
        #expect(classes.classOfByte[Int(UInt8(ascii: "a"))] != classes.classOfByte[Int(UInt8(ascii: "c"))])
        #expect(classes.classOfByte[0] == classes.classOfByte[Int(UInt8(ascii: "z"))])
    }

    /// The refinement (which reads only each set's members) against the definition: two bytes
    /// share a class when every set holds both or neither, classes numbered by their smallest
    /// byte, whatever the order of the sets.
    @Test func byteClassesAreTheBytesInTheSameSets() {
        var random = SplitMix64(seed: 57)
        for _ in 0..<300 {
            let sets = (0..<Int(random.next() % 40)).map { _ -> ASCIISet in
                var set = ASCIISet()
                switch random.next() % 4 {
                case 0:
                    set.insert(UInt8(random.next() % 128))
                case 1:
                    let low = UInt8(random.next() % 128)
                    set.insert(low...min(127, low + UInt8(random.next() % 30)))
                case 2:
                    let bits = random.next() & random.next() | 1 << (random.next() % 64)
                    set = ASCIISet((0..<128).filter { bits >> ($0 % 64) & 1 == 1 }.map(UInt8.init))
                default:
                    set = ASCIISet([UInt8(random.next() % 128)]).complementWithinAnyCharacter
                }
                return set
            }
            func signature(_ byte: Int) -> [Bool] { sets.map { $0.contains(UInt8(byte)) } }
            var number: [[Bool]: UInt8] = [:]
            let expected = (0..<128).map { byte in
                let key = signature(byte)
                if let known = number[key] { return known }
                number[key] = UInt8(number.count)
                return UInt8(number.count - 1)
            }
            #expect(ByteClasses(refining: sets).classOfByte == expected)
            #expect(ByteClasses(refining: sets.reversed()).classOfByte == expected)
            #expect(ByteClasses(refining: sets).count == number.count)
        }
    }

    /// Bytes singled out first (the construction's single characters) against each as a set of
    /// its own, through the general refinement; every byte singled out included.
    @Test func singledBytesAreSetsOfOneByte() {
        var random = SplitMix64(seed: 58)
        for round in 0..<300 {
            let bits = (random.next(), random.next() & random.next())
            var singles = round == 0 ? ASCIISet(0...127) : ASCIISet((0..<128).filter { ($0 < 64 ? bits.0 >> $0 : bits.1 >> ($0 - 64)) & 1 == 1 }.map(UInt8.init))
            if round == 1 { singles = ASCIISet() }
            let sets = (0..<Int(random.next() % 6)).map { _ in
                let low = UInt8(random.next() % 128)
                return ASCIISet(low...min(127, low + UInt8(random.next() % 40)))
            }
            let general = ByteClasses(refining: singles.members.map { ASCIISet($0) } + sets)
            let singled = ByteClasses(singling: singles, refining: sets)
            #expect(singled == general, "\(singles) \(sets)")
        }
    }
}

/// Patterns from the subset's grammar over a small alphabet, with some text outside it.
func randomPattern(_ random: inout SplitMix64) -> String {
    let atoms = ["a", "b", "c", "A", ".", "[ab]", "[^a]", "[a-c]", "\\.", "\\0"]
    let quantifiers = ["", "", "", "?", "*", "+"]
    func term(_ depth: Int) -> String {
        if depth < 2 && random.next() % 5 == 0 {
            let inner = (0..<Int(random.next() % 3) + 1).map { _ in term(depth + 1) }.joined()
            return "(" + inner + ")" + quantifiers[Int(random.next() % UInt64(quantifiers.count))]
        }
        return atoms[Int(random.next() % UInt64(atoms.count))] + quantifiers[Int(random.next() % UInt64(quantifiers.count))]
    }
    var pattern = (0..<Int(random.next() % 4) + 1).map { _ in term(0) }.joined()
    if random.next() % 4 == 0 { pattern = "^" + pattern }
    if random.next() % 4 == 0 { pattern += "$" }
    return pattern
}

func randomURL(_ random: inout SplitMix64) -> [UInt8] {
    let alphabet = Array("abcAB.x".utf8)
    return (0..<Int(random.next() % 8)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
}
