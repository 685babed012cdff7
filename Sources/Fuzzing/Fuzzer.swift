// Fuzzer.swift — Fuzzing
//
// The driver: runs the levels one after the other, each for its share of the time or for a fixed
// number of cases, on one or more worker threads. Case `i` of a level is generated from
// (seed, level, i) alone, so a run with `--cases N` tries exactly the same cases on any machine
// and with any number of workers, and any case can be replayed by itself. Every disagreement is
// shrunk; disagreements that shrink to a case already found are counted, not listed again.
// Tested by FuzzingTests.

import Foundation
import Synchronization

public struct FuzzOptions: Sendable {
    public var seed: UInt64 = 0
    public var levels: [FuzzLevel] = FuzzLevel.allCases
    /// Seconds for all the levels together (split evenly); nil: `cases` decides.
    public var seconds: Double?
    /// Cases per level; nil: `seconds` decides.
    public var cases: Int?
    public var workers = 1
    /// Distinct shrunk findings kept per level; further disagreements are counted only.
    public var maximumFindings = 10
    public var runner = CaseRunner()

    public init() {}
}

public struct LevelReport: Sendable {
    public var level: FuzzLevel
    public var tally = LevelTally()
    /// Shrunk, distinct, in case order.
    public var findings: [Finding] = []
    public var seconds = 0.0
    /// The slowest case: its number and seconds (the budget per case shows here).
    public var slowestCase = 0
    public var slowestSeconds = 0.0
}

public struct Fuzzer: Sendable {
    public var options: FuzzOptions

    public init(options: FuzzOptions) { self.options = options }

    /// Runs every level; `progress` hears about each level now and then (from any thread).
    public func run(progress: (@Sendable (LevelReport) -> Void)? = nil) -> [LevelReport] {
        let share = options.seconds.map { $0 / Double(max(1, options.levels.count)) }
        return options.levels.map { run($0, seconds: share, cases: options.cases, progress: progress) }
    }

    public func run(_ level: FuzzLevel, seconds: Double?, cases: Int?, progress: (@Sendable (LevelReport) -> Void)? = nil) -> LevelReport {
        let clock = ContinuousClock()
        let started = clock.now
        let deadline = seconds.map { started + .milliseconds(Int64($0 * 1000)) }
        let limit = cases ?? Int.max
        let next = Atomic<Int>(0)
        let shared = Mutex(LevelReport(level: level))
        let options = options
        let workers = max(1, options.workers)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            var local = LevelTally()
            var lastReport = clock.now
            while true {
                if let deadline, clock.now >= deadline { break }
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                if index >= limit { break }
                let caseStarted = clock.now
                let result = options.runner.run(level, seed: options.seed, index: index)
                let caseSeconds = (clock.now - caseStarted).seconds
                local += result.tally
                if let disagreement = result.disagreement {
                    let keep = shared.withLock { $0.findings.count < options.maximumFindings }
                    if keep {
                        let shrunk = options.runner.shrink(disagreement)
                        let finding = Finding(level: level, seed: options.seed, caseIndex: index, disagreement: shrunk, originalSize: disagreement.size)
                        shared.withLock { report in
                            if !report.findings.contains(where: { $0.disagreement == shrunk }) && report.findings.count < options.maximumFindings {
                                report.findings.append(finding)
                            }
                        }
                    }
                }
                shared.withLock { report in
                    if caseSeconds > report.slowestSeconds {
                        report.slowestSeconds = caseSeconds
                        report.slowestCase = index
                    }
                }
                if clock.now - lastReport > .seconds(2) {
                    lastReport = clock.now
                    let snapshot = shared.withLock { report in
                        report.tally += local
                        local = LevelTally()
                        report.seconds = (clock.now - started).seconds
                        return report
                    }
                    progress?(snapshot)
                }
            }
            shared.withLock { $0.tally += local }
        }
        var report = shared.withLock { $0 }
        report.seconds = (clock.now - started).seconds
        report.findings.sort { $0.caseIndex < $1.caseIndex }
        return report
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
