// `blockbench match RULES.json|FILE`: the actions of a rule list (compiled here, or a compiled
// file, validated before use) for requests given as flags or as a JSON-lines file.
// Tested by BlockBenchCLITests/CLITests.swift (CompileAndMatchCommandTests).

import ArgumentParser
import ContentBlocker
import ContentRuleList
import Foundation
import Corpus
import RequestContext

struct MatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "match",
        abstract: "Print the actions a rule list takes for requests.",
        discussion: """
            Requests come from the flags (one request) or from --requests, a JSON-lines file of objects
            {"url":..., "mainDocumentURL":..., "frameURL":..., "resourceType":..., "mainFrameContext":..., "requestMethod":...}
            where only url is required (the main document and the frame default to the url, the type to
            top-document). Resource types: \(ResourceTypes.requestNames.map(\.name).joined(separator: ", ")).
            """)

    @Argument(help: "A rule list (JSON, optionally gzip-compressed) or a file written by `blockbench compile`.")
    var rules: String

    @Option(help: "The URL requested.")
    var url: String?

    @Option(help: "The page's URL (default: the URL requested).")
    var mainDocumentURL: String?

    @Option(help: "The URL of the frame issuing the request (default: the page's URL).")
    var frameURL: String?

    @Option(help: "The resource type (default: top-document).")
    var resourceType = "top-document"

    @Flag(help: "The request comes from the main frame (load-context top-frame).")
    var mainFrame = false

    @Option(help: "The HTTP method.")
    var method: String?

    @Option(help: "A JSON-lines file of requests.")
    var requests: String?

    @Flag(help: "Also print the rules that matched each request.")
    var rulesMatched = false

    @OptionGroup var safari: SafariOption

    @Option(help: "The corpora folder (for the Safari profiles).")
    var corpora = "Corpora"

    struct RequestLine: Decodable {
        var url: String
        var mainDocumentURL: String?
        var frameURL: String?
        var resourceType: String?
        var mainFrameContext: Bool?
        var requestMethod: String?
    }

    func run() throws {
        let compiled = try RuleListInput.load(rules, profile: try safari.profile(corpora: corpora))
        var lines: [RequestLine] = []
        if let requests {
            let text = String(decoding: try CorpusFiles.read(requests), as: UTF8.self)
            for (number, line) in CorpusFiles.lines(text).enumerated()
            where !line.allSatisfy(\.isWhitespace) {
                do {
                    lines.append(try JSONDecoder().decode(RequestLine.self, from: Data(line.utf8)))
                } catch {
                    throw ValidationError("\(requests):\(number + 1): not a request object: \(error)")
                }
            }
        } else if let url {
            lines.append(RequestLine(
                url: url, mainDocumentURL: mainDocumentURL, frameURL: frameURL, resourceType: resourceType,
                mainFrameContext: mainFrame, requestMethod: method))
        } else {
            throw ValidationError("give --url or --requests")
        }
        let evaluator = Evaluator(compiled)
        for line in lines {
            let request = try Self.request(line)
            let outcome = evaluator.outcome(for: request)
            var text = "\(request.url.string): " + (outcome.actions.isEmpty ? "no action" : outcome.actions.map(Self.describe).joined(separator: ", "))
            if !outcome.appliesGlobalStyleSheet { text += " (no global style sheet)" }
            if rulesMatched { text += "; rules " + outcome.matchingRules.map(\.description).joined(separator: " ") }
            print(text)
        }
    }

    static func request(_ line: RequestLine) throws -> Request {
        let typeName = line.resourceType ?? "top-document"
        guard let type = ResourceTypes.requestNames.first(where: { $0.name == typeName })?.type else {
            throw ValidationError("unknown resource type \(typeName)")
        }
        var method: RequestMethod?
        if let name = line.requestMethod {
            guard let known = RequestMethod(rawValue: name.lowercased()) else { throw ValidationError("unknown method \(name)") }
            method = known
        }
        let main = line.mainDocumentURL ?? line.url
        return Request(
            url: CanonicalURL(line.url), mainDocumentURL: CanonicalURL(main), frameURL: CanonicalURL(line.frameURL ?? main),
            resourceType: type, isMainFrameContext: line.mainFrameContext ?? false, method: method)
    }

    static func describe(_ action: Action) -> String {
        switch action {
        case .cssDisplayNone(let selector): "css-display-none \"\(selector)\""
        case .notify(let notification): "notify \"\(notification)\""
        default: action.typeName
        }
    }
}
