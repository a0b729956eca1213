import Gateway

/// Relationship rows read per user (docs/ARCHITECTURE.md, "Memory and load on demand"): friend requests by either
/// side, pauses by the paused contact, and a phone's owner by the number's hash (`discover` accepts hashes), each by
/// an index. `user_phones.phone_hash` is the lowercase hex SHA-256 of the E.164 number (`PhoneNumber.hash`), written
/// with the number; existing rows are hashed in place.
enum SchemaV10 {
    static let version = 10
    static let sql = """
    CREATE INDEX friend_requests_by_sender ON friend_requests (from_user);
    CREATE INDEX friend_requests_by_recipient ON friend_requests (to_user);
    CREATE INDEX contact_pauses_by_contact ON contact_pauses (contact_id);
    ALTER TABLE user_phones ADD COLUMN phone_hash TEXT;
    CREATE INDEX user_phones_by_hash ON user_phones (phone_hash);
    """

    static func hashPhones(_ db: SQLiteConnection) throws(StorageError) {
        let rows = try db.query("SELECT user_id, phone FROM user_phones") { ($0.string(0), $0.string(1)) }
        for (userId, phone) in rows {
            try db.run("UPDATE user_phones SET phone_hash = ?2 WHERE user_id = ?1") { $0.bind(1, userId); $0.bind(2, PhoneNumber.hash(e164: phone)) }
        }
    }
}
