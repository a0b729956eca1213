import FoundationEssentials
import GatewayProtocol
import Auth

/// The idempotency desk: idempotent operations (approval requests, publishes, messages with a `clientMessageId`): a retry gets the first
/// result and stores nothing — also when it overlaps the first call, which is still reading the store or
/// committing. While a key is in flight, later callers wait for its result instead of starting their own.
///
/// Answered keys are remembered (`IdempotencyMemory`, `GatewaySettings.idempotencyMemoryKeys`), so a retry is
/// answered without touching the store. A key not remembered is either looked up in the store first
/// (`IdempotencyCheck.readFirst`: the look-ups of one hub round go to the store-read queue together, one hand-off and
/// one read lock for all of them, in arrival order), or not looked up at all (`.claimInCommit`): the operation runs
/// and its commit's claim is the look-up — a key the store already holds fails the claim, the batch is rolled back,
/// and the stored response answers, exactly as when another node claimed the key first.
///
/// A key belongs to a scope that names what it creates and for whom (`approval:<user>␟<session>`,
/// `publish:<user>`, `message:<user>`), so one caller's key can never return another's result; and a key reused
/// with a different request is refused with `idempotency_key_reused` (as Stripe does) rather than answered with the
/// first request's result.
/// `@unchecked Sendable`: confined to the hub thread; Sendable so hub tasks can carry it back there.
final class IdempotencyDesk: @unchecked Sendable {
    private let store: GatewayStore
    private let scheduler: GatewayScheduler
    /// Keys being looked up or committed, with the callers waiting for their result.
    private var waiters: [String: [(Result<IdempotencyRecord, GatewayError>) -> Void]] = [:]
    /// Keys answered recently, with their answers (a retry is answered from here).
    private var memory: IdempotencyMemory
    /// Keys to look up in the store at the end of this round.
    private let lookups = RoundBatch<Lookup>()
    /// The project's strict JSON path (duplicate keys and trailing commas are `invalid_json`).
    private let decoder = StrictJSONDecoder()

    init(store: GatewayStore, scheduler: GatewayScheduler, memoryKeys: Int) {
        self.store = store
        self.scheduler = scheduler
        memory = IdempotencyMemory(capacity: memoryKeys)
    }

    /// Keys remembered now (for tests: stays within `GatewaySettings.idempotencyMemoryKeys`).
    var rememberedCount: Int { memory.count }

    /// Runs `perform` at most once per (scope, key): when the store already holds a response it is returned; when
    /// the same key is in flight, the caller waits for that call's result. `perform` gets the request digest to store
    /// with its response in its commit (`.claimIdempotency`) so later callers find both. The claim is the store's
    /// decision: when another node claimed the key between the look-up and the commit, the commit fails with
    /// `idempotencyKeyClaimed` and every waiter gets the stored response instead (`settle(after:)`). `request` is the canonical
    /// encoding of what was asked (sorted-key JSON). Hub thread only.
    func run<T: Codable>(scope: String, key: String, request: some Encodable, check: Check = .readFirst,
                                perform: @escaping (_ requestHash: String, @escaping (Result<T, GatewayError>) -> Void) -> Void,
                                completion: @escaping (Result<T, GatewayError>) -> Void) {
        let slot = scope + "\u{0}" + key
        let requestHash = SecretDigest.sha256Hex(ServerFrames.encode(request))
        let decoder = self.decoder
        let reused = GatewayError(.idempotencyKeyReused, "this idempotency key was already used for a different request")
        let waiter: (Result<IdempotencyRecord, GatewayError>) -> Void = { result in
            completion(result.flatMap { record in
                guard record.requestHash.isEmpty || record.requestHash == requestHash else { return .failure(reused) }
                guard let value = try? decoder.decode(T.self, from: record.response) else {
                    return .failure(GatewayError(.internalError, "the stored response for this idempotency key is unreadable"))
                }
                return .success(value)
            })
        }
        if waiters[slot] != nil {
            waiters[slot]!.append(waiter)
            return
        }
        if let remembered = memory.record(slot) {
            return waiter(.success(remembered))
        }
        waiters[slot] = [waiter]
        let finish: (Result<IdempotencyRecord, GatewayError>) -> Void = { [self] result in settle(slot, result) }
        let run = { [self] in
            perform(requestHash) { [self] result in
                let value: T
                switch result {
                case .success(let done): value = done
                case .failure(let error): return finish(.failure(error))
                }
                let record = IdempotencyRecord(response: ServerFrames.encode(value), requestHash: requestHash)
                memory.remember(slot, record)
                // This caller (the first waiter) gets its own value rather than a decode of the bytes just encoded;
                // callers that joined while it ran get the record. Nobody waits when a lost claim already settled the
                // key (`settle(after:)`).
                guard var waiters = waiters.removeValue(forKey: slot), !waiters.isEmpty else { return }
                waiters.removeFirst()
                completion(.success(value))
                for waiter in waiters { waiter(.success(record)) }
            }
        }
        switch check {
        case .claimInCommit:
            run()
        case .readFirst:
            lookUp(IdempotencyKey(scope: scope, key: key)) { stored in
                switch stored {
                case .success(let record?): finish(.success(record))
                case .success(nil): run()
                case .failure(let error): finish(.failure(.storageFailed("\(error)", cause: error)))
                }
            }
        }
    }

