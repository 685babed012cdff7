// Dialect.swift — Corpus
//
// How a converter spells ABP's `||domain^` and `||domain/path` rules as url-filters (issue #59).
// The shipped lists all use AdGuard SafariConverterLib's spelling, which the engine's domain table
// recognizes as text; other converters spell the same rules differently, and the corpus of
// re-spelled lists (DialectRespelling.swift) is what proves the engine reads them by meaning.
// A dialect is data: the text of each part, each a form a documented converter writes, with the
// source it was read from (Corpora/README.md, "Dialects").
// Tested by CorpusTests (DialectTests).

/// One converter's spelling of the parts of a `||` rule.
public struct Dialect: Hashable, Sendable {
    /// The name used by `blockbench dialects --dialect` and a benchmark's `dialect` field.
    public var name: String
    /// The scheme and the slashes after it, with the start anchor: `^[^:]+://+`.
    public var scheme: String
    /// The optional subdomain group before the domain: `([^:/]+\.)?`.
    public var subdomain: String
    /// ABP's `^` right after the domain, last in the pattern (`||example.com^`).
    public var hostEndAtEnd: String
    /// ABP's `^` right after the domain, more following (`||example.com^*.js`).
    public var hostEndInMiddle: String
    /// ABP's `^` anywhere else, last in the pattern (`||example.com/ad^`).
    public var separatorAtEnd: String
    /// ABP's `^` anywhere else, more following.
    public var separatorInMiddle: String
    /// ABP's `/` (`||example.com/path`): `\/` or `/`.
    public var slash: String
    /// Where the forms were read: repository, path, commit and lines.
    public var source: String

    public init(
        name: String, scheme: String, subdomain: String, hostEndAtEnd: String, hostEndInMiddle: String,
        separatorAtEnd: String, separatorInMiddle: String, slash: String, source: String
    ) {
        self.name = name
        self.scheme = scheme
        self.subdomain = subdomain
        self.hostEndAtEnd = hostEndAtEnd
        self.hostEndInMiddle = hostEndInMiddle
        self.separatorAtEnd = separatorAtEnd
        self.separatorInMiddle = separatorInMiddle
        self.slash = slash
        self.source = source
    }

    /// The text before the domain.
    public var prefix: String { scheme + subdomain }
}

extension Dialect {
    /// AdGuard SafariConverterLib 4.x, the shipped lists' spelling (the identity re-spelling).
    /// AdguardTeam/SafariConverterLib @2462a48, Sources/ContentBlockerConverter/Rules/SimpleRegex.swift
    /// lines 17 (`||`), 20 (`^`), 25 (`^` at the end, then split into `[/:&?]` and `$` rules), 29
    /// (`^` after the domain); `/` escaped.
    public static let adguard = Dialect(
        name: "adguard", scheme: #"^[^:]+://+"#, subdomain: #"([^:/]+\.)?"#, hostEndAtEnd: "[/:]", hostEndInMiddle: "[/:]",
        separatorAtEnd: "[/:&?]", separatorInMiddle: "[/:&?]", slash: #"\/"#,
        source: "AdguardTeam/SafariConverterLib @2462a48 Sources/ContentBlockerConverter/Rules/SimpleRegex.swift:17,20,25,29")

    /// AdGuard SafariConverterLib 1.x to 3.x (v1.0.0 2020 to v3.1.0 2025-07): one subdomain label of
    /// `[a-z0-9-]`, schemes of the letters h t p s w, an optional separator.
    /// AdguardTeam/SafariConverterLib tag v2.0.48 (39bf98a), Sources/ContentBlockerConverter/Utils/SimpleRegex.swift
    /// lines 12 (`URL_FILTER_REGEXP_START_URL`), 14 (`URL_FILTER_REGEXP_END_SEPARATOR`), 15
    /// (`URL_FILTER_REGEXP_SEPARATOR`); `/` escaped (lines 34-47).
    public static let adguard1x = Dialect(
        name: "adguard-1x", scheme: #"^[htpsw]+:\/\/"#, subdomain: #"([a-z0-9-]+\.)?"#,
        hostEndAtEnd: #"([\/:&\?].*)?$"#, hostEndInMiddle: "[/:&?]?", separatorAtEnd: #"([\/:&\?].*)?$"#,
        separatorInMiddle: "[/:&?]?", slash: #"\/"#,
        source: "AdguardTeam/SafariConverterLib v2.0.48 (39bf98a) Sources/ContentBlockerConverter/Utils/SimpleRegex.swift:12,14,15")

    /// eyeo's abp2blocklist for HTTP request types: `https?://`, a subdomain group of anything but
    /// `/`, separators as the complement of ABP's host characters, `/` unescaped.
    /// adblockplus/abp2blocklist @721ec7f, lib/abp2blocklist.js lines 157 (scheme), 296 (subdomain
    /// group), 262-279 (`^`: `a-z` after a host, `A-Za-z` elsewhere), 308 (`/`).
    public static let abp2blocklist = Dialect(
        name: "abp2blocklist", scheme: "^https?://", subdomain: #"([^/]+\.)?"#,
        hostEndAtEnd: "([^-_.%a-z0-9].*)?$", hostEndInMiddle: "[^-_.%a-z0-9]", separatorAtEnd: "([^-_.%A-Za-z0-9].*)?$",
        separatorInMiddle: "[^-_.%A-Za-z0-9]", slash: "/",
        source: "adblockplus/abp2blocklist @721ec7f lib/abp2blocklist.js:157,262-279,296,308")

