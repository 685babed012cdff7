// BenchmarkDefinition.swift — Benchmarks
//
// A benchmark is data: one JSON file in Benchmarks/ naming a rule list and (for `match`) a request
// set from the corpus manifest, a model, the engines to run and how often. Adding a benchmark is
// adding a file; the file's name (without .json) is the benchmark's name.
//
//     {
//       "about": "EasyList over the adblock-rust request set",
//       "rules": "easylist",
//       "requests": "adblock-rust-requests",
//       "model": "match",
//       "engines": ["blockbench", "pcre2-jit", "pcre2"],
//       "samples": {"pcre2-jit": 300, "pcre2": 40},
//       "runs": 5, "warmupRuns": 1, "maxSeconds": 30
//     }
//
// `rules` may also name several lists, `"rules": ["easylist", "easyprivacy"]`: by default they are
// one list, their rules concatenated in the order named (the benchmark's list is then called
// "easylist+easyprivacy"); with `"apart": true` each is compiled on its own and every request is
// put to each of them, their answers joined in that order, as Safari asks each installed
// extension's list. A compile run then compiles each list in turn and counts their sum.
//
// `draw` makes the lists instead of naming them (Corpus/RuleDraw.swift): `"rules"` is then the
// name of a set of lists drawn from the named shipped lists' rules with a seed, written to a
// scratch folder when the benchmark runs, and asked apart (`"rules": "six-blockers"`, `"draw":
// {"from": ["easylist", "easyprivacy"], "lists": 6, "rules": 150000, "seed": 57}`: the lists
// six-blockers-1 to six-blockers-6). `"onDemand": true` keeps a benchmark out of the main job
// (and so out of the gate): it runs only when named (`blockbench bench NAME`).
//
// Models: `check` parses and validates the list (WebKit's verdict, no compile); `compile` turns the
// JSON text into what the engine matches with (for BlockBench: the bytecode file); `match` answers
// every request of the set (or the engine's stated sample) with an already compiled list.
//
// `samples` bounds the requests an engine answers, as an evenly spaced sample (every k-th request),
// for engines too slow to answer every request within the main job's budget. The sample is stated
// in every table; the engine's answers on it are checked against the oracle's on the same requests.
// `runs` are measured after `warmupRuns`; a run that takes longer than `maxSeconds` in all stops the
// repetition early (at least one run is always measured), and the result says how many ran.
//
// `denseBudget` loads BlockBench's lists within that many bytes of dense tables
// (Search/DenseBudget.swift; 0: every program runs compact), where a match benchmark otherwise loads
// them within the default: the same list and requests at two budgets are the trade-off measured
// (its resident memory after load, held bytes, instructions and time). Only BlockBench takes one.
//
// `dialect` names a converter's spelling of `||` rules (Corpus/Dialects/Dialect.swift): the runner
// re-spells the list's `||` patterns in it before any engine reads the list, which is then called
// "easylist@abp2blocklist". Engines that read the Adblock Plus text (adblock-rust, uBlock Origin)
// cannot take one.
// Tested by BenchmarksTests, CorpusTests and EnginesTests (BenchTests, DialectTests,
// AdblockRustEngineTests, UBlockOriginEngineTests).

internal import Foundation
public import Corpus
public import Engines

public struct BenchmarkDefinition: Codable, Hashable, Sendable {
    /// How the benchmark runs an engine (Engines: `BenchmarkModel`).
    public typealias Model = BenchmarkModel

    /// The file's name without `.json`.
    public var name: String = ""
    public var about: String?
    /// The rule list's name: a manifest name, or the names of `lists` joined by "+".
    public var rules: String
    /// The manifest names of the lists the benchmark reads (one, or several: see `apart`).
    public var lists: [String]
    /// Several lists, each compiled on its own and asked about every request (false: one list).
    public var apart: Bool
    /// A request set's name in the corpus manifest (`match` only).
    public var requests: String?
    public var model: Model
    public var engines: [String]
    public var samples: [String: Int]?
    public var runs: Int?
    public var warmupRuns: Int?
    public var maxSeconds: Double?
    /// A dialect's name: the list's `||` patterns re-spelled in it before any engine reads them.
    public var dialect: String?
    /// Lists drawn from the shipped lists' rules (`lists` are then `rules`-1, `rules`-2, ...).
    public var draw: RuleDraw?
    /// Run only when named, never by the main job or the gate.
    public var onDemand = false
    /// BlockBench's lists loaded within this many bytes of dense tables (nil: the default).
    public var denseBudget: Int?

    /// The list's name in results: `rules`, with `@dialect` when there is one.
    public var listName: String { dialect.map { rules + "@" + $0 } ?? rules }

