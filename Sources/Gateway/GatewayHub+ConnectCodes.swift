import GatewayProtocol

/// Connections by a user's 6-digit connect code. A code is permanent until its owner regenerates it (or, with
/// `connectCodeLifetimeMs`, until it expires); replaced codes are kept so they answer `connect_code_expired`
/// instead of `connect_code_invalid`, until their quarantine ends and they may be drawn again. Failed attempts and
/// regenerations are rate-limited: codes cannot be guessed, nor the space used up.
extension GatewayHub {
    /// Guessing limits count over a sliding hour.
    static let attemptLimiter = AttemptLimiter(windowMs: 3_600_000)

    /// Feeds one attempt to the guessing limits and calls `then` on the hub thread with `rate_limited` (with the
    /// seconds until the attempt could go ahead), or nil when it may go ahead.
    ///
    /// This node's own counters decide first, at once; with `sharedAttemptLimits` an attempt they allow is then
    /// decided by the counters of every node (off the hub thread, `then` runs when they answered) and counted here
    /// too, so this node's counters still hold when the shared ones cannot be reached (the decision is then this
    /// node's alone).
    ///
    /// `limiter` and `state` name the window and this node's counters: the guessing limits' hour by default, contact
    /// discovery passes its own (a window of its own length needs counters of its own, or the sweep would drop them).
    func limitAttempt(_ attempt: AttemptLimiter.Attempt, _ what: String, limiter: AttemptLimiter = GatewayHub.attemptLimiter,
                      state: ReferenceWritableKeyPath<GatewayHub, AttemptLimiter.State> = \.attemptLimits,
                      then: @escaping (GatewayError?) -> Void) {
        let here = { [self] (attempt: AttemptLimiter.Attempt) -> AttemptLimiter.Decision in
            let (next, decision) = limiter.decide(self[keyPath: state], attempt, now: clock.now())
            self[keyPath: state] = next
            return decision
        }
        guard let shared = sharedAttemptLimits else { return then(attemptRefusal(here(attempt), what)) }
        let local = here(.ask(attempt.counters, weight: attempt.weight))
        if case .refused = local { return then(attemptRefusal(local, what)) }
        let then = UncheckedBox(then), countHere = UncheckedBox(here)
        shared.decide(attempt, windowMs: limiter.windowMs, now: clock.now()) { [self] decision in
            scheduler.execute { [self] in
                if let decision, case .refused = decision { return then.value(attemptRefusal(decision, what)) }
                then.value(attemptRefusal(countHere.value(attempt), what))
            }
        }
    }

    private func attemptRefusal(_ decision: AttemptLimiter.Decision, _ what: String) -> GatewayError? {
        guard case .refused(_, let waitMs) = decision else { return nil }
        let seconds = (waitMs + 999) / 1000
        return GatewayError(.rateLimited, "\(what); retry after \(seconds) s", retryAfterMs: Int(seconds) * 1000)
    }

    /// The user's current code, created on first use; `regenerate` replaces it (the old one then reports expired).
    /// A change is a durable `connect_code_changed` event for the user's other devices. Replacing a code is limited
    /// per user and per node (`rate_limited`); a first code, or one that expired by itself, is not counted.
    public func connectCode(for userId: String, regenerate: Bool, completion: @escaping (Result<ConnectCodeData, GatewayError>) -> Void) {
        guard users[userId] != nil else { return completion(.failure(GatewayError(.userNotFound, "no user \"\(userId)\""))) }
        let previous = relations.currentCode[userId].flatMap { relations.connectCodes[$0] }
        guard regenerate, previous != nil else { return connectCode(for: userId, regenerate: regenerate, attempt: 1, completion: completion) }
        let limits = settings.relationships
        let counters = [AttemptLimiter.Counter(key: "regenerate-user:" + userId, limit: limits.connectCodeRegenerationsPerUserPerHour),
                        AttemptLimiter.Counter(key: "regenerate-node", limit: limits.connectCodeRegenerationsPerNodePerHour)]
        let what = "a connect code may be replaced \(limits.connectCodeRegenerationsPerUserPerHour) times per hour "
            + "(\(limits.connectCodeRegenerationsPerNodePerHour) for the node)"
        limitAttempt(.count(counters), what) { [self] refused in
            if let refused { return completion(.failure(refused)) }
            connectCode(for: userId, regenerate: regenerate, attempt: 1, completion: completion)
        }
    }

    /// Codes drawn again after the store reported the drawn one as another user's (another node drew it first).
    static let connectCodeAttempts = 3

