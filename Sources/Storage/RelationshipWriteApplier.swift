import Gateway

/// The relationship writes (SchemaV2 tables), on the writer thread inside the caller's transaction. Constraint
/// violations (a second pending request, a code or phone owned by another user) throw and fail the batch, exactly
/// like the in-memory reference store.
struct RelationshipWriteApplier {
    let db: SQLiteConnection

    func run(_ write: StoreWrite) throws(StorageError) {
        switch write {
        case .upsertFriendRequest(let r):
            try db.run("""
                INSERT INTO friend_requests (id, from_user, to_user, state, created_at, resolved_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                ON CONFLICT (id) DO UPDATE SET from_user = excluded.from_user, to_user = excluded.to_user,
                    state = excluded.state, created_at = excluded.created_at, resolved_at = excluded.resolved_at
                """) {
                $0.bind(1, r.id); $0.bind(2, r.fromUserId); $0.bind(3, r.toUserId); $0.bind(4, r.state.rawValue)
                $0.bind(5, r.createdAt); $0.bind(6, r.resolvedAt)
            }
        case .createFriendRequest(let r):
            // The single writer serialises: no other transaction can insert between this check and the insert.
            if let current = try pendingFriendRequest(between: r.fromUserId, and: r.toUserId) {
                throw StorageError(conflict: .friendRequestPending(current: current))
            }
            try run(.upsertFriendRequest(r))
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
            // The count is read in the writer's transaction: no other join can commit between it and the insert.
            let group = try db.queryFirst("SELECT \(StoreRows.groupColumns) FROM user_groups WHERE id = ?1") {
                $0.bind(1, m.groupId)
            } row: { StoreRows.group($0) }
            let members = try db.query("SELECT \(StoreRows.memberColumns) FROM group_members WHERE group_id = ?1 ORDER BY created_at, user_id") {
                $0.bind(1, m.groupId)
            } row: { StoreRows.member($0) }
            guard let group, !members.contains(where: { $0.userId == m.userId && $0.active }),
                  group.capacityRefusal(joining: m.role, members: members) == nil else {
                throw StorageError(conflict: .groupJoinRefused(group: group, members: members))
            }
            try run(.upsertGroupMember(m))
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
            // An upsert would silently move a code to another user; the primary key must reject that instead.
            // The claim is a decision: two nodes may draw the same random code for different users.
            try writeConnectCode(c, takingRetiredBy: nil)
        case .claimConnectCode(let c, let retiredBy):
            // The same decision, except that another user's code out of quarantine changes owner.
            try writeConnectCode(c, takingRetiredBy: retiredBy)
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
            // Reactivation keeps the membership's original creation time.
            try db.run("""
                INSERT INTO group_members (group_id, user_id, role, active, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (group_id, user_id) DO UPDATE SET role = excluded.role, active = excluded.active
                """) { $0.bind(1, m.groupId); $0.bind(2, m.userId); $0.bind(3, m.role); $0.bind(4, m.active); $0.bind(5, m.createdAt) }
        case .upsertInvite(let i):
            // Insert-if-absent: two nodes may draw the same random code for two invites; the second must not
            // overwrite the first (only the same invite may rewrite its row).
            if let current = try RelationalReader(db: db).invite(code: i.code), !current.isSameInvite(as: i) {
                throw StorageError(conflict: .inviteCodeTaken(current: current))
            }
            try db.run("""
                INSERT INTO invites (code, group_id, inviter_id, recipient, role, state, created_at, expires_at, used_by, used_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                ON CONFLICT (code) DO UPDATE SET group_id = excluded.group_id, inviter_id = excluded.inviter_id,
                    recipient = excluded.recipient, role = excluded.role, state = excluded.state,
                    created_at = excluded.created_at, expires_at = excluded.expires_at, used_by = excluded.used_by,
                    used_at = excluded.used_at
                """) {
                $0.bind(1, i.code); $0.bind(2, i.groupId); $0.bind(3, i.inviterId); $0.bind(4, i.recipient); $0.bind(5, i.role)
                $0.bind(6, i.state.rawValue); $0.bind(7, i.createdAt); $0.bind(8, i.expiresAt); $0.bind(9, i.usedBy); $0.bind(10, i.usedAt)
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

    /// The request between `a` and `b` (either direction) that is pending, if any (two probes of the partial unique index).
    private func pendingFriendRequest(between a: String, and b: String) throws(StorageError) -> FriendRequestRecord? {
        try db.queryFirst("""
            SELECT \(StoreRows.friendRequestColumns) FROM friend_requests
            WHERE state = 'pending' AND ((from_user = ?1 AND to_user = ?2) OR (from_user = ?2 AND to_user = ?1))
            """) { $0.bind(1, a); $0.bind(2, b) } row: { row throws(StorageError) in try StoreRows.friendRequest(row, in: db.name) }
    }

    static func describe(_ write: StoreWrite) -> String {
        switch write {
        case .upsertFriendRequest(let r): return "upsertFriendRequest \(r.id)"
        case .createFriendRequest(let r): return "createFriendRequest \(r.id)"
        case .resolveFriendRequest(let r): return "resolveFriendRequest \(r.id)"
        case .joinGroup(let m): return "joinGroup \(m.groupId)/\(m.userId)"
        case .upsertContactPause(let p): return "upsertContactPause \(p.userId)->\(p.contactId)"
        case .deleteContactPause(let userId, let contactId): return "deleteContactPause \(userId)->\(contactId)"
        case .upsertBlock(let b): return "upsertBlock \(b.userId)->\(b.blockedId)"
        case .deleteBlock(let userId, let blockedId): return "deleteBlock \(userId)->\(blockedId)"
        case .upsertConnectCode(let c): return "upsertConnectCode for \(c.userId)"
        case .claimConnectCode(let c, _): return "claimConnectCode for \(c.userId)"
        case .upsertGroup(let g): return "upsertGroup \(g.id)"
        case .upsertGroupMember(let m): return "upsertGroupMember \(m.groupId)/\(m.userId)"
        case .upsertInvite(let i): return "upsertInvite for group \(i.groupId)"
        case .upsertUserPhone(let p): return "upsertUserPhone \(p.userId)"
        case .deleteUserPhone(let userId): return "deleteUserPhone \(userId)"
        default: return "write"
        }
    }
}

extension RelationshipWriteApplier {
    /// Writes `c` unless the code is another user's, and not retired at or before `retiredBy` (nil: another user's
    /// code is never taken): then `connectCodeTaken` with the stored row. A taken code's row changes owner.
    private func writeConnectCode(_ c: ConnectCodeRecord, takingRetiredBy retiredBy: Int64?) throws(StorageError) {
        let current = try db.queryFirst("SELECT code, user_id, created_at, expires_at, revoked_at FROM connect_codes WHERE code = ?1") {
            $0.bind(1, c.code)
        } row: { StoreRows.connectCode($0) }
        if let current, current.userId != c.userId, !(retiredBy.map(current.isRetired(atOrBefore:)) ?? false) {
            throw StorageError(conflict: .connectCodeTaken(current: current))
        }
        try db.run("""
            INSERT INTO connect_codes (code, user_id, created_at, expires_at, revoked_at) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (code) DO UPDATE SET user_id = excluded.user_id, created_at = excluded.created_at,
                expires_at = excluded.expires_at, revoked_at = excluded.revoked_at
            """) {
            $0.bind(1, c.code); $0.bind(2, c.userId); $0.bind(3, c.createdAt); $0.bind(4, c.expiresAt); $0.bind(5, c.revokedAt)
        }
    }
}
