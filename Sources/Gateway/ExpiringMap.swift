import Heap

/// A map whose entries each count until their own `expiresAt` (hub clock, milliseconds): a look-up never sees an
/// expired entry, and `removeExpired(now:)` frees them in expiry order, at O(log n) per entry it frees and nothing
/// for the others (a min-heap of the expiries set). Pure: time is passed in, so the owner decides when to sweep (the
/// hub uses one timer for a whole map, not one per entry). Hub thread only.
///
/// Memory: the entries set and not yet swept, plus one heap slot per expiry set and not yet reached (an entry set
/// again with a later expiry leaves its earlier slot behind until that time comes).
struct ExpiringMap<Key: Hashable, Value> {
    private var entries: [Key: (value: Value, expiresAt: Int64)] = [:]
    /// Every expiry set and not yet reached, earliest at index 0. A slot whose entry was set again (to another expiry)
    /// or removed since is skipped when it comes up.
    private var heap = BinaryHeap<Slot>()

    private struct Slot: Comparable {
        var expiresAt: Int64
        var key: Key

        static func < (a: Slot, b: Slot) -> Bool { a.expiresAt < b.expiresAt }
    }

    /// Entries held, expired ones not yet swept included.
    var count: Int { entries.count }

    /// Heap slots held (for tests: stays within the expiries set and not yet reached).
    var slotCount: Int { heap.count }

    /// The value of `key` while `now` is before its expiry; nil once it expired (swept or not) or when absent.
    func value(_ key: Key, now: Int64) -> Value? {
        guard let entry = entries[key], entry.expiresAt > now else { return nil }
        return entry.value
    }

    /// Whether `key` is held at all, expired or not (for tests and memory accounting).
    func holds(_ key: Key) -> Bool { entries[key] != nil }

    /// Sets `key` to `value` until `expiresAt` (replacing its value and expiry).
    mutating func set(_ key: Key, _ value: Value, expiresAt: Int64) {
        let previous = entries.updateValue((value, expiresAt), forKey: key)
        if previous?.expiresAt != expiresAt { heap.insert(Slot(expiresAt: expiresAt, key: key)) }
    }

    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? { entries.removeValue(forKey: key)?.value }

    /// The earliest expiry still to sweep (possibly of an entry set again or removed since); nil when none.
    var nextExpiry: Int64? { heap.min?.expiresAt }

    /// Frees every entry expired at `now` (`expiresAt <= now`); returns how many.
    @discardableResult
    mutating func removeExpired(now: Int64) -> Int {
        var removed = 0
        while let top = heap.min, top.expiresAt <= now {
            heap.removeMin()
            if entries[top.key]?.expiresAt == top.expiresAt {
                entries[top.key] = nil
                removed += 1
            }
        }
        return removed
    }
}
