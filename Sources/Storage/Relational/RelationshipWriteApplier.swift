import Gateway

/// The relationship writes (SchemaV2 tables), inside the caller's transaction. The decisions — a code or invite
/// another user holds, a second pending request between two users, a full group, an invite already redeemed — are
/// conditional statements or checks the writer's transaction makes safe (see `RelationalWriteApplier`); the loser
/// gets its `StoreConflict` with the stored row.
struct RelationshipWriteApplier<Engine: EngineWrites> {
    let engine: Engine
    private var db: Engine.DB { engine.db }
    private var reader: RelationalReader<Engine.DB> { RelationalReader(db: db) }

    func run(_ write: StoreWrite) throws(StorageError) {
        switch write {
        case .upsertFriendRequest(let r):
            try upsertFriendRequest(r)
        case .createFriendRequest(let r):
            // The look-up runs after the engine ordered this writer behind any other one sending between the pair.
            try engine.serializeFriendRequests(between: r.fromUserId, and: r.toUserId)
            if let current = try db.queryFirst("""
                SELECT \(StoreRows.friendRequestColumns) FROM friend_requests
                WHERE state = 'pending' AND ((from_user = ?1 AND to_user = ?2) OR (from_user = ?2 AND to_user = ?1))
                """, bind: { $0.bind(1, r.fromUserId); $0.bind(2, r.toUserId) },
                row: { row throws(StorageError) in try StoreRows.friendRequest(row, in: db.name) }) {
                throw StorageError(conflict: .friendRequestPending(current: current))
            }
            try upsertFriendRequest(r)
        case .resolveFriendRequest(let r):
            try db.run("UPDATE friend_requests SET state = ?2, resolved_at = ?3 WHERE id = ?1 AND state = 'pending'") {
                $0.bind(1, r.id); $0.bind(2, r.state.rawValue); $0.bind(3, r.resolvedAt)
            }
            if db.changes == 0 {
                let current = try db.queryFirst("SELECT \(StoreRows.friendRequestColumns) FROM friend_requests WHERE id = ?1") {
                    $0.bind(1, r.id)
                } row: { row throws(StorageError) in try StoreRows.friendRequest(row, in: db.name) }
                throw StorageError(conflict: .friendRequestResolved(current: current))
            }
        case .joinGroup(let m):
            // The count is read in the writer's transaction, after the group's row is locked (`{forUpdate}`: a second
            // PostgreSQL writer waits, then counts in a statement of its own, so it sees the first's membership).
            let group = try db.queryFirst("SELECT \(StoreRows.groupColumns) FROM user_groups WHERE id = ?1 {forUpdate}") {
                $0.bind(1, m.groupId)
            } row: { StoreRows.group($0) }
            let members = try db.query("""
                SELECT \(StoreRows.memberColumns) FROM group_members WHERE group_id = ?1 ORDER BY created_at, user_id
                """) { $0.bind(1, m.groupId) } row: { StoreRows.member($0) }
            guard let group, !members.contains(where: { $0.userId == m.userId && $0.active }),
                  group.capacityRefusal(joining: m.role, members: members) == nil else {
                throw StorageError(conflict: .groupJoinRefused(group: group, members: members))
            }
            try upsertGroupMember(m)
        case .redeemInvite(let code, let usedBy, let usedAt):
            try db.run("UPDATE invites SET state = 'used', used_by = ?2, used_at = ?3 WHERE code = ?1 AND state = 'pending'") {
                $0.bind(1, code); $0.bind(2, usedBy); $0.bind(3, usedAt)
            }
            if db.changes == 0 { throw StorageError(conflict: .inviteRedeemed(current: try reader.invite(code: code))) }
        case .upsertContactPause(let p):
            try db.run("""
                INSERT INTO contact_pauses (user_id, contact_id, paused_at) VALUES (?1, ?2, ?3)
                ON CONFLICT (user_id, contact_id) DO UPDATE SET paused_at = excluded.paused_at
                """) { $0.bind(1, p.userId); $0.bind(2, p.contactId); $0.bind(3, p.pausedAt) }
        case .deleteContactPause(let userId, let contactId):
            try db.run("DELETE FROM contact_pauses WHERE user_id = ?1 AND contact_id = ?2") { $0.bind(1, userId); $0.bind(2, contactId) }
        case .upsertBlock(let b):
            try db.run("""
                INSERT INTO user_blocks (user_id, blocked_id, created_at) VALUES (?1, ?2, ?3)
                ON CONFLICT (user_id, blocked_id) DO NOTHING
                """) { $0.bind(1, b.userId); $0.bind(2, b.blockedId); $0.bind(3, b.createdAt) }
        case .deleteBlock(let userId, let blockedId):
            try db.run("DELETE FROM user_blocks WHERE user_id = ?1 AND blocked_id = ?2") { $0.bind(1, userId); $0.bind(2, blockedId) }
        case .upsertConnectCode(let c):
            // One statement decides the claim (two writers may draw the same random code for different users): the
            // update applies only to the code's own user, so a code another user holds writes nothing.
            try db.run("""
                INSERT INTO connect_codes (code, user_id, created_at, expires_at, revoked_at) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (code) DO UPDATE SET created_at = excluded.created_at, expires_at = excluded.expires_at,
                    revoked_at = excluded.revoked_at
                WHERE connect_codes.user_id = excluded.user_id
                """) { Self.bind(c, &$0) }
            try reportTakenCode(c.code)
        case .claimConnectCode(let c, let retiredBy):
            // As above, and another user's code retired at or before `retiredBy` (out of quarantine) changes owner,
            // in the same single statement: two writers reissuing it at once leave one owner, the other gets nothing.
            try db.run("""
                INSERT INTO connect_codes (code, user_id, created_at, expires_at, revoked_at) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (code) DO UPDATE SET user_id = excluded.user_id, created_at = excluded.created_at,
                    expires_at = excluded.expires_at, revoked_at = excluded.revoked_at
                WHERE connect_codes.user_id = excluded.user_id OR connect_codes.revoked_at <= ?6
                    OR connect_codes.expires_at <= ?6
                """) { Self.bind(c, &$0); $0.bind(6, retiredBy) }
            try reportTakenCode(c.code)
        case .upsertGroup(let g):
            try db.run("""
                INSERT INTO user_groups (id, owner_id, name, kind, max_members, invite_policy, role_limits, created_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                ON CONFLICT (id) DO UPDATE SET owner_id = excluded.owner_id, name = excluded.name, kind = excluded.kind,
                    max_members = excluded.max_members, invite_policy = excluded.invite_policy,
                    role_limits = excluded.role_limits, created_at = excluded.created_at
                """) {
                $0.bind(1, g.id); $0.bind(2, g.ownerId); $0.bind(3, g.name); $0.bind(4, g.kind); $0.bind(5, g.maxMembers)
                $0.bind(6, g.invitePolicy); $0.bind(7, RoleLimits.encode(g.roleLimits)); $0.bind(8, g.createdAt)
            }
        case .upsertGroupMember(let m):
            try upsertGroupMember(m)
        case .upsertInvite(let i):
            // One statement decides the code (two writers may draw the same random code for two invites): the update
            // applies only to the same invite, so a code another invite holds writes nothing.
            try db.run("""
                INSERT INTO invites (code, group_id, inviter_id, recipient, role, state, created_at, expires_at, used_by, used_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                ON CONFLICT (code) DO UPDATE SET recipient = excluded.recipient, role = excluded.role, state = excluded.state,
                    expires_at = excluded.expires_at, used_by = excluded.used_by, used_at = excluded.used_at
                WHERE invites.group_id = excluded.group_id AND invites.inviter_id = excluded.inviter_id
                    AND invites.created_at = excluded.created_at
                """) {
                $0.bind(1, i.code); $0.bind(2, i.groupId); $0.bind(3, i.inviterId); $0.bind(4, i.recipient); $0.bind(5, i.role)
                $0.bind(6, i.state.rawValue); $0.bind(7, i.createdAt); $0.bind(8, i.expiresAt); $0.bind(9, i.usedBy); $0.bind(10, i.usedAt)
            }
            if db.changes == 0, let current = try reader.invite(code: i.code) {
                throw StorageError(conflict: .inviteCodeTaken(current: current))
            }
        case .upsertUserPhone(let p):
            try db.run("""
                INSERT INTO user_phones (user_id, phone, verified_at, phone_hash) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (user_id) DO UPDATE SET phone = excluded.phone, verified_at = excluded.verified_at,
                    phone_hash = excluded.phone_hash
                """) { $0.bind(1, p.userId); $0.bind(2, p.phone); $0.bind(3, p.verifiedAt); $0.bind(4, PhoneNumber.hash(e164: p.phone)) }
        case .deleteUserPhone(let userId):
            try db.run("DELETE FROM user_phones WHERE user_id = ?1") { $0.bind(1, userId) }
        default:
            preconditionFailure("not a relationship write")
        }
    }

