// PeerChild.swift — Engines
//
// The child process of a peer engine that reads Adblock Plus filter text (adblock-rust, uBlock
// Origin), and the line protocol every such child speaks: one JSON object a line each way, one
// answer per command, in order (the full protocol is at the top of
// Benchmarks/Peers/AdblockRust/adblock_peer.py):
//   hello  the child's versions and its clock's own cost, asked first of every new child;
//   build  one engine per list name from that list's ABP texts, timed inside the child;
//   match  a batch of requests (url, page URL, webRequest type) put to one or more engines, each
//          request timed inside the child, so the pipe and the JSON are not counted;
//   resident  the named engines serialized and loaded by a fresh process of the child's, its
//          resident memory before and after (ResidentAfterLoad.swift).
// The engines (AdblockRustEngine.swift, UBlockOriginEngine.swift) say how to start their child,
// what its exit statuses mean and what its build answers mean; as `PeerEngine`s they share the
// rest: their matchers (the child's engines asked together), their resident memory after load,
// the child's batch size and clock, and a version read once per process (a report and the engines
// it runs ask it of the same command).
// Tested by EnginesTests (AdblockRustEngineTests, UBlockOriginEngineTests).

import RequestContext
internal import ContentRuleList
internal import Foundation
internal import Synchronization

final class PeerChild {
    /// How messages name the child (its script's file name).
    let name: String
    /// Why the child cannot run here (nil: it can); every command then fails with it.
    let unavailable: String?
    /// Requests per `match` line.
    var batchSize = 1000
    /// The lists built in the child, by name.
    private(set) var built: Set<String> = []
    /// The clock's own share of each request time, as the child measured it (nanoseconds).
    private(set) var timerNanoseconds: Double?
    private let child: LineChild

    init(name: String, executable: String, arguments: [String], unavailable: String?) {
        self.name = name
        self.unavailable = unavailable
        child = LineChild(name: name, executable: executable, arguments: arguments)
    }

    /// Builds the engine `list` names from its ABP texts; the child's answer, with its figures.
    func build(_ list: BenchList) throws -> [String: Any] {
        guard let texts = list.abpTexts, !texts.isEmpty else {
            throw BenchEngineError.externalEngine(
                "no Adblock Plus text for \(list.name) (a `rules-abp` entry of the manifest whose safariList names it)")
        }
        let answer = try ask(["op": "build", "engine": list.name, "lists": texts.map { Data($0).base64EncodedString() }])
        built.insert(list.name)
        return answer
    }

    /// The verdicts of the engines built as `names` on `requests`, asked `batchSize` at a time.
    func verdicts(_ requests: [Request], engines names: [String]) throws -> [TimedVerdict] {
        var verdicts: [TimedVerdict] = []
        verdicts.reserveCapacity(requests.count)
        var start = 0
        while start < requests.count {
            let batch = requests[start..<min(requests.count, start + max(1, batchSize))]
            let rows = batch.map { [$0.url.string, $0.mainDocumentURL.string, Self.webRequestType($0.resourceType)] }
            let answer = try ask(["op": "match", "engines": names, "requests": rows])
            guard let blocked = answer["blocked"] as? [NSNumber], let times = answer["nanoseconds"] as? [NSNumber],
                blocked.count == batch.count, times.count == batch.count
            else {
                throw BenchEngineError.externalEngine("\(name) answered a batch of \(batch.count) requests with another count")
            }
            for (block, time) in zip(blocked, times) {
                verdicts.append(TimedVerdict(blocked: block.intValue != 0, nanoseconds: time.uint64Value))
            }
            start += batch.count
        }
        return verdicts
    }

    /// Sends one command and returns its answer; an answer with `ok` false is an error.
    func ask(_ command: [String: Any]) throws -> [String: Any] {
        if let unavailable { throw BenchEngineError.externalEngine(unavailable) }
        if try child.start() {
            // A new child has built nothing; it tells its clock's cost first.
            built = []
            let hello = try ask(["op": "hello"])
            timerNanoseconds = (hello["timerNanoseconds"] as? NSNumber)?.doubleValue
        }
        let text = try child.exchange(Array(try JSONSerialization.data(withJSONObject: command)))
        guard let answer = (try? JSONSerialization.jsonObject(with: Data(text))) as? [String: Any] else {
            throw BenchEngineError.externalEngine("\(name) answered something unreadable: \(String(decoding: text.prefix(200), as: UTF8.self))")
        }
        guard answer["ok"] as? Bool == true else {
            throw BenchEngineError.externalEngine("\(name): \(answer["error"] as? String ?? "failed")")
        }
        return answer
    }

    /// The webRequest type the peers read for a request's resource type (the inverse of the
    /// request sets' mapping, Corpora/README.md; types with no webRequest name are "other").
    static func webRequestType(_ type: ResourceTypes) -> String {
        switch type {
        case .topDocument: "main_frame"
        case .childDocument: "sub_frame"
        case .image: "image"
        case .styleSheet: "stylesheet"
        case .script: "script"
        case .font: "font"
        case .media: "media"
        case .ping: "ping"
        case .fetch: "xmlhttprequest"
        case .websocket: "websocket"
        case .cspReport: "csp_report"
        default: "other"
        }
    }

