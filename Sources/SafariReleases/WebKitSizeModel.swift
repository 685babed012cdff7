// WebKitSizeModel: WebKit's compiled bytes, compile time and compile peak memory predicted from a
// list's own figures, each stated with its error on lists it never saw. A figure is a sum of
// terms, each a power law (log y = a + b log x) of one list figure: one term, or several with
// slope 1 (`Σ c_i x_i`) of the figures of WebKit's automata as BlockBench builds them
// (WebKitShape, WebKitAutomata: their bytecode counted as WebKit writes it, states, NFAs), for
// the bytes possibly one sum per part of WebKit's file; the time and the memory may be a law of
// the predicted bytes. The error is leave-one-family-out: each family of lists
// (WebKitModelCorpus) in turn predicted by the terms fitted on the others; the candidate kept per
// figure is the one whose worst error was least, and the model keeps every candidate's. The fit
// is data (Corpora/safari/webkit-model.json, written by `blockbench headroom --fit-webkit-model`
// with WebKitGTK installed; SafariReleases/WebKitModelFit.swift).
// Tested by SafariReleasesTests/WebKitModelTests.swift (WebKitSizeModelTests).

internal import ContentBlocker
internal import ContentRuleList
internal import Foundation

public struct WebKitSizeModel: Codable, Sendable {
    /// A list figure a term predicts from.
    public enum Predictor: String, Codable, CaseIterable, Sendable {
        case jsonBytes, rules, patterns, urlPatterns, compiledBytes, states, nfaStates
        /// The url-filters' text, the compiled top-url and frame-url patterns, the
        /// `css-display-none` selectors' text: what WebKit's file parts grow with.
        case urlFilterBytes, topURLPatterns, selectorBytes
        /// The nodes of WebKit's prefix trees (WebKitShape): of the url-filters' trees, of the
        /// page-URL and frame-URL trees, of all; the patterns not anchored at the start; the
        /// repetitions after a pattern's first term.
        case urlNodes, pageNodes, nodes, unanchoredNodes, unanchoredPatterns, repetitions
        /// WebKit's automata as BlockBench builds them (WebKitAutomata): of the url-filters'
        /// trees, their DFA states, byte ranges and NFAs; of the page-URL and frame-URL trees,
        /// their states and ranges; of all, the NFAs.
        case urlStates, urlRanges, urlNFAs, pageStates, pageRanges, nfas
        /// The states WebKitAutomata built in all (merges included: the construction's work), and
        /// the most one DFA had (what the compile holds at its peak).
        case builtStates, largestStates
        /// WebKit's file counted as its compiler writes it (WebKitBytecode): the url automata's
        /// bytecode, the page-URL and frame-URL automata's, the serialized actions.
        case urlBytecode, pageBytecode, actionBytes
        /// The states of the DFAs of unanchored patterns as built (each carries WebKit's `.*`),
        /// of the merges of small DFAs, and of the small DFAs WebKit holds until it merges them.
        case unanchoredStates, mergedStates, heldStates
        /// The most nodes one NFA had (WebKit's count), and the most states one minimized DFA had.
        case largestNFA, largestMinimal
        /// WebKit's bytes as the model predicts them (for the time and the memory).
        case webKitBytes

        /// How `headroom` names it.
        public var words: String {
            switch self {
            case .jsonBytes: "JSON bytes"
            case .rules: "rules"
            case .patterns: "compiled patterns"
            case .urlPatterns: "compiled url patterns"
            case .compiledBytes: "compiled bytes"
            case .states: "DFA states"
            case .nfaStates: "NFA states"
            case .urlFilterBytes: "url-filters' text"
            case .topURLPatterns: "compiled top-url and frame-url patterns"
            case .selectorBytes: "selectors' text"
            case .urlNodes: "url-filters' prefix-tree nodes"
            case .pageNodes: "page-URL and frame-URL prefix-tree nodes"
            case .nodes: "prefix-tree nodes"
            case .unanchoredNodes: "unanchored patterns' prefix-tree nodes"
            case .unanchoredPatterns: "unanchored patterns"
            case .repetitions: "repetitions"
            case .urlStates: "url automata's states"
            case .urlRanges: "url automata's byte ranges"
            case .urlNFAs: "url NFAs"
            case .pageStates: "page-URL automata's states"
            case .pageRanges: "page-URL automata's byte ranges"
            case .nfas: "NFAs"
            case .builtStates: "automata's states as built"
            case .largestStates: "largest automaton's states"
            case .urlBytecode: "url automata's bytecode"
            case .pageBytecode: "page-URL automata's bytecode"
            case .actionBytes: "serialized actions"
            case .unanchoredStates: "unanchored patterns' automata's states as built"
            case .mergedStates: "merged automata's states as built"
            case .heldStates: "small automata's states"
            case .largestNFA: "largest NFA's nodes"
            case .largestMinimal: "largest minimized automaton's states"
            case .webKitBytes: "predicted bytes"
            }
        }
    }

