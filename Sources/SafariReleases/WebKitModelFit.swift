// WebKitModelFit: fits WebKitSizeModel. Samples are the shipped lists whole and their first rules
// (consecutive chunks), each compiled by BlockBench and by WebKit (WebKitEngine, a new process per
// sample, so that its peak memory is the sample's own; the compile time is its processor time,
// which other work on the machine lengthens less than the wall time, the least of a few
// compiles). For each WebKit figure and each candidate (one term per list figure; for the bytes
// also a term per part of WebKit's file; for the time and the memory also a law of WebKit's
// bytes, predicted), every list in turn is left out of the fit and its samples predicted; the
// candidate kept is the one whose worst error there is least, fitted on every sample. Run by
// `blockbench headroom --fit-webkit-model`. Tested by
// SafariReleasesTests/SafariProfilesTests.swift (WebKitSizeModelTests: the fit itself).

internal import ContentRuleList
internal import ContentBlocker
internal import Engines

public enum WebKitModelFit {
    typealias Predictor = WebKitSizeModel.Predictor
    typealias Figure = WebKitSizeModel.Figure
    typealias Term = WebKitSizeModel.Term

    /// One list (or its first rules) compiled by both.
    public struct Sample: Sendable {
        /// "easylist[:1000]": the sample; `source` ("easylist"): the shipped list it is cut from.
        public var list: String
        public var source: String
        public var figures: ListFigures
        public var webKit: [WebKitSizeModel.Figure: Double]
        /// WebKit's file in parts: url bytecode, top-url and frame-url bytecode, actions.
        public var webKitParts: (url: Double, topURL: Double, actions: Double) = (0, 0, 0)

        /// The figures to fit on: the list's, and WebKit's bytes as measured.
        var values: [Predictor: Double] {
            var values = figures.values
            values[.webKitBytes] = webKit[.bytes]
            return values
        }
    }

    /// `json` whole and in the chunk sizes given (the first rules of each size).
    public static func chunks(_ json: [UInt8], sizes: [Int]) -> [(size: Int, json: [UInt8])] {
        json.withUnsafeBufferPointer { text in
            guard let elements = JSONReader.topLevelElements(text) else { return [] }
            return sizes.filter { $0 < elements.count }.map { size in
                (size, Array("[".utf8) + elements.prefix(size).map { Array(text[$0]) }.joined(separator: Array(",".utf8)) + Array("]".utf8))
            } + [(elements.count, json)]
        }
    }

    /// The sample of `json`, compiled `timings` times by a new WebKit process; nil when either
    /// compiler rejects it.
    public static func sample(_ name: String, source: String, json: [UInt8], timings: Int = 3) throws -> Sample? {
        guard case .success(let list) = RuleListParser.parse(json),
            let (compiled, report) = try? RuleListCompiler.compile(json: json)
        else { return nil }
        let webKit = WebKitEngine()
        let first = try webKit.verdict(json: json)
        guard first.ok == true, let header = first.header, var seconds = first.cpuSeconds ?? first.seconds else { return nil }
        for _ in 1..<max(1, timings) {
            let again = try webKit.verdict(json: json)
            if let time = again.cpuSeconds ?? again.seconds { seconds = min(seconds, time) }
        }
        var figures: [Figure: Double] = [.bytes: Double(header.actions + header.url + header.topURL + header.frameURL), .seconds: seconds]
        if let before = first.rssBeforeBytes, let peak = first.peakRSSBytes { figures[.memory] = Double(max(peak - before, 1)) }
        let rules = json.withUnsafeBufferPointer { JSONReader.topLevelElements($0)?.count } ?? 0
        return Sample(
            list: name, source: source,
            figures: ListFigures(jsonBytes: json.count, rules: rules, list: list, compiledBytes: compiled.serialized().count, report: report),
            webKit: figures, webKitParts: (Double(header.url), Double(header.topURL + header.frameURL), Double(header.actions)))
    }

    /// A way to predict a figure: the predictors of its terms, and how the terms are fitted.
    struct Candidate {
        var from: [Predictor]
        var fit: ([Sample]) -> [Term]
    }

