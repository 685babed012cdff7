// HistoryCommandTests.swift — BlockBenchCLITests: `blockbench history import|export|list` and
// `blockbench report --from-history [--format ...]` (Sources/BlockBenchCLI/HistoryCommand.swift,
// ReportCommand.swift): an old history.jsonl converted once, the trends pages built from the
// history alone, the newest record in a tracker's format, and the store exported and imported.

import Foundation
import Reports
import TestSupport
import Testing
@testable import BlockBenchCLI

@Suite struct HistoryCommandTests {
    static let oldHistory = """
        {"date":"2026-11-23T12:13:58Z","machine":"AMD EPYC, 2 cores","metrics":{"compile-kablock\\/blockbench\\/bytes":14729,"compile-kablock\\/blockbench\\/seconds":0.0066704},"revision":"73cad9558e","toolchain":"Swift version 6.3.1"}
        {"date":"2026-11-24T12:13:58Z","gate":"pass","machine":"AMD EPYC, 2 cores","metrics":{"compile-kablock\\/blockbench\\/bytes":14700,"compile-kablock\\/blockbench\\/seconds":0.0061},"revision":"c1d5721255","toolchain":"Swift version 6.3.1"}

        """

    @Test func anOldHistoryIsConvertedAndPagesAreBuiltFromIt() throws {
        let folder = NSTemporaryDirectory() + "blockbench-history-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let reports = folder + "/Reports"
        try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
        try Data(Self.oldHistory.utf8).write(to: URL(fileURLWithPath: folder + "/history.jsonl"))

        #expect(exitCode(["report", "--from-history", "--reports", reports]) != 0)
        #expect(exitCode(["history", "import", folder + "/history.jsonl", "--reports", reports]) == 0)
        #expect(exitCode(["history", "list", "--reports", reports]) == 0)
        let store = HistoryStore.beside(reports: reports)
        #expect(store.records().map(\.revision) == ["73cad9558e", "c1d5721255"])

        #expect(exitCode(["report", "--from-history", "--reports", reports]) == 0)
        let index = try String(contentsOfFile: reports + "/trends/index.html", encoding: .utf8)
        #expect(index.contains("2 recorded runs") && index.contains("compile-kablock.html"))
        #expect(FileManager.default.fileExists(atPath: reports + "/trends/compile-kablock.html"))

        #expect(exitCode(["report", "--from-history", "--reports", reports, "--format", "bmf", "--output", folder + "/bmf.json"]) == 0)
        let bmf = try JSONDecoder().decode([String: [String: BMFMetric]].self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/bmf.json")))
        #expect(bmf["compile-kablock/blockbench"]?["bytes"]?.value == 14_700)
        #expect(exitCode(["report", "--from-history", "--reports", reports, "--format", "github", "--output", folder + "/github.json"]) == 0)
        let github = try JSONDecoder().decode([GitHubBenchmarkEntry].self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/github.json")))
        #expect(github.map(\.name) == ["compile-kablock/blockbench bytes", "compile-kablock/blockbench time"])

        #expect(exitCode(["history", "export", "--reports", reports, "-o", folder + "/export.jsonl"]) == 0)
        #expect(exitCode(["history", "import", folder + "/export.jsonl", "--history", folder + "/copy"]) == 0)
        #expect(HistoryStore(root: folder + "/copy").records() == store.records())
        #expect(exitCode(["report", "--output", "x.json"]) == 64)
    }
}