    /// What WebKit's compile costs: the compiled file's bytes (without its copy of the source),
    /// the compile's processor seconds, and its process's peak resident bytes above those before it.
    public enum Figure: String, Codable, CaseIterable, Sendable {
        case bytes, seconds, memory
    }

    /// `log(y) = intercept + slope * log(x)`.
    public struct PowerLaw: Codable, Sendable {
        public var intercept: Double
        public var slope: Double
        public func predict(_ x: Double) -> Double { exp(intercept + slope * log(max(x, 1))) }
        /// y = x.
        public static let identity = PowerLaw(intercept: 0, slope: 1)
    }

    /// One term of a figure's sum.
    public struct Term: Codable, Sendable {
        public var from: Predictor
        public var law: PowerLaw
    }

    /// A sample (a list or its first rules) and how far the terms fitted without its list were
    /// from WebKit on it (per cent, signed).
    public struct Unseen: Codable, Sendable {
        public var list: String
        public var rules: Int
        public var error: Double
    }

    /// Lists of fewer rules compile in milliseconds, where the processor time is mostly noise:
    /// their errors are stated apart from the bigger lists'.
    public static let smallListRules = 1_000

    /// One figure's terms, and their errors on lists they never saw.
    public struct Law: Codable, Sendable {
        public var terms: [Term]
        public var unseen: [Unseen]
        /// The worst unseen error (per cent, absolute), of every list.
        public var worstUnseenError: Double { unseen.map { abs($0.error) }.max() ?? .nan }

        /// The worst unseen error of the lists on the same side of `smallListRules` as a list of
        /// `rules` rules: what `headroom` prints beside its prediction (of every list when that
        /// side has none).
        public func worstUnseenError(rules: Int) -> Double {
            let small = rules < WebKitSizeModel.smallListRules
            let side = unseen.filter { ($0.rules < WebKitSizeModel.smallListRules) == small }
            return (side.isEmpty ? unseen : side).map { abs($0.error) }.max() ?? .nan
        }

        /// The sum of the terms; nil when a figure they need is missing.
        public func predict(_ values: [Predictor: Double]) -> Double? {
            var sum = 0.0
            for term in terms {
                guard let x = values[term.from] else { return nil }
                sum += term.law.predict(x)
            }
            return sum
        }
    }

    /// A candidate for a figure (its terms' predictors) and its worst unseen error on lists of
    /// `smallListRules` or more, what the fit chose by: why each figure is predicted as it is.
    public struct Tried: Codable, Sendable {
        public var figure: Figure
        public var from: [Predictor]
        public var worstUnseenError: Double
    }

    public var bytes: Law
    public var seconds: Law
    /// Nil when the samples carry no memory figure (a webkit-compile without /proc).
    public var memory: Law?
    public var tried: [Tried]
    public var webKit: String
    /// The families of lists left out in turn, and the lists fitted on with WebKit's figures.
    public var families: [String]
    public var samples: [Measured]

    /// One list fitted on: its name and family, WebKit's figures measured on it (bytes, processor
    /// seconds, peak memory above the start, the file's parts) and the list's figures
    /// (Predictor raw values), kept so that the fit can be repeated without WebKit and checked.
    public struct Measured: Codable, Sendable {
        public var list: String
        public var family: String
        public var rules: Int
        public var jsonBytes: Int
        public var bytes: Double
        public var seconds: Double
        public var memory: Double?
        public var url: Double
        public var topURL: Double
        public var actions: Double
        public var figures: [String: Double]
        public var trees: [String: Double]?
    }

