// HostileSuiteTests.swift — the hostile-input suite's cases and its runner's verdicts. The runner
// is tried on stand-in children (a shell that crashes, hangs, fails silently or says why), so
// that each kind of finding is seen to be one; CI runs the suite itself on blockbench.

import Testing
import Foundation
import HostileInputs

@Suite struct HostileSuiteTests {
    @Test func everyClassHasCasesWithUniqueNamesAndFiles() throws {
        let cases = HostileCases.all()
        #expect(Set(cases.map(\.name)).count == cases.count)
        for kind in HostileCase.Kind.allCases {
            #expect(cases.contains { $0.kind == kind }, "\(kind.rawValue)")
        }
        #expect(cases.allSatisfy { $0.name.hasPrefix($0.kind.rawValue + "/") })
        // The counts cases each change the compiled file, and keep a valid checksum when asked to.
        let counts = cases.filter { $0.kind == .counts }
        #expect(counts.count > 100)
        let files = try counts.prefix(40).map { try $0.files()[0].bytes }
        #expect(Set(files).count == files.count)
    }

    private func verdict(_ script: String, allowed: Set<Int32>?, seconds: Double = 10) throws -> HostileVerdict {
        // (A folder per verdict: the suite's tests run at once, and one's removal would pull
        // another's input away.)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bb-hostile-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let testCase = HostileCase(
            name: "size/stand-in", kind: .size, summary: "a stand-in child", files: { [("input.txt", Array("hello".utf8))] },
            arguments: ["-c", script], allowedExits: allowed, seconds: seconds, addressSpaceMiB: 256)
        return try HostileRunner(executable: "/bin/sh", folder: folder, keepFiles: false).run(testCase)
    }

    @Test func aSignalATimeoutAWrongExitAndASilentFailureAreFindings() throws {
        let crash = try verdict("kill -SEGV $$", allowed: [0, 1])
        #expect(crash.finding?.contains("signal 11 (SIGSEGV)") == true)
        let hang = try verdict("exec sleep 20", allowed: [0], seconds: 0.5)
        #expect(hang.finding == "did not finish within 0 s" && hang.seconds < 10)
        let wrongExit = try verdict("echo 'why' >&2; exit 3", allowed: [0, 1])
        #expect(wrongExit.finding == "exit 3, expected 0 or 1")
        let silent = try verdict("exit 1", allowed: [0, 1])
        #expect(silent.finding == "exit 1 without a message")
        let blowUp = try verdict("head -c 400000000 /dev/zero | tail -c 1 > /dev/null; x=$(head -c 300000000 /dev/zero | tr '\\0' a); exit 0", allowed: [0])
        #expect(blowUp.finding != nil, "a child past its address-space cap fails")
    }

    @Test func anAllowedExitWithAMessagePassesAndTheInputIsInItsFolder() throws {
        let passed = try verdict("cat input.txt >&2; exit 1", allowed: [0, 1])
        #expect(passed.finding == nil && passed.exitCode == 1 && passed.message == "hello")
        let quiet = try verdict("cat input.txt", allowed: nil)
        #expect(quiet.finding == nil && quiet.exitCode == 0)
        #expect(passed.command.hasPrefix("prlimit --as=268435456 -- /bin/sh -c "))
    }
}
