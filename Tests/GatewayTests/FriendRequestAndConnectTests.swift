import Gateway
import GatewayProtocol
import GatewayTestSupport
import Testing

/// Friend requests by hex code and connections by 6-digit code, on the manual clock with the in-memory store.
@Suite struct FriendRequestAndConnectTests {
    func users(_ f: HubFixture, _ ids: String...) -> [String: String] {
        var codes: [String: String] = [:]
        for id in ids {
            f.hub.upsertUser(id: id, displayName: id == "bob" ? "Bob" : nil) { _ in }
            codes[id] = f.hub.user(id)!.hexCode
        }
        return codes
    }

    @Test func aRequestReachesTheRecipientWithTheRequestersNameAndAcceptingConnectsBothSides() throws {
        let f = try HubFixture()
        let hex = users(f, "alice", "bob")
        f.hub.upsertUser(id: "alice", displayName: "Alice") { _ in }
        let alice = f.connect("alice", "a1")
        let bob = f.connect("bob", "b1")
        f.command(alice, #"{"id":"1","type":"friend_request","hexCode":"\#(hex["bob"]!.uppercased())"}"#)
        let sent = try #require(alice.reply("1")?["result"] as? [String: Any])
        let requestId = try #require(sent["requestId"] as? String)
        let incoming = try #require(bob.events("friend_request").first)
        #expect((data(incoming)["from"] as? [String: Any])?["name"] as? String == "Alice")
        #expect(bob.events("friend_request").first?["offset"] != nil)   // durable
        f.command(bob, #"{"id":"2","type":"friend_requests"}"#)
        let lists = try #require(bob.reply("2")?["result"] as? [String: Any])
        #expect((lists["incoming"] as? [[String: Any]])?.map { $0["requestId"] as? String } == [requestId])
        #expect((lists["outgoing"] as? [[String: Any]])?.isEmpty == true)

        f.command(bob, #"{"id":"3","type":"friend_request_accept","requestId":"\#(requestId)"}"#)
        #expect((bob.reply("3")?["result"] as? [String: Any])?["state"] as? String == "accepted")
        #expect(alice.events("friend_request_accepted").count == 1)
        #expect(alice.events("contact_added").map { data($0)["userId"] as? String } == ["bob"])
        #expect(bob.events("contact_added").map { data($0)["userId"] as? String } == ["alice"])
        // Each now sees the other's presence.
        #expect(alice.events("presence").contains { data($0)["userId"] as? String == "bob" && data($0)["status"] as? String == "online" })
        #expect(bob.events("presence").contains { data($0)["userId"] as? String == "alice" })
        f.command(bob, #"{"id":"4","type":"friend_request_accept","requestId":"\#(requestId)"}"#)
        #expect(bob.errorCode("4") == "request_already_resolved")
        f.command(alice, #"{"id":"5","type":"friend_request","hexCode":"\#(hex["bob"]!)"}"#)
        #expect(alice.errorCode("5") == "already_friends")
        f.command(alice, #"{"id":"6","type":"send_message","to":"bob","text":"hi"}"#)
        #expect(alice.reply("6")?["ok"] as? Bool == true)
    }

    @Test func requestErrorsAreDistinct() throws {
        let f = try HubFixture()
        let hex = users(f, "alice", "bob", "carol")
        let alice = f.connect("alice", "a1")
        let bob = f.connect("bob", "b1")
        let taken = Set(hex.values)
        let unknown = (0..<10).map { "0000000\($0)" }.first { !taken.contains($0) }!
        f.command(alice, #"{"id":"1","type":"friend_request","hexCode":"\#(unknown)"}"#)
        #expect(alice.errorCode("1") == "user_not_found")
        f.command(alice, #"{"id":"2","type":"friend_request","hexCode":"\#(hex["alice"]!)"}"#)
        #expect(alice.errorCode("2") == "self_request")
        f.command(alice, #"{"id":"3","type":"friend_request","hexCode":"\#(hex["bob"]!)"}"#)
        f.command(alice, #"{"id":"4","type":"friend_request","hexCode":"\#(hex["bob"]!)"}"#)
        #expect(alice.errorCode("4") == "request_already_sent")
        f.command(alice, #"{"id":"5","type":"friend_request"}"#)
        #expect(alice.errorCode("5") == "missing_field")
        // Only the recipient answers; the sender may cancel.
        let requestId = try #require((alice.reply("3")?["result"] as? [String: Any])?["requestId"] as? String)
        f.command(alice, #"{"id":"6","type":"friend_request_accept","requestId":"\#(requestId)"}"#)
        #expect(alice.errorCode("6") == "request_not_found")
        f.command(bob, #"{"id":"7","type":"friend_request_cancel","requestId":"\#(requestId)"}"#)
        #expect(bob.errorCode("7") == "request_not_found")
        f.command(bob, #"{"id":"8","type":"friend_request_reject","requestId":"\#(requestId)"}"#)
        #expect(alice.events("friend_request_rejected").count == 1)
        #expect(bob.events("friend_request_rejected").count == 1)
        // A rejected request frees the pair: asking again works, and the sender can cancel it.
        f.command(alice, #"{"id":"9","type":"friend_request","hexCode":"\#(hex["bob"]!)"}"#)
        let second = try #require((alice.reply("9")?["result"] as? [String: Any])?["requestId"] as? String)
        f.command(alice, #"{"id":"10","type":"friend_request_cancel","requestId":"\#(second)"}"#)
        #expect(bob.events("friend_request_cancelled").count == 1)
        #expect(f.hub.friendRequests(of: "bob").incoming.isEmpty)
    }

    @Test func crossedRequestsBecomeOneAcceptance() throws {
        let f = try HubFixture()
        let hex = users(f, "alice", "bob")
        var first: FriendRequestData?
        f.hub.sendFriendRequest(from: "alice", toHexCode: hex["bob"]!) { first = try? $0.get() }
        var second: FriendRequestData?
        f.hub.sendFriendRequest(from: "bob", toHexCode: hex["alice"]!) { second = try? $0.get() }
        #expect(second?.requestId == first?.requestId)
        #expect(second?.state == "accepted")
        #expect(f.hub.contactList(of: "alice").map(\.user.userId) == ["bob"])
    }

    @Test func theBackendConnectingTheTwoAcceptsAPendingRequest() throws {
        let f = try HubFixture()
        let hex = users(f, "alice", "bob")
        let alice = f.connect("alice", "a1")
        var sent: FriendRequestData?
        f.hub.sendFriendRequest(from: "alice", toHexCode: hex["bob"]!) { sent = try? $0.get() }
        var added: Result<Void, GatewayError>?
        f.hub.addContact("bob", "alice") { added = $0 }
        #expect((try? added?.get()) != nil)
        #expect(f.hub.friendRequests(of: "bob").incoming.isEmpty)
        #expect(alice.events("friend_request_accepted").map { data($0)["requestId"] as? String } == [sent?.requestId])
        #expect(alice.events("contact_added").map { data($0)["userId"] as? String } == ["bob"])
        // Adding them again changes nothing.
        f.hub.addContact("alice", "bob") { added = $0 }
        #expect((try? added?.get()) != nil && alice.events("contact_added").count == 1)
    }

    @Test func connectCodesValidateAndReactivateKeepingTheCreationTime() throws {
        let f = try HubFixture()
        _ = users(f, "alice", "bob")
        let alice = f.connect("alice", "a1")
        let bob = f.connect("bob", "b1")
        f.command(bob, #"{"id":"c","type":"connect_code"}"#)
        let code = try #require((bob.reply("c")?["result"] as? [String: Any])?["code"] as? String)
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        f.command(bob, #"{"id":"c2","type":"connect_code"}"#)
        #expect((bob.reply("c2")?["result"] as? [String: Any])?["code"] as? String == code)   // permanent
        f.command(alice, #"{"id":"1","type":"connect","code":"12ab56"}"#)
        #expect(alice.errorCode("1") == "connect_code_invalid")
        f.command(bob, #"{"id":"2","type":"connect","code":"\#(code)"}"#)
        #expect(bob.errorCode("2") == "self_request")
        f.command(alice, #"{"id":"3","type":"connect","code":"\#(code)"}"#)
        #expect(((alice.reply("3")?["result"] as? [String: Any])?["userId"]) as? String == "bob")
        let created = try #require(f.hub.contactList(of: "alice").first?.createdAt)
        f.command(alice, #"{"id":"4","type":"connect","code":"\#(code)"}"#)
        #expect(alice.errorCode("4") == "already_friends")
        // Remove (soft), later reconnect: the same relation comes back with its original creation time.
        f.command(alice, #"{"id":"5","type":"contact_remove","userId":"bob"}"#)
        #expect(bob.events("contact_removed").map { data($0)["userId"] as? String } == ["alice"])
        #expect(f.hub.contactList(of: "bob").isEmpty)
        f.scheduler.advance(by: 60_000)
        f.command(alice, #"{"id":"6","type":"connect","code":"\#(code)"}"#)
        #expect(alice.reply("6")?["ok"] as? Bool == true)
        #expect(f.hub.contactList(of: "alice").map(\.createdAt) == [created])
        #expect(f.hub.contactList(of: "bob").map(\.createdAt) == [created])
        #expect(try f.store.loadSnapshot().contacts.filter { $0.userId == "alice" }.map(\.createdAt) == [created])
        // Regenerating expires the old code (a distinct error from an unknown one).
        f.command(bob, #"{"id":"7","type":"connect_code","regenerate":true}"#)
        let fresh = try #require((bob.reply("7")?["result"] as? [String: Any])?["code"] as? String)
        #expect(fresh != code)
        f.hub.upsertUser(id: "carol", displayName: nil) { _ in }
        let carol = f.connect("carol", "c1")
        f.command(carol, #"{"id":"8","type":"connect","code":"\#(code)"}"#)
        #expect(carol.errorCode("8") == "connect_code_expired")
        f.command(carol, #"{"id":"9","type":"connect","code":"\#(fresh)"}"#)
        #expect(carol.reply("9")?["ok"] as? Bool == true)
    }

    @Test func codesWithALifetimeExpireOnTheClock() throws {
        var settings = GatewaySettings()
        settings.relationships.connectCodeLifetimeMs = 3_600_000
        let f = try HubFixture(settings: settings)
        _ = users(f, "alice", "bob")
        var code = ""
        f.hub.connectCode(for: "bob", regenerate: false) { code = (try? $0.get().code) ?? "" }
        f.scheduler.advance(by: 3_600_000)
        var error: GatewayError?
        f.hub.connect(userId: "alice", code: code) { if case .failure(let e) = $0 { error = e } }
        #expect(error?.code == .connectCodeExpired)
    }

    @Test func guessingCodesIsRateLimited() throws {
        let f = try HubFixture()
        _ = users(f, "alice", "bob")
        var codes: [GatewayErrorCode?] = []
        for i in 0..<21 {
            f.hub.connect(userId: "alice", code: String(format6(i))) { result in
                if case .failure(let e) = result { codes.append(e.code) } else { codes.append(nil) }
            }
        }
        #expect(codes.prefix(20).allSatisfy { $0 == .connectCodeInvalid })
        #expect(codes.last == .rateLimited)
        f.scheduler.advance(by: 3_600_001)
        f.hub.connect(userId: "alice", code: "999999") { if case .failure(let e) = $0 { codes.append(e.code) } }
        #expect(codes.last == .connectCodeInvalid)
    }

    func format6(_ n: Int) -> String { let s = String(n); return String(repeating: "9", count: 6 - s.count) + s }

    @Test func concurrentConnectsBeforeTheStoreAnswersProduceOneConnection() throws {
        let store = DeferredStore()
        let scheduler = ManualScheduler()
        let hub = GatewayHub(store: store, scheduler: scheduler, clock: scheduler)
        try hub.start()
        for id in ["alice", "bob"] { hub.upsertUser(id: id, displayName: nil) { _ in } }
        var code = ""
        hub.connectCode(for: "bob", regenerate: false) { code = (try? $0.get().code) ?? "" }
        store.flush()
        var results: [Result<UserRef, GatewayError>] = []
        hub.connect(userId: "alice", code: code) { results.append($0) }
        hub.connect(userId: "alice", code: code) { results.append($0) }
        hub.sendFriendRequest(from: "bob", toHexCode: hub.user("alice")!.hexCode) { _ in }
        store.flush()
        #expect(results.count == 2)
        #expect(results.filter { (try? $0.get()) != nil }.count == 1)
        #expect(results.compactMap { $0.failure?.code } == [.alreadyFriends])
        let contacts = try store.inner.loadSnapshot().contacts
        #expect(contacts.filter { $0.userId == "alice" && $0.contactId == "bob" }.count == 1)
    }
}
