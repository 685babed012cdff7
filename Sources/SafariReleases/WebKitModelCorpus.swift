// WebKitModelCorpus: the rule lists WebKitSizeModel is fitted on, made from the shipped lists'
// real rules so that the model sees many lists of many shapes and sizes where the corpora ship a
// few. Each list belongs to a family, the unit the fit leaves out to state its error on lists it
// never saw:
// - a shipped list's family: the list whole, its first rules (1,000, 4,000, 16,000) and seeded
//   subsets of it (a tenth, three tenths, six tenths of its rules, in the list's order);
// - a dialect's family per big list (`L@dialect`): the list's `||` rules re-spelled as another
//   converter writes them (Corpus/Dialects, `blockbench dialects`), a seeded subset of 12,000 of
//   its rules and, for the first dialects, the list whole;
// - the mixes: seeded subsets of every shipped list's rules pooled, and two lists one after the
//   other, for lists of the size a converter ships to Safari's limit.
// The lists are made when the model is fitted and never committed: one seed gives the same lists
// on every machine, so the model file names each list and the fit can be repeated.
// Tested by SafariReleasesTests/WebKitModelTests.swift (WebKitModelCorpusTests).

internal import Corpus
internal import ContentRuleList
internal import SeededRandom

public enum WebKitModelCorpus {
    /// One list to fit on.
    public struct List: Sendable {
        /// "easylist~0.3", "easylist@abp2blocklist~12000", "mix~30000": the list, named by how it
        /// is made.
        public var name: String
        /// What the fit leaves out together: "easylist", "easylist@abp2blocklist", "mix".
        public var family: String
        public var json: [UInt8]
    }

    /// The big lists dialects are made from, the first dialects also whole, and the sizes.
    static let dialectSources = ["easylist", "easyprivacy"]
    static let wholeDialects = 2
    static let dialectRules = 12_000
    static let prefixSizes = [1_000, 4_000, 16_000]
    static let shares = [0.1, 0.3, 0.6]
    static let mixSizes = [3_000, 10_000, 30_000, 90_000]

    /// Every list, from the shipped lists' JSON texts (name, JSON), in the manifest's order.
    public static func lists(shipped: [(name: String, json: [UInt8])]) -> [List] {
        var lists: [List] = []
        for (name, json) in shipped {
            let elements = Self.elements(json)
            for size in prefixSizes where size < elements.count {
                lists.append(List(name: "\(name)[:\(size)]", family: name, json: Self.join(elements.prefix(size))))
            }
            for (index, share) in shares.enumerated() where Double(elements.count) * share >= 100 {
                let count = Int(Double(elements.count) * share)
                lists.append(List(name: "\(name)~\(share)", family: name, json: join(subset(elements, count, seed: UInt64(index + 1)))))
            }
            lists.append(List(name: name, family: name, json: json))
        }
        for (name, json) in shipped where dialectSources.contains(name) {
            let dialects = Dialect.documented.dropFirst().map(\.name) + ["mix-1", "mix-2"]
            for (index, dialectName) in dialects.enumerated() {
                guard let dialect = Dialect.named(dialectName), let respelled = try? dialect.respell(json: json) else { continue }
                let family = "\(name)@\(dialectName)"
                let elements = Self.elements(respelled.json)
                lists.append(List(
                    name: "\(family)~\(dialectRules)", family: family,
                    json: join(subset(elements, min(dialectRules, elements.count), seed: UInt64(100 + index)))))
                if index < wholeDialects { lists.append(List(name: family, family: family, json: respelled.json)) }
            }
        }
        let pool = shipped.flatMap { Self.elements($0.json) }
        for (index, size) in mixSizes.enumerated() where size < pool.count {
            lists.append(List(name: "mix~\(size)", family: "mix", json: join(subset(pool, size, seed: UInt64(200 + index)))))
        }
        let big = shipped.filter { dialectSources.contains($0.name) }
        if big.count == 2 {
            lists.append(List(name: big.map(\.name).joined(separator: "+"), family: "mix", json: join(big.flatMap { Self.elements($0.json) })))
        }
        return lists
    }

    /// The JSON texts of a list's top-level elements.
    static func elements(_ json: [UInt8]) -> [ArraySlice<UInt8>] {
        let ranges = json.withUnsafeBufferPointer { JSONReader.topLevelElements($0) } ?? []
        return ranges.map { json[$0] }
    }

    /// `count` of the elements, drawn without replacement by a seeded generator, in their order.
    static func subset(_ elements: [ArraySlice<UInt8>], _ count: Int, seed: UInt64) -> [ArraySlice<UInt8>] {
        var indices = Array(elements.indices)
        var generator = SplitMix64(seed: seed)
        for position in 0..<min(count, indices.count) {
            let other = position + Int(generator.next() % UInt64(indices.count - position))
            indices.swapAt(position, other)
        }
        return indices.prefix(count).sorted().map { elements[$0] }
    }

    static func join<Elements: Sequence<ArraySlice<UInt8>>>(_ elements: Elements) -> [UInt8] {
        var json: [UInt8] = [UInt8(ascii: "[")]
        for element in elements {
            if json.count > 1 { json.append(UInt8(ascii: ",")) }
            json += element
        }
        json.append(UInt8(ascii: "]"))
        return json
    }
}
