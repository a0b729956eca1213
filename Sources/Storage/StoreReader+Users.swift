import Gateway

/// Per-user reads for loading users on demand (`GatewayStore.userEntry` and the look-ups by hex code, device secret
/// and device id), each by an index: the primary keys of `devices`, `contacts`, `push_tokens`,
/// `notification_settings`, `events` and `event_log_heads` lead with the user, `users.hex_code` and
/// `devices.device_token` are UNIQUE, and open sessions are indexed by user (`sessions_open_by_user`).
extension StoreReader {
    static let deviceColumns = "id, user_id, client_type, device_token, created_at, acked_offset"

    static func user(_ row: SQLiteStatement) -> UserRecord {
        UserRecord(id: row.string(0), hexCode: row.string(1), displayName: row.optionalString(2), createdAt: row.int64(3))
    }

    static func device(_ row: SQLiteStatement) -> DeviceRecord {
        DeviceRecord(id: row.string(0), userId: row.string(1), clientType: row.string(2), deviceToken: row.optionalString(3),
                     createdAt: row.int64(4), ackedOffset: row.int64(5))
    }

    static func contact(_ row: SQLiteStatement) -> ContactRecord {
        ContactRecord(userId: row.string(0), contactId: row.string(1), createdAt: row.int64(2), active: row.bool(3))
    }

    /// Several users' entries in one read transaction, so each entry's parts agree.
    func userEntries(ids: [String]) throws(StorageError) -> [UserEntry] {
        try db.run("BEGIN")
        defer { try? db.run("COMMIT") }
        var entries: [UserEntry] = []
        for id in ids { entries.append(try userEntry(id: id)) }
        return entries
    }

    private func userEntry(id: String) throws(StorageError) -> UserEntry {
        let user = try db.queryFirst("SELECT id, hex_code, display_name, created_at FROM users WHERE id = ?1") {
            $0.bind(1, id)
        } row: { Self.user($0) }
        var entry = UserEntry(id: id, user: user)
        entry.devices = try db.query("SELECT \(Self.deviceColumns) FROM devices WHERE user_id = ?1 ORDER BY rowid") {
            $0.bind(1, id)
        } row: { Self.device($0) }
        entry.contacts = try db.query("SELECT user_id, contact_id, created_at, active FROM contacts WHERE user_id = ?1 ORDER BY rowid") {
            $0.bind(1, id)
        } row: { Self.contact($0) }
        entry.pushTokens = try db.query("""
            SELECT device_id, kind, token, environment, session_id, updated_at, user_id FROM push_tokens WHERE user_id = ?1 ORDER BY rowid
            """) { $0.bind(1, id) } row: { Self.pushToken($0) }
        entry.notificationSettings = try db.queryFirst("SELECT settings FROM notification_settings WHERE user_id = ?1") {
            $0.bind(1, id)
        } row: { PushBlobs.settings($0.bytes(0)) } ?? nil
        let latest: Int64?? = try db.queryFirst("""
            SELECT MAX(latest) FROM (SELECT MAX("offset") AS latest FROM events WHERE user_id = ?1
                UNION ALL SELECT latest_offset FROM event_log_heads WHERE user_id = ?1)
            """) { $0.bind(1, id) } row: { $0.optionalInt64(0) }
        entry.latestOffset = (latest ?? nil) ?? 0
        entry.openSessions = try openSessions(userId: id)
        entry.relationships = try relationships(of: id)
        return entry
    }

    func userId(hexCode: String) throws(StorageError) -> String? {
        try db.queryFirst("SELECT id FROM users WHERE hex_code = ?1") { $0.bind(1, hexCode) } row: { $0.string(0) }
    }

    func device(tokenDigest: String) throws(StorageError) -> DeviceRecord? {
        try db.queryFirst("SELECT \(Self.deviceColumns) FROM devices WHERE device_token = ?1") { $0.bind(1, tokenDigest) } row: {
            Self.device($0)
        }
    }

    func deviceOwners(deviceId: String) throws(StorageError) -> [String] {
        try db.query(Self.deviceOwnersSQL) { $0.bind(1, deviceId) } row: { $0.string(0) }
    }

    /// Through `devices_by_id` (schema 11), not a scan of every device.
    static let deviceOwnersSQL = "SELECT user_id FROM devices WHERE id = ?1 ORDER BY rowid"

}
