// `blockbench conform`: BlockBench against the PCRE2 oracle on real corpora, and both against
// WebKit's vectors.
//
// With no arguments: every shipped rule list against every shipped request set, then the shipped
// vectors. `--rules` and `--requests` (names from Corpora/manifest.json, or paths) narrow the
// pairs; `--vectors FILE` runs only a vector file. Per pair it prints requests, rules, requests
// with actions, mismatches and, for the first mismatches, a reduced reproduction. `--shard i/n`
// runs every n-th request (from the i-th), so n machines cover a set between them and their
// `--json` lines add up. `--safari VERSION` reads every list (and every vector's list) as that
// release does; a list it rejects is reported and fails the run. Exit 0 when everything agrees, 2
// on any mismatch, rejected list or failing vector, 1 on an error.
//
// Request vectors run through the real path: the rule list is compiled, its file written to
// bytes and loaded back (validated), and the evaluator answers from that file; the oracle answers
// the same vector on its own.
//
// `--against webkit` compares verdicts with the real WebKit compiler instead (WebKitParity.swift):
// the shipped lists (or `--rules`), every list and pattern of every shipped vector file (or
// `--vectors`), and
// the patterns of `--patterns FILE` (one per line) and `--generated N` patterns from the fuzzer's
// generator, each accepted or rejected by both with the same error. Where a vector records
// WebKit's answer (an error, a pattern status, a list compiled to the same program), WebKit's
// actual answer is checked against it too. Exit 2 on any difference that is not a documented
// WebKit quirk.
//
// `--against webkit-view` compares what BlockBench decides with what a real WebKitGTK web view
// does on generated pages (Engines/WebView, Conformance/WebViewConformance.swift): the request set's pages (`--sample`, `--shard` by
// page) with every list, the web-view vectors, or `--generated N` small worlds whose differences
// are reduced and written as vectors (Fuzzing/ViewFindingWriter.swift). Skipped, with the reason,
// where WebKitGTK or Xvfb is missing.
// Tested by BlockBenchCLITests/CLITests.swift (ConformCommandTests); the web view and WebKit's
// compiler by .ci/run.

import ArgumentParser
import Foundation
import Fuzzing
import Conformance
import Corpus
import Engines
import TerminalText

struct ConformCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conform",
        abstract: "Check BlockBench against the PCRE2 oracle on the corpora and against WebKit's vectors (exit 2 on any difference).")

    @Option(help: "A rule list: a manifest name or a path (repeatable; default: every shipped list).")
    var rules: [String] = []

    @Option(help: "A request set: a manifest name or a path (.json[.gz] adblock-rust objects, .tsv, .txt[.gz] site list; repeatable; default: every shipped set).")
    var requests: [String] = []

    @Option(help: "Run only this vector file (the format of Corpora/conformance/webkit-vectors.json).")
    var vectors: String?

    @Option(help: "Run shard i of n of every request set (e.g. 2/4).")
    var shard: String = "1/1"

    @Option(help: "Mismatches to reduce and print in full per pair.")
    var reproductions = 3

    @Option(help: "Worker threads.")
    var workers = 2

    @Flag(help: "Make the oracle try every rule on every request (no literal prefilter).")
    var noPrefilter = false

    @Flag(help: "One JSON object per pair on standard output instead of the table.")
    var json = false

    @OptionGroup var safari: SafariOption

    @Option(help: "The corpora folder.")
    var corpora = "Corpora"

    @Option(help: "What to compare with: oracle (the PCRE2 reference, on requests) or webkit (the real WebKit compiler's verdicts).")
    var against: Reference = .oracle

    @Option(help: "With --against webkit: also every pattern of this file (one per line), each as a one-rule list.")
    var patterns: String?

    @Option(help: "With --against webkit: also this many distinct patterns from the fuzzer's generator (a third just outside the subset), each as a one-rule list.")
    var generated = 0

    @Option(help: "With --generated: the generator's seed.")
    var seed: UInt64 = 1

    @Option(help: "With --against webkit-view: page loads spread over the set holding at least this many of its requests (after --shard); 0 = all.")
    var sample = 0

    @Option(help: "With --against webkit-view: the folder for the generated pages and the web views' logs (default: a new temporary folder).")
    var scratch: String?

    @Flag(help: "With --against webkit-view --generated: print each difference, reduced, without writing it as a vector to Corpora/regressions.")
    var noWrite = false

    enum Reference: String, ExpressibleByArgument {
        case oracle, webkit
        case webkitView = "webkit-view"
    }

    func run() throws {
        // A vector file that does not decode and a corpus argument that names nothing are usage
        // errors, as ArgumentParser reports them.
        do {
            try compare()
        } catch let error as VectorFileError {
            throw ValidationError(error.description)
        } catch let error as CorpusSelectionError {
            throw ValidationError(error.description)
        }
    }

    func compare() throws {
        if against == .webkit {
            try runAgainstWebKit()
            return
        }
        if against == .webkitView {
            try runAgainstWebView()
            return
        }
        if let vectors {
            let outcome = VectorRunner.run(try VectorFile.load(vectors), profile: try safari.profile(corpora: corpora))
            for line in outcome.lines { print(line) }
            if outcome.failed > 0 { throw ExitCode(2) }
            return
        }
        var run = ConformanceRun()
        run.profile = try safari.profile(corpora: corpora)
        run.shard = try parsedShard()
        run.reproductions = reproductions
        run.workers = workers
        run.usesPrefilter = !noPrefilter
        let manifest = try CorpusManifest.load(root: corpora)
        let outcome = try CorpusConformance.run(
            manifest: manifest, rules: rules, requests: requests, run: run, json: json, includeVectors: rules.isEmpty && requests.isEmpty)
        if !outcome.passed { throw ExitCode(2) }
    }
}

