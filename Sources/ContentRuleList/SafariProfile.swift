// SafariProfile: what one Safari release's WebKit reads in a rule list, so that the validation
// can answer for that release. The facts and their sources are data (Corpora/safari/profiles.json,
// loaded by SafariReleases/SafariProfiles.swift); this is only their shape and what a profile
// does to a rule: a trigger key the release does not read is ignored (the rule applies without
// it), an action type or a flag value it does not know rejects the list (JSONInvalidActionType,
// JSONInvalidStringInTriggerFlagsArray), more rules than its limit give JSONTooManyRules.
// `newest` restricts nothing: the parser with it is the parser of today (WebKit 2.50, Safari 26).
// Tested by ContentRuleListTests/SafariProfileTests.swift and
// SafariReleasesTests/SafariProfilesTests.swift.

/// One Safari release's rule-list vocabulary and limit.
public struct SafariProfile: Hashable, Sendable {
    /// "13", "14.1", "26".
    public var version: String
    public var maximumRuleCount: Int
    /// The trigger keys the release reads (nil: every key this parser knows).
    public var triggerKeys: Set<String>?
    /// The action types it knows (nil: every type).
    public var actionTypes: Set<String>?
    /// The values it knows per flag key (`resource-type`, `load-type`, `load-context`; a key
    /// missing here: every value).
    public var flagValues: [String: Set<String>]

    public init(
        version: String, maximumRuleCount: Int, triggerKeys: Set<String>? = nil, actionTypes: Set<String>? = nil,
        flagValues: [String: Set<String>] = [:]
    ) {
        self.version = version
        self.maximumRuleCount = maximumRuleCount
        self.triggerKeys = triggerKeys
        self.actionTypes = actionTypes
        self.flagValues = flagValues
    }

    /// Today's parser: WebKit 2.50 (Safari 26), nothing restricted.
    public static let newest = SafariProfile(version: "26", maximumRuleCount: 150_000)

    /// Every trigger key the parser reads, in WebKit's order.
    public static let allTriggerKeys = [
        "url-filter", "url-filter-is-case-sensitive", "top-url-filter-is-case-sensitive", "frame-url-filter-is-case-sensitive",
        "resource-type", "load-type", "load-context", "request-method",
        "if-domain", "unless-domain", "if-top-url", "unless-top-url", "if-frame-url", "unless-frame-url",
    ]

    /// Whether the release reads trigger key `key` (false: the key is ignored).
    public func reads(_ key: String) -> Bool {
        triggerKeys?.contains(key) ?? true
    }

    /// Whether the release knows action type `type`.
    public func knowsAction(_ type: String) -> Bool {
        actionTypes?.contains(type) ?? true
    }

    /// Whether the release knows value `name` of flag key `key`.
    public func knowsFlag(_ name: String, of key: String) -> Bool {
        flagValues[key]?.contains(name) ?? true
    }
}
