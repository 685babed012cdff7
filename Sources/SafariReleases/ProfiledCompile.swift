// ProfiledCompile: a rule list's JSON compiled as one Safari release reads it. The newest profile
// takes RuleListCompiler's own path (so the answer is today's, byte for byte); an older one checks
// the list with its profile and compiles the rules it read. Used by `compile`, `match`, `diff`.
// Tested by SafariReleasesTests/SafariProfilesTests.swift.

public import ContentBlocker
public import ContentRuleList

public enum ProfiledCompile {
    public static func compile(
        json bytes: consuming [UInt8], profile: SafariProfile = .newest
    ) throws(CompileError) -> (CompiledRuleList, CompilationReport) {
        if profile == .newest { return try RuleListCompiler.compile(json: bytes) }
        let check = RuleListParser.check(bytes, collectingEveryError: false, profile: profile)
        if case .failure(let error) = check.verdict { throw .invalidRuleList(error) }
        return try RuleListCompiler.compile(check.list, patterns: check.patterns)
    }

    /// The parsed list as `profile`'s release reads it, or its error.
    public static func parse(_ bytes: [UInt8], profile: SafariProfile = .newest) -> Result<RuleList, ContentRuleListError> {
        profile == .newest ? RuleListParser.parse(bytes) : RuleListParser.check(bytes, collectingEveryError: false, profile: profile).verdict
    }
}