    /// The figure's candidates: a law of each list figure; for the bytes, a term per part of
    /// WebKit's file (the actions are the selectors' text, as WebKit stores them); for the time
    /// and the memory, a law of WebKit's bytes.
    static func candidates(_ figure: Figure) -> [Candidate] {
        let predictors = Predictor.allCases.filter { figure != .bytes || $0 != .webKitBytes }
        var candidates = predictors.map { from in
            Candidate(from: [from]) { [Term(from: from, law: law($0, from) { $0.webKit[figure] ?? 0 })] }
        }
        if figure == .bytes {
            candidates.append(Candidate(from: [.urlFilterBytes, .topURLPatterns, .selectorBytes]) { training in
                [
                    Term(from: .urlFilterBytes, law: law(training, .urlFilterBytes) { $0.webKitParts.url }),
                    Term(from: .topURLPatterns, law: law(training, .topURLPatterns) { $0.webKitParts.topURL }),
                    Term(from: .selectorBytes, law: .identity),
                ]
            })
        }
        return candidates
    }

    /// Per figure, the candidate whose worst leave-one-list-out error is least, fitted on every
    /// sample; nil with samples of fewer than two lists.
    public static func fit(_ samples: [Sample], webKit: String) -> WebKitSizeModel? {
        guard uniqueSources(samples).count >= 2 else { return nil }
        var tried: [WebKitSizeModel.Tried] = []
        var laws: [Figure: WebKitSizeModel.Law] = [:]
        var bytesCandidate: Candidate?
        for figure in Figure.allCases {
            let measured = samples.filter { $0.webKit[figure] != nil }
            guard uniqueSources(measured).count >= 2 else { continue }
            let scored = candidates(figure).map { candidate in
                (candidate, WebKitSizeModel.Law(terms: candidate.fit(measured), unseen: unseenErrors(measured, figure, candidate, bytes: bytesCandidate)))
            }
            tried += scored.map { WebKitSizeModel.Tried(figure: figure, from: $0.0.from, worstUnseenError: $0.1.worstUnseenError) }
            guard let best = scored.min(by: { $0.1.worstUnseenError < $1.1.worstUnseenError }) else { continue }
            laws[figure] = best.1
            if figure == .bytes { bytesCandidate = best.0 }
        }
        guard let bytes = laws[.bytes], let seconds = laws[.seconds] else { return nil }
        return WebKitSizeModel(
            bytes: bytes, seconds: seconds, memory: laws[.memory], tried: tried, webKit: webKit,
            fittedOn: samples.map(\.list), lists: uniqueSources(samples))
    }

    static func law(_ samples: [Sample], _ from: Predictor, _ y: (Sample) -> Double) -> WebKitSizeModel.PowerLaw {
        WebKitSizeModel.fit(samples.map { ($0.values[from] ?? 0, y($0)) })
    }

    /// Each list's samples predicted by the candidate fitted on the other lists' samples (and
    /// WebKit's bytes, where it predicts from them, by the bytes candidate fitted on those too).
    static func unseenErrors(_ samples: [Sample], _ figure: Figure, _ candidate: Candidate, bytes: Candidate?) -> [WebKitSizeModel.Unseen] {
        uniqueSources(samples).flatMap { left in
            let training = samples.filter { $0.source != left }
            let fitted = WebKitSizeModel.Law(terms: candidate.fit(training), unseen: [])
            let bytesLaw = bytes.map { WebKitSizeModel.Law(terms: $0.fit(training), unseen: []) }
            return samples.filter { $0.source == left }.map { sample in
                var values = sample.figures.values
                values[.webKitBytes] = bytesLaw?.predict(values)
                let predicted = fitted.predict(values) ?? .nan
                return WebKitSizeModel.Unseen(list: sample.list, error: (predicted / (sample.webKit[figure] ?? 1) - 1) * 100)
            }
        }
    }

    static func uniqueSources(_ samples: [Sample]) -> [String] {
        var seen = Set<String>()
        return samples.map(\.source).filter { seen.insert($0).inserted }
    }
}
