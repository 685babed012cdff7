// StepDetectionTests.swift — ReportsTests: the step test over a history's noisy figures
// (Sources/Reports/History/StepDetection.swift) on synthetic series: a clear step found where it
// is, two steps each found once, uniform noise of +-30 % never flagged over long series and many
// seeds, a lone outlier not flagged, and the Mann-Whitney p-value against a hand computation.

import Foundation
import Testing
@testable import Reports
@testable import SeededRandom
import TestSupport

@Suite struct StepDetectionTests {
    /// `count` values of `level` times a uniform factor in [1 - spread, 1 + spread].
    static func noise(_ count: Int, level: Double, spread: Double = 0.3, generator: inout SplitMix64) -> [Double] {
        (0..<count).map { _ in level * (1 + Double.random(in: -spread...spread, using: &generator)) }
    }

    @Test func aClearStepIsFoundWhereItIs() {
        var generator = SplitMix64(seed: 1)
        let series = Self.noise(30, level: 100, generator: &generator) + Self.noise(30, level: 200, generator: &generator)
        let steps = StepDetector().steps(in: series)
        #expect(steps.count == 1)
        #expect(steps.first.map { abs($0.index - 30) <= 1 } == true)
        #expect(steps.first.map { $0.change > 0.6 && $0.change < 1.4 } == true)
    }

    @Test func aStepSeenByFewRunsAfterItIsFound() {
        var generator = SplitMix64(seed: 2)
        // Half the time, six runs after forty: the newest runs of a history.
        let series = Self.noise(40, level: 1_000, generator: &generator) + Self.noise(6, level: 500, generator: &generator)
        let steps = StepDetector().steps(in: series)
        // (At 39 when run 39 happens to be the lowest before the step: the split is as clean.)
        #expect(steps.count == 1 && abs(steps[0].index - 40) <= 1)
        #expect(steps.first.map { $0.change < -0.3 } == true)
    }

    @Test func twoStepsAreEachFoundOnce() {
        var generator = SplitMix64(seed: 3)
        let series = Self.noise(25, level: 10, generator: &generator) + Self.noise(25, level: 25, generator: &generator)
            + Self.noise(25, level: 12, generator: &generator)
        let steps = StepDetector().steps(in: series)
        let found = steps.map(\.index)
        #expect(found.count == 2)
        #expect(found.count == 2 && abs(found[0] - 25) <= 1 && abs(found[1] - 50) <= 1)
        // Each step's medians are the levels between its neighbours: about 10 -> 25, then 25 -> 12.
        #expect(steps.count == 2 && abs(steps[0].before - 10) < 2 && abs(steps[0].after - 25) < 4)
        #expect(steps.count == 2 && abs(steps[1].before - 25) < 4 && abs(steps[1].after - 12) < 2)
    }

    @Test func noiseOfThirtyPerCentIsNotAStep() {
        for seed in UInt64(1)...20 {
            var generator = SplitMix64(seed: seed)
            for count in [12, 60, 300] {
                let series = Self.noise(count, level: 1e-3, generator: &generator)
                #expect(StepDetector().steps(in: series).isEmpty, "seed \(seed), \(count) runs")
            }
        }
    }

    @Test func aLoneOutlierIsNotAStep() {
        var generator = SplitMix64(seed: 4)
        var series = Self.noise(50, level: 100, spread: 0.05, generator: &generator)
        series[25] = 1_000
        #expect(StepDetector().steps(in: series).isEmpty)
    }

    @Test func aSmallRealChangeIsNotReported() {
        var generator = SplitMix64(seed: 5)
        // 5 % apart, with 1 % noise: significant, but under the 10 % that matters.
        let series = Self.noise(40, level: 100, spread: 0.01, generator: &generator) + Self.noise(40, level: 105, spread: 0.01, generator: &generator)
        #expect(StepDetector().steps(in: series).isEmpty)
        #expect(StepDetector(minimumChange: 0.02).steps(in: series).map(\.index) == [40])
    }

    @Test func mannWhitneyAgainstAHandComputation() {
        // U = 0 for 3 against 3: mean 4.5, variance 3 * 3 * 7 / 12 = 5.25; with the continuity
        // correction z = 4 / sqrt(5.25) = 1.7457, two-sided p = 0.0809.
        let p = StepDetector.mannWhitneyP([1, 2, 3], [4, 5, 6])
        #expect(abs(p - 0.0809) < 0.0005)
        #expect(StepDetector.mannWhitneyP([4, 5, 6], [1, 2, 3]) == p)
        #expect(StepDetector.mannWhitneyP([1, 1, 1], [1, 1, 1]) == 1)
        // Ties take mid-ranks.
        #expect(StepDetector.ranks([5, 1, 5, 2]).ranks == [3.5, 1, 3.5, 2])
    }
}