extension ConformCommand {
    func parsedShard() throws -> Shard {
        let parts = shard.split(separator: "/").compactMap { Int($0) }
        guard parts.count == 2, parts[1] >= 1, (1...parts[1]).contains(parts[0]) else {
            throw ValidationError("--shard takes i/n with 1 <= i <= n, not \(shard)")
        }
        return Shard(index: parts[0], count: parts[1])
    }

    /// `--against webkit-view`: every list (or `--rules`) against the pages of the adblock-rust
    /// request set (or `--requests`) in a real WebKitGTK web view.
    func runAgainstWebView() throws {
        let runner = WebViewRunner()
        if let unavailable = runner.unavailable() {
            print("conform --against webkit-view: skipped: \(unavailable)")
            return
        }
        let manifest = try CorpusManifest.load(root: corpora)
        let lists = try CorpusConformance.select(rules, kinds: ["rules"], manifest: manifest)
        let sets = try CorpusConformance.select(requests.isEmpty ? ["adblock-rust-requests"] : requests, kinds: RequestSets.kinds, manifest: manifest)
        let shard = try parsedShard()
        let folder = scratch ?? NSTemporaryDirectory() + "blockbench-view-\(ProcessInfo.processInfo.processIdentifier)"
        var conformance = WebViewConformance(runner: runner, scratch: folder)
        conformance.progress = { Progress.line($0) }
        // Web-view vectors: the file named, or (with the corpora) every shipped one.
        let vectorPaths = vectors.map { [$0] } ?? (generated > 0 ? [] : manifest.entries(ofKind: "vectors").map(manifest.path(of:)))
        let checked = try checkWebViewVectors(vectorPaths, conformance)
        var differences = checked.problems
        if vectors != nil {
            print("web-view vectors: \(checked.vectors), \(differences) problems")
            if differences > 0 { throw ExitCode(2) }
            return
        }
        if generated > 0 {
            differences += try runGeneratedWorlds(conformance)
        } else {
            differences += try runWebViewSets(sets, lists: lists, shard: shard, conformance)
        }
        if scratch == nil { try? FileManager.default.removeItem(atPath: folder) }
        if differences > 0 { throw ExitCode(2) }
    }

    /// Each web-view vector of `paths` loaded in the web view: the vectors, and their problems
    /// (a known failure that now passes is one).
    func checkWebViewVectors(_ paths: [String], _ conformance: WebViewConformance) throws -> (vectors: Int, problems: Int) {
        var vectorCount = 0
        var differences = 0
        for path in paths {
            for vector in try VectorFile.load(path).webViewVectors {
                vectorCount += 1
                let (_, problems) = try conformance.check(vector)
                Progress.clear()
                if problems.isEmpty == (vector.knownFailure == nil) {
                    print("\(problems.isEmpty ? "pass" : "KNOWN FAILURE") web-view vector \(vector.test)")
                } else {
                    differences += max(1, problems.count)
                    print("FAIL web-view vector \(vector.test)" + (problems.isEmpty ? ": marked as a known failure, now passes: remove the mark" : ""))
                    for problem in problems { print("  \(problem)") }
                }
            }
        }
        return (vectorCount, differences)
    }