    /// How the costliest rules of the shipped lists, as the model attributes WebKit's bytes,
    /// held up against WebKit (`headroom --fit-webkit-model` with WebKitGTK installed).
    public var attributionChecks: [AttributionCheck]?

    /// A list's costliest rules (Headroom.costliest) against WebKit: the bytes the model puts on
    /// them, and WebKit's bytes less when they are removed, and when as many rules drawn at
    /// random are.
    public struct AttributionCheck: Codable, Sendable {
        public var list: String
        public var removed: Int
        public var attributedBytes: Double
        public var measuredDrop: Double
        public var randomDrop: Double
    }

    public static let file = "safari/webkit-model.json"

    public static func load(corpora: String) -> WebKitSizeModel? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: "\(corpora)/\(file)")) else { return nil }
        return try? JSONDecoder().decode(WebKitSizeModel.self, from: data)
    }

    public func law(_ figure: Figure) -> Law? {
        switch figure {
        case .bytes: bytes
        case .seconds: seconds
        case .memory: memory
        }
    }

    /// WebKit's figures for a list with these figures, each with its law's worst unseen error.
    public func predict(_ figures: ListFigures) -> WebKitFigures {
        var values = figures.values
        let predictedBytes = bytes.predict(values)
        values[.webKitBytes] = predictedBytes
        let seconds = seconds.predict(values), memory = memory?.predict(values)
        let rules = Int(figures.values[.rules] ?? 0)
        return WebKitFigures(
            bytes: predictedBytes.map { Int($0) }, bytesError: predictedBytes.map { _ in bytes.worstUnseenError(rules: rules) },
            seconds: seconds, secondsError: seconds.map { _ in self.seconds.worstUnseenError(rules: rules) },
            memoryBytes: memory.map { Int($0) }, memoryError: memory.map { _ in self.memory?.worstUnseenError(rules: rules) ?? .nan })
    }

    /// What one more unit of each predictor of the bytes' terms adds to WebKit's bytes, for a list
    /// with these figures: the law's derivative, `slope * y / x`.
    public func bytesPerUnit(_ figures: ListFigures) -> [Predictor: Double] {
        var perUnit: [Predictor: Double] = [:]
        for term in bytes.terms {
            guard let x = figures.values[term.from] else { continue }
            perUnit[term.from, default: 0] += term.law.slope * term.law.predict(x) / max(x, 1)
        }
        return perUnit
    }

    /// The bytes the model puts on one rule's share of the list's figures (WebKitShape.RuleCost):
    /// the nodes only it reaches, the automata's states and ranges they stand for, its selector,
    /// and the rule itself.
    public static func attributed(_ cost: WebKitShape.RuleCost, bytesPerUnit: [Predictor: Double]) -> Double {
        share(cost).reduce(0) { $0 + $1.value * (bytesPerUnit[$1.key] ?? 0) }
    }

    /// A rule's share of each predictor it has a share of.
    static func share(_ cost: WebKitShape.RuleCost) -> [Predictor: Double] {
        func sum<T: BinaryInteger>(_ values: [WebKitShape.Tree: T], _ trees: [WebKitShape.Tree]) -> Double { Double(trees.reduce(0) { $0 + (values[$1] ?? 0) }) }
        func sum(_ values: [WebKitShape.Tree: Double], _ trees: [WebKitShape.Tree]) -> Double { trees.reduce(0) { $0 + (values[$1] ?? 0) } }
        let urlTrees: [WebKitShape.Tree] = [.url, .conditionedURL], pageTrees: [WebKitShape.Tree] = [.topURL, .frameURL]
        return [
            .urlNodes: sum(cost.nodes, urlTrees), .pageNodes: sum(cost.nodes, pageTrees), .nodes: Double(cost.totalNodes),
            .urlStates: sum(cost.states, urlTrees), .urlRanges: sum(cost.ranges, urlTrees),
            .pageStates: sum(cost.states, pageTrees), .pageRanges: sum(cost.ranges, pageTrees),
            .urlBytecode: sum(cost.bytecode, urlTrees), .pageBytecode: sum(cost.bytecode, pageTrees),
            .actionBytes: Double(cost.selectorBytes),
            .selectorBytes: Double(cost.selectorBytes), .rules: 1, .jsonBytes: 0,
        ]
    }

    /// Coefficients c >= 0 of `y ≈ Σ c_i x_i` with the least squared relative error, Σ ((ŷ - y) / y)²:
    /// the normal equations, solved again without any coefficient that comes out negative.
    static func linear(_ rows: [[Double]], _ ys: [Double]) -> [Double] {
        let width = rows.first?.count ?? 0
        var active = Array(0..<width)
        while !active.isEmpty {
            var matrix = [[Double]](repeating: [Double](repeating: 0, count: active.count + 1), count: active.count)
            for (row, y) in zip(rows, ys) where y > 0 {
                let scaled = active.map { row[$0] / y }
                for i in active.indices {
                    for j in active.indices { matrix[i][j] += scaled[i] * scaled[j] }
                    matrix[i][active.count] += scaled[i]
                }
            }
            guard let solution = solve(matrix) else { return [Double](repeating: 0, count: width) }
            if let negative = solution.indices.filter({ solution[$0] < 0 }).min(by: { solution[$0] < solution[$1] }) {
                active.remove(at: negative)
                continue
            }
            var coefficients = [Double](repeating: 0, count: width)
            for (index, column) in active.enumerated() { coefficients[column] = solution[index] }
            return coefficients
        }
        return [Double](repeating: 0, count: width)
    }

    /// Gaussian elimination with partial pivoting of an augmented matrix; nil when singular.
    static func solve(_ augmented: [[Double]]) -> [Double]? {
        var m = augmented
        let n = m.count
        for column in 0..<n {
            guard let pivot = (column..<n).max(by: { abs(m[$0][column]) < abs(m[$1][column]) }), abs(m[pivot][column]) > 1e-300 else { return nil }
            m.swapAt(column, pivot)
            for row in 0..<n where row != column {
                let factor = m[row][column] / m[column][column]
                if factor != 0 { for k in column...n { m[row][k] -= factor * m[column][k] } }
            }
        }
        return (0..<n).map { m[$0][n] / m[$0][$0] }
    }

    /// Least squares of log y on log x.
    static func fit(_ points: [(x: Double, y: Double)]) -> PowerLaw {
        let xs = points.map { log(max($0.x, 1)) }, ys = points.map { log(max($0.y, 1e-9)) }
        let n = Double(points.count), mx = xs.reduce(0, +) / n, my = ys.reduce(0, +) / n
        let sxy = zip(xs, ys).reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) }
        let sxx = xs.reduce(0) { $0 + ($1 - mx) * ($1 - mx) }
        let slope = sxx > 0 ? sxy / sxx : 0
        return PowerLaw(intercept: my - slope * mx, slope: slope)
    }
}

