// The command line: reading corpora (gzip included), `check` exit codes and reports, and the
// vector runner. Covers Sources/BlockBenchCLI.

import ArgumentParser
import Search
import ContentBlocker
import Foundation
import Fuzzing
import Conformance
import Corpus
import Reports
import Testing
@testable import BlockBenchCLI
@testable import ContentRuleList
import TestSupport

/// The folder of this test process's files, removed with them when the process exits.
let temporaryFolder: String = {
    let folder = NSTemporaryDirectory() + "blockbench-tests-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "blockbench-tests-\(getpid())") }
    return folder
}()

func temporaryFile(_ contents: [UInt8], suffix: String = ".json") throws -> String {
    let path = temporaryFolder + "/\(UUID().uuidString)\(suffix)"
    try Data(contents).write(to: URL(fileURLWithPath: path))
    return path
}

/// Runs a `blockbench` command line; returns the exit code.
func exitCode(_ arguments: [String]) -> Int32 {
    do {
        var command = try BlockBenchCommand.parseAsRoot(arguments)
        try command.run()
        return 0
    } catch let code as ExitCode {
        return code.rawValue
    } catch {
        return BlockBenchCommand.exitCode(for: error).rawValue
    }
}

@Suite struct CorpusFilesTests {
    @Test func readsGzipCompressedLists() throws {
        let bytes = try CorpusFiles.read(repositoryRoot + "/Corpora/rules/easyprivacy.adguard-safari16_4.json.gz")
        #expect(bytes.count == 5_931_007)
        #expect((try? RuleListParser.parse(bytes).get())?.rules.count == 54_374)
    }

    @Test func truncatedGzipIsAnError() throws {
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: repositoryRoot + "/Corpora/urls/adblock-rust-top500-sitelist-2015.txt.gz")))
        let path = try temporaryFile(Array(whole.prefix(whole.count / 2)), suffix: ".gz")
        #expect(throws: CorpusFileError.self) { try CorpusFiles.read(path) }
    }

    @Test func linesEndAtLFOrCRLF() {
        #expect(CorpusFiles.lines("a\r\nb\n\r\nc\r") == ["a", "b", "", "c"])
        #expect(CorpusFiles.lines("a\nb\n") == ["a", "b", ""])
        #expect(CorpusFiles.lines("a\r\nb\r\n") == CorpusFiles.lines("a\nb\n"))
        #expect(CorpusFiles.lines("") == [""])
    }

    @Test func manifestNamesEveryShippedFile() throws {
        let manifest = try CorpusManifest.load(root: repositoryRoot + "/Corpora")
        #expect(manifest.entries(ofKind: "rules").count == 4)
        for entry in manifest.corpora {
            #expect(FileManager.default.fileExists(atPath: manifest.path(of: entry)), "\(entry.file)")
        }
    }
}

@Suite struct CheckCommandTests {
    @Test func acceptsEveryShippedList() {
        #expect(exitCode(["check", "--corpora", repositoryRoot + "/Corpora"]) == 0)
    }

