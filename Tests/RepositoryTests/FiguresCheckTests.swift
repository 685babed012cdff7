// FiguresCheckTests.swift — no measured figure in docs/**/*.md or in a comment under Sources/
// outside a generated block (`.ci/check-figures`, which `.ci/run` runs too; issue #54), and the
// check itself: it finds planted figures and names their file:line, reads past generated blocks
// and code, and keeps its allow-list honest (an entry that allows nothing fails it).

import Foundation
import Testing
import TestSupport

@Suite struct FiguresCheckTests {
    /// Runs `.ci/check-figures` with `arguments`: its exit status and standard output.
    static func check(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", repositoryURL(".ci/check-figures").path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func theTreeHoldsNoMeasuredFigure() throws {
        let (status, output) = try Self.check(["--root", repositoryRoot])
        #expect(status == 0, "measured figures outside generated blocks (or a stale allow-list entry):\n\(output)")
    }

    @Test func plantedFiguresAreFoundAndNamed() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("figures-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        func write(_ path: String, _ text: String) throws {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try write("docs/A.md", """
            # A
            A step is one read of a 64-byte line; tables of 1 MB or more take 2 MB pages.
            It went from 7,290.0 to 6,652.6 instructions a request.
            <!-- figures:begin: written by a command -->
            | easylist | 812 ns | 6.87x |
            <!-- figures:end -->
            The median was 881 ns.
            Allowed here: at most 65,535 states.
            """)
        try write("docs/decisions/D.md", "Slower: 1.15 µs against 1.07 µs.\n")
        try write("Sources/M/B.swift", """
            // At most four lines on, each 64 bytes.
            let text = "1.5 ms is a string, not a comment" // 49 KB for EasyList's patterns
            /// L2 misses 6.05 -> 5.55 a request.
            let hex = 0x1A
            /// Inlined, every step took 1.2
            /// instructions more: a figure broken over two lines is found where it starts.
            """)
        try write(".ci/figures-allow.txt", """
            # path :: text :: reason
            docs/A.md :: at most 65,535 states :: 16-bit entries
            """)
        let (status, output) = try Self.check(["--root", root.path])
        #expect(status == 1)
        let named = output.split(separator: "\n").map { $0.split(separator: ":").prefix(2).joined(separator: ":") }
        #expect(
            Set(named) == ["docs/A.md:3", "docs/A.md:7", "docs/decisions/D.md:1", "Sources/M/B.swift:2", "Sources/M/B.swift:3", "Sources/M/B.swift:5"],
            "\(output)")
        #expect(output.contains("6.87x") == false, "a generated block is not read")
        #expect(output.contains("1.5 ms") == false, "code, strings included, is not read")

        // Each figure removed, the check passes; an allow-list entry that allows nothing fails it.
        try write("docs/A.md", "# A\nA step is one read.\nAllowed here: at most 65,535 states.\n")
        try write("docs/decisions/D.md", "Slower.\n")
        try write("Sources/M/B.swift", "// At most four lines on.\nlet hex = 0x1A\n")
        #expect(try Self.check(["--root", root.path]).status == 0)
        try write("docs/A.md", "# A\n")
        let stale = try Self.check(["--root", root.path])
        #expect(stale.status == 1 && stale.output.contains(".ci/figures-allow.txt:2: allows nothing"), "\(stale.output)")

        // A generated block that never ends would hide the rest of its file.
        try write("docs/A.md", "# A\nAllowed here: at most 65,535 states.\n<!-- figures:begin -->\nold\n")
        let unclosed = try Self.check(["--root", root.path])
        #expect(unclosed.status == 1 && unclosed.output.contains("docs/A.md:3:"), "\(unclosed.output)")
    }
}
