// EntryPointTests.swift — the libFuzzer entry point's two modes: bytes that drive the generators
// of a level, and raw pattern text; both clean on the real engine, both catching a seeded bug.

import Testing
import Fuzzing

@Suite struct EntryPointTests {
    @Test func generatorDrivenInputsOfEveryLevelAgree() {
        var random = FuzzRandom(seed: 3)
        for mode in 0..<30 {
            let bytes = [UInt8(mode)] + (0..<64).map { _ in UInt8(random.below(256)) }
            #expect(FuzzEntryPoint.check(bytes) == nil, "\(bytes)")
        }
        #expect(FuzzEntryPoint.check([]) == nil)
    }

    @Test func rawPatternsNeverCrashTheParserAndAgreeWhenAccepted() {
        for text in ["a$\na", "[\\x009]$\n", "^^a\nab", "(?<n>a)\\k<n>\nx", "\u{FF}\u{FE}\n", "a{0,4294967295}b\nxb", "[]?\n", "\\\n"] {
            #expect(FuzzEntryPoint.check([0xC0] + Array(text.utf8)) == nil, "\(text)")
        }
    }

    @Test func aSeededBugShowsThroughEitherMode() {
        var runner = CaseRunner()
        runner.patternEngine = ForgetsTheEndOfTheURL()
        #expect(FuzzEntryPoint.check([0xC0] + Array("a$\na".utf8), runner: runner) != nil)
    }
}
