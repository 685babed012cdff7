// `blockbench dump`: every intermediate form, readable. So far the url-filter syntax tree;
// the NFA, DFA and bytecode forms join it as the engine grows.

import ArgumentParser
import URLFilterSyntax

struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print an intermediate form of a url-filter pattern.",
        discussion: """
            Forms: syntax (the parsed terms with their character sets and source spans).
            Exit 0 when WebKit accepts the pattern, 1 when it rejects it (the error is printed with a caret).
            """)

    enum Form: String, ExpressibleByArgument, CaseIterable {
        case syntax
    }

    @Argument(help: "The form to print: \(Form.allCases.map(\.rawValue).joined(separator: ", ")).")
    var form: Form

    @Argument(help: "A url-filter pattern.")
    var pattern: String

    @Flag(help: "Read the pattern as url-filter-is-case-sensitive.")
    var caseSensitive = false

    func run() throws {
        switch URLFilterParser.parse(pattern, isCaseSensitive: caseSensitive) {
        case .success(let filter):
            print(filter.dump(), terminator: "")
        case .failure(let error):
            print(error.description)
            throw ExitCode(1)
        }
    }
}
