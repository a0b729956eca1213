import GatewayProtocol

/// The id desk: message ids and approval ids `apr_<n>` come from the store (`GatewayStore.reserveIds`): a PostgreSQL sequence, or
/// the SQLite store's own counter, so two nodes never draw the same one. The id goes into the event's payload and the
/// reply, so it is reserved before the batch is made: every request of a round waits for one store call (one per
/// sequence), and one reservation is in flight at a time, so ids go out in the order they were asked for and a
/// sender's pipelined messages are committed in order.
///
/// An id the store still finds taken at the insert (a writer that does not draw from the sequence: a second process
/// on one SQLite file, a node of an older version) is asked for again above the store's latest, at once twice, then
/// after a random 1…2^(n−2) ms (at most 64), up to 64 attempts.
///
/// `@unchecked Sendable`: confined to the hub thread; Sendable so hub tasks can carry it back there.
final class IdDesk: @unchecked Sendable {
    private let store: GatewayStore
    private let scheduler: GatewayScheduler
    private let clock: GatewayClock
    /// Callers waiting for ids from the store, and whether a reservation is in flight.
    private var requests: [Request] = []
    private var inFlight = false
    /// Runs after each hand-out of ids (the hub's settled check: work waiting for an id was work in flight).
    var handedOut: (() -> Void)?

    init(store: GatewayStore, scheduler: GatewayScheduler, clock: GatewayClock) {
        self.store = store
        self.scheduler = scheduler
        self.clock = clock
    }

    /// No id reservation is asked for or running.
    var isSettled: Bool { requests.isEmpty && !inFlight }

    /// Attempts at a fresh id after the store reported the previous one as taken.
    static let attempts = 64

    /// A caller waiting for an id of `sequence` above `above`.
    private struct Request {
        var sequence: IdSequence
        var above: Int64
        var then: (Result<Int64, GatewayError>) -> Void
    }

    /// Calls `then` on the hub thread with a fresh id of `sequence` (above `above`), or `storage_failed` when the
    /// store could not be asked.
    func reserve(_ sequence: IdSequence, above: Int64 = 0, _ then: @escaping (Result<Int64, GatewayError>) -> Void) {
        requests.append(Request(sequence: sequence, above: above, then: then))
        if requests.count == 1 && !inFlight { scheduler.execute { [self] in reserveRequestedIds() } }
    }

    /// Asks the store for every id requested so far (one call per sequence) and hands them out in request order;
    /// requests made meanwhile wait for the next call. A store that can reserve without I/O (SQLite once its counter
    /// began) answers here on the hub thread; otherwise the store-read queue asks it.
    private func reserveRequestedIds() {
        guard !inFlight, !self.requests.isEmpty else { return }
        let requests = UncheckedBox(self.requests)   // handed back to the hub thread only
        self.requests = []
        var wanted: [IdSequence: (count: Int, above: Int64)] = [:]
        for request in requests.value {
            let now = wanted[request.sequence] ?? (0, 0)
            wanted[request.sequence] = (now.count + 1, max(now.above, request.above))
        }
        let store = self.store
        var answers: [IdSequence: Result<[Int64], Error>] = [:]
        for (sequence, ask) in wanted {
            if let ids = store.reserveIdsWithoutBlocking(sequence, count: ask.count, above: ask.above) { answers[sequence] = .success(ids) }
        }
        let asks = wanted.filter { answers[$0.key] == nil }.map { ($0.key, $0.value.count, $0.value.above) }
        guard !asks.isEmpty else { return handOutIds(requests.value, answers) }
        inFlight = true
        let known = UncheckedBox(answers)   // handed back to the hub thread only
        scheduler.runBlocking { [self] in
            var reserved = known.value
            for (sequence, count, above) in asks {
                reserved[sequence] = Result { try store.reserveIds(sequence, count: count, above: above) }
            }
            let answers = UncheckedBox(reserved)
            scheduler.execute { [self] in
                inFlight = false
                handOutIds(requests.value, answers.value)
            }
        }
    }

    /// Gives each request its id in request order, then asks for what was requested meanwhile.
    private func handOutIds(_ requests: [Request], _ answers: [IdSequence: Result<[Int64], Error>]) {
        var next: [IdSequence: Int] = [:]
        for request in requests {
            switch answers[request.sequence] {
            case .success(let ids)?:
                let index = next[request.sequence, default: 0]
                next[request.sequence] = index + 1
                request.then(.success(ids[index]))
            case .failure(let error)?:
                request.then(.failure(.storageFailed("could not reserve an id: \(error)", cause: error)))
            case nil:
                request.then(.failure(GatewayError(.internalError, "no id reserved")))
            }
        }
        reserveRequestedIds()
        handedOut?()
    }

    /// Runs `again` (the next attempt, `attempt`) at once or after the random pause for that attempt.
    func retry(attempt: Int, _ again: @escaping () -> Void) {
        let delay = attempt <= 2 ? 0 : Int64.random(in: 1...Int64(1 << min(attempt - 2, 6)))
        guard delay > 0 else { return again() }
        _ = scheduler.schedule(at: clock.now() + delay, again)
    }
}
