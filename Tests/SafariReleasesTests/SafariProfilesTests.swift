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
}

@Suite struct WebKitSizeModelTests {
    /// The fit recovers an exact power law; the committed model loads and states, for each
    /// figure, its error on every shipped list left out of its fit.
    @Test func fitsAPowerLawAndTheCommittedModelLoads() throws {
        let law = WebKitSizeModel.fit([(10, 30), (100, 300), (1_000, 3_000)].map { (x: Double($0.0), y: Double($0.1)) })
        #expect(abs(law.slope - 1) < 1e-9)
        #expect(abs(law.predict(50) - 150) < 1e-6)
        let model = try #require(WebKitSizeModel.load(corpora: repositoryRoot + "/Corpora"))
        let lists = try CorpusManifest.load(root: repositoryRoot + "/Corpora").entries(ofKind: "rules").map(\.name)
        #expect(model.lists == lists)
        for figure in WebKitSizeModel.Figure.allCases {
            let stated = try #require(model.law(figure), "\(figure)")
            #expect(stated.unseen.count == model.fittedOn.count, "every sample predicted once, by terms fitted without its list")
            #expect(stated.worstUnseenError.isFinite)
            #expect(model.tried.filter { $0.figure == figure }.count == WebKitModelFit.candidates(figure).count)
        }
        let values = Dictionary(uniqueKeysWithValues: WebKitSizeModel.Predictor.allCases.map { ($0, 1_000.0) })
        let prediction = model.predict(ListFigures(values: values))
        #expect(prediction.bytesError == model.bytes.worstUnseenError)
        #expect(prediction.seconds != nil && prediction.memoryBytes != nil)
    }

    /// Leave one list out: with WebKit's bytes an exact power law of the patterns, every unseen
    /// list is predicted exactly and the fit predicts from the patterns, and the time, a law of
    /// the bytes, from the predicted bytes; with one list off the law, its error shows it.
    @Test func eachListIsPredictedByALawFittedWithoutIt() throws {
        func sample(_ source: String, _ patterns: Double, bytes: Double) -> WebKitModelFit.Sample {
            var values = Dictionary(uniqueKeysWithValues: WebKitSizeModel.Predictor.allCases.map { ($0, 3.0) })
            values[.patterns] = patterns
            values[.jsonBytes] = patterns * 37 + patterns * patterns
            values[.webKitBytes] = nil
            return WebKitModelFit.Sample(
                list: source, source: source, figures: ListFigures(values: values),
                webKit: [.bytes: bytes, .seconds: 1e-6 * pow(bytes, 0.9)], webKitParts: (bytes, 1, 1))
        }
        let exact = [("a", 100.0), ("b", 1_000), ("c", 10_000), ("d", 100_000)].map { sample($0.0, $0.1, bytes: 20 * pow($0.1, 1.2)) }
        let model = try #require(WebKitModelFit.fit(exact, webKit: "test"))
        #expect(model.bytes.terms.map(\.from) == [.patterns])
        #expect(model.bytes.worstUnseenError < 1e-6)
        #expect(model.seconds.worstUnseenError < 1e-6)
        #expect(model.memory == nil)
        var bent = exact
        bent[3].webKit[.bytes] = 2 * (bent[3].webKit[.bytes] ?? 0)
        let patterns = try #require(WebKitModelFit.candidates(.bytes).first { $0.from == [.patterns] })
        let unseen = WebKitModelFit.unseenErrors(bent, .bytes, patterns, bytes: nil)
        #expect(abs((unseen.first { $0.list == "d" }?.error ?? 0) + 50) < 1e-6, "d, unseen, is twice what the others' law says")
        #expect(unseen.contains { $0.list != "d" && abs($0.error) > 1 }, "a law fitted with d misses the others")
        #expect(WebKitModelFit.fit(Array(exact.prefix(1)), webKit: "test") == nil)
    }
}
