// ResidentAfterLoad.swift — Engines
//
// Resident memory after loading: what a browser's process holds once it has loaded the lists it
// answers with, measured in a fresh process from Linux's /proc/self/status, before the load and
// after it (the lists kept, what the load read them from let go):
//
//   VmRSS    every resident page of the process: its heap and anonymous mappings, and the pages
//            of its executable and libraries the load touched for the first time
//   RssAnon  the anonymous part alone: the heap and the mappings the process made for itself,
//            which is what the loaded lists hold (code pages are shared with every process that
//            runs the same program)
//
// Around the load the allocator is held still (`SteadyAllocator`, below): what the load's passing
// buffers leave in glibc's heaps once freed moves from run to run, and a browser that has run a
// while has reused it; so the figures count what the lists keep, not what the load let go.
//
// BlockBench's figure comes from `blockbench load` (each compiled file read and validated, the
// lists made into a `ContentBlockers`), with what the loaded lists hold by structure beside it
// (Search/HeldMemory.swift: the bytes their structures allocated and keep, the same for the same
// files whatever the allocator and the system did, which the resident pages are not), a peer's from its own child (adblock-rust:
// its serialized engine deserialized, Benchmarks/Peers/AdblockRust/adblock_peer.py; uBlock Origin:
// its engine's selfie read back, Benchmarks/Peers/UBlockOrigin/ubo_peer.mjs). Either
// process's figures are its own: the measuring process's memory, whatever it did before, is not
// in them.
// Tested by BenchmarksTests (ManyBlockersTests), and the peers' by EnginesTests (AdblockRustEngineTests,
// UBlockOriginEngineTests).

internal import ContentBlocker
internal import Foundation
internal import Search
#if canImport(Glibc)
internal import Glibc
#endif

/// A fresh process's resident memory before and after a load.
public struct ResidentAfterLoad: Codable, Hashable, Sendable {
    /// What was loaded, in bytes (BlockBench: the compiled files; adblock-rust: its serialized
    /// engines; uBlock Origin: its engines' selfies).
    public var loadedBytes: Int
    /// VmRSS and RssAnon before the load and after it, in bytes.
    public var residentBefore: Int
    public var residentAfter: Int
    public var anonymousBefore: Int
    public var anonymousAfter: Int
    /// What the loaded lists' structures hold, in bytes by structure (BlockBench's:
    /// `ContentBlockers.heldMemory`; nil for a peer, whose structures are its own).
    public var held: [Figure]?
    /// Of `heldBytes`, the arrays' capacity past their elements.
    public var heldSpareCapacity: Int?

    public init(
        loadedBytes: Int, residentBefore: Int, residentAfter: Int, anonymousBefore: Int, anonymousAfter: Int, held: [Figure]? = nil,
        heldSpareCapacity: Int? = nil
    ) {
        self.loadedBytes = loadedBytes
        self.residentBefore = residentBefore
        self.residentAfter = residentAfter
        self.anonymousBefore = anonymousBefore
        self.anonymousAfter = anonymousAfter
        self.held = held
        self.heldSpareCapacity = heldSpareCapacity
    }

    /// The bytes the loaded lists' structures hold in all (nil: not known).
    public var heldBytes: Int? { held.map { $0.reduce(0) { $0 + Int($1.value) } } }
    /// `heldBytes` over the bytes loaded.
    public var heldTimesLoadedBytes: Double? { heldBytes.flatMap { loadedBytes > 0 ? Double($0) / Double(loadedBytes) : nil } }

    /// The growth of the process's anonymous resident memory across the load: the table's figure.
    public var anonymousGrowth: Int { anonymousAfter - anonymousBefore }
    public var residentGrowth: Int { residentAfter - residentBefore }
    /// `anonymousGrowth` over the bytes loaded.
    public var timesLoadedBytes: Double? { loadedBytes > 0 ? Double(anonymousGrowth) / Double(loadedBytes) : nil }

    /// This process's (VmRSS, RssAnon) in bytes, from /proc/self/status; nil where it is missing.
    public static func current() -> (resident: Int, anonymous: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        func bytes(_ field: String) -> Int? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        guard let resident = bytes("VmRSS"), let anonymous = bytes("RssAnon") else { return nil }
        return (resident, anonymous)
    }