    /// A key not remembered, looked up in the store with the others of this hub round.
    private struct Lookup {
        var key: IdempotencyKey
        var completion: (Result<IdempotencyRecord?, Error>) -> Void
    }

    private func lookUp(_ key: IdempotencyKey, completion: @escaping (Result<IdempotencyRecord?, Error>) -> Void) {
        lookups.add(Lookup(key: key, completion: completion), on: scheduler) { [self] in
            flushLookups()
        }
    }

    /// Reads every queued key in one store-read task; the answers come back as one hub task, in order (the read queue
    /// is serial, so idempotent commands still commit in arrival order).
    private func flushLookups() {
        guard !lookups.isEmpty else { return }
        let taken = UncheckedBox(lookups.take())
        let (store, keys) = (self.store, taken.value.map(\.key))
        scheduler.runBlocking { [self] in
            let stored = Result { try store.idempotentResponses(keys) }
            scheduler.execute {
                for (index, lookup) in taken.value.enumerated() { lookup.completion(stored.map { $0[index] }) }
            }
        }
    }

    /// Answers everyone waiting on a key, once; false when nobody was.
    @discardableResult
    private func settle(_ slot: String, _ result: Result<IdempotencyRecord, GatewayError>) -> Bool {
        // Only an answer the store holds is remembered (a stored response, or one just committed with its claim).
        if case .success(let record) = result { memory.remember(slot, record) }
        guard let waiters = waiters.removeValue(forKey: slot) else { return false }
        for waiter in waiters { waiter(result) }
        return true
    }

    /// After a commit lost its `claimIdempotency` to another writer: answers the key's waiters with the response the
    /// store holds (the first claim's), as for a retry. False when `conflict` is about something else (or nobody
    /// waits on the key: then the caller must answer itself).
    func settle(after conflict: StoreConflict) -> Bool {
        guard case .idempotencyKeyClaimed(let scope, let key, let current) = conflict else { return false }
        return settle(scope + "\u{0}" + key, .success(current))
    }

    /// How a key this node does not remember is checked against the store.
    enum Check {
        /// Looked up before the operation runs: for operations whose effects reach beyond their commit.
        case readFirst
        /// Not looked up: the operation's commit carries `.claimIdempotency`, and a claim the store refuses rolls the
        /// batch back and answers with the stored response. Saves a store read and a thread hand-off per new key; a
        /// retry the node forgot costs a rolled-back batch instead.
        case claimInCommit
    }
}
