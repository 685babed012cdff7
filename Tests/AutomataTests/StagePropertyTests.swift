// StagePropertyTests.swift — AutomataTests
//
// Each stage of the automata pipeline against the one before it and against PCRE2, on generated
// sets of url-filters of the subset (Fuzzing's PatternGenerator: every spelling of a character,
// classes, groups of every kind, brace and lazy quantifiers, anchors, end-of-URL markers, case
// sensitivity) sharing one automaton, and subjects walked from them (SubjectGenerator, biased to
// match): the Thompson NFA run by simulation (NFASimulation.swift), the subset construction's DFA
// (by suffix links where the NFA is a trie, and by the general construction), and the minimal DFA
// (Minimizer.swift, both methods) each report exactly the patterns whose PCRE2 translation
// (PCRE2Oracle) matches the subject. The minimal DFA is also checked to be minimal, by a
// refinement written apart from the minimizer, and one per set whatever the patterns' order.
//
// Fixed seeds: the same cases every run; a failure names the patterns and the subject.

import Testing
@testable import Automata
import Fuzzing
import PCRE2Oracle
import URLFilterSyntax

/// A generated set of patterns that one automaton holds, the oracle of each, and subjects.
private struct GeneratedSet {
    var patterns: [(id: PatternID, filter: URLFilter)] = []
    var oracles: [PatternOracle] = []
    var subjects: [[UInt8]] = []

    /// The patterns whose PCRE2 translation matches `subject`, in increasing order.
    func expected(_ subject: [UInt8]) throws -> [PatternID] {
        try zip(patterns, oracles).filter { try $0.1.matches(subject) }.map(\.0.id)
    }

    func describe(_ subject: [UInt8]) -> String {
        patterns.map { "\($0.filter.source)\($0.filter.isCaseSensitive ? " (case-sensitive)" : "")" }.joined(separator: ", ")
            + " on " + String(decoding: subject, as: UTF8.self).debugDescription
    }
}

/// `count` sets of 1 to 4 patterns under `seed` (patterns that match everything, which no
/// automaton holds, left out), with 6 subjects per pattern.
private func generatedSets(seed: UInt64, count: Int) throws -> [GeneratedSet] {
    let patterns = PatternGenerator()
    let subjects = SubjectGenerator()
    var random = FuzzRandom(seed: seed)
    var sets: [GeneratedSet] = []
    while sets.count < count {
        var set = GeneratedSet()
        for _ in 0..<random.int(1...4) {
            let generated = patterns.valid(&random)
            let filter = try URLFilterParser.parse(generated.source, isCaseSensitive: generated.caseSensitive).get()
            guard !filter.matchesEverything else { continue }
            set.patterns.append((PatternID(UInt32(set.patterns.count)), filter))
            set.oracles.append(try PatternOracle(source: generated.source, caseSensitive: generated.caseSensitive))
            set.subjects += subjects.subjects(for: generated, count: 6, &random)
        }
        if !set.patterns.isEmpty { sets.append(set) }
    }
    return sets
}

/// The fuzzer's limits: a set whose DFA would need more states ends in the typed error at once.
private let limits = AutomataLimits(maximumDFAStates: 20_000, maximumTransitionTableEntries: 2_000_000, maximumSubsetEntries: 2_000_000)

/// Counts of a run, to check that the cases exercise what they should.
private struct Tally {
    var sets = 0
    var checks = 0
    var matches = 0
    var limited = 0
}

@Suite struct StagePropertyTests {
    @Test func theNFAMatchesLikePCRE2() throws {
        var tally = Tally()
        for set in try generatedSets(seed: 56_001, count: 300) {
            let nfa = NFA(patterns: set.patterns)
            tally.sets += 1
            for subject in set.subjects {
                let expected = try set.expected(subject)
                #expect(nfa.matches(subject) == expected, "\(set.describe(subject))")
                tally.checks += 1
                tally.matches += expected.isEmpty ? 0 : 1
            }
        }
        #expect(tally.checks > 3_000 && tally.matches > tally.checks / 4 && tally.matches < tally.checks * 3 / 4)
    }

    @Test func theSubsetConstructionMatchesLikeTheNFAAndPCRE2() throws {
        var tally = Tally()
        var tries = 0
        for set in try generatedSets(seed: 56_002, count: 300) {
            let nfa = NFA(patterns: set.patterns)
            let dfa: DFA
            let general: DFA
            do {
                dfa = try SubsetConstruction.determinize(nfa, limits: limits)
                general = try SubsetConstruction.determinize(nfa, limits: limits, readingTries: false)
            } catch {
                tally.limited += 1
                continue
            }
            tally.sets += 1
            if isTrie(nfa) { tries += 1 }
            #expect(dfa == general, "the suffix links' DFA is the general construction's: \(set.describe([]))")
            for subject in set.subjects {
                let expected = try set.expected(subject)
                #expect(dfa.matches(subject) == expected, "\(set.describe(subject))")
                #expect(dfa.matches(subject) == nfa.matches(subject), "\(set.describe(subject))")
                tally.checks += 1
            }
        }
        #expect(tally.sets > 280 && tally.checks > 3_000)
        #expect(tries > 5, "some sets are unanchored tries")
    }

