import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

/// Relationship flows end to end: real sockets, the real hub and SQLite, a restart in between.
@Suite(.serialized) struct RelationshipFlowTests {
    @Test func friendRequestsOverTheSocketReachTheOtherSideAndSurviveARestart() throws {
        let server = try RelationshipServer()
        let alice = try server.register("alice-device")
        let bob = try server.register("bob-device")
        _ = try server.http("POST", "/v1/users", #"{"userId":"\#(alice.userId)","displayName":"Alice"}"#)
        let a = try server.socket(token: alice.token)
        let b = try server.socket(token: bob.token)
        #expect(errorCode(try a.command(#""type":"friend_request","hexCode":"\#(alice.hexCode)""#)) == "self_request")
        let unknown = alice.hexCode == "0badc0de" || bob.hexCode == "0badc0de" ? "0badc0df" : "0badc0de"
        #expect(errorCode(try a.command(#""type":"friend_request","hexCode":"\#(unknown)""#)) == "user_not_found")
        let sent = result(try a.command(#""type":"friend_request","hexCode":"\#(bob.hexCode)""#))
        let requestId = try #require(sent["requestId"] as? String)
        #expect(errorCode(try a.command(#""type":"friend_request","hexCode":"\#(bob.hexCode)""#)) == "request_already_sent")
        let incoming = try b.next("friend_request")
        #expect(((eventData(incoming)["from"] as? [String: Any])?["name"]) as? String == "Alice")

        // The pending request and its offsets survive a restart of the whole server.
        try server.restart()
        let (status, lists) = try server.http("GET", "/v1/users/\(bob.userId)/friend-requests")
        #expect(status == 200)
        #expect((lists["incoming"] as? [[String: Any]])?.first?["requestId"] as? String == requestId)
        let a2 = try server.socket(token: alice.token)
        let b2 = try server.socket(token: bob.token)
        #expect(result(try b2.command(#""type":"friend_request_accept","requestId":"\#(requestId)""#))["state"] as? String == "accepted")
        #expect(eventData(try a2.next("friend_request_accepted"))["requestId"] as? String == requestId)
        #expect(eventData(try a2.next("contact_added"))["userId"] as? String == bob.userId)
        #expect(eventData(try a2.next("presence"))["userId"] as? String == bob.userId)
        #expect(errorCode(try a2.command(#""type":"friend_request","hexCode":"\#(bob.hexCode)""#)) == "already_friends")

        // Pause over the API: the other side is told on its socket, and messages stop.
        let (paused, _) = try server.http("POST", "/v1/contacts/pause", #"{"userId":"\#(bob.userId)","contactId":"\#(alice.userId)"}"#)
        #expect(paused == 200)
        #expect(eventData(try a2.next("contact_paused"))["by"] as? String == bob.userId)
        #expect(errorCode(try a2.command(#""type":"send_message","to":"\#(bob.userId)","text":"hi""#)) == "contact_paused")
    }

    @Test func connectCodesOverTheAPIAndTheSocket() throws {
        let server = try RelationshipServer()
        let alice = try server.register("alice-device")
        let bob = try server.register("bob-device")
        let (status, code) = try server.http("GET", "/v1/users/\(bob.userId)/connect-code")
        #expect(status == 200)
        let bobCode = try #require(code["code"] as? String)
        let (invalid, body) = try server.http("POST", "/v1/connections", #"{"userId":"\#(alice.userId)","code":"12"}"#)
        #expect(invalid == 400 && (body["error"] as? [String: Any])?["code"] as? String == "connect_code_invalid")
        let a = try server.socket(token: alice.token)
        let connected = try a.command(#""type":"connect","code":"\#(bobCode)""#)
        #expect(result(connected)["userId"] as? String == bob.userId)
        #expect(errorCode(try a.command(#""type":"connect","code":"\#(bobCode)""#)) == "already_friends")
        let (regenerated, _) = try server.http("POST", "/v1/users/\(bob.userId)/connect-code")
        #expect(regenerated == 201)
        let carol = try server.register("carol-device")
        let (expired, gone) = try server.http("POST", "/v1/connections", #"{"userId":"\#(carol.userId)","code":"\#(bobCode)"}"#)
        #expect(expired == 410 && (gone["error"] as? [String: Any])?["code"] as? String == "connect_code_expired")
    }

    @Test func groupInvitesAreDeliveredToTheWebhookAndFanOutToMembers() throws {
        let hook = try WebhookReceiver()
        let server = try RelationshipServer(inviteWebhookURL: "http://127.0.0.1:\(hook.port)/invites")
        let olga = try server.register("olga-device")
        let pete = try server.register("pete-device")
        let (created, group) = try server.http("POST", "/v1/groups", #"{"ownerId":"\#(olga.userId)","groupId":"fam","name":"Family","maxMembers":2}"#)
        #expect(created == 201 && group["groupId"] as? String == "fam")
        let (invited, invite) = try server.http("POST", "/v1/groups/fam/invites", #"{"inviterId":"\#(olga.userId)","phone":"+44 20 7946 0001"}"#)
        #expect(invited == 201)
        let code = try #require(invite["code"] as? String)
        let delivered = try #require(hook.waitForBody())
        // The fields, not a finished sentence: the receiving service's template decides the words.
        let body = try #require(try JSONSerialization.jsonObject(with: Data(delivered.utf8)) as? [String: Any])
        let delivery = try #require(body["delivery"] as? [String: Any])
        #expect(body["type"] as? String == "invite" && delivery["text"] == nil)
        #expect(delivery["code"] as? String == code && delivery["to"] as? String == "+442079460001" && delivery["channel"] as? String == "sms")
        #expect(delivery["groupName"] as? String == "Family" && delivery["inviterId"] as? String == olga.userId)
        #expect(delivery["inviterName"] as? String != nil && delivery["expiresAt"] as? Int64 == invite["expiresAt"] as? Int64)
        #expect(delivery["deepLink"] as? String == "switchboard://invite/\(code)")
        let (again, _, retry) = try server.httpResponse("POST", "/v1/groups/fam/invites", #"{"inviterId":"\#(olga.userId)","phone":"+442079460001"}"#)
        // The 24-hour rule says when (seconds left of the day since the first invite).
        #expect(again == 429 && Int(retry.values("Retry-After").first ?? "").map { (86_000...86_400).contains($0) } == true)
        let o = try server.socket(token: olga.token)
        let p = try server.socket(token: pete.token)
        #expect(result(try p.command(#""type":"invite_redeem","code":"\#(code)""#))["groupId"] as? String == "fam")
        #expect(errorCode(try p.command(#""type":"invite_redeem","code":"\#(code)""#)) == "invite_used")
        #expect(eventData(try o.next("group_member_joined"))["reason"] as? String == "invite")
        _ = try p.command(#""type":"group_send_message","groupId":"fam","text":"hello family""#)
        #expect(eventData(try o.next("group_message"))["text"] as? String == "hello family")
        let (full, _) = try server.http("POST", "/v1/groups/fam/invites", #"{"inviterId":"\#(olga.userId)"}"#)
        #expect(full == 409)
        let (published, _) = try server.http("POST", "/v1/groups/fam/events", #"{"name":"album_updated"}"#)
        #expect(published == 201)
        #expect(eventData(try p.next("group_event"))["name"] as? String == "album_updated")
    }

    @Test func discoveryFindsUsersByAttachedPhone() throws {
        let server = try RelationshipServer()
        let alice = try server.register("alice-device")
        let bob = try server.register("bob-device")
        let (attached, phone) = try server.http("PUT", "/v1/users/\(bob.userId)/phone", #"{"phone":"0049 151 1234 5678"}"#)
        #expect(attached == 200 && phone["phone"] as? String == "+4915112345678")
        let (bad, _) = try server.http("PUT", "/v1/users/\(bob.userId)/phone", #"{"phone":"0151 12345678"}"#)
        #expect(bad == 400)
        let a = try server.socket(token: alice.token)
        let reply = try a.command(#""type":"discover","numbers":["+49 151 12345678","+4915100000000"]"#)
        let entries = try #require(result(reply)["entries"] as? [[String: Any]])
        #expect(entries.map { $0["status"] as? String } == ["user", "invite"])
        #expect((entries.first?["user"] as? [String: Any])?["hexCode"] as? String == bob.hexCode)
    }
}

/// An HTTP endpoint on loopback that answers one request per connection with the next of `statuses` (then stops
/// accepting) and records each request's body.
final class WebhookReceiver: @unchecked Sendable {
    // @unchecked: `bodies` is guarded by the mutex; the socket is used by the accept thread only.
    let port: UInt16
    private let fd: Int32
    private let bodies = Mutex<[String]>([])
    private let arrived = DispatchSemaphore(value: 0)

    init(statuses: [Int] = [200]) throws {
        let listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 }
        }
        guard bound, listen(listener, 4) == 0 else {
            Glibc.close(listener)
            throw TestFailure("webhook receiver cannot listen")
        }
        fd = listener
        port = UInt16(bigEndian: addr.sin_port)
        DispatchQueue.global().async { [self] in
            for status in statuses { serve(status: status) }
        }
    }

    deinit { Glibc.close(fd) }

    private func serve(status: Int) {
        let client = accept(fd, nil, nil)
        guard client >= 0 else { return }
        defer { Glibc.close(client) }
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            data += chunk[0..<n]
            let text = String(decoding: data, as: UTF8.self)
            if let split = text.range(of: "\r\n\r\n"),
               let lengthLine = text[..<split.lowerBound].split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
               let length = Int(lengthLine.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)),
               text.utf8.count - text[..<split.upperBound].utf8.count >= length {
                bodies.withLock { $0.append(String(text[split.upperBound...])) }
                break
            }
        }
        let response = "HTTP/1.1 \(status) X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        _ = response.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        arrived.signal()
    }

    /// The bodies of the first `count` requests, or fewer when they did not all arrive within 10 s.
    func waitForBodies(_ count: Int) -> [String] {
        for _ in 0..<count where arrived.wait(timeout: .now() + 10) == .timedOut { break }
        return bodies.withLock { $0 }
    }

    /// The body of the first request, or nil after 10 s.
    func waitForBody() -> String? {
        waitForBodies(1).first
    }
}
