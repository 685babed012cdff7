// TableMemoryTests.swift — the tables' memory (TableMemory.swift): an allocation of a megabyte or
// more starts on a 2 MB boundary, in a mapping advised as huge pages (Linux), rounded up to whole
// huge pages only where that adds little, and holds every byte asked for; a small one comes from
// the ordinary allocator with the alignment asked for; a load's freed scratch goes back to the
// system (`LoadScratch`). And an array a reader grew is kept in storage of its size
// (HeldMemory.swift).

import Testing
@testable import Search

#if canImport(Glibc)
import Glibc
#endif

@Suite struct TableMemoryTests {
    #if os(Linux)
    /// The VmFlags line of the mapping holding `address`, from /proc/self/smaps (nil if not found).
    private func mappingFlags(of address: UnsafeRawPointer) -> String? {
        guard let file = fopen("/proc/self/smaps", "r") else { return nil }
        defer { fclose(file) }
        let target = UInt(bitPattern: address)
        var inside = false
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // A mapping's first line: "start-end perms ...", addresses in hexadecimal.
            if let dash = text.firstIndex(of: "-"), let space = text.firstIndex(of: " "), dash < space,
                let start = UInt(text[..<dash], radix: 16), let end = UInt(text[text.index(after: dash)..<space], radix: 16)
            {
                inside = start <= target && target < end
            } else if inside && text.hasPrefix("VmFlags:") {
                return text
            }
        }
        return nil
    }
    #endif

    @Test func aLargeTableLiesOnHugePageBoundariesAndHoldsEveryByte() throws {
        let count = 3 << 20 + 12_345
        let memory = TableMemory(byteCount: count, alignment: 64)
        let bytes = memory.base.bindMemory(to: UInt8.self, capacity: count)
        for index in stride(from: 0, to: count, by: 4093) { bytes[index] = UInt8(truncatingIfNeeded: index) }
        bytes[count - 1] = 0xA5
        for index in stride(from: 0, to: count, by: 4093) { #expect(bytes[index] == UInt8(truncatingIfNeeded: index)) }
        #expect(bytes[count - 1] == 0xA5)
        #if os(Linux)
        #expect(UInt(bitPattern: memory.base) % UInt(TableMemory.hugePage) == 0)
        // `hg`: the mapping is advised as huge pages (whether the system then uses them is its setting).
        let flags = try #require(mappingFlags(of: memory.base))
        #expect(flags.split(whereSeparator: \.isWhitespace).contains("hg"), "\(flags)")
        #endif
    }

    /// A table is mapped to whole huge pages only where that adds at most an eighth of it; past
    /// that, to whole 4 KB pages (the rest of a huge page would be memory nothing uses).
    @Test func aTableIsRoundedUpToAHugePageOnlyWhereThatAddsLittle() {
        let huge = TableMemory.hugePage
        #expect(TableMemory.mappedLength(huge) == huge)
        #expect(TableMemory.mappedLength(huge - 4096) == huge)
        #expect(TableMemory.mappedLength(2 * huge - huge / 8) == 2 * huge)
        #expect(TableMemory.mappedLength(2 * huge - huge / 2) == 2 * huge - huge / 2)
        #expect(TableMemory.mappedLength(2 * huge + 1) == 2 * huge + 4096)
        #expect(TableMemory.mappedLength((1 << 20) + 10) == (1 << 20) + 4096)
        let count = 2 * huge + 12_345
        let memory = TableMemory(byteCount: count, alignment: 64)
        #expect(memory.mappedLength == 0 || memory.mappedLength == 2 * huge + 16_384)
    }

    /// With huge pages turned off (`TablePages.huge`), a large table is the allocator's: its
    /// mapping is not advised as huge pages.
    @Test func aLargeTableWithoutHugePagesIsTheAllocators() throws {
        let count = 3 << 20
        let memory = TableMemory(byteCount: count, alignment: 64, huge: false)
        #expect(UInt(bitPattern: memory.base) % 64 == 0)
        memory.base.storeBytes(of: 0xA5, toByteOffset: count - 1, as: UInt8.self)
        #expect(memory.base.load(fromByteOffset: count - 1, as: UInt8.self) == 0xA5)
        #if os(Linux)
        let flags = try #require(mappingFlags(of: memory.base))
        #expect(!flags.split(whereSeparator: \.isWhitespace).contains("hg"), "\(flags)")
        #endif
    }

    @Test func aSmallTableHasTheAlignmentAskedFor() {
        for alignment in [16, 64] {
            let memory = TableMemory(byteCount: 1000, alignment: alignment)
            #expect(UInt(bitPattern: memory.base) % UInt(alignment) == 0)
            memory.base.storeBytes(of: 7, toByteOffset: 999, as: UInt8.self)
            #expect(memory.base.load(fromByteOffset: 999, as: UInt8.self) == 7)
        }
    }

    /// Many tables made and freed: each unmapped with its object (200 leaked 64 MB mappings, never
    /// touched, would grow the process's address space by 12.8 GB: far more than the tests running
    /// beside this one allocate).
    @Test func tablesAreFreedWithTheirObjects() throws {
        #if os(Linux)
        /// The process's virtual size in kB (/proc/self/status's VmSize).
        func virtualKB() -> Int {
            guard let file = fopen("/proc/self/status", "r") else { return 0 }
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 512)
            while fgets(&line, Int32(line.count), file) != nil {
                let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                // ("VmSize:", a tab, spaces to align the number (none for a wide one), "kB".)
                if text.hasPrefix("VmSize:") { return Int(text.dropFirst(7).split(whereSeparator: \.isWhitespace).first ?? "") ?? 0 }
            }
            return 0
        }
        let before = virtualKB()
        #expect(before > 0)
        for _ in 0..<200 { _ = TableMemory(byteCount: 64 << 20, alignment: 64) }
        let after = virtualKB()
        #expect(after > 0 && after < before + 4_000_000, "address space \(before) kB before, \(after) kB after")
        #endif
    }
}

