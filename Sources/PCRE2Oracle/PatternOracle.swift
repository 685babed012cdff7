// PatternOracle.swift — PCRE2Oracle
//
// One url-filter alone through the oracle: its PCRE2 translation compiled for PCRE2's interpreter,
// asked whether it matches a URL's bytes. The fuzzer's match levels and the vector runner's match
// vectors compare the engine's pipeline with it.
// Tested by PCRE2OracleTests/PatternOracleTests.swift.

/// One url-filter through the PCRE2 oracle.
public struct PatternOracle {
    public let pattern: OraclePattern
    private let data = PCRE2MatchData()

    /// Why the oracle could not take a pattern the engine accepts.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        /// "translation" or "pcre2".
        public var stage: String
        public var reason: String
        public var description: String { "\(stage): \(reason)" }
    }

    public init(source: String, caseSensitive: Bool) throws(Refusal) {
        let translation: URLFilterTranslation
        do {
            translation = try URLFilterTranslation.translate(source, caseSensitive: caseSensitive)
        } catch {
            throw Refusal(stage: "translation", reason: error.reason)
        }
        do {
            // PCRE2's interpreter: compiling JIT code costs more than a few short subjects save.
            pattern = try OraclePattern(translation, jit: false)
        } catch {
            throw Refusal(stage: "pcre2", reason: "\(error.message) (PCRE2 pattern \(translation.pattern))")
        }
    }

    public var matchesEverything: Bool { pattern.matchesEverything }

    /// Whether the pattern matches `subject` (the URL's bytes; the oracle reads the end-of-URL
    /// NUL after them, as WebKit does).
    public func matches(_ subject: [UInt8]) throws(PCRE2Error) -> Bool {
        try (subject + [0]).withUnsafeBufferPointer { bytes throws(PCRE2Error) in try pattern.matches(bytes, using: data) }
    }
}