    /// abp2blocklist for a rule of every type (WebSocket, WebRTC and HTTP): any scheme, `//` optional.
    /// adblockplus/abp2blocklist @721ec7f, lib/abp2blocklist.js line 146; the rest as `abp2blocklist`.
    public static let abp2blocklistAnyScheme: Dialect = {
        var dialect = abp2blocklist
        dialect.name = "abp2blocklist-any"
        dialect.scheme = "^[^:]+:(//)?"
        dialect.source = "adblockplus/abp2blocklist @721ec7f lib/abp2blocklist.js:146,262-279,296,308"
        return dialect
    }()

    /// Brave's adblock-rust content-blocking conversion: any scheme with `//` optional, a trailing
    /// `^` dropped, any other `^` escaped as a literal (`\^`), `/` unescaped.
    /// brave/adblock-rust @886d45d, src/content_blocking.rs lines 305-310 (special characters, the
    /// trailing separator), 351-358 (`^[^:]+:(//)?([^/]+\.)?` and the hostname), 409.
    public static let adblockRust = Dialect(
        name: "adblock-rust", scheme: "^[^:]+:(//)?", subdomain: #"([^/]+\.)?"#, hostEndAtEnd: "", hostEndInMiddle: #"\^"#,
        separatorAtEnd: "", separatorInMiddle: #"\^"#, slash: "/",
        source: "brave/adblock-rust @886d45d src/content_blocking.rs:305-310,351-358,409")

    /// WebKit's own translation of a web extension's declarativeNetRequest `urlFilter` (Safari web
    /// extensions: uBlock Origin Lite, Ghostery's MV3 extension): AdGuard's prefix, every `^` one
    /// character outside `a-zA-Z0-9_.%-`, `/` unescaped.
    /// WebKit/WebKit @0bf491a, Source/WebKit/UIProcess/Extensions/Cocoa/_WKWebExtensionDeclarativeNetRequestRule.mm,
    /// `_regexURLFilterForChromeURLFilter:`.
    public static let webkitDNR = Dialect(
        name: "webkit-dnr", scheme: #"^[^:]+://+"#, subdomain: #"([^:/]+\.)?"#, hostEndAtEnd: "[^a-zA-Z0-9_.%-]",
        hostEndInMiddle: "[^a-zA-Z0-9_.%-]", separatorAtEnd: "[^a-zA-Z0-9_.%-]", separatorInMiddle: "[^a-zA-Z0-9_.%-]", slash: "/",
        source: "WebKit/WebKit @0bf491a Source/WebKit/UIProcess/Extensions/Cocoa/_WKWebExtensionDeclarativeNetRequestRule.mm (_regexURLFilterForChromeURLFilter:)")

    /// DuckDuckGo's TrackerRadarKit: AdGuard's prefix, the host's end written `[:/]` (the same set
    /// in the other order); it writes no other separator, so AdGuard's stay.
    /// duckduckgo/TrackerRadarKit @6d2db2a, Sources/TrackerRadarKit/ContentBlockerRulesBuilder.swift
    /// lines 25-26, 271-274 (`/` escaped).
    public static let duckduckgo: Dialect = {
        var dialect = adguard
        dialect.name = "duckduckgo"
        dialect.hostEndAtEnd = "[:/]"
        dialect.hostEndInMiddle = "[:/]"
        dialect.source = "duckduckgo/TrackerRadarKit @6d2db2a Sources/TrackerRadarKit/ContentBlockerRulesBuilder.swift:25-26,271-274"
        return dialect
    }()

    /// bnema/ublock-webkit-filters, a converter of uBlock Origin's lists to WebKit content-blocker
    /// JSON: uBlock Origin's regex forms (scheme letters and `-`, a non-capturing subdomain group of
    /// anything but `/?#`) with its separator's `|$` alternative dropped (WebKit rejects `|`), `/`
    /// unescaped. It also writes a final `^` as a second rule ending `$`; re-spelled here, AdGuard's
    /// own `$` twins stay, and a host-only `||example.com^` has none.
    /// bnema/ublock-webkit-filters @470baf0, internal/converter/regex.go lines 8-16 (ported from
    /// gorhill/uBlock's `restrFromGenericPattern`, whose separator `(?:[^%.0-9a-z_-]|$)` WebKit rejects).
    public static let ublockWebKit = Dialect(
        name: "ublock-webkit", scheme: "^[a-z-]+://", subdomain: #"(?:[^/?#]+\.)?"#, hostEndAtEnd: "[^%.0-9a-z_-]",
        hostEndInMiddle: "[^%.0-9a-z_-]", separatorAtEnd: "[^%.0-9a-z_-]", separatorInMiddle: "[^%.0-9a-z_-]", slash: "/",
        source: "bnema/ublock-webkit-filters @470baf0 internal/converter/regex.go:8-16")

    /// Every documented dialect, the shipped spelling first.
    public static let documented: [Dialect] = [
        adguard, adguard1x, abp2blocklist, abp2blocklistAnyScheme, adblockRust, webkitDNR, duckduckgo, ublockWebKit,
    ]

    /// A documented dialect by name, or a combination (`Dialect.combination(named:)`).
    public static func named(_ name: String) -> Dialect? {
        documented.first { $0.name == name } ?? combination(named: name)
    }
}
