import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// Every number a client, a backend or a demo page sends, at the edges of what a `Double` and an `Int64` hold: each
/// gets its precise error (or is used as the number it is), and the process lives on. A number that reached a
/// trapping conversion (`Int64(1e300)`, `Int64(Double.nan)`) would end the process, taking every connection with it.
@Suite struct NumbersFromOutsideTests {
    /// JSON numbers that are no `Int64`: beyond it, fractional, the smallest subnormal, the largest `Double`.
    static let noInteger = ["1e300", "-1e300", "5e-324", "0.5", "9223372036854775808", "-9223372036854775809", "1.7976931348623157e308"]
    /// Not JSON numbers at all (JavaScript's `NaN` and `Infinity` as a careless encoder writes them, beyond a Double).
    static let notJSON = ["NaN", "nan", "Infinity", "-Infinity", "inf", "1e400"]
    /// Timeouts in seconds that no timeout bound admits, including those no `Int64` of milliseconds can hold.
    static let noTimeout = ["1e300", "-1e300", "1.7976931348623157e308", "9223372036854775808", "9223372036854775.807", "5e-324", "-0", "0", "-1"]

    static func expectAlive(_ server: GatewayTestServer) throws {
        #expect(try GatewayHTTP.request(port: server.port, "GET", "/healthz", key: nil).status == 200)
    }

