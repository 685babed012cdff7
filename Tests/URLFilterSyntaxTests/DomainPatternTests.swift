// DomainPatternTests.swift — a domain pattern's parts read from its text (DomainPattern.swift)
// are exactly those read from its syntax tree: for every domain of the shipped lists' conditions,
// and on generated texts. Covers Sources/URLFilterSyntax/DomainPattern.swift.

import Testing
@testable import URLFilterSyntax
import TestSupport

private func bothReadings(_ source: String, caseSensitive: Bool = false) -> (text: DomainPattern?, tree: DomainPattern?) {
    let tree = (try? URLFilterParser.parse(source, isCaseSensitive: caseSensitive).get()).flatMap(DomainPattern.init)
    return (DomainPattern(source: source, isCaseSensitive: caseSensitive), tree)
}

@Suite struct DomainPatternTests {
    @Test func everyShippedConditionDomainIsReadFromItsText() throws {
        let domains = Set(try shippedConditionDomains())
        #expect(domains.count > 10_000)
        for domain in domains {
            let source = DomainPattern.source(forDomain: domain)
            let (text, tree) = bothReadings(source)
            #expect(text != nil && text == tree, "\(domain): \(source)")
            let name = domain.hasPrefix("*") ? String(domain.dropFirst()) : domain
            #expect(text?.domain == Array(name.utf8) && text?.subdomains == domain.hasPrefix("*"), "\(domain)")
            #expect((try? URLFilterParser.read(source).get()) == text.map(AcceptedPattern.domain))
        }
    }

    /// A plain domain's pattern, made with its parts, is the one its text reads as; any other
    /// domain (empty, upper case, a special or non-ASCII unit, a `*` past the first) is left to
    /// be read. On the shipped lists' domains and generated ones.
    @Test func aPlainDomainsPatternIsTheOneItsTextReadsAs() throws {
        var domains = Array(Set(try shippedConditionDomains()))
        var random = SplitMix64(seed: 2718)
        let pieces = ["a", "z", "Z", "0", "9", "-", "_", ".", "*", "/", "\\", "[", ":", "é", "xn--p1ai", "", " "]
        for _ in 0..<4_000 {
            var domain = ""
            for _ in 0..<Int(random.next() % 6) { domain += pieces[Int(random.next() % UInt64(pieces.count))] }
            domains.append(domain)
        }
        var plainCount = 0
        for domain in domains {
            let source = DomainPattern.source(forDomain: domain)
            let name = domain.hasPrefix("*") ? domain.utf8.dropFirst() : domain.utf8[...]
            let isPlain = !name.isEmpty && name.allSatisfy { "abcdefghijklmnopqrstuvwxyz0123456789-_.".utf8.contains($0) }
            guard let plain = DomainPattern(plainDomain: domain) else {
                #expect(!isPlain, "\(domain)")
                continue
            }
            plainCount += 1
            #expect(plain.source == source, "\(domain)")
            #expect(try URLFilterParser.read(source).get() == .domain(plain), "\(domain)")
        }
        #expect(plainCount > 10_000)
    }

    @Test func writesADomainsPatternAsSpelledOut() {
        // Every special unit escaped, the rest as it is, between the prefix and `[:/]`: the text
        // written byte by byte is the one spelled out here, on generated domains (special units,
        // `*` anywhere, non-ASCII).
        func spelledOut(_ domain: String) -> String {
            let subdomains = domain.hasPrefix("*")
            var pattern = subdomains ? #"[a-z][a-z+.-]*:\/\/([^/]*\.)*"# : #"[a-z][a-z+.-]*:\/\/"#
            for character in subdomains ? domain.dropFirst() : Substring(domain) {
                if ".*+?^$()[]{}|\\/-".contains(character) { pattern += "\\" }
                pattern.append(character)
            }
            return pattern + "[:/]"
        }
        var random = SplitMix64(seed: 1618)
        let pieces = ["a", "Z", "0", "-", ".", "*", "/", "\\", "[", "]", "é", "_", ":", "$", "xn--p1ai", "🙂", ""]
        for _ in 0..<4_000 {
            var domain = ""
            for _ in 0..<Int(random.next() % 7) { domain += pieces[Int(random.next() % UInt64(pieces.count))] }
            #expect(DomainPattern.source(forDomain: domain) == spelledOut(domain), "\(domain)")
        }
        #expect(DomainPattern.source(forDomain: "*.example.com") == #"[a-z][a-z+.-]*:\/\/([^/]*\.)*\.example\.com[:/]"#)
    }

