// TermShape.swift — Automata
//
// A url-filter term without its source span: two terms with the same shape match the same
// strings (case folding is already in the character sets). The NFA's prefix tree and the stage
// planner's shared prefixes are keyed by shapes. Also here: the term and pattern predicates the
// NFA builder, the planner and the partitioner share (loops, end markers, the terms matched).
// Tested by AutomataTests/StagePropertyTests.swift and TrieDeterminizationTests.swift.

internal import URLFilterSyntax

enum TermShape: Hashable {
    case set(ASCIISet, URLFilterQuantifier)
    case group(URLFilterGroup, URLFilterQuantifier)

    init(_ term: URLFilterTerm) {
        if case .group(let group) = term.atom {
            self = .group(group, term.quantifier)
        } else {
            self = .set(term.characterSet!, term.quantifier)
        }
    }

    static func == (lhs: TermShape, rhs: TermShape) -> Bool {
        switch (lhs, rhs) {
        case (.set(let a, let p), .set(let b, let q)): a == b && p == q
        case (.group(let a, let p), .group(let b, let q)): p == q && a.hasSameShape(as: b)
        default: false
        }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(mixedHash)
    }
}

extension TermShape {
    /// A multiply-xorshift hash (Hashing.swift), for `ShapeEdges`. A group's comes from the hash of
    /// its shape that the parser computed: no walk of its terms.
    var mixedHash: UInt64 {
        switch self {
        case .set(let set, let quantifier):
            return mixHash(mixHash(mixHash(0x243F_6A88_85A3_08D3, set.low), set.high), quantifier.code)
        case .group(let group, let quantifier):
            return mixHash(mixHash(0x1319_8A2E_0370_7344, quantifier.code), group.shapeHash)
        }
    }
}

extension URLFilterQuantifier {
    var code: UInt64 {
        switch self {
        case .one: 0
        case .zeroOrOne: 1
        case .zeroOrMore: 2
        case .oneOrMore: 3
        }
    }
}

/// The edges of a prefix tree of terms: (node, term shape) -> child node. An open-addressing table
/// (linear probing, at most half full) with a multiply-xorshift hash (Hashing.swift): a Dictionary
/// would hash every term of every pattern with SipHash, which with its equality checks would be a
/// seventh of EasyList's compile (the NFA builder's prefix tree and the stage planner's).
struct ShapeEdges {
    private var parents: [UInt32] = []
    private var shapes: [TermShape] = []
    private var hashes: [UInt64] = []
    private var children: [UInt32] = []
    private var slots: [Int32]

    init(capacity: Int = 0) {
        slots = [Int32](repeating: -1, count: hashTableSize(for: capacity))
        parents.reserveCapacity(capacity)
        shapes.reserveCapacity(capacity)
        hashes.reserveCapacity(capacity)
        children.reserveCapacity(capacity)
    }

    /// The key's hash, for `child` and `insert`.
    static func hash(_ parent: UInt32, _ shape: TermShape) -> UInt64 { mixHash(shape.mixedHash, UInt64(parent)) }

    /// The child of `parent` along `shape`, if the tree has it.
    func child(_ parent: UInt32, _ shape: TermShape, hash: UInt64) -> UInt32? {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] >= 0 {
            let edge = Int(slots[slot])
            if hashes[edge] == hash && parents[edge] == parent && shapes[edge] == shape { return children[edge] }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Adds an edge the tree does not have.
    mutating func insert(_ parent: UInt32, _ shape: TermShape, hash: UInt64, child: UInt32) {
        parents.append(parent)
        shapes.append(shape)
        hashes.append(hash)
        children.append(child)
        if 2 * children.count > slots.count {
            slots = [Int32](repeating: -1, count: slots.count * 2)
            for edge in hashes.indices { place(edge) }
        } else {
            place(children.count - 1)
        }
    }

    private mutating func place(_ edge: Int) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hashes[edge]) & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(edge)
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
