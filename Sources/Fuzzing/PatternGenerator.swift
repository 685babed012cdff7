// PatternGenerator.swift — Fuzzing
//
// Random url-filters from the subset's grammar: literals in every spelling, `.`, classes and
// negated classes with ranges, groups of every kind (nested, empty), `? * +` and their brace and
// lazy spellings on anything, `^`, `$`, end-of-URL markers, case sensitivity. A share of the
// patterns carries one construct just outside the subset (`Defect`), placed where the model knows
// the status WebKit gives. A small share is built to blow up the DFA (`[ab]*a[ab][ab]...`: the
// classic 2^n states), to check the typed limit error.
// Tested by FuzzingTests.

internal import URLFilterSyntax

public struct PatternGenerator: Sendable {
    /// Characters the literals favour (the subjects draw from the same ones, so they collide).
    public var alphabet: [UInt8]
    public var maximumTerms = 6
    public var maximumDepth = 3
    /// Patterns carrying a defect, per hundred.
    public var defectPercent = 0
    /// Case-sensitive patterns, per hundred.
    public var caseSensitivePercent = 30

    public init(alphabet: String = "abcAB/.:-_?=&%{}0129", defectPercent: Int = 0) {
        self.alphabet = Array(alphabet.utf8)
        self.defectPercent = defectPercent
    }

    /// A pattern inside the subset, or (defectPercent of the time) with one defect.
    public func pattern(_ random: inout FuzzRandom) -> FuzzPattern {
        var pattern = valid(&random)
        if random.chance(defectPercent, in: 100) { insertDefect(into: &pattern, &random) }
        return pattern
    }

    /// A pattern inside the subset.
    public func valid(_ random: inout FuzzRandom) -> FuzzPattern {
        var names = 0
        var terms = sequence(&random, depth: 0, names: &names, allowEmpty: false)
        var endAnchor = random.chance(20, in: 100)
        if !endAnchor && random.chance(4, in: 100) {
            terms.append(FuzzTerm(.endMarker(random.pick(["\\0", "\\x00", "[\\0]", "\\000", "\\u0000", "[\\x00]"])), random.chance(1, in: 4) ? quantifier(&random) : .one))
            endAnchor = false
        }
        var pattern = FuzzPattern(
            startAnchor: random.chance(25, in: 100), endAnchor: endAnchor, terms: terms,
            caseSensitive: random.chance(caseSensitivePercent, in: 100))
        pattern.doubledStartAnchor = pattern.startAnchor && random.chance(1, in: 20)
        return pattern
    }

    /// A pattern whose DFA needs about 2^n states (n from 12 to 22): `[ab]*a[ab]{n}` written out.
    public func blowUp(_ random: inout FuzzRandom) -> FuzzPattern {
        let n = random.int(12...22)
        let pair = ClassItem.range(UInt8(ascii: "a"), .plain, UInt8(ascii: "b"), .plain)
        var terms = [FuzzTerm(.characterClass(negated: false, [pair]), .short(.zeroOrMore)), FuzzTerm(.character(UInt8(ascii: "a"), .plain))]
        terms += Array(repeating: FuzzTerm(.characterClass(negated: false, [pair])), count: n)
        return FuzzPattern(terms: terms, caseSensitive: true)
    }

    func sequence(_ random: inout FuzzRandom, depth: Int, names: inout Int, allowEmpty: Bool) -> [FuzzTerm] {
        let count = allowEmpty && random.chance(1, in: 10) ? 0 : 1 + random.below(depth == 0 ? maximumTerms : 3)
        return (0..<count).map { _ in term(&random, depth: depth, names: &names) }
    }

    func term(_ random: inout FuzzRandom, depth: Int, names: inout Int) -> FuzzTerm {
        enum Kind { case character, any, characterClass, group }
        let kind = random.weighted([
            (55, Kind.character), (10, .any), (20, .characterClass), (depth < maximumDepth ? 15 : 0, .group),
        ])
        let atom: FuzzAtom
        switch kind {
        case .character: atom = .character(character(&random), spelling(&random))
        case .any: atom = .any
        case .characterClass: atom = characterClass(&random)
        case .group:
            let groupKind: GroupKind
            switch random.below(20) {
            case 0..<10: groupKind = .capturing
            case 10..<17: groupKind = .nonCapturing
            default:
                groupKind = .named("g\(names)")
                names += 1
            }
            atom = .group(groupKind, sequence(&random, depth: depth + 1, names: &names, allowEmpty: true))
        }
        let quantifier = random.chance(45, in: 100) ? quantifier(&random) : .one
        return FuzzTerm(atom, quantifier, lazy: quantifier != .one && random.chance(8, in: 100))
    }

    func quantifier(_ random: inout FuzzRandom) -> QuantifierSpelling {
        if random.chance(9, in: 10) {
            return .short(random.pick([.zeroOrOne, .zeroOrMore, .oneOrMore]))
        }
        let (text, meaning) = random.pick([
            ("{0,1}", URLFilterQuantifier.zeroOrOne), ("{0,}", .zeroOrMore), ("{1,}", .oneOrMore), ("{00,01}", .zeroOrOne),
            ("{0,4294967295}", .zeroOrMore), ("{1,99999999999}", .oneOrMore), ("{01,}", .oneOrMore), ("{0,0001}", .zeroOrOne),
        ])
        return .braces(text, meaning)
    }

