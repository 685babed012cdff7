// LineChildTests.swift — the line protocol the external engines run over: answers in order, a
// child that dies is reported and replaced, a child that cannot start is an engine error.

import Testing
@testable import Harness

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
        // Answers the first line, then exits.
        let child = LineChild(name: "once", executable: "/bin/sh", arguments: ["-c", "read line; echo \"$line\""])
        #expect(try child.exchange(Array("a".utf8)) == Array("a".utf8))
        #expect {
            _ = try child.exchange(Array("b".utf8))
        } throws: { "\($0)".contains("once ended without an answer") || "\($0)".contains("once stopped taking input") }
        #expect(try child.start(), "a new child after the old one ended")
        #expect(try child.exchange(Array("c".utf8)) == Array("c".utf8))
    }

    @Test func aChildThatCannotStartIsAnEngineError() {
        let child = LineChild(name: "missing", executable: "/nonexistent/tool", arguments: [])
        #expect { try child.start() } throws: { "\($0)".contains("cannot start missing") }
    }
}
