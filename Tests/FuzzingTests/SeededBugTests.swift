// SeededBugTests.swift — the fuzzer finds a seeded engine bug and shrinks it to a case of a few
// characters, at the match level (a DFA that forgets the end of the URL) and at the list level
// (an engine that forgets request-method); the small world finds the DFA bug too.

import Testing
import Automata
import ContentBlocker
import ContentRuleList
import Fuzzing

/// A test-only fault: the engine's pipeline with every transition on the end-of-URL NUL dropped
/// from the minimal DFA, as an interpreter that stops before reading the end marker would behave:
/// `$` never matches.
struct ForgetsTheEndOfTheURL: PatternPipeline {
    var limits = PatternEngine.fuzzingLimits

    func minimize(_ dfa: DFA) -> DFA {
        let minimal = Minimizer.minimize(dfa)
        let endClass = Int(minimal.byteClasses.classOfByte[0])
        var transitions = minimal.transitions
        for state in 0..<minimal.stateCount { transitions[state * minimal.classCount + endClass] = DFAStateID.dead.rawValue }
        return DFA(
            byteClasses: minimal.byteClasses, transitions: transitions, acceptStart: minimal.acceptStart,
            acceptedPatterns: minimal.acceptedPatterns)
    }
}

@Suite struct SeededBugTests {
    @Test func aDFAThatForgetsTheEndOfTheURLIsFoundAndShrunkToAFewCharacters() throws {
        var options = FuzzOptions()
        options.seed = 20_261_123
        options.levels = [.match]
        options.cases = 200
        options.maximumFindings = 3
        options.runner.patternEngine = ForgetsTheEndOfTheURL()
        let report = Fuzzer(options: options).run()[0]
        #expect(report.tally.disagreements > 0)
        let finding = try #require(report.findings.first)
        guard case .match(let pattern, let subject, let engine, let oracle, let stage) = finding.disagreement else {
            Issue.record("not a match disagreement: \(finding.disagreement.description)")
            return
        }
        // Shrunk to something like `a$` on "a": a pattern and a subject of a few characters.
        #expect(finding.disagreement.size <= 4, "\(finding.disagreement.description) (\(finding.replay))")
        #expect(finding.originalSize > finding.disagreement.size)
        #expect(pattern.source.contains("$") || pattern.source.contains("\\0"))
        #expect(!engine && oracle)
        #expect(stage == .minimize)  // the NFA and the subset construction are right; the altered minimal DFA is not
        print("seeded DFA bug: \(finding.disagreement.description); shrunk from size \(finding.originalSize) (\(finding.replay)); subject \(subject.count) characters")
    }

    @Test func anEngineThatForgetsRequestMethodIsFoundAndShrunkToOneRule() throws {
        var options = FuzzOptions()
        options.seed = 7
        options.levels = [.list]
        options.cases = 400
        options.maximumFindings = 1
        options.runner.listEngine = ListEngine(name: "forgets-request-method") { list, limits in
            var broken = list
            for index in broken.rules.indices { broken.rules[index].trigger.requestMethod = nil }
            return try ListEngine.blockBench.compile(broken, limits)
        }
        let report = Fuzzer(options: options).run()[0]
        let finding = try #require(report.findings.first)
        guard case .outcome(let list, let request, let engine, let oracle) = finding.disagreement else {
            Issue.record("not an outcome disagreement: \(finding.disagreement.description)")
            return
        }
        #expect(list.rules.count == 1, "\(finding.disagreement.description)")
        #expect(list.rules[0].requestMethod != nil)
        #expect(list.rules[0].urlFilter.source.utf8.count <= 3, "\(finding.disagreement.description)")
        #expect(request.url.utf8.count <= 4, "\(finding.disagreement.description)")
        #expect(engine.matchingRules.count == 1 && oracle.matchingRules.isEmpty)
        print("seeded list bug: \(finding.disagreement.description)\n  shrunk from size \(finding.originalSize) (\(finding.replay))")
    }

    @Test func theSmallWorldFindsTheSeededDFABugToo() {
        var world = SmallWorld(atoms: 1, length: 2)
        world.engine = ForgetsTheEndOfTheURL(limits: .default)
        let report = world.run(world.patterns()[...])
        #expect(report.disagreementCount > 0)
        #expect(report.disagreements.contains {
            if case .match(let pattern, _, false, true, _) = $0 { pattern.endAnchor } else { false }
        })
    }
}
