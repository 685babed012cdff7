// WebKitSizeModel: WebKit's compiled bytes, compile time and compile peak memory predicted from a
// list's own figures by power laws (log WebKit = a + b log x), each stated with its error on lists
// it never saw. The error is leave-one-list-out: each shipped list in turn (whole and its chunks)
// predicted by the law fitted on the other lists. x, per WebKit figure, is the list figure (JSON
// bytes, rules, or from BlockBench's compile: the url, top-url and frame-url patterns, the url
// patterns alone, the compiled bytes, DFA states or NFA states) whose law had the least worst
// error that way; the model keeps every figure tried with its error. The
// fit is data (Corpora/safari/webkit-model.json, written by `blockbench headroom
// --fit-webkit-model` with WebKitGTK installed; SafariReleases/WebKitModelFit.swift).
// Tested by HarnessTests/SafariProfilesTests.swift (WebKitSizeModelTests).

internal import ContentBlocker
internal import Foundation

public struct WebKitSizeModel: Codable, Sendable {
    /// A list figure a law predicts from.
    public enum Predictor: String, Codable, CaseIterable, Sendable {
        case jsonBytes, rules, patterns, urlPatterns, compiledBytes, states, nfaStates

        /// How `headroom` names it.
        public var words: String {
            switch self {
            case .jsonBytes: "JSON bytes"
            case .rules: "rules"
            case .patterns: "compiled patterns (url, top-url, frame-url)"
            case .urlPatterns: "compiled url patterns"
            case .compiledBytes: "compiled bytes"
            case .states: "DFA states"
            case .nfaStates: "NFA states"
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
    }

    /// A sample (a list or its first rules) and how far the law fitted without its list was from
    /// WebKit on it (per cent, signed).
    public struct Unseen: Codable, Sendable {
        public var list: String
        public var error: Double
    }

    /// One figure's law, what it predicts from, and its errors on lists it never saw.
    public struct Law: Codable, Sendable {
        public var from: Predictor
        public var law: PowerLaw
        public var unseen: [Unseen]
        /// The worst unseen error (per cent, absolute): what `headroom` prints beside a prediction.
        public var worstUnseenError: Double { unseen.map { abs($0.error) }.max() ?? .nan }
    }

    /// A figure's law from one predictor, and its worst unseen error: why each law predicts from
    /// the predictor it does.
    public struct Tried: Codable, Sendable {
        public var figure: Figure
        public var from: Predictor
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
        func one(_ figure: Figure) -> (Double, Double)? {
            guard let law = law(figure), let x = figures.values[law.from] else { return nil }
            return (law.law.predict(x), law.worstUnseenError)
        }
        let (bytes, seconds, memory) = (one(.bytes), one(.seconds), one(.memory))
        return WebKitPrediction(
            bytes: bytes.map { Int($0.0) }, bytesError: bytes?.1, seconds: seconds?.0, secondsError: seconds?.1,
            memoryBytes: memory.map { Int($0.0) }, memoryError: memory?.1)
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

/// A list's figures a law can predict from, as BlockBench reads and compiles it.
public struct ListFigures: Sendable {
    public var values: [WebKitSizeModel.Predictor: Double]

    init(values: [WebKitSizeModel.Predictor: Double]) {
        self.values = values
    }

    /// `rules`: the top-level array's elements (what WebKit holds against its limit).
    init(jsonBytes: Int, rules: Int, compiledBytes: Int, report: CompilationReport) {
        let parts = [report.url, report.topURL, report.frameURL]
        values = [
            .jsonBytes: Double(jsonBytes), .rules: Double(rules),
            .patterns: Double(report.urlPatterns + report.topPatterns + report.framePatterns), .urlPatterns: Double(report.urlPatterns),
            .compiledBytes: Double(compiledBytes), .states: Double(parts.map(\.states).reduce(0, +)),
            .nfaStates: Double(parts.map(\.nfaStates).reduce(0, +)),
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
