// blockbench-fuzz-compiled: libFuzzer's entry (`LLVMFuzzerTestOneInput`) for raw bytes into the
// compiled-file loader and validator (CompiledRuleList(validating:), as CompiledRuleList.load reads
// a file), a file that loads then asked the fixed requests (Fuzzing.CompiledFileEntryPoint). It
// traps on a broken property, so libFuzzer keeps the input. Commands: docs/FUZZING.md.
//
// Seeds are compiled, not committed: with BLOCKBENCH_FUZZ_WRITE_SEEDS=FOLDER (and
// BLOCKBENCH_FUZZ_CORPORA=Corpora for the small shipped lists) the fuzzer binary writes them and
// exits before fuzzing (`LLVMFuzzerInitialize`); a normal build does the same with
// `--write-seeds FOLDER [--corpora Corpora]`, and otherwise replays input files (or folders).
// Tested by FuzzingTests/ReaderEntryPointTests.swift; run by .ci/fuzz-readers.

import Foundation
import Fuzzing

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.run(data, size, CompiledFileEntryPoint.check)
}

/// Writes the seeds and exits when BLOCKBENCH_FUZZ_WRITE_SEEDS names a folder.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    let environment = ProcessInfo.processInfo.environment
    if let folder = environment["BLOCKBENCH_FUZZ_WRITE_SEEDS"] {
        writeSeeds(to: folder, corpora: environment["BLOCKBENCH_FUZZ_CORPORA"])
    }
    return 0
}

func writeSeeds(to folder: String, corpora: String?) -> Never {
    do {
        let count = try CompiledFileEntryPoint.writeSeeds(to: folder, corpora: corpora)
        print("\(count) compiled seeds written to \(folder)")
        exit(0)
    } catch {
        print("seeds not written: \(error)")
        exit(1)
    }
}

#if !BLOCKBENCH_LIBFUZZER
@main
struct ReplayInputs {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--write-seeds", arguments.count >= 2 {
            let corpora = arguments.count >= 4 && arguments[2] == "--corpora" ? arguments[3] : nil
            writeSeeds(to: arguments[1], corpora: corpora)
        }
        FuzzTarget.replay(arguments, CompiledFileEntryPoint.check)
    }
}
#endif
