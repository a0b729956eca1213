import GatewayProtocol

/// Account and device lifecycle (docs/PROTOCOL.md, "Account and device lifecycle"): deleting a user and revoking
/// one device. Each is one store write (`StoreWrite.deleteUser`, `.revokeDevice`); once it is durable the hub forgets
/// what it held, closes the sockets (4010 / 4011) and announces the change, so another node re-reads the user,
/// finds the revocation and closes the sockets it holds too (`closeRevokedClients`, after every user read).
extension GatewayHub {
    /// Deletes `userId` and everything stored of theirs. 404 `user_not_found` when there is no such user. From the
    /// moment it is asked, the user's tokens are refused here; once it is durable the user's sockets close with 4010,
    /// its pending approvals stop (timers cancelled; a long-poll on one answers 404 when its wait ends) and the users
    /// sharing rows with it (contacts, friend requests, pauses, blocks, groups) are read again.
    public func deleteUser(_ userId: String, completion: @escaping (Result<Void, GatewayError>) -> Void) {
        withUsers([userId], failed: { completion(.failure($0)) }) { [self] in
            guard users[userId] != nil else {
                return completion(.failure(GatewayError(.userNotFound, "no user \"\(userId)\"")))
            }
            let sharing = usersSharingRows(with: userId)
            let at = clock.now()
            let earlier = revocations[userId]
            revocations[userId] = [RevocationRecord(userId: userId, deviceId: nil, revokedAt: at)]
            queueWrite([.deleteUser(userId: userId, at: at)]) { [self] error in
                if let error {
                    revocations[userId] = earlier
                    return completion(.failure(.storageFailed("could not delete the user: \(error)", cause: error)))
                }
                closeRevokedClients(of: userId)
                approvals.forgetAll(of: userId)
                deadlines.forget(userId)
                forgetUsers([userId])
                for other in sharing {
                    userChanged(other)
                    cluster.bus?.announceChange(userId: other)
                }
                completion(.success(()))
            }
        }
    }

    /// Revokes `deviceId` of `userId`: the device, its push tokens and push jobs go, and its tokens issued until now
    /// are refused. 404 `not_found` when the user has no such device. Once durable its sockets close with 4011; the
    /// user's other devices are untouched.
    public func revokeDevice(
        userId: String, deviceId: String, completion: @escaping (Result<Void, GatewayError>) -> Void
    ) {
        withUsers([userId], failed: { completion(.failure($0)) }) { [self] in
            let key = DeviceKey(userId: userId, deviceId: deviceId)
            let missing = GatewayError(.notFound, "user \"\(userId)\" has no device \"\(deviceId)\"")
            guard users[userId] != nil else { return completion(.failure(missing)) }
            if devices[key] != nil {
                return commitRevocation(userId: userId, deviceId: deviceId, completion: completion)
            }
            // Not held here: another node may have registered it and its notice not arrived yet; the store says.
            let store = self.store
            load(read: { try store.deviceOwners(deviceId: deviceId) }) { [self] result in
                switch result {
                case .failure(let error): completion(.failure(error))
                case .success(let owners) where owners.contains(userId):
                    withUsers([userId], failed: { completion(.failure($0)) }) { [self] in
                        commitRevocation(userId: userId, deviceId: deviceId, completion: completion)
                    }
                case .success: completion(.failure(missing))
                }
            }
        }
    }

    /// Commits the revocation of a device the user has (held here or stored); the user is loaded.
    private func commitRevocation(
        userId: String, deviceId: String, completion: @escaping (Result<Void, GatewayError>) -> Void
    ) {
        let key = DeviceKey(userId: userId, deviceId: deviceId)
        let revocation = RevocationRecord(userId: userId, deviceId: deviceId, revokedAt: clock.now())
        let earlier = revocations[userId]
        revocations[userId] = (earlier ?? []).filter { $0.deviceId != deviceId } + [revocation]
        queueWrite([.revokeDevice(userId: userId, deviceId: deviceId, at: revocation.revokedAt)]) { [self] error in
            if let error {
                revocations[userId] = earlier
                return completion(.failure(.storageFailed("could not revoke the device: \(error)", cause: error)))
            }
            if let token = devices.removeValue(forKey: key)?.deviceToken, devicesByToken[token] == key {
                devicesByToken[token] = nil
            }
            pushTokens[key] = nil
            closeRevokedClients(of: userId)
            completion(.success(()))
        }
    }

    /// The revocation refusing a token of `deviceId` issued at `issuedAt` (Unix seconds), nil when it is not refused.
    /// `userId` must be loaded (its revocations are read with it).
    public func revocation(refusing userId: String, deviceId: String, issuedAt: Int64?) -> RevocationRecord? {
        revocations[userId]?.refusing(deviceId: deviceId, issuedAt: issuedAt)
    }

    /// Closes the sockets of `userId` held here whose tokens a revocation now refuses (4010 for a deleted user, 4011
    /// for a revoked device). They leave the user's connections first, so nothing more is delivered to them.
    func closeRevokedClients(of userId: String) {
        guard let held = revocations[userId], !held.isEmpty, let userClients = clients[userId] else { return }
        for state in userClients.values {
            let client = state.client
            guard let revoked = held.refusing(deviceId: client.deviceId, issuedAt: client.issuedAt) else { continue }
            disconnect(client)
            client.close(code: revoked.closeCode, reason: revoked.closeReason)
        }
    }

    /// The loaded users holding rows `userId`'s deletion removes: its contacts, the other side of its friend
    /// requests, pauses and blocks, and the members of its groups.
    private func usersSharingRows(with userId: String) -> [String] {
        var ids = Set(contactIds(of: userId))
        for request in relations.friendRequests(of: userId) { ids.formUnion([request.fromUserId, request.toUserId]) }
        ids.formUnion(relations.pauses[userId].map { Array($0.keys) } ?? [])
        ids.formUnion(relations.pauses.outers(of: userId))
        ids.formUnion(relations.blocks[userId].map { Array($0.keys) } ?? [])
        ids.formUnion(relations.blocks.outers(of: userId))
        ids.formUnion(groupUsers(of: userId))
        ids.remove(userId)
        return ids.sorted()
    }
}

extension RevocationRecord {
    /// The close code of a socket this revocation ends.
    public var closeCode: UInt16 { deviceId == nil ? GatewayCloseCode.accountDeleted : GatewayCloseCode.deviceRevoked }
    /// The close reason (and error text) that goes with it.
    public var closeReason: String { deviceId == nil ? "account_deleted" : "device_revoked" }
}
