import Foundation
import Gateway
import Testing
@testable import Storage

/// Migration 7 moves direct messages into one table keyed (recipient, sender, id) with an index by id; every message of
/// a version 6 file is kept and reads the same way.
@Suite struct MessageSchemaMigrationTests {
    /// Three messages between u1 and u2, one from u3 to u1, and u1's read mark for u2 at message 1.
    static let version6Rows = """
        INSERT INTO messages (id, from_user, to_user, text, sent_at, pair_low, pair_high) VALUES
            (1, 'u2', 'u1', 'hello', 100, 'u1', 'u2'),
            (2, 'u1', 'u2', 'hi', 101, 'u1', 'u2'),
            (3, 'u2', 'u1', 'how are you', 102, 'u1', 'u2'),
            (4, 'u3', 'u1', 'other', 103, 'u1', 'u3');
        INSERT INTO read_marks (user_id, peer_id, message_id) VALUES ('u1', 'u2', 1);
        """

    @Test func messagesOfAVersion6FileAreKeptAndReadAsBefore() throws {
        let directory = try TemporaryDirectory()
        let path = try databaseAt(version: 6, in: directory, rows: Self.version6Rows)
        let store = try openStore(path)
        defer { store.close() }
        let db = try SQLiteConnection(path: path, readOnly: true, busyTimeoutMs: 1000)
        defer { db.close() }
        #expect(try SchemaMigrations.currentVersion(db) == SchemaMigrations.all.last?.version)
        // The old indexes and pair columns are gone; the new table has no rowid.
        let indexes = try db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'messages' AND sql IS NOT NULL ORDER BY name") { $0.string(0) }
        #expect(indexes == ["messages_by_id"])
        let columns = try db.query("SELECT name FROM pragma_table_info('messages') ORDER BY cid") { $0.string(0) }
        #expect(columns == ["to_user", "from_user", "id", "text", "sent_at"])

        #expect(try store.reserveIds(.message, count: 1, above: 0) == [5])
        let conversation = try store.messages(between: "u1", and: "u2", before: nil, limit: 10)
        #expect(conversation == [MessageRecord(id: 3, from: "u2", to: "u1", text: "how are you", sentAt: 102),
                                 MessageRecord(id: 2, from: "u1", to: "u2", text: "hi", sentAt: 101),
                                 MessageRecord(id: 1, from: "u2", to: "u1", text: "hello", sentAt: 100)])
        #expect(try store.messages(between: "u2", and: "u1", before: 3, limit: 1).map(\.id) == [2])
        #expect(try store.messages(between: "u1", and: "u3", before: nil, limit: 10).map(\.id) == [4])
        #expect(try store.unreadCounts(userId: "u1") == ["u2": 1, "u3": 1])
        #expect(try store.unreadCounts(userId: "u2") == ["u1": 1])
    }

    @Test func aMigratedFileTakesNewMessagesAndStillRefusesATakenId() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(try databaseAt(version: 6, in: directory, rows: Self.version6Rows))
        defer { store.close() }
        #expect(commit(store, [[.insertMessage(MessageRecord(id: 5, from: "u1", to: "u2", text: "fine", sentAt: 104))]]) == [nil])
        // An id from before the migration is still the store's decision: refused with the latest id.
        let conflict = Recorder<StoreConflict?>()
        store.write([.insertMessage(MessageRecord(id: 2, from: "u3", to: "u2", text: "again", sentAt: 105))]) { conflict.record($0 as? StoreConflict) }
        #expect(conflict.wait(for: 1) == [.idTaken(.message, latest: 5)])
        #expect(try store.messages(between: "u2", and: "u1", before: nil, limit: 2).map(\.id) == [5, 3])
        #expect(try store.unreadCounts(userId: "u2") == ["u1": 2])
    }
}
