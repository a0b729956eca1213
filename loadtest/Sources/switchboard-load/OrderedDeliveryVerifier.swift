/// Checks that numbered deliveries (a user's event offsets, a message direction's sequence numbers) arrive each once
/// and in order, free of I/O so it can be tested alone. Value type; one per subscriber or direction.
///
/// Rule: numbers must come as `first`, `first + 1`, … A number ahead of the expected one means the ones skipped are
/// lost (unless `excused`, e.g. a send the server refused); one behind it is a duplicate or a reordering (both break
/// the guarantee, so they are counted together).
struct OrderedDeliveryVerifier: Sendable, Equatable {
    enum Outcome: Equatable {
        /// The expected number or a later one; `skipped` earlier ones never came (lost).
        case inOrder(skipped: Int)
        case duplicateOrReordered
    }

    /// The next number expected.
    private(set) var nextExpected: Int64
    /// Deliveries accepted in order.
    private(set) var received = 0

    init(first: Int64) {
        nextExpected = first
    }

    /// Classifies delivery `number`; `excused` says which skipped numbers were never meant to arrive.
    mutating func receive(_ number: Int64, excused: (Int64) -> Bool = { _ in false }) -> Outcome {
        guard number >= nextExpected else { return .duplicateOrReordered }
        var skipped = 0
        var gap = nextExpected
        while gap < number {
            if !excused(gap) { skipped += 1 }
            gap += 1
        }
        nextExpected = number + 1
        received += 1
        return .inOrder(skipped: skipped)
    }

    /// How many numbers up to and including `last` have not arrived yet (0 when `last` was seen).
    func missing(through last: Int64) -> Int {
        Int(max(0, last - nextExpected + 1))
    }
}
