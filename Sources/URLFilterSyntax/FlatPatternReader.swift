// FlatPatternReader: the terms of a flat pattern, read without the general grammar.
//
// Nearly every url-filter of a real list is flat: literal characters, escaped punctuation, `.`
// and plain classes such as `[/:]`, often after the prefix converters write for `||`
// (`^[^:]+://+([^:/]+\.)?`), with no quantifier, group or alternative of its own. For such a
// pattern the general reader's bookkeeping (a floating term that a quantifier may still take,
// open groups, named groups, escapes of every kind) is most of the work, so this reads it in one
// pass and gives up (nil) at the first byte it does not take; the general reader then reads the
// pattern from its start. What it returns is exactly what the general reader returns for the same
// pattern, spans included: URLFilterSyntaxTests hold the two to each other on every shipped
// pattern and on generated ones.

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

enum FlatPatternReader {
    /// The `||` prefix as converters write it (the slashes escaped or not), with its terms as the
    /// general reader reads them. It has no letter, so its terms are the same whatever the case
    /// sensitivity (the tests compare both readers under both).
    private static let hostPrefixes: [(bytes: [UInt8], terms: [URLFilterTerm])] = {
        [hostPrefixSource(0), hostPrefixSource(1)].map { source in
            let source = "\(source)"
            guard case .success(let filter) = URLFilterParser.parse(source, isCaseSensitive: false, flat: false) else {
                preconditionFailure("the `||` prefix is a valid pattern")
            }
            return (Array(source.utf8), filter.terms)
        }
    }()

    /// The `||` prefix's spelling `number` (0 or 1), as constant bytes: matched against every
    /// pattern without reading `hostPrefixes` (a lazily made global, retained at each read).
    @inline(__always)
    private static func hostPrefixSource(_ number: Int) -> StaticString {
        number == 0 ? #"^[^:]+://+([^:/]+\.)?"# : #"^[^:]+:\/\/+([^:/]+\.)?"#
    }

    /// The terms of the `||` prefix (either spelling).
    static var hostPrefixTerms: [URLFilterTerm] { hostPrefixes[0].terms }

