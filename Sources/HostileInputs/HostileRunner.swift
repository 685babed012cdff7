// HostileRunner.swift — HostileInputs
//
// Runs a hostile case (HostileCases.swift) in a child process of its own: the given `blockbench`
// executable under `prlimit --as` (the address-space cap: an allocation past it fails, and the
// process ends on a signal) with a wall-time limit (SIGKILL when it passes). The verdict reads
// only how the child ended: a signal, a timeout, an exit code the case does not allow, or a
// failure without a message is a finding, with the command that replays it.
// Tested by HostileInputsTests (HostileSuiteTests).

public import Foundation
internal import Corpus

public struct HostileVerdict: Sendable {
    public var name: String
    public var summary: String
    /// nil when the case passed.
    public var finding: String?
    public var exitCode: Int32?
    public var seconds: Double
    /// The first line the child wrote to standard error (or else to standard output), shortened.
    public var message: String
    /// The child's command line, in the case's folder.
    public var command: String
}

public struct HostileRunner: Sendable {
    /// The `blockbench` executable the cases run.
    public var executable: String
    /// Where each case's folder is made (`<folder>/<case name>`).
    public var folder: URL
    /// Keep the case folders (inputs and outputs) after the run.
    public var keepFiles: Bool

    public init(executable: String, folder: URL, keepFiles: Bool) {
        self.executable = executable
        self.folder = folder
        self.keepFiles = keepFiles
    }

    public func run(_ testCase: HostileCase) throws -> HostileVerdict {
        let caseFolder = folder.appendingPathComponent(testCase.name.replacingOccurrences(of: "/", with: "-"))
        try FileManager.default.createDirectory(at: caseFolder, withIntermediateDirectories: true)
        defer { if !keepFiles { try? FileManager.default.removeItem(at: caseFolder) } }
        for file in try testCase.files() {
            try Data(file.bytes).write(to: caseFolder.appendingPathComponent(file.name))
        }
        let limit = testCase.addressSpaceMiB << 20
        let arguments = ["--as=\(limit)", "--", executable] + testCase.arguments
        let command = (["prlimit"] + arguments).map(Self.quoted).joined(separator: " ")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        process.arguments = arguments
        process.currentDirectoryURL = caseFolder
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let outputPath = caseFolder.appendingPathComponent("stdout.txt")
        let errorPath = caseFolder.appendingPathComponent("stderr.txt")
        // A file not created fails the handle's opening below, with its own error.
        _ = FileManager.default.createFile(atPath: outputPath.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputPath)
        let errors = try FileHandle(forWritingTo: errorPath)
        defer {
            try? output.close()
            try? errors.close()
        }
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice

        let started = ContinuousClock.now
        try process.run()
        let deadline = started + .milliseconds(Int(testCase.seconds * 1000))
        var timedOut = false
        while process.isRunning {
            if ContinuousClock.now > deadline {
                kill(process.processIdentifier, SIGKILL)
                timedOut = true
                break
            }
            usleep(5_000)
        }
        process.waitUntilExit()
        let seconds = (ContinuousClock.now - started).seconds
        // The message: the first line on standard error, or else on standard output (where
        // `check` says why WebKit rejects a list).
        let errorLine = Self.firstLine(of: errorPath)
        let message = errorLine.isEmpty ? Self.firstLine(of: outputPath) : errorLine

        var finding: String?
        var exitCode: Int32?
        if timedOut {
            finding = "did not finish within \(Int(testCase.seconds)) s"
        } else if process.terminationReason == .uncaughtSignal {
            let signal = process.terminationStatus
            finding = "ended on signal \(signal) (\(Self.signalName(signal)))"
                + (signal == SIGABRT || signal == SIGTRAP || signal == SIGSEGV || signal == SIGKILL
                    ? ": a crash, or an allocation past the \(testCase.addressSpaceMiB) MiB address-space cap" : "")
        } else {
            exitCode = process.terminationStatus
            if let allowed = testCase.allowedExits, !allowed.contains(process.terminationStatus) {
                finding = "exit \(process.terminationStatus), expected \(allowed.sorted().map(String.init).joined(separator: " or "))"
            } else if process.terminationStatus != 0 && message.isEmpty {
                finding = "exit \(process.terminationStatus) without a message"
            }
        }
        return HostileVerdict(
            name: testCase.name, summary: testCase.summary, finding: finding, exitCode: exitCode, seconds: seconds,
            message: message, command: command)
    }

    static func firstLine(of file: URL) -> String {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return "" }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4096)) ?? Data()
        let text = String(decoding: head, as: UTF8.self)
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.count > 160 ? String(line.prefix(157)) + "..." : line
    }

    static func quoted(_ argument: String) -> String {
        if argument.count > 200 { return "'" + argument.prefix(40) + "…(\(argument.utf8.count) bytes)'" }
        let safe = argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:".contains($0) }
        return safe && !argument.isEmpty ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGSEGV: "SIGSEGV"
        case SIGABRT: "SIGABRT"
        case SIGTRAP: "SIGTRAP"
        case SIGKILL: "SIGKILL"
        case SIGBUS: "SIGBUS"
        case SIGILL: "SIGILL"
        case SIGFPE: "SIGFPE"
        default: "signal \(signal)"
        }
    }
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
