// WebKitEngine.swift — Engines
//
// The real WebKit compiler as a benchmark engine and a verdict reference: WebKitGTK's
// WebKitUserContentFilterStore, driven by Benchmarks/Peers/WebKit/webkit-compile (our C program; see
// its README) in a separate process that lives as long as the engine and compiles one list per
// JSON line. Detected at run time: without WebKitGTK the engine says so (`unavailable`) and the
// harness goes on without it. When WebKitGTK's development files are there but the tool is not
// built yet, the engine builds it once (Benchmarks/Peers/WebKit/build.sh, a couple of seconds).
//
// What it measures: the compile's wall time as the tool measures it around WebKit's save call
// (without the process's start-up or the transfer), and the compiled file's parts from its 64-byte
// header: the actions and the url, top-url and frame-url bytecode. `bytes` is those four parts,
// WebKit's compiled file without its embedded copy of the JSON source (counted apart). The
// verdict also carries the compile's processor time, and the tool's resident size before the
// compile and its peak during it.
// Tested by ConformanceTests (WebKitParityTests, where WebKitGTK is installed).

internal import Foundation

/// WebKit's answer for one rule list.
public struct WebKitVerdict: Decodable, Sendable {
    public struct Header: Decodable, Sendable {
        public var version: Int
        public var source: Int
        public var actions: Int
        public var url: Int
        public var topURL: Int
        public var frameURL: Int
    }

    public var ok: Bool?
    /// WebKit's error message (the GError's), when it rejected the list.
    public var error: String?
    /// "Error while parsing <pattern>: <reason>" lines WebKit logged while compiling.
    public var reasons: [String]?
    public var seconds: Double?
    /// The tool's processor time over the compile (user and system).
    public var cpuSeconds: Double?
    /// The tool's resident size before the compile and its peak during it (nil without /proc).
    public var rssBeforeBytes: Int?
    public var peakRSSBytes: Int?
    public var header: Header?
    public var fileBytes: Int?
    /// SHA-256 of the compiled file's actions and bytecode: equal for two lists WebKit compiled
    /// to the same program.
    public var compiledSha256: String?
    /// Set when the tool could not read the input line.
    public var inputError: String?
}

public final class WebKitEngine: BenchEngine {
    public let name = "webkit"
    public let about: String
    public let models: Set<BenchmarkModel> = [.compile]
    public let unavailable: String?
    /// The libwebkit2gtk package and version, or "not installed".
    public let version: String
    private let tool: String
    private let child: LineChild

    /// `folder` holds webkit-compile, its source and build.sh.
    public init(folder: String = "Benchmarks/Peers/WebKit") {
        tool = folder + "/webkit-compile"
        child = LineChild(name: "webkit-compile", executable: tool, arguments: ["--batch"])
        version = Shell.output("dpkg-query", ["-W", "-f", "${Package} ${Version}", "libwebkit2gtk-4.1-0"]).flatMap { $0.isEmpty ? nil : $0 }
            ?? "not installed"
        about = "WebKit's own compiler (WebKitGTK, \(version)) through \(folder)/webkit-compile, in a separate process"
        let fileManager = FileManager.default
        if !fileManager.isExecutableFile(atPath: tool) {
            if Shell.output("pkg-config", ["--exists", "webkit2gtk-4.1"]) == nil {
                unavailable = "WebKitGTK is not installed (apt-get install libwebkit2gtk-4.1-dev, then \(folder)/build.sh)"
                return
            }
            if Shell.output(folder + "/build.sh", []) == nil || !fileManager.isExecutableFile(atPath: tool) {
                unavailable = "\(folder)/build.sh could not build webkit-compile"
                return
            }
        }
        unavailable = nil
    }

    public func compile(_ list: BenchList) throws -> CompileRun {
        let verdict = try self.verdict(json: list.json)
        guard verdict.ok == true else {
            let reasons = (verdict.reasons ?? []).prefix(3).joined(separator: "; ")
            throw BenchEngineError.listRejected((verdict.error ?? verdict.inputError ?? "no answer") + (reasons.isEmpty ? "" : " (\(reasons))"))
        }
        guard let header = verdict.header, let seconds = verdict.seconds else {
            throw BenchEngineError.externalEngine("webkit-compile compiled the list but could not read the compiled file's header")
        }
        var run = CompileRun()
        run.ownSeconds = seconds
        run.phases = [Figure("compile", seconds)]
        run.sections = [
            Figure("actions", Double(header.actions)), Figure("url", Double(header.url)),
            Figure("topURL", Double(header.topURL)), Figure("frameURL", Double(header.frameURL)),
        ]
        run.bytes = header.actions + header.url + header.topURL + header.frameURL
        run.counters = [Figure("file bytes with the source copy", Double(verdict.fileBytes ?? 0))]
        return run
    }

    public func matcher(for list: BenchList) throws -> any BenchMatcher {
        throw BenchEngineError.noSuchModel(engine: name, .match)
    }

    /// WebKit's verdict on one list (any bytes: they go base64-encoded).
    public func verdict(json: [UInt8]) throws -> WebKitVerdict {
        if let unavailable { throw BenchEngineError.externalEngine(unavailable) }
        let answer = try child.exchange(Array("{\"id\":1,\"rulesBase64\":\"\(Data(json).base64EncodedString())\"}".utf8))
        do {
            return try JSONDecoder().decode(WebKitVerdict.self, from: Data(answer))
        } catch {
            throw BenchEngineError.externalEngine("webkit-compile answered something unreadable: \(String(decoding: answer.prefix(200), as: UTF8.self))")
        }
    }
}
