// FuzzRuleList.swift — Fuzzing
//
// The list level's model: rules (a url-filter tree, flags, a condition, an action) and requests,
// written out as the JSON a content blocker ships and as `Request` values. Shrinking edits this
// model, so a reduced list is valid JSON by construction.
// Tested by FuzzingTests.

internal import ContentRuleList
public import RequestContext

public enum FuzzCondition: Hashable, Sendable {
    case ifDomain([String])
    case unlessDomain([String])
    case ifTopURL([FuzzPattern])
    case unlessTopURL([FuzzPattern])
    case ifFrameURL([FuzzPattern])
    case unlessFrameURL([FuzzPattern])

    var key: String {
        switch self {
        case .ifDomain: "if-domain"
        case .unlessDomain: "unless-domain"
        case .ifTopURL: "if-top-url"
        case .unlessTopURL: "unless-top-url"
        case .ifFrameURL: "if-frame-url"
        case .unlessFrameURL: "unless-frame-url"
        }
    }

    var patterns: [FuzzPattern] {
        switch self {
        case .ifTopURL(let patterns), .unlessTopURL(let patterns), .ifFrameURL(let patterns), .unlessFrameURL(let patterns): patterns
        case .ifDomain, .unlessDomain: []
        }
    }

    func with(patterns: [FuzzPattern]) -> FuzzCondition {
        switch self {
        case .ifTopURL: .ifTopURL(patterns)
        case .unlessTopURL: .unlessTopURL(patterns)
        case .ifFrameURL: .ifFrameURL(patterns)
        case .unlessFrameURL: .unlessFrameURL(patterns)
        case .ifDomain, .unlessDomain: self
        }
    }
}

public enum FuzzAction: Hashable, Sendable {
    case block
    case blockCookies
    case cssDisplayNone(String)
    case ignorePreviousRules
    case ignoreFollowingRules
    case makeHTTPS
    case notify(String)
}

public struct FuzzRule: Hashable, Sendable {
    public var urlFilter: FuzzPattern
    public var resourceTypes: [String] = []
    public var loadTypes: [String] = []
    public var loadContexts: [String] = []
    public var requestMethod: String?
    public var condition: FuzzCondition?
    public var action: FuzzAction = .block

    public init(urlFilter: FuzzPattern) { self.urlFilter = urlFilter }
}

public struct FuzzRuleList: Hashable, Sendable {
    public var rules: [FuzzRule]

    public init(rules: [FuzzRule]) { self.rules = rules }

    /// The list as JSON text, one rule a line, keys in a fixed order.
    public var json: String {
        "[" + rules.map(Self.json).joined(separator: ",\n ") + "]"
    }

    static func json(_ rule: FuzzRule) -> String {
        var trigger = ["\"url-filter\":" + JSONText.string(rule.urlFilter.source)]
        if rule.urlFilter.caseSensitive { trigger.append("\"url-filter-is-case-sensitive\":true") }
        func list(_ values: [String]) -> String { "[" + values.map(JSONText.string).joined(separator: ",") + "]" }
        if !rule.resourceTypes.isEmpty { trigger.append("\"resource-type\":" + list(rule.resourceTypes)) }
        if !rule.loadTypes.isEmpty { trigger.append("\"load-type\":" + list(rule.loadTypes)) }
        if !rule.loadContexts.isEmpty { trigger.append("\"load-context\":" + list(rule.loadContexts)) }
        if let method = rule.requestMethod { trigger.append("\"request-method\":" + JSONText.string(method)) }
        if let condition = rule.condition {
            switch condition {
            case .ifDomain(let domains), .unlessDomain(let domains):
                trigger.append("\"\(condition.key)\":" + list(domains))
            case .ifTopURL(let patterns), .unlessTopURL(let patterns), .ifFrameURL(let patterns), .unlessFrameURL(let patterns):
                trigger.append("\"\(condition.key)\":" + list(patterns.map(\.source)))
                // One flag for all the condition's patterns: the first pattern's.
                if patterns.first?.caseSensitive == true {
                    let isFrame = condition.key.hasSuffix("frame-url")
                    trigger.append(isFrame ? "\"frame-url-filter-is-case-sensitive\":true" : "\"top-url-filter-is-case-sensitive\":true")
                }
            }
        }
        let action: String
        switch rule.action {
        case .block: action = "{\"type\":\"block\"}"
        case .blockCookies: action = "{\"type\":\"block-cookies\"}"
        case .cssDisplayNone(let selector): action = "{\"type\":\"css-display-none\",\"selector\":" + JSONText.string(selector) + "}"
        case .ignorePreviousRules: action = "{\"type\":\"ignore-previous-rules\"}"
        case .ignoreFollowingRules: action = "{\"type\":\"ignore-following-rules\"}"
        case .makeHTTPS: action = "{\"type\":\"make-https\"}"
        case .notify(let notification): action = "{\"type\":\"notify\",\"notification\":" + JSONText.string(notification) + "}"
        }
        return "{\"trigger\":{" + trigger.joined(separator: ",") + "},\"action\":" + action + "}"
    }

    /// Rules, url-filter nodes and flags: what shrinking reduces.
    public var size: Int {
        rules.reduce(0) { total, rule in
            total + 1 + rule.urlFilter.size + rule.resourceTypes.count + rule.loadTypes.count + rule.loadContexts.count
                + (rule.requestMethod == nil ? 0 : 1) + (rule.condition == nil ? 0 : 1 + rule.condition!.patterns.reduce(0) { $0 + $1.size })
        }
    }
}

/// A request in the terms of a request vector.
public struct FuzzRequest: Hashable, Sendable {
    public var url: String
    public var mainDocumentURL: String
    public var frameURL: String
    /// A request resource type name (`ResourceTypes.requestNames`).
    public var resourceType: String
    public var isMainFrameContext: Bool
    public var method: String?

    public init(url: String, mainDocumentURL: String, frameURL: String, resourceType: String = "image", isMainFrameContext: Bool = false, method: String? = nil) {
        self.url = url
        self.mainDocumentURL = mainDocumentURL
        self.frameURL = frameURL
        self.resourceType = resourceType
        self.isMainFrameContext = isMainFrameContext
        self.method = method
    }

    public var request: Request {
        Request(
            url: CanonicalURL(url), mainDocumentURL: CanonicalURL(mainDocumentURL), frameURL: CanonicalURL(frameURL),
            resourceType: ResourceTypes.requestNames.first { $0.name == resourceType }?.type ?? .image,
            isMainFrameContext: isMainFrameContext, method: method.flatMap(RequestMethod.init(rawValue:)))
    }

    /// Characters: what shrinking reduces.
    public var size: Int { url.utf8.count + mainDocumentURL.utf8.count + frameURL.utf8.count + (method == nil ? 0 : 1) }
}

/// JSON text without Foundation: strings escaped as JSON requires (controls as `\u00XX`).
enum JSONText {
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
