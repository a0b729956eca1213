/// Judges what one receiver got from one sender whose numbered messages were pipelined: every number the server
/// accepted must arrive exactly once, and in increasing order except the numbers in `retried` (refused retryably and
/// sent again, so they were committed after the numbers sent behind them; any client that pipelines sees that).
/// Numbers that were not accepted may still arrive (a refusal for good can hide a commit whose reply was lost).
/// Free of I/O so it can be tested alone.
struct PipelinedDeliveryCheck {
    /// Accepted numbers that arrived (once or more).
    private(set) var delivered = 0
    /// Accepted numbers that never arrived.
    private(set) var lost = 0
    /// Arrivals after the first of a number, plus arrivals of a number not retried below the highest such before it.
    private(set) var duplicatedOrReordered = 0
    /// The lowest accepted number that never arrived.
    private(set) var firstMissing: Int64?
    /// The first arrival counted in `duplicatedOrReordered`, and the highest number in order before it.
    private(set) var firstOutOfOrder: (number: Int64, after: Int64)?

    init(received: [Int64], accepted: Set<Int64>, retried: Set<Int64>) {
        var seen: Set<Int64> = []
        var highestInOrder = Int64.min
        for number in received {
            guard seen.insert(number).inserted else { outOfOrder(number, after: highestInOrder); continue }
            if accepted.contains(number) { delivered += 1 }
            if retried.contains(number) { continue }
            if number < highestInOrder { outOfOrder(number, after: highestInOrder) } else { highestInOrder = number }
        }
        let missing = accepted.subtracting(seen)
        lost = missing.count
        firstMissing = missing.min()
    }

    private mutating func outOfOrder(_ number: Int64, after: Int64) {
        duplicatedOrReordered += 1
        if firstOutOfOrder == nil { firstOutOfOrder = (number, after) }
    }
}
