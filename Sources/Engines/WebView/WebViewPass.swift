// WebViewPass.swift — Engines
//
// One pass of real WebKitGTK web views over a plan's pages, with a rule list installed or without
// one (the control): Benchmarks/Peers/WebKit/webkit-view-run loads the pages one after another under
// Xvfb inside a network namespace that has only loopback, through a local server that serves the
// pages and logs every request that reaches it. What a pass returns is what WebKit did: the
// requests each page load sent (with their Cookie header), whether the page loaded, and what the
// page's script read back.
// Tested by ConformanceTests (WebViewTests: the logs read); the passes themselves by .ci/run.

import Foundation

/// A request that reached the server.
public struct ViewLoggedRequest: Sendable, Decodable {
    public var page: Int
    public var method: String
    public var url: String
    public var cookie: String?
}

/// What a page load reported.
public struct ViewPageReport: Sendable {
    public var loaded: Bool
    public var error: String?
    /// Target ids whose computed display is none.
    public var hidden: Set<Int>
    /// Per candidate of the page: the target ids it matches; nil when the browser refused it.
    public var matches: [[Int]?]
    /// Whether the page's script answered at all.
    public var reported: Bool
}

public struct ViewPass: Sendable {
    public var requestsByPage: [Int: [ViewLoggedRequest]]
    public var pages: [Int: ViewPageReport]
    public var seconds: Double
}

public enum WebViewError: Error, CustomStringConvertible {
    /// The web view cannot run here (WebKitGTK, Xvfb, unshare or the built loader missing).
    case unavailable(String)
    /// WebKit refused the rule list.
    case listRefused(String)
    case failed(String)

    public var description: String {
        switch self {
        case .unavailable(let why): "the web view cannot run here: \(why)"
        case .listRefused(let why): "WebKit refused the rule list: \(why)"
        case .failed(let why): "the web view failed: \(why)"
        }
    }
}

public struct WebViewRunner: Sendable {
    /// The folder of webkit-view-run, webkit-view and view_server.py.
    public var folder: String

    public init(folder: String = "Benchmarks/Peers/WebKit") {
        self.folder = folder
    }

    /// Why the web view cannot run here, or nil when it can; builds the loader on first use.
    public func unavailable() -> String? {
        let manager = FileManager.default
        if !manager.isExecutableFile(atPath: folder + "/webkit-view") {
            if Shell.output("pkg-config", ["--exists", "webkit2gtk-4.1"]) == nil {
                return "WebKitGTK is not installed (apt-get install -y --no-install-recommends libwebkit2gtk-4.1-dev xvfb xauth)"
            }
            if Shell.output(folder + "/build.sh", []) == nil || !manager.isExecutableFile(atPath: folder + "/webkit-view") {
                return "\(folder)/build.sh could not build webkit-view"
            }
        }
        for tool in ["xvfb-run", "unshare", "ip"] where Shell.output("sh", ["-c", "command -v \(tool)"])?.isEmpty ?? true {
            return "\(tool) is missing (apt-get install -y --no-install-recommends xvfb xauth util-linux iproute2)"
        }
        return nil
    }

    /// Loads `plan`'s pages with `rules` installed (nil: the control run) in a folder of its own
    /// under `scratch`.
    public func pass(_ plan: ViewPlan, rules: [UInt8]?, name: String, scratch: String, cookies: Bool = true) throws -> ViewPass {
        let directory = scratch + "/" + name
        let manager = FileManager.default
        try? manager.removeItem(atPath: directory)
        try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var pages = Data()
        for load in plan.loads {
            pages.append(try JSONSerialization.data(withJSONObject: ["url": load.url, "html": load.html], options: [.withoutEscapingSlashes]))
            pages.append(UInt8(ascii: "\n"))
        }
        try pages.write(to: URL(fileURLWithPath: directory + "/pages.jsonl"))
        if cookies {
            try Data(plan.hosts.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: directory + "/cookie-hosts.txt"))
        }
        var arguments = [directory, name]
        if let rules {
            try Data(rules).write(to: URL(fileURLWithPath: directory + "/rules.json"))
            arguments.append(directory + "/rules.json")
        }
        // Each page navigates from the one before it, as ViewPlan models the frame URL.
        // No page unloads with requests of its own (no beacons), so the wait after each is short.
        arguments += ["--", "--between", "none", "--drain-ms", "20"]
        let started = ContinuousClock.now
        let process = Process()
        process.executableURL = URL(fileURLWithPath: folder + "/webkit-view-run")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let seconds = (ContinuousClock.now - started).seconds
        let pageLines = (try? Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name)-pages.jsonl"))) ?? Data()
        switch process.terminationStatus {
        case 0: break
        case 3: throw WebViewError.unavailable(errorText.trimmingCharacters(in: .whitespacesAndNewlines))
        case 4:
            let line = String(decoding: pageLines, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            let error = (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["compileError"] as? String
            throw WebViewError.listRefused(error ?? errorText)
        default:
            throw WebViewError.failed("webkit-view-run exited \(process.terminationStatus): \(errorText.suffix(2000)) (logs in \(directory))")
        }
        var requestsByPage: [Int: [ViewLoggedRequest]] = [:]
        let log = (try? Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name)-requests.jsonl"))) ?? Data()
        for line in log.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            guard let request = try? JSONDecoder().decode(ViewLoggedRequest.self, from: Data(line)) else {
                throw WebViewError.failed("unreadable server log line in \(directory): \(String(decoding: line.prefix(200), as: UTF8.self))")
            }
            requestsByPage[request.page, default: []].append(request)
        }
        var reports: [Int: ViewPageReport] = [:]
        for line in pageLines.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any], let page = object["page"] as? Int else {
                throw WebViewError.failed("unreadable page line in \(directory): \(String(decoding: line.prefix(200), as: UTF8.self))")
            }
            let report = object["report"] as? [String: Any]
            let hidden = Set((report?["hidden"] as? [Int]) ?? [])
            let matches = (report?["matches"] as? [Any])?.map { $0 as? [Int] } ?? []
            reports[page] = ViewPageReport(
                loaded: object["loaded"] as? Bool ?? false, error: object["error"] as? String, hidden: hidden, matches: matches, reported: report != nil)
        }
        return ViewPass(requestsByPage: requestsByPage, pages: reports, seconds: seconds)
    }
}
