// The verdicts WebKit's url-filter parser gives a pattern, with WebKit's names and messages
// (docs/SEMANTICS.md §3). Tested by URLFilterSyntaxTests/URLFilterParserTests.swift.

/// What WebKit makes of a url-filter pattern. `ok` and `matchesEverything` compile; every other
/// status makes the rule list fail with `JSONInvalidRegex`.
public enum URLFilterParseStatus: String, CaseIterable, Sendable, Codable {
    case ok = "Ok"
    case matchesEverything = "MatchesEverything"
    case nonASCII = "NonASCII"
    case unsupportedCharacterClass = "UnsupportedCharacterClass"
    case backReference = "BackReference"
    case forwardReference = "ForwardReference"
    case misplacedStartOfLine = "MisplacedStartOfLine"
    case wordBoundary = "WordBoundary"
    case atomCharacter = "AtomCharacter"
    case group = "Group"
    case disjunction = "Disjunction"
    case misplacedEndOfLine = "MisplacedEndOfLine"
    case emptyPattern = "EmptyPattern"
    case yarrError = "YarrError"
    case invalidQuantifier = "InvalidQuantifier"

    /// WebKit's own name for the status.
    public var name: String { rawValue }

    /// Whether a rule with this pattern compiles.
    public var isAccepted: Bool { self == .ok || self == .matchesEverything }

    /// The message WebKit logs for the status.
    public var message: String {
        switch self {
        case .ok: "Ok"
        case .matchesEverything: "Matches everything."
        case .nonASCII: "Only ASCII characters are supported in pattern."
        case .unsupportedCharacterClass: "Character class is not supported."
        case .backReference: "Patterns cannot contain backreferences."
        case .forwardReference: "Patterns cannot contain forward references."
        case .misplacedStartOfLine: "Start of line assertion can only appear as the first term in a filter."
        case .wordBoundary: "Word boundaries assertions are not supported yet."
        case .atomCharacter: "Builtins character class atoms are not supported yet."
        case .group: "Groups are not supported yet."
        case .disjunction: "Disjunctions are not supported yet."
        case .misplacedEndOfLine: "The end of line assertion must be the last term in an expression."
        case .emptyPattern: "Empty pattern."
        case .yarrError: "Internal error in YARR."
        case .invalidQuantifier: "Arbitrary atom repetitions are not supported."
        }
    }
}