    @Test func rejectsAListWebKitRejects() throws {
        let path = try temporaryFile(Array(#"[{"trigger":{"url-filter":"ads|track"},"action":{"type":"block"}}]"#.utf8))
        #expect(exitCode(["check", path]) == 1)
        #expect(exitCode(["check", "--json", path]) == 1)
    }

    @Test func missingFileIsItsOwnExitCode() {
        #expect(exitCode(["check", "/nonexistent/rules.json"]) == 66)
    }

    @Test func reportListsEveryErrorWithItsPlace() {
        let rules = #"[{"trigger":{"url-filter":"a","if-domain":["Example.com"]},"action":{"type":"block"}},{"trigger":{"url-filter":"ads|track"},"action":{"type":"block"}},{"trigger":{"url-filter":".*"},"action":{"type":"block"}}]"#
        let report = CheckReport(path: "bad.json", check: RuleListParser.check(Array(rules.utf8)), seconds: 0)
        let text = report.text(maxWarnings: 10)
        #expect(text.contains("bad.json: WebKit rejects it with JSONDomainNotLowerCaseASCII (2 errors found)"))
        #expect(text.contains("error: rule 0: trigger.if-domain[0]: JSONDomainNotLowerCaseASCII:"))
        #expect(text.contains("error: rule 1: trigger.url-filter: JSONInvalidRegex:"))
        #expect(text.contains("warning: rule 2: url-filter \".*\" matches every URL (block)"))
        let json = try? JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any]
        #expect((json?["errors"] as? [Any])?.count == 2)
        #expect(json?["compiles"] as? Bool == false)
    }
}

@Suite struct VectorRunnerTests {
    @Test func everyShippedVectorPassesRequestsThroughBytecode() throws {
        let outcome = VectorRunner.run(try VectorFile.load(repositoryRoot + "/Corpora/conformance/webkit-vectors.json"))
        #expect(outcome.failed == 0)
        #expect(outcome.passed == 115 + 773 + 773)
        #expect(outcome.lines.contains("request vectors (compiled to bytecode, saved, loaded and run): 773 passed, 0 failed"))
        #expect(outcome.lines.contains("request vectors (PCRE2 oracle, on its own): 773 passed, 0 failed"))
        #expect(outcome.lines.last == "1661 passed, 0 failed, 0 skipped")
    }

    @Test func theShippedWebViewVectorsHoldForBlockBenchsRequests() throws {
        let outcome = VectorRunner.run(try VectorFile.load(repositoryRoot + "/Corpora/conformance/webkit-view.json"))
        #expect(outcome.lines.contains("web-view vectors (requests, without a web view): 13 passed, 0 failed"))
        #expect(outcome.failed == 0)
    }