    /// Runs `command --version`, once per process for each command (later asks read the first
    /// answer): the version the child printed when it exits 0, or why it cannot run. `script` is
    /// the child's file, which must exist; `reason` gives the words for an exit status of the
    /// engine's own (127: env found no interpreter), nil for the generic ones.
    static func version(
        _ command: [String], script: String, reason: (_ status: Int32, _ output: String) -> String?
    ) -> (version: String?, unavailable: String?) {
        if let known = versions.withLock({ $0[command] }) { return known }
        let found: (version: String?, unavailable: String?)
        if !FileManager.default.fileExists(atPath: script) {
            found = (nil, "not run: \(script) is missing")
        } else {
            let run = probe(command + ["--version"])
            switch run.status {
            case nil: found = (nil, "not run: \(command[0]) cannot be started (\(run.output))")
            case 0: found = (run.output, nil)
            case let status?:
                found = (nil, reason(status, run.output) ?? "not run: \(command.joined(separator: " ")) --version exited \(status)")
            }
        }
        versions.withLock { $0[command] = found }
        return found
    }

    /// The versions read, by command.
    private static let versions = Mutex<[[String]: (version: String?, unavailable: String?)]>([:])

    /// Runs `command` through /usr/bin/env (a child's `--version`): its exit status and its
    /// output, or nil and why it could not be started (env exits 127 when the program is missing).
    static func probe(_ command: [String]) -> (status: Int32?, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return (nil, "\(error)") }
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}

/// A peer engine whose engines live in a `PeerChild`: what it shares with the other peers.
protocol PeerEngine: BenchEngine {
    var child: PeerChild { get }
}

extension PeerEngine {
    /// A peer is measured, never conformed.
    public var conformed: Bool { false }

    /// Requests per `match` line.
    public var batchSize: Int {
        get { child.batchSize }
        set { child.batchSize = newValue }
    }

    /// The clock's own share of each request time, as the child measured it (nanoseconds).
    public var timerNanoseconds: Double? { child.timerNanoseconds }

    public func matcher(for list: BenchList) throws -> any BenchMatcher {
        try jointMatcher(for: [list])!
    }

    public func jointMatcher(for lists: [BenchList]) throws -> (any BenchMatcher)? {
        try ensureBuilt(lists)
        return PeerMatcher(child: child, names: lists.map(\.name))
    }

    /// Builds `list` in the child: the compile as the child timed and measured it, the engine's
    /// serialized form named `serialized` among its sections, and the child's whole answer.
    func build(_ list: BenchList, serialized: String) throws -> (run: CompileRun, answer: [String: Any]) {
        let answer = try child.build(list)
        guard let seconds = answer["seconds"] as? Double, let bytes = (answer["bytes"] as? NSNumber)?.intValue else {
            throw BenchEngineError.externalEngine("\(child.name) answered a build without its figures")
        }
        var run = CompileRun()
        run.ownSeconds = seconds
        run.phases = [Figure("build (in the child)", seconds)]
        run.bytes = bytes
        run.sections = [Figure(serialized, Double(bytes))]
        run.counters = [Figure("filter lists", Double(list.abpTexts?.count ?? 0))]
        run.ownMemoryGrowthBytes = (answer["rssGrowthBytes"] as? NSNumber)?.intValue
        return (run, answer)
    }

    /// Compiles those of `lists` that the child has not built.
    func ensureBuilt(_ lists: [BenchList]) throws {
        for list in lists where !child.built.contains(list.name) { _ = try compile(list) }
    }

    /// The engines built for `lists`, serialized and each loaded into an engine of its own in a
    /// fresh process of the child's (its `resident` command): that process's resident memory.
    public func residentAfterLoad(_ lists: [BenchList]) throws -> ResidentAfterLoad {
        try ensureBuilt(lists)
        let answer = try ask(["op": "resident", "engines": lists.map(\.name)])
        func bytes(_ key: String) throws -> Int {
            guard let value = (answer[key] as? NSNumber)?.intValue else {
                throw BenchEngineError.externalEngine("\(child.name) answered `resident` without \(key)")
            }
            return value
        }
        return ResidentAfterLoad(
            loadedBytes: try bytes("loadedBytes"), residentBefore: try bytes("residentBefore"), residentAfter: try bytes("residentAfter"),
            anonymousBefore: try bytes("anonymousBefore"), anonymousAfter: try bytes("anonymousAfter"))
    }

    /// Sends one command to the child and returns its answer (PeerChild.ask).
    func ask(_ command: [String: Any]) throws -> [String: Any] { try child.ask(command) }
}

/// A peer's answerer: the engines built as `names` in its child, asked together about each request.
final class PeerMatcher: SelfTimedMatcher {
    let child: PeerChild
    let names: [String]

    init(child: PeerChild, names: [String]) {
        self.child = child
        self.names = names
    }

    func verdicts(_ requests: [Request]) throws -> [TimedVerdict] { try child.verdicts(requests, engines: names) }

    func outcome(for request: Request) throws -> MatchOutcome {
        let blocked = try verdicts([request])[0].blocked
        return MatchOutcome(actions: blocked ? [.block] : [], matchingRules: [], appliesGlobalStyleSheet: true)
    }

    var counters: [Figure] { [] }
}
