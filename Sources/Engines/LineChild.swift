// LineChild.swift — Engines
//
// A child process spoken to in lines: each request is one line on its standard input, each answer
// one line on its standard output (its standard error is discarded). The child reads a whole line
// before it answers: the request is written before the answer is read. The external engines
// (WebKit's compiler, adblock-rust) run this way, one child for as long as the engine lives, so
// that its start-up is paid once and never timed.
// Tested by EnginesTests (LineChildTests).

import Foundation

final class LineChild {
    /// How messages name the child.
    let name: String
    private let executable: String
    private let arguments: [String]
    private var process: Process?
    private var input: FileHandle?
    private var output: FileHandle?
    /// What the child wrote that is not yet read, from `readStart` on.
    private var buffered: [UInt8] = []
    private var readStart = 0

    /// A write to a child that has ended (or is ending) fails with EPIPE, which `exchange` reports,
    /// instead of raising SIGPIPE, which would end this process: SIGPIPE is ignored, once, before
    /// the first child starts.
    private static let brokenPipesAreErrors: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    init(name: String, executable: String, arguments: [String]) {
        self.name = name
        self.executable = executable
        self.arguments = arguments
    }

    deinit {
        try? input?.close()
        process?.waitUntilExit()
    }

    /// Starts the child unless it runs; true when it was started now (a new child knows nothing
    /// of what its predecessor was told).
    @discardableResult
    func start() throws -> Bool {
        if process?.isRunning == true { return false }
        _ = Self.brokenPipesAreErrors
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw BenchEngineError.externalEngine("cannot start \(name): \(error)")
        }
        self.process = process
        input = stdin.fileHandleForWriting
        output = stdout.fileHandleForReading
        buffered = []
        readStart = 0
        return true
    }

    /// Sends `line` (without its newline) and returns the answer line. The child is started when
    /// none runs (never started, or stopped); one that has ended since the last exchange is an
    /// error, like one that takes no input or ends without answering, and is stopped, so that the
    /// next exchange starts another. A caller whose child holds state (`start` said so) is never
    /// sent to a replacement it did not see start.
    func exchange(_ line: [UInt8]) throws -> [UInt8] {
        if process == nil { try start() }
        guard process?.isRunning == true else {
            stop()
            throw BenchEngineError.externalEngine("\(name) ended before this request (it may have crashed)")
        }
        do {
            try input!.write(contentsOf: line + [UInt8(ascii: "\n")])
        } catch {
            stop()
            throw BenchEngineError.externalEngine("\(name) stopped taking input: \(error)")
        }
        guard let answer = readLine() else {
            stop()
            throw BenchEngineError.externalEngine("\(name) ended without an answer (it may have crashed)")
        }
        return answer
    }

    func stop() {
        try? input?.close()
        process?.terminate()
        process?.waitUntilExit()
        process = nil
    }

    /// The next line of the child's output, without its newline; nil at its end.
    private func readLine() -> [UInt8]? {
        while true {
            if let newline = buffered[readStart...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffered[readStart..<newline])
                readStart = newline + 1
                if readStart == buffered.count {
                    buffered.removeAll(keepingCapacity: true)
                    readStart = 0
                }
                return line
            }
            // `availableData` returns what the pipe holds (waiting for some); `read(upToCount:)`
            // would wait for the whole count.
            guard let chunk = output?.availableData, !chunk.isEmpty else { return nil }
            buffered += chunk
        }
    }
}
