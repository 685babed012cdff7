// WebKitModelFit: fits WebKitSizeModel. Samples are the lists of WebKitModelCorpus, each compiled
// by BlockBench and by WebKit (WebKitEngine, a new process per sample, so that its peak memory is
// the sample's own; the compile time is its processor time, which other work on the machine
// lengthens less than the wall time, the least of a few compiles). For each WebKit figure and
// each candidate (a power law of one list figure; sums of figures of WebKit's automata, for the
// bytes also one per part of WebKit's file; for the time and the memory also with WebKit's
// bytes, predicted), every family in turn is left out of the fit and its samples predicted; the
// candidate kept is the one whose worst error there is least, fitted on every sample. Run by
// `blockbench headroom --fit-webkit-model`. Tested by
// SafariReleasesTests/WebKitModelTests.swift (WebKitSizeModelTests: the fit itself).

internal import ContentRuleList
internal import Foundation
internal import ContentBlocker
public import Engines
internal import SeededRandom

public enum WebKitModelFit {
    typealias Predictor = WebKitSizeModel.Predictor
    typealias Figure = WebKitSizeModel.Figure
    typealias Term = WebKitSizeModel.Term

    /// One list compiled by both.
    public struct Sample: Sendable {
        /// The list (WebKitModelCorpus.List.name) and its family, what the fit leaves out together.
        public var list: String
        public var family: String
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

        /// What the model file keeps of it.
        var measured: WebKitSizeModel.Measured {
            WebKitSizeModel.Measured(
                list: list, family: family, rules: Int(figures.values[.rules] ?? 0), jsonBytes: Int(figures.values[.jsonBytes] ?? 0),
                bytes: webKit[.bytes] ?? 0, seconds: webKit[.seconds] ?? 0, memory: webKit[.memory],
                url: webKitParts.url, topURL: webKitParts.topURL, actions: webKitParts.actions,
                figures: Dictionary(uniqueKeysWithValues: figures.values.map { ($0.key.rawValue, $0.value) }), trees: figures.trees)
        }
    }

    /// BlockBench's figures of `json`; nil when it rejects the list.
    static func figures(_ json: [UInt8]) -> ListFigures? {
        let check = RuleListParser.check(json, collectingEveryError: false)
        guard case .success = check.verdict, let (compiled, report) = try? RuleListCompiler.compile(check.list, patterns: check.patterns)
        else { return nil }
        let rules = json.withUnsafeBufferPointer { JSONReader.topLevelElements($0)?.count } ?? 0
        return ListFigures(
            jsonBytes: json.count, rules: rules, list: check.list, compiledBytes: compiled.serialized().count, report: report,
            shape: WebKitShape(check.list))
    }

    /// The sample of `list`, compiled `timings` times by `engine` (a new one: its process's peak
    /// memory is then the list's own); nil when either compiler rejects it.
    public static func sample(_ list: WebKitModelCorpus.List, timings: Int, engine: WebKitEngine) throws -> Sample? {
        guard let figures = figures(list.json) else { return nil }
        let first = try engine.verdict(json: list.json)
        guard first.ok == true, let header = first.header, var seconds = first.cpuSeconds ?? first.seconds else { return nil }
        for _ in 1..<max(1, timings) {
            let again = try engine.verdict(json: list.json)
            if let time = again.cpuSeconds ?? again.seconds { seconds = min(seconds, time) }
        }
        var measured: [Figure: Double] = [.bytes: Double(header.actions + header.url + header.topURL + header.frameURL), .seconds: seconds]
        if let before = first.rssBeforeBytes, let peak = first.peakRSSBytes { measured[.memory] = Double(max(peak - before, 1)) }
        return Sample(
            list: list.name, family: list.family, figures: figures, webKit: measured,
            webKitParts: (Double(header.url), Double(header.topURL + header.frameURL), Double(header.actions)))
    }

    /// The sample of `list` with WebKit's figures as a model file kept them (no WebKit needed);
    /// nil when BlockBench rejects it or the kept figures are of another list (another size).
    public static func sample(_ list: WebKitModelCorpus.List, measured: WebKitSizeModel.Measured) -> Sample? {
        guard measured.list == list.name, measured.jsonBytes == list.json.count, let figures = figures(list.json) else { return nil }
        var webKit: [Figure: Double] = [.bytes: measured.bytes, .seconds: measured.seconds]
        webKit[.memory] = measured.memory
        return Sample(
            list: list.name, family: list.family, figures: figures, webKit: webKit,
            webKitParts: (measured.url, measured.topURL, measured.actions))
    }

