// ReadmeFigures.swift — Reports
//
// The headline figures of the repository's README, written from one committed results file,
// `Reports/readme-results.json` (a report's results.json, copied there by `blockbench report
// --readme --from REPORT`; report folders themselves are build output, not committed), by
// `blockbench report --readme`. The README holds them between two marker lines:
//
//     <!-- figures:begin ... -->
//     ...
//     <!-- figures:end -->
//
// and only those lines and what lies between them are replaced: a begin line naming the report and
// the command that wrote the block, the machine and versions of the report (the peers' and the
// Node that ran uBlock Origin among them), the commands that reproduce it, one table of compile
// benchmarks and one of match benchmarks, each with BlockBench beside every other engine that ran
// (PCRE2, WebKit when the report has it, the peers adblock-rust and uBlock Origin when they ran)
// and the ratio of that engine's figure to BlockBench's in the same run, and a table of the
// resident memory each engine's load added, per set of lists matched. Every figure comes from the
// results file. The file is replaced atomically: a temporary file in the same folder, then
// rename(2).
//
// Tested by BlockBenchCLITests/ReadmeFiguresTests.swift (a report fixture adopted as the results
// file; text outside the markers unchanged; missing or repeated markers refused) and
// ReportsTests/ReadmeBlockTests.swift (the peers' columns and the memory table).

internal import Foundation
#if canImport(Glibc)
internal import Glibc
internal import Benchmarks
internal import TerminalText
#endif

public enum ReadmeFiguresError: Error, CustomStringConvertible, Equatable {
    /// No report folder (with a results.json) under the reports folder.
    case noReport(reportsFolder: String)
    /// The named report is not a folder with a readable results.json.
    case unreadableReport(path: String, reason: String)
    /// The README cannot be read.
    case unreadableReadme(file: String)
    /// The README has no begin marker line.
    case noBeginMarker(file: String)
    /// The README has a begin marker but no end marker after it.
    case noEndMarker(file: String)
    /// More than one begin or end marker: which block to replace is not clear.
    case repeatedMarker(file: String)

    public var description: String {
        let markers = "`\(ReadmeFigures.beginMarker) -->` and `\(ReadmeFigures.endMarker)`"
        switch self {
        case .noReport(let folder):
            return "no report under \(folder)/ (a folder with a results.json, as `blockbench report` writes)"
        case .unreadableReport(let path, let reason):
            return "\(path) is not a readable report: \(reason)"
        case .unreadableReadme(let file):
            return "cannot read \(file) (run from the repository's root, or name the file with --readme-file)"
        case .noBeginMarker(let file):
            return "\(file) has no line starting with `\(ReadmeFigures.beginMarker)`: put the lines \(markers) where the figures go"
        case .noEndMarker(let file):
            return "\(file) has a `\(ReadmeFigures.beginMarker)` line but no `\(ReadmeFigures.endMarker)` line after it"
        case .repeatedMarker(let file):
            return "\(file) has more than one figures block: keep one pair of lines \(markers)"
        }
    }
}

public enum ReadmeFigures {
    public static let beginMarker = "<!-- figures:begin"
    public static let endMarker = "<!-- figures:end -->"
    /// The command that writes the block, as the block names it.
    public static let command = "swift run -c release blockbench report --readme"
    /// The results file the figures are written from, in the reports folder.
    public static let resultsFile = "readme-results.json"

    /// Copies a report folder's results.json (or a results file) to `<reportsFolder>/readme-results.json`,
    /// atomically; returns the copy's path.
    @discardableResult
    public static func adopt(report: String, into reportsFolder: String) throws -> String {
        let source = report.hasSuffix(".json") ? report : report + "/results.json"
        _ = try load(results: source)
        let target = reportsFolder + "/" + resultsFile
        guard URL(fileURLWithPath: source).standardizedFileURL != URL(fileURLWithPath: target).standardizedFileURL else { return target }
        let text = try String(contentsOfFile: source, encoding: .utf8)
        try writeAtomically(text, to: target)
        return target
    }

    // MARK: Finding and reading the report

