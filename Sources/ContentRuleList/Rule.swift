// The rule-list model: a rule is a trigger (when) and an action (what). docs/SEMANTICS.md §2
// and §4 say what each field means; RuleListParser builds these from JSON with WebKit's checks.
// Tested by ContentRuleListTests/RuleListParserTests.swift.

/// A parsed, valid rule list: the rules WebKit keeps, in order.
public struct RuleList: Hashable, Sendable {
    public var rules: [Rule]
    /// css-display-none rules WebKit drops silently because their selector does not parse.
    public var droppedRules: [DroppedRule]

    public init(rules: [Rule], droppedRules: [DroppedRule] = []) {
        self.rules = rules
        self.droppedRules = droppedRules
    }
}

/// Where a rule came from in the JSON array.
public struct RuleIndex: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// (Four bytes, as a compiled file's rule records hold it: a loaded list keeps one per rule,
    /// and a page's lists one per rule they hold.)
    private var stored: UInt32
    public var rawValue: Int {
        get { Int(stored) }
        set { stored = UInt32(newValue) }
    }
    public init(_ rawValue: Int) { stored = UInt32(rawValue) }
    public static func < (lhs: RuleIndex, rhs: RuleIndex) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}

public struct DroppedRule: Hashable, Sendable {
    public var index: RuleIndex
    public var selector: String
    /// Why the selector does not parse, and where (UTF-8 offset into the selector).
    public var reason: String
    public var offset: Int
}

public struct Rule: Hashable, Sendable {
    /// The position of the rule in the JSON array (dropped rules keep their numbers).
    public var index: RuleIndex
    public var trigger: Trigger
    public var action: Action

    public init(index: RuleIndex, trigger: Trigger, action: Action) {
        self.index = index
        self.trigger = trigger
        self.action = action
    }
}

public struct Trigger: Hashable, Sendable {
    public var urlFilter: String
    public var urlFilterIsCaseSensitive = false
    public var topURLFilterIsCaseSensitive = false
    public var frameURLFilterIsCaseSensitive = false
    /// Empty means every type.
    public var resourceTypes: ResourceTypes = []
    /// Empty means both.
    public var loadTypes: LoadTypes = []
    /// Empty means both.
    public var loadContexts: LoadContexts = []
    public var requestMethod: RequestMethod?
    public var condition: Condition?

    public init(urlFilter: String) {
        self.urlFilter = urlFilter
    }

    /// The request properties a trigger tests besides its url-filter and condition. Rules without a
    /// condition whose flags and action are equal report one action per segment (MatchOutcome.swift);
    /// the case-sensitivity switches are not among them.
    public struct Flags: Hashable, Sendable {
        public var resourceTypes: ResourceTypes
        public var loadTypes: LoadTypes
        public var loadContexts: LoadContexts
        public var requestMethod: RequestMethod?

        /// No flag: every request passes.
        public static let none = Flags(resourceTypes: [], loadTypes: [], loadContexts: [], requestMethod: nil)
    }

    public var flags: Flags {
        Flags(resourceTypes: resourceTypes, loadTypes: loadTypes, loadContexts: loadContexts, requestMethod: requestMethod)
    }
}

/// The request types a trigger names. Some JSON names stand for several of these.
public struct ResourceTypes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let topDocument = ResourceTypes(rawValue: 1 << 0)
    public static let childDocument = ResourceTypes(rawValue: 1 << 1)
    public static let image = ResourceTypes(rawValue: 1 << 2)
    public static let styleSheet = ResourceTypes(rawValue: 1 << 3)
    public static let script = ResourceTypes(rawValue: 1 << 4)
    public static let font = ResourceTypes(rawValue: 1 << 5)
    public static let svgDocument = ResourceTypes(rawValue: 1 << 6)
    public static let media = ResourceTypes(rawValue: 1 << 7)
    public static let popup = ResourceTypes(rawValue: 1 << 8)
    public static let ping = ResourceTypes(rawValue: 1 << 9)
    public static let fetch = ResourceTypes(rawValue: 1 << 10)
    public static let websocket = ResourceTypes(rawValue: 1 << 11)
    public static let other = ResourceTypes(rawValue: 1 << 12)
    public static let cspReport = ResourceTypes(rawValue: 1 << 13)

    /// The JSON names and what each stands for (docs/SEMANTICS.md §2).
    public static let jsonNames: [(name: String, types: ResourceTypes)] = [
        ("document", [.topDocument, .childDocument]),
        ("top-document", .topDocument),
        ("child-document", .childDocument),
        ("image", .image),
        ("style-sheet", .styleSheet),
        ("script", .script),
        ("font", .font),
        ("raw", [.fetch, .websocket, .other, .ping]),
        ("websocket", .websocket),
        ("fetch", .fetch),
        ("other", [.other, .ping, .cspReport]),
        ("svg-document", .svgDocument),
        ("media", .media),
        ("popup", .popup),
        ("ping", .ping),
        ("csp-report", .cspReport),
    ]

    /// The single types, each with the name a request uses for it.
    public static let requestNames: [(name: String, type: ResourceTypes)] = [
        ("top-document", .topDocument), ("child-document", .childDocument), ("image", .image),
        ("style-sheet", .styleSheet), ("script", .script), ("font", .font), ("svg-document", .svgDocument),
        ("media", .media), ("popup", .popup), ("ping", .ping), ("fetch", .fetch), ("websocket", .websocket),
        ("other", .other), ("csp-report", .cspReport),
    ]
}

