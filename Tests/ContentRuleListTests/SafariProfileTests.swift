// The parser with a Safari profile: keys the release does not read are ignored, action types and
// flag values it does not know reject the list, its rule limit holds; the newest profile is the
// parser of today. Covers Sources/ContentRuleList/SafariProfile.swift and its use in
// RuleListParser.swift. (The data file's profiles: SafariReleasesTests/SafariProfilesTests.swift.)

import Testing
@testable import ContentRuleList

@Suite struct SafariProfileTests {
    /// A release that reads no load-context, knows no fetch and no redirect, and takes two rules.
    let old = SafariProfile(
        version: "old", maximumRuleCount: 2,
        triggerKeys: ["url-filter", "resource-type", "if-domain"],
        actionTypes: ["block"],
        flagValues: ["resource-type": ["image"]])

    func verdict(_ text: String, _ profile: SafariProfile) -> String? {
        switch RuleListParser.check(Array(text.utf8), collectingEveryError: false, profile: profile).verdict {
        case .success: nil
        case .failure(let error): error.code.name
        }
    }

    @Test func aKeyTheReleaseDoesNotReadIsIgnored() throws {
        let text = #"[{"trigger":{"url-filter":"a","load-context":5,"if-top-url":["x"]},"action":{"type":"block"}}]"#
        #expect(verdict(text, .newest) == "JSONInvalidTriggerFlagsArray")
        #expect(verdict(text, old) == nil)
        let rules = try RuleListParser.check(Array(text.utf8), profile: old).verdict.get().rules
        #expect(rules[0].trigger == Trigger(urlFilter: "a"))
    }

    @Test func anUnknownActionOrFlagValueRejectsTheList() {
        #expect(verdict(#"[{"trigger":{"url-filter":"a"},"action":{"type":"block-cookies"}}]"#, old) == "JSONInvalidActionType")
        #expect(verdict(#"[{"trigger":{"url-filter":"a","resource-type":["fetch"]},"action":{"type":"block"}}]"#, old)
            == "JSONInvalidStringInTriggerFlagsArray")
        #expect(verdict(#"[{"trigger":{"url-filter":"a","resource-type":["image"]},"action":{"type":"block"}}]"#, old) == nil)
    }

    @Test func theReleasesRuleLimitHolds() {
        let rule = #"{"trigger":{"url-filter":"a"},"action":{"type":"block"}}"#
        #expect(verdict("[\(rule),\(rule)]", old) == nil)
        #expect(verdict("[\(rule),\(rule),\(rule)]", old) == "JSONTooManyRules")
        #expect(verdict("[\(rule),\(rule),\(rule)]", .newest) == nil)
    }

    /// Reading apart (on every core) and whole give the same answer with a profile.
    @Test func readingApartAndWholeAgreeWithAProfile() {
        let rule = #"{"trigger":{"url-filter":"a","load-context":["top-frame"]},"action":{"type":"block"}}"#
        let text = Array(("[" + Array(repeating: rule, count: 2).joined(separator: ",") + "]").utf8)
        let apart = RuleListParser.check(text, collectingEveryError: true, readingApart: true, profile: old)
        let whole = RuleListParser.check(text, collectingEveryError: true, readingApart: false, profile: old)
        #expect(apart.list == whole.list)
        #expect(apart.errors == whole.errors)
    }
}
