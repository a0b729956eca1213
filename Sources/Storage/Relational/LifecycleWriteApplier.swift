import Gateway

/// A user's deletion and a device's revocation (`StoreWrite.deleteUser`, `.revokeDevice`): each is one write, so its
/// statements commit (or fail) with the rest of its batch, on either engine. The statements mirror
/// `InMemoryGatewayStore`'s reference semantics, table by table.
struct LifecycleWriteApplier<DB: SQLExecutor> {
    let db: DB

    func run(_ write: StoreWrite) throws(StorageError) {
        switch write {
        case .deleteUser(let userId, let at):
            try deleteUser(userId, at: at)
        case .revokeDevice(let userId, let deviceId, let at):
            let bind: (inout DB.Statement) -> Void = {
                $0.bind(1, userId); $0.bind(2, deviceId)
            }
            try db.run("DELETE FROM devices WHERE user_id = ?1 AND id = ?2", bind: bind)
            try db.run("DELETE FROM push_tokens WHERE user_id = ?1 AND device_id = ?2", bind: bind)
            try db.run("DELETE FROM push_jobs WHERE user_id = ?1 AND device_id = ?2", bind: bind)
            try revoke(userId: userId, device: deviceId, at: at)
        default:
            preconditionFailure("not a lifecycle write")
        }
    }

    private func deleteUser(_ userId: String, at: Int64) throws(StorageError) {
        for statement in deleteUserStatements { try db.run(statement) { $0.bind(1, userId) } }
        // Kept, revoked: a code stays in quarantine after its owner is gone, so nobody else draws it at once.
        try db.run("UPDATE connect_codes SET revoked_at = ?2 WHERE user_id = ?1 AND revoked_at IS NULL") {
            $0.bind(1, userId); $0.bind(2, at)
        }
        for scope in UserDeletion.idempotencyScopes(of: userId) {
            try db.run("DELETE FROM idempotency WHERE scope = ?1") { $0.bind(1, scope) }
        }
        // A prefix compare, not LIKE: ids may hold `_`, and SQLite's LIKE ignores case.
        let prefix = UserDeletion.approvalScopePrefix(of: userId)
        try db.run("DELETE FROM idempotency WHERE substr(scope, 1, ?2) = ?1") {
            $0.bind(1, prefix); $0.bind(2, prefix.utf8.count)
        }
        try revoke(userId: userId, device: RevocationRecord.wholeUser, at: at)
    }

    private func revoke(userId: String, device: String, at: Int64) throws(StorageError) {
        try db.run(
            """
            INSERT INTO device_revocations (user_id, device_id, revoked_at) VALUES (?1, ?2, ?3)
            ON CONFLICT (user_id, device_id) DO UPDATE SET revoked_at = excluded.revoked_at
            """
        ) {
            $0.bind(1, userId); $0.bind(2, device); $0.bind(3, at)
        }
    }
}

/// The statements of `StoreWrite.deleteUser` (templates: `SQLDialect`; a generic type holds no static stored property).
/// Every statement names the user as `?1`; the order deletes what refers to a row before the row (memberships
/// and invites of the user's groups before the groups).
let deleteUserStatements = [
    "DELETE FROM users WHERE id = ?1",
    "DELETE FROM devices WHERE user_id = ?1",
    "DELETE FROM contacts WHERE user_id = ?1 OR contact_id = ?1",
    "DELETE FROM sessions WHERE user_id = ?1",
    "DELETE FROM approvals WHERE user_id = ?1",
    // The log's head is saved first (as pruning does): offsets never restart, should the id be used again.
    """
    INSERT INTO event_log_heads (user_id, latest_offset)
    SELECT user_id, MAX("offset") FROM events WHERE user_id = ?1 GROUP BY user_id
    ON CONFLICT (user_id) DO UPDATE SET latest_offset = {greatest}(event_log_heads.latest_offset, excluded.latest_offset)
    """,
    "DELETE FROM events WHERE user_id = ?1",
    "DELETE FROM messages WHERE to_user = ?1 OR from_user = ?1",
    "DELETE FROM read_marks WHERE user_id = ?1 OR peer_id = ?1",
    "DELETE FROM push_tokens WHERE user_id = ?1",
    "DELETE FROM push_jobs WHERE user_id = ?1",
    "DELETE FROM notification_settings WHERE user_id = ?1",
    "DELETE FROM presence_push_claims WHERE user_id = ?1",
    "DELETE FROM friend_requests WHERE from_user = ?1 OR to_user = ?1",
    "DELETE FROM contact_pauses WHERE user_id = ?1 OR contact_id = ?1",
    "DELETE FROM user_blocks WHERE user_id = ?1 OR blocked_id = ?1",
    "DELETE FROM group_members WHERE user_id = ?1 OR group_id IN (SELECT id FROM user_groups WHERE owner_id = ?1)",
    "DELETE FROM invites WHERE inviter_id = ?1 OR group_id IN (SELECT id FROM user_groups WHERE owner_id = ?1)",
    "DELETE FROM user_groups WHERE owner_id = ?1",
    "DELETE FROM user_phones WHERE user_id = ?1",
    "DELETE FROM device_revocations WHERE user_id = ?1"
]