    /// A way to predict a figure: the predictors of its terms, and how the terms are fitted.
    struct Candidate {
        var from: [Predictor]
        var fit: ([Sample]) -> [Term]
    }

    /// The figure's candidates: a power law of each list figure; sums `Σ c_i x_i` of a few figures
    /// of WebKit's automata (WebKitAutomata), fitted to the least relative error; for the bytes,
    /// such a sum per part of WebKit's file (url bytecode, page-URL and frame-URL bytecode,
    /// actions), each fitted on that part; for the time and the memory, also of WebKit's bytes.
    static func candidates(_ figure: Figure) -> [Candidate] {
        let predictors = Predictor.allCases.filter { figure != .bytes || $0 != .webKitBytes }
        var candidates = predictors.map { from in
            Candidate(from: [from]) { [Term(from: from, law: law($0, from) { $0.webKit[figure] ?? 0 })] }
        }
        let sums: [[Predictor]] =
            switch figure {
            case .bytes: [[.urlStates, .urlRanges, .pageStates, .pageRanges, .selectorBytes, .rules], [.urlBytecode, .pageBytecode, .actionBytes]]
            case .seconds:
                [
                    [.urlStates, .pageStates, .nfas], [.webKitBytes, .nfas], [.builtStates, .webKitBytes], [.builtStates, .nfas],
                    [.builtStates, .urlBytecode, .pageBytecode], [.builtStates, .unanchoredStates, .urlBytecode, .pageBytecode],
                    [.builtStates, .mergedStates, .urlBytecode, .pageBytecode], [.builtStates, .jsonBytes, .urlBytecode, .pageBytecode],
                    [.builtStates, .unanchoredStates, .jsonBytes, .urlBytecode, .pageBytecode],
                ]
            case .memory:
                [
                    [.webKitBytes, .nfas], [.largestStates, .nodes], [.largestStates, .webKitBytes], [.largestStates, .patterns],
                    [.largestStates, .urlBytecode, .pageBytecode], [.largestStates, .heldStates, .urlBytecode, .pageBytecode],
                    [.largestStates, .heldStates, .nodes], [.largestStates, .heldStates, .webKitBytes], [.largestStates, .heldStates, .jsonBytes],
                    [.largestMinimal, .heldStates], [.largestNFA, .heldStates], [.largestMinimal, .heldStates, .nodes],
                    [.largestNFA, .heldStates, .urlBytecode],
                ]
            }
        for from in sums {
            candidates.append(Candidate(from: from) { linearTerms($0, from) { $0.webKit[figure] ?? 0 } })
        }
        if figure == .bytes {
            let parts: [([Predictor], (Sample) -> Double)] = [
                ([.urlStates, .urlRanges, .urlNFAs], { $0.webKitParts.url }), ([.pageStates, .pageRanges], { $0.webKitParts.topURL }),
                ([.selectorBytes, .rules], { $0.webKitParts.actions }),
            ]
            candidates.append(Candidate(from: parts.flatMap(\.0)) { training in parts.flatMap { linearTerms(training, $0.0, $0.1) } })
            // WebKit's file counted as its compiler writes it, each part fitted on its part.
            for urlFrom in [[Predictor.urlBytecode], [.urlBytecode, .urlNFAs]] {
                let counted: [([Predictor], (Sample) -> Double)] = [
                    (urlFrom, { $0.webKitParts.url }), ([.pageBytecode], { $0.webKitParts.topURL }), ([.actionBytes], { $0.webKitParts.actions }),
                ]
                candidates.append(Candidate(from: counted.flatMap(\.0)) { training in counted.flatMap { linearTerms(training, $0.0, $0.1) } })
            }
        }
        return candidates
    }

    /// The terms `c_i x_i` (a power law of slope 1 each) of the least relative error; a predictor
    /// whose coefficient is 0 gets no term.
    static func linearTerms(_ samples: [Sample], _ from: [Predictor], _ y: (Sample) -> Double) -> [Term] {
        let coefficients = WebKitSizeModel.linear(samples.map { sample in from.map { sample.values[$0] ?? 0 } }, samples.map(y))
        return zip(from, coefficients).compactMap { predictor, c in
            c > 0 ? Term(from: predictor, law: WebKitSizeModel.PowerLaw(intercept: log(c), slope: 1)) : nil
        }
    }

