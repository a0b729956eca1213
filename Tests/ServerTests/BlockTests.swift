import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Blocking (docs/PROTOCOL.md, "Blocking"), over real sockets and a real SQLite file: a block ends the contact and any
/// pending request, stops requests, connect codes and backend contacts both ways, and is never announced to the
/// blocked user — their friend request is answered as if it were sent, with nothing stored or delivered.
@Suite struct BlockTests {
    static func result(_ reply: [String: Any]) -> [String: Any] { GatewayJSON.object(reply, "result") ?? [:] }
    static func error(_ reply: [String: Any]) -> String? { GatewayJSON.string(reply, "error", "code") }

    static func incoming(_ server: GatewayTestServer, _ user: String) throws -> [[String: Any]] {
        (GatewayJSON.array(try server.api("GET", "/v1/users/\(user)/friend-requests").json, "incoming") ?? []).compactMap { $0 as? [String: Any] }
    }

    @Test func blockingEndsTheContactAndStopsEveryTieBothWaysUntilUnblocked() throws {
        let server = try GatewayTestServer()
        let codes = try FriendRequestLimitTests.users(server, "alice", "bob")
        #expect(try server.api("POST", "/v1/contacts", ["userA": "alice", "userB": "bob"]).status == 200)
        let alice = try server.connect(user: "alice", device: "a1")
        let bob = try server.connect(user: "bob", device: "b1")

        let blocked = try alice.command("block", ["userId": "bob"])
        #expect(GatewayJSON.string(blocked, "result", "user", "userId") == "bob", "\(blocked)")
        #expect(GatewayJSON.string(try alice.next("user_blocked"), "data", "user", "userId") == "bob")
        #expect(GatewayJSON.string(try alice.next("contact_removed"), "data", "userId") == "bob")
        #expect(GatewayJSON.string(try bob.next("contact_removed"), "data", "userId") == "alice")
        // Blocking again changes nothing and answers the same block.
        #expect(GatewayJSON.int(try alice.command("block", ["userId": "bob"]), "result", "blockedAt") == GatewayJSON.int(blocked, "result", "blockedAt"))

        // Messages and contact events stop both ways (the contact is gone).
        #expect(Self.error(try bob.command("send_message", ["to": "alice", "text": "hi"])) == "not_a_contact")
        #expect(Self.error(try alice.command("send_message", ["to": "bob", "text": "hi"])) == "not_a_contact")
        #expect(Self.error(try bob.command("send_event", ["to": "alice", "name": "ping"])) == "not_a_contact")

        // Bob's request looks sent, but nothing is stored or delivered.
        let pretended = try bob.command("friend_request", ["hexCode": codes["alice"]!])
        #expect(GatewayJSON.string(pretended, "result", "state") == "pending", "\(pretended)")
        #expect(try Self.incoming(server, "alice").isEmpty)
        // Alice, who blocked, is told why her own request is refused; a connect code is refused likewise.
        #expect(Self.error(try alice.command("friend_request", ["hexCode": codes["bob"]!])) == "user_blocked")
        let bobCode = try #require(GatewayJSON.string(try bob.command("connect_code"), "result", "code"))
        #expect(Self.error(try alice.command("connect", ["code": bobCode])) == "user_blocked")
        // Bob with Alice's code gets what an unknown code gets.
        let aliceCode = try #require(GatewayJSON.string(try alice.command("connect_code"), "result", "code"))
        #expect(Self.error(try bob.command("connect", ["code": aliceCode])) == "connect_code_invalid")
        // The backend is told (it can lift the block first).
        let backend = try server.api("POST", "/v1/contacts", ["userA": "bob", "userB": "alice"])
        #expect(backend.status == 409 && backend.errorCode == "user_blocked", "\(backend.json)")

        // Listed for Alice over the socket and the API.
        let listed = try alice.command("blocks")
        #expect((GatewayJSON.array(listed, "result", "blocks") as? [[String: Any]])?.compactMap { GatewayJSON.string($0, "user", "userId") } == ["bob"])
        let overAPI = try server.api("GET", "/v1/users/alice/blocks")
        #expect((GatewayJSON.array(overAPI.json, "blocks") as? [[String: Any]])?.count == 1)
        #expect(GatewayJSON.array(try server.api("GET", "/v1/users/bob/blocks").json, "blocks")?.isEmpty == true)

        // Unblocked (over the API): Bob's next request is a real one that Alice sees.
        #expect(try server.api("DELETE", "/v1/users/alice/blocks/bob").status == 200)
        #expect(GatewayJSON.string(try alice.next("user_unblocked"), "data", "user", "userId") == "bob")
        let real = try bob.command("friend_request", ["hexCode": codes["alice"]!])
        #expect(GatewayJSON.string(try alice.next("friend_request"), "data", "requestId") == GatewayJSON.string(real, "result", "requestId"))
    }

    @Test func blockingOverTheAPIEndsPendingRequestsBothWaysAndOutlivesARestart() throws {
        let directory = try TemporaryDirectory()
        var server: GatewayTestServer? = try GatewayTestServer(directory: directory)
        let codes = try FriendRequestLimitTests.users(server!, "alice", "bob")
        let bob = try server!.connect(user: "bob", device: "b1")
        let request = try bob.command("friend_request", ["hexCode": codes["alice"]!])
        #expect(GatewayJSON.string(request, "result", "state") == "pending")
        let put = try server!.api("PUT", "/v1/users/alice/blocks/bob")
        #expect(put.status == 200 && GatewayJSON.string(put.json, "user", "userId") == "bob", "\(put.json)")
        // Bob sees what a rejection looks like, nothing more.
        let rejected = try bob.next("friend_request_rejected")
        #expect(GatewayJSON.string(rejected, "data", "requestId") == GatewayJSON.string(request, "result", "requestId"))
        #expect(try Self.incoming(server!, "alice").isEmpty)
        #expect(try server!.api("PUT", "/v1/users/alice/blocks/alice").errorCode == "self_request")
        #expect(try server!.api("PUT", "/v1/users/alice/blocks/nobody").status == 404)

        // The block is stored: after a restart on the same file it still holds.
        bob.disconnect()
        server!.shutdown()
        server = nil
        let again = try GatewayTestServer(directory: directory)
        let bob2 = try again.connect(user: "bob", device: "b1")
        #expect(GatewayJSON.string(try bob2.command("friend_request", ["hexCode": codes["alice"]!]), "result", "state") == "pending")
        #expect(try Self.incoming(again, "alice").isEmpty)
        #expect(GatewayJSON.array(try again.api("GET", "/v1/users/alice/blocks").json, "blocks")?.count == 1)
    }
}
