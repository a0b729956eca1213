import Gateway
import Postgres

/// Relationship reads for loading users on demand and the look-ups not keyed by user, with the same answers as
/// SQLite's (`StoreReader+Relationships.swift`), each by an index (SchemaV2, SchemaV10).
extension PostgresReader {
    func friendRequest(_ row: PostgresRow) throws(StorageError) -> FriendRequestRecord {
        FriendRequestRecord(id: row.string(0), fromUserId: row.string(1), toUserId: row.string(2),
                            state: try enumValue(row, 3, FriendRequestState.self), createdAt: row.int64(4),
                            resolvedAt: row.optionalInt64(5))
    }

    static func pause(_ row: PostgresRow) -> ContactPauseRecord {
        ContactPauseRecord(userId: row.string(0), contactId: row.string(1), pausedAt: row.int64(2))
    }

    static func block(_ row: PostgresRow) -> BlockRecord {
        BlockRecord(userId: row.string(0), blockedId: row.string(1), createdAt: row.int64(2))
    }

    static func group(_ row: PostgresRow) -> GroupRecord {
        GroupRecord(id: row.string(0), ownerId: row.string(1), name: row.string(2), kind: row.string(3), maxMembers: Int(row.int64(4)),
                    invitePolicy: row.string(5), roleLimits: RelationshipWriteApplier.decodeRoleLimits(row.string(6)),
                    createdAt: row.int64(7))
    }

    static func member(_ row: PostgresRow) -> GroupMemberRecord {
        GroupMemberRecord(groupId: row.string(0), userId: row.string(1), role: row.string(2), active: row.bool(3), createdAt: row.int64(4))
    }

    static func phone(_ row: PostgresRow) -> UserPhoneRecord {
        UserPhoneRecord(userId: row.string(0), phone: row.string(1), verifiedAt: row.int64(2))
    }

    /// `id`'s relationship rows (inside `userEntries`' transaction).
    func relationships(of id: String) throws(StorageError) -> UserRelationships {
        var r = UserRelationships()
        r.friendRequests = try db.query("""
            SELECT \(StoreReader.friendRequestColumns) FROM friend_requests WHERE from_user = $1 OR to_user = $1 ORDER BY row_order
            """, [id]).map(friendRequest)
        r.contactPauses = try db.query("""
            SELECT user_id, contact_id, paused_at FROM contact_pauses WHERE user_id = $1 OR contact_id = $1 ORDER BY row_order
            """, [id]).map(Self.pause)
        r.blocks = try db.query("""
            SELECT user_id, blocked_id, created_at FROM user_blocks WHERE user_id = $1 OR blocked_id = $1 ORDER BY row_order
            """, [id]).map(Self.block)
        r.connectCode = try db.query("""
            SELECT \(Self.connectCodeColumns) FROM connect_codes WHERE user_id = $1 AND revoked_at IS NULL
            """, [id]).first.map(Self.connectCode)
        r.groups = try db.query("""
            SELECT \(StoreReader.groupColumns) FROM user_groups
            WHERE id IN (SELECT group_id FROM group_members WHERE user_id = $1 AND active) ORDER BY row_order
            """, [id]).map(Self.group)
        r.groupMembers = try db.query("""
            SELECT \(StoreReader.memberColumns) FROM group_members
            WHERE group_id IN (SELECT group_id FROM group_members WHERE user_id = $1 AND active) ORDER BY row_order
            """, [id]).map(Self.member)
        r.phone = try db.query("SELECT user_id, phone, verified_at FROM user_phones WHERE user_id = $1", [id]).first.map(Self.phone)
        return r
    }

    func latestInvite(groupId: String, recipient: String) throws(StorageError) -> InviteRecord? {
        try db.query("""
            SELECT \(StoreReader.inviteColumns) FROM invites WHERE group_id = $1 AND recipient = $2 ORDER BY created_at DESC LIMIT 1
            """, [groupId, recipient]).first.map(invite)
    }

    func groupMemberIds(groupId: String) throws(StorageError) -> [String] {
        try db.query("SELECT user_id FROM group_members WHERE group_id = $1 AND active ORDER BY created_at, user_id", [groupId])
            .map { $0.string(0) }
    }

    func phoneOwners(phones: [String], hashes: [String]) throws(StorageError) -> PhoneOwners {
        var owners = PhoneOwners()
        for phone in Set(phones) {
            if let owner = try db.query("SELECT user_id FROM user_phones WHERE phone = $1", [phone]).first?.string(0) { owners.byPhone[phone] = owner }
        }
        for hash in Set(hashes) {
            if let owner = try db.query("SELECT user_id FROM user_phones WHERE phone_hash = $1", [hash]).first?.string(0) { owners.byHash[hash] = owner }
        }
        return owners
    }
}
