// LineChildTests.swift — the line protocol the external engines run over: answers in order, a
// child that dies is reported and replaced, a child that cannot start is an engine error.

import Foundation
import Testing
@testable import Engines

@Suite struct LineChildTests {
    @Test func answersComeBackLineByLine() throws {
        let child = LineChild(name: "cat", executable: "/bin/cat", arguments: [])
        #expect(try child.start())
        #expect(try !child.start(), "a running child is kept")
        // A line longer than one read (but within a pipe's 64 KiB: cat answers while it is written).
        for text in ["one", "", String(repeating: "x", count: 60_000), "last"] {
            #expect(try child.exchange(Array(text.utf8)) == Array(text.utf8))
        }
        child.stop()
    }

    @Test func aChildThatDiesIsReportedAndReplaced() throws {
        // Answers the first line, then exits: the next request fails whether it finds the child
        // still exiting or already gone, and is never answered by a replacement.
        let child = LineChild(name: "once", executable: "/bin/sh", arguments: ["-c", "read line; echo \"$line\""])
        #expect(try child.exchange(Array("a".utf8)) == Array("a".utf8))
        #expect {
            _ = try child.exchange(Array("b".utf8))
        } throws: { "\($0)".contains("once ended") || "\($0)".contains("once stopped taking input") }
        // Once gone (as a slow machine finds it), the death is still reported, not papered over.
        #expect(try child.exchange(Array("c".utf8)) == Array("c".utf8))
        Thread.sleep(forTimeInterval: 0.2)
        #expect(throws: (any Error).self) { _ = try child.exchange(Array("d".utf8)) }
        #expect(try child.start(), "a new child after the old one ended")
        #expect(try child.exchange(Array("e".utf8)) == Array("e".utf8))
    }

    /// A request written while the child is ending meets a closed pipe: an error for that request,
    /// not a signal that ends this process (tried many times, so that some writes find the pipe
    /// closed).
    @Test func aWriteToAnEndingChildIsAnError() throws {
        for round in 0..<200 {
            let child = LineChild(name: "once", executable: "/bin/sh", arguments: ["-c", "read line; echo \"$line\""])
            #expect(try child.exchange(Array("a".utf8)) == Array("a".utf8), "round \(round)")
            #expect(throws: (any Error).self) { _ = try child.exchange(Array(repeating: UInt8(ascii: "b"), count: 100_000)) }
            child.stop()
        }
    }

    @Test func aChildThatCannotStartIsAnEngineError() {
        let child = LineChild(name: "missing", executable: "/nonexistent/tool", arguments: [])
        #expect { try child.start() } throws: { "\($0)".contains("cannot start missing") }
    }
}
