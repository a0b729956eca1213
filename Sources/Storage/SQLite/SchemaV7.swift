/// Direct messages in one B-tree keyed the way they are read, plus a small index by id.
///
/// Version 1 stored each message in a rowid table with two indexes (`messages_by_pair`, `messages_by_recipient`):
/// three B-trees per insert, two of them at pages spread over the file. Now the table itself is keyed
/// `(to_user, from_user, id)` (`WITHOUT ROWID`): unread counts read one recipient's range, and a conversation is the
/// two ranges (a → b, b → a) merged by id. `messages_by_id` keeps ids unique (a taken id is the store's answer to
/// another node's message) and answers the latest id; new ids are the largest, so it grows at its right edge. One
/// scattered B-tree per message instead of two, and no `pair_low`/`pair_high` copies of the user ids.
enum SchemaV7 {
    static let version = 7
    static let sql = """
    CREATE TABLE messages_v7 (
        to_user TEXT NOT NULL,
        from_user TEXT NOT NULL,
        id INTEGER NOT NULL,
        text TEXT NOT NULL,
        sent_at INTEGER NOT NULL,
        PRIMARY KEY (to_user, from_user, id)
    ) WITHOUT ROWID;
    INSERT INTO messages_v7 (to_user, from_user, id, text, sent_at)
        SELECT to_user, from_user, id, text, sent_at FROM messages;
    DROP TABLE messages;
    ALTER TABLE messages_v7 RENAME TO messages;
    CREATE UNIQUE INDEX messages_by_id ON messages (id);
    """
}