    func character(_ random: inout FuzzRandom) -> UInt8 {
        random.chance(85, in: 100) ? random.pick(alphabet) : UInt8(random.int(1...127))
    }

    func spelling(_ random: inout FuzzRandom) -> CharacterSpelling {
        random.weighted([(70, CharacterSpelling.plain), (8, .identity), (8, .hex), (4, .unicode), (5, .octal), (2, .control), (3, .named)])
    }

    func characterClass(_ random: inout FuzzRandom) -> FuzzAtom {
        let count = random.chance(1, in: 20) ? 0 : random.int(1...4)
        var items: [ClassItem] = []
        for _ in 0..<count {
            if random.chance(3, in: 100) {
                items.append(.character(0, random.pick([.octal, .hex, .plain])))  // with others: matches the end too
            } else if random.chance(30, in: 100) {
                let low = character(&random)
                let high = UInt8(min(127, Int(low) + random.int(0...25)))
                items.append(.range(low, spelling(&random), high, spelling(&random)))
            } else {
                items.append(.character(character(&random), spelling(&random)))
            }
        }
        // A class of NUL alone is an end marker, allowed only last: give it company.
        if !items.isEmpty && FuzzPattern.isEndMarker(FuzzTerm(.characterClass(negated: false, items))) {
            items.append(.character(UInt8(ascii: "a"), .plain))
        }
        return .characterClass(negated: random.chance(30, in: 100), items)
    }

    // MARK: Defects

    /// Puts one construct just outside the subset somewhere it keeps its own status.
    func insertDefect(into pattern: inout FuzzPattern, _ random: inout FuzzRandom) {
        // End markers are last and `$`-free by construction; a defect after one would be judged by
        // the marker first. Drop it.
        if let last = pattern.terms.last, FuzzPattern.isEndMarker(last) { pattern.terms.removeLast() }
        let defect: Defect = random.weighted([
            (8, .disjunction),
            (8, .lookaround(random.pick(["(?=a)", "(?!a)", "(?<=a)", "(?<!a)", "(?=a)*", "(?!)"]))),
            (8, .builtInClass(random.pick(["d", "D", "s", "S", "w", "W"]))),
            (5, .builtInClassInClass(random.pick(["d", "D", "s", "S", "w", "W"]))),
            (6, .wordBoundary(random.pick(["b", "B"]))),
            (4, .backReference),
            (8, .invalidQuantifier(random.pick(["{2}", "{1,3}", "{2,}", "{0}", "{0,2}", "{3,3}", "{0,70000}"]))),
            (5, .nonASCII(random.pick(["é", "\\u00e9", "\\xff", "日", "[é]"]))),
            (8, .misplacedStart),
            (8, .misplacedEnd(random.pick(["$a", "\\0a", "$$", "[\\0]a", "\\x00a"]))),
            (10, .syntax(random.pick(["(", ")", "a**", "a+*", "a?+", "[b-a]", "(?x)", "(?<1>a)", "a???", "(?<a>b)(?<a>c)"]))),
            (3, .syntax("{1}")),
            (3, .trailingSyntax(random.pick(["[", "\\", "[a", "(?"]))),
        ])
        let term = FuzzTerm(.defect(defect))
        switch defect {
        case .trailingSyntax:
            pattern.terms.append(term)
            pattern.endAnchor = false
        case .syntax("{1}"):
            // Nothing to repeat: first in the pattern or first in a group.
            insert(term, into: &pattern.terms, random: &random, onlyFirst: true)
        case .misplacedStart:
            // First at the top level a `^` is the start anchor (or, after one, the same anchor
            // again: WebKit accepts `^^a` as `^a`), not a defect.
            insert(term, into: &pattern.terms, random: &random, onlyFirst: false, avoidTopLevelStart: true)
        default:
            insert(term, into: &pattern.terms, random: &random, onlyFirst: false)
        }
    }

    /// Inserts `term` at a random position of `terms` or of a group inside them.
    func insert(
        _ term: FuzzTerm, into terms: inout [FuzzTerm], random: inout FuzzRandom, onlyFirst: Bool, avoidTopLevelStart: Bool = false
    ) {
        let groups = terms.indices.filter { if case .group = terms[$0].atom { true } else { false } }
        if !groups.isEmpty && random.chance(1, in: 3) {
            let index = random.pick(groups)
            guard case .group(let kind, var inner) = terms[index].atom else { return }
            insert(term, into: &inner, random: &random, onlyFirst: onlyFirst)
            terms[index].atom = .group(kind, inner)
            return
        }
        if onlyFirst {
            terms.insert(term, at: 0)
        } else {
            // A `^` first at the top level would be the start anchor, not a defect.
            if avoidTopLevelStart && terms.isEmpty { terms.append(FuzzTerm(.character(UInt8(ascii: "a"), .plain))) }
            terms.insert(term, at: random.int((avoidTopLevelStart ? 1 : 0)...terms.count))
        }
    }
}
