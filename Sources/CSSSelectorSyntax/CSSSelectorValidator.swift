// CSSSelectorValidator.swift — CSSSelectorSyntax
//
// Public entry point: decides whether WebKit (2.50, WebKitGTK 2.50.6 / Safari 26 era) accepts a
// `css-display-none` selector of a content-blocker rule. WebKit parses the selector as a
// <selector-list> (CSS Syntax Level 3 tokenizer, Selectors Level 4 grammar as WebKit implements
// it) in an author context with no namespace prefixes declared, and silently drops the rule when
// that fails. See CSSTokenizer.swift and CSSSelectorParser.swift for the grammar, and
// CSSPseudoSelectors.swift for the known pseudo-classes and pseudo-elements, and
// CSSPlainSelectorList.swift for the selectors accepted without tokenizing.
//
// Tested by Tests/CSSSelectorSyntaxTests/WebKitVerdictTests.swift (verdicts produced by the real
// WebKit through Benchmarks/Peers/WebKit/webkit-compile) and CSSSelectorValidatorTests.swift.

/// Why WebKit would reject a selector.
public struct CSSSelectorDiagnostic: Error, Equatable, Sendable {
    /// UTF-8 byte offset into the selector where the problem was found.
    public let offset: Int
    /// A short explanation, e.g. "unknown pseudo-class ':-abp-has'".
    public let message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }
}

public enum CSSSelectorValidator {
    /// Returns nil when WebKit accepts `selector` as a css-display-none selector, or the reason it
    /// would drop the rule.
    public static func validate(_ selector: String) -> CSSSelectorDiagnostic? {
        // Most selectors of real lists are plain: recognised without tokens (CSSPlainSelectorList).
        if CSSPlainSelectorList.accepts(selector) { return nil }
        var parser = CSSSelectorParser(selector)
        do {
            try parser.parse()
            return nil
        } catch {
            return CSSSelectorDiagnostic(offset: Int(error.offset), message: error.message)
        }
    }
}
