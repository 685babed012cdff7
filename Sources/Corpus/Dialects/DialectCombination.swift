// DialectCombination.swift — Corpus
//
// Seeded random combinations of the documented dialects' parts: each part (scheme, subdomain
// group, each `^` form, the slash) drawn on its own from the forms some converter writes, so the
// corpus and the fuzzer also try spellings no one converter uses but an engine reading patterns by
// meaning must take all the same. Every form is one WebKit accepts where it is used, so every
// combination is too. A combination is named `mix-<seed>`, and the name gives it back.
// Tested by CorpusTests (DialectTests).

internal import SeededRandom

extension Dialect {
    /// The combination drawn from `seed`.
    public static func combination(seed: UInt64) -> Dialect {
        // SplitMix64: the same draws for a seed on any machine.
        var random = SplitMix64(seed: seed)
        func pick(_ forms: [String]) -> String {
            forms[Int(random.next() % UInt64(forms.count))]
        }
        return Dialect(
            name: "mix-\(seed)", scheme: pick(forms(\.scheme)), subdomain: pick(forms(\.subdomain)),
            hostEndAtEnd: pick(forms(\.hostEndAtEnd)), hostEndInMiddle: pick(forms(\.hostEndInMiddle)),
            separatorAtEnd: pick(forms(\.separatorAtEnd)), separatorInMiddle: pick(forms(\.separatorInMiddle)),
            slash: pick(forms(\.slash)), source: "a combination of the documented dialects' parts, seed \(seed)")
    }

    /// The combination a `mix-<seed>` name stands for; nil for any other name.
    static func combination(named name: String) -> Dialect? {
        guard name.hasPrefix("mix-"), let seed = UInt64(name.dropFirst(4)) else { return nil }
        return combination(seed: seed)
    }

    /// The distinct forms of one part among the documented dialects, in their order.
    static func forms(_ part: KeyPath<Dialect, String>) -> [String] {
        var seen: [String] = []
        for dialect in documented where !seen.contains(dialect[keyPath: part]) { seen.append(dialect[keyPath: part]) }
        return seen
    }
}
