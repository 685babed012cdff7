// swift-tools-version: 6.1
//
// BlockBench: a Safari content-blocker rule-list compiler (rule list -> DFAs -> bytecode) and the
// harness that checks it against a PCRE2 oracle and measures it.
//
// Modules follow the pipeline. The engine modules (everything a browser would embed) never import
// PCRE2, the corpora or the reporting code; the harness has one module a concept, each above the
// ones it reads (a test target each, or one per concept across them):
//
//   Parallelism        independent work on every core, or serially (to count it exactly)
//   URLFilterSyntax    url-filter pattern -> syntax tree with spans, WebKit's parse statuses
//   CSSSelectorSyntax  CSS selector grammar, to drop css-display-none rules WebKit would drop
//   URLStandard        the WHATWG URL Standard's host parser and URL validity; IDNA (libidn2)
//   ContentRuleList    JSON reader, the rule-list model, validation with WebKit's verdicts
//   Automata           syntax trees -> combined NFA -> DFAs over byte classes -> minimal DFAs
//   Bytecode           the format's bytes: reader and writer, refusals, CRC-32, actions; a DFA as a
//                      program of state instructions, made, written, validated, disassembled, run
//   Search             what a search over a URL runs, each with its reader and writer: program sets,
//                      dense tables, domain and host tables, table memory; the compiled file of them
//   RequestContext     a request as rules see it: canonical URLs, resource type, third party (libpsl)
//   ContentBlocker     the engine facade: compile a rule list, save/load, actions for a request
//   PCRE2Oracle        the reference: every pattern through PCRE2, the semantics rule by rule
//   SeededRandom       SplitMix64: the seeded generator of the fuzzer, the hostile cases, the dialect
//                      combinations and the tests (a seed gives the same draws on any machine)
//   TerminalText       a terminal's status line and the tables' number formats
//   Corpus             the corpora: manifest and files, request sets, the vector file format, the
//                      outcome text, the dialects' re-spellings of a list, lists drawn from their rules
//   HostileInputs      hostile inputs (huge, deep, corrupt) and their runner under memory and time caps
//   Engines            the engines the harness runs behind one interface: BlockBench, PCRE2, WebKit's
//                      compiler, adblock-rust, uBlock Origin, and WebKit's web view (pages, their runner)
//   SafariReleases     each Safari release's profile, a list read as a release reads it, the matrix
//                      of verdicts, headroom, WebKit's size model
//   Conformance        the engine against the oracle (corpora, vector files), against WebKit's
//                      compiler (parity) and against its web view
//   ListComparison     what a change to a rule list changes (`blockbench diff`)
//   Benchmarks         the benchmarks (definitions in Benchmarks/) run against the engines, the
//                      instruments and the exact cost under Valgrind
//   Gate               the main job's outcome against the committed baseline
//   Reports            report folders, the README's figures, the history of recorded runs and its pages
//   MainJob            `blockbench run` and `gate`: check, compile, conform and benchmark every list
//   Fuzzing            differential fuzzing (status, single-pattern match, whole-list outcomes)
//                      against the oracle, shrinking, exhaustive small worlds; its findings become
//                      vector files (Corpus)
//   CValgrind          the measured region's markers for Valgrind's callgrind (no-ops outside it)
//   CDeflate           system library (libdeflate): the compiled file's CRC-32
//   CZlib              system library (zlib): parts' CRC-32 checksums combined, the gzip-compressed corpora
//   CPCRE2             system library (libpcre2-8), oracle side only
//   CLibPSL, CIDN2     system libraries (libpsl, libidn2): registrable domains and IDNA hosts
//   BlockBenchCLI      the `blockbench` subcommands
//   blockbench         the executable
//   blockbench-fuzz-entry  libFuzzer's entry point over Fuzzing (a replayer in normal builds)
//   blockbench-fuzz-rulelist, -compiled, -requests  libFuzzer's entries for raw bytes into the
//                      rule-list JSON reader, the compiled-file loader, the request-set readers
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
        .library(name: "ContentBlocker", targets: ["ContentBlocker"]),
        .library(name: "RequestContext", targets: ["RequestContext"]),
        .executable(name: "blockbench", targets: ["blockbench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        .target(name: "Parallelism", swiftSettings: swiftSettings),
        .target(name: "URLFilterSyntax", dependencies: ["Parallelism"], swiftSettings: swiftSettings),
        .target(name: "CSSSelectorSyntax", swiftSettings: swiftSettings),
        .target(name: "URLStandard", dependencies: ["CIDN2"], swiftSettings: swiftSettings),
        .target(
            name: "ContentRuleList",
            dependencies: ["URLFilterSyntax", "CSSSelectorSyntax", "URLStandard", "Parallelism"],
            swiftSettings: swiftSettings),
        .target(name: "Automata", dependencies: ["URLFilterSyntax", "Parallelism"], swiftSettings: swiftSettings),
        .target(
            name: "Bytecode", dependencies: ["Automata", "ContentRuleList", "URLFilterSyntax", "CDeflate", "CZlib"], swiftSettings: swiftSettings),
        .target(
            name: "Search", dependencies: ["Bytecode", "Automata", "ContentRuleList", "URLFilterSyntax", "Parallelism"],
            swiftSettings: swiftSettings),
        .systemLibrary(name: "CLibPSL", pkgConfig: "libpsl", providers: [.apt(["libpsl-dev"])]),
        .systemLibrary(name: "CIDN2", pkgConfig: "libidn2", providers: [.apt(["libidn2-dev"])]),
        .target(
            name: "RequestContext",
            dependencies: ["ContentRuleList", "CLibPSL", "URLStandard"],
            swiftSettings: swiftSettings),
        .target(
            name: "ContentBlocker",
            dependencies: ["ContentRuleList", "URLFilterSyntax", "Automata", "Bytecode", "Search", "RequestContext", "Parallelism"],
            swiftSettings: swiftSettings),
        .target(
            name: "PCRE2Oracle",
            dependencies: ["CPCRE2", "ContentRuleList", "RequestContext"],
            swiftSettings: swiftSettings),
        .target(name: "SeededRandom", swiftSettings: swiftSettings),
        .target(name: "TerminalText", swiftSettings: swiftSettings),
        .target(
            name: "Corpus",
            dependencies: ["CZlib", "ContentRuleList", "RequestContext", "PCRE2Oracle", "SeededRandom", "TerminalText"],
            swiftSettings: swiftSettings),
        .target(
            name: "HostileInputs",
            dependencies: ["Bytecode", "ContentBlocker", "Corpus", "SeededRandom"],
            swiftSettings: swiftSettings),
        .target(
            name: "Engines",
            dependencies: ["Corpus", "ContentRuleList", "RequestContext", "ContentBlocker", "Automata", "Bytecode", "Search", "PCRE2Oracle"],
            swiftSettings: swiftSettings),
        .target(
            name: "SafariReleases",
            dependencies: ["Automata", "ContentRuleList", "ContentBlocker", "Corpus", "Engines", "SeededRandom", "TerminalText", "URLFilterSyntax"],
            swiftSettings: swiftSettings),
        .target(
            name: "Conformance",
            dependencies: [
                "Corpus", "Engines", "SafariReleases", "TerminalText", "ContentRuleList", "RequestContext", "ContentBlocker", "Automata",
                "Bytecode", "Search", "URLFilterSyntax", "PCRE2Oracle",
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "ListComparison",
            dependencies: ["Corpus", "SafariReleases", "TerminalText", "ContentRuleList", "RequestContext", "ContentBlocker", "PCRE2Oracle"],
            swiftSettings: swiftSettings),
        .target(
            name: "Benchmarks",
            dependencies: [
                "Corpus", "Engines", "Conformance", "TerminalText", "CValgrind", "Parallelism", "ContentRuleList", "RequestContext",
                "Automata", "ContentBlocker", "PCRE2Oracle",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: swiftSettings),
        .target(name: "Gate", dependencies: ["Benchmarks", "Corpus", "TerminalText"], swiftSettings: swiftSettings),
        .target(
            name: "Reports",
            dependencies: ["Benchmarks", "Gate", "Corpus", "Engines", "TerminalText", "ContentRuleList", "PCRE2Oracle", "URLFilterSyntax"],
            swiftSettings: swiftSettings),
        .target(
            name: "MainJob",
            dependencies: [
                "Benchmarks", "Conformance", "Corpus", "Engines", "Gate", "Reports", "TerminalText", "ContentRuleList", "ContentBlocker",
            ],
            swiftSettings: swiftSettings),
        .target(
            name: "Fuzzing",
            dependencies: [
                "URLFilterSyntax", "ContentRuleList", "ContentBlocker", "Automata", "Bytecode", "Search", "RequestContext", "PCRE2Oracle",
                "SeededRandom", "Corpus", "Engines", "Conformance",
            ],
            swiftSettings: swiftSettings),
        // DWARF 4: Valgrind 3.19 (Debian 12) cannot read the DWARF 5 that clang writes by default,
        // and gives up on the whole executable.
        .target(name: "CValgrind", cSettings: [.unsafeFlags(["-gdwarf-4"])]),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(
            name: "CDeflate",
            pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(
            name: "CPCRE2",
            pkgConfig: "libpcre2-8",
            providers: [.apt(["libpcre2-dev"])]),
        .target(
            name: "BlockBenchCLI",
            dependencies: [
                "ContentRuleList", "URLFilterSyntax", "Automata", "Bytecode", "Search", "RequestContext",
                "ContentBlocker", "SeededRandom", "TerminalText", "Corpus", "HostileInputs", "Engines", "SafariReleases", "Conformance",
                "ListComparison", "Benchmarks", "Gate", "Reports", "MainJob", "Fuzzing",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings),
        .executableTarget(name: "blockbench", dependencies: ["BlockBenchCLI"], swiftSettings: swiftSettings),
        // libFuzzer's entry point (docs/CLI.md: blockbench fuzz); a normal build replays input files.
        .executableTarget(name: "blockbench-fuzz-entry", dependencies: ["Fuzzing"], swiftSettings: swiftSettings),
        // libFuzzer's entries for raw bytes into each reader (docs/FUZZING.md); replayers likewise.
        .executableTarget(name: "blockbench-fuzz-rulelist", dependencies: ["Fuzzing"], swiftSettings: swiftSettings),
        .executableTarget(name: "blockbench-fuzz-compiled", dependencies: ["Fuzzing"], swiftSettings: swiftSettings),
        .executableTarget(name: "blockbench-fuzz-requests", dependencies: ["Fuzzing"], swiftSettings: swiftSettings),
        // What the test targets share (the repository's root), a library of their own.
        .target(name: "TestSupport", dependencies: ["SeededRandom"], path: "Tests/TestSupport", swiftSettings: swiftSettings),
        .testTarget(name: "URLFilterSyntaxTests", dependencies: ["URLFilterSyntax", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "CSSSelectorSyntaxTests", dependencies: ["CSSSelectorSyntax", "TestSupport"],
            resources: [.copy("WebKitSelectorVerdicts.json")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ContentRuleListTests",
            dependencies: ["ContentRuleList", "URLFilterSyntax", "TestSupport"],
            resources: [],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "AutomataTests", dependencies: ["Automata", "URLFilterSyntax", "TestSupport", "Fuzzing", "PCRE2Oracle"],
            swiftSettings: swiftSettings),
        .testTarget(name: "BytecodeTests", dependencies: ["Bytecode", "Automata", "ContentRuleList", "URLFilterSyntax"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SearchTests", dependencies: ["Search", "Bytecode", "Automata", "URLFilterSyntax", "ContentRuleList", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(name: "URLStandardTests", dependencies: ["URLStandard"], swiftSettings: swiftSettings),
        .testTarget(name: "RequestContextTests", dependencies: ["RequestContext", "ContentRuleList"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ContentBlockerTests",
            dependencies: [
                "ContentBlocker", "Bytecode", "Search", "Automata", "URLFilterSyntax", "ContentRuleList", "RequestContext", "PCRE2Oracle",
                "TestSupport",
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "PCRE2OracleTests",
            dependencies: ["PCRE2Oracle", "ContentRuleList", "RequestContext", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "FuzzingTests",
            dependencies: ["Fuzzing", "Corpus", "Conformance", "PCRE2Oracle", "Automata", "ContentBlocker", "ContentRuleList", "RequestContext", "URLFilterSyntax", "TestSupport"],
            swiftSettings: swiftSettings),
        // The harness's tests: a target per module they test (a few per concept across modules),
        // and what they share beyond TestSupport (a BlockBench engine with seeded faults).
        .target(
            name: "HarnessTestSupport", dependencies: ["ContentBlocker", "ContentRuleList", "Benchmarks", "Engines", "RequestContext"],
            path: "Tests/HarnessTestSupport", swiftSettings: swiftSettings),
        .testTarget(
            name: "CorpusTests",
            dependencies: ["Corpus", "Benchmarks", "Engines", "SeededRandom", "ContentRuleList", "RequestContext", "PCRE2Oracle", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(name: "HostileInputsTests", dependencies: ["HostileInputs"], swiftSettings: swiftSettings),
        .testTarget(
            name: "EnginesTests",
            dependencies: ["Engines", "Benchmarks", "Corpus", "Reports", "ContentRuleList", "RequestContext", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SafariReleasesTests",
            dependencies: ["SafariReleases", "Corpus", "ContentBlocker", "ContentRuleList", "TestSupport", "URLFilterSyntax"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["Conformance", "Corpus", "Engines", "ContentBlocker", "ContentRuleList", "RequestContext", "PCRE2Oracle", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ListComparisonTests",
            dependencies: ["ListComparison", "Conformance", "Corpus", "SafariReleases", "ContentRuleList", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "BenchmarksTests",
            dependencies: [
                "Benchmarks", "Corpus", "Engines", "Reports", "ContentBlocker", "ContentRuleList", "RequestContext", "TestSupport",
                "HarnessTestSupport",
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "GateTests",
            dependencies: [
                "Gate", "MainJob", "Benchmarks", "Conformance", "Corpus", "Engines", "ContentBlocker", "Automata", "RequestContext",
                "URLFilterSyntax", "Parallelism", "TestSupport", "HarnessTestSupport",
            ],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ReportsTests",
            dependencies: ["Reports", "Benchmarks", "Gate", "SeededRandom", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ConcurrencyTests",
            dependencies: ["ContentBlocker", "Corpus", "Reports", "RequestContext", "TestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(name: "RepositoryTests", dependencies: ["TestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "BlockBenchCLITests",
            dependencies: [
                "BlockBenchCLI", "Benchmarks", "Search", "ContentBlocker", "ContentRuleList", "Corpus", "Conformance", "Reports", "Fuzzing", "TestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)
