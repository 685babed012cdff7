// blockbench-fuzz-rulelist: libFuzzer's entry (`LLVMFuzzerTestOneInput`) for raw bytes into the
// rule-list JSON reader behind `check` and `compile` (Fuzzing.RuleListEntryPoint: the verdict,
// and a small accepted list compiled, loaded back and asked the fixed requests). It traps on a
// broken property, so libFuzzer keeps the input. Commands (build, seeds, dictionary, a short and a
// long run): docs/FUZZING.md. In a normal build the target replays input files (or folders)
// instead: `.build/debug/blockbench-fuzz-rulelist crash-...`.
// Tested by FuzzingTests/ReaderEntryPointTests.swift; run by .ci/fuzz-readers.

import Fuzzing

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.run(data, size, RuleListEntryPoint.check)
}

#if !BLOCKBENCH_LIBFUZZER
@main
struct ReplayInputs {
    static func main() { FuzzTarget.replay(Array(CommandLine.arguments.dropFirst()), RuleListEntryPoint.check) }
}
#endif
