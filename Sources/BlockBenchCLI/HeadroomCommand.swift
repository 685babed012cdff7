// `blockbench headroom [FILE ...]`: how close each rule list is to each profiled Safari release's
// limits (SafariReleases/Headroom.swift): rules against the release's limit, JSON bytes,
// BlockBench's compiled bytes and states, WebKit's bytes, compile time and peak memory (measured
// by WebKitGTK's webkit-compile when it is installed, else predicted by the fitted model, each
// beside the model's worst error on a list it never saw), and the rules that cost WebKit's compile
// most. `--fit-webkit-model` fits the model (SafariReleases/WebKitModelFit.swift).
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

    @Flag(help: "Fit the WebKit size model on lists made from the shipped lists' rules (needs WebKitGTK) and write it to the corpora folder.")
    var fitWebkitModel = false

    @Flag(help: "With --fit-webkit-model: take WebKit's figures of a list from the model file when it holds them.")
    var reuseMeasurements = false

    @Flag(help: "Predict WebKit's figures with the fitted model even when WebKitGTK is installed.")
    var predict = false

    @Option(help: "How many of the rules that cost WebKit's compile most to print per list.")
    var top = 10

    struct Line: Encodable {
        var file: String
        var safari: [HeadroomRow]
        var costliest: [CostlyRule]
    }

    func run() throws {
        if fitWebkitModel { return try fitModel() }
        let model = WebKitSizeModel.load(corpora: corpora)
        let profiles = try SafariProfiles.load(corpora: corpora)
        let paths = try files.isEmpty
            ? CorpusManifest.load(root: corpora).entries(ofKind: "rules").map { "\(corpora)/\($0.file)" } : files
        let folder = Self.webKitFolder(corpora: corpora)
        let installed = predict ? nil : WebKitEngine(folder: folder)
        let measuredBy = installed.flatMap { $0.unavailable == nil ? Self.webKitName($0.version) : nil }
        var rejected = false
        for path in paths {
            // A new webkit-compile per list: its peak memory is then the list's own.
            let measure: (([UInt8]) -> WebKitFigures?)? = measuredBy.map { name in
                { json in Self.measure(json, engine: WebKitEngine(folder: folder), name: name) }
            }
            let report = Headroom.report(try CorpusFiles.read(path), profiles: profiles, model: model, top: top, measure: measure)
            rejected = rejected || report.rows.contains { $0.error != nil }
            print(json ? try line(Line(file: path, safari: report.rows, costliest: report.costliest)) : text(path, report, model: model))
        }
        if rejected { throw ExitCode(1) }
    }

    /// WebKit's figures of one list from webkit-compile: its file without the source copy, the
    /// compile's processor time and its peak resident memory above the start; nil when WebKit
    /// rejects the list or does not answer.
    static func measure(_ json: [UInt8], engine: WebKitEngine, name: String) -> WebKitFigures? {
        guard let verdict = try? engine.verdict(json: json), verdict.ok == true, let header = verdict.header else { return nil }
        var figures = WebKitFigures(measuredBy: name)
        figures.bytes = header.actions + header.url + header.topURL + header.frameURL
        figures.seconds = verdict.cpuSeconds ?? verdict.seconds
        if let before = verdict.rssBeforeBytes, let peak = verdict.peakRSSBytes { figures.memoryBytes = max(peak - before, 0) }
        return figures
    }

    /// "WebKitGTK 2.50.6" from the package's "libwebkit2gtk-4.1-0 2.50.6-1~deb12u2".
    static func webKitName(_ package: String) -> String {
        let version = package.split(separator: " ").last.map { String($0.prefix { $0 != "-" && $0 != "+" && $0 != "~" }) } ?? package
        return "WebKitGTK " + version
    }

    /// WebKit's figures for a row: measured, or predicted with the model's worst error on an
    /// unseen list beside each.
    func webKitText(_ figures: WebKitFigures) -> String {
        var parts: [String] = []
        let mark = figures.measuredBy == nil ? "~" : ""
        func error(_ value: Double?) -> String { value.map { " ±" + Self.percent($0) } ?? "" }
        if let bytes = figures.bytes { parts.append("\(mark)\(bytes.grouped) bytes" + error(figures.bytesError)) }
        if let seconds = figures.seconds { parts.append(String(format: "%@%.2g s CPU", mark, seconds) + error(figures.secondsError)) }
        if let memory = figures.memoryBytes { parts.append(String(format: "%@%.0f MB", mark, Double(memory) / 1e6) + error(figures.memoryError)) }
        return parts.isEmpty ? "" : "   WebKit " + parts.joined(separator: ", ")
    }

    /// webkit-compile's folder: beside the corpora folder in a BlockBench checkout (so that a list
    /// repository's CI, run with `--corpora ../blockbench/Corpora`, finds it), else the working
    /// directory's.
    static func webKitFolder(corpora: String) -> String {
        let beside = URL(fileURLWithPath: corpora).deletingLastPathComponent().appendingPathComponent("Benchmarks/Peers/WebKit").path
        return FileManager.default.fileExists(atPath: beside + "/webkit-compile.c") ? beside : "Benchmarks/Peers/WebKit"
    }

    static func percent(_ value: Double) -> String { String(format: "%.0f%%", value) }

    /// A sum's terms by what they predict from: "the url-filters' text + the selectors' text".
    static func words(_ from: [WebKitSizeModel.Predictor]) -> String {
        from.map { "the " + $0.words }.joined(separator: " + ")
    }

    /// `--fit-webkit-model`: the lists made from the shipped lists' rules (WebKitModelCorpus),
    /// each through both compilers; with `--reuse-measurements`, WebKit's figures of a list the
    /// model file already holds are taken from it.
    func fitModel() throws {
        let kept = reuseMeasurements ? WebKitSizeModel.load(corpora: corpora).map { Dictionary($0.samples.map { ($0.list, $0) }, uniquingKeysWith: { a, _ in a }) } ?? [:] : [:]
        let webKit = { WebKitEngine(folder: Self.webKitFolder(corpora: corpora)) }
        let manifest = try CorpusManifest.load(root: corpora)
        let shipped = try manifest.entries(ofKind: "rules").map { ($0.name, try CorpusFiles.read(manifest.path(of: $0))) }
        var samples: [WebKitModelFit.Sample] = []
        for list in WebKitModelCorpus.lists(shipped: shipped) {
            let sample: WebKitModelFit.Sample?
            if let measured = kept[list.name], let reused = WebKitModelFit.sample(list, measured: measured) {
                sample = reused
            } else {
                if let unavailable = webKit().unavailable {
                    print("cannot fit: \(unavailable)")
                    throw ExitCode(1)
                }
                sample = try WebKitModelFit.sample(list, timings: list.json.count > 4_000_000 ? 1 : 2, engine: webKit())
            }
            guard let sample else { continue }
            let memory = sample.webKit[.memory].map { String(format: ", %.0f MB", $0 / 1e6) } ?? ""
            print(String(
                format: "%@: %.0f rules; BlockBench %.0f bytes, %.0f states; WebKit %.0f bytes, %.3f s%@", sample.list,
                sample.figures.values[.rules] ?? 0, sample.figures.values[.compiledBytes] ?? 0, sample.figures.values[.states] ?? 0,
                sample.webKit[.bytes] ?? 0, sample.webKit[.seconds] ?? 0, memory))
            fflush(nil)
            samples.append(sample)
        }
        guard var model = WebKitModelFit.fit(samples, webKit: webKit().version) else {
            print("cannot fit: the samples come from fewer than two lists")
            throw ExitCode(1)
        }
        if webKit().unavailable == nil {
            var checks: [WebKitSizeModel.AttributionCheck] = []
            for (name, json) in shipped {
                guard let check = try WebKitModelFit.attributionCheck(name, json: json, model: model, webKit: webKit) else { continue }
                print(String(
                    format: "%@ without its %d costliest rules: the model put %.0f bytes on them; WebKit's bytes %.0f less (%.0f less without as many rules drawn at random)",
                    name, check.removed, check.attributedBytes, check.measuredDrop, check.randomDrop))
                fflush(nil)
                checks.append(check)
            }
            model.attributionChecks = checks
        }
        for figure in WebKitSizeModel.Figure.allCases {
            guard let law = model.law(figure) else { continue }
            let from = law.terms.map { $0.from }
            let small = WebKitSizeModel.smallListRules
            print("\(figure.rawValue) from \(Self.words(from)): worst error on an unseen list \(Self.percent(law.worstUnseenError(rules: small))) (of \(small.grouped) rules or more), \(Self.percent(law.worstUnseenError(rules: 0))) (of fewer)")
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

    func text(_ path: String, _ report: HeadroomReport, model: WebKitSizeModel?) -> String {
        let rows = report.rows
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
                + (row.webKit.map(webKitText) ?? ""))
        }
        if let measuredBy = rows.lazy.compactMap({ $0.webKit?.measuredBy }).first {
            out.append("  WebKit: measured by \(measuredBy) (its file without the source copy, processor time, peak memory above the start)")
        }
        if let model, rows.contains(where: { $0.webKit != nil && $0.webKit?.measuredBy == nil }) {
            let names: [WebKitSizeModel.Figure: String] = [.bytes: "bytes", .seconds: "compile time", .memory: "peak memory"]
            let froms = WebKitSizeModel.Figure.allCases.compactMap { figure in
                model.law(figure).map { "\(names[figure] ?? figure.rawValue) from \(Self.words($0.terms.map(\.from)))" }
            }
            out.append("  WebKit ~: predicted from BlockBench's reading of the list: " + froms.joined(separator: ", "))
            let side = (rows.first?.rules ?? 0) < WebKitSizeModel.smallListRules ? "fewer than" : "at least"
            out.append("  ±: the worst error of each on the lists left out of its fit, a family at a time, that have \(side) \(WebKitSizeModel.smallListRules.grouped) rules as this one (of \(model.samples.count) lists in \(model.families.count) families)")
        }
        if !report.costliest.isEmpty {
            out.append("  Rules that cost WebKit's compile most (prefix-tree nodes only the rule reaches\(model == nil ? "" : ", and the bytes the model puts on them")):")
            for cost in report.costliest {
                let bytes = cost.bytes.map { "~\($0.grouped) bytes".leftPadded(16) } ?? ""
                let what = cost.urlFilter + (cost.selector.map { " ## " + $0 } ?? "")
                out.append("    #\(cost.rule)".padding(toLength: 12, withPad: " ", startingAt: 0) + "\(cost.nodes.grouped) nodes".leftPadded(13) + bytes
                    + "  " + Self.clipped(what, 90))
            }
        }
        return out.joined(separator: "\n")
    }

    static func clipped(_ text: String, _ length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length - 1)) + "…"
    }
}
