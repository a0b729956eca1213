/// The idempotency keys this node answered most recently, with what they answered, so that a retry is answered
/// without a store read. The store stays the authority: a key that is not here (never seen, forgotten to stay within
/// the bound, or from before a restart) is looked up there, and its claim is the store's decision in the commit, so
/// forgetting costs a read, never a duplicate. A claimed key's record never changes, so a remembered one cannot go
/// stale.
///
/// Bounded by `capacity` keys in two generations (an approximate LRU, O(1) per operation): keys go into the young
/// generation; when it is full it becomes the old one and the previous old one is forgotten; a key found in the old
/// generation moves back to the young one. So the `capacity / 2` most recently used keys are always kept and never
/// more than `capacity`. Hub thread only.
struct IdempotencyMemory {
    let capacity: Int
    private var young: [String: IdempotencyRecord] = [:]
    private var old: [String: IdempotencyRecord] = [:]

    /// `capacity` 0 remembers nothing (every look-up goes to the store).
    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// Keys remembered now (at most `capacity`).
    var count: Int { young.count + old.count }

    /// The record of `slot`, marking it as recently used.
    mutating func record(_ slot: String) -> IdempotencyRecord? {
        if let record = young[slot] { return record }
        guard let record = old.removeValue(forKey: slot) else { return nil }
        remember(slot, record)
        return record
    }

    /// Remembers what `slot` answered.
    mutating func remember(_ slot: String, _ record: IdempotencyRecord) {
        guard capacity > 0 else { return }
        old.removeValue(forKey: slot)
        if young[slot] == nil && young.count >= max(1, capacity / 2) {
            old = young
            young = [:]
            young.reserveCapacity(max(1, capacity / 2))
        }
        young[slot] = record
    }
}
