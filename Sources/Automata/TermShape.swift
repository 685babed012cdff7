// TermShape.swift — Automata
//
// A url-filter term without its source span: two terms with the same shape match the same
// strings (case folding is already in the character sets). The NFA's prefix tree and the stage
// planner's shared prefixes are keyed by shapes. Also here: the term and pattern predicates the
// NFA builder, the planner and the partitioner share (loops, end markers, the terms matched).

internal import URLFilterSyntax

enum TermShape: Hashable {
    case set(ASCIISet, URLFilterQuantifier)
    case group([TermShape], URLFilterQuantifier)

    init(_ term: URLFilterTerm) {
        if case .group(let terms) = term.atom {
            self = .group(terms.map(TermShape.init), term.quantifier)
        } else {
            self = .set(term.characterSet!, term.quantifier)
        }
    }
}

extension URLFilterTerm {
    /// The term repeats (`*`, `+`), itself or inside its group, at any depth.
    var containsLoop: Bool {
        if quantifier.allowsMany { return true }
        if case .group(let terms) = atom { return terms.contains { $0.containsLoop } }
        return false
    }

    /// The term can match the end-of-URL NUL, itself or inside its group.
    var containsEndOfURLMarker: Bool {
        if isEndOfURLMarker { return true }
        if case .group(let terms) = atom { return terms.contains { $0.containsEndOfURLMarker } }
        return false
    }
}

extension URLFilter {
    /// The terms the automaton needs to report the pattern: a match that ends earlier is a match,
    /// so trailing terms that may match nothing add nothing (`ab*` is reported at the `a`),
    /// unless the pattern is anchored at the end (`ab*$`).
    var matchedTerms: ArraySlice<URLFilterTerm> {
        var terms = self.terms[...]
        guard !hasEndAnchor else { return terms }
        while let last = terms.last, last.quantifier.allowsZero || !last.mustConsumeCharacter && !last.containsEndOfURLMarker {
            terms.removeLast()
        }
        return terms
    }
}
