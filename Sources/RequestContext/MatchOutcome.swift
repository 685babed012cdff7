// MatchOutcome.swift — RequestContext
//
// What a rule list decides for one request. The engine (ContentBlocker) and the reference
// evaluator (PCRE2Oracle) both produce it, and conformance compares the two field by field, so
// this comment is the one definition both follow.
//
// 1. A rule *applies* to a request when the request URL is matchable (`CanonicalURL.isMatchable`;
//    otherwise nothing applies and `appliesGlobalStyleSheet` is false), its url-filter matches the
//    URL (a filter that matches everything always does), every flag group it sets contains the
//    request's value (resource type; load type by `Request.isThirdParty`; load context; request
//    method), and its condition holds (domains and top-url patterns over the main document URL,
//    frame-url patterns over the frame URL; `unless-*` holds when no entry matches).
// 2. `matchingRules`: every applying rule, in rule order.
// 3. The rules that act: the applying rules up to and including the first
//    `ignore-following-rules`; then, if an `ignore-previous-rules` is among them, only those after
//    the last one.
// 4. `actions`: the actions of the rules that act, each at its *location*, in location order.
//    As WebKit serializes actions, the list is cut into segments at every ignore rule
//    (`ignore-previous-rules` and `ignore-following-rules` alike), and nothing is shared across a
//    cut. Within a segment:
//    - a rule with a condition has a location of its own, at its place in rule order, whatever its
//      action (two identical conditional rules list their action twice);
//    - rules without a condition with the same action and the same flags (resource types, load
//      types, load contexts, request method; not the url-filter nor any case-sensitivity switch)
//      share the location of the first of them, so the action is listed once;
//    - css-display-none rules without a condition and with the same whole trigger share one action
//      whose selector is their selectors comma-joined in rule order; these combined actions are
//      placed at the end of their segment (after every other action of the segment), ordered by
//      their first rule. (WebKit orders them by a hash table's iteration; first-rule order is this
//      definition's stand-in for that unspecified order.)
//    The css-display-none rules of the global style sheet (below) are not listed. `make-https` is
//    listed only for `http:` and `ws:` URLs without an explicit non-default port. The ignore
//    actions themselves are never listed.
// 5. The global style sheet: css-display-none rules whose url-filter matches everything, with no
//    flag and no condition, standing before the first ignore rule of either kind.
//    `appliesGlobalStyleSheet` is true unless an `ignore-previous-rules` rule acts (3), whether or
//    not the list has such rules (WebKit's "style sheet lists" for one rule list: 1 or 0).
// Tested by ContentBlockerTests/ContentBlockerTests.swift.

public import ContentRuleList

public struct MatchOutcome: Hashable, Sendable {
    /// The three fields behind one reference: an outcome an evaluator keeps for a page (most of its
    /// requests' answer) is handed out with one retain and dropped with one release, where its two
    /// lists' six arrays took one atomic operation each.
    /// (Written after it is made only by `Reusing`, while no outcome holds it: an outcome never
    /// sees its storage change.)
    @usableFromInline final class Storage: @unchecked Sendable {
        @exclusivity(unchecked) @usableFromInline var actions: SharedList<Action>
        @exclusivity(unchecked) @usableFromInline var matchingRules: SharedList<RuleIndex>
        @exclusivity(unchecked) @usableFromInline var appliesGlobalStyleSheet: Bool

        @inlinable init(actions: SharedList<Action>, matchingRules: SharedList<RuleIndex>, appliesGlobalStyleSheet: Bool) {
            self.actions = actions
            self.matchingRules = matchingRules
            self.appliesGlobalStyleSheet = appliesGlobalStyleSheet
        }
    }
    @usableFromInline var storage: Storage

    /// The actions WebKit applies, in WebKit's order (see the top of this file).
    @inlinable public var actions: SharedList<Action> {
        _read { yield storage.actions }
        set { storage = Storage(actions: newValue, matchingRules: matchingRules, appliesGlobalStyleSheet: appliesGlobalStyleSheet) }
    }
    /// Every rule whose trigger applies to the request, in rule order, before any ignore rule is
    /// applied. Rules of the global style sheet included.
    @inlinable public var matchingRules: SharedList<RuleIndex> {
        _read { yield storage.matchingRules }
        set { storage = Storage(actions: actions, matchingRules: newValue, appliesGlobalStyleSheet: appliesGlobalStyleSheet) }
    }
    /// Whether the list's global style sheet applies to the page.
    @inlinable public var appliesGlobalStyleSheet: Bool {
        get { storage.appliesGlobalStyleSheet }
        set { storage = Storage(actions: actions, matchingRules: matchingRules, appliesGlobalStyleSheet: newValue) }
    }