/// A list's figures a term can predict from, as BlockBench reads and compiles it.
public struct ListFigures: Sendable {
    public var values: [WebKitSizeModel.Predictor: Double]
    /// Each prefix tree's counts ("url.nodes", "topURL.unanchoredNodes"), kept in the model file
    /// with each sample to show what the fit could use.
    public var trees: [String: Double] = [:]

    init(values: [WebKitSizeModel.Predictor: Double]) {
        self.values = values
    }

    /// `rules`: the top-level array's elements (what WebKit holds against its limit).
    init(jsonBytes: Int, rules: Int, list: RuleList, compiledBytes: Int, report: CompilationReport, shape: WebKitShape) {
        let parts = [report.url, report.topURL, report.frameURL]
        var urlFilterBytes = 0
        for rule in list.rules { urlFilterBytes += rule.trigger.urlFilter.utf8.count }
        let counts = WebKitShape.Tree.allCases.map(shape.counts)
        let (url, conditioned, top, frame) = (shape.counts(.url), shape.counts(.conditionedURL), shape.counts(.topURL), shape.counts(.frameURL))
        let urlNodes = shape.counts(.url).nodes + shape.counts(.conditionedURL).nodes
        let pageNodes = shape.counts(.topURL).nodes + shape.counts(.frameURL).nodes
        values = [
            .urlNodes: Double(urlNodes), .pageNodes: Double(pageNodes), .nodes: Double(urlNodes + pageNodes),
            .unanchoredNodes: Double(counts.map(\.unanchoredNodes).reduce(0, +)),
            .urlStates: Double(url.states + conditioned.states), .urlRanges: Double(url.ranges + conditioned.ranges),
            .urlNFAs: Double(url.nfas + conditioned.nfas), .pageStates: Double(top.states + frame.states),
            .pageRanges: Double(top.ranges + frame.ranges), .nfas: Double(counts.map(\.nfas).reduce(0, +)),
            .builtStates: Double(counts.map(\.builtStates).reduce(0, +)), .largestStates: Double(counts.map(\.largestStates).max() ?? 0),
            .unanchoredPatterns: Double(counts.map(\.unanchored).reduce(0, +)), .repetitions: Double(counts.map(\.repetitions).reduce(0, +)),
            .jsonBytes: Double(jsonBytes), .rules: Double(rules),
            .patterns: Double(report.urlPatterns + report.topPatterns + report.framePatterns), .urlPatterns: Double(report.urlPatterns),
            .compiledBytes: Double(compiledBytes), .states: Double(parts.map(\.states).reduce(0, +)),
            .nfaStates: Double(parts.map(\.nfaStates).reduce(0, +)),
            .urlFilterBytes: Double(urlFilterBytes), .topURLPatterns: Double(report.topPatterns + report.framePatterns),
            .selectorBytes: Double(shape.selectorBytes),
            .urlBytecode: Double(url.bytecode + conditioned.bytecode), .pageBytecode: Double(top.bytecode + frame.bytecode),
            .actionBytes: Double(shape.actionBytes),
            .unanchoredStates: Double(counts.map(\.unanchoredStates).reduce(0, +)),
            .mergedStates: Double(counts.map(\.mergedStates).reduce(0, +)), .heldStates: Double(counts.map(\.heldStates).reduce(0, +)),
            .largestNFA: Double(counts.map(\.largestNFA).max() ?? 0), .largestMinimal: Double(counts.map(\.largestMinimal).max() ?? 0),
        ]
        for tree in WebKitShape.Tree.allCases {
            let tally = shape.counts(tree)
            trees["\(tree.rawValue).patterns"] = Double(tally.patterns)
            trees["\(tree.rawValue).nodes"] = Double(tally.nodes)
            trees["\(tree.rawValue).unanchored"] = Double(tally.unanchored)
            trees["\(tree.rawValue).unanchoredNodes"] = Double(tally.unanchoredNodes)
            trees["\(tree.rawValue).repetitions"] = Double(tally.repetitions)
            trees["\(tree.rawValue).nfas"] = Double(tally.nfas)
            trees["\(tree.rawValue).states"] = Double(tally.states)
            trees["\(tree.rawValue).ranges"] = Double(tally.ranges)
            trees["\(tree.rawValue).unbuilt"] = Double(tally.unbuilt)
            trees["\(tree.rawValue).bytecode"] = Double(tally.bytecode)
            trees["\(tree.rawValue).builtStates"] = Double(tally.builtStates)
            trees["\(tree.rawValue).largestStates"] = Double(tally.largestStates)
            trees["\(tree.rawValue).smallDFAs"] = Double(tally.smallDFAs)
            trees["\(tree.rawValue).heldStates"] = Double(tally.heldStates)
            trees["\(tree.rawValue).heldRanges"] = Double(tally.heldRanges)
            trees["\(tree.rawValue).mergedStates"] = Double(tally.mergedStates)
            trees["\(tree.rawValue).unanchoredStates"] = Double(tally.unanchoredStates)
            trees["\(tree.rawValue).largestNFA"] = Double(tally.largestNFA)
            trees["\(tree.rawValue).largestMinimal"] = Double(tally.largestMinimal)
        }
    }
}

/// WebKit's figures for one list: measured by WebKitGTK (`measuredBy` names it), or as a model
/// predicts them, each with the model's worst error on lists it never saw (per cent).
public struct WebKitFigures: Codable, Sendable {
    public var measuredBy: String?
    public var bytes: Int?
    public var bytesError: Double?
    public var seconds: Double?
    public var secondsError: Double?
    public var memoryBytes: Int?
    public var memoryError: Double?

    public init(
        measuredBy: String? = nil, bytes: Int? = nil, bytesError: Double? = nil, seconds: Double? = nil, secondsError: Double? = nil,
        memoryBytes: Int? = nil, memoryError: Double? = nil
    ) {
        self.measuredBy = measuredBy
        self.bytes = bytes
        self.bytesError = bytesError
        self.seconds = seconds
        self.secondsError = secondsError
        self.memoryBytes = memoryBytes
        self.memoryError = memoryError
    }
}
