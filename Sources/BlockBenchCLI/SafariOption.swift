// `--safari VERSION`: the Safari release a command answers for (its profile, from
// Corpora/safari/profiles.json; SafariReleases/SafariProfiles.swift). Default: the newest, which is
// the parser of today. `check` also takes `all`. Tested by BlockBenchCLITests/CLITests.swift (SafariOptionTests).

import ArgumentParser
import ContentRuleList
import SafariReleases

struct SafariOption: ParsableArguments {
    @Option(name: .customLong("safari"), help: "The Safari release to answer for (13, 14, 14.1, 26; default: the newest).")
    var version: String?

    /// The profile asked for; a version without a profile is a usage error.
    func profile(corpora: String) throws -> SafariProfile {
        do { return try SafariProfiles.profile(version, corpora: corpora) } catch let error as UnknownSafariVersion {
            throw ValidationError(error.description)
        }
    }
}
