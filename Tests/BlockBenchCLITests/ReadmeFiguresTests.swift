// `blockbench report --readme`: the README's figures block rewritten from the results file
// (Reports/readme-results.json), which a report fixture (Fixtures/reports/) is copied to when it
// is missing or named by --from; every byte outside the markers kept, and clear errors without
// markers.
// Covers Sources/Reports/ReadmeFigures.swift and Sources/BlockBenchCLI/ReportCommand.swift.

import Foundation
import Reports
import TestSupport
import Testing
@testable import BlockBenchCLI

@Suite struct ReadmeFiguresTests {
    static let fixtures = repositoryRoot + "/Tests/BlockBenchCLITests/Fixtures/reports"

    /// A folder holding a copy of the fixture reports and a README made of `text`.
    func workspace(readme text: String) throws -> (folder: String, readme: String, reports: String) {
        let folder = NSTemporaryDirectory() + "blockbench-readme-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.fixtures, toPath: folder + "/Reports")
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/README.md"))
        return (folder, folder + "/README.md", folder + "/Reports")
    }

    static let before = "# A project\r\n\nIntro line, kept as it is.  \n\n"
    static let after = "\n\nMore text after the block.\n<!-- another comment -->\nlast line without a newline"
    static let readme = before + "<!-- figures:begin: anything -->\nold figures\n| old | table |\n<!-- figures:end -->" + after

