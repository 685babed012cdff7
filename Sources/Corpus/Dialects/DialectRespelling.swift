// DialectRespelling.swift — Corpus
//
// One url-filter re-spelled in a dialect. A pattern that starts with AdGuard's `||` prefix,
// `^[^:]+://+([^:/]+\.)?`, has the rest of its text written by AdGuard's converter from an ABP
// rule: the domain, then `[/:]` for a `^` right after it (`[:/]` in DuckDuckGo's list, the same
// set), `[/:&?]` for any other `^`, `\/` for a `/`, and the rest as it is. Read as tokens (an
// escape, a class, a character), those three are replaced by the dialect's forms (the form for the
// end of the pattern when nothing follows) and the prefix by the dialect's; everything else is
// kept. Any other pattern is not re-spelled.
// Tested by CorpusTests (DialectTests).

extension Dialect {
    /// AdGuard's `||` prefix, the text every re-spelled pattern starts with.
    public static let adguardPrefix = #"^[^:]+://+([^:/]+\.)?"#

    /// `pattern` in this dialect; nil when it does not start with AdGuard's `||` prefix.
    public func respell(_ pattern: String) -> String? {
        guard pattern.hasPrefix(Self.adguardPrefix) else { return nil }
        let tokens = Self.tokens(pattern.utf8.dropFirst(Self.adguardPrefix.utf8.count))
        var out = prefix
        var inDomain = true
        for (index, token) in tokens.enumerated() {
            let isLast = index == tokens.count - 1
            switch token {
            case "[/:]" where inDomain && index > 0, "[:/]" where inDomain && index > 0:
                out += isLast ? hostEndAtEnd : hostEndInMiddle
            case "[/:&?]":
                out += isLast ? separatorAtEnd : separatorInMiddle
            case #"\/"#:
                out += slash
            default:
                out += token
            }
            inDomain = inDomain && Self.isDomainToken(token)
        }
        return out
    }

    /// The text as tokens: `\` and the next character, a class `[...]` (escapes inside kept whole),
    /// or one character.
    static func tokens(_ text: Substring.UTF8View) -> [String] {
        let bytes = Array(text)
        var tokens: [String] = []
        var index = 0
        while index < bytes.count {
            var end = index + 1
            if bytes[index] == UInt8(ascii: "\\") {
                end = min(index + 2, bytes.count)
            } else if bytes[index] == UInt8(ascii: "[") {
                end = classEnd(bytes, from: index)
            }
            tokens.append(String(decoding: bytes[index..<end], as: UTF8.self))
            index = end
        }
        return tokens
    }

    /// The index after the `]` closing the class that opens at `start` (the text's end when none does).
    static func classEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "]"): return index + 1
            default: index += 1
            }
        }
        return bytes.count
    }

    /// A token of a domain as AdGuard writes it: a letter, a digit, `-`, `_` or `\.`.
    static func isDomainToken(_ token: String) -> Bool {
        if token == #"\."# { return true }
        guard token.utf8.count == 1, let byte = token.utf8.first else { return false }
        let lower = byte | 0x20
        return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
