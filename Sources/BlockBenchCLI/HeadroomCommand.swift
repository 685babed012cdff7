// `blockbench headroom [FILE ...]`: how close each rule list is to each profiled Safari release's
// limits (SafariReleases/Headroom.swift): rules against the release's limit, JSON bytes,
// BlockBench's compiled bytes and states, and WebKit's bytes, compile time and peak memory as the
// fitted model predicts them, each beside the model's worst error on a list it never saw.
// `--fit-webkit-model` fits the model (SafariReleases/WebKitModelFit.swift).
// Tested by BlockBenchCLITests/CLITests.swift (SafariOptionTests).

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
            let rows = Headroom.rows(try CorpusFiles.read(path), profiles: profiles, model: model)
            rejected = rejected || rows.contains { $0.error != nil }
            print(json ? try line(Line(file: path, safari: rows)) : text(path, rows, model: model))
        }
        if rejected { throw ExitCode(1) }
    }

    /// WebKit's figures for a row, each with the model's worst error on an unseen list.
    func predicted(_ prediction: WebKitPrediction) -> String {
        var parts: [String] = []
        if let bytes = prediction.bytes, let error = prediction.bytesError { parts.append("~\(bytes.grouped) bytes ±\(Self.percent(error))") }
        if let seconds = prediction.seconds, let error = prediction.secondsError {
            parts.append(String(format: "~%.2g s CPU ±", seconds) + Self.percent(error))
        }
        if let memory = prediction.memoryBytes, let error = prediction.memoryError {
            parts.append(String(format: "~%.0f MB ±", Double(memory) / 1e6) + Self.percent(error))
        }
        return parts.isEmpty ? "" : "   WebKit " + parts.joined(separator: ", ")
    }

    static func percent(_ value: Double) -> String { String(format: "%.0f%%", value) }

    /// A sum's terms by what they predict from: "the url-filters' text + the selectors' text".
    static func words(_ from: [WebKitSizeModel.Predictor]) -> String {
        from.map { "the " + $0.words }.joined(separator: " + ")
    }

    /// `--fit-webkit-model`: every shipped list whole and in chunks, through both compilers.
    func fitModel() throws {
        if let unavailable = WebKitEngine().unavailable {
            print("cannot fit: \(unavailable)")
            throw ExitCode(1)
        }
        let manifest = try CorpusManifest.load(root: corpora)
        var samples: [WebKitModelFit.Sample] = []
        for entry in manifest.entries(ofKind: "rules") {
            for (size, chunk) in WebKitModelFit.chunks(try CorpusFiles.read(manifest.path(of: entry)), sizes: [1_000, 4_000, 16_000]) {
                let name = entry.name + (size < entry.rows ? "[:\(size)]" : "")
                guard let sample = try WebKitModelFit.sample(name, source: entry.name, json: chunk) else { continue }
                let memory = sample.webKit[.memory].map { String(format: ", %.0f MB", $0 / 1e6) } ?? ""
                print(String(
                    format: "%@: BlockBench %.0f bytes, %.0f states; WebKit %.0f bytes, %.3f s%@", name,
                    sample.figures.values[.compiledBytes] ?? 0, sample.figures.values[.states] ?? 0,
                    sample.webKit[.bytes] ?? 0, sample.webKit[.seconds] ?? 0, memory))
                samples.append(sample)
            }
        }
        guard let model = WebKitModelFit.fit(samples, webKit: WebKitEngine().version) else {
            print("cannot fit: the samples come from fewer than two lists")
            throw ExitCode(1)
        }
        for figure in WebKitSizeModel.Figure.allCases {
            guard let law = model.law(figure) else { continue }
            let from = law.terms.map(\.from)
            print("\(figure.rawValue) from \(Self.words(from)): worst error on an unseen list \(Self.percent(law.worstUnseenError))")
            for unseen in law.unseen { print(String(format: "  %@: %+.1f%%", unseen.list, unseen.error)) }
            let others = model.tried.filter { $0.figure == figure && $0.from != from }
            print("  from the others instead: " + others.map { "\(Self.words($0.from)) \(Self.percent($0.worstUnseenError))" }.joined(separator: ", "))
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
                + (row.webKit.map(predicted) ?? ""))
        }
        if let model {
            let names: [WebKitSizeModel.Figure: String] = [.bytes: "bytes", .seconds: "compile time", .memory: "peak memory"]
            let froms = WebKitSizeModel.Figure.allCases.compactMap { figure in
                model.law(figure).map { "\(names[figure] ?? figure.rawValue) from \(Self.words($0.terms.map(\.from)))" }
            }
            out.append("  WebKit ~: WebKit's compile predicted from BlockBench's: " + froms.joined(separator: ", "))
            out.append("  ±: the worst error of each on a shipped list left out of its fit (\(model.lists.count) lists, whole and in chunks)")
        }
        return out.joined(separator: "\n")
    }
}
