// TrendChart.swift — Reports
//
// One inline SVG line chart of figures over recorded runs (TrendsPage.swift draws them): x is the
// run's place in the history, y the value (TrendScale.swift: from 0, or over decades when the
// values span more than a factor of twenty); a line per series, broken nowhere (runs that did not
// measure a series are skipped), the gate's baseline as a dashed line, runs whose gate failed as
// red ticks under the axis, and steps (StepDetection.swift) as orange vertical lines, labelled
// with their change when a chart has only a few.
// Only the marks carry tooltips: a run adds a point to a line, not an element of its own, so a
// page grows by a few bytes per run and series.
//
// Tested by ReportsTests/TrendsPageTests.swift.

internal import Foundation
internal import TerminalText

struct TrendChart {
    struct Series {
        var label: String
        var color: String
        /// One value per run (nil: not measured in that run).
        var values: [Double?]
        var baseline: Double?
        var steps: [Step] = []
    }

    var title: String
    var unit: String
    var series: [Series]
    /// Per run: "date revision", and whether its gate failed.
    var runs: [(label: String, failed: Bool)]

    static let width = 560.0
    static let height = 190.0
    static let left = 70.0
    static let right = 12.0
    static let top = 24.0
    static let bottom = 24.0

    /// Step labels are written only when a chart has at most this many steps (tooltips otherwise).
    static let labelledSteps = 3

    var svg: String {
        let known = series.flatMap { $0.values.compactMap { $0 } + ($0.baseline.map { [$0] } ?? []) }
        guard let scale = TrendScale(known), !runs.isEmpty else { return "" }
        var parts = ["<text x=0 y=14 font-weight=600>\(HTMLText.escape(title))\(scale.logarithmic ? " (log scale)" : "")</text>"]
        parts += axes(scale)
        let labelled = series.map(\.steps.count).reduce(0, +) <= Self.labelledSteps
        for line in series { parts += draw(line, scale: scale, labelSteps: labelled) }
        parts += failedRuns()
        parts += legend()
        let (w, h) = (Self.width, Self.height)
        return "<svg width=\(f(w)) height=\(f(h)) viewBox=\"0 0 \(f(w)) \(f(h))\" role=img>\(parts.joined())</svg>"
    }

    func x(_ index: Int) -> Double {
        runs.count == 1 ? (Self.left + Self.width - Self.right) / 2 : Self.left + (Self.width - Self.left - Self.right) * Double(index) / Double(runs.count - 1)
    }

    func y(_ value: Double, _ scale: TrendScale) -> Double {
        Self.height - Self.bottom - (Self.height - Self.bottom - Self.top) * scale.fraction(value)
    }

    func axes(_ scale: TrendScale) -> [String] {
        var parts: [String] = []
        for value in scale.ticks {
            let at = f(y(value, scale))
            parts.append("<line class=grid x1=\(f(Self.left)) y1=\(at) x2=\(f(Self.width - Self.right)) y2=\(at) />")
            parts.append("<text x=\(f(Self.left - 4)) y=\(f(y(value, scale) + 4)) text-anchor=end>\(TrendChart.label(value, unit: unit))</text>")
        }
        if let first = runs.first, let last = runs.last {
            parts.append("<text x=\(f(Self.left)) y=\(f(Self.height - 6))>\(HTMLText.escape(first.label))</text>")
            parts.append("<text x=\(f(Self.width - Self.right)) y=\(f(Self.height - 6)) text-anchor=end>\(HTMLText.escape(last.label))</text>")
        }
        return parts
    }

    func draw(_ line: Series, scale: TrendScale, labelSteps: Bool) -> [String] {
        var parts: [String] = []
        if let base = line.baseline {
            let at = f(y(base, scale))
            parts.append(
                "<line x1=\(f(Self.left)) y1=\(at) x2=\(f(Self.width - Self.right)) y2=\(at) stroke=\"\(line.color)\" stroke-dasharray=\"4 3\"><title>baseline \(HTMLText.escape(line.label)): \(TrendChart.label(base, unit: unit))</title></line>")
        }
        let points = line.values.enumerated().compactMap { index, value in value.map { "\(f(x(index))),\(f(y($0, scale)))" } }
        parts.append("<polyline fill=none stroke=\"\(line.color)\" stroke-width=1.5 points=\"\(points.joined(separator: " "))\" />")
        for step in line.steps {
            let at = f(x(step.index))
            let change = String(format: "%+.0f%%", step.change * 100)
            parts.append(
                "<line x1=\(at) y1=\(f(Self.top)) x2=\(at) y2=\(f(Self.height - Self.bottom)) stroke=\"#e8590c\" stroke-width=1.5><title>step in \(HTMLText.escape(line.label)) at \(HTMLText.escape(runs[step.index].label)): \(TrendChart.label(step.before, unit: unit)) to \(TrendChart.label(step.after, unit: unit)) (\(change), p \(String(format: "%.1e", step.p)))</title></line>")
            if labelSteps { parts.append("<text x=\(at) y=\(f(Self.top - 2)) fill=\"#e8590c\" text-anchor=middle>\(change)</text>") }
        }
        return parts
    }

    /// One red tick under the axis per run whose gate failed, as one path.
    func failedRuns() -> [String] {
        let failed = runs.indices.filter { runs[$0].failed }
        guard !failed.isEmpty else { return [] }
        let base = f(Self.height - Self.bottom)
        let path = failed.map { "M\(f(x($0))) \(base)v6" }.joined()
        return ["<path d=\"\(path)\" stroke=\"#cf222e\" stroke-width=2><title>\(failed.count) gate runs failed</title></path>"]
    }

    func legend() -> [String] {
        guard series.count > 1 else { return [] }
        return series.enumerated().flatMap { index, line -> [String] in
            let across = Self.left + 8 + Double(index % 5) * 96
            let down = Self.top + 4 + Double(index / 5) * 12
            return [
                "<rect x=\(f(across)) y=\(f(down)) width=8 height=8 fill=\"\(line.color)\" />",
                "<text x=\(f(across + 11)) y=\(f(down + 8)) fill=\"\(line.color)\">\(HTMLText.escape(line.label))</text>",
            ]
        }
    }

    /// A value in its unit: durations, bytes, or three significant digits.
    static func label(_ value: Double, unit: String) -> String {
        switch unit {
        case "s": HumanReadable.duration(seconds: value)
        case "ns": HumanReadable.duration(nanoseconds: value)
        case "B": HumanReadable.bytes(Int(value))
        case "x": String(format: "%.3gx", value)
        default:
            switch value {
            case 1e9...: String(format: "%.4gG", value / 1e9)
            case 1e6...: String(format: "%.4gM", value / 1e6)
            case 1e4...: String(format: "%.4gk", value / 1e3)
            default: String(format: "%.4g", value)
            }
        }
    }

    /// One decimal, without Foundation's formatter: a page of a thousand runs prints it a million times.
    func f(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return (tenths < 0 ? "-" : "") + String(abs(tenths) / 10) + "." + String(abs(tenths) % 10)
    }
}

/// HTML's escapes for text and attribute values.
enum HTMLText {
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