    private func upsertFriendRequest(_ r: FriendRequestRecord) throws(StorageError) {
        try db.run("""
            INSERT INTO friend_requests (id, from_user, to_user, state, created_at, resolved_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
            ON CONFLICT (id) DO UPDATE SET from_user = excluded.from_user, to_user = excluded.to_user,
                state = excluded.state, created_at = excluded.created_at, resolved_at = excluded.resolved_at
            """) {
            $0.bind(1, r.id); $0.bind(2, r.fromUserId); $0.bind(3, r.toUserId); $0.bind(4, r.state.rawValue)
            $0.bind(5, r.createdAt); $0.bind(6, r.resolvedAt)
        }
    }

    /// Reactivation keeps the membership's original creation time.
    private func upsertGroupMember(_ m: GroupMemberRecord) throws(StorageError) {
        try db.run("""
            INSERT INTO group_members (group_id, user_id, role, active, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (group_id, user_id) DO UPDATE SET role = excluded.role, active = excluded.active
            """) { $0.bind(1, m.groupId); $0.bind(2, m.userId); $0.bind(3, m.role); $0.bind(4, m.active); $0.bind(5, m.createdAt) }
    }

    /// After a connect-code write: nothing written means another user holds the code.
    private func reportTakenCode(_ code: String) throws(StorageError) {
        if db.changes == 0, let current = try reader.connectCode(code: code) {
            throw StorageError(conflict: .connectCodeTaken(current: current))
        }
    }

    private static func bind(_ c: ConnectCodeRecord, _ s: inout Engine.DB.Statement) {
        s.bind(1, c.code); s.bind(2, c.userId); s.bind(3, c.createdAt); s.bind(4, c.expiresAt); s.bind(5, c.revokedAt)
    }
}
