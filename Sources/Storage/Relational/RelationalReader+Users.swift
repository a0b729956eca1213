import Gateway

/// Per-user reads for loading users on demand (`GatewayStore.userEntry` and the look-ups by hex code, device secret
/// and device id), each by an index: the primary keys of `devices`, `contacts`, `push_tokens`,
/// `notification_settings`, `events` and `event_log_heads` lead with the user, `users.hex_code` and
/// `devices.device_token` are UNIQUE, and open sessions are indexed by user (`sessions_open_by_user`).
extension RelationalReader {
    /// Several users' entries in one read transaction, so each entry's parts agree.
    func userEntries(ids: [String]) throws(StorageError) -> [UserEntry] {
        try db.reading { () throws(StorageError) -> [UserEntry] in
            var entries: [UserEntry] = []
            for id in ids { entries.append(try userEntry(id: id)) }
            return entries
        }
    }

    private func userEntry(id: String) throws(StorageError) -> UserEntry {
        let user = try db.queryFirst("SELECT \(StoreRows.userColumns) FROM users WHERE id = ?1") {
            $0.bind(1, id)
        } row: {
            StoreRows.user($0)
        }
        var entry = UserEntry(id: id, user: user)
        entry.devices = try db.query(
            "SELECT \(StoreRows.deviceColumns) FROM devices WHERE user_id = ?1 ORDER BY {rowOrder}"
        ) {
            $0.bind(1, id)
        } row: {
            StoreRows.device($0)
        }
        entry.contacts = try db.query(
            "SELECT \(StoreRows.contactColumns) FROM contacts WHERE user_id = ?1 ORDER BY {rowOrder}"
        ) {
            $0.bind(1, id)
        } row: {
            StoreRows.contact($0)
        }
        entry.pushTokens = try db.query(
            """
            SELECT \(StoreRows.pushTokenColumns) FROM push_tokens WHERE user_id = ?1 ORDER BY {rowOrder}
            """
        ) {
            $0.bind(1, id)
        } row: {
            StoreRows.pushToken($0)
        }
        entry.notificationSettings =
            try db.queryFirst("SELECT settings FROM notification_settings WHERE user_id = ?1") {
                $0.bind(1, id)
            } row: {
                PushBlobs.settings($0.bytes(0))
            } ?? nil
        let latest: Int64?? = try db.queryFirst(
            """
            SELECT MAX(latest) FROM (SELECT MAX("offset") AS latest FROM events WHERE user_id = ?1
                UNION ALL SELECT latest_offset FROM event_log_heads WHERE user_id = ?1) AS heads
            """
        ) {
            $0.bind(1, id)
        } row: {
            $0.optionalInt64(0)
        }
        entry.latestOffset = (latest ?? nil) ?? 0
        entry.openSessions = try openSessions(userId: id)
        entry.relationships = try relationships(of: id)
        entry.revocations = try db.query(
            """
            SELECT device_id, revoked_at FROM device_revocations WHERE user_id = ?1 ORDER BY revoked_at, device_id
            """
        ) {
            $0.bind(1, id)
        } row: { row in
            let device = row.string(0)
            return RevocationRecord(
                userId: id, deviceId: device == RevocationRecord.wholeUser ? nil : device, revokedAt: row.int64(1))
        }
        return entry
    }

    func userId(hexCode: String) throws(StorageError) -> String? {
        try db.queryFirst("SELECT id FROM users WHERE hex_code = ?1") {
            $0.bind(1, hexCode)
        } row: {
            $0.string(0)
        }
    }

    func device(tokenDigest: String) throws(StorageError) -> DeviceRecord? {
        try db.queryFirst("SELECT \(StoreRows.deviceColumns) FROM devices WHERE device_token = ?1") {
            $0.bind(1, tokenDigest)
        } row: {
            StoreRows.device($0)
        }
    }

    func deviceOwners(deviceId: String) throws(StorageError) -> [String] {
        try db.query(deviceOwnersSQL) {
            $0.bind(1, deviceId)
        } row: {
            $0.string(0)
        }
    }
}

/// Through `devices_by_id` (schema 11), not a scan of every device (a template: `SQLDialect`).
let deviceOwnersSQL = "SELECT user_id FROM devices WHERE id = ?1 ORDER BY {rowOrder}"
