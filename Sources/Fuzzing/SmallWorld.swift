// SmallWorld.swift — Fuzzing
//
// Exhaustive small worlds (after RE2's exhaustive tester): every pattern of up to N atoms built
// from `a`, `b`, `.`, `[ab]`, `[^a]` and groups (an atom is what ECMAScript calls one: a
// character, a class, `.` or a parenthesized group, at any depth; empty groups included), each
// atom with no quantifier, `?`, `*` or `+`, each pattern with and without `^` and `$` (case-
// insensitive, WebKit's default; `caseSensitivity` adds the other mode), against every string of
// up to L characters over `a`, `b`, `A`, `c`: the engine's minimal DFA against PCRE2 on every
// pair, and both sides' "matches everything".
//
// Size for N = 3, L = 4: 21,816 bodies, 87,264 patterns (28,184 match everything), 341 strings:
// 20.1 million comparisons. PCRE2 answers every pattern (one call per string); the engine answers
// every distinct NFA once (38,640: `ab`, `(a)b` and `ab*` have the same NFA, hence the same DFA),
// 16 NFAs to a combined DFA as it compiles a rule list, and walks the strings as a trie (one
// transition per trie node), so the whole world fits a debug build's test run on one core.
// Tested by FuzzingTests (N = 3, L = 4); `blockbench fuzz --exhaustive --atoms N --length L`.

import Foundation
import Synchronization
internal import Automata
internal import PCRE2Oracle
internal import URLFilterSyntax

public struct SmallWorld: Sendable {
    public var atoms: Int
    public var length: Int
    public var subjectAlphabet: [UInt8] = Array("abAc".utf8)
    public var engine: any PatternPipeline = PatternEngine(limits: .default)
    /// Patterns per combined DFA.
    public var batchSize = 16
    /// The case modes: case-insensitive (WebKit's default) only, or both.
    public var caseSensitivity: [Bool] = [false]

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
            caseSensitivity.flatMap { caseSensitive in
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
        /// Distinct NFAs among the patterns, and the combined DFAs built for them.
        public var distinctNFAs = 0
        public var dfas = 0
        public var limits = 0
        /// Every disagreement found (the first 20 listed).
        public var disagreementCount = 0
        public var disagreements: [Disagreement] = []
    }

    /// The engine's answers per distinct NFA, kept by a worker across the chunks it runs.
    public final class EngineCache: @unchecked Sendable {
        /// Per NFA: bit `i` of word `i / 64` says whether string `i` matches.
        var answers: [NFAShape: [UInt64]] = [:]
        public init() {}
    }

    /// An NFA as a value: two patterns with equal shapes get equal DFAs (the subset construction
    /// and the minimizer are functions of the NFA), so the engine answers once for both.
    struct NFAShape: Hashable {
        var edgeStart: [UInt32]
        var edgeSets: [ASCIISet]
        var edgeTargets: [UInt32]
        var epsilonStart: [UInt32]
        var epsilonTargets: [UInt32]
        var accepting: [Bool]

        init(_ nfa: NFA) {
            edgeStart = nfa.edgeStart
            edgeSets = nfa.edgeSets
            edgeTargets = nfa.edgeTargets
            epsilonStart = nfa.epsilonStart
            epsilonTargets = nfa.epsilonTargets
            accepting = nfa.acceptedPattern.map { $0 != UInt32.max }
        }
    }

    struct Member {
        var pattern: FuzzPattern
        var source: String
        var filter: URLFilter
        var oracle: PatternOracle
        var shape: NFAShape
    }

    /// Compares every pattern of `patterns` with every string: PCRE2 answers each pattern; the
    /// engine answers each distinct NFA once, `batchSize` NFAs at a time in one combined NFA and
    /// minimal DFA (as it compiles a rule list's url-filters); a batch that hits the limits is
    /// built one pattern at a time.
    public func run(_ patterns: ArraySlice<FuzzPattern>, cache: EngineCache = EngineCache()) -> Report {
        var report = Report()
        let subjects = subjects()
        report.subjects = subjects.count
        // Every string followed by the end-of-URL NUL the oracle reads, in one buffer.
        var buffer: [UInt8] = []
        var ends: [Int] = []
        for subject in subjects {
            buffer += subject + [0]
            ends.append(buffer.count)
        }
        let runner = CaseRunner()
        let data = PCRE2MatchData()
        var members: [Member] = []
        var pending: [Member] = []
        var pendingShapes = Set<NFAShape>()
        for pattern in patterns {
            report.patterns += 1
            let source = pattern.source
            guard case .success(let filter) = URLFilterParser.parse(source, isCaseSensitive: pattern.caseSensitive) else {
                record(.status(pattern, ours: URLFilterParser.status(of: source), expected: pattern.expectedStatus), in: &report)
                continue
            }
            let (oracle, disagreement) = runner.checkOracle(pattern, source: source, ours: filter.status)
            guard let oracle else {
                record(disagreement!, in: &report)
                continue
            }
            if filter.matchesEverything {
                report.matchesEverything += 1
                continue
            }
            let member = Member(pattern: pattern, source: source, filter: filter, oracle: oracle, shape: NFAShape(NFA(patterns: [(PatternID(0), filter)])))
            members.append(member)
            if cache.answers[member.shape] == nil && pendingShapes.insert(member.shape).inserted { pending.append(member) }
        }
        report.distinctNFAs = pending.count
        var start = 0
        while start < pending.count {
            let batch = Array(pending[start..<min(pending.count, start + batchSize)])
            build(batch, cache: cache, report: &report)
            start += batchSize
        }
        var scratch = LevelTally()
        for member in members {
            guard let engine = cache.answers[member.shape] else { continue }  // hit the limits
            let expected: [Bool]
            do {
                expected = try buffer.withUnsafeBufferPointer { bytes throws(PCRE2Error) in
                    try member.oracle.pattern.regex?.matchesEach(bytes, ends: ends, using: data) ?? Array(repeating: true, count: ends.count)
                }
            } catch {
                record(.oracleRefuses(member.pattern, reason: "pcre2 match: \(error.message)"), in: &report)
                continue
            }
            report.comparisons += subjects.count
            var position = 0
            while position < expected.count {
                let answer = expected[position]
                if (engine[position >> 6] >> UInt64(position & 63) & 1 == 1) != answer {
                    // Details (and every stage's answer) from the single-pattern check.
                    record(runner.checkMatch(member.pattern, [subjects[position]], &scratch)
                        ?? .match(member.pattern, subject: subjects[position], engine: !answer, oracle: answer, stage: .bytecode), in: &report)
                    break
                }
                position += 1
            }
        }
        return report
    }