    public init(
        name: String, about: String? = nil, rules: String, requests: String? = nil, model: Model, engines: [String],
        samples: [String: Int]? = nil, runs: Int? = nil, warmupRuns: Int? = nil, maxSeconds: Double? = nil
    ) {
        self.init(
            name: name, about: about, lists: [rules], apart: false, requests: requests, model: model, engines: engines,
            samples: samples, runs: runs, warmupRuns: warmupRuns, maxSeconds: maxSeconds)
    }

    public init(
        name: String, about: String? = nil, lists: [String], apart: Bool, requests: String? = nil, model: Model, engines: [String],
        samples: [String: Int]? = nil, runs: Int? = nil, warmupRuns: Int? = nil, maxSeconds: Double? = nil
    ) {
        self.name = name
        self.about = about
        self.lists = lists
        self.apart = apart
        self.rules = lists.joined(separator: "+")
        self.requests = requests
        self.model = model
        self.engines = engines
        self.samples = samples
        self.runs = runs
        self.warmupRuns = warmupRuns
        self.maxSeconds = maxSeconds
    }

    enum CodingKeys: String, CodingKey {
        case about, rules, apart, dialect, draw, onDemand, denseBudget, requests, model, engines, samples, runs, warmupRuns, maxSeconds
    }

    /// A definition over lists drawn by `draw`, named `set`-1, `set`-2, ..., asked apart.
    public init(
        name: String, about: String? = nil, drawn set: String, draw: RuleDraw, requests: String? = nil, model: Model, engines: [String],
        runs: Int? = nil, warmupRuns: Int? = nil, maxSeconds: Double? = nil
    ) {
        self.init(
            name: name, about: about, lists: (0..<max(0, draw.lists)).map { "\(set)-\($0 + 1)" }, apart: true, requests: requests,
            model: model, engines: engines, runs: runs, warmupRuns: warmupRuns, maxSeconds: maxSeconds)
        self.draw = draw
        rules = set
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let draw = try container.decodeIfPresent(RuleDraw.self, forKey: .draw) {
            self.init(
                name: "", about: try container.decodeIfPresent(String.self, forKey: .about),
                drawn: try container.decode(String.self, forKey: .rules), draw: draw,
                requests: try container.decodeIfPresent(String.self, forKey: .requests), model: try container.decode(Model.self, forKey: .model),
                engines: try container.decode([String].self, forKey: .engines),
                runs: try container.decodeIfPresent(Int.self, forKey: .runs), warmupRuns: try container.decodeIfPresent(Int.self, forKey: .warmupRuns),
                maxSeconds: try container.decodeIfPresent(Double.self, forKey: .maxSeconds))
            samples = try container.decodeIfPresent([String: Int].self, forKey: .samples)
            onDemand = try container.decodeIfPresent(Bool.self, forKey: .onDemand) ?? false
            return
        }
        let lists: [String]
        if let one = try? container.decode(String.self, forKey: .rules) {
            lists = [one]
        } else {
            lists = try container.decode([String].self, forKey: .rules)
        }
        self.init(
            name: "", about: try container.decodeIfPresent(String.self, forKey: .about), lists: lists,
            apart: try container.decodeIfPresent(Bool.self, forKey: .apart) ?? false,
            requests: try container.decodeIfPresent(String.self, forKey: .requests), model: try container.decode(Model.self, forKey: .model),
            engines: try container.decode([String].self, forKey: .engines),
            samples: try container.decodeIfPresent([String: Int].self, forKey: .samples),
            runs: try container.decodeIfPresent(Int.self, forKey: .runs), warmupRuns: try container.decodeIfPresent(Int.self, forKey: .warmupRuns),
            maxSeconds: try container.decodeIfPresent(Double.self, forKey: .maxSeconds))
        dialect = try container.decodeIfPresent(String.self, forKey: .dialect)
        onDemand = try container.decodeIfPresent(Bool.self, forKey: .onDemand) ?? false
        denseBudget = try container.decodeIfPresent(Int.self, forKey: .denseBudget)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(about, forKey: .about)
        if draw != nil || lists.count == 1 { try container.encode(draw != nil ? rules : lists[0], forKey: .rules) } else { try container.encode(lists, forKey: .rules) }
        if apart { try container.encode(apart, forKey: .apart) }
        try container.encodeIfPresent(draw, forKey: .draw)
        if onDemand { try container.encode(onDemand, forKey: .onDemand) }
        try container.encodeIfPresent(dialect, forKey: .dialect)
        try container.encodeIfPresent(denseBudget, forKey: .denseBudget)
        try container.encodeIfPresent(requests, forKey: .requests)
        try container.encode(model, forKey: .model)
        try container.encode(engines, forKey: .engines)
        try container.encodeIfPresent(samples, forKey: .samples)
        try container.encodeIfPresent(runs, forKey: .runs)
        try container.encodeIfPresent(warmupRuns, forKey: .warmupRuns)
        try container.encodeIfPresent(maxSeconds, forKey: .maxSeconds)
    }

