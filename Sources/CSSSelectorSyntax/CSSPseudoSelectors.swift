// CSSPseudoSelectors.swift — CSSSelectorSyntax
//
// The pseudo-classes and pseudo-elements WebKit 2.50 accepts in an author (non-UA) style context
// without a document (the context WebKit's content-blocker compiler uses), with their argument
// shape, and the rules for which simple selectors may follow a pseudo-element in the same compound.
//
// Names come from Selectors Level 4 (§3.6 pseudo-elements, §4-§14 pseudo-classes), CSS Pseudo-
// Elements Level 4, CSS Scoping (`:host`, `::slotted`), CSS Shadow Parts (`::part`), Custom
// Highlight API (`::highlight`), WebVTT (`::cue`), Custom State (`:state`) and WebKit's
// non-standard ones; which of them are accepted, and everything on the "after a pseudo-element"
// rules, was observed with WebKitGTK 2.50.6 (Benchmarks/Peers/WebKit/webkit-compile): features behind
// settings that are off without a document (`:popover-open`, `::view-transition*`,
// `:active-view-transition`, `::target-text`, `::thumb`, `::track`), compile-time-disabled ones
// (`:picture-in-picture`), UA-only ones (`-internal-*`, `-apple-*`, `:-webkit-full-page-media`,
// `:-webkit-full-screen-ancestor`...) and pseudos WebKit does not implement (`:open`, `:heading`,
// `::picker()`, `::column`, adblock extensions such as `:-abp-has()`, `:has-text()`) are rejected.
//
// Tested by Tests/CSSSelectorSyntaxTests/WebKitVerdictTests.swift (pseudo-class / pseudo-element
// sections) and CSSSelectorValidatorTests.swift.

/// What a pseudo-class does to parsing.
enum PseudoClassKind: Sendable, Equatable {
    /// No argument (`:hover`).
    case plain
    /// `:not()`: non-forgiving complex selector list, no pseudo-elements.
    case not
    /// `:is()`, `:where()`, `:matches()`, `:-webkit-any()`: forgiving selector list.
    case forgiving
    /// `:has()`: relative selector list, no nested `:has()`, no pseudo-elements.
    case has
    /// `:host` and `:host(<compound-selector>)`.
    case host
    /// `:nth-child()` / `:nth-last-child()`: An+B [of <complex-selector-list>].
    case nthChild
    /// `:nth-of-type()` / `:nth-last-of-type()`: An+B.
    case nthOfType
    /// `:lang()`: comma-separated idents or strings.
    case lang
    /// `:dir()` and `:state()`: one ident.
    case singleIdent
}

/// Flags used by the rules for pseudo-classes that follow a pseudo-element.
struct PseudoClassTraits: OptionSet, Sendable {
    let rawValue: UInt8
    /// :hover :active :focus :focus-visible :focus-within — allowed after UA-part pseudo-elements.
    static let userAction = PseudoClassTraits(rawValue: 1)
    /// Allowed after the ::-webkit-scrollbar family.
    static let scrollbar = PseudoClassTraits(rawValue: 2)
    /// Tree-structural (:root, :empty, :first-child, :nth-*...) — not allowed after ::part().
    static let treeStructural = PseudoClassTraits(rawValue: 4)
    /// :not() :is() :where() :matches() :-webkit-any() :has() — allowed after any pseudo-element
    /// (their arguments are checked instead).
    static let logical = PseudoClassTraits(rawValue: 8)
    /// :window-inactive — the one pseudo-class allowed after ::selection.
    static let windowInactive = PseudoClassTraits(rawValue: 16)
}

struct PseudoClassInfo: Sendable {
    var kind: PseudoClassKind
    var traits: PseudoClassTraits = []
}

