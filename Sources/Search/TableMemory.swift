// TableMemory.swift — Search
//
// The memory of the tables a run reads at random (the dense tables' entries, the programs'
// packed arrays, the domain indexes). A list's tables are megabytes read a line here and a line there: in 4 KB pages
// each line read may be a page the TLB does not hold (a table of megabytes is hundreds of 4 KB
// pages), a page walk on top of the miss. Allocations of a megabyte or more are
// mapped on 2 MB boundaries and advised as huge pages (Linux's `MADV_HUGEPAGE`: transparent huge
// pages, where the system's setting is `madvise` or `always`), so that a table of a few megabytes
// is a few TLB entries; a mapping is rounded up to whole 2 MB pages only where that adds little
// (`mappedLength`), its rest past the last whole one otherwise in 4 KB pages, which are resident
// memory a list would not use. Smaller allocations, other systems, a
// refused mapping and a process that turned huge pages off (`TablePages.huge`) take the ordinary
// allocator. After a load, the scratch its reading freed into the heap is given back to the
// system (`LoadScratch`).
// Tested by SearchTests/TableMemoryTests.swift.

#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Whether the tables of a list loaded from now on may be mapped as huge pages (the default): an
/// embedder that must not round a table up to 2 MB turns it off before loading; `blockbench
/// profile --compare-pages` loads a list both ways and times them in turn.
public enum TablePages {
    private static let hugeAllowed = Atomic<Bool>(true)

    public static var huge: Bool {
        get { hugeAllowed.load(ordering: .relaxed) }
        set { hugeAllowed.store(newValue, ordering: .relaxed) }
    }
}

/// A load's scratch given back to the system. Reading a compiled file decodes and joins its
/// tables through buffers many times the size of what the list keeps; freed, they stay in the
/// allocator's heap, resident, unless the allocator hands them back (glibc keeps a freed block
/// of the sizes a load frees, its moving mmap threshold having risen past them). After a load of
/// a file of `minimumFileBytes` or more, the heap's free pages are returned (glibc's
/// `malloc_trim`, looked up at run time: elsewhere nothing is done). Smaller files leave little
/// scratch, and a trim walks the whole heap.
enum LoadScratch {
    static let minimumFileBytes = 64 << 10

    #if os(Linux)
    private typealias Trim = @convention(c) (Int) -> Int32
    private static let trim: Trim? = {
        guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
    }()
    #endif

    /// Returns the heap's free pages to the system after a load of `fileBytes` (see above).
    static func release(afterLoading fileBytes: Int) {
        #if os(Linux)
        guard fileBytes >= minimumFileBytes, let trim else { return }
        _ = trim(0)
        #endif
    }
}

/// One allocation of table memory, freed with the object.
final class TableMemory: @unchecked Sendable {
    /// The first byte (aligned to at least `alignment`).
    let base: UnsafeMutableRawPointer
    /// The bytes asked for (at least 1).
    let byteCount: Int
    /// The length mapped for it as huge pages (0: from the ordinary allocator).
    let mappedLength: Int

    /// Allocations from this size on are mapped as huge pages (a smaller one would waste most
    /// of its page).
    static let hugeThreshold = 1 << 20
    static let hugePage = 2 << 20
    static let smallPage = 4 << 10

    /// `huge`: whether it may be mapped as huge pages (the process's setting, `TablePages`).
    init(byteCount: Int, alignment: Int, huge: Bool = TablePages.huge) {
        let byteCount = max(byteCount, 1)
        self.byteCount = byteCount
        #if os(Linux)
        if huge, byteCount >= Self.hugeThreshold, alignment <= Self.hugePage, let mapped = Self.mapHuge(byteCount) {
            (base, mappedLength) = mapped
            return
        }
        #endif
        base = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: alignment)
        mappedLength = 0
    }

    deinit {
        #if os(Linux)
        if mappedLength > 0 {
            munmap(base, mappedLength)
            return
        }
        #endif
        base.deallocate()
    }

    /// The length mapped for `length` bytes: whole huge pages when that adds at most an eighth,
    /// otherwise whole 4 KB pages. The system backs the whole huge pages a mapping holds with
    /// huge pages and the rest with 4 KB pages, so a table a little past a huge page's multiple
    /// takes the pages it uses, not a huge page more (a resident megabyte or two a list).
    static func mappedLength(_ length: Int) -> Int {
        let whole = (length + hugePage - 1) / hugePage * hugePage
        return (whole - length) * 8 <= length ? whole : (length + smallPage - 1) / smallPage * smallPage
    }

    #if os(Linux)
    /// `length` mapped from a huge page's boundary (`mappedLength`) and advised as huge pages;
    /// nil when the system refuses the mapping.
    private static func mapHuge(_ length: Int) -> (UnsafeMutableRawPointer, Int)? {
        let length = mappedLength(length)
        // A mapping a huge page longer, trimmed to the boundary at both ends.
        let spare = length + hugePage
        let mapped = mmap(nil, spare, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let mapped, mapped != MAP_FAILED else { return nil }
        let address = UInt(bitPattern: mapped)
        let aligned = (address + UInt(hugePage) - 1) / UInt(hugePage) * UInt(hugePage)
        let head = Int(aligned - address)
        if head > 0 { munmap(mapped, head) }
        if spare - head - length > 0 { munmap(mapped + head + length, spare - head - length) }
        let base = mapped + head
        // Advice only: a system without transparent huge pages keeps the 4 KB pages.
        _ = madvise(base, length, MADV_HUGEPAGE)
        return (base, length)
    }
    #endif
}
