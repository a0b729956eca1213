import GatewayProtocol

/// Contact discovery: the app backend attaches a verified phone number to a user; a client asks which of its
/// address-book entries (E.164 numbers, or SHA-256 hex of them) are users. Rate-limited per user over a sliding
/// window, across all nodes when they share their limits, so the endpoint cannot enumerate the user base. Hashes of phone numbers can be brute-forced (the space
/// is small): they keep numbers out of logs and transit, they are not anonymity.
extension GatewayHub {
    /// Backend: attaches a verified phone (any format `PhoneNumber.normalise` accepts), or detaches it with nil.
    /// A number attached to another user moves to this one (the backend verified it; numbers get recycled).
    /// Errors: `user_not_found`, `phone_invalid`. Answers with the E.164 form (nil after detaching).
    public func setPhone(userId: String, phone: String?, completion: @escaping (Result<String?, GatewayError>) -> Void) {
        guard users[userId] != nil else { return completion(.failure(GatewayError(.userNotFound, "no user \"\(userId)\""))) }
        guard let phone else {
            guard relations.phoneByUser[userId] != nil else { return completion(.success(nil)) }
            relations.setPhone(nil, for: userId)
            return commit([.deleteUserPhone(userId: userId)], completion: Self.finish(completion) { nil })
        }
        guard let e164 = PhoneNumber.normalise(phone) else {
            return completion(.failure(GatewayError(.phoneInvalid, "\"\(phone)\" is not an international number (+ and 8 to 15 digits)")))
        }
        // The number's current owner may be held by no node: a store read (GatewayHub+RelationshipReads).
        lookUpPhoneOwners(phones: [e164], hashes: [], failed: { completion(.failure($0)) }) { [self] owners in
            var writes: [StoreWrite] = []
            if let previous = owners.byPhone[e164], previous != userId {
                relations.setPhone(nil, for: previous)
                writes.append(.deleteUserPhone(userId: previous))
            }
            relations.setPhone(e164, for: userId)
            writes.append(.upsertUserPhone(UserPhoneRecord(userId: userId, phone: e164, verifiedAt: clock.now())))
            commit(writes, completion: Self.finish(completion) { e164 })
        }
    }

    /// The verified phone of a user (E.164), if any.
    public func phone(of userId: String) -> String? { relations.phoneByUser[userId] }

    /// Looks up address-book entries for `userId` (the owners are a store read, loaded before the answer is built).
    /// Every entry counts against the window, invalid ones included.
    /// Errors: `invalid_field` (more than `discoveryMaxEntriesPerRequest` entries), `rate_limited`.
    public func discover(userId: String, numbers: [String], hashes: [String],
                         completion: @escaping (Result<[DiscoveryEntry], GatewayError>) -> Void) {
        let limits = settings.relationships
        let total = numbers.count + hashes.count
        guard total <= limits.discoveryMaxEntriesPerRequest else {
            return completion(.failure(GatewayError(.invalidField, "at most \(limits.discoveryMaxEntriesPerRequest) entries per request (got \(total))")))
        }
        // Counted with every node's entries when the nodes share their limits (docs/CLUSTER.md): else a user could
        // look up as many numbers per window as there are nodes.
        let counter = AttemptLimiter.Counter(key: "discover:" + userId, limit: limits.discoveryMaxEntriesPerWindow)
        let what = "discovery is limited to \(limits.discoveryMaxEntriesPerWindow) entries per \(limits.discoveryWindowMs / 3_600_000) hours"
        limitAttempt(.count([counter], weight: total), what, limiter: AttemptLimiter(windowMs: limits.discoveryWindowMs),
                     state: \.discoveryLimits) { [self] refused in
            if let refused { return completion(.failure(refused)) }
            answerDiscovery(userId: userId, numbers: numbers, hashes: hashes, completion: completion)
        }
    }

    /// The discovery's answer, once the window allowed it.
    private func answerDiscovery(userId: String, numbers: [String], hashes: [String],
                                 completion: @escaping (Result<[DiscoveryEntry], GatewayError>) -> Void) {
        let e164s = numbers.map { PhoneNumber.normalise($0) }
        let lowered = hashes.map { hash -> String? in
            let lowered = hash.lowercased()
            return lowered.utf8.count == 64 && lowered.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) ? lowered : nil
        }
        lookUpPhoneOwners(phones: e164s.compactMap { $0 }, hashes: lowered.compactMap { $0 }, failed: { completion(.failure($0)) }) { [self] owners in
            var entries: [DiscoveryEntry] = []
            for (number, e164) in zip(numbers, e164s) {
                guard let e164 else {
                    entries.append(DiscoveryEntry(input: number, status: "invalid", e164: nil, user: nil))
                    continue
                }
                entries.append(entry(input: number, e164: e164, owner: owners.byPhone[e164], me: userId))
            }
            for (hash, lowered) in zip(hashes, lowered) {
                guard let lowered else {
                    entries.append(DiscoveryEntry(input: hash, status: "invalid", e164: nil, user: nil))
                    continue
                }
                entries.append(entry(input: hash, e164: nil, owner: owners.byHash[lowered], me: userId))
            }
            completion(.success(entries))
        }
    }

    private func entry(input: String, e164: String?, owner: String?, me: String) -> DiscoveryEntry {
        guard let owner else { return DiscoveryEntry(input: input, status: "invite", e164: e164, user: nil) }
        let status = owner == me ? "self" : areContacts(me, owner) ? "contact" : "user"
        return DiscoveryEntry(input: input, status: status, e164: e164, user: userRef(owner))
    }
}
