// ListDiffText: a ListDiff as `blockbench diff` prints it: text for a terminal, Markdown for a
// pull request (tables), and the exit code a CI job reads. Tested by
// ListComparisonTests/ListDiffTests.swift.

internal import Foundation
internal import TerminalText

extension ListDiff {
    /// What a CI job reads: 2 the engine and the oracle disagree on a change (nothing else can be
    /// trusted), 4 a Safari release lost, 5 cost beyond `--max-growth`, 3 verdicts changed, 0 none.
    public var exitCode: Int32 {
        if oracleDisagreements > 0 { return 2 }
        if !releasesLost.isEmpty { return 4 }
        if costExceeded { return 5 }
        if !changes.isEmpty { return 3 }
        return 0
    }

    public var exitMeaning: String {
        switch exitCode {
        case 2: "the engine and the PCRE2 oracle disagree on a changed request"
        case 4: "Safari \(releasesLost.joined(separator: ", ")) lost"
        case 5: "cost grew beyond \(maxGrowth.map { "\($0)" } ?? "")%"
        case 3: "verdicts changed"
        default: "no change in verdicts"
        }
    }

    public func text(maxItems: Int) -> String {
        var out = ["diff \(old) -> \(new) (Safari \(safari); \(requests.grouped) requests of \(requestSets.joined(separator: ", ")))"]
        out.append("verdicts: \(changes.count.grouped) request\(changes.count == 1 ? "" : "s") change")
        for change in changes.prefix(maxItems) { out += change.textLines.map { "  " + $0 } }
        if changes.count > maxItems { out.append("  … \((changes.count - maxItems).grouped) more (--json lists all)") }
        out.append("safari:")
        for release in releases { out.append("  " + release.text) }
        out += costLines
        out.append("unused rules (new): \(unusedRules.count.grouped) of \((newCost?.rules ?? 0).grouped) triggered by no request (old: \(oldUnusedRules.grouped))")
        for rule in unusedRules.prefix(maxItems) { out.append("  " + rule.text) }
        out.append("redundant rules (new): \(redundant.count.grouped) (old: \(oldRedundant.grouped))")
        for rule in redundant.prefix(maxItems) { out.append("  \(rule.kind.rawValue): \(rule.rule.text) by \(rule.by.text)") }
        if let split { out += split.textLines(maxItems: maxItems) }
        out.append("exit \(exitCode): \(exitMeaning)")
        return out.joined(separator: "\n")
    }

    var costLines: [String] {
        guard let oldCost, let newCost else { return ["cost: a list does not compile for Safari \(safari)"] }
        let rows: [(String, String, String, Double?)] = [
            ("rules", oldCost.rules.grouped, newCost.rules.grouped, nil),
            ("JSON bytes", oldCost.jsonBytes.grouped, newCost.jsonBytes.grouped, nil),
            ("bytes", oldCost.bytes.grouped, newCost.bytes.grouped, byteGrowth),
            ("states", oldCost.states.grouped, newCost.states.grouped, stateGrowth),
            ("compile s", String(format: "%.3f", oldCost.compileSeconds), String(format: "%.3f", newCost.compileSeconds), nil),
        ]
        return ["cost (BlockBench's compile)        old           new"] + rows.map { name, was, now, growth in
            "  " + name.padding(toLength: 12, withPad: " ", startingAt: 0) + was.leftPadded(16) + now.leftPadded(14)
                + (growth.map { String(format: "  %+.1f%%", $0) } ?? "")
        }
    }
}

extension RequestChange {
    var textLines: [String] {
        var lines = ["\(requestSet) #\(row): \(url) (\(resourceType), page \(mainDocumentURL))"]
        lines.append("  old: \(old.isEmpty ? "nothing" : old.joined(separator: ", "))")
        lines.append("  new: \(new.isEmpty ? "nothing" : new.joined(separator: ", "))")
        if !rules.isEmpty { lines.append("  rules: " + rules.map(\.text).joined(separator: "; ")) }
        if let oracleAgrees { lines.append("  oracle: " + (oracleAgrees ? "agrees" : "DISAGREES")) }
        return lines
    }
}

extension ReleaseVerdicts {
    var text: String {
        let mark = lost ? "  LOST" : gained ? "  gained" : ""
        return "Safari " + safari.padding(toLength: 6, withPad: " ", startingAt: 0)
            + "old " + (old.compiles ? "compiles" : "rejects (\(old.error ?? ""))")
            + " | new " + (new.compiles ? "compiles" : "rejects (\(new.error ?? ""))") + mark
    }
}

extension SplitEffect {
    func textLines(maxItems: Int) -> [String] {
        var out = ["split over \(parts) content blockers: \(requestsChanged.grouped) requests change; \(ignoreRulesCut.grouped) ignore-previous-rules rules no longer reach the parts before theirs"]
        for change in changes.prefix(maxItems) { out += change.textLines.map { "  " + $0 } }
        return out
    }
}
