// TrendScale.swift — Reports
//
// The y axis of a trend chart (TrendChart.swift): linear from 0 when the values stay within a
// factor of `logAbove` of each other, otherwise logarithmic over whole decades. Why: a figure
// that fell tenfold over the history (a compile phase made ten times faster) would, on a linear
// axis, flatten every later run into the bottom line, where no later change can be seen.
//
// Tested by ReportsTests/TrendsPageTests.swift.

internal import Foundation

struct TrendScale {
    /// A spread (highest over lowest) above which the axis is logarithmic.
    static let logAbove = 20.0

    let logarithmic: Bool
    /// Linear: 0 and the top; logarithmic: the decades' exponents.
    let low: Double
    let high: Double

    /// The scale for `values` (every value drawn, baselines included); nil when there is none.
    init?(_ values: [Double]) {
        guard let highest = values.max() else { return nil }
        let positive = values.filter { $0 > 0 }
        if let lowest = positive.min(), positive.count == values.count, highest / lowest > Self.logAbove {
            logarithmic = true
            low = floor(log10(lowest))
            high = max(low + 1, ceil(log10(highest)))
        } else {
            logarithmic = false
            low = 0
            high = max(highest * 1.1, 1e-12)
        }
    }

    /// Where `value` lies, from 0 (bottom) to 1 (top).
    func fraction(_ value: Double) -> Double {
        guard logarithmic else { return value / high }
        return (log10(max(value, pow(10, low))) - low) / (high - low)
    }

    /// The values to draw a grid line at: 0, the middle and the top, or each decade (at most six).
    var ticks: [Double] {
        guard logarithmic else { return [0, high / 2, high] }
        let decades = Int(high - low)
        let every = max(1, (decades + 5) / 6)
        return stride(from: 0, through: decades, by: every).map { pow(10, low + Double($0)) }
    }
}
