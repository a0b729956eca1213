import Gateway

/// Relationship reads for loading users on demand (`UserEntry.relationships`) and the look-ups not keyed by user,
/// each by an index: friend requests by sender and by recipient, pauses and blocks by either side, the current connect code by
/// user (`connect_codes_one_current`), memberships by user (`group_members_by_user`) and by group (primary key),
/// invites by code and by (group, recipient), phones by user, number and hash (SchemaV2, SchemaV10).
extension StoreReader {
    static let friendRequestColumns = "id, from_user, to_user, state, created_at, resolved_at"
    static let connectCodeColumns = "code, user_id, created_at, expires_at, revoked_at"
    static let groupColumns = "id, owner_id, name, kind, max_members, invite_policy, role_limits, created_at"
    static let memberColumns = "group_id, user_id, role, active, created_at"

    static func friendRequest(_ row: SQLiteStatement) throws(StorageError) -> FriendRequestRecord {
        try FriendRequestRecord(id: row.string(0), fromUserId: row.string(1), toUserId: row.string(2),
                                state: row.enumValue(3, as: FriendRequestState.self), createdAt: row.int64(4),
                                resolvedAt: row.optionalInt64(5))
    }

    static func pause(_ row: SQLiteStatement) -> ContactPauseRecord {
        ContactPauseRecord(userId: row.string(0), contactId: row.string(1), pausedAt: row.int64(2))
    }

    static func block(_ row: SQLiteStatement) -> BlockRecord {
        BlockRecord(userId: row.string(0), blockedId: row.string(1), createdAt: row.int64(2))
    }

    static func group(_ row: SQLiteStatement) -> GroupRecord {
        GroupRecord(id: row.string(0), ownerId: row.string(1), name: row.string(2), kind: row.string(3), maxMembers: Int(row.int64(4)),
                    invitePolicy: row.string(5), roleLimits: RelationshipWriteApplier.decodeRoleLimits(row.string(6)),
                    createdAt: row.int64(7))
    }

    static func member(_ row: SQLiteStatement) -> GroupMemberRecord {
        GroupMemberRecord(groupId: row.string(0), userId: row.string(1), role: row.string(2), active: row.bool(3), createdAt: row.int64(4))
    }

    static func phone(_ row: SQLiteStatement) -> UserPhoneRecord {
        UserPhoneRecord(userId: row.string(0), phone: row.string(1), verifiedAt: row.int64(2))
    }

    /// `id`'s relationship rows (inside `userEntries`' transaction).
    func relationships(of id: String) throws(StorageError) -> UserRelationships {
        var r = UserRelationships()
        r.friendRequests = try db.query("""
            SELECT \(Self.friendRequestColumns) FROM friend_requests WHERE from_user = ?1 OR to_user = ?1 ORDER BY rowid
            """) { $0.bind(1, id) } row: { row throws(StorageError) in try Self.friendRequest(row) }
        r.contactPauses = try db.query("""
            SELECT user_id, contact_id, paused_at FROM contact_pauses WHERE user_id = ?1 OR contact_id = ?1 ORDER BY rowid
            """) { $0.bind(1, id) } row: { Self.pause($0) }
        r.blocks = try db.query("SELECT user_id, blocked_id, created_at FROM user_blocks WHERE user_id = ?1 OR blocked_id = ?1 ORDER BY rowid") {
            $0.bind(1, id)
        } row: { Self.block($0) }
        r.connectCode = try db.queryFirst("""
            SELECT \(Self.connectCodeColumns) FROM connect_codes WHERE user_id = ?1 AND revoked_at IS NULL
            """) { $0.bind(1, id) } row: { RelationshipWriteApplier.connectCode($0) }
        r.groups = try db.query("""
            SELECT \(Self.groupColumns) FROM user_groups
            WHERE id IN (SELECT group_id FROM group_members WHERE user_id = ?1 AND active = 1) ORDER BY rowid
            """) { $0.bind(1, id) } row: { Self.group($0) }
        r.groupMembers = try db.query("""
            SELECT \(Self.memberColumns) FROM group_members
            WHERE group_id IN (SELECT group_id FROM group_members WHERE user_id = ?1 AND active = 1) ORDER BY rowid
            """) { $0.bind(1, id) } row: { Self.member($0) }
        r.phone = try db.queryFirst("SELECT user_id, phone, verified_at FROM user_phones WHERE user_id = ?1") {
            $0.bind(1, id)
        } row: { Self.phone($0) }
        return r
    }

    func connectCode(code: String) throws(StorageError) -> ConnectCodeRecord? {
        try db.queryFirst("SELECT \(Self.connectCodeColumns) FROM connect_codes WHERE code = ?1") { $0.bind(1, code) } row: {
            RelationshipWriteApplier.connectCode($0)
        }
    }

    func latestInvite(groupId: String, recipient: String) throws(StorageError) -> InviteRecord? {
        try db.queryFirst("""
            SELECT \(Self.inviteColumns) FROM invites WHERE group_id = ?1 AND recipient = ?2 ORDER BY created_at DESC LIMIT 1
            """) { $0.bind(1, groupId); $0.bind(2, recipient) } row: { row throws(StorageError) in try Self.invite(row) }
    }

    func groupMemberIds(groupId: String) throws(StorageError) -> [String] {
        try db.query("SELECT user_id FROM group_members WHERE group_id = ?1 AND active = 1 ORDER BY created_at, user_id") {
            $0.bind(1, groupId)
        } row: { $0.string(0) }
    }

    func phoneOwners(phones: [String], hashes: [String]) throws(StorageError) -> PhoneOwners {
        var owners = PhoneOwners()
        for phone in Set(phones) {
            if let owner = try db.queryFirst("SELECT user_id FROM user_phones WHERE phone = ?1", bind: { $0.bind(1, phone) }, row: { $0.string(0) }) {
                owners.byPhone[phone] = owner
            }
        }
        for hash in Set(hashes) {
            if let owner = try db.queryFirst("SELECT user_id FROM user_phones WHERE phone_hash = ?1", bind: { $0.bind(1, hash) }, row: { $0.string(0) }) {
                owners.byHash[hash] = owner
            }
        }
        return owners
    }
}
