// StepDetection.swift — Reports
//
// Tells a step from noise in a series of noisy figures (wall times, a peer's ratio, WebKit's
// compile time) over the recorded runs, oldest first. One ratio against one baseline run cannot:
// on the shared 2-core machines such a figure moves by tens of per cent between runs of one tree.
//
// The test: binary segmentation with the Mann-Whitney U test. Over a segment of the series (at
// first the whole), every split leaving at least `minimumSegment` runs on each side is tested:
// the runs before it against the runs from it on (two-sided, normal approximation with the tie
// correction and a continuity correction). The split with the least p is a step when p times the
// number of splits tested (Bonferroni: the chance that noise alone passes any split of the
// segment stays under `alpha`) is below `alpha`, and the medians of its two sides differ by at
// least `minimumChange` (relative): a change too small to matter is not reported even when it is
// real. Each side is then searched again, so several steps are found, each once.
//
// Why this test: it uses ranks only, so a single outlier run (another process on the machine)
// cannot make a step, and it assumes nothing about the noise's distribution; the whole segment on
// each side, not a short window, gives it the runs it needs to see a step of a few tens of per
// cent through noise as large. Ranks are computed once per segment and U of every split comes
// from their prefix sums: O(n log n) per segment.
//
// Tested by ReportsTests/StepDetectionTests.swift (a clear step found at its index, and two;
// uniform noise of a third either way over long series never flagged; a single outlier not flagged;
// the p-value against a textbook case).

internal import Foundation
internal import Benchmarks

public struct Step: Hashable, Sendable {
    /// The first index after the step.
    public var index: Int
    /// The medians of the runs from the previous step (or the first run) to this one, and from this
    /// one to the next step (or the last run).
    public var before: Double
    public var after: Double
    /// The test's two-sided p-value.
    public var p: Double

    /// after / before - 1.
    public var change: Double { before == 0 ? 0 : after / before - 1 }
}

public struct StepDetector: Sendable {
    public var minimumSegment = 5
    public var alpha = 0.01
    public var minimumChange = 0.1

    public init(minimumSegment: Int = 5, alpha: Double = 0.01, minimumChange: Double = 0.1) {
        self.minimumSegment = minimumSegment
        self.alpha = alpha
        self.minimumChange = minimumChange
    }

    /// The steps of `series`, in order.
    public func steps(in series: [Double]) -> [Step] {
        var found: [Step] = []
        search(series, series.indices, into: &found)
        found.sort { $0.index < $1.index }
        // Each step's medians over the runs between its neighbouring steps: the levels the series
        // settles at on each side (the search's own medians may span several steps).
        let bounds = [0] + found.map(\.index) + [series.count]
        for position in found.indices {
            found[position].before = Self.median(Array(series[bounds[position]..<bounds[position + 1]]))
            found[position].after = Self.median(Array(series[bounds[position + 1]..<bounds[position + 2]]))
        }
        return found
    }

    /// Finds the best split of `range`, keeps it when it passes, and searches both sides.
    func search(_ series: [Double], _ range: Range<Int>, into found: inout [Step]) {
        let n = range.count
        guard minimumSegment >= 1, n >= 2 * minimumSegment else { return }
        let ranked = Self.ranks(Array(series[range]))
        var prefix = 0.0
        var best: (split: Int, p: Double)?
        for split in 1..<n {
            prefix += ranked.ranks[split - 1]
            guard split >= minimumSegment, n - split >= minimumSegment else { continue }
            let u = prefix - Double(split * (split + 1)) / 2
            let p = Self.p(u: u, n1: split, n2: n - split, tieTerm: ranked.tieTerm)
            if best == nil || p < best!.p { best = (split, p) }
        }
        let tests = Double(n - 2 * minimumSegment + 1)
        guard let best, best.p * tests < alpha else { return }
        let at = range.lowerBound + best.split
        let step = Step(
            index: at, before: Self.median(Array(series[range.lowerBound..<at])), after: Self.median(Array(series[at..<range.upperBound])),
            p: best.p)
        guard abs(step.change) >= minimumChange else { return }
        found.append(step)
        search(series, range.lowerBound..<at, into: &found)
        search(series, at..<range.upperBound, into: &found)
    }

    /// The two-sided p of U for samples of n1 and n2 values whose pooled ties give `tieTerm`.
    static func p(u: Double, n1: Int, n2: Int, tieTerm: Double) -> Double {
        let a = Double(n1)
        let b = Double(n2)
        let n = a + b
        let variance = a * b / 12 * ((n + 1) - tieTerm / (n * (n - 1)))
        guard variance > 0 else { return 1 }
        // Continuity correction: U moves in steps of 1.
        let z = max(0, abs(u - a * b / 2) - 0.5) / variance.squareRoot()
        return erfc(z / 2.0.squareRoot())
    }

    /// The two-sided p-value of the Mann-Whitney U test of `a` against `b` (normal approximation,
    /// tie-corrected; 1 when every value ties).
    public static func mannWhitneyP(_ a: [Double], _ b: [Double]) -> Double {
        guard !a.isEmpty, !b.isEmpty else { return 1 }
        let ranked = ranks(a + b)
        let u = ranked.ranks.prefix(a.count).reduce(0, +) - Double(a.count * (a.count + 1)) / 2
        return p(u: u, n1: a.count, n2: b.count, tieTerm: ranked.tieTerm)
    }

    /// Mid-ranks (1-based) of `values`, and the sum of t^3 - t over groups of t tied values.
    static func ranks(_ values: [Double]) -> (ranks: [Double], tieTerm: Double) {
        let order = values.indices.sorted { values[$0] < values[$1] }
        var ranks = [Double](repeating: 0, count: values.count)
        var tieTerm = 0.0
        var start = 0
        while start < order.count {
            var end = start
            while end + 1 < order.count && values[order[end + 1]] == values[order[start]] { end += 1 }
            let rank = Double(start + end) / 2 + 1
            for position in start...end { ranks[order[position]] = rank }
            let tied = Double(end - start + 1)
            tieTerm += tied * tied * tied - tied
            start = end + 1
        }
        return (ranks, tieTerm)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