    @inlinable
    public init(actions: SharedList<Action>, matchingRules: SharedList<RuleIndex>, appliesGlobalStyleSheet: Bool) {
        storage = Storage(actions: actions, matchingRules: matchingRules, appliesGlobalStyleSheet: appliesGlobalStyleSheet)
    }

    @inlinable init(_ storage: Storage) { self.storage = storage }

    /// Outcomes made one after another, each in the storage of the one before once no copy of
    /// that one is held any more: whoever answers request after request, its outcomes read and
    /// dropped before the next (a browser, a benchmark), then allocates and frees no outcome. An
    /// outcome still held is never written: the next one gets storage of its own.
    public struct Reusing {
        /// The last outcome's storage.
        @usableFromInline var last: Storage?

        public init() {}

        /// The outcome of these fields, in the last one's storage when nothing else holds it.
        @inlinable
        public mutating func outcome(
            actions: consuming SharedList<Action>, matchingRules: consuming SharedList<RuleIndex>, appliesGlobalStyleSheet: Bool
        ) -> MatchOutcome {
            let (actions, matchingRules) = (actions, matchingRules)
            return outcome(appliesGlobalStyleSheet: appliesGlobalStyleSheet) {
                $0 = actions
                $1 = matchingRules
            } made: {
                (actions, matchingRules)
            }
        }

        /// The outcome whose lists `write` makes in place (`SharedList.reshare`) in the last one's
        /// storage when nothing else holds it, else the lists `made` makes, in storage of their own.
        /// Lists remade over what the last one's share (the requests of one page) then cost no
        /// reference count of what they share.
        @inlinable
        public mutating func outcome(
            appliesGlobalStyleSheet: Bool, lists write: (inout SharedList<Action>, inout SharedList<RuleIndex>) -> Void,
            made: () -> (SharedList<Action>, SharedList<RuleIndex>)
        ) -> MatchOutcome {
            if isKnownUniquelyReferenced(&last), let storage = last {
                write(&storage.actions, &storage.matchingRules)
                storage.appliesGlobalStyleSheet = appliesGlobalStyleSheet
                return MatchOutcome(storage)
            }
            let (actions, matchingRules) = made()
            let storage = Storage(actions: actions, matchingRules: matchingRules, appliesGlobalStyleSheet: appliesGlobalStyleSheet)
            last = storage
            return MatchOutcome(storage)
        }
    }

    /// An outcome held elsewhere, named without a reference count: its holder keeps it, unchanged,
    /// for as long as it lends it (`lend`), so that an outcome told a caller per request (a page's,
    /// which most of its requests get) costs no retain and release.
    public struct Unretained {
        @usableFromInline let storage: Unmanaged<Storage>

        /// `outcome`, which its holder keeps while this is lent.
        @inlinable public init(_ outcome: MatchOutcome) { storage = .passUnretained(outcome.storage) }

        /// `body` told the outcome, borrowed (it copies it to keep it).
        @inlinable @inline(__always)
        public func lend<Result>(_ body: (MatchOutcome) -> Result) -> Result {
            storage._withUnsafeGuaranteedRef { body(MatchOutcome($0)) }
        }
    }

    public init(actions: [Action], matchingRules: [RuleIndex], appliesGlobalStyleSheet: Bool) {
        self.init(actions: SharedList(actions), matchingRules: SharedList(matchingRules), appliesGlobalStyleSheet: appliesGlobalStyleSheet)
    }

    /// Nothing applies (an unmatchable URL).
    public static let none = MatchOutcome(actions: [Action](), matchingRules: [RuleIndex](), appliesGlobalStyleSheet: false)

    public static func == (lhs: MatchOutcome, rhs: MatchOutcome) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.appliesGlobalStyleSheet == rhs.appliesGlobalStyleSheet && lhs.actions == rhs.actions
                && lhs.matchingRules == rhs.matchingRules)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(actions)
        hasher.combine(matchingRules)
        hasher.combine(appliesGlobalStyleSheet)
    }
}

extension MatchOutcome: CustomStringConvertible {
    /// The fields, as a struct of three stored properties prints them.
    public var description: String {
        "MatchOutcome(actions: \(actions), matchingRules: \(matchingRules), appliesGlobalStyleSheet: \(appliesGlobalStyleSheet))"
    }
}
