// `blockbench dump FORM INPUT`: every intermediate form, readable. INPUT is a url-filter pattern
// or a rule list file (its url-filters, in list order; identical ones once).
// Tested by BlockBenchCLITests/CLITests.swift (DumpCommandTests).

import ArgumentParser
import Automata
import ContentBlocker
import ContentRuleList
import Foundation
import Corpus
import URLFilterSyntax

struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print an intermediate form of a url-filter pattern or a rule list.",
        discussion: """
            Forms: syntax (the parsed terms with their character sets and source spans; patterns only),
            nfa (numbered states and edges), dfa (byte classes and the minimal DFAs' states),
            bytecode (the compiled file disassembled: sections, rules, actions, programs).
            INPUT is a rule list when a file of that name exists, a pattern otherwise.
            Exit 0 on success, 1 when WebKit rejects the pattern or the list.
            """)

    enum Form: String, ExpressibleByArgument, CaseIterable {
        case syntax, nfa, dfa, bytecode
    }

    @Argument(help: "The form to print: \(Form.allCases.map(\.rawValue).joined(separator: ", ")).")
    var form: Form

    @Argument(help: "A url-filter pattern, or a rule list file.")
    var input: String

    @Flag(help: "Read the pattern as url-filter-is-case-sensitive.")
    var caseSensitive = false

    func run() throws {
        let isFile = FileManager.default.fileExists(atPath: input)
        var filters: [URLFilter] = []
        var listBytes: [UInt8]
        if isFile {
            listBytes = try CorpusFiles.read(input)
            guard form != .syntax else { throw ValidationError("the syntax form takes a pattern") }
            switch RuleListParser.parse(listBytes) {
            case .failure(let error):
                print("\(input): \(error)")
                throw ExitCode(1)
            case .success(let list):
                var seen = Set<String>()
                for rule in list.rules where seen.insert("\(rule.trigger.urlFilterIsCaseSensitive) \(rule.trigger.urlFilter)").inserted {
                    filters.append(try URLFilterParser.parse(rule.trigger.urlFilter, isCaseSensitive: rule.trigger.urlFilterIsCaseSensitive).get())
                }
            }
        } else {
            switch URLFilterParser.parse(input, isCaseSensitive: caseSensitive) {
            case .success(let filter): filters = [filter]
            case .failure(let error):
                print(error.description)
                throw ExitCode(1)
            }
            let rule = ["action": ["type": "block"], "trigger": ["url-filter": input, "url-filter-is-case-sensitive": caseSensitive]] as [String: Any]
            listBytes = [UInt8](try JSONSerialization.data(withJSONObject: [rule]))
        }
        let patterns = filters.enumerated().filter { !$0.element.matchesEverything }.map { (id: PatternID($0.offset), filter: $0.element) }
        for (index, filter) in filters.enumerated() where filter.matchesEverything || isFile && form != .bytecode {
            print("p\(index) = \(filter.source)\(filter.matchesEverything ? " (matches everything: in no automaton)" : "")")
        }
        switch form {
        case .syntax:
            print(filters[0].dump(), terminator: "")
        case .nfa:
            print(NFA(patterns: patterns).dump(), terminator: "")
        case .dfa:
            var timer = PhaseTimer()
            let partition = DFAPartitioner.build(patterns, phaseTimer: &timer)
            for failure in partition.failures { print("not built: \(failure)") }
            let titled = partition.dfas.count > 1 || !partition.stages.isEmpty
            for (index, dfa) in partition.dfas.enumerated() {
                if titled { print("-- DFA \(index)") }
                print(dfa.dump(), terminator: "")
            }
            for (index, stage) in partition.stages.enumerated() {
                print("-- stage \(index) prefix (p0: its suffixes start where it reports)")
                print(stage.prefix.dump(), terminator: "")
                for (suffixIndex, suffix) in stage.suffixes.enumerated() {
                    print("-- stage \(index) suffix \(suffixIndex) (anchored where the prefix ended)")
                    print(suffix.dump(), terminator: "")
                }
            }
        case .bytecode:
            do {
                print(try RuleListCompiler.compile(json: listBytes).0.disassemble(), terminator: "")
            } catch {
                print("\(error)")
                throw ExitCode(1)
            }
        }
    }
}
