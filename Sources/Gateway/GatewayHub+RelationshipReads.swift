import GatewayProtocol

/// Relationship look-ups that are not keyed by a user the hub holds (docs/ARCHITECTURE.md, "Memory and load on
/// demand"): a group by id, a connect code or an invite by its code, a phone number's owner. Each is a store read off
/// the hub thread, like `userId(hexCode:)`; the users it names are then loaded with `withUsers`, which brings their
/// relationship rows (a group comes whole with any of its active members).
extension GatewayHub {
    /// Runs `body` once `groupId` and everyone it shows are loaded: at once when the group is in memory (an active
    /// member is held here), otherwise after reading its members from the store. A group that does not exist leaves
    /// `relations.groups[groupId]` nil when `body` runs.
    public func withGroup(_ groupId: String, failed: @escaping (GatewayError) -> Void, _ body: @escaping () -> Void) {
        if relations.groups[groupId] != nil { return withUsers(groupUsers(groupId), failed: failed, body) }
        let store = self.store
        load(read: { try store.groupMemberIds(groupId: groupId) }) { [self] result in
            switch result {
            case .failure(let error): failed(error)
            case .success(let ids): withUsers(ids, failed: failed, body)
            }
        }
    }

    /// `loaded` for a group: whether `groupId` (with everyone it shows) and `users` are in memory; when not, `retry`
    /// runs once they are (or `failed`), and the caller returns. A group read from the store and still unknown is
    /// not read again by the retry (it answers "no such group").
    func loadedGroup(_ groupId: String, plus users: [String], failed: @escaping (GatewayError) -> Void,
                     retry: @escaping () -> Void) -> Bool {
        // Taken out whether or not the group is in memory now (the look-up usually brought it): a mark is held only
        // between a look-up and its retry.
        let lookedUp = relations.groupsLookedUp.remove(groupId) != nil
        if relations.groups[groupId] != nil || lookedUp {
            return loaded(groupUsers(groupId) + users, failed: failed, retry: retry)
        }
        withGroup(groupId, failed: failed) { [self] in
            relations.groupsLookedUp.insert(groupId)
            withUsers(users, failed: { [self] error in
                relations.groupsLookedUp.remove(groupId)
                failed(error)
            }, retry)
        }
        return false
    }

    /// The connect code: memory's when its owner is held here (kept current by change notices), else the store's (also
    /// for a retired one past its quarantine, which may have a new owner).
    func lookUpConnectCode(_ code: String, failed: @escaping (GatewayError) -> Void, _ body: @escaping (ConnectCodeRecord?) -> Void) {
        let store = self.store
        // A retired code held here that is out of quarantine may have been reissued by another node: the store knows.
        let here = relations.connectCodes[code].flatMap {
            ConnectCodeMachine.isFree($0, now: clock.now(), quarantineMs: settings.relationships.connectCodeQuarantineMs) ? nil : $0
        }
        lookUp(here, read: { try store.connectCode(code: code) }, failed: failed, body)
    }

    /// The invite: memory's while this node is writing it, else the store's.
    func lookUpInvite(_ code: String, failed: @escaping (GatewayError) -> Void, _ body: @escaping (InviteRecord?) -> Void) {
        let store = self.store
        lookUp(relations.invites[code], read: { try store.invite(code: code) }, failed: failed, body)
    }

    private func lookUp<R: Sendable>(_ here: R?, read: @escaping @Sendable () throws -> R?, failed: @escaping (GatewayError) -> Void,
                                     _ body: @escaping (R?) -> Void) {
        if let here { return body(here) }
        load(read: read) { result in
            switch result {
            case .failure(let error): failed(error)
            case .success(let record): body(record)
            }
        }
    }

    /// The owners of phone numbers and hashes, read from the store, with those owners loaded.
    func lookUpPhoneOwners(phones: [String], hashes: [String], failed: @escaping (GatewayError) -> Void,
                           _ body: @escaping (PhoneOwners) -> Void) {
        guard !phones.isEmpty || !hashes.isEmpty else { return body(PhoneOwners()) }
        let store = self.store
        load(read: { try store.phoneOwners(phones: phones, hashes: hashes) }) { [self] result in
            switch result {
            case .failure(let error): failed(error)
            case .success(let owners):
                withUsers(Array(owners.byPhone.values) + Array(owners.byHash.values), failed: failed) { body(owners) }
            }
        }
    }

    /// The newest invite into `groupId` for `recipient`: this node's own in flight, or the store's.
    func lookUpLatestInvite(groupId: String, recipient: String, failed: @escaping (GatewayError) -> Void,
                            _ body: @escaping (InviteRecord?) -> Void) {
        let store = self.store
        load(read: { try store.latestInvite(groupId: groupId, recipient: recipient) }) { [self] result in
            switch result {
            case .failure(let error): failed(error)
            case .success(let stored):
                let here = relations.invites.values.filter { $0.groupId == groupId && $0.recipient == recipient }
                body((here + (stored.map { [$0] } ?? [])).max { $0.createdAt < $1.createdAt })
            }
        }
    }
}
