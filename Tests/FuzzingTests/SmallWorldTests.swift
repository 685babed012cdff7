// SmallWorldTests.swift — the exhaustive small world: every pattern of up to 3 atoms against every
// string of up to 4 characters, engine against PCRE2 (they must agree on all of it), and its
// enumeration checked by counting.

import Testing
import Foundation
import Fuzzing

@Suite struct SmallWorldTests {
    @Test func everyPatternOfUpToThreeAtomsAgreesWithPCRE2OnEveryStringOfUpToFourCharacters() {
        let world = SmallWorld(atoms: 3, length: 4)
        let patterns = world.patterns()
        let started = ContinuousClock.now
        let report = SmallWorldRun(world: world, workers: 2).run(patterns)
        let seconds = Double((ContinuousClock.now - started).components.seconds)
        #expect(patterns.count == 87_264)
        #expect(report.patterns == 87_264)
        #expect(report.subjects == 341)
        #expect(report.matchesEverything == 28_184)
        #expect(report.comparisons == (87_264 - 28_184) * 341)
        #expect(report.limits == 0)
        #expect(report.disagreementCount == 0, "\(report.disagreements.map(\.description).joined(separator: "\n"))")
        print("small world: \(report.patterns) patterns x \(report.subjects) strings, \(report.comparisons) comparisons, \(report.distinctNFAs) distinct NFAs in \(report.dfas) DFAs, about \(Int(seconds)) s")
    }

    @Test func theWorldIsEnumeratedExactly() {
        // Trees of k atoms: 24 of one (5 leaves and the empty group, 4 quantifiers each), then
        // 4 x forests of k - 1; forests of n: sum over the first tree's size.
        let world = SmallWorld(atoms: 3, length: 4)
        #expect(world.bodies().count == 24 + 672 + 21_120)
        #expect(Set(world.bodies().map { FuzzPattern(terms: $0).source }).count == 21_816)
        #expect(world.subjects().count == 1 + 4 + 16 + 64 + 256)
        #expect(world.subjects().prefix(6).map { String(decoding: $0, as: UTF8.self) } == ["", "a", "b", "A", "c", "aa"])
        var both = world
        both.caseSensitivity = [false, true]
        #expect(both.patterns().count == 2 * 87_264)
    }
}
