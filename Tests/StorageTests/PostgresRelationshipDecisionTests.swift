import Foundation
import Gateway
import Testing
@testable import Storage

/// The friend-request and group-join decisions on PostgreSQL while another node's transaction making the same
/// decision is still open: this store's commit waits for that node's lock (the pair's advisory lock, the group's
/// row lock), then sees its committed row and loses — never a second pending request or a member beyond the limit.
@Suite struct PostgresRelationshipDecisionTests {
    /// The other node, mid-commit: `writes` applied by the same code the store runs, its transaction left open.
    final class OpenTransaction {
        let db: PostgresDatabase
        init(url: String, _ writes: [StoreWrite]) throws {
            db = try PostgresDatabase(options: PostgresStoreOptions(url: url))
            try db.execute("BEGIN")
            var receipt = StoreReceipt()
            for write in writes { try RelationalWriteApplier(engine: PostgresEngineWrites(db: db)).apply(write, receipt: &receipt) }
        }
        func commit() throws { try db.execute("COMMIT"); db.close() }
    }

    /// Commits `batch` through `store` while `other` is open; returns its outcome once `other` committed.
    func commitWaiting(on other: OpenTransaction, url: String, _ store: PostgresGatewayStore, _ batch: [StoreWrite]) throws -> Error? {
        let outcome = Recorder<Error?>()
        store.write(batches: [batch]) { outcome.record($0.first ?? nil) }
        // The store's statement is waiting for the other node's lock (polled: the wait is the server's to report).
        let monitor = try PostgresDatabase(options: PostgresStoreOptions(url: url))
        defer { monitor.close() }
        var waiting = false
        for _ in 0..<6_000 where !waiting {
            waiting = try monitor.int64("""
                SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
                """) == 1
            if !waiting { usleep(5_000) }
        }
        #expect(waiting)
        try other.commit()
        return outcome.wait(for: 1).first ?? nil
    }

    @Test func aReverseFriendRequestWaitsForTheOtherNodesAndLoses() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let store = try PostgresGatewayStore(options: PostgresStoreOptions(url: url))
        defer { store.close() }
        let theirs = FriendRequestRecord(id: "frq_1", fromUserId: "bob", toUserId: "ann", createdAt: 1)
        let other = try OpenTransaction(url: url, [.createFriendRequest(theirs)])
        let mine = FriendRequestRecord(id: "frq_2", fromUserId: "ann", toUserId: "bob", createdAt: 2)
        let error = try commitWaiting(on: other, url: url, store, [.createFriendRequest(mine)])
        #expect(error as? StoreConflict == .friendRequestPending(current: theirs))
        #expect(try store.loadSnapshot().friendRequests == [theirs])
    }

    @Test func aJoinWaitsForTheOtherNodesJoinAndFindsTheGroupFull() throws {
        let url = try PostgresCluster.shared().createDatabase()
        let store = try PostgresGatewayStore(options: PostgresStoreOptions(url: url))
        defer { store.close() }
        let group = GroupRecord(id: "g1", ownerId: "ann", name: "Family", maxMembers: 2, createdAt: 1)
        let owner = GroupMemberRecord(groupId: "g1", userId: "ann", role: "owner", createdAt: 1)
        #expect(commit(store, [[.upsertGroup(group), .upsertGroupMember(owner)]]) == [nil])
        let carol = GroupMemberRecord(groupId: "g1", userId: "carol", role: "member", createdAt: 2)
        let other = try OpenTransaction(url: url, [.joinGroup(carol)])
        let bob = GroupMemberRecord(groupId: "g1", userId: "bob", role: "member", createdAt: 3)
        let error = try commitWaiting(on: other, url: url, store, [.joinGroup(bob)])
        #expect(error as? StoreConflict == .groupJoinRefused(group: group, members: [owner, carol]))
        #expect(try store.loadSnapshot().groupMembers.map(\.userId) == ["ann", "carol"])
    }
}
