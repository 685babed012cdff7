// HostPatternTests.swift — a host pattern's parts read from its text (HostPattern.swift) are
// exactly those read from its syntax tree, on every shipped pattern and on generated ones; the
// reading the compiler takes (`URLFilterParser.read`) gives each pattern the status its parse
// gives. Covers Sources/URLFilterSyntax/HostPattern.swift.

import Testing
@testable import URLFilterSyntax
import TestSupport

/// The parts read from the text, or those of the parse when the text is not read (not flat):
/// what a compiler gets either way; and whether the text was read.
private func bothReadings(_ source: String, caseSensitive: Bool) -> (text: HostPattern?, tree: HostPattern?) {
    let tree = (try? URLFilterParser.parse(source, isCaseSensitive: caseSensitive).get()).flatMap(HostPattern.init)
    return (HostPattern(source: source, isCaseSensitive: caseSensitive), tree)
}

@Suite struct HostPatternTests {
    @Test func readsEveryShippedPatternAsItsSyntaxTree() throws {
        var hosts = 0
        var fromText = 0
        for (source, isCaseSensitive) in try shippedPatterns() {
            let (text, tree) = bothReadings(source, caseSensitive: isCaseSensitive)
            // Read from the text only when the tree has the shape, and then the same parts.
            if let text { #expect(text == tree, "\(source)") }
            if tree != nil { hosts += 1 }
            if text != nil { fromText += 1 }
            // The compiler's reading: the same status as the parse, and the same tree behind it.
            let read = URLFilterParser.read(source, isCaseSensitive: isCaseSensitive)
            let parsed = URLFilterParser.parse(source, isCaseSensitive: isCaseSensitive)
            switch (read, parsed) {
            case (.success(let pattern), .success(let filter)):
                #expect(pattern.status == filter.status && pattern.filter == filter && pattern.source == source, "\(source)")
            case (.failure(let readError), .failure(let parseError)):
                #expect(readError == parseError, "\(source)")
            default:
                Issue.record("read and parse disagree on \(source)")
            }
        }
        // Most of a real list's patterns are host patterns, and nearly all are read from their text.
        #expect(hosts > 90_000)
        #expect(fromText * 100 > hosts * 99, "\(fromText) of \(hosts)")
    }

    @Test(arguments: [
        (#"^[^:]+://+([^:/]+\.)?example\.com[/:]"#, "example.com", 0),
        (#"^[^:]+:\/\/+([^:/]+\.)?Example\.COM[/:]"#, "example.com", 0),
        (#"^[^:]+:\/\/+([^:/]+\.)?ads\.example\.com\/banner"#, "ads.example.com", 7),
        (#"^[^:]+:\/\/+([^:/]+\.)?example\.com:8080"#, "example.com", 5),
        (#"^[^:]+:\/\/+([^:/]+\.)?example\.com[/:]$"#, "example.com", 2),
        (#"^[^:]+:\/\/+([^:/]+\.)?1\.2\.3\.4\/.[ab]"#, "1.2.3.4", 3),
    ])
    func takesTheShape(source: String, domain: String, tailSets: Int) throws {
        let (text, tree) = bothReadings(source, caseSensitive: false)
        let host = try #require(text)
        #expect(host == tree)
        #expect(String(decoding: host.domain, as: UTF8.self) == domain)
        #expect(host.tail.count == tailSets)
    }

    @Test(arguments: [
        #"^[^:]+:\/\/+([^:/]+\.)?[/:]"#,  // no D
        #"^[^:]+:\/\/+([^:/]+\.)?example\.com"#,  // no T
        #"^[^:]+:\/\/+([^:/]+\.)?example\.com\.[/:]*"#,  // T with a quantifier
        #"^[^:]+:\/\/+([^:/]+\.)?example\.com.[/:]"#,  // D then `.`: not `/` or `:`
        #"^[^:]+:\/\/+([^:/]+\.)?exa(mple)\.com[/:]"#,  // a group
        #"[^:]+:\/\/+([^:/]+\.)?example\.com[/:]"#,  // no `^`
        #"^[^:]+:\/\/+example\.com[/:]"#,  // another prefix
    ])
    func leavesOtherShapes(_ source: String) {
        let (text, tree) = bothReadings(source, caseSensitive: false)
        #expect(text == nil && tree == nil, "\(source)")
    }

    @Test func caseSensitiveLettersEndTheDomain() {
        // D matches as hosts do, both cases: a case-sensitive letter is not one of its characters.
        let (text, tree) = bothReadings(#"^[^:]+:\/\/+([^:/]+\.)?example\.com[/:]"#, caseSensitive: true)
        #expect(text == nil && tree == nil)
        let (digits, digitsTree) = bothReadings(#"^[^:]+:\/\/+([^:/]+\.)?10\.0\.0\.1[/:]"#, caseSensitive: true)
        #expect(digits != nil && digits == digitsTree)
    }

    @Test func agreesWithItsSyntaxTreeOnGeneratedPatterns() {
        var random = SplitMix64(seed: 314)
        let prefixes = [#"^[^:]+://+([^:/]+\.)?"#, #"^[^:]+:\/\/+([^:/]+\.)?"#, #"^[^:]+:\/\/+"#, ""]
        let atoms = ["a", "Z", "0", "-", "\\.", ".", "\\/", "/", ":", "[/:]", "[:]", "[/]", "[ab]", "*", "?", "\\0", "$", "^", "(a)", " ", "%"]
        let domainAtoms = ["a", "Z", "0", "-", "\\.", "_"]
        var taken = 0
        for _ in 0..<8_000 {
            var source = prefixes[Int(random.next() % UInt64(prefixes.count))]
            for _ in 0..<Int(random.next() % 4) { source += domainAtoms[Int(random.next() % UInt64(domainAtoms.count))] }
            for _ in 0..<Int(random.next() % 4) { source += atoms[Int(random.next() % UInt64(atoms.count))] }
            let caseSensitive = random.next() % 4 == 0
            let (text, tree) = bothReadings(source, caseSensitive: caseSensitive)
            if let text {
                #expect(text == tree, "\(source)")
                taken += 1
            }
            expectReadAsParsed(source, caseSensitive: caseSensitive)
        }
        #expect(taken > 400)
    }
}

/// `URLFilterParser.read` gives `source` the status and syntax tree its parse gives (or rejects
/// it as the parse does).
func expectReadAsParsed(_ source: String, caseSensitive: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
    let read = try? URLFilterParser.read(source, isCaseSensitive: caseSensitive).get()
    let parsed = try? URLFilterParser.parse(source, isCaseSensitive: caseSensitive).get()
    #expect(read?.filter == parsed && read?.status == parsed?.status, "\(source)", sourceLocation: sourceLocation)
}
