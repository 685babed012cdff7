// HistoryStoreTests.swift — ReportsTests: the history as data (Sources/Reports/History/:
// HeadlineMeasures, RunRecord, RecordFigures, HistoryStore). A record keeps the headline measures
// with floats cut to 5 significant digits and counts exact, ratios to BlockBench from the same
// run; an old history.jsonl line converts to the same measures; the store round-trips through
// export and import; an oversized record is cut to fit; and a thousand runs shaped like the
// shipped benchmarks' take at most 8 MB and draw their trends (TrendsPage).

import Foundation
import Testing
@testable import Reports
@testable import SeededRandom
import TestSupport

@Suite struct HistoryStoreTests {
    static func temporaryStore() -> HistoryStore {
        HistoryStore(root: FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)").path)
    }

    static let phases = ["parse", "plan", "nfa", "dfa", "minimize", "emit", "other"]

    /// The engines beside BlockBench in the shipped compile benchmark of `list`.
    static func peers(_ list: String) -> [String] { list.contains("+") ? ["adblock-rust"] : ["webkit", "pcre2-jit", "pcre2"] }

    /// One run's flat metrics ("benchmark/engine/metric", as a report's HistoryLine holds them)
    /// for the shipped benchmarks' shape: 4 check, 6 compile and 14 match benchmarks, each engine
    /// with every metric a gate run's report writes (most of which a record drops).
    static func flatMetrics(run: Int, generator: inout SplitMix64) -> [String: Double] {
        func noisy(_ value: Double) -> Double { value * Double.random(in: 0.7...1.3, using: &generator) }
        var flat: [String: Double] = [:]
        for list in ["ddg-tds-reference", "easylist", "easyprivacy", "kablock"] {
            flat["check-\(list)/blockbench/seconds"] = noisy(0.04)
            flat["check-\(list)/blockbench/errors"] = 0
            flat["check-\(list)/blockbench/runs"] = 5
        }
        for list in ["ddg-tds-reference", "easylist", "easyprivacy", "kablock", "easylist+easyprivacy", "easylist+easyprivacy-apart"] {
            let name = "compile-\(list)"
            for metric in ["seconds", "load seconds", "peak memory", "memory growth"] { flat["\(name)/blockbench/\(metric)"] = noisy(0.2) }
            flat["\(name)/blockbench/bytes"] = Double(2_171_659 + run)
            flat["\(name)/blockbench/heap peak"] = 103_642_601
            flat["\(name)/blockbench/url states"] = 19_479
            flat["\(name)/blockbench/instructions total"] = 8_412_345_678
            for phase in phases {
                flat["\(name)/blockbench/instructions \(phase)"] = Double(1_234_567_890 + run)
                // The compile's phases are timed; "other" is only counted.
                if phase != "other" { flat["\(name)/blockbench/phase.\(phase)"] = noisy(0.012345678) }
            }
            for engine in peers(list) {
                for metric in ["seconds", "peak memory", "time ratio", "bytes ratio", "phase.pcre2 compile"] { flat["\(name)/\(engine)/\(metric)"] = noisy(2.2) }
                flat["\(name)/\(engine)/bytes"] = 18_696_969
            }
        }
        for list in ["ddg-tds-reference", "easylist", "easyprivacy", "kablock"] {
            for requests in ["regressions", "requests", "top500"] { addMatch("match-\(list)-\(requests)", to: &flat, generator: &generator) }
        }
        addMatch("match-easylist+easyprivacy-requests", to: &flat, generator: &generator)
        addMatch("match-easylist+easyprivacy-apart-requests", to: &flat, generator: &generator)
        return flat
    }

    static func addMatch(_ name: String, to flat: inout [String: Double], generator: inout SplitMix64) {
        func noisy(_ value: Double) -> Double { value * Double.random(in: 0.7...1.3, using: &generator) }
        for metric in ["seconds", "median", "p90", "p99", "max", "requests per second", "ns per URL byte", "floor"] {
            flat["\(name)/blockbench/\(metric)"] = noisy(441.123)
        }
        for metric in ["instructions per request", "instructions per request, first pass", "instructions to load", "L1 data misses per request",
            "L2 data misses per request", "interpreter steps per request", "program runs per request"]
        {
            flat["\(name)/blockbench/\(metric)"] = 25_495.123456
        }
        flat["\(name)/blockbench/requests with actions"] = 3_619
        flat["\(name)/blockbench/actions"] = 3_700
        for engine in name.contains("+") ? ["adblock-rust"] : ["pcre2-jit", "pcre2"] {
            for metric in ["seconds", "median", "p90", "p99", "max", "time ratio", "requests"] { flat["\(name)/\(engine)/\(metric)"] = noisy(41_612_345.6) }
        }
    }

