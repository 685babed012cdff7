// ReportMeta.swift — Benchmarks
//
// Where and with what a run was measured: the machine, the toolchain, the engines' versions, the
// git revision and the command. A report (Reports), a recorded run and the gate's baseline (Gate)
// carry it. Tested by BenchmarksTests and GateTests (BenchTests, GateTests).

internal import Engines
internal import Foundation
internal import PCRE2Oracle

/// Where and with what a report was measured.
public struct ReportMeta: Codable, Hashable, Sendable {
    public var date: String
    public var revision: String
    public var command: String
    public var machine: String
    public var cores: Int
    public var memoryGiB: Double
    public var os: String
    public var toolchain: String
    public var pcre2: String
    public var webkit: String
    /// The PyPI `adblock` package the adblock-rust peer ran with (nil: not recorded).
    public var adblockRust: String?
    /// The uBlock Origin (Debian webext-ublock-origin-firefox) the ublock-origin peer ran with (nil:
    /// not recorded).
    public var ublockOrigin: String?
    /// The Node.js that runs the ublock-origin peer (its `--version` and the program run; nil: not
    /// recorded): uBO's times depend on its JavaScript engine.
    public var ublockOriginNode: String?

    /// The machine, versions and revision now, and the command line of this run.
    public static func ofThisRun() -> ReportMeta {
        current(command: (["blockbench"] + CommandLine.arguments.dropFirst()).joined(separator: " "), pcre2: PCRE2Regex.version)
    }

    /// Reads the machine, the git revision and the tools' versions now.
    public static func current(command: String, pcre2: String) -> ReportMeta {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last!.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        let os = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }
            .map { $0.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) } ?? "unknown OS"
        let kernel = Shell.output("uname", ["-r"]) ?? ""
        var revision = Shell.output("git", ["rev-parse", "--short=10", "HEAD"]) ?? "unknown"
        if let status = Shell.output("git", ["status", "--porcelain", "--untracked-files=no"]), !status.isEmpty { revision += "-dirty" }
        let toolchain = Shell.output("swift", ["--version"])?.split(separator: "\n").first.map(String.init) ?? "unknown"
        let webkit = Shell.output("dpkg-query", ["-W", "-f", "${Package} ${Version}", "libwebkit2gtk-4.1-0"]) ?? "not installed"
        return ReportMeta(
            date: formatter.string(from: Date()), revision: revision, command: command, machine: cpu,
            cores: ProcessInfo.processInfo.activeProcessorCount,
            memoryGiB: (Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824 * 10).rounded() / 10,
            os: os + (kernel.isEmpty ? "" : ", Linux \(kernel)"), toolchain: toolchain, pcre2: pcre2,
            webkit: webkit.isEmpty ? "not installed" : webkit,
            adblockRust: AdblockRustEngine.installedVersion(),
            ublockOrigin: UBlockOriginEngine.installedVersion(), ublockOriginNode: UBlockOriginEngine.nodeVersion())
    }

    /// `2026-11-23-1a2b3c4d5e`: the report's folder name.
    public var folderName: String { String(date.prefix(10)) + "-" + revision }
}
