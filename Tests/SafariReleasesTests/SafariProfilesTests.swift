// The Safari profiles: the data file loads, its newest entry is exactly the parser's vocabulary
// (so `--safari 26` and no flag are the same parser), the older releases' vectors pass, the shipped
// lists' verdicts and compiled files under the newest profile are today's, and the matrix.
// Covers Sources/SafariReleases and Sources/ContentRuleList/SafariProfile.swift.

import ContentBlocker
import ContentRuleList
import Foundation
@testable import Corpus
@testable import SafariReleases
import Testing
import TestSupport

@Suite struct SafariProfilesTests {
    let corpora = repositoryRoot + "/Corpora"

    @Test func theProfilesLoadOldestFirstAndEndWithTheNewest() throws {
        let profiles = try SafariProfiles.load(corpora: corpora)
        #expect(profiles.map(\.version) == ["13", "14", "14.1", "26"])
        #expect(profiles.last == .newest)
        #expect(profiles.map(\.maximumRuleCount) == [50_000, 50_000, 150_000, 150_000])
    }

    /// The newest entry of the data file names what the parser knows, no more and no less.
    @Test func theNewestEntryIsTheParsersVocabulary() throws {
        let stated = try #require(try SafariProfiles.statedNewest(corpora: corpora))
        #expect(stated.maximumRuleCount == RuleListParser.maximumRuleCount)
        #expect(stated.triggerKeys == Set(SafariProfile.allTriggerKeys))
        #expect(stated.actionTypes == Set(Action.typeNames))
        #expect(stated.flagValues["resource-type"] == Set(ResourceTypes.jsonNames.map(\.name)))
        #expect(stated.flagValues["load-type"] == Set(LoadTypes.jsonNames.map(\.name)))
        #expect(stated.flagValues["load-context"] == Set(LoadContexts.jsonNames.map(\.name)))
    }

    @Test func theOlderReleasesVectorsPass() throws {
        let (failures, count) = try SafariVectors.run(corpora: corpora)
        #expect(count >= 40)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
        let (failures13, count13) = try SafariVectors.run(corpora: corpora, safari: "13")
        #expect(failures13.isEmpty && count13 > 0 && count13 < count, "conform --safari 13 runs Safari 13's vectors alone")
    }

    /// Every shipped list: with the newest profile, the same check and the same compiled bytes as
    /// without one; the stated newest profile (restrictions spelled out) gives the same rules.
    @Test func theNewestProfileIsTodaysParserOnEveryShippedList() throws {
        let manifest = try CorpusManifest.load(root: corpora)
        let stated = try #require(try SafariProfiles.statedNewest(corpora: corpora))
        for entry in manifest.entries(ofKind: "rules") {
            let bytes = try CorpusFiles.read(manifest.path(of: entry))
            let today = RuleListParser.check(bytes)
            #expect(RuleListParser.check(bytes, profile: stated).list == today.list, "\(entry.name)")
            #expect(RuleListParser.check(bytes, profile: stated).errors == today.errors, "\(entry.name)")
            guard entry.rows < 1_000 else { continue }  // compiling the big lists twice is the main job's
            let compiled = try ProfiledCompile.compile(json: bytes, profile: .newest).0.serialized()
            #expect(compiled == (try RuleListCompiler.compile(json: bytes).0.serialized()), "\(entry.name)")
        }
    }

    @Test func theMatrixNamesTheFirstErrorPerRelease() throws {
        let list = #"[{"trigger":{"url-filter":"a","load-context":["child-frame"]},"action":{"type":"block"}},"#
            + #"{"trigger":{"url-filter":"b","resource-type":["fetch"]},"action":{"type":"block"}}]"#
        let verdicts = SafariMatrix.verdicts(Array(list.utf8), profiles: try SafariProfiles.load(corpora: corpora))
        #expect(verdicts.map(\.compiles) == [false, false, false, true])
        #expect(verdicts[0].rule == 1)
        #expect(verdicts[0].keyPath == "trigger.resource-type[0]")
        let widened = SafariMatrix.verdicts(Array(list.utf8).dropLastRule(), profiles: try SafariProfiles.load(corpora: corpora))
        #expect(widened.map(\.rulesWidened) == [1, 1, 1, 0])
    }
}

extension [UInt8] {
    /// The list with its second rule cut (the test's two-rule list only).
    fileprivate func dropLastRule() -> [UInt8] {
        let text = String(decoding: self, as: UTF8.self)
        let cut = text.range(of: #",{"trigger":{"url-filter":"b""#)!.lowerBound
        return Array((text[..<cut] + "]").utf8)
    }
}

@Suite struct HeadroomTests {
    @Test func rulesAgainstEachReleasesLimitAndTheCompiledFigures() throws {
        let corpora = repositoryRoot + "/Corpora"
        let bytes = try CorpusFiles.read(corpora + "/rules/kablock-blockerList.json")
        let rows = Headroom.rows(bytes, profiles: try SafariProfiles.load(corpora: corpora))
        #expect(rows.map(\.safari) == ["13", "14", "14.1", "26"])
        #expect(rows.map(\.rulesLeft) == [49_445, 49_445, 149_445, 149_445])
        #expect(rows.allSatisfy { $0.error == nil && $0.jsonBytes == bytes.count })
        let compiled = try RuleListCompiler.compile(json: bytes).0.serialized().count
        #expect(rows.last?.bytes == compiled)
        let fetch = Array(#"[{"trigger":{"url-filter":"a","resource-type":["fetch"]},"action":{"type":"block"}}]"#.utf8)
        let fetchRows = Headroom.rows(fetch, profiles: try SafariProfiles.load(corpora: corpora))
        #expect(fetchRows.map { $0.error == nil } == [false, false, false, true])
    }

    /// WebKit's measured figures stand in the rows of the releases that read the list as the
    /// newest does, the model's (none here) elsewhere; the costliest rules come ranked.
    @Test func measuredFiguresAndTheCostliestRules() throws {
        let list = #"[{"trigger":{"url-filter":"a","load-context":["child-frame"]},"action":{"type":"block"}},"#
            + #"{"trigger":{"url-filter":"^https://long\\.example\\.com/path"},"action":{"type":"block"}}]"#
        let corpora = repositoryRoot + "/Corpora"
        var asked = 0
        let report = Headroom.report(Array(list.utf8), profiles: try SafariProfiles.load(corpora: corpora), top: 1) { _ in
            asked += 1
            return WebKitFigures(measuredBy: "WebKitGTK test", bytes: 1_234, seconds: 0.5, memoryBytes: 10)
        }
        #expect(asked == 1)
        #expect(report.rows.map { $0.webKit?.measuredBy } == [nil, nil, nil, "WebKitGTK test"], "the older releases drop load-context")
        #expect(report.rows.last?.webKit?.bytes == 1_234)
        #expect(report.costliest.map { $0.rule } == [1])
        #expect(report.costliest.first?.urlFilter == #"^https://long\.example\.com/path"#)
    }
}
