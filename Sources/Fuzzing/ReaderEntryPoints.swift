// ReaderEntryPoints.swift — Fuzzing
//
// Raw bytes into each reader, one input of a coverage-guided fuzzer (libFuzzer, ClusterFuzzLite):
// what the reader fuzz targets (Sources/blockbench-fuzz-rulelist, -compiled, -requests) call. A
// reader must reject bytes or answer from them, never read out of bounds nor trap; under
// AddressSanitizer an out-of-bounds read through the engine's unsafe pointers (TableMemory's
// mappings, dense tables, packed programs, domain lines, host context tables) stops the run. Each
// entry also checks what must hold of what it accepted, and returns the broken property,
// described (the targets trap on it, so that libFuzzer keeps the input):
//
//  - RuleListEntryPoint: the bytes are a rule list's JSON (RuleListParser, behind `check` and
//    `compile`). The verdict is the same whether every error is collected or not; a small list
//    WebKit accepts is compiled (with limits kept small, so that an input stays quick), and its
//    file loads back (CompiledFile(validating:)) and answers the fixed requests as the compiled
//    list does.
//  - CompiledFileEntryPoint: the bytes are a compiled file (CompiledFile(validating:), as
//    CompiledRuleList.load reads it). A file's length and checksum guard the sections, so random
//    bytes would rarely get past them: the bytes are tried as given and, when they start with the
//    label, with the header's length and checksum made right, which lets mutations reach the
//    section readers. A file that loads answers the fixed requests through an Evaluator and through
//    ContentBlockers of two copies (the two lists' whole programs run in one pass), is
//    disassembled, and loads again from its own serialization.
//  - RequestSetEntryPoint: the first byte picks the request-set kind (requests-json, -tsv,
//    -sitelist) and whether the rest is gzip (Corpus: RequestSets, CorpusFiles.gunzip); the
//    requests read are answered by a small compiled list.
//
// Seeds: `CompiledFileEntryPoint.seeds` compiles a few small lists (inline, and shipped ones when
// the corpora are at hand) rather than committing binary files. docs/FUZZING.md has the commands.
// Tested by FuzzingTests/ReaderEntryPointTests.swift.

internal import Automata
internal import Bytecode
internal import Search
internal import ContentBlocker
internal import ContentRuleList
internal import Foundation
internal import Corpus
internal import RequestContext

/// Requests every loaded list is asked about: several resource types, first and third party, a
/// page and a frame, an https upgrade candidate, and a URL that is not matchable.
enum FixedRequests {
    static let all: [Request] = {
        func request(_ url: String, page: String, frame: String? = nil, _ type: ResourceTypes, main: Bool = true, _ method: RequestMethod? = nil) -> Request {
            Request(
                url: CanonicalURL(url), mainDocumentURL: CanonicalURL(page), frameURL: CanonicalURL(frame ?? page),
                resourceType: type, isMainFrameContext: main, method: method)
        }
        return [
            request("https://ads.example.com/banner/ad.js?x=1", page: "https://news.example.org/", .script),
            request("http://www.example.com/a/b.png#frag", page: "http://www.example.com/", .image, .get),
            request("https://news.example.org/", page: "https://news.example.org/", .topDocument),
            request("https://tracker.co.uk/px.gif?id=42", page: "https://shop.example.co.uk/cart", frame: "https://ads.example.com/frame", .image, main: false, .post),
            request("http://sub.domain.test:8080/path/to/style.css", page: "https://a.b.c.example/", .styleSheet),
            request("wss://socket.example.net/live", page: "https://example.net/", .websocket),
            request("https://xn--bcher-kva.example/font.woff2", page: "https://xn--bcher-kva.example/", .font),
            request("not a url", page: "about:blank", .other),
        ]
    }()

    /// Every answer `list` gives to the fixed requests, through one evaluator.
    static func outcomes(_ list: CompiledRuleList) -> [MatchOutcome] {
        let evaluator = Evaluator(list)
        return all.map { evaluator.outcome(for: $0) }
    }
}

public enum RuleListEntryPoint {
    /// Compiles stay quick: a fuzzer's input is a small list, and a pattern past these limits is a
    /// typed error, not a slow input.
    static let limits = AutomataLimits(
        maximumDFAStates: 5_000, maximumTransitionTableEntries: 500_000, maximumSubsetEntries: 500_000,
        maximumTotalTransitions: 500_000, preferredNFAStatesPerDFA: 5_000, maximumUnanchoredTrieTerms: 20_000)
    /// Lists of more rules are checked, not compiled.
    static let compiledRules = 64

