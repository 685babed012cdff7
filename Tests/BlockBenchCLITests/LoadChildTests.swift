// LoadChildTests.swift — `blockbench load` in a process of its own, as the benchmarks run it: the
// resident memory a load adds is what the loaded lists hold, and little more, because
// glibc's allocator gives back what the load let go (Search/TableMemory.swift, `LoadScratch`,
// after each file) and is held still around the load (Engines/ResidentAfterLoad.swift,
// `SteadyAllocator`). Run as a child (the `blockbench` built beside this test process), not in
// this process, whose memory other suites' threads move and whose glibc bins they fill.

import Benchmarks
import ContentBlocker
import Foundation
import Testing

@Suite struct LoadChildTests {
    /// The `blockbench` executable built beside this test process (`swift build` and `swift test`
    /// build it with the tests), nil where there is none.
    private static var executable: String? {
        guard let runner = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let path = URL(fileURLWithPath: runner).deletingLastPathComponent().appendingPathComponent("blockbench").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// A list of `count` rules, each blocking URLs whose path holds a segment of its own (five
    /// letters and the rule's number): compiled, one large automaton, whose tables a load makes
    /// through buffers past glibc's starting threshold for mapping a block (128 KB).
    private static func pathList(count: Int) -> [UInt8] {
        let rules = (0..<count).map { rule in
            var bits = UInt64(rule + 1) &* 0x9E37_79B9_7F4A_7C15
            var word = ""
            for _ in 0..<5 {
                word.append(Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(bits % 26))))
                bits /= 26
            }
            return #"{"trigger":{"url-filter":"/\#(word)\#(rule)/"},"action":{"type":"block"}}"#
        }
        return Array("[\(rules.joined(separator: ","))]".utf8)
    }

    /// What `blockbench load files --json` says in a fresh process (as the benchmarks read it):
    /// the anonymous resident memory the load added, the bytes the loaded lists hold by
    /// structure, and the files' bytes.
    private func load(_ executable: String, _ files: [String]) throws -> (growth: Int, held: Int, loaded: Int) {
        let figures = try OwnProcessMemory.residentAfterLoad(executable, files: files)
        let held = try #require(figures.heldBytes)
        return (figures.anonymousAfter - figures.anonymousBefore, held, figures.loadedBytes)
    }

    /// `blockbench load` of a list, then of the list twice over, each in a process of its own:
    /// each adds what its lists hold and little more (the allocator's own overhead), and the
    /// second copy of the list adds what that copy holds, to a few pages, whatever the
    /// overhead. (With glibc's allocator left to move its threshold for mapping a block, or not
    /// trimmed, some of the buffers a load let go stay resident in its heaps, more or fewer of
    /// them as the lists are more: the second copy adds well past the bound more or less than it
    /// holds.)
    @Test func aLoadAddsWhatItsListsHold() throws {
        #if os(Linux)
        let executable = try #require(Self.executable, "blockbench beside the test process")
        let (compiled, _) = try RuleListCompiler.compile(json: Self.pathList(count: 1500))
        let bytes = compiled.serialized()
        let file = try temporaryFile(bytes, suffix: ".bbc")
        let (once, twice) = (try load(executable, [file]), try load(executable, [file, file]))
        for run in [once, twice] {
            // The lists' structures are resident (their tables touched as they are made), and
            // what the load let go is not: a third of that more at most.
            #expect(run.growth > run.held / 2 && run.growth - run.held < run.held / 3,
                "anonymous resident memory +\(run.growth) bytes, the lists hold \(run.held), their files \(run.loaded)")
        }
        #expect(once.loaded == bytes.count && twice.loaded == 2 * bytes.count)
        let (added, held) = (twice.growth - once.growth, twice.held - once.held)
        #expect(abs(added - held) <= 64 << 10, "the list's second copy added \(added) bytes and holds \(held)")
        #endif
    }
}