    @Test func demoApprovalTimeoutsOutsideTheBoundsAreRefusedAndTheProcessLives() throws {
        let server = try GatewayTestServer { $0.demo = true }
        defer { server.shutdown() }
        let alice = GatewayTestServer.token(user: "alice", device: "alice-phone")
        for value in Self.noTimeout {
            let refused = try GatewayHTTP.request(port: server.port, "POST", "/demo/api/approvals", #"{"timeoutSeconds":\#(value)}"#, key: alice)
            #expect(refused.status == 400 && refused.errorCode == "timeout_out_of_range", "timeoutSeconds \(value): \(refused.json)")
        }
        for value in Self.notJSON {
            let refused = try GatewayHTTP.request(port: server.port, "POST", "/demo/api/approvals", #"{"timeoutSeconds":\#(value)}"#, key: alice)
            #expect(refused.status == 400 && refused.errorCode == "invalid_json", "timeoutSeconds \(value): \(refused.json)")
        }
        try Self.expectAlive(server)
        // Fractions keep their milliseconds.
        let posted = try GatewayHTTP.request(port: server.port, "POST", "/demo/api/approvals", #"{"timeoutSeconds":1.5}"#, key: alice)
        #expect(posted.status == 201)
        let created = try #require(GatewayJSON.int(posted.json, "approval", "createdAt"))
        #expect(GatewayJSON.int(posted.json, "approval", "expiresAt") == created + 1_500)
    }

    @Test func serverAPIApprovalTimeoutsOutsideTheBoundsAreRefusedAndTheProcessLives() throws {
        let server = try GatewayTestServer()
        defer { server.shutdown() }
        #expect(try server.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "s1", "title": "Build"]).status == 201)
        for value in Self.noTimeout {
            let refused = try server.api("POST", "/v1/sessions/s1/approvals", #"{"toolName":"t","summary":"s","timeoutSeconds":\#(value)}"#)
            #expect(refused.status == 400 && refused.errorCode == "timeout_out_of_range", "timeoutSeconds \(value): \(refused.json)")
        }
        // The bounds themselves are in (the test server's minimum is 200 ms, the default maximum 600 s).
        for (value, ms) in [("0.2", Int64(200)), ("600", 600_000), ("599.9995", 600_000)] {
            let posted = try server.api("POST", "/v1/sessions/s1/approvals", #"{"toolName":"t","summary":"s","timeoutSeconds":\#(value)}"#)
            #expect(posted.status == 201, "timeoutSeconds \(value): \(posted.json)")
            let created = try #require(GatewayJSON.int(posted.json, "createdAt"))
            #expect(GatewayJSON.int(posted.json, "expiresAt") == created + ms)
        }
        try Self.expectAlive(server)
    }

    @Test func longPollWaitIsADecimalNumberOfSeconds() throws {
        let s = try GatewayApprovalTests.Setup()
        defer { s.server.shutdown() }
        let pending = try s.request(timeoutSeconds: 30)
        // A backend passing JavaScript's NaN, infinities, hexadecimal floats, text: refused before anything waits.
        for value in ["nan", "NaN", "inf", "-inf", "infinity", "Infinity", "0x1p3", "1e400", "", "abc", "%2B1", "%201", "1%20", "1_000"] {
            let refused = try s.server.api("GET", "/v1/approvals/\(pending)?wait=\(value)")
            #expect(refused.status == 400 && refused.errorCode == "invalid_field", "wait=\(value): \(refused.json)")
        }
        // Numbers that round to no wait at all answer at once with the pending state.
        for value in ["-0", "0", "5e-324", "-1e300", "-9223372036854775809", "0.0001"] {
            let answered = try s.server.api("GET", "/v1/approvals/\(pending)?wait=\(value)")
            #expect(answered.status == 200 && GatewayJSON.string(answered.json, "state") == "pending", "wait=\(value): \(answered.json)")
        }
        // Huge waits are the longest wait; a decided request answers at once.
        #expect(try s.phone.command("approve", ["requestId": pending])["ok"] as? Bool == true)
        for value in ["1e300", "9223372036854775808", "1.7976931348623157e308"] {
            let answered = try s.server.api("GET", "/v1/approvals/\(pending)?wait=\(value)")
            #expect(answered.status == 200 && GatewayJSON.string(answered.json, "state") == "approved", "wait=\(value): \(answered.json)")
        }
        try Self.expectAlive(s.server)
    }

    @Test func integerFieldsOfCommandsRefuseWhatNoIntegerHolds() throws {
        let server = try GatewayTestServer()
        defer { server.shutdown() }
        try GatewayMessagingTests.makeUsers(server)
        let alice = try server.connect(user: "alice", device: "alice-phone")
        let fields: [(type: String, template: String)] = [
            ("ack", #""offset":N"#),
            ("history", #""with":"bob","limit":N"#),
            ("history", #""with":"bob","before":N"#),
            ("mark_read", #""with":"bob","upTo":N"#),
            ("group_create", #""name":"g","maxMembers":N"#),
            ("group_create", #""name":"g","roleLimits":{"member":N}"#),
        ]
        var serial = 0
        func send(_ type: String, _ body: String) throws -> [String: Any] {
            serial += 1
            let id = "n\(serial)"
            alice.send(text: #"{"id":"\#(id)","type":"\#(type)",\#(body)}"#)
            return try alice.next { $0["type"] as? String == "reply" && $0["id"] as? String == id }
        }
        for (type, template) in fields {
            for value in Self.noInteger {
                let reply = try send(type, template.replacingOccurrences(of: "N", with: value))
                #expect(GatewayMessagingTests.errorCode(reply) == "invalid_field", "\(type) \(template) = \(value): \(reply)")
            }
            for value in Self.notJSON {
                // Not JSON: the reply cannot know the command's id.
                alice.send(text: #"{"id":"nj","type":"\#(type)",\#(template.replacingOccurrences(of: "N", with: value))}"#)
                let reply = try alice.next { $0["type"] as? String == "reply" && $0["id"] is NSNull }
                #expect(GatewayMessagingTests.errorCode(reply) == "invalid_json", "\(type) \(template) = \(value): \(reply)")
            }
        }
        // Integers at the ends of Int64 are integers: each command's own range check answers them.
        let edges: [(type: String, body: String, code: String?)] = [
            ("ack", #""offset":-0"#, nil),
            ("ack", #""offset":9223372036854775807"#, "invalid_field"),
            ("ack", #""offset":-9223372036854775808"#, "invalid_field"),
            ("history", #""with":"bob","limit":9223372036854775807"#, "invalid_field"),
            ("history", #""with":"bob","limit":-0"#, "invalid_field"),
            ("history", #""with":"bob","before":9223372036854775807"#, nil),
            ("history", #""with":"bob","before":-9223372036854775808"#, nil),
            ("mark_read", #""with":"bob","upTo":-0"#, nil),
            ("mark_read", #""with":"bob","upTo":9223372036854775807"#, "invalid_field"),
            ("mark_read", #""with":"bob","upTo":-9223372036854775808"#, "invalid_field"),
            ("group_create", #""name":"g","maxMembers":9223372036854775807"#, "invalid_field"),
            ("group_create", #""name":"g","maxMembers":-9223372036854775808"#, "invalid_field"),
            ("group_create", #""name":"g","roleLimits":{"member":-9223372036854775808}"#, "invalid_field"),
        ]
        for edge in edges {
            let reply = try send(edge.type, edge.body)
            #expect(GatewayMessagingTests.errorCode(reply) == edge.code, "\(edge.type) \(edge.body): \(reply)")
        }
        let group = try send("group_create", #""name":"g""#)
        let groupId = try #require(GatewayJSON.string(group, "result", "groupId"))
        for value in Self.noInteger + ["0", "-0", "9223372036854775807", "-9223372036854775808"] {
            let reply = try send("invite_create", #""groupId":"\#(groupId)","email":"x@example.com","expiresInHours":\#(value)"#)
            #expect(GatewayMessagingTests.errorCode(reply) == "invalid_field", "expiresInHours \(value): \(reply)")
        }
        #expect(try alice.command("presence")["ok"] as? Bool == true)
        try Self.expectAlive(server)
    }

    @Test func integerFieldsOfServerAPIBodiesRefuseWhatNoIntegerHolds() throws {
        let server = try GatewayTestServer()
        defer { server.shutdown() }
        #expect(try server.api("POST", "/v1/users", ["userId": "ann"]).status == 201)
        #expect(try server.api("POST", "/v1/groups", ["ownerId": "ann", "groupId": "fam", "name": "Family"]).status == 201)
        let bodies: [(path: String, template: String)] = [
            ("/v1/groups", #"{"ownerId":"ann","name":"g","maxMembers":N}"#),
            ("/v1/groups", #"{"ownerId":"ann","name":"g","roleLimits":{"member":N}}"#),
            ("/v1/groups/fam/invites", #"{"inviterId":"ann","email":"x@example.com","expiresInHours":N}"#),
        ]
        for (path, template) in bodies {
            // A role limit may be any count from 0 up (Int64.max is "no limit"); the others have ranges of their own.
            let extremes = template.contains("roleLimits") ? ["-1", "-9223372036854775808"] : ["0", "9223372036854775807", "-9223372036854775808"]
            for value in Self.noInteger + extremes {
                let refused = try server.api("POST", path, template.replacingOccurrences(of: "N", with: value))
                #expect(refused.status == 400 && refused.errorCode == "invalid_field", "\(path) \(value): \(refused.json)")
            }
            for value in Self.notJSON {
                let refused = try server.api("POST", path, template.replacingOccurrences(of: "N", with: value))
                #expect(refused.status == 400 && refused.errorCode == "invalid_json", "\(path) \(value): \(refused.json)")
            }
        }
        try Self.expectAlive(server)
    }

    @Test func resumeOffsetsAreNonNegativeIntegers() throws {
        let server = try GatewayTestServer()
        defer { server.shutdown() }
        let token = GatewayTestServer.token(user: "ann", device: "ann-phone")
        // In the `auth` command: the field's own error, and the socket may try again.
        let client = try GatewayTestClient(port: server.port, path: "/v1/ws")
        for value in Self.noInteger + ["-1", "-9223372036854775808"] {
            client.send(text: #"{"id":"a","type":"auth","token":"\#(token)","offset":\#(value)}"#)
            let reply = try client.next("reply")
            #expect(GatewayJSON.string(reply, "error", "code") == "invalid_field", "offset \(value): \(reply)")
        }
        let accepted = try client.command("auth", ["token": token, "offset": 9_223_372_036_854_775_807])
        #expect(accepted["ok"] as? Bool == true)
        _ = try client.next("welcome")
        // Ahead of the (empty) log: not recovered, and nothing wraps around.
        #expect(GatewayJSON.value(try client.next("resume"), ["data", "recovered"]) as? Bool == false)
        // In the query: 400 instead of the upgrade.
        for value in ["nan", "inf", "1e300", "5e-324", "9223372036854775808", "-1", "0x10"] {
            let raw = try RawClient(port: server.port)
            raw.send("GET /v1/ws?token=\(token)&offset=\(value) HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
            let refused = try raw.readResponse()
            let json = try? JSONSerialization.jsonObject(with: Data(refused.body))
            #expect(refused.head.status == 400 && GatewayJSON.string(json, "error", "code") == "invalid_field", "offset=\(value)")
            // A plain GET (no upgrade) with the same query gets the same refusal, not 404.
            let plain = try RawClient(port: server.port)
            plain.send("GET /v1/ws?offset=\(value) HTTP/1.1\r\nHost: x\r\n\r\n")
            let answered = try plain.readResponse()
            let body = try? JSONSerialization.jsonObject(with: Data(answered.body))
            #expect(answered.head.status == 400 && GatewayJSON.string(body, "error", "code") == "invalid_field", "plain GET offset=\(value)")
        }
        // A plain GET without a bad query: the path speaks WebSocket only.
        let plain = try RawClient(port: server.port)
        plain.send("GET /v1/ws?offset=3 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try plain.readResponse().head.status == 426)
        try Self.expectAlive(server)
    }

    /// A mark beyond the conversation's newest message (a `sentAt` in milliseconds passed as a message id) would
    /// become the mark for good (marks never move back) and hide every later message from the unread counts.
    @Test func markReadBeyondTheNewestMessageIsRefusedAndUnreadCountsSurvive() throws {
        let server = try GatewayTestServer()
        defer { server.shutdown() }
        try GatewayMessagingTests.makeUsers(server)
        let alice = try server.connect(user: "alice", device: "alice-phone")
        let bob = try server.connect(user: "bob", device: "bob-phone")
        // No message yet: only 0 is a mark.
        #expect(GatewayMessagingTests.errorCode(try bob.command("mark_read", ["with": "alice", "upTo": 1])) == "invalid_field")
        let sent = try alice.command("send_message", ["to": "bob", "text": "one"])
        let first = try #require(GatewayJSON.int(sent, "result", "messageId"))
        let sentAt = try #require(GatewayJSON.int(sent, "result", "sentAt"))
        for upTo in [sentAt, first + 1, Int64.max, -1] {
            let refused = try bob.command("mark_read", ["with": "alice", "upTo": upTo])
            #expect(GatewayMessagingTests.errorCode(refused) == "invalid_field", "upTo \(upTo): \(refused)")
        }
        #expect(GatewayJSON.int(try bob.command("unread_counts"), "result", "counts", "alice") == 1)
        // A message after the refused marks still counts; marking the newest one clears both.
        let second = try #require(GatewayJSON.int(try alice.command("send_message", ["to": "bob", "text": "two"]), "result", "messageId"))
        #expect(GatewayJSON.int(try bob.command("unread_counts"), "result", "counts", "alice") == 2)
        #expect(try bob.command("mark_read", ["with": "alice", "upTo": first])["ok"] as? Bool == true)
        #expect(GatewayJSON.int(try bob.command("unread_counts"), "result", "counts", "alice") == 1)
        #expect(try bob.command("mark_read", ["with": "alice", "upTo": second])["ok"] as? Bool == true)
        #expect(GatewayJSON.int(try bob.command("unread_counts"), "result", "counts", "alice") ?? 0 == 0)
        // The sender may mark up to its own newest message too: the bound is the conversation's, both directions.
        let reply = try #require(GatewayJSON.int(try bob.command("send_message", ["to": "alice", "text": "three"]), "result", "messageId"))
        #expect(try bob.command("mark_read", ["with": "alice", "upTo": reply])["ok"] as? Bool == true)
        #expect(GatewayMessagingTests.errorCode(try bob.command("mark_read", ["with": "alice", "upTo": reply + 1])) == "invalid_field")
    }
}
