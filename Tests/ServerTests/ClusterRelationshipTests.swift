import Foundation
import Gateway
import Testing
import TestSupport
@testable import GatewayRuntime
@testable import Server

/// Relationships on several nodes (docs/CLUSTER.md, "Users on several nodes"): two nodes on one PostgreSQL database
/// and one `redis-server`, all started by the test. Each user's relationship rows are read with the user; codes,
/// invites and groups by id are store reads; a change made on one node reaches the other's copy through the user's
/// change notice. Each check on B waits for a state only B's memory answers (so it fails without the notice).
@Suite struct ClusterRelationshipTests {
    /// Creates the users on `node` and waits until `other` heard of each (so no late notice of their creation
    /// refreshes `other`'s copies after the change a test makes).
    static func createUsers(_ node: GatewayTestServer, seenBy other: GatewayTestServer, _ ids: String...) throws {
        let notices = other.runtime.hub.metrics.userChangeNotices.value
        for id in ids { #expect(try node.api("POST", "/v1/users", ["userId": id, "displayName": id.capitalized]).status == 201) }
        try ClusterUserRecordsTests.waitForNotices(other, moreThan: notices + ids.count - 1, "the other node hears of \(ids)")
    }

    static func items(_ response: GatewayHTTP.Response, _ path: String...) -> [[String: Any]] {
        (GatewayJSON.value(response.json, path) as? [Any] ?? []).compactMap { $0 as? [String: Any] }
    }

    static func contacts(_ node: GatewayTestServer, of user: String) throws -> [[String: Any]] {
        items(try node.api("GET", "/v1/users/\(user)/contacts"), "contacts")
    }

    static func waitUntil(_ what: String, _ condition: () throws -> Bool) throws {
        try ClusterDeliveryTests.waitUntil(timeout: 10, what) { (try? condition()) == true }
    }

    @Test func aFriendRequestSentOnOneNodeIsListedAndAcceptedOnTheOther() throws {
        let cluster = try ClusterDeliveryTests.Cluster()
        let a = try cluster.addNode()
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        try Self.createUsers(a, seenBy: b, "ann", "bob")
        let bobHex = try #require(GatewayJSON.string(try a.api("GET", "/v1/users/bob").json, "hexCode"))
        // B holds bob, with no request yet.
        #expect(Self.items(try b.api("GET", "/v1/users/bob/friend-requests"), "incoming").isEmpty)

        let sent = try a.api("POST", "/v1/friend-requests", ["fromUserId": "ann", "toHexCode": bobHex])
        #expect(sent.status == 201, "\(sent.json)")
        let requestId = try #require(GatewayJSON.string(sent.json, "requestId"))
        try Self.waitUntil("B lists the request A stored") {
            Self.items(try b.api("GET", "/v1/users/bob/friend-requests"), "incoming").map { $0["requestId"] as? String } == [requestId]
        }
        let accepted = try b.api("POST", "/v1/friend-requests/\(requestId)/accept", ["userId": "bob"])
        #expect(accepted.status == 200, "\(accepted.json)")
        #expect(GatewayJSON.string(accepted.json, "state") == "accepted")
        // A held ann with the request pending: the acceptance reaches it (contact made, nothing pending).
        try Self.waitUntil("A sees ann and bob connected") { try Self.contacts(a, of: "ann").contains { GatewayJSON.string($0, "user", "userId") == "bob" } }
        #expect(Self.items(try a.api("GET", "/v1/users/ann/friend-requests"), "outgoing").isEmpty)
    }

    @Test func aConnectCodeCreatedOnOneNodeIsClaimedOnTheOther() throws {
        let cluster = try ClusterDeliveryTests.Cluster()
        let a = try cluster.addNode()
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        try Self.createUsers(a, seenBy: b, "ann", "bob")
        #expect(try Self.contacts(b, of: "ann").isEmpty)              // B holds ann and bob before the code exists
        #expect(try Self.contacts(b, of: "bob").isEmpty)
        #expect(try Self.contacts(a, of: "ann").isEmpty)

        let created = try a.api("POST", "/v1/users/ann/connect-code")
        #expect(created.status == 201, "\(created.json)")
        let code = try #require(GatewayJSON.string(created.json, "code"))
        let connected = try b.api("POST", "/v1/connections", ["userId": "bob", "code": code])
        #expect(connected.status == 201, "\(connected.json)")
        #expect(GatewayJSON.string(connected.json, "userId") == "ann")
        try Self.waitUntil("A sees the connection B made") { try Self.contacts(a, of: "ann").contains { GatewayJSON.string($0, "user", "userId") == "bob" } }
        // Replaced on A, the old code answers "expired" on B, which holds ann's current code through the notice.
        #expect(try a.api("POST", "/v1/users/ann/connect-code").status == 201)
        try Self.waitUntil("B refuses the replaced code") {
            let again = try b.api("POST", "/v1/connections", ["userId": "bob", "code": code])
            return GatewayJSON.string(again.json, "error", "code") == "connect_code_expired"
        }
    }

    @Test func aGroupCreatedOnOneNodeGetsAMessageThroughTheOtherToMembersOnTheFirst() throws {
        let cluster = try ClusterDeliveryTests.Cluster()
        let a = try cluster.addNode()
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        try Self.createUsers(a, seenBy: b, "ann", "bob")
        let bobOnA = try a.connect(user: "bob", device: "bob-phone")
        let annOnB = try b.connect(user: "ann", device: "ann-laptop")   // B holds ann, in no group yet
        #expect(try a.api("POST", "/v1/groups", ["ownerId": "ann", "groupId": "fam", "name": "Family", "maxMembers": 5]).status == 201)
        let added = try a.api("POST", "/v1/groups/fam/members", ["userId": "bob"])
        #expect(added.status == 200, "\(added.json)")
        try Self.waitUntil("B lists ann's new group") {
            let groups = GatewayJSON.array(try annOnB.command("group_list"), "result", "groups") ?? []
            return groups.count == 1 && (GatewayJSON.array(groups.first, "members")?.count ?? 0) == 2
        }
        let sent = try annOnB.command("group_send_message", ["groupId": "fam", "text": "dinner at 7"])
        #expect(sent["ok"] as? Bool == true, "\(sent)")
        let received = try bobOnA.next("group_message", timeout: 10)
        #expect(GatewayJSON.string(received, "data", "text") == "dinner at 7")
        #expect(GatewayJSON.string(received, "data", "from", "userId") == "ann")
    }

    @Test func anInviteCreatedOnOneNodeIsRedeemedOnTheOther() throws {
        let cluster = try ClusterDeliveryTests.Cluster()
        let a = try cluster.addNode()
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        try Self.createUsers(a, seenBy: b, "ann", "bob")
        #expect(try b.api("GET", "/v1/users/bob").status == 200)       // B holds bob
        #expect(try a.api("POST", "/v1/groups", ["ownerId": "ann", "groupId": "fam", "name": "Family", "maxMembers": 5]).status == 201)
        let invite = try a.api("POST", "/v1/groups/fam/invites", ["inviterId": "ann"])
        #expect(invite.status == 201, "\(invite.json)")
        let code = try #require(GatewayJSON.string(invite.json, "code"))

        let redeemed = try b.api("POST", "/v1/invites/\(code)/redeem", ["userId": "bob"])
        #expect(redeemed.status == 200, "\(redeemed.json)")
        #expect(Self.items(redeemed, "members").compactMap { GatewayJSON.string($0, "user", "userId") } == ["ann", "bob"])
        // A holds the group through ann: the new member reaches it; the used invite is refused on A too.
        try Self.waitUntil("A lists bob in the group") {
            Self.items(try a.api("GET", "/v1/groups/fam"), "members").count == 2
        }
        try Self.createUsers(a, seenBy: b, "cid")
        #expect(GatewayJSON.string(try a.api("POST", "/v1/invites/\(code)/redeem", ["userId": "cid"]).json, "error", "code") == "invite_used")
    }

    @Test func aContactPauseSetOnOneNodeHoldsOnTheOther() throws {
        let cluster = try ClusterDeliveryTests.Cluster()
        let a = try cluster.addNode()
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        try Self.createUsers(a, seenBy: b, "ann", "bob")
        #expect(try a.api("POST", "/v1/contacts", ["userA": "ann", "userB": "bob"]).status == 200)
        let bobOnB = try b.connect(user: "bob", device: "bob-phone")
        try Self.waitUntil("B holds bob's contact") { try Self.contacts(b, of: "bob").count == 1 }
        #expect(try bobOnB.command("send_message", ["to": "ann", "text": "before"])["ok"] as? Bool == true)

        let paused = try a.api("POST", "/v1/contacts/pause", ["userId": "ann", "contactId": "bob"])
        #expect(paused.status == 200, "\(paused.json)")
        try Self.waitUntil("B shows the pause") { GatewayJSON.bool(try Self.contacts(b, of: "bob").first, "pausedByThem") == true }
        let refused = try bobOnB.command("send_message", ["to": "ann", "text": "after"])
        #expect(GatewayJSON.string(refused, "error", "code") == "contact_paused", "\(refused)")
    }

    /// A block stored on A reaches B's copy of both users through their change notice: on B the blocked user's friend
    /// request is then answered as if sent with nothing stored, and the backend cannot make them contacts.
    @Test func aBlockSetOnOneNodeHoldsOnTheOther() throws {
        let cluster = try ClusterDeliveryTests.Cluster()
        let a = try cluster.addNode()
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        try Self.createUsers(a, seenBy: b, "ann", "bob")
        let annHex = try #require(GatewayJSON.string(try a.api("GET", "/v1/users/ann").json, "hexCode"))
        #expect(try a.api("POST", "/v1/contacts", ["userA": "ann", "userB": "bob"]).status == 200)
        try Self.waitUntil("B sees ann and bob connected") { try Self.contacts(b, of: "bob").contains { GatewayJSON.string($0, "user", "userId") == "ann" } }
        #expect(Self.items(try b.api("GET", "/v1/users/ann/blocks"), "blocks").isEmpty)   // B holds ann, with no block

        let blocked = try a.api("PUT", "/v1/users/ann/blocks/bob")
        #expect(blocked.status == 200, "\(blocked.json)")
        try Self.waitUntil("B knows ann blocked bob") { Self.items(try b.api("GET", "/v1/users/ann/blocks"), "blocks").count == 1 }
        #expect(try Self.contacts(b, of: "bob").isEmpty)
        let sent = try b.api("POST", "/v1/friend-requests", ["fromUserId": "bob", "toHexCode": annHex])
        #expect(sent.status == 201 && GatewayJSON.string(sent.json, "state") == "pending", "\(sent.json)")
        for node in [a, b] { #expect(Self.items(try node.api("GET", "/v1/users/ann/friend-requests"), "incoming").isEmpty) }
        #expect(try b.api("POST", "/v1/contacts", ["userA": "bob", "userB": "ann"]).errorCode == "user_blocked")
    }
}