    private func connectCode(for userId: String, regenerate: Bool, attempt: Int,
                             completion: @escaping (Result<ConnectCodeData, GatewayError>) -> Void) {
        guard users[userId] != nil else { return completion(.failure(GatewayError(.userNotFound, "no user \"\(userId)\""))) }
        let now = clock.now()
        let previous = relations.currentCode[userId].flatMap { relations.connectCodes[$0] }
        if let current = ConnectCodeMachine.current(previous, regenerate: regenerate, now: now) {
            return completion(.success(Self.connectCodeData(current)))
        }
        // A retired code returns to the pool only after its quarantine, so a code seen recently never connects to a
        // new owner; the store decides for codes this node does not hold (`claimConnectCode`).
        let quarantineMs = settings.relationships.connectCodeQuarantineMs
        var code = randomCode(length: 6, alphabet: "0123456789")
        var attempts = 0
        while !ConnectCodeMachine.isFree(relations.connectCodes[code], now: now, quarantineMs: quarantineMs) {
            attempts += 1
            guard attempts < 10_000 else { return completion(.failure(GatewayError(.internalError, "no free connect code left"))) }
            code = randomCode(length: 6, alphabet: "0123456789")
        }
        let (record, revoked) = ConnectCodeMachine.issue(code: code, to: userId, replacing: previous,
                                                         lifetimeMs: settings.relationships.connectCodeLifetimeMs, now: now)
        var writes: [StoreWrite] = []
        if let revoked {
            relations.put(revoked)
            writes.append(.upsertConnectCode(revoked))
        }
        relations.put(record)
        writes.append(.claimConnectCode(record, retiredBy: now - quarantineMs))
        let data = Self.connectCodeData(record)
        // The code is a claim the store decides: when another node gave it to someone else first, memory learns the
        // owner, takes back this attempt (the previous code stays current) and draws again.
        commit(writes, events: [PendingEvent(userId: userId, type: .connectCodeChanged, data: encode(data))], onConflict: { [self] conflict in
            guard case .connectCodeTaken(let taken) = conflict, attempt < Self.connectCodeAttempts else {
                return completion(.failure(GatewayError(.storageFailed, "could not store the connect code: \(conflict)")))
            }
            relations.dropCurrentCode(record.code, of: userId)
            relations.put(taken)
            // The previous code may itself be what was taken: out of quarantine and reissued to someone else, it
            // is theirs now and nothing of this user's is left to revoke.
            if let previous, previous.code != taken.code { relations.put(previous) }
            connectCode(for: userId, regenerate: regenerate, attempt: attempt + 1, completion: completion)
        }, completion: Self.finish(completion) { data })
    }

    static func connectCodeData(_ r: ConnectCodeRecord) -> ConnectCodeData {
        ConnectCodeData(code: r.code, createdAt: r.createdAt, expiresAt: r.expiresAt)
    }

    /// Connects `userId` with the owner of `code`. Errors: `connect_code_invalid` (not 6 digits, or no such code),
    /// `connect_code_expired` (replaced or past its lifetime), `self_request`, `already_friends`, `rate_limited`
    /// (too many failed attempts). A previously removed connection is reactivated with its original creation time.
    /// Answers with the new contact.
    /// `source` is the caller's address group (`SourceAddress` in the server: an IPv4 address or an IPv6 /64), nil
    /// for calls that do not come from a device (the server API).
    public func connect(userId: String, code rawCode: String, source: String? = nil,
                        completion: @escaping (Result<UserRef, GatewayError>) -> Void) {
        // Failures are limited per user, per source address and for the whole node: without the last two, fresh
        // identities (free in standalone mode) would each bring 20 new tries.
        var counters = [AttemptLimiter.Counter(key: "connect-user:" + userId, limit: settings.connectFailuresPerUserPerHour),
                        AttemptLimiter.Counter(key: "connect-node", limit: settings.connectFailuresPerNodePerHour)]
        if let source {
            counters.append(AttemptLimiter.Counter(key: "connect-address:" + source, limit: settings.connectFailuresPerAddressPerHour))
        }
        let what = "too many failed connect attempts"
        func failAttempt(_ error: GatewayError) {
            limitAttempt(.count(counters), what) { refused in completion(.failure(refused ?? error)) }
        }
        guard users[userId] != nil else { return completion(.failure(GatewayError(.userNotFound, "no user \"\(userId)\""))) }
        // Only failures count, but once over a limit the attempt is refused before the code is even looked at.
        limitAttempt(.ask(counters), what) { [self] refused in
            if let refused { return completion(.failure(refused)) }
            // The code's owner may be held by no node: the code is a store read (GatewayHub+RelationshipReads).
            // Text that is no code at all is refused by the machine without a read.
            let lookUp: (@escaping (ConnectCodeRecord?) -> Void) -> Void = { [self] body in
                guard let code = ConnectCodeMachine.normalise(rawCode) else { return body(nil) }
                lookUpConnectCode(code, failed: { completion(.failure($0)) }, body)
            }
            lookUp { [self] record in
            let other: String
            switch ConnectCodeMachine.claim(rawCode, record: record, by: userId, now: clock.now()) {
            case .failure(let refusal) where refusal.countsAsGuess: return failAttempt(GatewayError(refusal))
            case .failure(let refusal): return completion(.failure(GatewayError(refusal)))
            case .success(let owner): other = owner
            }
            guard loaded([other], failed: { completion(.failure($0)) }, retry: { [self] in   // its contacts and name (GatewayHub+Loading)
                connect(userId: userId, code: rawCode, source: source, completion: completion)
            }) else { return }
            // Blocked by the owner: the code answers as an unknown one would (and counts as a guess, as one would).
            switch BlockMachine.gate(relations.blockState(userId, other)) {
            case .open: break
            case .blockedByActor: return completion(.failure(.youBlocked))
            case .hiddenFromActor: return failAttempt(GatewayError(ConnectCodeMachine.Refusal.invalid(rawCode)))
            }
            guard !areContacts(userId, other) else { return completion(.failure(GatewayError(ConnectCodeMachine.Refusal.alreadyFriends))) }
            connectUsers(userId, other, completion: completion)
            }
        }
    }

    /// Makes the two contacts, accepting a pending request between them; when another node answered that request
    /// first, decides again on the store's row (the contact is still made).
    private func connectUsers(_ userId: String, _ other: String, completion: @escaping (Result<UserRef, GatewayError>) -> Void) {
        let before = pairMemory(userId, other)
        let (writes, events) = contactCreation(userId, other)
        let ref = userRef(other)
        commitPairChange(writes, events: events, before: before, retry: { [self] in connectUsers(userId, other, completion: completion) }) { [self] outcome in
            if case .success = outcome { exchangePresence(userId, other) }
            completion(outcome.map { _ in ref })
        }
    }
}