/// How a pseudo-element constrains what follows it in its compound.
enum PseudoElementCategory: Sendable, Equatable {
    /// ::before ::after ::marker ::backdrop ::first-line ::first-letter ::grammar-error
    /// ::spelling-error ::highlight() ::cue(): only logical pseudo-classes may follow.
    case plain
    /// ::selection: also :window-inactive.
    case selection
    /// Elements of user-agent shadow trees (::placeholder, ::file-selector-button,
    /// ::details-content, ::cue, every ::-webkit-* name): also user-action pseudo-classes.
    case userAgentPart
    /// ::-webkit-scrollbar and friends, ::-webkit-resizer: also the scrollbar pseudo-classes.
    case scrollbar
    /// ::part(): any pseudo-class but the tree-structural ones, any pseudo-element but ::part().
    case part
    /// ::slotted(): only ::before ::after ::marker ::backdrop (and logical pseudo-classes).
    case slotted
}

/// What a pseudo-element does to parsing.
enum PseudoElementArgument: Sendable, Equatable {
    case none
    /// ::cue / ::cue(<compound-selector-list>)
    case cue
    /// ::slotted(<compound-selector>)
    case slotted
    /// ::part(<ident>+)
    case part
    /// ::highlight(<ident>)
    case highlight
}

struct PseudoElementInfo: Sendable {
    var category: PseudoElementCategory
    var argument: PseudoElementArgument = .none
    /// Whether ::before ::after ::marker ::backdrop — the ones ::slotted() may be followed by.
    var allowedAfterSlotted = false
}

enum CSSPseudoSelectors {
    /// Pseudo-classes without an argument, keyed by ASCII-lowercased name.
    static let identPseudoClasses: [String: PseudoClassInfo] = {
        var table: [String: PseudoClassInfo] = [:]
        let userAction = ["hover", "active", "focus", "focus-visible", "focus-within"]
        let scrollbarOnly = [
            "enabled", "disabled", "horizontal", "vertical", "decrement", "increment", "start", "end",
            "double-button", "single-button", "no-button", "corner-present",
        ]
        let treeStructural = [
            "root", "empty", "first-child", "last-child", "only-child", "first-of-type",
            "last-of-type", "only-of-type",
        ]
        let others = [
            "any-link", "-webkit-any-link", "autofill", "-webkit-autofill", "buffering", "checked",
            "default", "defined", "fullscreen", "-webkit-full-screen", "future", "in-range",
            "indeterminate", "invalid", "link", "modal", "muted", "optional", "out-of-range", "past",
            "paused", "placeholder-shown", "playing", "read-only", "read-write", "required", "scope",
            "seeking", "stalled", "target", "user-invalid", "user-valid", "valid", "visited",
            "volume-locked", "-webkit-autofill-and-obscured", "-webkit-autofill-strong-password",
            "-webkit-autofill-strong-password-viewable", "-webkit-drag",
        ]
        for name in userAction { table[name] = PseudoClassInfo(kind: .plain, traits: [.userAction]) }
        // :hover and :active are also scrollbar pseudo-classes.
        table["hover"]!.traits.insert(.scrollbar)
        table["active"]!.traits.insert(.scrollbar)
        for name in scrollbarOnly { table[name] = PseudoClassInfo(kind: .plain, traits: [.scrollbar]) }
        table["window-inactive"] = PseudoClassInfo(kind: .plain, traits: [.scrollbar, .windowInactive])
        for name in treeStructural { table[name] = PseudoClassInfo(kind: .plain, traits: [.treeStructural]) }
        for name in others { table[name] = PseudoClassInfo(kind: .plain) }
        table["host"] = PseudoClassInfo(kind: .host)
        return table
    }()

