// `blockbench hostile`: the hostile-input suite (Sources/HostileInputs). Every case (huge and
// deep inputs, hostile counts in compiled files, line ends, encodings) runs `blockbench` in a
// child process under its address-space and time caps; a crash, an abort, a hang or a failure
// without a message is a finding, printed with the command that replays it. Exit 0 when every
// case passes, 2 on any finding, 1 on an error.
// Tested by HostileInputsTests (HostileSuiteTests: the cases it runs, through the same runner).

import ArgumentParser
import Foundation
import HostileInputs

struct HostileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hostile",
        abstract: "Run the hostile-input suite: each case in a child process under its memory and time caps (exit 2 on any finding).")

    @Option(name: .customLong("case"), help: "Run only the cases whose name starts with this (repeatable), e.g. depth/ or size/gzip-bomb.")
    var cases: [String] = []

    @Flag(help: "List the cases and exit.")
    var list = false

    @Option(help: "Where the case folders go (default: a new folder in the temporary directory).")
    var folder: String?

    @Flag(help: "Keep each case's folder: its inputs, and the child's stdout.txt and stderr.txt.")
    var keep = false

    @Option(help: "The blockbench executable the cases run (default: this one).")
    var executable: String?

    func run() throws {
        let selected = HostileCases.all().filter { testCase in cases.isEmpty || cases.contains { testCase.name.hasPrefix($0) } }
        if list {
            for testCase in selected {
                print("\(testCase.name.padding(toLength: 34, withPad: " ", startingAt: 0)) \(testCase.summary)")
            }
            return
        }
        guard !selected.isEmpty else { throw ValidationError("no case starts with \(cases.joined(separator: " or "))") }
        let executable = executable ?? Self.thisExecutable()
        let root = folder.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("blockbench-hostile-\(getpid())")
        let runner = HostileRunner(executable: executable, folder: root, keepFiles: keep)
        defer { if !keep && folder == nil { try? FileManager.default.removeItem(at: root) } }
        print("blockbench hostile: \(selected.count) cases, each in a child process of \(executable) under its caps")
        var findings: [HostileVerdict] = []
        var counted: [HostileCase.Kind: (cases: Int, seconds: Double)] = [:]
        for testCase in selected {
            let verdict = try runner.run(testCase)
            counted[testCase.kind, default: (0, 0)].cases += 1
            counted[testCase.kind, default: (0, 0)].seconds += verdict.seconds
            // The many small counts cases are summed up below; every other case gets its line.
            if verdict.finding != nil || testCase.kind != .counts {
                let outcome = verdict.finding.map { "FINDING: \($0)" } ?? "pass"
                let exit = verdict.exitCode.map { "exit \($0)" } ?? "no exit"
                print(String(format: "  %@ %@ (%@, %.1f s, cap %d MiB %.0f s)", outcome, testCase.name, exit, verdict.seconds,
                    testCase.addressSpaceMiB, testCase.seconds))
                if !verdict.message.isEmpty { print("      \(verdict.message)") }
            }
            if let finding = verdict.finding {
                findings.append(verdict)
                print("      \(testCase.summary): \(finding)")
                print("      replay: swift run -c release blockbench hostile --case \(testCase.name) --keep")
                print("      child:  \(verdict.command)")
            }
        }
        for kind in HostileCase.Kind.allCases {
            guard let tally = counted[kind] else { continue }
            print(String(format: "%@: %d cases, %.1f s", kind.rawValue, tally.cases, tally.seconds))
        }
        if findings.isEmpty {
            print("no findings: every case ended with an allowed exit and a message, within its caps")
        } else {
            print("\(findings.count) finding\(findings.count == 1 ? "" : "s"): \(findings.map(\.name).joined(separator: ", "))")
            throw ExitCode(2)
        }
    }

    static func thisExecutable() -> String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
