// SmallWorld.swift — Fuzzing
//
// Exhaustive small worlds (after RE2's exhaustive tester): every pattern of up to N atoms built
// from `a`, `b`, `.`, `[ab]`, `[^a]` and groups (an atom is what ECMAScript calls one: a
// character, a class, `.` or a parenthesized group, at any depth; empty groups included), each
// atom with no quantifier, `?`, `*` or `+`, each pattern with and without `^` and `$`, case-
// insensitive and case-sensitive, against every string of up to L characters over `a`, `b`, `A`,
// `c`; the engine's bytecode against PCRE2 on every pair, and both sides' "matches everything".
//
// Size: 21,816 bodies of up to 3 atoms, so 174,528 patterns, times 341 strings of up to 4
// characters: 59.5 million comparisons. Each pattern is built once (NFA, DFA, minimal DFA,
// program) and the strings are walked as a trie, so the engine does one transition per trie node
// (341) rather than per character of every string, and PCRE2 answers each string once.
// Tested by FuzzingTests (N = 3, L = 4); `blockbench fuzz --exhaustive --atoms N --length L`.

import Foundation
import Synchronization
internal import Automata
internal import Bytecode
internal import URLFilterSyntax

public struct SmallWorld: Sendable {
    public var atoms: Int
    public var length: Int
    public var subjectAlphabet: [UInt8] = Array("abAc".utf8)
    public var engine = PatternEngine(limits: .default)

    public static let leaves: [FuzzAtom] = [
        .character(UInt8(ascii: "a"), .plain), .character(UInt8(ascii: "b"), .plain), .any,
        .characterClass(negated: false, [.character(UInt8(ascii: "a"), .plain), .character(UInt8(ascii: "b"), .plain)]),
        .characterClass(negated: true, [.character(UInt8(ascii: "a"), .plain)]),
    ]
    public static let quantifiers: [QuantifierSpelling] = [.one, .short(.zeroOrOne), .short(.zeroOrMore), .short(.oneOrMore)]

    public init(atoms: Int, length: Int) {
        self.atoms = atoms
        self.length = length
    }

    /// Every sequence of terms with exactly `count` atoms.
    static func forests(_ count: Int, memo: inout [Int: [[FuzzTerm]]]) -> [[FuzzTerm]] {
        if count == 0 { return [[]] }
        if let known = memo[count] { return known }
        var result: [[FuzzTerm]] = []
        for first in 1...count {
            let rests = forests(count - first, memo: &memo)
            for tree in trees(first, memo: &memo) {
                for rest in rests { result.append([tree] + rest) }
            }
        }
        memo[count] = result
        return result
    }

    /// Every term with exactly `count` atoms (a leaf, or a group holding `count - 1`).
    static func trees(_ count: Int, memo: inout [Int: [[FuzzTerm]]]) -> [FuzzTerm] {
        var atoms: [FuzzAtom] = []
        if count == 1 { atoms += leaves }
        atoms += forests(count - 1, memo: &memo).map { .group(.capturing, $0) }
        return atoms.flatMap { atom in quantifiers.map { FuzzTerm(atom, $0) } }
    }

    /// Every body of 1 to `atoms` atoms.
    public func bodies() -> [[FuzzTerm]] {
        var memo: [Int: [[FuzzTerm]]] = [:]
        return (1...max(1, atoms)).flatMap { Self.forests($0, memo: &memo) }
    }

    /// Every pattern: bodies with and without anchors, in both case modes.
    public func patterns() -> [FuzzPattern] {
        bodies().flatMap { body in
            [false, true].flatMap { caseSensitive in
                [(false, false), (true, false), (false, true), (true, true)].map { anchors in
                    FuzzPattern(startAnchor: anchors.0, endAnchor: anchors.1, terms: body, caseSensitive: caseSensitive)
                }
            }
        }
    }

    /// Every string of up to `length` characters, in trie order (a string's prefixes first).
    public func subjects() -> [[UInt8]] {
        var out: [[UInt8]] = [[]]
        var level: [[UInt8]] = [[]]
        for _ in 0..<length {
            level = level.flatMap { prefix in subjectAlphabet.map { prefix + [$0] } }
            out += level
        }
        return out
    }

    public struct Report: Sendable {
        public var patterns = 0
        public var subjects = 0
        public var comparisons = 0
        public var matchesEverything = 0
        public var limits = 0
        /// Every disagreement found (the first 20 listed).
        public var disagreementCount = 0
        public var disagreements: [Disagreement] = []
    }