    /// The engine's answers for a batch of distinct NFAs, into the cache.
    private func build(_ batch: [Member], cache: EngineCache, report: inout Report) {
        do {
            let nfa = NFA(patterns: batch.enumerated().map { (PatternID($0.offset), $0.element.filter) })
            let dfa = engine.minimize(try SubsetConstruction.determinize(nfa, limits: engine.limits))
            let masks = Self.trieMasks(dfa, alphabet: subjectAlphabet, length: length)
            report.dfas += 1
            // Transpose: per member, one bit per string.
            var bits = [[UInt64]](repeating: [UInt64](repeating: 0, count: (masks.count + 63) / 64), count: batch.count)
            var position = 0
            while position < masks.count {
                var mask = masks[position]
                while mask != 0 {
                    bits[mask.trailingZeroBitCount][position >> 6] |= 1 << UInt64(position & 63)
                    mask &= mask - 1
                }
                position += 1
            }
            for index in 0..<batch.count { cache.answers[batch[index].shape] = bits[index] }
        } catch {
            if batch.count > 1 {
                for single in batch { build([single], cache: cache, report: &report) }
            } else {
                report.limits += 1
            }
        }
    }

    func record(_ disagreement: Disagreement, in report: inout Report) {
        report.disagreementCount += 1
        if report.disagreements.count < 20 { report.disagreements.append(disagreement) }
    }

    /// The patterns (bits, up to 64) of `dfa` that match each string of `subjects()`, one
    /// transition per trie node: a string matches a pattern when a state passed on the way, or
    /// the state after the end-of-URL NUL, reports it.
    static func trieMasks(_ dfa: DFA, alphabet: [UInt8], length: Int) -> [UInt64] {
        let accepts = (0..<dfa.stateCount).map { state in
            dfa.accepted(by: DFAStateID(state)).reduce(UInt64(0)) { $0 | 1 << UInt64($1.rawValue) }
        }
        func mask(_ state: DFAStateID) -> UInt64 { state.isDead ? 0 : accepts[Int(state.rawValue)] }
        func step(_ state: DFAStateID, _ byte: UInt8) -> DFAStateID {
            state.isDead ? .dead : dfa.next(state, ByteClassID(dfa.byteClasses.classOfByte[Int(byte)]))
        }
        var answers: [UInt64] = []
        // Level by level, in the order `subjects()` lists them: the state after the string, and
        // the patterns reported on the way.
        var level: [(DFAStateID, UInt64)] = [(DFA.start, mask(DFA.start))]
        for depth in 0...length {
            for (state, passed) in level { answers.append(passed | mask(step(state, 0))) }
            guard depth < length else { break }
            var next: [(DFAStateID, UInt64)] = []
            next.reserveCapacity(level.count * alphabet.count)
            for (state, passed) in level {
                for byte in alphabet {
                    let target = step(state, byte)
                    next.append((target, passed | mask(target)))
                }
            }
            level = next
        }
        return answers
    }
}

/// A small world on several threads: chunks of patterns handed out in order, each worker keeping
/// its engine cache, reports added up.
public struct SmallWorldRun: Sendable {
    public var world: SmallWorld
    public var workers: Int

    public init(world: SmallWorld, workers: Int) {
        self.world = world
        self.workers = workers
    }

    public func run(_ patterns: [FuzzPattern], progress: (@Sendable (Int) -> Void)? = nil) -> SmallWorld.Report {
        let chunk = 4096
        let next = Atomic<Int>(0)
        let total = Mutex(SmallWorld.Report())
        let world = world
        DispatchQueue.concurrentPerform(iterations: max(1, workers)) { _ in
            let cache = SmallWorld.EngineCache()
            while true {
                let start = next.wrappingAdd(chunk, ordering: .relaxed).oldValue
                if start >= patterns.count { break }
                let part = world.run(patterns[start..<min(patterns.count, start + chunk)], cache: cache)
                let done = total.withLock { report in
                    report.patterns += part.patterns
                    report.subjects = part.subjects
                    report.comparisons += part.comparisons
                    report.matchesEverything += part.matchesEverything
                    report.distinctNFAs += part.distinctNFAs
                    report.dfas += part.dfas
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
