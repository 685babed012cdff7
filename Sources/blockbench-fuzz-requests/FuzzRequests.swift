// blockbench-fuzz-requests: libFuzzer's entry (`LLVMFuzzerTestOneInput`) for raw bytes into the
// request-set readers (Corpus: RequestSets, requests-json, requests-tsv, the site lists; gzip
// through CorpusFiles.gunzip), the requests read then answered (Fuzzing.RequestSetEntryPoint;
// the input's first byte picks the reader). It traps on a broken property, so libFuzzer keeps the
// input. Commands: docs/FUZZING.md. In a normal build the target replays input files (or folders).
// Tested by FuzzingTests/ReaderEntryPointTests.swift; run by .ci/fuzz-readers.

import Fuzzing

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.run(data, size, RequestSetEntryPoint.check)
}

#if !BLOCKBENCH_LIBFUZZER
@main
struct ReplayInputs {
    static func main() { FuzzTarget.replay(Array(CommandLine.arguments.dropFirst()), RequestSetEntryPoint.check) }
}
#endif
