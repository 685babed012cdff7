// TEMPORARY STUB by the lead engineer so the rest of the package builds while the real validator
// is written. The helper writing CSSSelectorSyntax: delete this file when your files define
// CSSSelectorValidator and CSSSelectorDiagnostic.
public struct CSSSelectorDiagnostic: Error, Equatable, Sendable {
    public let offset: Int
    public let message: String
}
public enum CSSSelectorValidator {
    public static func validate(_ selector: String) -> CSSSelectorDiagnostic? {
        selector.isEmpty ? CSSSelectorDiagnostic(offset: 0, message: "empty selector") : nil
    }
}
