// The RULES argument of `blockbench match` and `blockbench profile`: a file written by `blockbench
// compile` (recognized by its label, validated before use) or a rule list's JSON (compiled here),
// gzip-compressed or not; a JSON list is read as the `--safari` release reads it.
// Tested by BlockBenchCLITests/CLITests.swift (CompileAndMatchCommandTests, through compile and
// match).

import ArgumentParser
import Search
import ContentBlocker
import ContentRuleList
import Corpus
import SafariReleases

enum RuleListInput {
    /// The compiled list of `path`. A file that is refused or a list that does not compile is
    /// printed as such, and the command exits 1.
    static func load(_ path: String, profile: SafariProfile = .newest) throws -> CompiledRuleList {
        let bytes = try CorpusFiles.read(path)
        if bytes.starts(with: CompiledFile.label) {
            do { return try CompiledRuleList(validating: bytes) } catch {
                print("\(path): refused: \(error)")
                throw ExitCode(1)
            }
        }
        do { return try ProfiledCompile.compile(json: bytes, profile: profile).0 } catch {
            print("\(path): \(error)")
            throw ExitCode(1)
        }
    }
}