    /// The property `bytes` break, described, or nil.
    public static func check(_ bytes: [UInt8]) -> String? {
        let quick = RuleListParser.parse(bytes)
        let full = RuleListParser.check(bytes, collectingEveryError: true)
        switch (quick, full.verdict) {
        case (.success, .failure(let error)): return "accepted when not collecting every error, rejected when collecting: \(error)"
        case (.failure(let error), .success): return "rejected when not collecting every error (\(error)), accepted when collecting"
        case (.failure, .failure): return nil
        case (.success(let list), .success):
            guard list.rules.count <= compiledRules else { return nil }
            let compiled: CompiledRuleList
            do {
                compiled = try RuleListCompiler.compile(json: bytes, limits: limits).0
            } catch {
                if case .invalidRuleList(let reason) = error { return "accepted by the parser, rejected by the compiler: \(reason)" }
                return nil
            }
            let loaded: CompiledRuleList
            do {
                loaded = try CompiledRuleList(validating: compiled.serialized())
            } catch {
                return "the compiled file does not load: \(error)"
            }
            if loaded.file != compiled.file { return "the loaded file differs from the compiled one" }
            if FixedRequests.outcomes(loaded) != FixedRequests.outcomes(compiled) {
                return "the loaded file answers the fixed requests otherwise than the compiled list"
            }
            return nil
        }
    }
}

public enum CompiledFileEntryPoint {
    /// The property `bytes` break, described, or nil.
    public static func check(_ bytes: [UInt8]) -> String? {
        if let failure = load(bytes) { return failure }
        if let repaired = withHeaderMadeRight(bytes), repaired != bytes { return load(repaired) }
        return nil
    }