public struct LoadTypes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let firstParty = LoadTypes(rawValue: 1 << 0)
    public static let thirdParty = LoadTypes(rawValue: 1 << 1)
    public static let jsonNames: [(name: String, types: LoadTypes)] = [("first-party", .firstParty), ("third-party", .thirdParty)]
}

public struct LoadContexts: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let topFrame = LoadContexts(rawValue: 1 << 0)
    public static let childFrame = LoadContexts(rawValue: 1 << 1)
    public static let jsonNames: [(name: String, types: LoadContexts)] = [("top-frame", .topFrame), ("child-frame", .childFrame)]
}

public enum RequestMethod: String, CaseIterable, Hashable, Sendable {
    case get, head, options, trace, put, delete, post, patch, connect
}

/// The one condition a trigger may have. Domains are literal host names (`*` prefix: and every
/// subdomain); the url forms are patterns in the url-filter subset.
public enum Condition: Hashable, Sendable {
    case ifDomain([String])
    case unlessDomain([String])
    case ifTopURL([String])
    case unlessTopURL([String])
    case ifFrameURL([String])
    case unlessFrameURL([String])

    /// The JSON key, in the order WebKit reads them.
    public var key: String {
        switch self {
        case .ifDomain: "if-domain"
        case .unlessDomain: "unless-domain"
        case .ifTopURL: "if-top-url"
        case .unlessTopURL: "unless-top-url"
        case .ifFrameURL: "if-frame-url"
        case .unlessFrameURL: "unless-frame-url"
        }
    }

    public var values: [String] {
        switch self {
        case .ifDomain(let values), .unlessDomain(let values), .ifTopURL(let values), .unlessTopURL(let values),
            .ifFrameURL(let values), .unlessFrameURL(let values):
            values
        }
    }

    /// True for the `if-` forms: the rule applies when one value matches.
    public var isPositive: Bool {
        switch self {
        case .ifDomain, .ifTopURL, .ifFrameURL: true
        case .unlessDomain, .unlessTopURL, .unlessFrameURL: false
        }
    }

    /// Whether the values are url-filter patterns (not domains).
    public var isPattern: Bool {
        switch self {
        case .ifDomain, .unlessDomain: false
        default: true
        }
    }
}

/// Indirect: an action is one reference, so that copying a page's hundreds of actions (the
/// evaluator's lists) retains each once instead of copying every case's payload.
public indirect enum Action: Hashable, Sendable {
    case block
    case blockCookies
    case cssDisplayNone(selector: String)
    case ignorePreviousRules
    case ignoreFollowingRules
    case makeHTTPS
    case notify(notification: String)
    case redirect(Redirect)
    case modifyHeaders(ModifyHeaders)

    /// The JSON `type`.
    public var typeName: String {
        switch self {
        case .block: "block"
        case .blockCookies: "block-cookies"
        case .cssDisplayNone: "css-display-none"
        case .ignorePreviousRules: "ignore-previous-rules"
        case .ignoreFollowingRules: "ignore-following-rules"
        case .makeHTTPS: "make-https"
        case .notify: "notify"
        case .redirect: "redirect"
        case .modifyHeaders: "modify-headers"
        }
    }

    public static let typeNames = [
        "block", "block-cookies", "css-display-none", "ignore-previous-rules", "ignore-following-rules",
        "make-https", "notify", "redirect", "modify-headers",
    ]
}

/// A redirect action (web extensions only).
public enum Redirect: Hashable, Sendable {
    case extensionPath(String)
    /// Rewrites with the trigger's url-filter as the regular expression.
    case regexSubstitution(String)
    case transform(URLTransform)
    case url(String)
}

public struct URLTransform: Hashable, Sendable {
    public var fragment: String?
    public var host: String?
    public var password: String?
    public var path: String?
    /// `.some(nil)`: remove the port.
    public var port: UInt16??
    public var scheme: String?
    public var username: String?
    public var query: String?
    public var queryTransform: QueryTransform?
    public init() {}
}

public struct QueryTransform: Hashable, Sendable {
    public struct Parameter: Hashable, Sendable {
        public var key: String
        public var value: String
        public var replaceOnly: Bool
        public init(key: String, value: String, replaceOnly: Bool) {
            self.key = key
            self.value = value
            self.replaceOnly = replaceOnly
        }
    }
    public var addOrReplaceParameters: [Parameter] = []
    public var removeParameters: [String] = []
    public init() {}
}

/// A modify-headers action (web extensions only).
public struct ModifyHeaders: Hashable, Sendable {
    public enum Operation: Hashable, Sendable {
        case append(header: String, value: String)
        case set(header: String, value: String)
        case remove(header: String)
    }
    public var requestHeaders: [Operation]
    public var responseHeaders: [Operation]
    public var priority: UInt32
    public init(requestHeaders: [Operation], responseHeaders: [Operation], priority: UInt32) {
        self.requestHeaders = requestHeaders
        self.responseHeaders = responseHeaders
        self.priority = priority
    }
}
