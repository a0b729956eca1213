/// Work gathered during one hub round and handed on together: the first item of a round schedules one flush for when
/// the hub next takes up its tasks (after the rest of this iteration), so everything the round added goes out in one
/// hand-off (one store job, one read, one thread hop), in the order it was added. The hub's writes, its idempotency
/// look-ups and its user reads each go through one. Hub thread only.
///
/// A class, so that a scheduler running `flush` at once (a test's manual one) does not find the batch still under
/// the caller's mutating access.
final class RoundBatch<Item> {
    private var items: [Item] = []

    var isEmpty: Bool { items.isEmpty }

    /// Adds `item`; when it is the first since the last `take`, `flush` is handed to `scheduler` to run after this
    /// round (it is expected to `take` the batch).
    func add(_ item: Item, on scheduler: GatewayScheduler, flush: @escaping @Sendable () -> Void) {
        items.append(item)
        if items.count == 1 { scheduler.execute(flush) }
    }

    /// Everything added since the last take, in order; the batch is empty afterwards.
    func take() -> [Item] {
        defer { items = [] }
        return items
    }
}
