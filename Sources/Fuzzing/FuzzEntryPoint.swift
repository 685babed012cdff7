// FuzzEntryPoint.swift — Fuzzing
//
// One input of a coverage-guided fuzzer (libFuzzer, and through it ClusterFuzzLite or OSS-Fuzz):
// the bytes become a case. The first byte chooses how:
//  - 0...191: a case of the level `byte % 3` (pattern, match, list) whose every random choice is
//    read from the remaining bytes (`FuzzRandom(bytes:)`), so libFuzzer's mutations of the bytes
//    are mutations of the generators' choices and its coverage feedback steers them;
//  - 192...255: raw text: the pattern is the bytes up to the first newline, the subject the bytes
//    after it (kept to 1...127). Our parser must not crash on any bytes; when it accepts the
//    pattern the oracle must take it, agree on "matches everything", and answer the subject as the
//    engine does.
// A disagreement is returned; the entry target traps on it so that libFuzzer keeps the input.
// Tested by FuzzingTests (EntryPointTests).

internal import Corpus
internal import PCRE2Oracle
internal import URLFilterSyntax

public enum FuzzEntryPoint {
    /// The disagreement the input shows, described, or nil.
    public static func check(_ bytes: [UInt8], runner: CaseRunner = CaseRunner()) -> String? {
        guard let mode = bytes.first else { return nil }
        if mode < 192 {
            let level = FuzzLevel.allCases[Int(mode) % 3]
            var random = FuzzRandom(bytes: Array(bytes.dropFirst()))
            return runner.run(level, &random).disagreement?.description
        }
        let rest = bytes.dropFirst()
        let newline = rest.firstIndex(of: UInt8(ascii: "\n")) ?? rest.endIndex
        let source = String(decoding: rest[..<newline], as: UTF8.self)
        let subject = rest[newline...].dropFirst().filter { (1...127).contains($0) }
        for caseSensitive in [false, true] {
            guard case .success(let filter) = URLFilterParser.parse(source, isCaseSensitive: caseSensitive) else { continue }
            let oracle: PatternOracle
            do {
                oracle = try PatternOracle(source: source, caseSensitive: caseSensitive)
            } catch {
                return "pattern \(Quote.text(source)): accepted by us, refused by the oracle: \(error)"
            }
            if oracle.matchesEverything != filter.matchesEverything {
                return "pattern \(Quote.text(source)): matches everything: ours \(filter.matchesEverything), PCRE2 \(oracle.matchesEverything)"
            }
            guard let built = try? runner.patternEngine.build(filter), let expected = try? oracle.matches(Array(subject)) else { continue }
            if built.matches(Array(subject)) != expected {
                return "pattern \(Quote.text(source))\(caseSensitive ? " (case-sensitive)" : "") on \(Quote.bytes(Array(subject))): engine \(!expected), PCRE2 \(expected)"
            }
        }
        return nil
    }
}
