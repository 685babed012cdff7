// Terminal.swift — TerminalText
//
// Text for a terminal: a one-line status on standard error that the next one overwrites, and the
// number formats of the tables.
// No test: a status line only a terminal shows, and number formats the tables' tests read.

internal import Foundation

/// A one-line status on a terminal (nothing when standard error is not one).
public enum Progress {
    static let isTerminal = isatty(STDERR_FILENO) != 0

    public static func line(_ text: String) {
        guard isTerminal else { return }
        let clipped = text.count > 100 ? String(text.prefix(99)) + "…" : text
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + clipped).utf8))
    }

    public static func clear() {
        guard isTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

extension Int {
    /// 58441 -> "58,441".
    public var grouped: String { HumanReadable.count(self) }
}

extension String {
    /// The text right-aligned in `width` characters (unchanged when longer).
    public func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
