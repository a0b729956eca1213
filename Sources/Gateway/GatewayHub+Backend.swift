import GatewayProtocol

/// What app backends (HTTP API) and standalone devices ask of the domain besides sessions and approvals.
extension GatewayHub {
    public struct UserData: Codable, Sendable, Equatable {
        public var userId: String
        public var hexCode: String
        public var displayName: String?
    }

    public func user(_ id: String) -> UserData? {
        users[id].map { UserData(userId: $0.id, hexCode: $0.hexCode, displayName: $0.displayName) }
    }

    /// Creates a user, or updates the display name of an existing one.
    public func upsertUser(
        id: String, displayName: String?, completion: @escaping (Result<UserData, GatewayError>) -> Void
    ) {
        if let displayName, let problem = Self.displayNameProblem(displayName) {
            return completion(.failure(GatewayError(.displayNameInvalid, problem)))
        }
        var user = users[id] ?? createUser(id: id, displayName: nil)
        if let displayName { user.displayName = displayName }
        users[id] = user
        let data = UserData(userId: user.id, hexCode: user.hexCode, displayName: user.displayName)
        commit([.upsertUser(user)]) { outcome in completion(outcome.map { _ in data }) }
    }

    /// 1–20 characters, no control characters and no format characters (Unicode category Cf) except the zero-width
    /// joiner; nil when valid, else the rule that failed (`shownNameProblem`).
    static func displayNameProblem(_ name: String) -> String? {
        shownNameProblem(name, what: "display name", maxCharacters: 20)
    }

    /// The rules for a name other people are shown (display names, group names — the latter also in invite texts
    /// sent by SMS and e-mail): 1…`maxCharacters` characters, no control characters and no format characters (Unicode
    /// category Cf) except the zero-width joiner; nil when valid, else the rule that failed, naming `what`. Format
    /// characters reorder or hide text: with U+202E (right-to-left override) "abc\u{202E}gnp.exe" is shown as
    /// "abcexe.png", and tag characters (U+E0020…) carry invisible text. U+200D stays allowed because emoji sequences
    /// (👩‍💻) need it and it moves nothing.
    static func shownNameProblem(_ name: String, what: String, maxCharacters: Int) -> String? {
        let length = "\(what) must have 1 to \(maxCharacters) characters"
        if name.trimmedOfWhitespace.isEmpty { return "\(length) (it is empty)" }
        if name.count > maxCharacters { return "\(length) (it has \(name.count))" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "\(what) must not contain control characters"
        }
        if let hidden = name.unicodeScalars.first(where: {
            $0.properties.generalCategory == .format && $0 != "\u{200D}"
        }) {
            let hex = String(hidden.value, radix: 16, uppercase: true)
            return
                "\(what) must not contain format characters that reorder or hide text (U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex))"
        }
        return nil
    }

    public func setDisplayName(
        userId: String, _ name: String, completion: @escaping (Result<UserData, GatewayError>) -> Void
    ) {
        guard users[userId] != nil else {
            return completion(.failure(GatewayError(.userNotFound, "no user \"\(userId)\"")))
        }
        upsertUser(id: userId, displayName: name, completion: completion)
    }

    /// Makes two users contacts (both directions; a removed contact is reactivated keeping its creation time), and
    /// accepts any pending friend request between them. Errors: `invalid_field` (one user twice), `user_not_found`,
    /// `user_blocked` (either blocked the other: the backend is told, it can lift the block first).
    public func addContact(_ a: String, _ b: String, completion: @escaping (Result<Void, GatewayError>) -> Void) {
        guard !relations.blockState(a, b).blocked else {
            return completion(.failure(GatewayError(.userBlocked, "\"\(a)\" and \"\(b)\" are blocked; unblock first")))
        }
        let before = pairMemory(a, b)
        let (writes, events): ([StoreWrite], [PendingEvent])
        switch contactChange(a, b, .add(missingUser: [a, b].first { users[$0] == nil })) {
        case .failure(let error): return completion(.failure(error))
        case .success(let change): (writes, events) = change
        }
        guard !writes.isEmpty else { return completion(.success(())) }  // contacts already
        let (accepted, acceptedEvents) = acceptPendingRequests(a, b)
        commitPairChange(
            writes + accepted, events: events + acceptedEvents, before: before,
            retry: { [self] in
                addContact(a, b, completion: completion)
            }
        ) { [self] outcome in
            if case .success = outcome { exchangePresence(a, b) }
            completion(outcome.map { _ in () })
        }
    }

    /// Removes a contact relation (soft delete, both directions; the pauses go too). Errors: `not_a_contact`.
    public func removeContact(_ a: String, _ b: String, completion: @escaping (Result<Void, GatewayError>) -> Void) {
        switch contactChange(a, b, .remove) {
        case .failure(let error): completion(.failure(error))
        case .success(let (writes, events)):
            commit(writes, events: events) { outcome in completion(outcome.map { _ in () }) }
        }
    }

    func contactData(_ userId: String) -> ContactData {
        ContactData(userId: userId, hexCode: users[userId]?.hexCode ?? "", displayName: users[userId]?.displayName)
    }

