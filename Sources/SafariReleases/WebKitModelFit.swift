// WebKitModelFit: fits WebKitSizeModel. Samples are the shipped lists whole and their first rules
// (consecutive chunks), each compiled by BlockBench and by WebKit (WebKitEngine, a new process per
// sample, so that its peak memory is the sample's own; the compile time is its processor time,
// which other work on the machine lengthens less than the wall time, the least of a few
// compiles). For each WebKit figure and
// each predictor, every list in turn is left out of the fit and its samples predicted; the law
// kept is the one whose worst error there is least, fitted on every sample. Run by `blockbench
// headroom --fit-webkit-model`. Tested by HarnessTests/SafariProfilesTests.swift
// (WebKitSizeModelTests: the fit itself).

internal import ContentRuleList
internal import ContentBlocker
internal import Engines

public enum WebKitModelFit {
    /// One list (or its first rules) compiled by both.
    public struct Sample: Sendable {
        /// "easylist[:1000]": the sample; `source` ("easylist"): the shipped list it is cut from.
        public var list: String
        public var source: String
        public var figures: ListFigures
        public var webKit: [WebKitSizeModel.Figure: Double]
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
        guard let (compiled, report) = try? RuleListCompiler.compile(json: json) else { return nil }
        let webKit = WebKitEngine()
        let first = try webKit.verdict(json: json)
        guard first.ok == true, let header = first.header, var seconds = first.cpuSeconds ?? first.seconds else { return nil }
        for _ in 1..<max(1, timings) {
            let again = try webKit.verdict(json: json)
            if let time = again.cpuSeconds ?? again.seconds { seconds = min(seconds, time) }
        }
        var figures: [WebKitSizeModel.Figure: Double] = [
            .bytes: Double(header.actions + header.url + header.topURL + header.frameURL), .seconds: seconds,
        ]
        if let before = first.rssBeforeBytes, let peak = first.peakRSSBytes { figures[.memory] = Double(max(peak - before, 1)) }
        let rules = json.withUnsafeBufferPointer { JSONReader.topLevelElements($0)?.count } ?? 0
        return Sample(
            list: name, source: source,
            figures: ListFigures(jsonBytes: json.count, rules: rules, compiledBytes: compiled.serialized().count, report: report),
            webKit: figures)
    }

    /// Per figure, the law whose worst leave-one-list-out error is least; nil with samples of
    /// fewer than two lists.
    public static func fit(_ samples: [Sample], webKit: String) -> WebKitSizeModel? {
        var tried: [WebKitSizeModel.Tried] = []
        var laws: [WebKitSizeModel.Figure: WebKitSizeModel.Law] = [:]
        for figure in WebKitSizeModel.Figure.allCases {
            let measured = samples.filter { $0.webKit[figure] != nil }
            guard Set(measured.map(\.source)).count >= 2 else { continue }
            let candidates = WebKitSizeModel.Predictor.allCases.map { from in
                WebKitSizeModel.Law(from: from, law: law(measured, figure, from), unseen: unseenErrors(measured, figure, from))
            }
            tried += candidates.map { WebKitSizeModel.Tried(figure: figure, from: $0.from, worstUnseenError: $0.worstUnseenError) }
            laws[figure] = candidates.min { $0.worstUnseenError < $1.worstUnseenError }
        }
        guard let bytes = laws[.bytes], let seconds = laws[.seconds] else { return nil }
        return WebKitSizeModel(
            bytes: bytes, seconds: seconds, memory: laws[.memory], tried: tried, webKit: webKit,
            fittedOn: samples.map(\.list), lists: uniqueSources(samples))
    }

    static func law(_ samples: [Sample], _ figure: WebKitSizeModel.Figure, _ from: WebKitSizeModel.Predictor) -> WebKitSizeModel.PowerLaw {
        WebKitSizeModel.fit(samples.map { ($0.figures.values[from] ?? 0, $0.webKit[figure] ?? 0) })
    }

    /// Each list's samples predicted by the law fitted on the other lists' samples.
    static func unseenErrors(
        _ samples: [Sample], _ figure: WebKitSizeModel.Figure, _ from: WebKitSizeModel.Predictor
    ) -> [WebKitSizeModel.Unseen] {
        uniqueSources(samples).flatMap { left in
            let fitted = law(samples.filter { $0.source != left }, figure, from)
            return samples.filter { $0.source == left }.map { sample in
                let predicted = fitted.predict(sample.figures.values[from] ?? 0)
                return WebKitSizeModel.Unseen(list: sample.list, error: (predicted / (sample.webKit[figure] ?? 1) - 1) * 100)
            }
        }
    }

    static func uniqueSources(_ samples: [Sample]) -> [String] {
        var seen = Set<String>()
        return samples.map(\.source).filter { seen.insert($0).inserted }
    }
}