    /// Per figure, the candidate whose worst leave-one-family-out error on lists of
    /// `smallListRules` or more is least, fitted on every sample; nil with fewer than two families.
    public static func fit(_ samples: [Sample], webKit: String) -> WebKitSizeModel? {
        guard families(samples).count >= 2 else { return nil }
        var tried: [WebKitSizeModel.Tried] = []
        var laws: [Figure: WebKitSizeModel.Law] = [:]
        var bytesCandidate: Candidate?
        for figure in Figure.allCases {
            let measured = samples.filter { $0.webKit[figure] != nil }
            guard families(measured).count >= 2 else { continue }
            let scored = candidates(figure).map { candidate in
                (candidate, WebKitSizeModel.Law(terms: candidate.fit(measured), unseen: unseenErrors(measured, figure, candidate, bytes: bytesCandidate)))
            }
            let big = WebKitSizeModel.smallListRules
            tried += scored.map { WebKitSizeModel.Tried(figure: figure, from: $0.0.from, worstUnseenError: $0.1.worstUnseenError(rules: big)) }
            guard let best = scored.min(by: { $0.1.worstUnseenError(rules: big) < $1.1.worstUnseenError(rules: big) }) else { continue }
            laws[figure] = best.1
            if figure == .bytes { bytesCandidate = best.0 }
        }
        guard let bytes = laws[.bytes], let seconds = laws[.seconds] else { return nil }
        return WebKitSizeModel(
            bytes: bytes, seconds: seconds, memory: laws[.memory], tried: tried, webKit: webKit,
            families: families(samples), samples: samples.map(\.measured))
    }

    static func law(_ samples: [Sample], _ from: Predictor, _ y: (Sample) -> Double) -> WebKitSizeModel.PowerLaw {
        WebKitSizeModel.fit(samples.map { ($0.values[from] ?? 0, y($0)) })
    }

    /// Each list's samples predicted by the candidate fitted on the other lists' samples (and
    /// WebKit's bytes, where it predicts from them, by the bytes candidate fitted on those too).
    static func unseenErrors(_ samples: [Sample], _ figure: Figure, _ candidate: Candidate, bytes: Candidate?) -> [WebKitSizeModel.Unseen] {
        families(samples).flatMap { left in
            let training = samples.filter { $0.family != left }
            let fitted = WebKitSizeModel.Law(terms: candidate.fit(training), unseen: [])
            let bytesLaw = bytes.map { WebKitSizeModel.Law(terms: $0.fit(training), unseen: []) }
            return samples.filter { $0.family == left }.map { sample in
                var values = sample.figures.values
                values[.webKitBytes] = bytesLaw?.predict(values)
                let predicted = fitted.predict(values) ?? .nan
                return WebKitSizeModel.Unseen(
                    list: sample.list, rules: Int(sample.figures.values[.rules] ?? 0), error: (predicted / (sample.webKit[figure] ?? 1) - 1) * 100)
            }
        }
    }

    static func families(_ samples: [Sample]) -> [String] {
        var seen = Set<String>()
        return samples.map(\.family).filter { seen.insert($0).inserted }
    }
}

extension WebKitModelFit {
    /// The check on `json`, its `share` of rules the costliest (at least 20), each list compiled by
    /// a new process of `webKit`; nil when a compiler rejects the list.
    public static func attributionCheck(
        _ name: String, json: [UInt8], model: WebKitSizeModel, share: Double = 0.01, webKit: () -> WebKitEngine
    ) throws -> WebKitSizeModel.AttributionCheck? {
        let check = RuleListParser.check(json, collectingEveryError: false)
        guard case .success = check.verdict, let figures = figures(json) else { return nil }
        let elements = WebKitModelCorpus.elements(json)
        let count = max(20, Int(Double(elements.count) * share))
        guard count < elements.count / 2 else { return nil }
        let costliest = Headroom.costliest(check.list, shape: WebKitShape(check.list), figures: figures, model: model, top: count)
        func bytes(_ list: [UInt8]) throws -> Double? {
            let verdict = try webKit().verdict(json: list)
            guard verdict.ok == true, let header = verdict.header else { return nil }
            return Double(header.actions + header.url + header.topURL + header.frameURL)
        }
        func without(_ removed: Set<Int>) -> [UInt8] {
            WebKitModelCorpus.join(elements.enumerated().filter { !removed.contains($0.offset) }.map(\.element))
        }
        var generator = SplitMix64(seed: 300)
        var drawn = Set<Int>()
        while drawn.count < costliest.count { drawn.insert(Int(generator.next() % UInt64(elements.count))) }
        guard let whole = try bytes(json), let lessCostly = try bytes(without(Set(costliest.map(\.rule)))),
            let lessRandom = try bytes(without(drawn))
        else { return nil }
        return WebKitSizeModel.AttributionCheck(
            list: name, removed: costliest.count, attributedBytes: costliest.reduce(0) { $0 + Double($1.bytes ?? 0) },
            measuredDrop: whole - lessCostly, randomDrop: whole - lessRandom)
    }
}
