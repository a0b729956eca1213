import GatewayProtocol

/// Contact discovery: the app backend attaches a verified phone number to a user; a client asks which of its
/// address-book entries (E.164 numbers, or SHA-256 hex of them) are users. Rate-limited per user, per source address
/// and per node over a sliding window, across all nodes when they share their limits, so the endpoint cannot enumerate the user base. Hashes of phone numbers can be brute-forced (the space
/// is small): they keep numbers out of logs and transit, they are not anonymity. The rules are `DiscoveryMachine`'s;
/// this reads owners, counts through `limitAttempt` and commits what it decides.
extension GatewayHub {
    /// Backend: attaches a verified phone (any format `PhoneNumber.normalise` accepts), or detaches it with nil.
    /// A number attached to another user moves to this one (the backend verified it; numbers get recycled).
    /// Errors: `user_not_found`, `phone_invalid`. Answers with the E.164 form (nil after detaching).
    public func setPhone(userId: String, phone: String?, completion: @escaping (Result<String?, GatewayError>) -> Void) {
        let state = DiscoveryMachine.PhoneState(userId: userId, userExists: users[userId] != nil, phone: relations.phoneByUser[userId])
        setPhone(state, phone.map { .attach($0) } ?? .detach, completion: completion)
    }

    /// Feeds `DiscoveryMachine` one phone input and carries out its actions.
    private func setPhone(_ state: DiscoveryMachine.PhoneState, _ input: DiscoveryMachine.PhoneInput,
                          completion: @escaping (Result<String?, GatewayError>) -> Void) {
        let (next, actions) = DiscoveryMachine.transition(state, input, now: clock.now())
        var writes: [StoreWrite] = []
        for action in actions {
            switch action {
            case .refuse(let refusal): return completion(.failure(GatewayError(refusal)))
            case .lookUpOwner(let e164):
                // The number's current owner may be held by no node: a store read (GatewayHub+RelationshipReads).
                lookUpPhoneOwners(phones: [e164], hashes: [], failed: { completion(.failure($0)) }) { [self] owners in
                    setPhone(next, .ownerLooked(owners.byPhone[e164]), completion: completion)
                }
            case .commit(let changes):
                for change in changes {
                    switch change {
                    case .detach(let user):
                        relations.setPhone(nil, for: user)
                        writes.append(.deleteUserPhone(userId: user))
                    case .attach(let record):
                        relations.setPhone(record.phone, for: record.userId)
                        writes.append(.upsertUserPhone(record))
                    }
                }
            case .reply(let phone):
                guard !writes.isEmpty else { return completion(.success(phone)) }
                commit(writes, completion: Self.finish(completion) { phone })
            }
        }
    }

    /// The verified phone of a user (E.164), if any.
    public func phone(of userId: String) -> String? { relations.phoneByUser[userId] }

    /// Looks up address-book entries for `userId` (the owners are a store read, loaded before the answer is built).
    /// Every entry counts against the windows of the user, of `source` (the caller's address group, nil for the
    /// server API) and of the node, invalid entries included.
    /// Errors: `invalid_field` (more than `discoveryMaxEntriesPerRequest` entries), `rate_limited`.
    public func discover(userId: String, numbers: [String], hashes: [String], source: String? = nil,
                         completion: @escaping (Result<[DiscoveryEntry], GatewayError>) -> Void) {
        discover(.new, .discover(userId: userId, numbers: numbers, hashes: hashes, source: source), completion: completion)
    }

    /// Feeds `DiscoveryMachine` one discovery input and carries out its actions.
    private func discover(_ state: DiscoveryMachine.State, _ input: DiscoveryMachine.Input,
                          completion: @escaping (Result<[DiscoveryEntry], GatewayError>) -> Void) {
        let (next, actions) = DiscoveryMachine.transition(state, input, limits: settings.relationships)
        for action in actions {
            switch action {
            case .refuse(let refusal): return completion(.failure(GatewayError(refusal)))
            case .count(let counters, let weight, let windowMs, let what):
                limitAttempt(.count(counters, weight: weight), what, limiter: AttemptLimiter(windowMs: windowMs),
                             state: \.discoveryLimits) { [self] refused in
                    if let refused { return completion(.failure(refused)) }
                    discover(next, .counted, completion: completion)
                }
            case .lookUp(let phones, let hashes, let userId):
                lookUpPhoneOwners(phones: phones, hashes: hashes, failed: { completion(.failure($0)) }) { [self] owners in
                    let found = Set(owners.byPhone.values).union(owners.byHash.values)
                    discover(next, .ownersLooked(byPhone: owners.byPhone, byHash: owners.byHash,
                                                 contacts: found.filter { areContacts(userId, $0) }), completion: completion)
                }
            case .reply(let answers):
                completion(.success(answers.map { DiscoveryEntry(input: $0.input, status: $0.status.rawValue, e164: $0.e164, user: $0.owner.map(userRef)) }))
            }
        }
    }
}
