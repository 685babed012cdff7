// Shell.swift — Engines
//
// A command's output, for the versions of the tools the engines run (WebKitGTK, git, swift) and
// for building WebKit's helpers. Tested through WebKitParityTests and BenchTests.

internal import Foundation

/// A command's standard output, trimmed; nil when it cannot run or fails.
package enum Shell {
    package static func output(_ command: String, _ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return nil
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
