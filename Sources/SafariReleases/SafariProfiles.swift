// SafariProfiles: the Safari releases' profiles, read from their data file
// (Corpora/safari/profiles.json, where every fact has its source) into ContentRuleList's
// SafariProfile. The newest release's entry must name exactly what the parser knows: it is then
// `SafariProfile.newest`, nothing restricted, so that answering for it is today's parser.
// Tested by SafariReleasesTests/SafariProfilesTests.swift.

public import ContentRuleList
internal import Foundation

public enum SafariProfiles {
    /// The data file, relative to the corpora folder.
    public static let file = "safari/profiles.json"

    /// Every profile, oldest first; the last is `SafariProfile.newest`.
    public static func load(corpora: String = "Corpora") throws -> [SafariProfile] {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(corpora)/\(file)"))
        let entries = try JSONDecoder().decode(ProfilesFile.self, from: data).profiles
        return entries.map { $0.newest == true ? .newest : $0.profile }
    }

    /// The profile of `version` ("26", "14.1"); nil: the newest.
    public static func profile(_ version: String?, corpora: String = "Corpora") throws -> SafariProfile {
        guard let version, version != SafariProfile.newest.version else { return .newest }
        guard let profile = try load(corpora: corpora).first(where: { $0.version == version }) else {
            throw UnknownSafariVersion(version: version, known: try load(corpora: corpora).map(\.version))
        }
        return profile
    }

    /// The newest entry as the data file states it (for the test that it is the parser's vocabulary).
    public static func statedNewest(corpora: String = "Corpora") throws -> SafariProfile? {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(corpora)/\(file)"))
        return try JSONDecoder().decode(ProfilesFile.self, from: data).profiles.first { $0.newest == true }?.profile
    }
}

public struct UnknownSafariVersion: Error, CustomStringConvertible {
    public var version: String
    public var known: [String]
    public var description: String { "no profile for Safari \(version); known: \(known.joined(separator: ", ")), all" }
}

/// The data file's shape: each fact a value with its source.
private struct ProfilesFile: Decodable {
    struct Fact<Value: Decodable>: Decodable {
        var value: Value
        var source: String
    }

    struct Entry: Decodable {
        var version: String
        var newest: Bool?
        var maximumRuleCount: Fact<Int>
        var triggerKeys: Fact<[String]>
        var actionTypes: Fact<[String]>
        var resourceTypes: Fact<[String]>
        var loadTypes: Fact<[String]>
        var loadContexts: Fact<[String]>

        var profile: SafariProfile {
            SafariProfile(
                version: version, maximumRuleCount: maximumRuleCount.value, triggerKeys: Set(triggerKeys.value),
                actionTypes: Set(actionTypes.value),
                flagValues: [
                    "resource-type": Set(resourceTypes.value), "load-type": Set(loadTypes.value),
                    "load-context": Set(loadContexts.value),
                ])
        }
    }

    var profiles: [Entry]
}
