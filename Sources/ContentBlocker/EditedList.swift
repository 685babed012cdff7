// EditedList.swift — ContentBlocker
//
// A page's lists as edits of its flags' base list: the base's keys and values shared with every
// page of those flags, less the offsets a page's conditions remove and with the keys they add,
// so that a new page costs its edits, not a copy of thousands of rules and actions, and dropping
// it frees its edits only. An outcome's list is the page's shared part with the request's own
// insertions (`SharedInsertions`), written into the last outcome's storage when nothing holds it.
// The evaluator keeps the edited lists in its pages (Evaluator.swift, `Kept`).

internal import RequestContext

/// An outcome's list as an `EditedList` makes it (`insertions(of:spilling:)`): the page's
/// `shared`, unretained, and the insertions, one (no array) or several, read where the evaluator's
/// working memory holds them (valid until its next answer); written into an outcome's list in
/// place (`SharedList.reshare`). Plain values: made and dropped with no reference counted.
struct SharedInsertions<Value: Hashable & Sendable> {
    let shared: Unmanaged<SharedList<Value>.Shared>
    let lone: ListInsertion?
    let spilled: UnsafeBufferPointer<ListInsertion>

    init(shared: Unmanaged<SharedList<Value>.Shared>, lone: ListInsertion) {
        self.shared = shared
        self.lone = lone
        spilled = UnsafeBufferPointer(start: nil, count: 0)
    }

    init(shared: Unmanaged<SharedList<Value>.Shared>, spilled: WorkList<ListInsertion>) {
        self.shared = shared
        lone = nil
        self.spilled = UnsafeBufferPointer(spilled.buffer)
    }

    /// `list` made this list.
    @inline(__always)
    func write(into list: inout SharedList<Value>) {
        if let lone { list.reshare(shared, inserting: lone) } else { list.reshare(shared, copying: spilled) }
    }

    /// This list, made anew.
    func list() -> SharedList<Value> {
        shared._withUnsafeGuaranteedRef { shared in
            if let lone { SharedList(shared, inserting: lone) } else { SharedList(shared, inserting: Array(spilled)) }
        }
    }
}

/// Increasing keys with a value each, as a page keeps them: a base shared with other pages
/// (`keys`, `values`), less the base's entries at offsets `removed` and with `added`, which the
/// base lacks. A key's value is `pool[key]` (the engine's every action by location, or every
/// rule's index by slot), so the edits are numbers, and `added` is an outcome's insertions as
/// they are (an insertion's element is its key). The values, removals and pool are the
/// outcomes' `SharedList.Shared`, one reference for each outcome to hold. A value, kept in
/// its page's `Kept` (not an object of its own, allocated and released per page), and edited
/// in place there (`edit(_:removing:adding:)`) so that a reused `Kept` keeps its insertions'
/// storage.
struct EditedList<Value: Hashable & Sendable> {
    /// The base's keys, with where any key stands among them (`RankedKeys`), shared by its edits.
    private(set) var ranked: RankedKeys
    var keys: [UInt32] { ranked.keys }
    private(set) var shared: SharedList<Value>.Shared
    /// Increasing keys (`element`), each with the offset of `keys` it stands before.
    private(set) var added: [ListInsertion]
    /// The keys' values, in order.
    var values: [Value] { shared.base }
    var pool: [Value] { shared.pool }
    /// Offsets of `keys`, increasing; empty for a base list (the list of most pages: their
    /// conditions name no rule of it).
    var removed: [Int] { shared.removals }

    init(keys: [UInt32], pool: [Value]) {
        ranked = RankedKeys(keys)
        shared = SharedList.Shared(base: keys.map { pool[Int($0)] }, pool: pool)
        added = []
    }

    /// Whether the list is its base as it is.
    var isBase: Bool { removed.isEmpty && added.isEmpty }