    /// Compares every pattern with every string; `patterns` lets a caller split the world.
    public func run(_ patterns: ArraySlice<FuzzPattern>) -> Report {
        var report = Report()
        let subjects = subjects()
        report.subjects = subjects.count
        let runner = CaseRunner()
        var scratch = LevelTally()
        for pattern in patterns {
            report.patterns += 1
            guard case .success(let filter) = URLFilterParser.parse(pattern.source, isCaseSensitive: pattern.caseSensitive) else {
                record(.status(pattern, ours: URLFilterParser.status(of: pattern.source), expected: pattern.expectedStatus), in: &report)
                continue
            }
            let (oracle, disagreement) = runner.checkOracle(pattern, ours: filter.status)
            guard let oracle else {
                record(disagreement!, in: &report)
                continue
            }
            if filter.matchesEverything {
                report.matchesEverything += 1
                continue
            }
            let built: BuiltPattern
            do {
                built = try engine.build(filter)
            } catch {
                report.limits += 1
                continue
            }
            let answers = built.trieAnswers(subjects, alphabet: subjectAlphabet, length: length)
            for (index, subject) in subjects.enumerated() {
                report.comparisons += 1
                guard let expected = try? oracle.matches(subject) else {
                    record(.oracleRefuses(pattern, reason: "pcre2 match failed"), in: &report)
                    break
                }
                if answers[index] != expected || built.matches(subject) != answers[index] {
                    if let found = runner.checkMatch(pattern, [subject], &scratch) { record(found, in: &report) }
                }
            }
        }
        return report
    }

    func record(_ disagreement: Disagreement, in report: inout Report) {
        report.disagreementCount += 1
        if report.disagreements.count < 20 { report.disagreements.append(disagreement) }
    }
}

extension BuiltPattern {
    /// The minimal DFA's answers for every string of `subjects` (trie order over `alphabet`, up to
    /// `length`), one transition per trie node: a string matches when a state passed on the way,
    /// or the state after the end-of-URL NUL, reports the pattern.
    func trieAnswers(_ subjects: [[UInt8]], alphabet: [UInt8], length: Int) -> [Bool] {
        guard let dfa = minimal else { return Array(repeating: true, count: subjects.count) }
        var answers: [Bool] = []
        answers.reserveCapacity(subjects.count)
        let endClass = ByteClassID(dfa.byteClasses.classOfByte[0])
        func accepts(_ state: DFAStateID) -> Bool { !state.isDead && !dfa.accepted(by: state).isEmpty }
        func answer(_ state: DFAStateID, passed: Bool) -> Bool { passed || (!state.isDead && accepts(dfa.next(state, endClass))) }
        // Level by level, as `subjects()` lists them: (state after the prefix, whether a state passed reported).
        var level: [(DFAStateID, Bool)] = [(DFA.start, accepts(DFA.start))]
        answers.append(answer(DFA.start, passed: level[0].1))
        for _ in 0..<length {
            var next: [(DFAStateID, Bool)] = []
            next.reserveCapacity(level.count * alphabet.count)
            for (state, passed) in level {
                for byte in alphabet {
                    let target = state.isDead ? DFAStateID.dead : dfa.next(state, ByteClassID(dfa.byteClasses.classOfByte[Int(byte)]))
                    let passedNow = passed || accepts(target)
                    next.append((target, passedNow))
                    answers.append(answer(target, passed: passedNow))
                }
            }
            level = next
        }
        return answers
    }
}

/// A small world on several threads: chunks of patterns handed out in order, reports added up.
public struct SmallWorldRun: Sendable {
    public var world: SmallWorld
    public var workers: Int

    public init(world: SmallWorld, workers: Int) {
        self.world = world
        self.workers = workers
    }

    public func run(_ patterns: [FuzzPattern], progress: (@Sendable (Int) -> Void)? = nil) -> SmallWorld.Report {
        let chunk = 512
        let next = Atomic<Int>(0)
        let total = Mutex(SmallWorld.Report())
        let world = world
        DispatchQueue.concurrentPerform(iterations: max(1, workers)) { _ in
            while true {
                let start = next.wrappingAdd(chunk, ordering: .relaxed).oldValue
                if start >= patterns.count { break }
                let part = world.run(patterns[start..<min(patterns.count, start + chunk)])
                let done = total.withLock { report in
                    report.patterns += part.patterns
                    report.subjects = part.subjects
                    report.comparisons += part.comparisons
                    report.matchesEverything += part.matchesEverything
                    report.limits += part.limits
                    report.disagreementCount += part.disagreementCount
                    report.disagreements += part.disagreements.prefix(max(0, 20 - report.disagreements.count))
                    return report.patterns
                }
                progress?(done)
            }
        }
        return total.withLock { $0 }
    }
}
