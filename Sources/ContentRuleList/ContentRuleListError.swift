// Every error WebKit gives a rule list, with WebKit's name and message, and where it is.
// docs/SEMANTICS.md §1; redirect and modify-headers errors as WebKit 2.50 names them.
// Tested by ContentRuleListTests/RuleListParserTests.swift (one case per error name at least).

public import URLFilterSyntax

/// WebKit's error names (ContentExtensionError), with its messages.
public enum ContentRuleListErrorCode: String, CaseIterable, Sendable, Codable {
    case jsonInvalid = "JSONInvalid"
    case jsonTopLevelStructureNotAnArray = "JSONTopLevelStructureNotAnArray"
    case jsonInvalidRule = "JSONInvalidRule"
    case jsonContainsNoRules = "JSONContainsNoRules"
    case jsonTooManyRules = "JSONTooManyRules"
    case jsonInvalidTrigger = "JSONInvalidTrigger"
    case jsonInvalidURLFilterInTrigger = "JSONInvalidURLFilterInTrigger"
    case jsonInvalidTriggerFlagsArray = "JSONInvalidTriggerFlagsArray"
    case jsonInvalidStringInTriggerFlagsArray = "JSONInvalidStringInTriggerFlagsArray"
    case jsonInvalidConditionList = "JSONInvalidConditionList"
    case jsonDomainNotLowerCaseASCII = "JSONDomainNotLowerCaseASCII"
    case jsonMultipleConditions = "JSONMultipleConditions"
    case jsonInvalidRequestMethod = "JSONInvalidRequestMethod"
    case jsonInvalidAction = "JSONInvalidAction"
    case jsonInvalidActionType = "JSONInvalidActionType"
    case jsonInvalidCSSDisplayNoneActionType = "JSONInvalidCSSDisplayNoneActionType"
    case jsonInvalidNotification = "JSONInvalidNotification"
    case jsonInvalidRegex = "JSONInvalidRegex"
    case jsonRedirectMissing = "JSONRedirectMissing"
    case jsonRedirectExtensionPathDoesNotStartWithSlash = "JSONRedirectExtensionPathDoesNotStartWithSlash"
    case jsonRedirectURLSchemeInvalid = "JSONRedirectURLSchemeInvalid"
    case jsonRedirectToJavaScriptURL = "JSONRedirectToJavaScriptURL"
    case jsonRedirectURLInvalid = "JSONRedirectURLInvalid"
    case jsonRedirectInvalidType = "JSONRedirectInvalidType"
    case jsonRedirectInvalidPort = "JSONRedirectInvalidPort"
    case jsonRedirectInvalidQuery = "JSONRedirectInvalidQuery"
    case jsonRedirectInvalidFragment = "JSONRedirectInvalidFragment"
    case jsonRemoveParametersNotStringArray = "JSONRemoveParametersNotStringArray"
    case jsonAddOrReplaceParametersNotArray = "JSONAddOrReplaceParametersNotArray"
    case jsonAddOrReplaceParametersKeyValueNotADictionary = "JSONAddOrReplaceParametersKeyValueNotADictionary"
    case jsonAddOrReplaceParametersKeyValueMissingKeyString = "JSONAddOrReplaceParametersKeyValueMissingKeyString"
    case jsonAddOrReplaceParametersKeyValueMissingValueString = "JSONAddOrReplaceParametersKeyValueMissingValueString"
    case jsonModifyHeadersNotArray = "JSONModifyHeadersNotArray"
    case jsonModifyHeadersInfoNotADictionary = "JSONModifyHeadersInfoNotADictionary"
    case jsonModifyHeadersMissingOperation = "JSONModifyHeadersMissingOperation"
    case jsonModifyHeadersInvalidOperation = "JSONModifyHeadersInvalidOperation"
    case jsonModifyHeadersMissingHeader = "JSONModifyHeadersMissingHeader"
    case jsonModifyHeadersMissingValue = "JSONModifyHeadersMissingValue"
    case jsonModifyHeadersInvalidPriority = "JSONModifyHeadersInvalidPriority"

    public var name: String { rawValue }