/// Whether AddressSanitizer's allocator serves this process (.ci/sanitizers): it holds freed
/// blocks in its quarantine, and glibc's heap, which the release trims, is not the one in use.
private let underAddressSanitizer: Bool = {
    #if os(Linux)
    guard let process = dlopen(nil, RTLD_NOW) else { return false }
    return dlsym(process, "__asan_init") != nil
    #else
    return false
    #endif
}()

/// A load's scratch, freed into the heap, is given back to the system (glibc's `malloc_trim`):
/// blocks of a load's sizes, allocated after a larger one raised glibc's mmap threshold past them,
/// stay resident once freed until the release returns them.
@Test(.enabled(if: !underAddressSanitizer, "AddressSanitizer's allocator keeps freed blocks in its quarantine"))
func aLoadsFreedScratchLeavesResidentMemory() throws {
    #if os(Linux)
    func anonymousKB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("RssAnon:") })
        else { return -1 }
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? -1
    }
    // A freed block above the mmap threshold raises it: later blocks of this size come from the heap.
    free(malloc(16 << 20))
    let blocks = (0..<64).map { _ -> UnsafeMutableRawPointer in
        let block = malloc(256 << 10)!
        memset(block, 1, 256 << 10)
        return block
    }
    // The last block stays, so that the heap's top cannot shrink by itself.
    for block in blocks.dropLast() { free(block) }
    let before = anonymousKB()
    LoadScratch.release(afterLoading: LoadScratch.minimumFileBytes)
    let after = anonymousKB()
    free(blocks.last!)
    try #require(before > 0 && after > 0)
    // 63 blocks of 256 KB were freed: most of their 16 MB goes back.
    #expect(before - after > 8_000, "RssAnon \(before) kB before the release, \(after) kB after")
    #endif
}

/// An array grown by appending is kept in storage of its size (`fitted`), its elements the same.
@Test func aGrownArrayIsFittedToItsElements() {
    var grown: [UInt32] = []
    grown.reserveCapacity(1_000)
    for value in 0..<100 { grown.append(UInt32(value)) }
    #expect(grown.capacity > grown.count + grown.count / 8)
    let fitted = grown.fitted()
    #expect(fitted == grown)
    #expect(fitted.capacity < fitted.count + fitted.count / 8)
    let exact = [UInt8](repeating: 7, count: 100)
    #expect(exact.fitted().capacity == exact.capacity)
}
