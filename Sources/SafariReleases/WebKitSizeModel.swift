// WebKitSizeModel: WebKit's compiled bytes, compile time and compile peak memory predicted from a
// list's own figures, each stated with its error on lists it never saw. A figure is a sum of
// terms, each a power law (log y = a + b log x) of one list figure: one term (from the JSON bytes,
// the rules, or BlockBench's compiled patterns, bytes or states), or, for the bytes, one per part
// of WebKit's file (its url bytecode from the url-filters' text, its top-url and frame-url bytecode
// from the compiled top-url and frame-url patterns, its actions the selectors' text); the time and
// the memory may be a law of the predicted bytes. The error is leave-one-list-out: each shipped
// list in turn (whole and its chunks) predicted by the terms fitted on the other lists; the
// candidate kept per figure is the one whose worst error was least, and the model keeps every
// candidate's. The fit is data (Corpora/safari/webkit-model.json, written by `blockbench headroom
// --fit-webkit-model` with WebKitGTK installed; SafariReleases/WebKitModelFit.swift).
// Tested by SafariReleasesTests/SafariProfilesTests.swift (WebKitSizeModelTests).

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
        public var error: Double
    }

    /// One figure's terms, and their errors on lists they never saw.
    public struct Law: Codable, Sendable {
        public var terms: [Term]
        public var unseen: [Unseen]
        /// The worst unseen error (per cent, absolute): what `headroom` prints beside a prediction.
        public var worstUnseenError: Double { unseen.map { abs($0.error) }.max() ?? .nan }

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

    /// A candidate for a figure (its terms' predictors) and its worst unseen error: why each
    /// figure is predicted as it is.
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
    /// The samples fitted on (every list whole and its chunks), and the lists left out in turn.
    public var fittedOn: [String]
    public var lists: [String]

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
    public func predict(_ figures: ListFigures) -> WebKitPrediction {
        var values = figures.values
        let predictedBytes = bytes.predict(values)
        values[.webKitBytes] = predictedBytes
        let seconds = seconds.predict(values), memory = memory?.predict(values)
        return WebKitPrediction(
            bytes: predictedBytes.map { Int($0) }, bytesError: predictedBytes.map { _ in bytes.worstUnseenError },
            seconds: seconds, secondsError: seconds.map { _ in self.seconds.worstUnseenError },
            memoryBytes: memory.map { Int($0) }, memoryError: memory.map { _ in self.memory?.worstUnseenError ?? .nan })
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

    init(values: [WebKitSizeModel.Predictor: Double]) {
        self.values = values
    }

    /// `rules`: the top-level array's elements (what WebKit holds against its limit).
    init(jsonBytes: Int, rules: Int, list: RuleList, compiledBytes: Int, report: CompilationReport) {
        let parts = [report.url, report.topURL, report.frameURL]
        var urlFilterBytes = 0, selectorBytes = 0
        for rule in list.rules {
            urlFilterBytes += rule.trigger.urlFilter.utf8.count
            if case .cssDisplayNone(let selector) = rule.action { selectorBytes += selector.utf8.count }
        }
        values = [
            .jsonBytes: Double(jsonBytes), .rules: Double(rules),
            .patterns: Double(report.urlPatterns + report.topPatterns + report.framePatterns), .urlPatterns: Double(report.urlPatterns),
            .compiledBytes: Double(compiledBytes), .states: Double(parts.map(\.states).reduce(0, +)),
            .nfaStates: Double(parts.map(\.nfaStates).reduce(0, +)),
            .urlFilterBytes: Double(urlFilterBytes), .topURLPatterns: Double(report.topPatterns + report.framePatterns),
            .selectorBytes: Double(selectorBytes),
        ]
    }
}

/// WebKit's figures for one list as a model predicts them, each with the model's worst error on
/// lists it never saw (per cent).
public struct WebKitPrediction: Codable, Sendable {
    public var bytes: Int?
    public var bytesError: Double?
    public var seconds: Double?
    public var secondsError: Double?
    public var memoryBytes: Int?
    public var memoryError: Double?
}
