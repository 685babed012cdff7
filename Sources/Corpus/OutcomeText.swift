// OutcomeText.swift — Corpus
//
// How vector files and fuzz findings write what they compare: an outcome in one line, and strings
// quoted so that every byte is printable.
// Tested by BlockBenchCLITests (VectorRunnerTests: vectors with an `expectedOutcome`) and
// FuzzingTests.

public import RequestContext

/// An outcome in one line: `[block, css-display-none ".a,.b"] rules [3, 17] style sheet yes`.
/// The detailed form request vectors of fuzz regressions are compared in (`expectedOutcome`).
public enum OutcomeText {
    public static func describe(_ outcome: MatchOutcome) -> String {
        let actions = outcome.actions.map { action -> String in
            switch action {
            case .cssDisplayNone(let selector): "css-display-none \(Quote.text(selector))"
            case .notify(let notification): "notify \(Quote.text(notification))"
            default: action.typeName
            }
        }
        return "[\(actions.joined(separator: ", "))] rules \(outcome.matchingRules.map(\.rawValue)) style sheet "
            + (outcome.appliesGlobalStyleSheet ? "yes" : "no")
    }
}

/// Printable quoting: `"a\x01b"`.
public enum Quote {
    public static func text(_ text: String) -> String { bytes(Array(text.utf8)) }

    public static func bytes(_ bytes: [UInt8]) -> String {
        var out = "\""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out += "\\\""
            case UInt8(ascii: "\\"): out += "\\\\"
            case 0x20...0x7E: out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "\\x" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return out + "\""
    }
}
