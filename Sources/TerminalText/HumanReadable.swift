// HumanReadable.swift — TerminalText
//
// Figures as the tables and the terminal print them. Tested through every table's tests
// (BenchmarksTests, GateTests).

internal import Foundation

/// Figures as the tables print them: durations, bytes and ratios to three significant digits or
/// so, counts with thousands separators.
public enum HumanReadable {
    public static func duration(nanoseconds: Double) -> String {
        switch nanoseconds {
        case ..<1_000: String(format: "%.0f ns", nanoseconds)
        case ..<10_000: String(format: "%.2f µs", nanoseconds / 1e3)
        case ..<1_000_000: String(format: "%.1f µs", nanoseconds / 1e3)
        case ..<10_000_000: String(format: "%.2f ms", nanoseconds / 1e6)
        case ..<1_000_000_000: String(format: "%.1f ms", nanoseconds / 1e6)
        default: String(format: "%.2f s", nanoseconds / 1e9)
        }
    }

    public static func duration(seconds: Double) -> String { duration(nanoseconds: seconds * 1e9) }

    public static func bytes(_ bytes: Int) -> String {
        let value = Double(bytes)
        switch value {
        case ..<10_000: return "\(bytes) B"
        case ..<10_000_000: return String(format: "%.1f KB", value / 1e3)
        default: return String(format: "%.1f MB", value / 1e6)
        }
    }

    public static func ratio(_ ratio: Double) -> String {
        switch ratio {
        case ..<10: String(format: "%.2fx", ratio)
        case ..<100: String(format: "%.1fx", ratio)
        default: String(format: "%.0fx", ratio)
        }
    }

    public static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(character)
        }
        return (value < 0 ? "-" : "") + grouped
    }
}
