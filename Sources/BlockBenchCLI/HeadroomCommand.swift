// `blockbench headroom [FILE ...]`: how close each rule list is to each profiled Safari release's
// limits (SafariReleases/Headroom.swift): rules against the release's limit, JSON bytes, and
// BlockBench's compiled bytes and states. Tested by BlockBenchCLITests/CLITests.swift (SafariOptionTests).

import ArgumentParser
import ContentRuleList
import Foundation
import Corpus
import Engines
import SafariReleases
import TerminalText

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

    @Flag(help: "Fit the WebKit size model on the shipped lists (needs WebKitGTK) and write it to the corpora folder.")
    var fitWebkitModel = false

    @Option(help: "With --fit-webkit-model: the shipped list kept out of the fit, to state the model's error on.")
    var heldOut = "easyprivacy"

    struct Line: Encodable {
        var file: String
        var safari: [HeadroomRow]
    }

    func run() throws {
        if fitWebkitModel { return try fitModel() }
        let model = WebKitSizeModel.load(corpora: corpora)
        let profiles = try SafariProfiles.load(corpora: corpora)
        let paths = try files.isEmpty
            ? CorpusManifest.load(root: corpora).entries(ofKind: "rules").map { "\(corpora)/\($0.file)" } : files
        var rejected = false
        for path in paths {
            let rows = Headroom.rows(try CorpusFiles.read(path), profiles: profiles)
            rejected = rejected || rows.contains { $0.error != nil }
            print(json ? try line(Line(file: path, safari: rows)) : text(path, rows, model: model))
        }
        if rejected { throw ExitCode(1) }
    }

    func predicted(_ row: HeadroomRow, _ model: WebKitSizeModel) -> String {
        guard row.bytes != nil else { return "" }
        return "   WebKit ~" + Int(model.bytes.predict(Double(row.jsonBytes))).grouped + " bytes, ~"
            + String(format: "%.2f s", model.seconds.predict(Double(row.jsonBytes)))
    }

    /// `--fit-webkit-model`: every shipped list whole and in chunks, through both compilers.
    func fitModel() throws {
        let webKit = WebKitEngine()
        if let unavailable = webKit.unavailable {
            print("cannot fit: \(unavailable)")
            throw ExitCode(1)
        }
        let manifest = try CorpusManifest.load(root: corpora)
        var samples: [WebKitModelFit.Sample] = []
        for entry in manifest.entries(ofKind: "rules") {
            for (size, chunk) in WebKitModelFit.chunks(try CorpusFiles.read(manifest.path(of: entry)), sizes: [1_000, 4_000, 16_000]) {
                let name = entry.name + (size < entry.rows ? "[:\(size)]" : "")
                guard let sample = try WebKitModelFit.sample(name, json: chunk, webKit: webKit) else { continue }
                print(String(format: "%@: BlockBench %.0f bytes, %.0f states; WebKit %.0f bytes, %.3f s", name, sample.bytes, sample.states, sample.webKitBytes, sample.webKitSeconds))
                samples.append(sample)
            }
        }
        let model = WebKitModelFit.fit(samples, heldOut: heldOut, webKit: webKit.version)
        for held in model.heldOut {
            print(String(format: "held out %@: bytes off by %+.1f%%, time off by %+.1f%%", held.list, held.bytesError, held.secondsError))
        }
        for held in model.alternative {
            print(String(format: "  (from BlockBench's bytes and states instead: %+.1f%%, %+.1f%%)", held.bytesError, held.secondsError))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(model).write(to: URL(fileURLWithPath: "\(corpora)/\(WebKitSizeModel.file)"))
        print("written: \(corpora)/\(WebKitSizeModel.file)")
    }

    func line(_ value: Line) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    func text(_ path: String, _ rows: [HeadroomRow], model: WebKitSizeModel?) -> String {
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
                + (row.bytes?.grouped ?? "-").leftPadded(14) + (row.states?.grouped ?? "-").leftPadded(11)
                + (model.map { predicted(row, $0) } ?? ""))
        }
        if let model {
            out.append(String(
                format: "  WebKit ~: WebKit's bytes and compile time predicted from the JSON bytes by a fitted model, off by up to %.0f%% (bytes) and %.0f%% (time) on a held-out list",
                model.worstBytesError, model.worstSecondsError))
        }
        return out.joined(separator: "\n")
    }
}
