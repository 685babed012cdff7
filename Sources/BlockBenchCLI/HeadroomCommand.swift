// `blockbench headroom [FILE ...]`: how close each rule list is to each profiled Safari release's
// limits (Harness/Safari/Headroom.swift): rules against the release's limit, JSON bytes, and
// BlockBench's compiled bytes and states. Tested by BlockBenchCLITests/CLITests.swift (SafariOptionTests).

import ArgumentParser
import ContentRuleList
import Foundation
import Harness

struct HeadroomCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "headroom",
        abstract: "How close rule lists are to each Safari release's limits.",
        discussion: "With no file, every shipped list. Exit 0 when every release takes every list, 1 when one rejects a list.")

    @Argument(help: "Rule-list JSON files (.json or .json.gz).")
    var files: [String] = []

    @Option(help: "The corpora folder (the shipped lists and the Safari profiles).")
    var corpora = "Corpora"

    @Flag(help: "Print one JSON object per list.")
    var json = false

    struct Line: Encodable {
        var file: String
        var safari: [HeadroomRow]
    }

    func run() throws {
        let profiles = try SafariProfiles.load(corpora: corpora)
        let paths = try files.isEmpty
            ? CorpusManifest.load(root: corpora).entries(ofKind: "rules").map { "\(corpora)/\($0.file)" } : files
        var rejected = false
        for path in paths {
            let rows = Headroom.rows(try CorpusFiles.read(path), profiles: profiles)
            rejected = rejected || rows.contains { $0.error != nil }
            print(json ? try line(Line(file: path, safari: rows)) : text(path, rows))
        }
        if rejected { throw ExitCode(1) }
    }

    func line(_ value: Line) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    func text(_ path: String, _ rows: [HeadroomRow]) -> String {
        var out = ["\(path): \(rows.first?.jsonBytes.grouped ?? "0") JSON bytes"]
        out.append("  Safari            rules           limit       left   used         bytes     states")
        for row in rows {
            let head = "  " + row.safari.padding(toLength: 6, withPad: " ", startingAt: 0) + row.rules.grouped.leftPadded(17)
                + row.maximumRuleCount.grouped.leftPadded(16)
            guard row.error == nil else {
                out.append(head + "   rejects: " + (row.error ?? ""))
                continue
            }
            out.append(head + row.rulesLeft.grouped.leftPadded(11) + String(format: "%6.1f%%", row.percentUsed)
                + (row.bytes?.grouped ?? "-").leftPadded(14) + (row.states?.grouped ?? "-").leftPadded(11))
        }
        return out.joined(separator: "\n")
    }
}
