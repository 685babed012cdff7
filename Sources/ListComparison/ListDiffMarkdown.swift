// ListDiffMarkdown: a ListDiff as a pull-request comment (`blockbench diff --markdown`): a summary
// table, then the changed requests, the Safari releases and the cost, each a table.
// Tested by ListComparisonTests/ListDiffTests.swift.

internal import Foundation
internal import SafariReleases
internal import TerminalText

extension ListDiff {
    public func markdown(maxItems: Int) -> String {
        var out = ["### Rule list diff: `\(old)` → `\(new)`", ""]
        out.append("**\(exitMeaning)** (exit \(exitCode)); Safari \(safari), \(requests.grouped) requests.")
        out += ["", "| request | old | new | rules | oracle |", "| --- | --- | --- | --- | --- |"]
        for change in changes.prefix(maxItems) {
            out.append("| \(cell(change.url)) (\(change.resourceType)) | \(effects(change.old)) | \(effects(change.new)) | \(cell(change.rules.map(\.text).joined(separator: "<br>"))) | \(change.oracleAgrees.map { $0 ? "agrees" : "**disagrees**" } ?? "") |")
        }
        if changes.count > maxItems { out.append("| … \(changes.count - maxItems) more | | | | |") }
        out += ["", "| Safari | old | new |", "| --- | --- | --- |"]
        for release in releases {
            out.append("| \(release.safari)\(release.lost ? " **lost**" : "") | \(verdict(release.old)) | \(verdict(release.new)) |")
        }
        out += markdownCost
        out.append("")
        out.append("Unused rules (new): \(unusedRules.count) (old: \(oldUnusedRules)). Redundant rules (new): \(redundant.count) (old: \(oldRedundant)).")
        if let split { out.append("Split over \(split.parts) content blockers: \(split.requestsChanged) requests change.") }
        return out.joined(separator: "\n")
    }

    var markdownCost: [String] {
        guard let oldCost, let newCost else { return [] }
        return [
            "", "| cost | old | new |", "| --- | --- | --- |",
            "| rules | \(oldCost.rules) | \(newCost.rules) |",
            "| bytes | \(oldCost.bytes) | \(newCost.bytes)\(byteGrowth.map { String(format: " (%+.1f%%)", $0) } ?? "") |",
            "| states | \(oldCost.states) | \(newCost.states)\(stateGrowth.map { String(format: " (%+.1f%%)", $0) } ?? "") |",
        ]
    }

    func effects(_ effects: [String]) -> String {
        effects.isEmpty ? "nothing" : cell(effects.joined(separator: ", "))
    }

    func verdict(_ verdict: SafariVerdict) -> String {
        verdict.compiles ? "compiles" : "rejects: \(cell(verdict.error ?? ""))"
    }

    func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|").replacingOccurrences(of: "\n", with: " ")
    }
}