    public var message: String {
        switch self {
        case .jsonInvalid: "Failed to parse the JSON String."
        case .jsonTopLevelStructureNotAnArray: "Invalid input, the top level structure is not an array."
        case .jsonInvalidRule: "Invalid rule."
        case .jsonContainsNoRules: "Empty extension."
        case .jsonTooManyRules: "Too many rules in JSON array."
        case .jsonInvalidTrigger: "Invalid trigger object."
        case .jsonInvalidURLFilterInTrigger: "Invalid url-filter object."
        case .jsonInvalidTriggerFlagsArray: "Invalid trigger flags array."
        case .jsonInvalidStringInTriggerFlagsArray: "Invalid string in the trigger flags array."
        case .jsonInvalidConditionList: "Invalid list of if-domain, unless-domain, if-top-url, or unless-top-url conditions."
        case .jsonDomainNotLowerCaseASCII: "Domains must be lower case ASCII. Use punycode to encode non-ASCII characters."
        case .jsonMultipleConditions: "A trigger cannot have more than one condition (if-domain, unless-domain, if-top-url, or unless-top-url)"
        case .jsonInvalidRequestMethod: "The request-method string must be \"get\", \"head\", \"options\", \"trace\", \"put\", \"delete\", \"post\", \"patch\", or \"connect\"."
        case .jsonInvalidAction: "Invalid action object."
        case .jsonInvalidActionType: "Invalid action type."
        case .jsonInvalidCSSDisplayNoneActionType: "Invalid css-display-none action type. Requires a selector."
        case .jsonInvalidNotification: "A notify action must have a string notification"
        case .jsonInvalidRegex: "Invalid or unsupported regular expression."
        case .jsonRedirectMissing: "A redirect action must have a redirect member"
        case .jsonRedirectExtensionPathDoesNotStartWithSlash: "A redirect extension path must start with a slash"
        case .jsonRedirectURLSchemeInvalid: "A redirect url scheme must be a valid scheme"
        case .jsonRedirectToJavaScriptURL: "A redirect url can't have a scheme of javascript"
        case .jsonRedirectURLInvalid: "A redirect url must be valid"
        case .jsonRedirectInvalidType: "A redirect must have a member named \"extension-path\", \"regex-substitution\", \"transform\" or \"url\""
        case .jsonRedirectInvalidPort: "A redirect port must be either empty or a number between 0 and 65535, inclusive"
        case .jsonRedirectInvalidQuery: "A redirect query must either be empty or begin with '?'"
        case .jsonRedirectInvalidFragment: "A redirect fragment must either be empty or begin with '#'"
        case .jsonRemoveParametersNotStringArray: "A remove-parameters value must be an array of strings"
        case .jsonAddOrReplaceParametersNotArray: "An add-or-replace-parameters value must be an array"
        case .jsonAddOrReplaceParametersKeyValueNotADictionary: "Members of the add-or-replace-parameters array must be a dictionary"
        case .jsonAddOrReplaceParametersKeyValueMissingKeyString: "Members of the add-or-replace-parameters array must contain a key that is a string"
        case .jsonAddOrReplaceParametersKeyValueMissingValueString: "Members of the add-or-replace-parameters array must contain a value that is a string"
        case .jsonModifyHeadersNotArray: "A headers member must be an array"
        case .jsonModifyHeadersInfoNotADictionary: "A modify-headers operation must be a dictionary"
        case .jsonModifyHeadersMissingOperation: "A modify-headers operation must have an operation"
        case .jsonModifyHeadersInvalidOperation: "A modify-headers operation must have an operation that is either \"set\", \"append\", or \"remove\""
        case .jsonModifyHeadersMissingHeader: "A modify-headers operation must have a header"
        case .jsonModifyHeadersMissingValue: "A modify-headers operation of \"set\" or \"append\" must have a value"
        case .jsonModifyHeadersInvalidPriority: "A priority must be a positive integer"
        }
    }
}

/// A rule list WebKit rejects: the error, and where it is.
public struct ContentRuleListError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: ContentRuleListErrorCode
    /// The index of the rule in the JSON array, when the error is in one rule.
    public var ruleIndex: Int?
    /// The key path inside the rule: `trigger.if-domain[3]`.
    public var keyPath: String?
    /// More than WebKit says: the JSON syntax error, or what was found instead.
    public var detail: String?
    /// For JSONInvalidRegex: the pattern's own status, message and position.
    public var patternError: URLFilterParseError?

    public init(_ code: ContentRuleListErrorCode, ruleIndex: Int? = nil, keyPath: String? = nil, detail: String? = nil, patternError: URLFilterParseError? = nil) {
        self.code = code
        self.ruleIndex = ruleIndex
        self.keyPath = keyPath
        self.detail = detail
        self.patternError = patternError
    }

    /// `rule 1204: trigger.if-domain[3]: JSONDomainNotLowerCaseASCII: Domains must be ...`
    public var description: String {
        var parts: [String] = []
        if let ruleIndex { parts.append("rule \(ruleIndex)") }
        if let keyPath { parts.append(keyPath) }
        parts.append(code.name)
        var text = parts.joined(separator: ": ") + ": " + code.message
        if let detail { text += " (\(detail))" }
        if let patternError {
            text += "\n" + patternError.message + "\n" + patternError.caretDiagram
        }
        return text
    }
}
