// `blockbench load FILE...`: loads compiled files as a browser does (each read and validated, the
// lists made into one `ContentBlockers`) and prints the load's time, the resident memory it
// added to this process, fresh: nothing else has run in it (Engines/ResidentAfterLoad.swift says
// what is counted), and what the loaded lists hold by structure (Search/HeldMemory.swift). The benchmarks run it in a process of its own for each match benchmark's
// resident memory after load.
// Tested by BlockBenchCLITests/CLITests.swift (CompileAndMatchCommandTests).

import ArgumentParser
import Search
import Engines
import Foundation
import TerminalText

struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load compiled files as a browser does and print the resident memory the load added.")

    @Argument(help: "Files written by `blockbench compile` (several: one content blocker each).")
    var files: [String]

    @Flag(help: "Print the figures as JSON.")
    var json = false

    @Flag(help: "Load the tables without huge pages (`TablePages.huge` off), as an embedder that turns them off does.")
    var noHugePages = false

    @Option(help: ArgumentHelp(
        "Load each list's dense tables within this many bytes (0: every program runs compact; default: \(DenseBudget.standard.bytes)).",
        valueName: "bytes"))
    var denseBudget: Int?

    func validate() throws {
        if files.isEmpty { throw ValidationError("name a compiled file") }
        if let denseBudget, denseBudget < 0 { throw ValidationError("--dense-budget takes bytes, 0 or more") }
    }

    func run() throws {
        if noHugePages { TablePages.huge = false }
        let (figures, seconds) = try ResidentAfterLoad.measureLoading(files: files, denseBudgetBytes: denseBudget)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(figures), as: UTF8.self))
            return
        }
        print("\(files.joined(separator: " + ")): \(HumanReadable.count(figures.loadedBytes)) bytes loaded in \(HumanReadable.duration(seconds: seconds))"
            + (denseBudget.map { ", dense tables within \(HumanReadable.count($0)) bytes" } ?? ""))
        print("  anonymous resident memory (RssAnon) +\(HumanReadable.bytes(figures.anonymousGrowth))"
            + (figures.timesLoadedBytes.map { String(format: " (%.2fx the files' bytes)", $0) } ?? ""))
        print("  all resident memory (VmRSS)         +\(HumanReadable.bytes(figures.residentGrowth)), \(HumanReadable.bytes(figures.residentAfter)) in all")
        guard let held = figures.held, let total = figures.heldBytes else { return }
        print("  held by the loaded structures       \(HumanReadable.count(total)) bytes"
            + (figures.heldTimesLoadedBytes.map { String(format: " (%.2fx the files' bytes)", $0) } ?? "")
            + (figures.heldSpareCapacity.map { ", \(HumanReadable.count($0)) of them arrays' spare capacity" } ?? ""))
        let width = held.map(\.name.count).max() ?? 0
        for part in held.sorted(by: { $0.value > $1.value }) {
            let bytes = HumanReadable.count(Int(part.value))
            print("    " + part.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                + String(repeating: " ", count: max(0, 11 - bytes.count)) + bytes
                + String(format: "  %5.1f%%", 100 * part.value / Double(max(total, 1))))
        }
    }
}