    /// Pseudo-classes written as functions, keyed by ASCII-lowercased name (without the paren).
    static let functionalPseudoClasses: [String: PseudoClassInfo] = [
        "not": PseudoClassInfo(kind: .not, traits: [.logical]),
        "is": PseudoClassInfo(kind: .forgiving, traits: [.logical]),
        "where": PseudoClassInfo(kind: .forgiving, traits: [.logical]),
        "matches": PseudoClassInfo(kind: .forgiving, traits: [.logical]),
        "-webkit-any": PseudoClassInfo(kind: .forgiving, traits: [.logical]),
        "has": PseudoClassInfo(kind: .has, traits: [.logical]),
        "host": PseudoClassInfo(kind: .host),
        "nth-child": PseudoClassInfo(kind: .nthChild, traits: [.treeStructural]),
        "nth-last-child": PseudoClassInfo(kind: .nthChild, traits: [.treeStructural]),
        "nth-of-type": PseudoClassInfo(kind: .nthOfType, traits: [.treeStructural]),
        "nth-last-of-type": PseudoClassInfo(kind: .nthOfType, traits: [.treeStructural]),
        "lang": PseudoClassInfo(kind: .lang),
        "dir": PseudoClassInfo(kind: .singleIdent),
        "state": PseudoClassInfo(kind: .singleIdent),
    ]

    /// Pseudo-elements written without an argument (after `::`), keyed by lowercased name.
    /// Any other name starting with `-webkit-` is accepted as a user-agent part.
    static let identPseudoElements: [String: PseudoElementInfo] = {
        var table: [String: PseudoElementInfo] = [:]
        for name in ["before", "after", "marker", "backdrop"] {
            table[name] = PseudoElementInfo(category: .plain, allowedAfterSlotted: true)
        }
        for name in ["first-line", "first-letter", "grammar-error", "spelling-error"] {
            table[name] = PseudoElementInfo(category: .plain)
        }
        table["selection"] = PseudoElementInfo(category: .selection)
        for name in [
            "placeholder", "-webkit-input-placeholder", "file-selector-button",
            "-webkit-file-upload-button", "details-content",
        ] {
            table[name] = PseudoElementInfo(category: .userAgentPart)
        }
        table["cue"] = PseudoElementInfo(category: .userAgentPart, argument: .none)
        for name in [
            "-webkit-scrollbar", "-webkit-scrollbar-button", "-webkit-scrollbar-corner",
            "-webkit-scrollbar-thumb", "-webkit-scrollbar-track", "-webkit-scrollbar-track-piece",
            "-webkit-resizer",
        ] {
            table[name] = PseudoElementInfo(category: .scrollbar)
        }
        return table
    }()

    /// Pseudo-elements written as functions.
    static let functionalPseudoElements: [String: PseudoElementInfo] = [
        "cue": PseudoElementInfo(category: .plain, argument: .cue),
        "slotted": PseudoElementInfo(category: .slotted, argument: .slotted),
        "part": PseudoElementInfo(category: .part, argument: .part),
        "highlight": PseudoElementInfo(category: .plain, argument: .highlight),
    ]

    /// CSS 2.1 pseudo-elements that may also be written with a single colon.
    static let legacySingleColonPseudoElements: Set<String> = [
        "before", "after", "first-line", "first-letter",
    ]

    /// Whether pseudo-class `info` may follow a pseudo-element of `category` in one compound.
    static func pseudoClass(_ info: PseudoClassInfo, allowedAfter category: PseudoElementCategory) -> Bool {
        if info.traits.contains(.logical) { return true }
        switch category {
        case .plain, .slotted: return false
        case .selection: return info.traits.contains(.windowInactive)
        case .userAgentPart: return info.traits.contains(.userAction)
        case .scrollbar: return info.traits.contains(.scrollbar)
        case .part: return !info.traits.contains(.treeStructural)
        }
    }

    /// Whether pseudo-element `info` may follow a pseudo-element of `category` in one compound.
    static func pseudoElement(_ info: PseudoElementInfo, allowedAfter category: PseudoElementCategory) -> Bool {
        switch category {
        case .part: return info.category != .part
        case .slotted: return info.allowedAfterSlotted
        default: return false
        }
    }
}