    @Test func theBlockIsWrittenFromTheNewestReportAndNothingElseMoves() throws {
        let (folder, readme, reports) = try workspace(readme: Self.readme)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(exitCode(["report", "--readme", "--reports", reports, "--readme-file", readme]) == 0)
        let text = try String(contentsOfFile: readme, encoding: .utf8)
        #expect(text.hasPrefix(Self.before))
        #expect(text.hasSuffix(Self.after))
        let block = String(text.dropFirst(Self.before.count).dropLast(Self.after.count))
        let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first?.hasPrefix("<!-- figures:begin: written by `swift run -c release blockbench report --readme` from Reports/readme-results.json") == true)
        #expect(lines.last == "<!-- figures:end -->")
        #expect(!block.contains("old figures"))
        // The newest report (by its date), copied to the results file, linked relative to the README.
        #expect(block.contains("(report 2026-01-02-bbbbbbbbbb, every figure in [Reports/readme-results.json](Reports/readme-results.json)"))
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: reports + "/readme-results.json"))
                == Data(contentsOf: URL(fileURLWithPath: reports + "/2026-01-02-bbbbbbbbbb/results.json")))
        #expect(!block.contains("aaaaaaaaaa"))
        #expect(block.contains("WebKitGTK libwebkit2gtk-4.1-0 2.50.6-1~deb12u2"))
        // Figures and ratios from results.json: WebKit's EasyList compile, 2.170131 s and
        // 18,696,969 bytes against BlockBench's 0.447570452 s and 2,171,659 bytes.
        #expect(block.contains("| easylist | 58,431 | 447.6 ms, 2171.7 KB | 2.17 s, 18.7 MB (4.85x, 8.61x) |"))
        // A sampled PCRE2 median, 47,710,207 ns against BlockBench's 1,772 ns, and their p99s.
        #expect(block.contains("| easylist × adblock-rust-requests | 8,276 | 1.77 µs, p99 10.4 µs | 47.7 ms, p99 51.9 ms (26,924x, 4,980x)* |"))
        #expect(block.contains("\\* an evenly spaced sample"))
        // Two tables of two benchmarks each (check benchmarks have no other engine: no table).
        #expect(lines.filter { $0.hasPrefix("| ") }.count == 2 * (2 + 2))
        // No machine path reaches the README.
        #expect(!block.contains(folder))

        // Run again: the same bytes.
        #expect(exitCode(["report", "--readme", "--reports", reports, "--readme-file", readme]) == 0)
        #expect(try String(contentsOfFile: readme, encoding: .utf8) == text)

        // With the results file in place and the report folders gone (they are not committed), the
        // same block.
        for name in ["2026-01-01-aaaaaaaaaa", "2026-01-02-bbbbbbbbbb"] { try FileManager.default.removeItem(atPath: reports + "/" + name) }
        #expect(exitCode(["report", "--readme", "--reports", reports, "--readme-file", readme]) == 0)
        #expect(try String(contentsOfFile: readme, encoding: .utf8) == text)
    }

    @Test func aNamedReportIsUsedInsteadOfTheNewest() throws {
        let (folder, readme, reports) = try workspace(readme: Self.readme)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(exitCode(["report", "--readme", "--reports", reports, "--readme-file", readme, "--from", "2026-01-01-aaaaaaaaaa"]) == 0)
        let text = try String(contentsOfFile: readme, encoding: .utf8)
        #expect(text.contains("(report 2026-01-01-aaaaaaaaaa, every figure in"))
        // That report has no WebKit: no WebKit column.
        #expect(!text.contains("| WebKit |"))
        #expect(text.hasPrefix(Self.before) && text.hasSuffix(Self.after))
        #expect(exitCode(["report", "--readme", "--reports", reports, "--readme-file", readme, "--from", "2026-09-09-missing"]) != 0)
    }

    @Test func crlfLinesStayCRLF() throws {
        let text = "a\r\n<!-- figures:begin -->\r\nold\r\n<!-- figures:end -->\r\nb\r\n"
        let new = try ReadmeFigures.replacingBlock(in: text, with: "<!-- figures:begin x -->\nnew\n<!-- figures:end -->", file: "R")
        #expect(new == "a\r\n<!-- figures:begin x -->\r\nnew\r\n<!-- figures:end -->\r\nb\r\n")
    }

    @Test func missingOrRepeatedMarkersAreClearErrorsAndLeaveTheFileAlone() throws {
        let cases: [(String, ReadmeFiguresError)] = [
            ("# README\nno markers at all\n", .noBeginMarker(file: "README.md")),
            ("<!-- figures:begin -->\nno end\n", .noEndMarker(file: "README.md")),
            ("<!-- figures:end -->\n<!-- figures:begin -->\n", .noEndMarker(file: "README.md")),
            ("<!-- figures:begin -->\n<!-- figures:end -->\n<!-- figures:begin -->\n<!-- figures:end -->\n", .repeatedMarker(file: "README.md")),
        ]
        for (text, expected) in cases {
            #expect(throws: expected) { try ReadmeFigures.replacingBlock(in: text, with: "x", file: "README.md") }
        }
        #expect(ReadmeFiguresError.noBeginMarker(file: "README.md").description.contains("<!-- figures:begin"))

        let (folder, readme, reports) = try workspace(readme: "# README\nno markers\n")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(throws: ReadmeFiguresError.noBeginMarker(file: readme)) {
            try ReadmeFigures.update(readme: readme, results: try ReadmeFigures.newestReport(in: reports) + "/results.json")
        }
        #expect(exitCode(["report", "--readme", "--reports", reports, "--readme-file", readme]) == 1)
        #expect(try String(contentsOfFile: readme, encoding: .utf8) == "# README\nno markers\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == ["README.md", "Reports"])
        // The results file was adopted before the README was found wanting; the README is untouched.
        #expect(FileManager.default.fileExists(atPath: reports + "/readme-results.json"))
    }

    @Test func noReportOrNoReadmeIsAClearError() throws {
        let (folder, readme, _) = try workspace(readme: Self.readme)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let empty = folder + "/Empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        #expect(throws: ReadmeFiguresError.noReport(reportsFolder: empty)) { try ReadmeFigures.newestReport(in: empty) }
        #expect(exitCode(["report", "--readme", "--reports", empty, "--readme-file", readme]) == 1)
        #expect(throws: ReadmeFiguresError.unreadableReadme(file: folder + "/nothing.md")) {
            try ReadmeFigures.update(readme: folder + "/nothing.md", results: try ReadmeFigures.newestReport(in: folder + "/Reports") + "/results.json")
        }
    }
}