    @Test(arguments: [
        (#"[a-z][a-z+.-]*:\/\/example\.com[:/]"#, "example.com", false),
        (#"[a-z][a-z+.-]*:\/\/([^/]*\.)*Example\.COM[/:]"#, "example.com", true),
        (#"[a-z][a-z+.-]*:\/\/a:b[:/]"#, "a:b", false),
    ])
    func takesTheShape(source: String, domain: String, subdomains: Bool) throws {
        let (text, tree) = bothReadings(source)
        let pattern = try #require(text)
        #expect(pattern == tree)
        #expect(pattern.domain == Array(domain.utf8) && pattern.subdomains == subdomains)
    }

    @Test(arguments: [
        #"[a-z][a-z+.-]*:\/\/[:/]"#,  // no D
        #"[a-z][a-z+.-]*:\/\/example\.com"#,  // no `[:/]`
        #"[a-z][a-z+.-]*:\/\/example\.com[:/]$"#,  // anchored
        #"^[a-z][a-z+.-]*:\/\/example\.com[:/]"#,
        #"[a-z][a-z+.-]*:\/\/example\.com\/[:/]"#,  // `/` in D
        #"[a-z][a-z+.-]*:\/\/example\.com[:/]x"#,  // after `[:/]`
        #"[a-z][a-z+.-]*:\/\/([^/]*\.)+example\.com[:/]"#,  // another quantifier
        #"[a-z][a-z+.-]+:\/\/example\.com[:/]"#,
    ])
    func leavesOtherShapes(_ source: String) {
        let (text, tree) = bothReadings(source)
        #expect(text == nil && tree == nil, "\(source)")
    }

    @Test func caseSensitivePatternsNeverHaveTheShape() {
        // The scheme's `[a-z]` then matches lower case only: not the pattern WebKit makes.
        let (text, tree) = bothReadings(#"[a-z][a-z+.-]*:\/\/10\.0\.0\.1[:/]"#, caseSensitive: true)
        #expect(text == nil && tree == nil)
    }

    @Test func agreesWithItsSyntaxTreeOnGeneratedPatterns() {
        var random = SplitMix64(seed: 2718)
        let prefixes = [#"[a-z][a-z+.-]*:\/\/"#, #"[a-z][a-z+.-]*:\/\/([^/]*\.)*"#, #"[a-z][a-z+.-]*:\/\/([^/]*\.)"#, ""]
        let atoms = ["a", "Z", "0", "\\-", "-", "\\.", ".", ":", "\\/", "/", "[:/]", "[/:]", "[:]", "*", "$", "\\0", "(a)", "_"]
        var taken = 0
        for _ in 0..<8_000 {
            var source = prefixes[Int(random.next() % UInt64(prefixes.count))]
            for _ in 0..<Int(random.next() % 5) { source += atoms[Int(random.next() % 8)] }
            for _ in 0..<Int(random.next() % 3) { source += atoms[Int(random.next() % UInt64(atoms.count))] }
            if random.next() % 2 == 0 { source += "[:/]" }
            let caseSensitive = random.next() % 5 == 0
            let (text, tree) = bothReadings(source, caseSensitive: caseSensitive)
            if let text {
                #expect(text == tree, "\(source)")
                taken += 1
            }
            expectReadAsParsed(source, caseSensitive: caseSensitive)
        }
        #expect(taken > 300)
    }
}