    @Test func aRecordKeepsTheHeadlineMeasures() {
        var generator = SplitMix64(seed: 1)
        let flat = Self.flatMetrics(run: 0, generator: &generator)
        let record = RunRecord(
            date: "2026-11-28T04:57:49Z", revision: "81e0e14518", kind: "report", machine: "AMD EPYC, 2 cores", toolchain: "Swift 6.3.1",
            figures: RunRecord.figures(flat: flat))
        // Exact counts as they were; floats to 5 significant digits.
        #expect(record.value("compile-easylist", "blockbench", "instr.parse") == 1_234_567_890)
        #expect(record.value("compile-easylist", "blockbench", "instr") == 8_412_345_678)
        #expect(record.value("match-easylist-requests", "blockbench", "instr/req") == 25_495)
        #expect(record.value("match-easylist-requests", "blockbench", "hits") == 3_619)
        // A match benchmark's time is its median; metrics records do not keep are gone.
        #expect(record.value("match-easylist-requests", "blockbench", "time") == nil)
        #expect(record.value("match-easylist-requests", "blockbench", "p90") == nil)
        #expect(record.value("compile-easylist", "webkit", "time.pcre2 compile") == nil)
        // Ratios to BlockBench in the same run, not to the best engine.
        let ours = flat["match-easylist-requests/blockbench/median"]!
        let theirs = flat["match-easylist-requests/pcre2/median"]!
        #expect(record.value("match-easylist-requests", "pcre2", "ratio") == RunRecord.cut(RunRecord.cut(theirs) / RunRecord.cut(ours)))
        #expect(record.value("compile-easylist", "webkit", "bytes ratio") == RunRecord.cut(18_696_969.0 / 2_171_659))
        #expect(RunRecord.cut(0.001084944) == 0.0010849)
        #expect(RunRecord.cut(441.123) == 441.12)
        #expect(record.fingerprint == RunRecord.fingerprint(machine: "AMD EPYC, 2 cores", toolchain: "Swift 6.3.1"))
        #expect(record.id == "20261128T045749Z-81e0e14518-report")
    }

    @Test func anOldHistoryLineConvertsAndTheStoreRoundTrips() throws {
        let old = """
            {"date":"2026-11-23T12:13:58Z","machine":"AMD EPYC, 2 cores","metrics":{"compile-kablock\\/blockbench\\/bytes":14729,\
            "compile-kablock\\/blockbench\\/seconds":0.0066704123,"compile-kablock\\/blockbench\\/instructions parse":123456789,\
            "compile-kablock\\/pcre2\\/seconds":0.010309},"revision":"73cad9558e","toolchain":"Swift version 6.3.1"}
            {"date":"2026-11-24T12:13:58Z","gate":"regression","machine":"AMD EPYC, 2 cores","metrics":{},"revision":"c1d5721255","toolchain":"Swift version 6.3.1"}
            not a record
            """
        let store = Self.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: store.root) }
        #expect(try store.importLines(old) == (added: 2, present: 0))
        #expect(try store.importLines(old) == (added: 0, present: 2))
        let records = store.records()
        #expect(records.map(\.revision) == ["73cad9558e", "c1d5721255"])
        #expect(records[0].value("compile-kablock", "blockbench", "time") == 0.0066704)
        #expect(records[0].value("compile-kablock", "blockbench", "instr.parse") == 123_456_789)
        #expect(records[0].value("compile-kablock", "pcre2", "ratio") == RunRecord.cut(0.010309 / 0.0066704))
        #expect(records[1].kind == "gate" && records[1].gate == "regression")
        // Export, then import into another store: the same records.
        let other = Self.temporaryStore()
        defer { try? FileManager.default.removeItem(atPath: other.root) }
        #expect(try other.importLines(try store.export()) == (added: 2, present: 0))
        #expect(other.records() == records)
    }

    @Test func anOversizedRecordIsCutToFit() throws {
        var figures: [String: [String: [String: Double]]] = [:]
        for index in 0..<200 {
            figures["benchmark-\(index)"] = ["blockbench": ["time.parse": 0.123456, "bytes": 1_000_000], "pcre2": ["time": 1.23456]]
        }
        let record = RunRecord(date: "2026-11-28T00:00:00Z", revision: "r", kind: "report", machine: "m", toolchain: "t", figures: figures)
        #expect(record.encodedBytes > RunRecord.maximumBytes)
        let fitted = try record.fitted()
        #expect(fitted.encodedBytes <= RunRecord.maximumBytes)
        #expect(fitted.figures.values.allSatisfy { $0["pcre2"] == nil && $0["blockbench"]?["time.parse"] == nil })
    }

    @Test func aThousandRunsTakeAtMostEightMegabytesAndDrawTheirTrends() throws {
        let store = Self.temporaryStore()
        let pages = store.root + "-trends"
        defer {
            try? FileManager.default.removeItem(atPath: store.root)
            try? FileManager.default.removeItem(atPath: pages)
        }
        var generator = SplitMix64(seed: 7)
        for run in 0..<1_000 {
            let date = String(format: "2027-%02d-%02dT%02d:%02d:00Z", run / 100 % 12 + 1, run % 28 + 1, run / 60 % 24, run % 60)
            let record = RunRecord(
                date: date, revision: String(format: "%010x", run * 7_919), kind: run % 3 == 0 ? "gate" : "report", machine: "AMD EPYC, 2 cores",
                toolchain: "Swift version 6.3.1", gate: run % 3 == 0 ? (run % 50 == 0 ? "regression" : "pass") : nil,
                figures: RunRecord.figures(flat: Self.flatMetrics(run: run, generator: &generator)))
            #expect(record.encodedBytes <= RunRecord.maximumBytes, "run \(run): \(record.encodedBytes) bytes, not cut")
            try store.add(record)
        }
        let records = store.records()
        #expect(records.count == 1_000)
        #expect(store.bytes() <= 8_000_000, "\(store.bytes()) bytes")
        let page = TrendsPage(records: records, baseline: nil)
        let index = try page.write(to: pages)
        #expect(page.runs.count == 1_000 && page.benchmarks.count == 24)
        #expect(try String(contentsOfFile: index, encoding: .utf8).contains("1000 recorded runs"))
        let easylist = try String(contentsOfFile: pages + "/compile-easylist.html", encoding: .utf8)
        #expect(easylist.contains("instructions per compile phase") && easylist.contains("<polyline"))
    }
}