    /// `--generated N`: a small list and its pages per case; a case's first difference is
    /// reduced and written as a web-view vector. Returns the differences.
    func runGeneratedWorlds(_ conformance: WebViewConformance) throws -> Int {
        var differences = 0
        let generator = ViewWorldGenerator()
        for number in 1...generated {
            let caseSeed = FuzzRandom.caseSeed(seed, stream: 7, index: UInt64(number))
            let world = generator.world(seed: caseSeed)
            var plan = ViewPlan.make(world.requests)
            for index in plan.loads.indices { plan.loads[index].targetSelectors = world.selectors }
            let result = try conformance.run(plan: plan, lists: [(name: "case \(number) (seed \(caseSeed))", json: Array(world.rules.utf8))])[0]
            Progress.clear()
            print(result.text)
            if let first = result.differences.first {
                for difference in result.differences.prefix(reproductions * 4) {
                    print(Self.line(difference))
                }
                let writer = RegressionWriter(
                    folder: noWrite ? NSTemporaryDirectory() + "blockbench-view-vectors" : corpora + "/regressions",
                    manifest: noWrite ? nil : corpora + "/manifest.json")
                let reduced = try ViewFindingWriter(conformance: conformance, writer: writer).reduceAndWrite(
                    rules: world.rules, plan: plan, difference: first,
                    origin: "generated by blockbench conform --against webkit-view --generated \(number) --seed \(seed) (case \(number)), reduced")
                Progress.clear()
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                print("  reduced: " + String(decoding: try encoder.encode(reduced.vector), as: UTF8.self))
                if let path = reduced.path { print("  written: \(path)") }
            }
            differences += result.differences.count
        }
        return differences
    }

