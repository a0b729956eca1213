import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// The acknowledgement deadline over real sockets and the fake APNs: a device that received a message on its socket
/// but did not acknowledge it within `push_ack_delay_ms` is pushed; one that acknowledged in time is not;
/// `app_state background` pushes at once and shows the user as away to contacts.
@Suite struct PushEndToEndAcknowledgementTests {
    static let p = PushEndToEndProviders.self

    /// alice and bob are contacts; bob's devices stay connected, each with an APNs token.
    struct Setup {
        let g: PushEndToEndGateway
        let alice: GatewayTestClient
        let devices: [(client: GatewayTestClient, token: String)]

        init(delayMs: Int64, bobDevices: Int = 1) throws {
            g = try PushEndToEndGateway(configure: { options in
                options.settings.pushAckDelayMs = delayMs
                options.settings.approvalPushDelayMs = delayMs
            })
            try PushEndToEndDeliveryTests.makeContacts(g)
            var devices: [(GatewayTestClient, String)] = []
            for i in 0..<bobDevices {
                let token = PushEndToEndAcknowledgementTests.p.apnsToken("aa")
                let client = try g.server.connect(user: "bob", device: "bob-\(i)")
                #expect(try client.command("push_register", ["kind": "apns", "token": token])["ok"] as? Bool == true)
                devices.append((client, token))
            }
            self.devices = devices
            alice = try g.server.connect(user: "alice", device: "alice-phone")
        }

        /// alice writes to bob; returns the message's id and its offset in bob's log as his first device got it.
        func send(_ text: String) throws -> (messageId: Int64, offset: Int64) {
            let reply = try alice.command("send_message", ["to": "bob", "text": text])
            let messageId = try #require(GatewayJSON.int(reply, "result", "messageId"))
            let event = try devices[0].client.next {
                $0["type"] as? String == "message" && GatewayJSON.int($0, "data", "messageId") == messageId
            }
            return (messageId, try #require(GatewayJSON.int(event, "offset")))
        }

        func pushedMessageIds(_ token: String) -> [String] {
            g.providers.apnsRequests(token: token).compactMap { APNsRecord.payload($0)?["messageId"] as? String }
        }
    }

    @Test func aMessageReceivedButNeverAcknowledgedIsPushedAfterTheDelay() throws {
        let s = try Setup(delayMs: 500)
        let sent = Date()
        let message = try s.send("are you there?")
        #expect(s.g.eventually(seconds: 10) { s.g.providers.apnsRequests(token: s.devices[0].token).count == 1 })
        #expect(Date().timeIntervalSince(sent) >= 0.45)  // waited for the deadline, not pushed at commit
        #expect(s.pushedMessageIds(s.devices[0].token) == [String(message.messageId)])
        #expect(
            APNsRecord.header(s.g.providers.apnsRequests(token: s.devices[0].token).first, "apns-push-type") == "alert")
    }

    @Test func aMessageAcknowledgedInTimeIsNeverPushed() throws {
        let s = try Setup(delayMs: 2_000)
        let acked = try s.send("read this")
        #expect(try s.devices[0].client.command("ack", ["offset": acked.offset])["ok"] as? Bool == true)
        // A second one nobody acknowledges: its deadline comes after the first's, so once it is pushed the first
        // deadline has passed too.
        let unread = try s.send("and this")
        #expect(s.g.eventually(seconds: 15) { !s.pushedMessageIds(s.devices[0].token).isEmpty })
        #expect(s.pushedMessageIds(s.devices[0].token) == [String(unread.messageId)])
        #expect(s.g.jobs().count == 1)
    }

    @Test func ofTwoDevicesOnlyTheOneThatDidNotAcknowledgeIsPushed() throws {
        let s = try Setup(delayMs: 1_000, bobDevices: 2)
        let message = try s.send("who reads this?")
        #expect(try s.devices[0].client.command("ack", ["offset": message.offset])["ok"] as? Bool == true)
        #expect(s.g.eventually(seconds: 10) { s.pushedMessageIds(s.devices[1].token) == [String(message.messageId)] })
        // Both devices' deadlines fire together: the acknowledging one got no job.
        #expect(s.g.jobs().map(\.deviceId) == ["bob-1"])
        #expect(s.g.providers.apnsRequests(token: s.devices[0].token).isEmpty)
    }

    @Test func backgroundIsPushedAtOnceAndShownAwayUntilForeground() throws {
        // A delay far beyond the waits below: a push proves it went out without waiting for it.
        let s = try Setup(delayMs: 120_000)
        let bob = s.devices[0].client
        let waiting = try s.send("before background")
        #expect(try bob.command("app_state", ["state": "background"])["ok"] as? Bool == true)
        #expect(s.g.eventually(seconds: 10) { s.pushedMessageIds(s.devices[0].token) == [String(waiting.messageId)] })
        _ = try s.alice.next {
            $0["type"] as? String == "presence" && GatewayJSON.string($0, "data", "status") == "away"
        }
        let during = try s.send("during background")
        #expect(s.g.eventually(seconds: 10) { s.pushedMessageIds(s.devices[0].token).count == 2 })
        #expect(s.pushedMessageIds(s.devices[0].token).last == String(during.messageId))

        #expect(try bob.command("app_state", ["state": "foreground"])["ok"] as? Bool == true)
        _ = try s.alice.next {
            $0["type"] as? String == "presence" && GatewayJSON.string($0, "data", "status") == "online"
        }
        let bad = try bob.command("app_state", ["state": "asleep"])
        #expect(GatewayJSON.string(bad, "error", "code") == "invalid_field")
        #expect(s.g.jobs().count == 2)
    }
}

/// A deadline pending when the node stops is not lost: the stop pushes it, and the next start sends it.
@Suite struct PushEndToEndAcknowledgementRestartTests {
    @Test func aDeadlinePendingAtShutdownIsPushedByTheNextStart() throws {
        let directory = try TemporaryDirectory()
        let token = PushEndToEndProviders.apnsToken("aa")
        let messageId: Int64
        do {
            // First life: no transport (jobs stay in the outbox), and a delay no test waits for.
            let g = try PushEndToEndGateway(
                directory: directory, sending: false, configure: { $0.settings.pushAckDelayMs = 600_000 })
            try PushEndToEndDeliveryTests.makeContacts(g)
            let bob = try g.server.connect(user: "bob", device: "bob-phone")
            #expect(try bob.command("push_register", ["kind": "apns", "token": token])["ok"] as? Bool == true)
            let alice = try g.server.connect(user: "alice", device: "alice-phone")
            messageId = try #require(
                GatewayJSON.int(
                    try alice.command("send_message", ["to": "bob", "text": "still there?"]), "result", "messageId"))
            _ = try bob.next("message")
            #expect(g.jobs().isEmpty)  // waiting for bob's acknowledgement
            g.shutdown()
        }
        let g = try PushEndToEndGateway(directory: directory)
        #expect(g.eventually(seconds: 10) { g.job(1)?.state == "sent" })
        #expect(g.jobs().map(\.deviceId) == ["bob-phone"])
        let requests = g.providers.apnsRequests(token: token)
        #expect(requests.compactMap { APNsRecord.payload($0)?["messageId"] as? String } == [String(messageId)])
    }
}