    /// The report folder under `reportsFolder` measured last (by the date in its results.json).
    public static func newestReport(in reportsFolder: String) throws -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: reportsFolder)) ?? []
        var newest: (date: String, folder: String)?
        for name in names.sorted() where !name.hasPrefix(".") {
            let folder = reportsFolder + "/" + name
            guard let report = try? load(reportFolder: folder) else { continue }
            if newest == nil || report.meta.date > newest!.date { newest = (report.meta.date, folder) }
        }
        guard let newest else { throw ReadmeFiguresError.noReport(reportsFolder: reportsFolder) }
        return newest.folder
    }

    /// The results.json of a report folder.
    public static func load(reportFolder: String) throws -> Report {
        try load(results: reportFolder + "/results.json")
    }

    /// A results file (a report's results.json, or the README's copy of one).
    public static func load(results path: String) throws -> Report {
        let reportFolder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ReadmeFiguresError.unreadableReport(path: reportFolder, reason: "cannot read \(path)")
        }
        do {
            return try JSONDecoder().decode(Report.self, from: data)
        } catch {
            throw ReadmeFiguresError.unreadableReport(path: reportFolder, reason: "\(path) does not decode: \(error)")
        }
    }

    // MARK: The block

    /// The block's lines, markers included. `link` is the results file's path relative to the
    /// README's folder.
    public static func block(_ report: Report, link: String) -> String {
        let meta = report.meta
        var lines = [
            "\(beginMarker): written by `\(command)` from \(link); edit the results file, not these lines -->",
            "Measured in one run (report \(meta.folderName), every figure in [\(link)](\(link)), \(meta.date.prefix(10)), revision \(meta.revision)) on "
                + "\(meta.machine), \(meta.cores) cores; \(meta.os); \(meta.toolchain); PCRE2 \(meta.pcre2); WebKitGTK \(meta.webkit).",
        ]
        let peers = report.benchmarks.flatMap(\.engines).contains { $0.peer == true && $0.status == .ok }
        if peers {
            lines[1] += " Peers: adblock-rust (PyPI adblock) \(meta.adblockRust ?? "not recorded"); uBlock Origin \(meta.ublockOrigin ?? "not recorded")"
                + " under Node.js \(meta.ublockOriginNode ?? "not recorded")."
        }
        lines.append(
            "Reproduce (release build, from the repository's root): `swift run -c release \(meta.command)`, then "
                + "`\(command) --from <its report folder>`.")
        lines.append("Every engine's answers\(peers ? " (a peer's aside)" : "") were checked against the PCRE2 oracle before its time counted. In brackets: the")
        lines.append("engine's figure over BlockBench's in the same run (above 1: BlockBench is that many times faster or smaller).")
        if peers {
            lines.append(
                "A peer, marked (peer), reads the lists' Adblock Plus text with its own semantics: measured, not conformed (the report gives "
                    + "how often its block verdicts agree with BlockBench's).")
        }
        var sampled = false
        for model in [BenchmarkDefinition.Model.compile, .match] {
            let results = report.benchmarks.filter { $0.model == model }
            let others = otherEngines(results)
            guard !results.isEmpty, !others.isEmpty else { continue }
            let engines = ["blockbench"] + others
            let title = model == .compile ? "compile (JSON to a compiled list): time, bytes" : "match per request: median, p99"
            let count = model == .compile ? "rules" : "requests"
            lines.append("")
            lines.append(row([title, count] + engines.map(engineTitle)))
            lines.append(row(Array(repeating: "---", count: engines.count + 2)))
            for result in results {
                let ours = result.engines.first { $0.engine == "blockbench" }
                let lists = result.listsLabel
                let what = model == .compile ? lists : "\(lists) × \(result.requests ?? "?")"
                let size = model == .compile ? result.ruleCount : (result.requestCount ?? ours?.requests ?? 0)
                var cells = [what, HumanReadable.count(size)]
                for name in engines {
                    let cell = self.cell(result.engines.first { $0.engine == name }, ours: name == "blockbench" ? nil : ours)
                    if cell.hasSuffix("*") { sampled = true }
                    cells.append(cell)
                }
                lines.append(row(cells))
            }
        }
        lines += memoryTable(report.benchmarks.filter { $0.model == .match })
        if sampled {
            lines.append("")
            lines.append("\\* an evenly spaced sample of the requests (the report's tables give its size).")
        }
        if report.benchmarks.contains(where: { $0.apart == true }) {
            lines.append("")
            lines.append("(apart): the lists compiled on their own and each asked about every request, as two Safari extensions install them.")
        }
        lines.append(endMarker)
        return lines.joined(separator: "\n")
    }

    /// The engines other than BlockBench that measured something in `results`, WebKit and the
    /// PCRE2 engines first.
    static func otherEngines(_ results: [BenchmarkResult]) -> [String] {
        var names: [String] = []
        for result in results {
            for engine in result.engines where engine.engine != "blockbench" && engine.status == .ok && !names.contains(engine.engine) {
                names.append(engine.engine)
            }
        }
        let order = ["webkit", "pcre2-jit", "pcre2"]
        return names.sorted { (order.firstIndex(of: $0) ?? order.count, $0) < (order.firstIndex(of: $1) ?? order.count, $1) }
    }

    static func engineTitle(_ name: String) -> String {
        switch name {
        case "blockbench": "BlockBench"
        case "webkit": "WebKit"
        case "pcre2-jit": "PCRE2 JIT, every rule"
        case "pcre2": "PCRE2 interpreter, every rule"
        case "adblock-rust": "adblock-rust (peer)"
        case "ublock-origin": "uBlock Origin (peer)"
        default: name
        }
    }

    /// The resident memory table: per set of lists matched (the first match benchmark of each),
    /// what loading them added to a fresh process's anonymous resident memory, for every engine
    /// that measured it, BlockBench first; none when no engine did.
    static func memoryTable(_ results: [BenchmarkResult]) -> [String] {
        var rows: [(lists: String, engines: [EngineResult])] = []
        for result in results {
            let lists = result.listsLabel
            let measured = result.engines.filter { $0.status == .ok && $0.residentAfterLoad != nil }
            guard !measured.isEmpty, !rows.contains(where: { $0.lists == lists }) else { continue }
            rows.append((lists, measured))
        }
        guard !rows.isEmpty else { return [] }
        let others = otherEngines(results).filter { name in rows.contains { $0.engines.contains { $0.engine == name } } }
        let engines = ["blockbench"] + others
        var lines = [
            "",
            row(["resident memory after load: RssAnon added, over the bytes loaded"] + engines.map(engineTitle)),
            row(Array(repeating: "---", count: engines.count + 1)),
        ]
        for (lists, measured) in rows {
            let ours = measured.first { $0.engine == "blockbench" }?.residentAfterLoad
            lines.append(row([lists] + engines.map { name in
                guard let figures = measured.first(where: { $0.engine == name })?.residentAfterLoad else { return "" }
                var text = HumanReadable.bytes(max(0, figures.anonymousGrowth))
                if let times = figures.timesLoadedBytes { text += ", " + HumanReadable.ratio(times) + " loaded" }
                if name != "blockbench", let ours, ours.anonymousGrowth > 0 {
                    text += " (" + ratio(Double(max(0, figures.anonymousGrowth)) / Double(ours.anonymousGrowth)) + ")"
                }
                return text
            }))
        }
        lines.append("")
        lines.append(
            "Resident memory after load: what loading the lists added to a fresh process's anonymous resident memory (RssAnon); "
                + "loaded: BlockBench's compiled files, adblock-rust's serialized engines, uBlock Origin's selfies.")
        return lines
    }

    /// A compile: `523.6 ms, 2171.7 KB`, or with its ratios to BlockBench's: `1.00 s, 92.8 MB (1.92x,
    /// 42.7x)`. A match: median and p99, `741 ns, p99 4.08 µs`, or `3.93 µs, p99 20.5 µs (5.30x, 5.02x)`.
    static func cell(_ engine: EngineResult?, ours: EngineResult?) -> String {
        guard let engine else { return "" }
        guard engine.status == .ok, let time = engine.headlineTime else { return engine.status.rawValue }
        var text = HumanReadable.duration(nanoseconds: time)
        if let latency = engine.latency { text += ", p99 " + HumanReadable.duration(nanoseconds: latency.p99Nanoseconds) }
        if engine.latency == nil, let bytes = engine.bytes { text += ", " + HumanReadable.bytes(bytes) }
        if let ours, let base = ours.headlineTime, base > 0 {
            var ratios = [ratio(time / base)]
            if let p99 = engine.latency?.p99Nanoseconds, let ourP99 = ours.latency?.p99Nanoseconds, ourP99 > 0 {
                ratios.append(ratio(p99 / ourP99))
            }
            if engine.latency == nil, let bytes = engine.bytes, let ourBytes = ours.bytes, ourBytes > 0 {
                ratios.append(ratio(Double(bytes) / Double(ourBytes)))
            }
            text += " (" + ratios.joined(separator: ", ") + ")"
        }
        if engine.sampled == true { text += "*" }
        return text
    }

    /// `0.83x`, `42.7x`, `24,735x`.
    static func ratio(_ value: Double) -> String {
        value < 1000 ? HumanReadable.ratio(value) : HumanReadable.count(Int(value.rounded())) + "x"
    }

    static func row(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |" }

    // MARK: Replacing it

    /// `text` with its figures block (the begin marker's line through the end marker's line,
    /// without the end line's line break) replaced by `block`; every other byte as it was. The
    /// block's lines end as the begin line does ("\r\n" or "\n"). `file` names the text in errors.
    public static func replacingBlock(in text: String, with block: String, file: String) throws -> String {
        // Bytes, not Characters: "\r\n" is one Character, and a line may end either way.
        let bytes = Array(text.utf8)
        var starts = [0]
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") && offset + 1 < bytes.count { starts.append(offset + 1) }
        /// The line's bytes without its line break.
        func content(_ line: Int) -> ArraySlice<UInt8> {
            var end = line + 1 < starts.count ? starts[line + 1] : bytes.count
            if end > starts[line] && bytes[end - 1] == UInt8(ascii: "\n") { end -= 1 }
            if end > starts[line] && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            return bytes[starts[line]..<end]
        }
        func line(_ line: Int, startsWith marker: String) -> Bool {
            content(line).drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }.starts(with: marker.utf8)
        }
        let begins = starts.indices.filter { line($0, startsWith: beginMarker) }
        let ends = starts.indices.filter { line($0, startsWith: endMarker) }
        guard let begin = begins.first else { throw ReadmeFiguresError.noBeginMarker(file: file) }
        guard begins.count == 1, ends.count <= 1 else { throw ReadmeFiguresError.repeatedMarker(file: file) }
        guard let end = ends.first, end > begin else { throw ReadmeFiguresError.noEndMarker(file: file) }
        let beginLine = content(begin)
        let lineBreak = beginLine.endIndex < bytes.count && bytes[beginLine.endIndex] == UInt8(ascii: "\r") ? "\r\n" : "\n"
        let blockBytes = Array(block.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: lineBreak).utf8)
        return String(decoding: bytes[..<starts[begin]] + blockBytes + bytes[content(end).endIndex...], as: UTF8.self)
    }

    /// Rewrites the figures block of the README at `readme` from the results file `results`
    /// (atomically); returns the report.
    @discardableResult
    public static func update(readme: String, results: String) throws -> Report {
        let report = try load(results: results)
        guard let text = try? String(contentsOfFile: readme, encoding: .utf8) else { throw ReadmeFiguresError.unreadableReadme(file: readme) }
        let readmeFolder = URL(fileURLWithPath: readme).deletingLastPathComponent().path
        let link = relativePath(of: results, from: readmeFolder)
        let new = try replacingBlock(in: text, with: block(report, link: link), file: readme)
        if new != text { try writeAtomically(new, to: readme) }
        return report
    }

    /// `path` relative to the folder `base` (both made absolute and standardized first).
    static func relativePath(of path: String, from base: String) -> String {
        func components(_ path: String) -> [String] {
            URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().pathComponents.filter { $0 != "/" }
        }
        let target = components(path)
        let from = components(base)
        var shared = 0
        while shared < min(target.count, from.count) && target[shared] == from[shared] { shared += 1 }
        let parts = Array(repeating: "..", count: from.count - shared) + target[shared...]
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    /// Writes a temporary file beside `path`, then renames it over `path`: a reader sees the old
    /// file or the new one, never a part.
    static func writeAtomically(_ text: String, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path), let permissions = attributes[.posixPermissions] {
            try? FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: temporary)
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "cannot replace \(path): \(reason)"])
        }
    }
}
