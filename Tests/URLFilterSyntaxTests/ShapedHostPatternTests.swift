// ShapedHostPatternTests.swift — a host pattern read as a learned prefix, D and a learned rest
// (ShapedHostPattern.swift) is exactly what its parse says: the same status, split at the same
// places into the same terms; on every shipped `||` pattern re-spelled with other converters'
// prefixes and ends, both cases, and on near misses (a byte after D that the parse reads
// otherwise than a domain character). Covers Sources/URLFilterSyntax/ShapedHostPattern.swift.

import Testing
@testable import URLFilterSyntax
import TestSupport

/// Other converters' `||` prefixes (Corpora/README.md names their sources) and a made-up one.
private let prefixes = [
    #"^[^:]+:(//)?([^/]+\.)?"#, #"^https?://([^/]+\.)?"#, #"^[htpsw]+:\/\/([a-z0-9-]+\.)?"#, #"^[a-z]+://+([a-z0-9-]+\.)*"#,
]
/// Ends of `||D^` as converters write them, and a path.
private let ends = [#"([^-_.%a-z0-9].*)?$"#, #"([\/:&\?].*)?$"#, #"[^a-zA-Z0-9_.%-]"#, #"/ads/"#, #"[/:]"#, ""]
/// Bytes after a D that a parse does not read as a domain character, or reads as one a text
/// reader could miss, each followed by more of a host and a common end.
private let nearMisses = [#"%"#, #"\-"#, #"\_"#, #"X"#, #"\d"#, #"*"#, #"+"#, #"?"#, #"{2}"#, #"{"#, #"."#, #"\/"#, #"$"#]

/// The shipped `||` patterns' D and the text after it, AdGuard's prefix taken off.
private func shippedHostParts() throws -> [(domainText: String, rest: String)] {
    let canonical = #"^[^:]+://+([^:/]+\.)?"#
    return try shippedPatterns().compactMap { pattern in
        guard pattern.source.hasPrefix(canonical) else { return nil }
        let after = pattern.source.dropFirst(canonical.count)
        guard let end = after.firstIndex(where: { !($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "\\" || $0 == ".") }) else {
            return nil
        }
        return (String(after[..<end]), String(after[end...]))
    }
}

/// Whether `shaped` is what the parse of its text says, and why not.
private func disagreement(_ shaped: ShapedHostPattern) -> String? {
    guard case .success(let parsed) = URLFilterParser.parse(shaped.source, isCaseSensitive: shaped.isCaseSensitive) else {
        return "its parse fails"
    }
    guard parsed.status == .ok else { return "its parse's status is \(parsed.status)" }
    guard let split = HostSplit(parsed, requiringRest: false) else { return "its parse does not split" }
    guard split.domain == shaped.domain, split.prefixCount == shaped.prefixCount else {
        return "its parse splits into \(split.prefixCount) terms and \(String(decoding: split.domain, as: UTF8.self))"
    }
    guard Array(parsed.terms[..<split.prefixCount]) == Array(shaped.prefixModel.terms[..<shaped.prefixCount]) else {
        return "its prefix's terms differ"
    }
    let rest = parsed.terms[split.restStart...]
    let modelRest = shaped.restModel.terms[shaped.restStart...]
    guard rest.count == modelRest.count, zip(rest, modelRest).allSatisfy({ $0.hasSameShape(as: $1) }),
        parsed.hasEndAnchor == shaped.restModel.hasEndAnchor
    else { return "its rest's terms differ" }
    return nil
}

@Suite struct ShapedHostPatternTests {
    @Test(arguments: [false, true])
    func readsEveryRespelledShippedPatternAsItsParse(caseSensitive: Bool) throws {
        let parts = try shippedHostParts()
        #expect(parts.count > 10_000)
        var patterns: [(source: String, isCaseSensitive: Bool)] = []
        for (index, part) in parts.enumerated() {
            let prefix = prefixes[index % prefixes.count]
            patterns.append((prefix + part.domainText + part.rest, caseSensitive))
            patterns.append((prefix + part.domainText + ends[index % ends.count], caseSensitive))
            if index % 7 == 0 {
                let miss = nearMisses[index / 7 % nearMisses.count]
                patterns.append((prefix + part.domainText + miss + "example\\.com" + ends[0], caseSensitive))
            }
        }
        let read = URLFilterParser.read(patterns)
        var shapedCount = 0
        for (pattern, result) in zip(patterns, read) {
            guard case .success(.shaped(let shaped)) = result else { continue }
            shapedCount += 1
            let why = disagreement(shaped)
            #expect(why == nil, "\(pattern.source): \(why ?? "")")
        }
        // Most are read so (each chunk learns its prefixes and ends from its first patterns).
        #expect(shapedCount > patterns.count / 2)
    }

    @Test func aRestMetOnceIsNotLearned() {
        var learner = HostShapeLearner()
        let first = try! URLFilterParser.parse(#"^https?://([^/]+\.)?one\.com/ads/a\.js"#).get()
        learner.learn(first)
        #expect(learner.read(#"^https?://([^/]+\.)?two\.com/ads/a\.js"#, isCaseSensitive: false) == nil)
        learner.learn(try! URLFilterParser.parse(#"^https?://([^/]+\.)?three\.com/ads/a\.js"#).get())
        let shaped = learner.read(#"^https?://([^/]+\.)?two\.com/ads/a\.js"#, isCaseSensitive: false)
        #expect(shaped?.domain == Array("two.com".utf8))
        #expect(shaped.flatMap(disagreement) == nil)
    }

    @Test func nothingAfterDIsLearnedButNotAfterAdGuardsPrefix() {
        var learner = HostShapeLearner()
        for domain in ["a", "b"] { learner.learn(try! URLFilterParser.parse(#"^[^:]+:(//)?([^/]+\.)?"# + domain + #"\.com"#).get()) }
        let shaped = learner.read(#"^[^:]+:(//)?([^/]+\.)?d\.com"#, isCaseSensitive: false)
        #expect(shaped?.domain == Array("d.com".utf8) && shaped?.restStart == shaped?.restModel.terms.count)
        #expect(shaped.flatMap(disagreement) == nil)
        #expect(learner.read(#"^[^:]+:(//)?([^/]+\.)?d\.com$"#, isCaseSensitive: false) == nil, "an end anchor is a rest")
        var adGuards = HostShapeLearner()
        for domain in ["a", "b"] { adGuards.learn(try! URLFilterParser.parse(#"^[^:]+:\/\/+([^:/]+\.)?"# + domain + #"\.com"#).get()) }
        #expect(adGuards.read(#"^[^:]+:\/\/+([^:/]+\.)?d\.com"#, isCaseSensitive: false) == nil)
    }

    @Test func adGuardsPrefixWithTheDomainTablesEndIsLeftToIt() {
        var learner = HostShapeLearner()
        for domain in ["a", "b", "c"] {
            learner.learn(try! URLFilterParser.parse(#"^[^:]+:\/\/+([^:/]+\.)?"# + domain + #"\.com[/:](.*)?x"#).get())
        }
        #expect(learner.read(#"^[^:]+:\/\/+([^:/]+\.)?d\.com[/:](.*)?x"#, isCaseSensitive: false) == nil)
        // Another end after it is learned (WebKit's translation of `||d.com^`).
        for domain in ["a", "b"] {
            learner.learn(try! URLFilterParser.parse(#"^[^:]+:\/\/+([^:/]+\.)?"# + domain + #"\.com[^a-zA-Z0-9_.%-]"#).get())
        }
        #expect(learner.read(#"^[^:]+:\/\/+([^:/]+\.)?d\.com[^a-zA-Z0-9_.%-]"#, isCaseSensitive: false)?.domain == Array("d.com".utf8))
    }
}
