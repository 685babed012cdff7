// DenseBudgetTests.swift — a list loaded within any dense budget (Search/DenseBudget.swift) gives
// the answers it gives within the default: rules drawn from EasyList and EasyPrivacy (whole
// programs, products, stages and gated groups) and KaBlock's list, every request of
// adblock-rust-requests answered with no dense table, with some of them (the budget spent part of
// the way through the programs) and with the default, alone and as two lists asked together.

import Testing
import Foundation
import ContentBlocker
import Corpus
import RequestContext
@testable import Search
import TestSupport

@Suite struct DenseBudgetTests {
    static let manifest = Result { try CorpusManifest.load(root: repositoryRoot + "/Corpora") }

    static func shippedJSON(_ name: String) throws -> [UInt8] {
        let manifest = try manifest.get()
        return try CorpusFiles.read(manifest.path(of: manifest.corpora.first { $0.name == name }!))
    }

    static func requests() throws -> [Request] {
        let manifest = try manifest.get()
        return try RequestSets.load(manifest.corpora.first { $0.name == "adblock-rust-requests" }!, from: manifest).requests.map(\.request)
    }

    /// A file of rules drawn from EasyList and EasyPrivacy: the big lists' program shapes, compiled
    /// in a moment.
    static func drawnFile() throws -> [UInt8] {
        let draw = RuleDraw(from: ["easylist", "easyprivacy"], lists: 1, rules: 4_000, seed: 57)
        let json = try draw.draw(pool: [try shippedJSON("easylist"), try shippedJSON("easyprivacy")])[0]
        return try RuleListCompiler.compile(json: json).0.serialized()
    }

    @Test func everyBudgetGivesTheDefaultsAnswers() throws {
        let bytes = try Self.drawnFile()
        let requests = try Self.requests()
        let standard = try CompiledRuleList(validating: bytes)
        let used = standard.file.denseTableBytes
        #expect(used > 0 && standard.denseBudget == .standard)
        let none = try CompiledRuleList(validating: bytes, denseBudget: .compact)
        #expect(none.file.denseTableBytes == 0)
        #expect(none.file.urlPrograms.denseProgramCount == 0)
        // (Part of the way: some programs dense, the others compact.)
        let part = try CompiledRuleList(validating: bytes, denseBudget: DenseBudget(bytes: used / 2))
        #expect(part.file.denseTableBytes > 0 && part.file.denseTableBytes <= used / 2)
        #expect(part.file.urlPrograms.denseProgramCount < standard.file.urlPrograms.denseProgramCount)
        #expect(part.serialized() == bytes && none.serialized() == bytes, "the budget changes no byte of the file")

        let expected = Evaluator(standard)
        let evaluators = [Evaluator(none), Evaluator(part), Evaluator(standard, denseBudget: .compact)]
        var differing: [String] = []
        for request in requests {
            let answer = expected.outcome(for: request)
            for (index, evaluator) in evaluators.enumerated() where evaluator.outcome(for: request) != answer {
                differing.append("evaluator \(index): \(request.url.string)")
            }
        }
        #expect(differing.isEmpty, "\(differing.prefix(5))")
    }

    /// Two lists asked together: with dense tables their whole programs run in one pass, without
    /// them each on its own; the answers are the same.
    @Test func listsAskedTogetherAnswerAlikeAtEveryBudget() throws {
        let drawn = try Self.drawnFile()
        let kablock = try RuleListCompiler.compile(json: try Self.shippedJSON("kablock")).0.serialized()
        let standard = ContentBlockers([try CompiledRuleList(validating: drawn), try CompiledRuleList(validating: kablock)])
        let none = ContentBlockers([try CompiledRuleList(validating: drawn), try CompiledRuleList(validating: kablock)], denseBudget: .compact)
        #expect(!none.runsWholeProgramsTogether)
        var differing: [String] = []
        for request in try Self.requests() where none.outcomes(for: request) != standard.outcomes(for: request) {
            differing.append(request.url.string)
        }
        #expect(differing.isEmpty, "\(differing.prefix(5))")
    }

    /// A file's sets share the budget, the url set's tables first; a file read within a budget is
    /// kept as read when prepared within it again.
    @Test func aListsSetsShareOneBudget() throws {
        let bytes = try Self.drawnFile()
        let used = try CompiledRuleList(validating: bytes).file.denseTableBytes
        for budget in [DenseBudget.compact, DenseBudget(bytes: used / 3), DenseBudget(bytes: used / 2), .standard] {
            let file = try CompiledRuleList(validating: bytes, denseBudget: budget).file
            #expect(file.denseTableBytes <= budget.bytes, "\(budget)")
            #expect(file.denseBudget == budget)
            #expect(file.prepared(denseBudget: budget).urlPrograms.contents === file.urlPrograms.contents)
            #expect(file.prepared(denseBudget: budget).topURLPrograms.contents === file.topURLPrograms.contents)
        }
        let file = try CompiledRuleList(validating: bytes).file
        #expect(file.prepared(denseBudget: .compact).denseTableBytes == 0)
    }
}
