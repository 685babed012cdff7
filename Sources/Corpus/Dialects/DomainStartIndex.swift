// DomainStartIndex.swift — Corpus
//
// The URLs where a `||` pattern's domain could begin, found without trying every URL. In every
// dialect the domain D follows the scheme's `:` or `/`, or the subdomain group's `.`, so a URL a
// pattern of D matches holds D's first bytes right after a `.`, `/` or `:` (letters folded). The
// index keeps, for each such place of each URL, the next 1 to 8 bytes; a pattern's candidates are
// the URLs with its domain's first bytes at such a place: a superset of the URLs it matches, in
// any dialect, which the meaning check (DialectMeaningCheck.swift) then asks PCRE2 about.
// Tested by CorpusTests (DialectTests).

struct DomainStartIndex: Sendable {
    static let longestKey = 8
    /// By key length - 1: the packed first bytes, and the URLs (indexes) holding them.
    private var byLength: [[UInt64: [Int32]]] = Array(repeating: [:], count: longestKey)
    let count: Int

    init(_ urls: [String]) {
        count = urls.count
        for (number, url) in urls.enumerated() {
            let bytes = Array(url.utf8).map(Self.folded)
            var seen = Array(repeating: Set<UInt64>(), count: Self.longestKey)
            for start in 1..<max(1, bytes.count) where [UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ":")].contains(bytes[start - 1]) {
                var key: UInt64 = 0
                for length in 1...min(Self.longestKey, bytes.count - start) {
                    key = key << 8 | UInt64(bytes[start + length - 1])
                    // Each key once per URL.
                    if seen[length - 1].insert(key).inserted { byLength[length - 1][key, default: []].append(Int32(number)) }
                }
            }
        }
    }

    /// The URLs that may hold `domain` (lower case) where a domain begins; nil when `domain` is
    /// empty (every URL may).
    func candidates(_ domain: [UInt8]) -> [Int32]? {
        guard !domain.isEmpty else { return nil }
        let length = min(Self.longestKey, domain.count)
        let key = domain.prefix(length).reduce(UInt64(0)) { $0 << 8 | UInt64(Self.folded($1)) }
        return byLength[length - 1][key] ?? []
    }

    static func folded(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
}
