// blockbench-fuzz-entry: the libFuzzer entry point (`LLVMFuzzerTestOneInput`) over
// Fuzzing.FuzzEntryPoint, for a coverage-guided fuzzer (libFuzzer, ClusterFuzzLite, OSS-Fuzz).
// It traps on a disagreement, so libFuzzer saves the input as a crash.
//
// Built for libFuzzer (libFuzzer brings `main`):
//   swift build --product blockbench-fuzz-entry -c release --sanitize fuzzer --scratch-path .build-fuzz \
//     -Xswiftc -DBLOCKBENCH_LIBFUZZER
//   SWIFT_BACKTRACE=enable=no .build-fuzz/release/blockbench-fuzz-entry -max_total_time=60 corpus/
// In a normal build (`swift build`, `swift test`) the same target has a `main` of its own that runs
// the files named on its command line through the entry point: a crash libFuzzer saved can be
// replayed without the sanitizer (`.build/debug/blockbench-fuzz-entry crash-...`).

import Foundation
import Fuzzing

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let disagreement = FuzzEntryPoint.check(bytes) {
        FileHandle.standardError.write(Data(("DISAGREE: " + disagreement + "\n").utf8))
        fatalError("engine and oracle disagree")
    }
    return 0
}

#if !BLOCKBENCH_LIBFUZZER
@main
struct ReplayInputs {
    static func main() {
        var failed = false
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                print("\(path): cannot read")
                failed = true
                continue
            }
            if let disagreement = FuzzEntryPoint.check(Array(data)) {
                print("\(path): DISAGREE: \(disagreement)")
                failed = true
            } else {
                print("\(path): agree")
            }
        }
        exit(failed ? 1 : 0)
    }
}
#endif
