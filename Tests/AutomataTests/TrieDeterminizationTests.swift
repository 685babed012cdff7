// TrieDeterminizationTests.swift — AutomataTests
//
// The suffix-link construction of unanchored tries (TrieDeterminization.swift) makes exactly the
// DFA the general subset construction makes, states numbered alike: on generated sets of
// loop-free unanchored patterns, on the shipped lists' such patterns together, and at the limits
// (the same typed error, the same counts). NFAs of another shape go to the general construction.

import Testing
@testable import Automata
import URLFilterSyntax
import TestSupport

private func parsed(_ sources: [String], caseSensitive: Bool = false) -> [(id: PatternID, filter: URLFilter)] {
    sources.enumerated().compactMap { item in
        guard case .success(let filter) = URLFilterParser.parse(item.element, isCaseSensitive: caseSensitive), !filter.matchesEverything else {
            return nil
        }
        return (PatternID(item.offset), filter)
    }
}

/// Whether the suffix-link construction takes `nfa`.
private func isTrie(_ nfa: NFA) -> Bool {
    let construction = Construction(nfa: nfa, limits: .default)
    defer { construction.deallocate() }
    return construction.isUnanchoredTrie()
}

private func bothConstructions(_ nfa: NFA, limits: AutomataLimits = .default) -> (trie: Result<DFA, AutomataError>, general: Result<DFA, AutomataError>) {
    (
        Result { () throws(AutomataError) in try SubsetConstruction.determinize(nfa, limits: limits, readingTries: true) },
        Result { () throws(AutomataError) in try SubsetConstruction.determinize(nfa, limits: limits, readingTries: false) }
    )
}

@Suite struct TrieDeterminizationTests {
    @Test func generatedTriesGiveTheGeneralConstructionsDFA() throws {
        // Literals, escaped dots, `.`, classes that overlap one another (several trie states
        // alive at one depth), NUL inside a pattern and at its end, shared and repeated texts.
        let atoms = ["a", "b", "c", "A", "\\.", "/", ".", "[ab]", "[^a]", "[a-c]", "\\0", "[/:]"]
        var random = SplitMix64(seed: 2026)
        var tries = 0
        for _ in 0..<500 {
            let sources = (0..<Int(random.next() % 14) + 1).map { _ in
                var source = (0..<Int(random.next() % 6) + 1).map { _ in atoms[Int(random.next() % UInt64(atoms.count))] }.joined()
                if random.next() % 5 == 0 { source += "$" }
                return source
            }
            let group = parsed(sources, caseSensitive: random.next() % 3 == 0)
            guard !group.isEmpty else { continue }
            let nfa = NFA(patterns: group)
            #expect(isTrie(nfa), "\(sources)")
            let (trie, general) = bothConstructions(nfa)
            #expect(try trie.get() == general.get(), "\(sources)")
            tries += 1
        }
        #expect(tries > 450)
    }

    @Test func otherShapesGoToTheGeneralConstruction() {
        for sources in [["a?b"], ["ab*c"], ["(ab)+c"], ["^ab", "cd"], ["x(ab)?y"]] {
            let group = parsed(sources)
            #expect(!isTrie(NFA(patterns: group)), "\(sources)")
        }
        // A stage's prefix reports every end of its matches: a loop, not a tree.
        #expect(!isTrie(NFA(prefix: try! URLFilterParser.parse("^[^:]+:\\/\\/+([^:/]+\\.)?").get(), reportingAs: PatternID(0))))
    }

    @Test func theShippedListsUnanchoredLoopFreePatternsGiveTheSameDFA() throws {
        // Each list's unanchored patterns of single terms, as the partitioner's largest group.
        let sources = try shippedPatterns().filter { pattern in
            guard case .success(let filter) = URLFilterParser.parse(pattern.source, isCaseSensitive: pattern.isCaseSensitive) else { return false }
            return !filter.hasStartAnchor && !filter.matchesEverything
                && filter.terms.allSatisfy { $0.quantifier == .one && $0.characterSet != nil }
        }
        let group = sources.enumerated().map { item in
            (id: PatternID(item.offset), filter: try! URLFilterParser.parse(item.element.source, isCaseSensitive: item.element.isCaseSensitive).get())
        }
        #expect(group.count > 3_500)
        let nfa = NFA(patterns: group)
        #expect(isTrie(nfa))
        let (trie, general) = bothConstructions(nfa)
        let dfa = try trie.get()
        #expect(dfa.stateCount > 35_000)
        #expect(dfa == (try general.get()))
    }

    @Test func limitsStopBothConstructionsAlike() throws {
        let nfa = NFA(patterns: parsed(["abcdef", "bcdxyz", "[ab]c.e", "cd\\0", "de$", "/ads/", "[/:]ad"]))
        #expect(isTrie(nfa))
        let states = try SubsetConstruction.determinize(nfa, limits: .default, readingTries: false).stateCount
        for limits in [
            AutomataLimits(maximumDFAStates: states - 3), AutomataLimits(maximumTransitionTableEntries: 40),
            AutomataLimits(maximumSubsetEntries: 30),
        ] {
            let (trie, general) = bothConstructions(nfa, limits: limits)
            guard case .failure(let error) = general else {
                Issue.record("the general construction stays within \(limits)")
                continue
            }
            #expect(trie == .failure(error))
        }
    }
}
