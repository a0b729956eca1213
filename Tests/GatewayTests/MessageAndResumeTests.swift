import Gateway
import Testing

@Suite struct MessageAndResumeTests {
    @Test func messagesAreValidatedAndReachTheRecipientAndTheSendersOtherDevices() throws {
        let f = try HubFixture()
        f.contacts("alice", "bob")
        f.hub.upsertUser(id: "carol", displayName: nil) { _ in }
        let alicePhone = f.connect("alice", "a1")
        let aliceDesk = f.connect("alice", "a2", "desktop")
        let bob = f.connect("bob", "b1")
        f.command(alicePhone, #"{"id":"1","type":"send_message","to":"bob","text":"  hi bob  "}"#)
        #expect(alicePhone.reply("1")?["ok"] as? Bool == true)
        #expect(bob.events("message").map { data($0)["text"] as? String } == ["hi bob"])
        #expect(aliceDesk.events("message").count == 1)
        f.command(alicePhone, #"{"id":"2","type":"send_message","to":"bob","text":"   "}"#)
        #expect(alicePhone.errorCode("2") == "text_empty")
        f.command(alicePhone, #"{"id":"3","type":"send_message","to":"bob","text":"\#(String(repeating: "é", count: 501))"}"#)
        #expect(alicePhone.errorCode("3") == "text_too_long")
        f.command(alicePhone, #"{"id":"3b","type":"send_message","to":"bob","text":"\#(String(repeating: "é", count: 500))"}"#)
        #expect(alicePhone.reply("3b")?["ok"] as? Bool == true)
        f.command(alicePhone, #"{"id":"4","type":"send_message","to":"carol","text":"hi"}"#)
        #expect(alicePhone.errorCode("4") == "not_a_contact")
        f.command(alicePhone, #"{"id":"5","type":"send_message","to":"nobody","text":"hi"}"#)
        #expect(alicePhone.errorCode("5") == "not_a_contact")   // does not reveal whether the id exists
        // Idempotent retry with the same clientMessageId.
        f.command(alicePhone, #"{"id":"6","type":"send_message","to":"bob","text":"once","clientMessageId":"m-1"}"#)
        f.command(alicePhone, #"{"id":"7","type":"send_message","to":"bob","text":"once","clientMessageId":"m-1"}"#)
        let first = alicePhone.reply("6")?["result"] as? [String: Any]
        #expect(first?["messageId"] as? Int64 == (alicePhone.reply("7")?["result"] as? [String: Any])?["messageId"] as? Int64)
        #expect(bob.events("message").count == 3)
        f.command(bob, #"{"id":"u","type":"unread_counts"}"#)
        #expect(((bob.reply("u")?["result"] as? [String: Any])?["counts"] as? [String: Any])?["alice"] as? Int64 == 3)
        f.command(bob, #"{"id":"h","type":"history","with":"alice","limit":2}"#)
        let page = bob.reply("h")?["result"] as? [String: Any]
        #expect((page?["messages"] as? [[String: Any]])?.count == 2)
        #expect(page?["hasMore"] as? Bool == true)
    }

    @Test func badInputGetsAStableErrorAndTheConnectionStaysUsable() throws {
        let f = try HubFixture()
        let c = f.connect("u1", "d1")
        f.command(c, "not json")
        #expect((c.frames.last?["error"] as? [String: Any])?["code"] as? String == "invalid_json")
        f.command(c, #"{"id":"1","type":"fly"}"#)
        #expect(c.errorCode("1") == "unknown_type")
        f.command(c, #"{"id":"2","type":"send_message","to":"x"}"#)
        #expect(c.errorCode("2") == "missing_field")
        f.command(c, #"{"id":"3","type":"ack","offset":"ten"}"#)
        #expect(c.errorCode("3") == "invalid_field")
        f.command(c, #"{"type":"ack","offset":1}"#)
        #expect((c.frames.last?["error"] as? [String: Any])?["code"] as? String == "missing_field")
        f.command(c, #"{"id":"4","type":"ack","offset":0}"#)
        #expect(c.reply("4")?["ok"] as? Bool == true)
    }

    @Test func resumeReplaysEverythingAfterTheOffsetInOrderThenGoesLive() throws {
        let f = try HubFixture()
        let session = f.session("u1")
        for i in 0..<5 { f.hub.publish(userId: "u1", name: "n\(i)", payload: nil, idempotencyKey: nil) { _ in } }
        // Log: 1 session_created, 2...6 custom.
        let device = f.connect("u1", "d1", resumeAfter: 3)
        let resume = try #require(device.events("resume").first)
        #expect(data(resume)["recovered"] as? Bool == true)
        #expect(data(resume)["firstReplayed"] as? Int64 == 4)
        #expect(device.frames.compactMap { $0["offset"] as? Int64 } == [4, 5, 6])
        f.hub.postSessionEvent(sessionId: session, kind: "progress", payload: .object(["pct": .int(50)])) { _ in }
        #expect(device.frames.compactMap { $0["offset"] as? Int64 } == [4, 5, 6, 7])
        // An idempotent publish retry is not stored twice.
        var offsets: [Int64] = []
        for _ in 0..<2 { f.hub.publish(userId: "u1", name: "x", payload: nil, idempotencyKey: "k") { offsets.append((try? $0.get()) ?? -1) } }
        #expect(offsets == [8, 8])
        #expect(device.events("custom").count == 4)   // 3 replayed + 1 live
    }

    @Test func aPrunedGapIsReportedAsNotRecovered() throws {
        let f = try HubFixture()
        f.hub.upsertUser(id: "u1", displayName: nil) { _ in }
        for i in 0..<10 { f.hub.publish(userId: "u1", name: "n\(i)", payload: nil, idempotencyKey: nil) { _ in } }
        f.scheduler.advance(by: 1)
        _ = try f.store.pruneEvents(before: f.scheduler.now(), keepLatest: 3)
        let device = f.connect("u1", "d1", resumeAfter: 2)
        let resume = try #require(device.events("resume").first)
        #expect(data(resume)["recovered"] as? Bool == false)
        #expect(device.frames.compactMap { $0["offset"] as? Int64 }.count == 3)
    }
}

@Suite struct ReadMarkCommandTests {
    @Test func aReadMarkBelowTheCurrentOneLeavesItWhereItWas() throws {
        let f = try HubFixture()
        f.contacts("alice", "bob")
        let alice = f.connect("alice", "a1")
        let bob = f.connect("bob", "b1")
        var ids: [Int64] = []
        for i in 1...3 {
            f.command(alice, #"{"id":"s\#(i)","type":"send_message","to":"bob","text":"m\#(i)"}"#)
            ids.append(try #require((alice.reply("s\(i)")?["result"] as? [String: Any])?["messageId"] as? Int64))
        }
        func unread(_ id: String) -> Int64? {
            f.command(bob, #"{"id":"\#(id)","type":"unread_counts"}"#)
            return ((bob.reply(id)?["result"] as? [String: Any])?["counts"] as? [String: Any])?["alice"] as? Int64
        }
        f.command(bob, #"{"id":"r1","type":"mark_read","with":"alice","upTo":\#(ids[1])}"#)
        #expect(bob.reply("r1")?["ok"] as? Bool == true)
        #expect(unread("u1") == 1)
        f.command(bob, #"{"id":"r2","type":"mark_read","with":"alice","upTo":\#(ids[0])}"#)
        #expect(bob.reply("r2")?["ok"] as? Bool == true)
        #expect(unread("u2") == 1)   // not 2: the mark stayed at the second message
        f.command(bob, #"{"id":"r3","type":"mark_read","with":"alice","upTo":\#(ids[2])}"#)
        #expect(unread("u3") == nil)   // nothing unread: alice is absent
    }
}

/// A resume reads the log in parts (`GatewaySettings.replayChunkEvents`): a socket asks for each next part as it
/// drains, so nothing more than one part is read ahead for it.
@Suite struct ReplayInPartsTests {
    /// A client that paces its replay like a socket: it records each part and the frames sent outside the replay.
    final class PacingClient: GatewayClient, @unchecked Sendable {
        // @unchecked: tests drive the hub on one thread.
        let userId: String
        let deviceId = "d1"
        let clientType = "ios"
        var parts: [(offsets: [Int64], last: Bool)] = []
        var sent: [[String: Any]] = []
        var pacesReplay: Bool { true }

        init(_ userId: String) { self.userId = userId }
        func send(_ frame: [UInt8]) { sent.append(parseJSONObject(frame)) }
        func sendReplayPart(_ frames: [[UInt8]], last: Bool) {
            parts.append((frames.map { parseJSONObject($0)["offset"] as? Int64 ?? -1 }, last))
        }
        func close(code: UInt16, reason: String) {}
    }

    static func publish(_ f: HubFixture, _ user: String, count: Int) {
        for i in 0..<count { f.hub.publish(userId: user, name: "n\(i)", payload: nil, idempotencyKey: nil) { _ in } }
    }

    /// A hub reading replays `chunk` events at a time, with user u1's log at offsets 1...`events`.
    static func fixture(chunk: Int, events: Int) throws -> HubFixture {
        var settings = GatewaySettings()
        settings.replayChunkEvents = chunk
        let f = try HubFixture(settings: settings)
        f.hub.upsertUser(id: "u1", displayName: nil) { _ in }
        publish(f, "u1", count: events)
        return f
    }

    @Test func aPacedReplayReadsTheNextPartOnlyWhenAskedAndLiveEventsAreNotHeldByTheHub() throws {
        let f = try Self.fixture(chunk: 4, events: 10)
        let client = PacingClient("u1")
        f.hub.connect(client, resumeAfter: 0)
        let resume = try #require(client.sent.first { $0["type"] as? String == "resume" })
        #expect(data(resume)["recovered"] as? Bool == true)
        #expect(data(resume)["firstReplayed"] as? Int64 == 1 && data(resume)["lastReplayed"] as? Int64 == 10)
        #expect(client.parts.map(\.offsets) == [[1, 2, 3, 4]] && client.parts.map(\.last) == [false])
        // A live event goes to the client at once (a socket keeps it behind the replay), not into the hub's memory.
        Self.publish(f, "u1", count: 1)
        #expect(client.sent.compactMap { $0["offset"] as? Int64 } == [11])
        f.hub.continueReplay(client)
        f.hub.continueReplay(client)
        f.hub.continueReplay(client)
        #expect(client.parts.map(\.offsets) == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10]])
        #expect(client.parts.map(\.last) == [false, false, true])
    }

    @Test func aClientThatDoesNotPaceGetsEveryPartThenTheLiveEventsInOrder() throws {
        let f = try Self.fixture(chunk: 3, events: 10)
        let device = f.connect("u1", "d1", resumeAfter: 2)
        let resume = try #require(device.events("resume").first)
        #expect(data(resume)["firstReplayed"] as? Int64 == 3 && data(resume)["lastReplayed"] as? Int64 == 10)
        Self.publish(f, "u1", count: 1)
        #expect(device.frames.compactMap { $0["offset"] as? Int64 } == Array(3...11))
    }
}
