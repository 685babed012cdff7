// SafariVectors: the older releases' verdicts (Corpora/conformance/safari-profiles.json), each
// vector written from WebKit's sources at that release and citing them, run through the parser
// with that release's profile. A vector names its release, its list (or a rule repeated `count`
// times), the error expected (nil: compiles) and, for ignored keys, the list the newest release
// reads the same way. Run by SafariReleasesTests/SafariProfilesTests.swift and, one release's,
// by `blockbench conform --safari VERSION` (Conformance/CorpusConformance.swift).

internal import ContentRuleList
internal import Foundation

public enum SafariVectors {
    public static let file = "conformance/safari-profiles.json"

    struct Vector: Decodable {
        struct Repeat: Decodable {
            var count: Int
            var rule: String
        }
        var test: String
        var safari: String
        var rules: String
        var `repeat`: Repeat?
        var expectedError: String?
        var readAs: String?
        var source: String

        var text: String {
            guard let `repeat` else { return rules }
            return "[" + Array(repeating: `repeat`.rule, count: `repeat`.count).joined(separator: ",") + "]"
        }
    }

    struct File: Decodable {
        var vectors: [Vector]
    }

    /// Runs every vector (or those of one release); the failures, one line each (empty: all
    /// passed), and the count run.
    public static func run(corpora: String = "Corpora", safari: String? = nil) throws -> (failures: [String], count: Int) {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(corpora)/\(file)"))
        let vectors = try JSONDecoder().decode(File.self, from: data).vectors.filter { safari == nil || $0.safari == safari }
        let profiles = try SafariProfiles.load(corpora: corpora)
        var failures: [String] = []
        for vector in vectors {
            guard let profile = profiles.first(where: { $0.version == vector.safari }) else {
                failures.append("\(vector.test): no profile for Safari \(vector.safari)")
                continue
            }
            if let failure = check(vector, profile: profile) { failures.append("Safari \(vector.safari): \(vector.test): \(failure)") }
        }
        return (failures, vectors.count)
    }

    static func check(_ vector: Vector, profile: SafariProfile) -> String? {
        let verdict = RuleListParser.check(Array(vector.text.utf8), collectingEveryError: false, profile: profile).verdict
        switch (verdict, vector.expectedError) {
        case (.failure(let error), let expected?) where error.code.name == expected: return nil
        case (.failure(let error), _): return "got \(error.code.name), expected \(vector.expectedError ?? "compiles")"
        case (.success, let expected?): return "compiles, expected \(expected)"
        case (.success(let list), nil):
            guard let readAs = vector.readAs else { return nil }
            guard case .success(let expected) = RuleListParser.parse(readAs), expected.rules == list.rules else {
                return "read differently from \(readAs)"
            }
            return nil
        }
    }
}