    /// Loads the compiled files at `paths` as a browser does (each read and validated, the lists
    /// made into one `ContentBlockers`, an evaluator each) in this process, and measures it before
    /// and after, the allocator held still (`SteadyAllocator`: its threshold stays fixed in this
    /// process after); also the load's seconds. `denseBudgetBytes`: the lists' dense tables'
    /// budget (Search/DenseBudget.swift; nil: the default). For `blockbench load`: this process
    /// must have done nothing else yet.
    public static func measureLoading(
        files paths: [String], denseBudgetBytes: Int? = nil
    ) throws -> (figures: ResidentAfterLoad, seconds: Double) {
        let budget = denseBudgetBytes.map(DenseBudget.init(bytes:)) ?? .standard
        SteadyAllocator.fixThreshold()
        guard let before = current() else { throw BenchEngineError.externalEngine("no /proc/self/status to read resident memory from") }
        var loadedBytes = 0
        let started = DispatchTime.now().uptimeNanoseconds
        let blockers = ContentBlockers(
            try paths.map { path in
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
                loadedBytes += bytes.count
                return try CompiledRuleList(validating: bytes, denseBudget: budget)
            })
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        SteadyAllocator.giveBackFreePages()
        guard let after = current() else { throw BenchEngineError.externalEngine("no /proc/self/status to read resident memory from") }
        let memory = blockers.heldMemory
        let held = memory.parts.map { Figure($0.name, Double($0.bytes)) }
        return (
            ResidentAfterLoad(
                loadedBytes: loadedBytes, residentBefore: before.resident, residentAfter: after.resident, anonymousBefore: before.anonymous,
                anonymousAfter: after.anonymous, held: held,
                heldSpareCapacity: memory.spareCapacity),
            seconds
        )
    }
}

/// The allocator held still around a load that is measured (glibc, looked up at run time:
/// elsewhere nothing is done). glibc raises its threshold for mapping a block to the size of the
/// largest mapped block freed, and the size past which a heap's free top goes back to twice
/// that; a load's passing buffers (the file's bytes, the tables joined while reading it, the
/// products built and let go), freed, then stay resident in a heap, more or less of them from
/// run to run as the load's threads take its work in another order and into another arena. So
/// before the load the threshold is fixed at glibc's own starting value (`mallopt`, which ends
/// its moving), a block of that size or more mapped and given back when freed; after it, the
/// heaps' free pages are given back (`malloc_trim(0)`). What stays resident is what the lists
/// keep, with the allocator's overhead for it, as in a browser that has long since reused what
/// its load let go. The adblock-rust peer's child does the same; uBO's Node fixes the threshold
/// alone (their headers say how).
enum SteadyAllocator {
    /// glibc's starting threshold for mapping a block (`DEFAULT_MMAP_THRESHOLD_MIN`).
    static let mmapThreshold: Int32 = 128 << 10

    #if os(Linux)
    private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        dlopen(nil, RTLD_NOW).flatMap { dlsym($0, name) }
    }
    private static let mallopt: (@convention(c) (Int32, Int32) -> Int32)? = symbol("mallopt").map {
        unsafeBitCast($0, to: (@convention(c) (Int32, Int32) -> Int32).self)
    }
    private static let trim: (@convention(c) (Int) -> Int32)? = symbol("malloc_trim").map {
        unsafeBitCast($0, to: (@convention(c) (Int) -> Int32).self)
    }
    #endif

    /// Fixes the threshold for mapping a block (glibc's `M_MMAP_THRESHOLD`) before the load.
    static func fixThreshold() {
        #if os(Linux)
        _ = mallopt?(-3, mmapThreshold)  // M_MMAP_THRESHOLD
        #endif
    }

    /// Gives the heaps' free pages back after the load.
    static func giveBackFreePages() {
        #if os(Linux)
        _ = trim?(0)
        #endif
    }
}

/// An engine that can load what it made of lists in a fresh process of its own and say what that
/// process holds (a peer in a child process: BlockBench's own is measured through `blockbench load`).
public protocol ResidentLoadMeasuring: BenchEngine {
    func residentAfterLoad(_ lists: [BenchList]) throws -> ResidentAfterLoad
}
