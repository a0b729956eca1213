import Gateway
import Postgres

/// Per-user reads for loading users on demand, with the same answers as SQLite's (`StoreReader+Users.swift`), each
/// by an index (primary keys leading with the user; `users.hex_code` and `devices.device_token` UNIQUE; open
/// sessions by `sessions_open_by_user`).
extension PostgresReader {
    static let pushTokenColumns = "device_id, kind, token, environment, session_id, updated_at, user_id"

    static func user(_ row: PostgresRow) -> UserRecord {
        UserRecord(id: row.string(0), hexCode: row.string(1), displayName: row.optionalString(2), createdAt: row.int64(3))
    }

    static func device(_ row: PostgresRow) -> DeviceRecord {
        DeviceRecord(id: row.string(0), userId: row.string(1), clientType: row.string(2), deviceToken: row.optionalString(3),
                     createdAt: row.int64(4), ackedOffset: row.int64(5))
    }

    static func contact(_ row: PostgresRow) -> ContactRecord {
        ContactRecord(userId: row.string(0), contactId: row.string(1), createdAt: row.int64(2), active: row.bool(3))
    }

    static func pushToken(_ row: PostgresRow) -> PushTokenRecord {
        PushTokenRecord(userId: row.string(6), deviceId: row.string(0), kind: row.string(1), token: row.string(2),
                        environment: row.optionalString(3), sessionId: row.string(4), updatedAt: row.int64(5))
    }

    /// Several users' entries in one REPEATABLE READ transaction, so each entry's parts agree.
    func userEntries(ids: [String]) throws(StorageError) -> [UserEntry] {
        try db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        defer { try? db.execute("COMMIT") }
        var entries: [UserEntry] = []
        for id in ids { entries.append(try userEntry(id: id)) }
        return entries
    }

    private func userEntry(id: String) throws(StorageError) -> UserEntry {
        var entry = UserEntry(id: id, user: try db.query("SELECT id, hex_code, display_name, created_at FROM users WHERE id = $1",
                                                         [id]).first.map(Self.user))
        entry.devices = try db.query("SELECT \(StoreReader.deviceColumns) FROM devices WHERE user_id = $1 ORDER BY row_order", [id])
            .map(Self.device)
        entry.contacts = try db.query("""
            SELECT user_id, contact_id, created_at, active FROM contacts WHERE user_id = $1 ORDER BY row_order
            """, [id]).map(Self.contact)
        entry.pushTokens = try db.query("SELECT \(Self.pushTokenColumns) FROM push_tokens WHERE user_id = $1 ORDER BY row_order", [id])
            .map(Self.pushToken)
        entry.notificationSettings = try db.query("SELECT settings FROM notification_settings WHERE user_id = $1", [id])
            .first.flatMap { PushBlobs.settings($0.bytes(0)) }
        entry.latestOffset = try db.int64("""
            SELECT GREATEST((SELECT MAX("offset") FROM events WHERE user_id = $1),
                            (SELECT latest_offset FROM event_log_heads WHERE user_id = $1))
            """, [id]) ?? 0
        entry.openSessions = try openSessions(userId: id)
        entry.relationships = try relationships(of: id)
        return entry
    }

    func userId(hexCode: String) throws(StorageError) -> String? {
        try db.query("SELECT id FROM users WHERE hex_code = $1", [hexCode]).first?.string(0)
    }

    func device(tokenDigest: String) throws(StorageError) -> DeviceRecord? {
        try db.query("SELECT \(StoreReader.deviceColumns) FROM devices WHERE device_token = $1", [tokenDigest]).first.map(Self.device)
    }

    func deviceOwners(deviceId: String) throws(StorageError) -> [String] {
        try db.query(Self.deviceOwnersSQL, [deviceId]).map { $0.string(0) }
    }

    /// Through `devices_by_id` (schema 11), not a scan of every device.
    static let deviceOwnersSQL = "SELECT user_id FROM devices WHERE id = $1 ORDER BY row_order"

}
