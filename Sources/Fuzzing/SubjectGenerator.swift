// SubjectGenerator.swift — Fuzzing
//
// Strings to match a pattern against, biased to match: walk the pattern's tree choosing a
// repetition count for every quantifier and a member of every character set (a prefix and a
// suffix where the pattern is not anchored), then mutate the result (insert, delete, change
// case, cut, extend, duplicate, replace). Subjects hold bytes 1...127 only: canonical URLs are
// ASCII and never hold NUL, which is WebKit's end-of-URL marker.
// Tested by FuzzingTests.

public struct SubjectGenerator: Sendable {
    public var alphabet: [UInt8]

    public init(alphabet: String = "abcAB/.:-_?=&%{}0129") {
        self.alphabet = Array(alphabet.utf8)
    }

    /// `count` subjects for `pattern`: walks, mutated walks and a random string or two.
    public func subjects(for pattern: FuzzPattern, count: Int, _ random: inout FuzzRandom) -> [[UInt8]] {
        (0..<count).map { index in
            switch index % 4 {
            case 0: walk(pattern, &random) ?? randomString(&random)
            case 1, 2: mutate(walk(pattern, &random) ?? randomString(&random), &random)
            default: random.chance(1, in: 2) ? randomString(&random) : mutate(randomString(&random), &random)
            }
        }
    }

    public func randomCharacter(_ random: inout FuzzRandom) -> UInt8 {
        random.chance(85, in: 100) ? random.pick(alphabet) : UInt8(random.int(1...127))
    }

    public func randomString(_ random: inout FuzzRandom) -> [UInt8] {
        (0..<random.geometric(limit: 10) * 2).map { _ in randomCharacter(&random) }
    }

    /// A string the pattern matches by its own reading of it, or nil when a term can match
    /// nothing (`[]`).
    public func walk(_ pattern: FuzzPattern, _ random: inout FuzzRandom) -> [UInt8]? {
        var walker = Walker(pattern: pattern, generator: self)
        if !pattern.startAnchor { walker.out += (0..<random.geometric(limit: 3)).map { _ in randomCharacter(&random) } }
        guard walker.walk(pattern.terms, &random) else { return nil }
        if !walker.ended && !pattern.endAnchor {
            walker.out += (0..<random.geometric(limit: 3)).map { _ in randomCharacter(&random) }
        }
        return walker.out
    }

    private struct Walker {
        let pattern: FuzzPattern
        let generator: SubjectGenerator
        var out: [UInt8] = []
        /// An end-of-URL marker was passed: nothing may follow.
        var ended = false

        mutating func walk(_ terms: [FuzzTerm], _ random: inout FuzzRandom) -> Bool {
            for term in terms {
                if ended { return true }
                if FuzzPattern.isEndMarker(term) {
                    ended = true
                    return true
                }
                let repeats: Int
                switch term.quantifier.meaning {
                case .one: repeats = 1
                case .zeroOrOne: repeats = random.below(2)
                case .zeroOrMore: repeats = random.geometric(limit: 3)
                case .oneOrMore: repeats = 1 + random.geometric(limit: 2)
                }
                for _ in 0..<repeats {
                    if case .group(_, let inner) = term.atom {
                        guard walk(inner, &random) else { return false }
                        continue
                    }
                    guard let set = pattern.characters(of: term.atom) else { continue }
                    var members = set.members.filter { $0 != 0 }
                    guard !members.isEmpty else { return false }
                    let printable = members.filter { $0 >= 0x20 && $0 < 0x7F }
                    if !printable.isEmpty && random.chance(9, in: 10) { members = printable }
                    let preferred = members.filter { generator.alphabet.contains($0) }
                    out.append(!preferred.isEmpty && random.chance(2, in: 3) ? random.pick(preferred) : random.pick(members))
                }
            }
            return true
        }
    }

    /// The subject after one to three random edits.
    public func mutate(_ subject: [UInt8], _ random: inout FuzzRandom) -> [UInt8] {
        var result = subject
        for _ in 0..<(1 + random.geometric(limit: 2)) {
            let position = random.below(result.count + 1)
            switch random.below(7) {
            case 0:
                result.insert(randomCharacter(&random), at: position)
            case 1 where !result.isEmpty:
                result.remove(at: min(position, result.count - 1))
            case 2:
                let letters = result.indices.filter { (result[$0] | 0x20) >= 0x61 && (result[$0] | 0x20) <= 0x7A }
                if let index = letters.isEmpty ? nil : random.pick(letters) { result[index] ^= 0x20 }
            case 3:
                result.removeSubrange(position...)
            case 4:
                result += (0..<random.int(1...3)).map { _ in randomCharacter(&random) }
            case 5 where !result.isEmpty:
                let start = random.below(result.count)
                let end = random.int(start...result.count)
                result.insert(contentsOf: Array(result[start..<end]), at: random.below(result.count + 1))
            default:
                if !result.isEmpty { result[min(position, result.count - 1)] = randomCharacter(&random) }
            }
        }
        return result
    }
}