    @Test func theMinimalDFAMatchesLikeTheSubsetConstructionAndPCRE2() throws {
        var tally = Tally()
        var merged = 0
        var cyclic = 0
        for set in try generatedSets(seed: 56_003, count: 300) {
            let dfa: DFA
            do {
                dfa = try SubsetConstruction.determinize(NFA(patterns: set.patterns), limits: limits)
            } catch {
                tally.limited += 1
                continue
            }
            tally.sets += 1
            let minimal = Minimizer.minimize(dfa)
            #expect(minimal.stateCount <= dfa.stateCount)
            if minimal.stateCount < dfa.stateCount { merged += 1 }
            if Minimizer.acyclicClasses(dfa) == nil { cyclic += 1 }
            #expect(Minimizer.minimizeByRefinement(dfa) == minimal, "both methods: \(set.describe([]))")
            #expect(Minimizer.minimize(minimal) == minimal, "a minimal DFA is its own: \(set.describe([]))")
            for subject in set.subjects {
                let expected = try set.expected(subject)
                #expect(minimal.matches(subject) == expected, "\(set.describe(subject))")
                #expect(minimal.matches(subject) == dfa.matches(subject), "\(set.describe(subject))")
                tally.checks += 1
            }
        }
        #expect(tally.sets > 280 && tally.checks > 3_000)
        #expect(merged > 50 && cyclic > 50, "the cases merge states, and take both methods")
    }

    /// The minimal DFA is one per language: no two of its states are equivalent (by Moore's
    /// refinement, written here apart from the minimizer), it has as many states as the subset
    /// construction's DFA has classes of equivalent states, and the same set in reverse order
    /// gives the same minimal DFA, numbered alike.
    @Test func theMinimalDFAIsMinimalAndOnePerLanguage() throws {
        var compared = 0
        var merged = 0
        for set in try generatedSets(seed: 56_004, count: 200) {
            let dfa: DFA
            let reversed: DFA
            do {
                dfa = try SubsetConstruction.determinize(NFA(patterns: set.patterns), limits: limits)
                reversed = try SubsetConstruction.determinize(NFA(patterns: set.patterns.reversed()), limits: limits)
            } catch {
                continue
            }
            let minimal = Minimizer.minimize(dfa)
            #expect(equivalenceClassCount(minimal) == minimal.stateCount, "a minimal DFA's states are all apart: \(set.describe([]))")
            #expect(equivalenceClassCount(dfa) == minimal.stateCount, "\(set.describe([]))")
            #expect(Minimizer.minimize(reversed) == minimal, "reversed: \(set.describe([]))")
            if minimal.stateCount < dfa.stateCount { merged += 1 }
            compared += 1
        }
        #expect(compared > 180 && merged > 40)
    }
}

/// The classes of equivalent states of `dfa` by Moore's refinement: states start apart by the
/// patterns they report, and are split by the classes their transitions lead to (or nowhere),
/// until no class splits.
private func equivalenceClassCount(_ dfa: DFA) -> Int {
    var classOf = [Int](repeating: 0, count: dfa.stateCount)
    var numbers: [[PatternID]: Int] = [:]
    for state in 0..<dfa.stateCount {
        let accepts = Array(Set(dfa.accepted(by: DFAStateID(UInt32(state))))).sorted()
        classOf[state] = numbers[accepts] ?? numbers.count
        numbers[accepts] = classOf[state]
    }
    var count = numbers.count
    while true {
        var signatures: [[Int]: Int] = [:]
        var next = classOf
        for state in 0..<dfa.stateCount {
            let signature = [classOf[state]] + (0..<dfa.classCount).map { byteClass in
                let target = dfa.next(DFAStateID(UInt32(state)), ByteClassID(UInt8(byteClass)))
                return target.isDead ? -1 : classOf[Int(target.rawValue)]
            }
            next[state] = signatures[signature] ?? signatures.count
            signatures[signature] = next[state]
        }
        classOf = next
        if signatures.count == count { return count }
        count = signatures.count
    }
}

/// Whether the suffix-link construction takes `nfa`.
private func isTrie(_ nfa: NFA) -> Bool {
    let construction = Construction(nfa: nfa, limits: .default)
    defer { construction.deallocate() }
    return construction.isUnanchoredTrie()
}