    public var measuredRuns: Int { max(1, runs ?? 5) }
    public var warmups: Int { max(0, warmupRuns ?? 1) }
    public var budgetSeconds: Double { maxSeconds ?? 30 }

    /// The engines that read the lists' Adblock Plus text, not their JSON (no dialect applies).
    static let filterTextEngines: Set<String> = ["adblock-rust", "ublock-origin"]

    /// The sample size for `engine`, when it has one.
    public func sample(for engine: String) -> Int? { samples?[engine] }

    /// What is wrong with the definition, if anything (checked on load).
    func problems(engines known: Set<String>) -> [String] {
        var problems: [String] = []
        if engines.isEmpty { problems.append("names no engine") }
        if lists.isEmpty { problems.append("names no rule list") }
        if Set(lists).count != lists.count { problems.append("names a rule list twice") }
        if apart && lists.count < 2 { problems.append("is \"apart\" with fewer than two lists") }
        if apart && model == .check { problems.append("checks lists \"apart\" (check one list, or the lists as one)") }
        if let draw {
            if draw.lists < 2 { problems.append("draws fewer than two lists") }
            if draw.rules < 1 { problems.append("draws lists of no rule") }
            if draw.from.isEmpty { problems.append("draws from no list") }
            if dialect != nil { problems.append("re-spells drawn lists (draw from the lists, or re-spell them, not both)") }
            if engines.contains("adblock-rust") { problems.append("asks adblock-rust about drawn lists, which have no Adblock Plus text") }
        }
        for engine in engines where !known.contains(engine) {
            problems.append("names the unknown engine \"\(engine)\" (known: \(known.sorted().joined(separator: ", ")))")
        }
        if let dialect {
            if Dialect.named(dialect) == nil {
                problems.append("names the unknown dialect \"\(dialect)\" (known: \(Dialect.documented.map(\.name).joined(separator: ", ")), mix-<seed>)")
            }
            for engine in engines where Self.filterTextEngines.contains(engine) {
                problems.append("applies a dialect to \(engine), which reads the Adblock Plus text")
            }
        }
        if let denseBudget {
            if model != .match { problems.append("gives a dense budget to a \(model.rawValue) benchmark (only a match loads lists)") }
            if denseBudget < 0 { problems.append("gives a negative dense budget") }
            for engine in engines where engine != "blockbench" { problems.append("gives a dense budget to \(engine), which takes none") }
        }
        if model == .match && requests == nil { problems.append("is a match benchmark without \"requests\"") }
        if model != .match && requests != nil { problems.append("names \"requests\" but its model, \(model.rawValue), answers none") }
        for (engine, size) in samples ?? [:] where size < 1 || !engines.contains(engine) {
            problems.append("has a sample of \(size) for \"\(engine)\", which it does not run or which is empty")
        }
        return problems
    }
}

public enum BenchmarkDefinitionError: Error, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case invalid(path: String, problems: [String])
    case noneSelected(String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): \(reason)"
        case .invalid(let path, let problems): "\(path): " + problems.joined(separator: "; ")
        case .noneSelected(let what): "no benchmark matches \(what)"
        }
    }
}

extension BenchmarkDefinition {
    /// Every `*.json` in `folder`, in name order, each checked.
    public static func loadAll(from folder: String, engines: Set<String>) throws(BenchmarkDefinitionError) -> [BenchmarkDefinition] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
        } catch {
            throw .unreadable(path: folder, reason: "not a readable folder")
        }
        var definitions: [BenchmarkDefinition] = []
        for file in names { definitions.append(try load(folder + "/" + file, engines: engines)) }
        return definitions
    }

    public static func load(_ path: String, engines: Set<String>) throws(BenchmarkDefinitionError) -> BenchmarkDefinition {
        var definition: BenchmarkDefinition
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            definition = try JSONDecoder().decode(BenchmarkDefinition.self, from: data)
        } catch let error as DecodingError {
            throw .unreadable(path: path, reason: "not a benchmark definition: \(Self.describe(error))")
        } catch {
            throw .unreadable(path: path, reason: "cannot be read")
        }
        definition.name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let problems = definition.problems(engines: engines)
        if !problems.isEmpty { throw .invalid(path: path, problems: problems) }
        return definition
    }

    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "\"\(key.stringValue)\" is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            (context.codingPath.map(\.stringValue).joined(separator: ".") + " " + context.debugDescription)
                .trimmingCharacters(in: .whitespaces)
        @unknown default: "\(error)"
        }
    }
}
