// WebKitModelFit: fits WebKitSizeModel. Samples are shipped lists and consecutive chunks of them,
// each compiled by BlockBench and by WebKit (WebKitEngine); the model is fitted on every sample
// but those of the held-out list, and its error is measured on those. Run by `blockbench headroom
// --fit-webkit-model`. Tested by SafariReleasesTests/SafariProfilesTests.swift (HeadroomTests: the
// fit itself).

internal import ContentRuleList
internal import ContentBlocker
public import Engines

public enum WebKitModelFit {
    /// One list compiled by both: BlockBench's bytes and states, WebKit's bytes and seconds.
    public struct Sample: Sendable {
        public var list: String
        public var jsonBytes: Double
        public var bytes: Double
        public var states: Double
        public var webKitBytes: Double
        public var webKitSeconds: Double
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

    public static func sample(_ name: String, json: [UInt8], webKit: WebKitEngine) throws -> Sample? {
        guard let (compiled, report) = try? RuleListCompiler.compile(json: json) else { return nil }
        let verdict = try webKit.verdict(json: json)
        guard verdict.ok == true, let header = verdict.header, let seconds = verdict.seconds else { return nil }
        return Sample(
            list: name, jsonBytes: Double(json.count), bytes: Double(compiled.serialized().count),
            states: Double(report.url.states + report.topURL.states + report.frameURL.states),
            webKitBytes: Double(header.actions + header.url + header.topURL + header.frameURL), webKitSeconds: seconds)
    }

    /// The model fitted on every sample whose list is not `heldOut`, with its error on those that are.
    public static func fit(_ samples: [Sample], heldOut: String, webKit: String) -> WebKitSizeModel {
        let training = samples.filter { !$0.list.hasPrefix(heldOut) }
        let held = samples.filter { $0.list.hasPrefix(heldOut) }
        let bytes = WebKitSizeModel.fit(training.map { ($0.jsonBytes, $0.webKitBytes) })
        let seconds = WebKitSizeModel.fit(training.map { ($0.jsonBytes, $0.webKitSeconds) })
        var model = WebKitSizeModel(
            bytes: bytes, seconds: seconds, webKit: webKit, fittedOn: training.map(\.list),
            heldOut: errors(held, bytes, seconds, \.jsonBytes, \.jsonBytes))
        let ownBytes = WebKitSizeModel.fit(training.map { ($0.bytes, $0.webKitBytes) })
        let ownSeconds = WebKitSizeModel.fit(training.map { ($0.states, $0.webKitSeconds) })
        model.alternative = errors(held, ownBytes, ownSeconds, \.bytes, \.states)
        return model
    }

    static func errors(
        _ held: [Sample], _ bytes: WebKitSizeModel.PowerLaw, _ seconds: WebKitSizeModel.PowerLaw,
        _ bytesFrom: KeyPath<Sample, Double>, _ secondsFrom: KeyPath<Sample, Double>
    ) -> [WebKitSizeModel.HeldOut] {
        held.map {
            WebKitSizeModel.HeldOut(
                list: $0.list, bytesError: (bytes.predict($0[keyPath: bytesFrom]) / $0.webKitBytes - 1) * 100,
                secondsError: (seconds.predict($0[keyPath: secondsFrom]) / $0.webKitSeconds - 1) * 100)
        }
    }
}