    /// `list` made this (base) list less `removing` (increasing keys, all in it) and with
    /// `adding` (increasing keys, none in it): the base itself when both are empty, sharing the
    /// base's `shared` when nothing is removed. `list`'s insertions are emptied and refilled,
    /// their storage kept when no outcome holds it still.
    func edit(_ list: inout EditedList, removing: [UInt32], adding: [UInt32]) {
        precondition(isBase, "a base list is edited once")
        list.ranked = ranked
        Evaluator.clear(&list.added)
        guard !removing.isEmpty || !adding.isEmpty else {
            list.shared = shared
            return
        }
        if removing.isEmpty {
            list.shared = shared
        } else {
            var removed: [Int] = []
            removed.reserveCapacity(removing.count)
            for key in removing {
                precondition(ranked.contains(key), "a removed key is listed")
                removed.append(ranked.below(key))
            }
            list.shared = SharedList.Shared(base: values, removing: removed, pool: pool)
        }
        if !adding.isEmpty { list.added.reserveCapacity(adding.count) }
        for key in adding { list.added.append(ListInsertion(offset: UInt32(ranked.below(key)), element: key)) }
    }

    /// The index of the first added key not below `key`.
    func firstAdded(from key: UInt32) -> Int {
        var low = 0
        var high = added.count
        while low < high {
            let middle = (low + high) / 2
            if added[middle].element < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    @inline(__always)
    func contains(_ key: UInt32) -> Bool {
        let inBase = ranked.contains(key)
        if isBase { return inBase }
        if inBase {
            let offset = ranked.below(key)
            let removal = Evaluator.lowerBound(offset, in: removed)
            return removal == removed.count || removed[removal] != offset
        }
        let addition = firstAdded(from: key)
        return addition < added.count && added[addition].element == key
    }

    /// The list as an outcome's, sharing the base and the edits.
    var outcomeList: SharedList<Value> { SharedList(shared, inserting: added) }

    /// The insertions of `extra` (increasing keys, none in the list) into this list's
    /// `shared`, as an outcome's list holds them with it; several are written in `spilled`
    /// (working memory, emptied first). (Transparent: a call out of line copies the page's list
    /// to it, a retain and a release of each of its three references.)
    @_transparent
    func insertions(
        of extra: UnsafeMutableBufferPointer<UInt32>, spilling spilled: inout WorkList<ListInsertion>
    ) -> SharedInsertions<Value> {
        // (`shared` unretained: the evaluator holds the page's lists for the whole answer.)
        let shared = Unmanaged.passUnretained(shared)
        spilled.removeAll()
        guard !added.isEmpty else {
            // (One key, most requests' own rules: held in the list itself, nothing spilled.)
            if extra.count == 1 {
                return SharedInsertions(shared: shared, lone: ListInsertion(offset: UInt32(ranked.below(extra[0])), element: extra[0]))
            }
            for key in extra { spilled.append(ListInsertion(offset: UInt32(ranked.below(key)), element: key)) }
            return SharedInsertions(shared: shared, spilled: spilled)
        }
        var next = 0
        for key in extra {
            while next < added.count && added[next].element < key {
                spilled.append(added[next])
                next += 1
            }
            spilled.append(ListInsertion(offset: UInt32(ranked.below(key)), element: key))
        }
        for index in next..<added.count { spilled.append(added[index]) }
        return SharedInsertions(shared: shared, spilled: spilled)
    }

    /// Appends the list's keys above `low` (all without one) up to and including `high`, in order.
    func appendKeys(above low: UInt32?, through high: UInt32, to list: inout [UInt32]) {
        let first = low.map { $0 + 1 } ?? 0
        let start = ranked.below(first)
        let end = high == .max ? keys.count : ranked.below(high + 1)
        if isBase {
            if start < end { list.append(contentsOf: keys[start..<end]) }
            return
        }
        var removal = Evaluator.lowerBound(start, in: removed)
        var addition = firstAdded(from: first)
        for offset in start..<max(start, end) {
            while addition < added.count && added[addition].element < keys[offset] {
                list.append(added[addition].element)
                addition += 1
            }
            if removal < removed.count && removed[removal] == offset {
                removal += 1
            } else {
                list.append(keys[offset])
            }
        }
        while addition < added.count && added[addition].element <= high {
            list.append(added[addition].element)
            addition += 1
        }
    }
}