    /// The length of the `||` prefix `bytes` starts with (either spelling), nil when none.
    static func hostPrefixLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        hostPrefixNumber(bytes).map { hostPrefixSource($0).utf8CodeUnitCount }
    }

    /// Which of `hostPrefixes` `bytes` starts with, nil when none (compared as raw bytes: a
    /// generic `starts(with:)` is most of the cost of reading a short host pattern).
    private static func hostPrefixNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress, !bytes.isEmpty, base.pointee == UInt8(ascii: "^") else { return nil }
        for number in 0..<2 {
            let prefix = hostPrefixSource(number)
            if bytes.count >= prefix.utf8CodeUnitCount && memcmp(base, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0 {
                return number
            }
        }
        return nil
    }

    /// Whether `bytes` starts with `prefix`, compared as raw bytes (a generic `starts(with:)`
    /// is most of the cost of reading a short pattern).
    static func starts(_ bytes: UnsafeBufferPointer<UInt8>, with prefix: [UInt8]) -> Bool {
        guard let base = bytes.baseAddress, bytes.count >= prefix.count else { return prefix.isEmpty }
        return prefix.withUnsafeBufferPointer { prefix in
            prefix.isEmpty || (base.pointee == prefix[0] && memcmp(base, prefix.baseAddress!, prefix.count) == 0)
        }
    }

    /// Gives `sink` the terms of `bytes` from `index` (where a term starts) on, while it takes
    /// them; returns whether a `$` ends them, or nil when they are not flat or `sink` stopped
    /// taking.
    static func read<Sink: TermSink>(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int, isCaseSensitive: Bool, into sink: inout Sink) -> Bool? {
        walk(bytes, from: index, isCaseSensitive: isCaseSensitive, into: &sink)
    }

    /// The parts of `bytes` (non-empty, ASCII), or nil when it is not flat.
    static func read(_ bytes: [UInt8], isCaseSensitive: Bool) -> TermBuilder.Parts? {
        bytes.withUnsafeBufferPointer { read($0, isCaseSensitive: isCaseSensitive) }
    }

    private static func read(_ bytes: UnsafeBufferPointer<UInt8>, isCaseSensitive: Bool) -> TermBuilder.Parts? {
        let prefix = hostPrefixNumber(bytes).map { hostPrefixes[$0] }
        let hasStartAnchor = prefix != nil || bytes[0] == UInt8(ascii: "^")
        let start = prefix?.bytes.count ?? (hasStartAnchor ? 1 : 0)
        // Two walks, the first to count: the terms are then made in one allocation of their exact
        // size, which a compiler keeps until its automata are built.
        var counter = Counter()
        guard let hasEndAnchor = walk(bytes, from: start, isCaseSensitive: isCaseSensitive, into: &counter) else { return nil }
        var collector = Collector()
        collector.terms.reserveCapacity((prefix?.terms.count ?? 0) + counter.count)
        if let prefix { collector.terms += prefix.terms }
        _ = walk(bytes, from: start, isCaseSensitive: isCaseSensitive, into: &collector)
        return TermBuilder.Parts(hasStartAnchor: hasStartAnchor, hasEndAnchor: hasEndAnchor, terms: collector.terms)
    }

    /// What the walk gives its terms to: a value, not a closure (a closure capturing its state
    /// would box it, and check exclusive access to it at every term).
    protocol TermSink {
        /// Takes a term; false stops the walk.
        mutating func take(_ term: URLFilterTerm) -> Bool
    }

    private struct Counter: TermSink {
        var count = 0
        mutating func take(_ term: URLFilterTerm) -> Bool {
            count += 1
            return true
        }
    }

    private struct Collector: TermSink {
        var terms: [URLFilterTerm] = []
        mutating func take(_ term: URLFilterTerm) -> Bool {
            terms.append(term)
            return true
        }
    }

    /// Gives `sink` the terms of `bytes` from `index` on; returns whether a `$` ends them, or nil
    /// at the first byte the flat reader does not take, or when `sink` stops taking.
    @inline(__always)
    private static func walk<Sink: TermSink>(
        _ bytes: UnsafeBufferPointer<UInt8>, from index: Int, isCaseSensitive: Bool, into sink: inout Sink
    ) -> Bool? {
        func emit(_ term: URLFilterTerm) -> Bool { sink.take(term) }
        func matches(_ unit: UInt8) -> ASCIISet {
            isCaseSensitive ? ASCIISet(unit) : ASCIISet(unit).caseFolded
        }
        var index = index
        while index < bytes.count {
            let start = index
            let unit = bytes[index]
            switch unit {
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count, isPunctuation(bytes[index + 1]) else { return nil }
                let escaped = bytes[index + 1]
                index += 2
                guard emit(URLFilterTerm(atom: .character(matches: matches(escaped), unit: escaped), span: SourceSpan(start, index))) else { return nil }
            case UInt8(ascii: "."):
                index += 1
                guard emit(URLFilterTerm(atom: .anyCharacter, span: SourceSpan(start, index))) else { return nil }
            case UInt8(ascii: "["):
                index += 1
                var members = ASCIISet()
                while index < bytes.count, isClassMember(bytes[index]) {
                    members = members.union(matches(bytes[index]))
                    index += 1
                }
                guard index < bytes.count, bytes[index] == UInt8(ascii: "]"), !members.isEmpty else { return nil }
                index += 1
                guard emit(URLFilterTerm(atom: .characterClass(matches: members, form: .plain), span: SourceSpan(start, index))) else { return nil }
            case UInt8(ascii: "$") where index == bytes.count - 1:
                return true
            default:
                guard isLiteral(unit) else { return nil }
                index += 1
                guard emit(URLFilterTerm(atom: .character(matches: matches(unit), unit: unit), span: SourceSpan(start, index))) else { return nil }
            }
        }
        return false
    }

    /// A printable byte that stands for itself outside a class: not a letter of the grammar
    /// (`\ ^ $ . | ? * + ( ) [ ] { }`). A space is not taken: it is rare enough to leave to the
    /// general reader.
    private static func isLiteral(_ unit: UInt8) -> Bool {
        guard unit > 0x20 && unit < 0x7F else { return false }
        switch unit {
        case UInt8(ascii: "\\"), UInt8(ascii: "^"), UInt8(ascii: "$"), UInt8(ascii: "."), UInt8(ascii: "|"),
            UInt8(ascii: "?"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"):
            return false
        default:
            return true
        }
    }

    /// Printable punctuation: escaped, it stands for itself (an identity escape). Letters and
    /// digits are left to the general reader (`\d`, `\b`, `\0`, `\x41`, `\cA`, `\k<name>`).
    private static func isPunctuation(_ unit: UInt8) -> Bool {
        guard unit > 0x20 && unit < 0x7F else { return false }
        let isLetter = (unit | 0x20) >= UInt8(ascii: "a") && (unit | 0x20) <= UInt8(ascii: "z")
        let isDigit = unit >= UInt8(ascii: "0") && unit <= UInt8(ascii: "9")
        return !isLetter && !isDigit
    }

    /// A printable byte that stands for itself inside a class and starts no range, escape,
    /// negation or nested class: not `\ ] [ ^ -`.
    private static func isClassMember(_ unit: UInt8) -> Bool {
        guard unit > 0x20 && unit < 0x7F else { return false }
        switch unit {
        case UInt8(ascii: "\\"), UInt8(ascii: "]"), UInt8(ascii: "["), UInt8(ascii: "^"), UInt8(ascii: "-"): return false
        default: return true
        }
    }
}
