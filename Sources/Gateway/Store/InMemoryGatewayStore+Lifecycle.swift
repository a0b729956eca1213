/// The reference semantics of the lifecycle writes (`StoreWrite.deleteUser`, `.revokeDevice`), as the relational
/// store applies them (LifecycleWriteApplier).
extension InMemoryGatewayStore.State {
    mutating func applyLifecycle(_ write: StoreWrite) {
        switch write {
        case .deleteUser(let id, let at):
            deleteUser(id, at: at)
        case .revokeDevice(let userId, let deviceId, let at):
            let key = DeviceKey(userId: userId, deviceId: deviceId)
            snapshot.devices.removeAll { $0.key == key }
            snapshot.pushTokens.removeAll { $0.deviceKey == key }
            dropPushJobs { $0.userId == userId && $0.deviceId == deviceId }
            revocations.removeAll { $0.userId == userId && $0.deviceId == deviceId }
            revocations.append(RevocationRecord(userId: userId, deviceId: deviceId, revokedAt: at))
        default:
            preconditionFailure("not a lifecycle write")
        }
    }

    private mutating func deleteUser(_ id: String, at: Int64) {
        snapshot.users.removeAll { $0.id == id }
        snapshot.devices.removeAll { $0.userId == id }
        snapshot.contacts.removeAll { $0.userId == id || $0.contactId == id }
        snapshot.openSessions.removeAll { $0.userId == id }
        endedSessions = endedSessions.filter { $0.value.userId != id }
        snapshot.pendingApprovals.removeAll { $0.userId == id }
        resolvedApprovals = resolvedApprovals.filter { $0.value.userId != id }
        events[id] = nil  // `latestOffsets` keeps the log's head: offsets never restart
        messages.removeAll { $0.from == id || $0.to == id }
        readMarks[id] = nil
        for reader in readMarks.keys { readMarks[reader]?[id] = nil }
        let scopes = Set(UserDeletion.idempotencyScopes(of: id)).map { $0 + "\u{0}" }
        let approvals = UserDeletion.approvalScopePrefix(of: id)
        idempotency = idempotency.filter { entry in
            !entry.key.hasPrefix(approvals) && !scopes.contains { entry.key.hasPrefix($0) }
        }
        snapshot.pushTokens.removeAll { $0.userId == id }
        dropPushJobs { $0.userId == id }
        snapshot.notificationSettings[id] = nil
        presencePushClaims[id] = nil
        snapshot.friendRequests.removeAll { $0.fromUserId == id || $0.toUserId == id }
        snapshot.contactPauses.removeAll { $0.userId == id || $0.contactId == id }
        snapshot.blocks.removeAll { $0.userId == id || $0.blockedId == id }
        for i in snapshot.connectCodes.indices
        where snapshot.connectCodes[i].userId == id && snapshot.connectCodes[i].revokedAt == nil {
            snapshot.connectCodes[i].revokedAt = at
        }
        let owned = Set(snapshot.groups.filter { $0.ownerId == id }.map(\.id))
        snapshot.groups.removeAll { owned.contains($0.id) }
        snapshot.groupMembers.removeAll { $0.userId == id || owned.contains($0.groupId) }
        snapshot.invites.removeAll { $0.inviterId == id || owned.contains($0.groupId) }
        snapshot.userPhones.removeAll { $0.userId == id }
        revocations.removeAll { $0.userId == id }
        revocations.append(RevocationRecord(userId: id, deviceId: nil, revokedAt: at))
    }

    /// Drops the push jobs `matches` picks (sent ones too: they hold what was pushed), with their claims.
    private mutating func dropPushJobs(_ matches: (PushJobRecord) -> Bool) {
        for (jobId, job) in pushJobs where matches(job) {
            pushJobs[jobId] = nil
            pushLeases[jobId] = nil
        }
    }
}