    /// `bytes` with the header's length and checksum made right, when they start with the label
    /// and hold a header (nil otherwise).
    public static func withHeaderMadeRight(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= CompiledFile.headerSize, bytes.starts(with: CompiledFile.label) else { return nil }
        var bytes = bytes
        withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { bytes.replaceSubrange(16..<24, with: $0) }
        let checksum = CRC32.checksum(bytes[CompiledFile.headerSize...])
        withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(24..<28, with: $0) }
        return bytes
    }

    static func load(_ bytes: [UInt8]) -> String? {
        guard let list = try? CompiledRuleList(validating: bytes) else { return nil }
        let outcomes = FixedRequests.outcomes(list)
        let blockers = ContentBlockers([list, list])
        for (request, outcome) in zip(FixedRequests.all, outcomes) {
            let both = blockers.outcomes(for: request)
            if both != [outcome, outcome] { return "ContentBlockers answers \(request.url.string) otherwise than an Evaluator" }
        }
        _ = list.disassemble()
        do {
            _ = try CompiledRuleList(validating: list.serialized())
        } catch {
            return "a file that loaded does not load from its own serialization: \(error)"
        }
        return nil
    }

    /// Small rule lists, one per feature the file format carries (conditions, domains, host
    /// contexts, several actions, ignore rules), compiled as seeds.
    static let inlineLists: [(name: String, json: String)] = [
        ("block", #"[{"trigger":{"url-filter":"ads"},"action":{"type":"block"}}]"#),
        ("domains", #"[{"trigger":{"url-filter":".*","if-domain":["*example.com","news.example.org"]},"action":{"type":"block"}},{"trigger":{"url-filter":"^https?://([^/]*\\.)?tracker\\.co\\.uk/","unless-domain":["shop.example.co.uk"],"load-type":["third-party"]},"action":{"type":"block-cookies"}}]"#),
        ("conditions", #"[{"trigger":{"url-filter":"\\.png","if-top-url":["^https?://www\\.example\\.com/"]},"action":{"type":"block"}},{"trigger":{"url-filter":"px\\.gif","unless-frame-url":["ads\\.example"]},"action":{"type":"block"}}]"#),
        ("actions", #"[{"trigger":{"url-filter":".*"},"action":{"type":"css-display-none","selector":".ad, #banner"}},{"trigger":{"url-filter":"^http://","resource-type":["image","style-sheet"]},"action":{"type":"make-https"}},{"trigger":{"url-filter":"example\\.org","load-context":["top-frame"]},"action":{"type":"ignore-previous-rules"}},{"trigger":{"url-filter":"[a-z]+[0-9]?\\.js$","request-method":"get"},"action":{"type":"block"}}]"#),
        ("hosts", #"[{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?ads\\.example\\.com[:/]"},"action":{"type":"block"}},{"trigger":{"url-filter":"^https?://([^/]+\\.)?socket\\.example\\.net"},"action":{"type":"block"}},{"trigger":{"url-filter":"^[^:]+://+([^:/]+\\.)?xn--bcher-kva\\.example"},"action":{"type":"block"}}]"#),
    ]

    /// The shipped lists small enough to seed with (Corpora/rules/).
    static let shippedLists = ["ddg-tds-reference-rules.json", "kablock-blockerList.json"]

    /// Compiled seeds: each inline list, and each small shipped list found under `corpora` (the
    /// repository's Corpora/ folder) when given.
    public static func seeds(corpora: String? = nil) -> [(name: String, bytes: [UInt8])] {
        var sources = inlineLists.map { ($0.name, Array($0.json.utf8)) }
        if let corpora {
            for name in shippedLists {
                if let data = FileManager.default.contents(atPath: corpora + "/rules/" + name) {
                    sources.append((String(name.prefix { $0 != "." }), Array(data)))
                }
            }
        }
        return sources.compactMap { name, json in
            (try? RuleListCompiler.compile(json: json)).map { (name + ".bbc", $0.0.serialized()) }
        }
    }

    /// Writes `seeds(corpora:)` into `folder` (created when missing); returns how many.
    @discardableResult
    public static func writeSeeds(to folder: String, corpora: String?) throws -> Int {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let seeds = seeds(corpora: corpora)
        for seed in seeds {
            try Data(seed.bytes).write(to: URL(fileURLWithPath: folder + "/" + seed.name))
        }
        return seeds.count
    }
}

public enum RequestSetEntryPoint {
    /// The kinds, by the first byte modulo 3; bit 2 of that byte: the rest is gzip.
    static let kinds = ["requests-json", "requests-tsv", "requests-sitelist"]
    /// What a gzip input may decompress to here.
    static let gzipLimit = 1 << 20
    /// The list the requests read are answered by.
    static let list: CompiledRuleList? = {
        let json = CompiledFileEntryPoint.inlineLists.map { String($0.json.dropFirst().dropLast()) }.joined(separator: ",")
        return try? RuleListCompiler.compile(json: Array(("[" + json + "]").utf8)).0
    }()

    /// The property `bytes` break, described, or nil (readers answer or throw; nothing else is held).
    public static func check(_ bytes: [UInt8]) -> String? {
        guard let mode = bytes.first else { return nil }
        let kind = kinds[Int(mode) % 3]
        var rest = Array(bytes.dropFirst())
        if mode & 4 != 0 {
            guard let inflated = try? CorpusFiles.gunzip(rest, path: "input", limit: gzipLimit) else { return nil }
            rest = inflated
        }
        guard let requests = try? RequestSets.read(rest, kind: kind, path: "input") else { return nil }
        guard let list else { return "the inline list does not compile" }
        let evaluator = Evaluator(list)
        let blockers = ContentBlockers([list, list])
        for corpusRequest in requests.prefix(64) {
            let request = corpusRequest.request
            _ = (request.url.registrableDomain, request.url.host, request.isThirdParty)
            let outcome = evaluator.outcome(for: request)
            if blockers.outcomes(for: request) != [outcome, outcome] {
                return "row \(corpusRequest.row): ContentBlockers answers \(request.url.string) otherwise than an Evaluator"
            }
        }
        return nil
    }
}

/// What every fuzz target's executable does with an input: libFuzzer's call, and the replayer of
/// input files a normal build has instead of libFuzzer's `main`.
public enum FuzzTarget {
    /// One libFuzzer input: a broken property is printed and traps, so libFuzzer keeps the input.
    public static func run(_ data: UnsafePointer<UInt8>?, _ size: Int, _ check: ([UInt8]) -> String?) -> CInt {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        if let failure = check(bytes) {
            FileHandle.standardError.write(Data(("FAILED: " + failure + "\n").utf8))
            fatalError("fuzz target property broken")
        }
        return 0
    }

    /// Runs each file named in `arguments` (files of a folder named) through `check`; prints a
    /// line per file and exits 1 when a property broke.
    public static func replay(_ arguments: [String], _ check: ([UInt8]) -> String?) -> Never {
        var failed = false
        var paths: [String] = []
        for argument in arguments {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder), isFolder.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
                paths += names.sorted().map { argument + "/" + $0 }
            } else {
                paths.append(argument)
            }
        }
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                print("\(path): cannot read")
                failed = true
                continue
            }
            if let failure = check(Array(data)) {
                print("\(path): FAILED: \(failure)")
                failed = true
            } else {
                print("\(path): ok")
            }
        }
        exit(failed ? 1 : 0)
    }
}
