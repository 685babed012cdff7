// WebKitSizeModel: WebKit's compiled size and compile time predicted by power laws fitted on the
// shipped lists (log WebKit = a + b log x). x is the list's JSON bytes: fitted the same way,
// BlockBench's compiled bytes and DFA states were further from WebKit on the held-out list (the
// model file keeps those alternatives and their errors), so they are not used. The fit is data
// (Corpora/safari/webkit-model.json, written by `blockbench headroom --fit-webkit-model` with
// WebKitGTK installed): its coefficients, the lists it was fitted on and its error on a list held
// out of the fit, stated as measured. Tested by SafariReleasesTests/SafariProfilesTests.swift
// (HeadroomTests).

internal import Foundation

public struct WebKitSizeModel: Codable, Sendable {
    /// `log(y) = intercept + slope * log(x)`.
    public struct PowerLaw: Codable, Sendable {
        public var intercept: Double
        public var slope: Double
        public func predict(_ x: Double) -> Double { exp(intercept + slope * log(max(x, 1))) }
    }

    /// From the list's JSON bytes.
    public var bytes: PowerLaw
    public var seconds: PowerLaw
    public var webKit: String
    /// The same fit from BlockBench's compiled bytes (for bytes) and states (for time), with its
    /// held-out errors: why it is not the model.
    public var alternative: [HeldOut] = []
    public var fittedOn: [String]
    public var heldOut: [HeldOut]

    /// A list kept out of the fit, and how far the model was from WebKit on it (per cent).
    public struct HeldOut: Codable, Sendable {
        public var list: String
        public var bytesError: Double
        public var secondsError: Double
    }

    public static let file = "safari/webkit-model.json"

    public static func load(corpora: String) -> WebKitSizeModel? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: "\(corpora)/\(file)")) else { return nil }
        return try? JSONDecoder().decode(WebKitSizeModel.self, from: data)
    }

    /// The worst held-out errors, per cent, for printing beside a prediction.
    public var worstBytesError: Double { heldOut.map { abs($0.bytesError) }.max() ?? .nan }
    public var worstSecondsError: Double { heldOut.map { abs($0.secondsError) }.max() ?? .nan }

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