    @Test func aWrongWebViewExpectationFailsWithBothAnswers() throws {
        let file = #"""
            {"webViewVectors":[{"test":"W","rules":"[{\"trigger\":{\"url-filter\":\"ads\"},\"action\":{\"type\":\"block\"}}]",
             "pages":[{"url":"http://page.example/","requests":[{"url":"http://ads.example/a.png","type":"image","webKit":"sent"},
               {"url":"http://cdn.example/b.png","type":"image","webKit":"sent"}],"elements":[]}]}]}
            """#
        let outcome = VectorRunner.run(try VectorFile.load(try temporaryFile(Array(file.utf8))))
        #expect(outcome.failed == 1)
        #expect(outcome.lines.contains("FAIL web-view W: http://ads.example/a.png (image): WebKit sent, ours blocked"))
    }

    @Test func aWrongRequestExpectationFailsWithBothAnswers() throws {
        let file = #"""
            {"requestVectorTests":[{"test":"R","vectors":[{"rules":"[{\"trigger\":{\"url-filter\":\"ads\"},\"action\":{\"type\":\"block\"}}]",
             "request":{"url":"http://ads.example/","mainDocumentURL":"http://ads.example/","frameURL":"http://ads.example/","resourceType":"image"},
             "expectedActions":[]}]}]}
            """#
        let outcome = VectorRunner.run(try VectorFile.load(try temporaryFile(Array(file.utf8))))
        #expect(outcome.failed == 2)
        #expect(outcome.lines.contains { $0.hasPrefix("FAIL request (oracle) R:") && $0.hasSuffix("got [block] stylesheets 1") })
        #expect(outcome.lines.contains { $0.hasPrefix("FAIL request R:") && $0.hasSuffix("expected [] stylesheets 1, got [block] stylesheets 1") })
    }

    @Test func aWrongExpectationFailsWithTheInputAndBothAnswers() throws {
        let file = #"{"compilerErrorVectors":[{"test":"T","rules":"[]","expectedError":null}],"urlFilterParseStatusVectors":[{"test":"U","pattern":"a|b","expectedStatus":"Ok"}]}"#
        let outcome = VectorRunner.run(try VectorFile.load(try temporaryFile(Array(file.utf8))))
        #expect(outcome.failed == 2)
        #expect(outcome.lines.contains(#"FAIL compile-error T: rules "[]": expected no error, got JSONContainsNoRules"#))
        #expect(outcome.lines.contains(#"FAIL url-filter-parse-status U: pattern "a|b": expected Ok, got Disjunction"#))
        #expect(outcome.lines.last == "0 passed, 2 failed, 0 skipped")
    }

    /// The probe files' fields: bytes in base64, the failing pattern's status, a list compiled
    /// to the same program. Each vector here is wrong in one of them.
    @Test func probeFieldsAreChecked() throws {
        let invalidUTF8 = Data([0x5B, 0xFF, 0x5D]).base64EncodedString()
        let file = #"""
            {"compilerErrorVectors":[
             {"test":"B","rulesBase64":"\#(invalidUTF8)","expectedError":"JSONInvalidRule"},
             {"test":"S","rules":"[{\"trigger\":{\"url-filter\":\"a|b\"},\"action\":{\"type\":\"block\"}}]","expectedError":"JSONInvalidRegex","expectedPatternStatus":"Group"},
             {"test":"P","rules":"[{\"trigger\":{\"url-filter\":\"a\",\"url-filter\":\"b\"},\"action\":{\"type\":\"block\"}}]","expectedError":null,
              "sameProgramAs":"[{\"trigger\":{\"url-filter\":\"a\"},\"action\":{\"type\":\"block\"}}]"},
             {"test":"OK","rules":"[{\"trigger\":{\"url-filter\":\"a\",\"url-filter\":\"b\"},\"action\":{\"type\":\"block\"}}]","expectedError":null,
              "sameProgramAs":"[{\"trigger\":{\"url-filter\":\"b\"},\"action\":{\"type\":\"block\"}}]"}]}
            """#
        let outcome = VectorRunner.run(try VectorFile.load(try temporaryFile(Array(file.utf8))))
        #expect(outcome.failed == 3)
        #expect(outcome.passed == 1)
        #expect(outcome.lines.contains("FAIL compile-error B: rules base64 \(invalidUTF8): expected JSONInvalidRule, got JSONInvalid"))
        #expect(outcome.lines.contains { $0.hasPrefix("FAIL compile-error S:") && $0.hasSuffix("expected the pattern status Group, got Disjunction") })
        #expect(outcome.lines.contains { $0.hasPrefix("FAIL compile-error P:") && $0.hasSuffix("got a different one") })
    }
}

@Suite struct FuzzCommandTests {
    @Test func aShortFixedSeedRunIsCleanAndACaseReplays() {
        #expect(exitCode(["fuzz", "--seed", "11", "--cases", "30", "--no-write"]) == 0)
        #expect(exitCode(["fuzz", "--seed", "11", "--level", "list", "--case", "3", "--no-write"]) == 0)
        #expect(exitCode(["fuzz", "--exhaustive", "--atoms", "1", "--length", "2"]) == 0)
        #expect(exitCode(["fuzz", "--level", "nonsense", "--cases", "1"]) != 0)
    }
}

@Suite struct DumpCommandTests {
    @Test func exitCodeSaysWhetherWebKitAcceptsThePattern() {
        #expect(exitCode(["dump", "syntax", "^a[bc]*$"]) == 0)
        #expect(exitCode(["dump", "syntax", "a|b"]) == 1)
        #expect(exitCode(["dump", "nfa", "a"]) == 0)
        #expect(exitCode(["dump", "dfa", "^a[bc]*$"]) == 0)
        #expect(exitCode(["dump", "bytecode", "a|b"]) == 1)
        #expect(exitCode(["dump", "graph", "a"]) != 0)
    }
}

@Suite struct CompileAndMatchCommandTests {
    @Test func compileWritesAFileMatchReads() throws {
        let output = temporaryFolder + "/\(UUID().uuidString).bbc"
        defer { try? FileManager.default.removeItem(atPath: output) }
        #expect(exitCode(["compile", repositoryRoot + "/Corpora/rules/ddg-tds-reference-rules.json", "-o", output, "--json"]) == 0)
        #expect(FileManager.default.fileExists(atPath: output))
        #expect(exitCode(["match", output, "--url", "https://ads.example/x.js", "--resource-type", "script"]) == 0)
        // A corrupted file is refused before it runs.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        bytes[bytes.count / 2] ^= 0x40
        let corrupt = try temporaryFile(bytes, suffix: ".bbc")
        #expect(exitCode(["match", corrupt, "--url", "https://ads.example/"]) == 1)
    }

    /// `load` reads compiled files (several: one content blocker each) and refuses a corrupt one.
    @Test func loadReadsCompiledFiles() throws {
        let output = temporaryFolder + "/\(UUID().uuidString).bbc"
        defer { try? FileManager.default.removeItem(atPath: output) }
        #expect(exitCode(["compile", repositoryRoot + "/Corpora/rules/ddg-tds-reference-rules.json", "-o", output]) == 0)
        #expect(exitCode(["load", output, output, "--json"]) == 0)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        bytes[bytes.count / 2] ^= 0x40
        #expect(exitCode(["load", output, try temporaryFile(bytes, suffix: ".bbc")]) == 1)
    }

    @Test func compileRefusesAListWebKitRejects() throws {
        let path = try temporaryFile(Array(#"[{"trigger":{"url-filter":"a|b"},"action":{"type":"block"}}]"#.utf8))
        #expect(exitCode(["compile", path]) == 1)
    }

    @Test func matchReadsJSONLines() throws {
        let rules = try temporaryFile(Array(#"[{"trigger":{"url-filter":"ads"},"action":{"type":"block"}}]"#.utf8))
        let requests = try temporaryFile(Array("{\"url\":\"http://ads.example/\"}\n\n{\"url\":\"http://x.example/\",\"resourceType\":\"image\"}\n".utf8), suffix: ".jsonl")
        #expect(exitCode(["match", rules, "--requests", requests]) == 0)
        let bad = try temporaryFile(Array("{\"url\":1}\n".utf8), suffix: ".jsonl")
        #expect(exitCode(["match", rules, "--requests", bad]) != 0)
    }

    /// A request file saved with Windows line ends reads like one with LF ends.
    @Test func matchReadsJSONLinesWithCRLFEnds() throws {
        let rules = try temporaryFile(Array(#"[{"trigger":{"url-filter":"ads"},"action":{"type":"block"}}]"#.utf8))
        let requests = try temporaryFile(Array("{\"url\":\"http://ads.example/\"}\r\n\r\n{\"url\":\"http://x.example/\"}\r\n".utf8), suffix: ".jsonl")
        #expect(exitCode(["match", rules, "--requests", requests]) == 0)
        let bad = try temporaryFile(Array("{\"url\":\"http://x.example/\"}\r\n{\"url\":1}\r\n".utf8), suffix: ".jsonl")
        #expect(exitCode(["match", rules, "--requests", bad]) != 0)
    }
}

@Suite struct ConformCommandTests {
    @Test func aShippedPairConformsAndShardsAreChecked() {
        let corpora = repositoryRoot + "/Corpora"
        #expect(exitCode(["conform", "--rules", "kablock", "--requests", "adblock-rust-regressions", "--corpora", corpora]) == 0)
        #expect(exitCode(["conform", "--rules", "kablock", "--requests", "adblock-rust-requests", "--shard", "2/3", "--json", "--corpora", corpora]) == 0)
        #expect(exitCode(["conform", "--rules", "kablock", "--shard", "4/3", "--corpora", corpora]) != 0)
        #expect(exitCode(["conform", "--rules", "no-such-list", "--corpora", corpora]) != 0)
    }
}

@Suite struct ProfileCommandTests {
    /// The rows add up: the programs run alone (each run of the whole programs: a program, or a
    /// product of several) take, together, the steps and runs of the whole set
    /// (a stage's row includes its prefix's run, the gated groups' the gates'; the host labels'
    /// reading is the domain table's), and
    /// every program of the set is in some row.
    @Test func rowsAddUpToTheWholeSet() throws {
        let bytes = try CorpusFiles.read(repositoryRoot + "/Corpora/rules/easylist.adguard-safari26.json.gz")
        let programs = try RuleListCompiler.compile(json: bytes).0.file.urlPrograms
        let set = try RequestSets.load(
            path: repositoryRoot + "/Corpora/urls/adblock-rust-matching-test-requests.json.gz", kind: "requests-json", name: "requests")
        let urls = set.requests.prefix(500).map { Array($0.request.url.string.utf8) }
        let rows = ProfileCommand.rows(programs, urls: urls, rounds: 1)
        let parts = rows.dropLast().filter { !$0.name.hasSuffix(" prefix") }
        let whole = try #require(rows.last)
        #expect(whole.name == "every url program")
        #expect(!programs.domains.isEmpty, "EasyList's `||domain^` rules are in the domain table")
        #expect(programs.gated != nil, "EasyList's loopy patterns have gates")
        #expect(programs.wholeRuns.contains { $0.programs.count > 1 }, "EasyList's search automata run as their product")
        #expect(parts.count == programs.wholeRuns.count + programs.stages.count + 1 + 1)
        #expect(parts.reduce(0) { $0 + $1.steps } == whole.steps)
        #expect(parts.reduce(0) { $0 + $1.runs } == whole.runs)
        #expect(parts.reduce(0) { $0 + $1.programs } == programs.allPrograms.count)
        #expect(whole.steps > 0 && whole.runs >= urls.count)
    }

    @Test func profileRunsEveryPartAndListsTheSlowest() {
        #expect(exitCode(["profile", repositoryRoot + "/Corpora/rules/kablock-blockerList.json", "--rounds", "1", "--slowest", "3"]) == 0)
    }

    /// Two lists asked apart, loaded with their tables in huge pages and in 4 KB pages; the
    /// process's setting is left as it was (huge pages).
    @Test func profileComparesTablePages() {
        let kablock = repositoryRoot + "/Corpora/rules/kablock-blockerList.json"
        let ddg = repositoryRoot + "/Corpora/rules/ddg-tds-reference-rules.json"
        #expect(exitCode(["profile", kablock, "--and", ddg, "--compare-pages", "--rounds", "2"]) == 0)
        #expect(TablePages.huge)
        #expect(exitCode(["profile", kablock, "--and", ddg, "--rounds", "1"]) != 0, "--and goes with --compare-pages")
    }

    @Test func missingRequestSetIsAnError() {
        #expect(exitCode(["profile", repositoryRoot + "/Corpora/rules/kablock-blockerList.json", "--requests", "/nonexistent.json"]) != 0)
        #expect(exitCode(["profile", repositoryRoot + "/Corpora/rules/kablock-blockerList.json", "--rounds", "0"]) != 0)
    }
}

@Suite struct DialectsCommandTests {
    @Test func writesARespelledListWebKitAcceptsAndChecksItsMeaning() throws {
        let path = temporaryFolder + "/ddg@webkit-dnr.json"
        #expect(exitCode(["dialects", "--dialect", "webkit-dnr", "--rules", "ddg-tds-reference", "--requests", "adblock-rust-regressions",
                          "--corpora", repositoryRoot + "/Corpora", "-o", path]) == 0)
        let written = try CorpusFiles.read(path)
        #expect((try? RuleListParser.parse(written).get())?.rules.count == 127)
        #expect(String(decoding: written, as: UTF8.self).contains(#"[^a-zA-Z0-9_.%-]"#))
    }

    @Test func listsTheDialectsAndRefusesAnUnknownOne() {
        #expect(exitCode(["dialects"]) == 0)
        #expect(exitCode(["dialects", "--dialect", "nonsense", "--corpora", repositoryRoot + "/Corpora"]) != 0)
    }
}

@Suite struct SafariOptionTests {
    /// `check --safari all` exits 1 when an older release rejects a shipped list (the big lists
    /// are over Safari 13's limit); a version with no profile is a usage error.
    @Test func checkAnswersPerRelease() throws {
        let corpora = repositoryRoot + "/Corpora"
        let kablock = corpora + "/rules/kablock-blockerList.json"
        #expect(exitCode(["check", "--corpora", corpora, "--safari", "all", kablock]) == 0)
        #expect(exitCode(["check", "--corpora", corpora, "--safari", "13", kablock]) == 0)
        let fetch = try temporaryFile(Array(#"[{"trigger":{"url-filter":"a","resource-type":["fetch"]},"action":{"type":"block"}}]"#.utf8))
        #expect(exitCode(["check", "--corpora", corpora, "--safari", "14.1", fetch]) == 1)
        #expect(exitCode(["check", "--corpora", corpora, "--safari", "26", fetch]) == 0)
        #expect(exitCode(["check", "--corpora", corpora, "--safari", "all", fetch]) == 1)
        #expect(exitCode(["check", "--corpora", corpora, "--safari", "12", fetch]) == 64)
        #expect(exitCode(["compile", "--corpora", corpora, "--safari", "13", fetch]) == 1)
        #expect(exitCode(["match", "--corpora", corpora, "--safari", "13", fetch, "--url", "https://a.test/"]) == 1)
        #expect(exitCode(["headroom", "--corpora", corpora, kablock]) == 0)
        #expect(exitCode(["headroom", "--corpora", corpora, "--predict", "--top", "2", "--json", kablock]) == 0)
        #expect(exitCode(["headroom", "--corpora", corpora, "--json", fetch]) == 1)
    }

    /// `conform --vectors FILE --safari VERSION` reads each vector's list as that release does:
    /// Safari 13 knows no `fetch` resource type and ignores `if-frame-url`, so these vectors
    /// hold for it and fail for the newest release.
    @Test func conformVectorsAnswerForTheRelease() throws {
        let corpora = repositoryRoot + "/Corpora"
        let vectors = try temporaryFile(Array(#"""
            {"compilerErrorVectors":[{"test":"fetch","rules":"[{\"trigger\":{\"url-filter\":\"a\",\"resource-type\":[\"fetch\"]},\"action\":{\"type\":\"block\"}}]",
              "expectedError":"JSONInvalidStringInTriggerFlagsArray"}],
             "requestVectorTests":[{"test":"if-frame-url","vectors":[{"rules":"[{\"trigger\":{\"url-filter\":\"ads\",\"if-frame-url\":[\"frame\\\\.example\"]},\"action\":{\"type\":\"block\"}}]",
              "request":{"url":"http://ads.example/","mainDocumentURL":"http://page.example/","frameURL":"http://page.example/","resourceType":"image"},
              "expectedActions":["block"]}]}]}
            """#.utf8))
        #expect(exitCode(["conform", "--corpora", corpora, "--vectors", vectors, "--safari", "13"]) == 0)
        #expect(exitCode(["conform", "--corpora", corpora, "--vectors", vectors, "--safari", "26"]) == 2)
        #expect(exitCode(["conform", "--corpora", corpora, "--vectors", vectors]) == 2)
        #expect(exitCode(["conform", "--corpora", corpora, "--vectors", vectors, "--safari", "12"]) == 64)
        let profile = SafariProfile(
            version: "13", maximumRuleCount: 50_000, triggerKeys: ["url-filter", "resource-type"], flagValues: ["resource-type": ["image"]])
        let outcome = VectorRunner.run(try VectorFile.load(vectors), profile: profile)
        #expect(outcome.lines.first == "lists read as Safari 13 reads them")
        #expect(outcome.lines.last == "3 passed, 0 failed, 0 skipped")
    }
}

extension SafariOptionTests {
    /// `conform --safari VERSION` on rule lists reads each list as that release does: Safari 13
    /// ignores `load-context`, so its rule blocks the top frame's script too (engine and oracle
    /// both), and it rejects a `redirect` list, which is reported and fails the run.
    @Test func conformReadsEachListAsTheRelease() throws {
        let corpora = repositoryRoot + "/Corpora"
        let framed = try temporaryFile(Array(#"""
            [{"trigger":{"url-filter":"ads","load-context":["child-frame"]},"action":{"type":"block"}},
             {"trigger":{"url-filter":"track"},"action":{"type":"block"}}]
            """#.utf8))
        let redirect = try temporaryFile(Array(#"""
            [{"trigger":{"url-filter":"ads"},"action":{"type":"redirect","redirect":{"url":"https://x.example/"}}}]
            """#.utf8))
        let requests = try temporaryFile(Array("url\tsourceUrl\ttype\tblocked\nhttps://ads.example/a.js\thttps://page.example/\tscript\ttrue\n".utf8), suffix: ".tsv")
        let manifest = try CorpusManifest.load(root: corpora)
        var run = ConformanceRun()
        let newest = try CorpusConformance.run(
            manifest: manifest, rules: [framed, redirect], requests: [requests], run: run, json: false, includeVectors: false)
        #expect(newest.passed && newest.rejected.isEmpty)
        #expect(newest.results.map(\.requestsWithActions) == [0, 1])
        #expect(newest.results.map(\.safari) == [nil, nil])
        run.profile = SafariProfile(
            version: "13", maximumRuleCount: 50_000, triggerKeys: ["url-filter"], actionTypes: ["block", "ignore-previous-rules"])
        let safari13 = try CorpusConformance.run(
            manifest: manifest, rules: [framed, redirect], requests: [requests], run: run, json: true, includeVectors: false)
        #expect(!safari13.passed)
        #expect(safari13.results.map(\.requestsWithActions) == [1])
        #expect(safari13.results.map(\.safari) == ["13"])
        #expect(safari13.results.allSatisfy { $0.mismatches == 0 })
        #expect(safari13.rejected.map(\.list) == [URL(fileURLWithPath: redirect).lastPathComponent])
        #expect(safari13.rejected.first?.rejected.contains("JSONInvalidActionType") == true)
        let arguments = ["conform", "--corpora", corpora, "--rules", framed, "--requests", requests]
        #expect(exitCode(arguments + ["--safari", "13"]) == 0)
        #expect(exitCode(arguments + ["--rules", redirect, "--safari", "13"]) == 2)
        #expect(exitCode(arguments + ["--rules", redirect, "--safari", "26"]) == 0)
        #expect(exitCode(arguments + ["--safari", "12"]) == 64)
    }
}

@Suite struct DiffCommandTests {
    /// The same list: exit 0 in every format; a release lost: exit 4; a Safari with no profile: 64.
    @Test func exitCodesForCI() throws {
        let corpora = repositoryRoot + "/Corpora"
        let kablock = corpora + "/rules/kablock-blockerList.json"
        let base = ["diff", "--corpora", corpora, "--requests", "adblock-rust-regressions"]
        #expect(exitCode(base + [kablock, kablock]) == 0)
        #expect(exitCode(base + ["--json", kablock, kablock]) == 0)
        #expect(exitCode(base + ["--markdown", "--split", "2", kablock, kablock]) == 0)
        var rules = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: kablock))) as? [Any])
        rules.append(["trigger": ["url-filter": "x", "resource-type": ["fetch"]], "action": ["type": "block"]])
        let fetch = try temporaryFile(Array(try JSONSerialization.data(withJSONObject: rules)))
        #expect(exitCode(base + [kablock, fetch]) == 4)
        #expect(exitCode(base + ["--safari", "12", kablock, fetch]) == 64)
    }
}