    /// Backend: appends an app-defined event to a user's log (`type` = "custom"). Acknowledged after commit;
    /// a retry with the same idempotency key is not stored twice. `notification`: the backend asks for an alert.
    public func publish(
        userId: String, name: String, payload: JSONValue?, notification: BackendNotification? = nil,
        idempotencyKey: String?,
        completion: @escaping (Result<Int64, GatewayError>) -> Void
    ) {
        guard users[userId] != nil else {
            return completion(.failure(GatewayError(.userNotFound, "no user \"\(userId)\"")))
        }
        let append = { [self] (requestHash: String, done: @escaping (Result<PublishResult, GatewayError>) -> Void) in
            let data = encode(CustomEventData(name: name, payload: payload))
            // The key's answer names the offset the store gives the event, decided in the same batch.
            var writes: [StoreWrite] = []
            if let idempotencyKey {
                writes.append(
                    .claimIdempotentOffset(
                        scope: "publish:" + userId, key: idempotencyKey, requestHash: requestHash,
                        createdAt: clock.now()))
            }
            let pushable = notification.map { PushableEvent.notification($0, ids: ["name": name], deepLinkPath: nil) }
            commit(
                [], events: [PendingEvent(userId: userId, type: .custom, data: data, pushable: pushable)], after: writes
            ) { outcome in
                done(outcome.map { PublishResult(offset: $0.first?.offset ?? 0) })
            }
        }
        let finish: (Result<PublishResult, GatewayError>) -> Void = { completion($0.map(\.offset)) }
        guard let idempotencyKey else { return append("", finish) }
        idempotency.run(
            scope: "publish:" + userId, key: idempotencyKey, request: CustomEventData(name: name, payload: payload),
            perform: append, completion: finish)
    }

    // MARK: Standalone mode

    public struct Registration: Sendable, Equatable {
        public var userId: String
        public var hexCode: String
        public var deviceId: String
        public var clientType: String
        /// This call created the user and device (the server API answers 201 then, 200 for a known device).
        public var created = false
    }

    /// Standalone devices (no app backend): a new device secret creates a user and a device; a known one returns them.
    /// Only the secret's digest (`deviceTokenDigest`, SHA-256 hex, computed by the server) is seen and stored here: a
    /// copy of the database does not reveal secrets. Looking a digest up leaks nothing usable about the secret.
    /// `source` is the caller's address group (see `connect`).
    public func registerDevice(
        deviceTokenDigest deviceToken: String, platform: String, source: String? = nil,
        completion: @escaping (Result<Registration, GatewayError>) -> Void
    ) {
        registerDevice(
            deviceTokenDigest: deviceToken, platform: platform, source: source, lookedUp: false, completion: completion)
    }

    /// `lookedUp`: the store was asked for the digest (and its user loaded): a miss in memory is a new device.
    private func registerDevice(
        deviceTokenDigest deviceToken: String, platform: String, source: String?, lookedUp: Bool,
        completion: @escaping (Result<Registration, GatewayError>) -> Void
    ) {
        guard ["ios", "android", "desktop", "web"].contains(platform) else {
            return completion(.failure(GatewayError(.invalidField, "platform must be ios, android, desktop or web")))
        }
        func known() -> Registration? {
            guard let key = devicesByToken[deviceToken], let device = devices[key], let user = users[device.userId]
            else { return nil }
            return Registration(
                userId: user.id, hexCode: user.hexCode, deviceId: device.id, clientType: device.clientType)
        }
        if let registration = known() { return completion(.success(registration)) }
        if !lookedUp {
            // Not in memory: the store's index on the digest says whether the device exists; its user is loaded.
            let store = self.store
            return load(read: { try store.device(tokenDigest: deviceToken) }) { [self] found in
                switch found {
                case .failure(let error): completion(.failure(error))
                case .success(let device):
                    withUsers(device.map { [$0.userId] } ?? [], failed: { completion(.failure($0)) }) { [self] in
                        registerDevice(
                            deviceTokenDigest: deviceToken, platform: platform, source: source, lookedUp: true,
                            completion: completion)
                    }
                }
            }
        }
        // New identities are limited per source address and per node: each one would otherwise bring its own
        // per-user allowances.
        var counters = [AttemptLimiter.Counter(key: "register-node", limit: settings.registrationsPerNodePerHour)]
        if let source {
            counters.append(
                AttemptLimiter.Counter(
                    key: "register-address:" + source, limit: settings.registrationsPerAddressPerHour))
        }
        limitAttempt(.count(counters), "too many new registrations") { [self] refused in
            if let refused { return completion(.failure(refused)) }
            // The same secret may have been registered while the shared limits were asked.
            if let registration = known() { return completion(.success(registration)) }
            let user = createUser(id: "usr_" + randomToken(), displayName: nil)
            let device = DeviceRecord(
                id: "dev_" + randomToken(), userId: user.id, clientType: platform, deviceToken: deviceToken,
                createdAt: clock.now())
            devices[device.key] = device
            devicesByToken[deviceToken] = device.key
            let registration = Registration(
                userId: user.id, hexCode: user.hexCode, deviceId: device.id, clientType: platform, created: true)
            commit([.upsertUser(user), .upsertDevice(device)]) { outcome in
                completion(outcome.map { _ in registration })
            }
        }
    }
}

public struct ContactData: Codable, Sendable, Equatable {
    public var userId: String
    public var hexCode: String
    public var displayName: String?
}

public struct CustomEventData: Codable, Sendable, Equatable {
    public var name: String
    public var payload: JSONValue?
}

struct PublishResult: Codable {
    var offset: Int64
}
