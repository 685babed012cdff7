// swift-tools-version: 6.1
//
// BlockBench: a Safari content-blocker rule-list compiler (rule list -> DFAs -> bytecode) and the
// harness that checks it against a PCRE2 oracle and measures it.
//
// Modules follow the pipeline. The engine modules (everything a browser would embed) never import
// PCRE2, the corpora or the reporting code:
//
//   URLFilterSyntax    url-filter pattern -> syntax tree with spans, WebKit's parse statuses
//   CSSSelectorSyntax  CSS selector grammar, to drop css-display-none rules WebKit would drop
//   ContentRuleList    JSON reader, the rule-list model, validation with WebKit's verdicts
//   CZlib              system library (zlib), to read the gzip-compressed corpora
//   CPCRE2             system library (libpcre2-8), oracle side only
//   BlockBenchCLI      the `blockbench` subcommands
//   blockbench         the executable
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "BlockBench",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ContentRuleList", targets: ["ContentRuleList"]),
        .library(name: "URLFilterSyntax", targets: ["URLFilterSyntax"]),
        .executable(name: "blockbench", targets: ["blockbench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .target(name: "URLFilterSyntax", swiftSettings: swiftSettings),
        .target(name: "CSSSelectorSyntax", swiftSettings: swiftSettings),
        .target(
            name: "ContentRuleList",
            dependencies: ["URLFilterSyntax", "CSSSelectorSyntax"],
            swiftSettings: swiftSettings),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(
            name: "CPCRE2",
            pkgConfig: "libpcre2-8",
            providers: [.apt(["libpcre2-dev"])]),
        .target(
            name: "BlockBenchCLI",
            dependencies: [
                "ContentRuleList", "URLFilterSyntax", "CZlib",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings),
        .executableTarget(name: "blockbench", dependencies: ["BlockBenchCLI"], swiftSettings: swiftSettings),
        .testTarget(name: "URLFilterSyntaxTests", dependencies: ["URLFilterSyntax"], swiftSettings: swiftSettings),
        .testTarget(name: "CSSSelectorSyntaxTests", dependencies: ["CSSSelectorSyntax"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ContentRuleListTests",
            dependencies: ["ContentRuleList", "URLFilterSyntax"],
            resources: [],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "BlockBenchCLITests",
            dependencies: [
                "BlockBenchCLI", "ContentRuleList",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)