    /// Every list against each request set's pages (the shard, or a sample of it). Returns the
    /// differences.
    func runWebViewSets(
        _ sets: [CorpusConformance.Selected], lists: [CorpusConformance.Selected], shard: Shard, _ conformance: WebViewConformance
    ) throws -> Int {
        var differences = 0
        for set in sets {
            let requestSet = try RequestSets.load(path: set.path, kind: set.kind, name: set.name)
            var plan = ViewPlan.make(requestSet.requests).shard(shard.index, of: shard.count)
            if sample > 0 { plan = plan.sample(requests: sample) }
            let leftOut = plan.leftOut.sorted { $0.key < $1.key }.map { "\($0.value.grouped) \($0.key)" }.joined(separator: ", ")
            print("\(set.name)\(shard == .whole ? "" : " (shard \(shard))"): \(plan.loads.count.grouped) page loads of \(plan.loads.map(\.subresources.count).reduce(0, +).grouped) requests\(leftOut.isEmpty ? "" : "; rows left out: " + leftOut)")
            let named = try lists.map { (name: $0.name, json: try CorpusFiles.read($0.path)) }
            for result in try conformance.run(plan: plan, lists: named) {
                Progress.clear()
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    print(String(decoding: try encoder.encode(result), as: UTF8.self))
                } else {
                    print(result.text)
                    for difference in result.differences.prefix(reproductions * 4) {
                        print(Self.line(difference))
                    }
                }
                differences += result.differences.count
            }
        }
        return differences
    }

    static func line(_ difference: WebViewDifference) -> String {
        "  DIFFERENT page \(difference.page) \(difference.pageURL) row \(difference.row): \(difference.what) \(difference.url): ours \(difference.ours); WebKit \(difference.webKit)"
    }

    /// `--against webkit`: batches of lists and patterns, each compiled by WebKit's compiler and
    /// checked by BlockBench, the verdicts compared.
    func runAgainstWebKit() throws {
        let webKit = WebKitEngine()
        if let unavailable = webKit.unavailable { throw ValidationError("WebKit cannot run here: \(unavailable)") }
        print("against \(webKit.about)")
        let manifest = try CorpusManifest.load(root: corpora)
        var batches: [(String, [ParityCase])] = []
        let onlyPatterns = patterns != nil || generated > 0
        if !onlyPatterns || !rules.isEmpty {
            let lists = try CorpusConformance.select(rules, kinds: ["rules"], manifest: manifest)
            batches.append(("rule lists", try lists.map { ParityCase(id: $0.name, json: try CorpusFiles.read($0.path)) }))
        }
        if !onlyPatterns || vectors != nil {
            // Every vector file of the manifest, or the one named.
            let paths = vectors.map { [$0] } ?? manifest.entries(ofKind: "vectors").map(manifest.path(of:))
            for path in paths {
                let name = paths.count > 1 ? URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent + ": " : ""
                batches += try Self.parityBatches(ofVectorFile: path, named: name)
            }
        }
        if let patterns {
            let text = String(decoding: try CorpusFiles.read(patterns), as: UTF8.self)
            let lines = CorpusFiles.lines(text).map(String.init).filter { !$0.isEmpty }
            batches.append((patterns, lines.enumerated().map { ParityCase.pattern($0.element, id: "line \($0.offset + 1)") }))
        }
        if generated > 0 {
            batches.append(("generated patterns (seed \(seed))", generatedParityCases()))
        }
        var unexplained = 0
        for (source, cases) in batches where !cases.isEmpty {
            let result = try WebKitParity.run(cases, source: source, webKit: webKit) { done, total in
                Progress.line("\(source): \(done) / \(total)")
            }
            Progress.clear()
            printParity(result)
            unexplained += result.unexplained
        }
        if unexplained > 0 { throw ExitCode(2) }
    }

    /// A vector file's parity batches: its compile-error vectors (with WebKit's expected verdict),
    /// its request vectors' distinct lists, its parse-status vectors and its match vectors' patterns.
    static func parityBatches(ofVectorFile path: String, named name: String) throws -> [(String, [ParityCase])] {
        let file = try VectorFile.load(path)
        var compileCases: [ParityCase] = []
        for vector in file.compilerErrorVectors {
            guard let expected = ParityExpectation(vector) else {
                throw ValidationError("\(path): vector \(vector.test) names an unknown error or status")
            }
            compileCases.append(ParityCase(id: vector.test, json: vector.bytes, expected: expected))
        }
        var seen = Set<String>()
        var requestLists: [ParityCase] = []
        for test in file.requestVectorTests {
            for vector in test.vectors where seen.insert(vector.rules).inserted {
                requestLists.append(ParityCase(id: test.test, json: Array(vector.rules.utf8)))
            }
        }
        var statusCases: [ParityCase] = []
        for vector in file.urlFilterParseStatusVectors {
            guard let expected = ParityExpectation(vector) else {
                throw ValidationError("\(path): vector \(vector.test) names an unknown status \(vector.expectedStatus)")
            }
            statusCases.append(ParityCase.pattern(vector.pattern, id: vector.test, expected: expected))
        }
        var seenPatterns = Set<String>()
        let matchPatterns = file.urlFilterMatchVectors.filter { $0.caseSensitive != true && seenPatterns.insert($0.pattern).inserted }
        return [
            (name + "compile-error vectors", compileCases), (name + "request vectors' lists", requestLists),
            (name + "parse-status vectors", statusCases), (name + "match vectors' patterns", matchPatterns.map { ParityCase.pattern($0.pattern, id: $0.test) }),
        ]
    }

    /// `--generated N`: N distinct generated patterns, in the order the seed gives them.
    func generatedParityCases() -> [ParityCase] {
        let generator = PatternGenerator(defectPercent: 33)
        var random = FuzzRandom(seed: seed)
        var seen = Set<String>()
        var cases: [ParityCase] = []
        var draws = 0
        while cases.count < generated && draws < generated * 20 {
            draws += 1
            let pattern = generator.pattern(&random).source
            if seen.insert(pattern).inserted { cases.append(ParityCase.pattern(pattern, id: "seed \(seed) pattern \(cases.count + 1)")) }
        }
        return cases
    }

    /// A batch's result, its first differences and wrong expectations with their excerpts.
    func printParity(_ result: ParityResult) {
        print(result.text)
        for difference in result.differences.prefix(reproductions * 4) {
            print("  \(difference.quirk == nil ? "DIFFERENT" : "quirk") \(difference.id): ours \(difference.ours); WebKit \(difference.webKit)")
            print("    \(difference.excerpt)")
            if let quirk = difference.quirk { print("    \(quirk)") }
        }
        for wrong in result.wrongExpectations.prefix(reproductions * 4) {
            print("  \(wrong.quirk == nil ? "NOT WEBKIT'S ANSWER" : "quirk") \(wrong.id): the vector says \(wrong.expected); WebKit \(wrong.webKit)")
            print("    \(wrong.excerpt)")
            if let quirk = wrong.quirk { print("    \(quirk)") }
        }
    }
}
