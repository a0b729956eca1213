import Gateway

/// The columns each record is read with and the records made from them, for either engine's rows. Decoders that
/// read an enum take the database's name for the error a value no build knows gets.
enum StoreRows {
    static let userColumns = "id, hex_code, display_name, created_at"
    static let deviceColumns = "id, user_id, client_type, device_token, created_at, acked_offset"
    static let contactColumns = "user_id, contact_id, created_at, active"
    static let pushTokenColumns = "device_id, kind, token, environment, session_id, updated_at, user_id"
    static let sessionColumns = """
        id, user_id, title, state, active_client_type, active_device_id, active_last_activity_at, created_at, ended_at
        """
    static let approvalColumns = """
        id, user_id, session_id, tool_name, summary, details, state, decided_by_device_id, decided_by_client_type,
        created_at, expires_at, resolved_at
        """
    static let pushColumns = "id, user_id, device_id, target, notice, fallback, state, attempts, next_attempt_at, last_error, created_at"
    static let friendRequestColumns = "id, from_user, to_user, state, created_at, resolved_at"
    static let connectCodeColumns = "code, user_id, created_at, expires_at, revoked_at"
    static let groupColumns = "id, owner_id, name, kind, max_members, invite_policy, role_limits, created_at"
    static let memberColumns = "group_id, user_id, role, active, created_at"
    static let inviteColumns = "code, group_id, inviter_id, recipient, role, state, created_at, expires_at, used_by, used_at"
    static let pauseColumns = "user_id, contact_id, paused_at"
    static let blockColumns = "user_id, blocked_id, created_at"
    static let phoneColumns = "user_id, phone, verified_at"

    static func user(_ row: some SQLRow) -> UserRecord {
        UserRecord(id: row.string(0), hexCode: row.string(1), displayName: row.optionalString(2), createdAt: row.int64(3))
    }

    static func device(_ row: some SQLRow) -> DeviceRecord {
        DeviceRecord(id: row.string(0), userId: row.string(1), clientType: row.string(2), deviceToken: row.optionalString(3),
                     createdAt: row.int64(4), ackedOffset: row.int64(5))
    }

    static func contact(_ row: some SQLRow) -> ContactRecord {
        ContactRecord(userId: row.string(0), contactId: row.string(1), createdAt: row.int64(2), active: row.bool(3))
    }

    static func pushToken(_ row: some SQLRow) -> PushTokenRecord {
        PushTokenRecord(userId: row.string(6), deviceId: row.string(0), kind: row.string(1), token: row.string(2),
                        environment: row.optionalString(3), sessionId: row.string(4), updatedAt: row.int64(5))
    }

    static func session(_ row: some SQLRow, in database: String) throws(StorageError) -> SessionRecord {
        let client = row.isNull(4) ? nil
            : ActiveClient(clientType: row.string(4), deviceId: row.string(5), lastActivityAt: row.int64(6))
        return SessionRecord(id: row.string(0), userId: row.string(1), title: row.optionalString(2),
                             state: try row.enumValue(3, as: SessionState.self, in: database), activeClient: client,
                             createdAt: row.int64(7), endedAt: row.optionalInt64(8))
    }

    static func approval(_ row: some SQLRow, in database: String) throws(StorageError) -> ApprovalRecord {
        ApprovalRecord(id: row.string(0), userId: row.string(1), sessionId: row.string(2), toolName: row.string(3),
                       summary: row.string(4), details: row.optionalBytes(5),
                       state: try row.enumValue(6, as: ApprovalState.self, in: database),
                       decidedByDeviceId: row.optionalString(7), decidedByClientType: row.optionalString(8),
                       createdAt: row.int64(9), expiresAt: row.int64(10), resolvedAt: row.optionalInt64(11))
    }

    /// nil when a blob does not decode (see `PushBlobs.job`).
    static func pushJob(_ row: some SQLRow) -> PushJobRecord? {
        PushBlobs.job(id: row.int64(0), userId: row.string(1), deviceId: row.string(2), target: row.bytes(3), notice: row.bytes(4),
                      fallback: row.optionalBytes(5), state: row.string(6), attempts: Int(row.int64(7)), nextAttemptAt: row.int64(8),
                      lastError: row.optionalString(9), createdAt: row.int64(10))
    }

    static func friendRequest(_ row: some SQLRow, in database: String) throws(StorageError) -> FriendRequestRecord {
        FriendRequestRecord(id: row.string(0), fromUserId: row.string(1), toUserId: row.string(2),
                            state: try row.enumValue(3, as: FriendRequestState.self, in: database), createdAt: row.int64(4),
                            resolvedAt: row.optionalInt64(5))
    }

    static func connectCode(_ row: some SQLRow) -> ConnectCodeRecord {
        ConnectCodeRecord(code: row.string(0), userId: row.string(1), createdAt: row.int64(2), expiresAt: row.optionalInt64(3),
                          revokedAt: row.optionalInt64(4))
    }

    static func group(_ row: some SQLRow) -> GroupRecord {
        GroupRecord(id: row.string(0), ownerId: row.string(1), name: row.string(2), kind: row.string(3), maxMembers: Int(row.int64(4)),
                    invitePolicy: row.string(5), roleLimits: RoleLimits.decode(row.string(6)), createdAt: row.int64(7))
    }

    static func member(_ row: some SQLRow) -> GroupMemberRecord {
        GroupMemberRecord(groupId: row.string(0), userId: row.string(1), role: row.string(2), active: row.bool(3), createdAt: row.int64(4))
    }

    static func invite(_ row: some SQLRow, in database: String) throws(StorageError) -> InviteRecord {
        InviteRecord(code: row.string(0), groupId: row.string(1), inviterId: row.string(2), recipient: row.optionalString(3),
                     role: row.string(4), state: try row.enumValue(5, as: InviteState.self, in: database), createdAt: row.int64(6),
                     expiresAt: row.int64(7), usedBy: row.optionalString(8), usedAt: row.optionalInt64(9))
    }

    static func pause(_ row: some SQLRow) -> ContactPauseRecord {
        ContactPauseRecord(userId: row.string(0), contactId: row.string(1), pausedAt: row.int64(2))
    }

    static func block(_ row: some SQLRow) -> BlockRecord {
        BlockRecord(userId: row.string(0), blockedId: row.string(1), createdAt: row.int64(2))
    }

    static func phone(_ row: some SQLRow) -> UserPhoneRecord {
        UserPhoneRecord(userId: row.string(0), phone: row.string(1), verifiedAt: row.int64(2))
    }
}

/// A group's per-role member limits as stored: `role=n` lines sorted by role (roles are `[a-z0-9_-]`, so no
/// separator can appear inside one).
enum RoleLimits {
    static func encode(_ limits: [String: Int]) -> String {
        limits.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
    }

    static func decode(_ text: String) -> [String: Int] {
        var limits: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let n = Int(parts[1]) { limits[String(parts[0])] = n }
        }
        return limits
    }
}
