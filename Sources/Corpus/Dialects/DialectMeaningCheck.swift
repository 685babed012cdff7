// DialectMeaningCheck.swift — Corpus
//
// Where a dialect's meaning differs from the shipped spelling, on real requests: every pattern a
// list re-spells is put beside its original, both through the PCRE2 oracle, on the URLs of the
// shipped request sets (each request's URL, page URL and frame URL) where the domain could begin
// (DomainStartIndex.swift). A pattern whose two spellings match different URLs is set apart, with
// how many URLs only each matches and an example, so the corpus says exactly where a converter's
// rules mean something else; an engine reading patterns by meaning must then still answer each
// spelling as the oracle does, which the benchmarks' and the fuzzer's checks hold it to.
// The check is per pattern: AdGuard writes a final `^` as two rules (`[/:&?]` and `$`), so a
// dialect whose end form also takes the URL's end sets the first twin apart even where the two
// rules together mean what the dialect's one does.
// Tested by CorpusTests (DialectTests).

internal import Foundation
internal import PCRE2Oracle
internal import Synchronization
internal import TerminalText

/// The check's result for one dialect.
public struct DialectMeaning: Sendable {
    /// A pattern whose two spellings match different URLs.
    public struct Difference: Sendable {
        public var pattern: RespelledPattern
        /// URLs only the shipped spelling matches, and URLs only the dialect's matches.
        public var onlyOriginal = 0
        public var onlyRespelled = 0
        /// The first such URL met.
        public var example = ""
    }

    public var dialect: String
    public var patterns = 0
    public var urls = 0
    /// Pattern-URL pairs asked about (each spelling once).
    public var comparisons = 0
    /// Set apart, in the list's order.
    public var differences: [Difference] = []
    /// Patterns the oracle refused (either spelling), with the reason.
    public var refused: [(pattern: RespelledPattern, reason: String)] = []

    /// One line: `abp2blocklist: 50,966 patterns on 31,044 URLs, 1,234,567 comparisons; 812 set apart (…)`.
    public var summary: String {
        let wider = differences.filter { $0.onlyRespelled > 0 }.count
        let narrower = differences.filter { $0.onlyOriginal > 0 }.count
        return "\(dialect): \(patterns.grouped) patterns on \(urls.grouped) URLs, \(comparisons.grouped) comparisons; "
            + "\(differences.count.grouped) set apart (\(wider.grouped) match URLs the shipped spelling does not, "
            + "\(narrower.grouped) miss URLs it matches)" + (refused.isEmpty ? "" : "; \(refused.count.grouped) refused by the oracle")
    }
}

public enum DialectMeaningCheck {
    /// The distinct matchable URLs of `sets`: each request's URL, page URL and frame URL.
    public static func urls(of sets: [RequestSet]) -> [String] {
        var seen = Set<String>()
        var urls: [String] = []
        for set in sets {
            for corpusRequest in set.requests {
                let request = corpusRequest.request
                for url in [request.url, request.mainDocumentURL, request.frameURL] where url.isMatchable {
                    if seen.insert(url.string).inserted { urls.append(url.string) }
                }
            }
        }
        return urls
    }

    /// Every pattern of `list` in both spellings on `urls`, on `workers` threads.
    public static func run(_ list: RespelledRuleList, urls: [String], workers: Int = 2) -> DialectMeaning {
        let index = DomainStartIndex(urls)
        let subjects = urls.map { Array($0.utf8) }
        let patterns = list.patterns
        let outcomes = Mutex([Int: PatternOutcome]())
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: max(1, workers)) { _ in
            while true {
                let number = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard number < patterns.count else { break }
                let outcome = compare(patterns[number], subjects: subjects, index: index)
                outcomes.withLock { $0[number] = outcome }
            }
        }
        var result = DialectMeaning(dialect: list.dialect.name, patterns: patterns.count, urls: urls.count)
        let all = outcomes.withLock { $0 }
        for number in patterns.indices {
            guard let outcome = all[number] else { continue }
            result.comparisons += outcome.comparisons
            if let reason = outcome.refusal { result.refused.append((patterns[number], reason)) }
            if let difference = outcome.difference { result.differences.append(difference) }
        }
        return result
    }

    struct PatternOutcome: Sendable {
        var comparisons = 0
        var difference: DialectMeaning.Difference?
        var refusal: String?
    }

    /// One pattern's two spellings on its candidate URLs.
    static func compare(_ pattern: RespelledPattern, subjects: [[UInt8]], index: DomainStartIndex) -> PatternOutcome {
        var outcome = PatternOutcome()
        let original: PatternOracle
        let respelled: PatternOracle
        do {
            original = try PatternOracle(source: pattern.original, caseSensitive: pattern.isCaseSensitive)
            respelled = try PatternOracle(source: pattern.respelled, caseSensitive: pattern.isCaseSensitive)
        } catch {
            outcome.refusal = error.description
            return outcome
        }
        let candidates = index.candidates(domain(of: pattern.original)) ?? subjects.indices.map(Int32.init)
        var difference = DialectMeaning.Difference(pattern: pattern)
        for number in candidates {
            let subject = subjects[Int(number)]
            outcome.comparisons += 1
            let before: Bool
            let after: Bool
            do {
                before = try original.matches(subject)
                after = try respelled.matches(subject)
            } catch {
                outcome.refusal = "pcre2 match: \(error.message)"
                return outcome
            }
            guard before != after else { continue }
            if before { difference.onlyOriginal += 1 } else { difference.onlyRespelled += 1 }
            if difference.example.isEmpty { difference.example = String(decoding: subject, as: UTF8.self) }
        }
        if difference.onlyOriginal + difference.onlyRespelled > 0 { outcome.difference = difference }
        return outcome
    }

    /// The literal domain at the start of a pattern in AdGuard's spelling (lower case): its
    /// letters, digits, `-`, `_` and `\.` after the prefix.
    static func domain(of pattern: String) -> [UInt8] {
        guard pattern.hasPrefix(Dialect.adguardPrefix) else { return [] }
        var domain: [UInt8] = []
        for token in Dialect.tokens(pattern.utf8.dropFirst(Dialect.adguardPrefix.utf8.count)) {
            guard Dialect.isDomainToken(token) else { break }
            domain.append(DomainStartIndex.folded(token.utf8.last!))
        }
        return domain
    }
}
