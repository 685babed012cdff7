// ViewFindingWriter.swift — Fuzzing
//
// A difference between BlockBench and a web view, reduced and kept: the pages cut to the one that
// shows it, its requests and elements to the one that differs, then rules dropped one at a time
// while the difference stays (each try is a web view pass). The result is written as a web-view
// vector (Corpus/WebViewVector.swift) holding what WebKit did, to Corpora/regressions/ with an
// entry in the manifest, so that `conform --against webkit-view` replays it in WebKit and the
// vector runner checks BlockBench's requests in every test run.

import Foundation
public import Conformance
public import Corpus
public import Engines

public struct ViewFindingWriter {
    public var conformance: WebViewConformance
    public var writer: RegressionWriter

    public init(conformance: WebViewConformance, writer: RegressionWriter) {
        self.conformance = conformance
        self.writer = writer
    }

    /// Reduces the difference `difference` of `rules` on `plan`, then writes it; returns the
    /// vector file's path (nil when an identical one exists) and the vector.
    public func reduceAndWrite(
        rules: String, plan: ViewPlan, difference: WebViewDifference, origin: String
    ) throws -> (path: String?, vector: WebViewVector) {
        var current = vectorPages(plan)
        var rules = Self.rules(of: rules)
        func differs(_ pages: [WebViewVector.Page], _ rules: [Any]) throws -> WebViewResult? {
            let vector = WebViewVector(test: "", rules: Self.json(rules), pages: pages)
            var recording = conformance
            recording.recordsVerdicts = true
            // The difference was seen twice already; each step of the reduction loads once.
            recording.rechecksDifferences = false
            let result = try recording.run(plan: vector.plan, lists: [(name: "reduction", json: Array(vector.rules.utf8))])[0]
            return result.differences.contains { $0.what == difference.what && $0.url == difference.url } ? result : nil
        }
        // The page that shows it, alone (then with the page before it, which sets its frame URL).
        let page = difference.page
        for candidate in [[current[page]], page > 0 ? [current[page - 1], current[page]] : []] where !candidate.isEmpty {
            if try differs(candidate, rules) != nil {
                current = candidate
                break
            }
        }
        // Its requests and elements cut to the one that differs, or else dropped one at a time.
        let last = current.count - 1
        var cut = current
        cut[last].requests = cut[last].requests.filter { difference.row >= 0 && $0.url == difference.url }
        cut[last].elements = cut[last].elements.filter { difference.row < 0 && $0.selector == difference.url }
        if try differs(cut, rules) != nil {
            current = cut
        } else {
            for index in current[last].requests.indices.reversed() where current[last].requests[index].url != difference.url {
                var fewer = current
                fewer[last].requests.remove(at: index)
                if try differs(fewer, rules) != nil { current = fewer }
            }
            for index in current[last].elements.indices.reversed() where current[last].elements[index].selector != difference.url {
                var fewer = current
                fewer[last].elements.remove(at: index)
                if try differs(fewer, rules) != nil { current = fewer }
            }
        }
        // Rules, one at a time.
        var index = rules.count - 1
        while index >= 0 && rules.count > 1 {
            var fewer = rules
            fewer.remove(at: index)
            if try differs(current, fewer) != nil { rules = fewer }
            index -= 1
        }
        guard let final = try differs(current, rules) else {
            throw WebViewError.failed("the difference went away when the pages were loaded again: not reduced")
        }
        // What WebKit did, as the vector's expectation.
        var pages = current
        for verdict in final.verdicts {
            if verdict.type == "element" {
                if let at = pages[verdict.page].elements.firstIndex(where: { $0.selector == verdict.url }) { pages[verdict.page].elements[at].webKit = verdict.webKit }
            } else if let at = pages[verdict.page].requests.firstIndex(where: { $0.url == verdict.url }) {
                pages[verdict.page].requests[at].webKit = verdict.webKit
            }
        }
        for index in pages.indices {
            pages[index].requests.removeAll { $0.webKit.isEmpty }
            pages[index].elements.removeAll { $0.webKit.isEmpty }
        }
        let ours = final.differences.first { $0.what == difference.what && $0.url == difference.url }
        let vector = WebViewVector(
            test: "web view: \(difference.what) \(difference.url): WebKit \(ours?.webKit ?? difference.webKit), BlockBench \(ours?.ours ?? difference.ours) (\(origin))",
            rules: Self.json(rules), pages: pages)
        var file = VectorFile()
        file.webViewVectors = [vector]
        return (try writer.write(file, stem: "webview", origin: origin), vector)
    }

    func vectorPages(_ plan: ViewPlan) -> [WebViewVector.Page] {
        plan.loads.map { load in
            WebViewVector.Page(
                url: load.url,
                requests: load.subresources.map { .init(url: $0.url, type: $0.kind?.webRequestType ?? "other", webKit: "") },
                elements: (load.targetSelectors ?? load.targets.map(\.selector)).map { .init(selector: $0, webKit: "") })
        }
    }

    static func rules(of json: String) -> [Any] {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any]) ?? []
    }

    static func json(_ rules: [Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: rules, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
