import JSON
import Push
import Testing

@Suite struct PushPayloadsTests {
    let routing = PushRouting(type: "approval", ids: ["sessionId": "s 1", "requestId": "r/2"],
                              deeplinkTemplate: "myapp://session/{sessionId}/approval/{requestId}")

    func json(_ value: JSONValue) throws -> String {
        String(decoding: try value.serialized(), as: UTF8.self)
    }

    @Test func alertPayload() throws {
        let payload = PushPayloads.alert(PushAlertText(title: "Approval needed", body: "Run tests?"), badge: 3,
                                         threadID: "s 1", timeSensitive: true, routing: routing)
        #expect(try json(payload) == #"{"aps":{"alert":{"body":"Run tests?","title":"Approval needed"},"badge":3,"#
            + #""interruption-level":"time-sensitive","sound":"default","thread-id":"s 1"},"#
            + #""deeplink":"myapp://session/s%201/approval/r%2F2","requestId":"r/2","sessionId":"s 1","type":"approval"}"#)
        #expect(try json(PushPayloads.alert(PushAlertText(title: "New message"), sound: nil))
                == #"{"aps":{"alert":{"title":"New message"}}}"#)
    }

    @Test func backgroundPayload() throws {
        #expect(try json(PushPayloads.background(routing: PushRouting(type: "sync", ids: ["sessionId": "s"])))
                == #"{"aps":{"content-available":1},"sessionId":"s","type":"sync"}"#)
    }

    @Test func liveActivityPayloads() throws {
        let state: JSONValue = .object(["status": .string("waiting"), "pending": .int(2)])
        #expect(try json(PushPayloads.liveActivityUpdate(contentState: state, timestamp: 1_700_000_000, staleDate: 1_700_000_600,
                                                         alert: PushAlertText(title: "Approval needed")))
                == #"{"aps":{"alert":{"title":"Approval needed"},"content-state":{"pending":2,"status":"waiting"},"#
                + #""event":"update","stale-date":1700000600,"timestamp":1700000000}}"#)
        #expect(try json(PushPayloads.liveActivityEnd(contentState: state, timestamp: 5, dismissalDate: 6))
                == #"{"aps":{"content-state":{"pending":2,"status":"waiting"},"dismissal-date":6,"event":"end","timestamp":5}}"#)
        let start = PushPayloads.liveActivityStart(attributesType: "SessionAttributes", attributes: .object(["name": .string("api")]),
                                                   contentState: state, timestamp: 7, alert: PushAlertText(title: "Session started"),
                                                   routing: PushRouting(type: "session", ids: ["sessionId": "s"]))
        #expect(try json(start) == #"{"aps":{"alert":{"title":"Session started"},"attributes":{"name":"api"},"#
                + #""attributes-type":"SessionAttributes","content-state":{"pending":2,"status":"waiting"},"#
                + #""event":"start","timestamp":7},"sessionId":"s","type":"session"}"#)
    }

    @Test func deeplinks() {
        #expect(routing.deeplink == "myapp://session/s%201/approval/r%2F2")
        #expect(PushRouting(type: "x", ids: [:], deeplinkTemplate: "app://session/{sessionId}").deeplink == nil)
        #expect(PushRouting(type: "x", ids: ["a": "é"], deeplinkTemplate: "app://{a}/end").deeplink == "app://%C3%A9/end")
        #expect(PushRouting(type: "x").deeplink == nil)
    }

    @Test func idsCannotOverwriteReservedMembers() throws {
        let sneaky = PushRouting(type: "message", ids: ["aps": "x", "type": "y", "messageId": "m"])
        #expect(try json(PushPayloads.background(routing: sneaky)) == #"{"aps":{"content-available":1},"messageId":"m","type":"message"}"#)
    }

    @Test func fcmMessageBody() throws {
        let message = FCMMessage(token: "tok", title: "New message", body: nil, data: ["sessionId": "s"], highPriority: true)
        #expect(String(decoding: try message.body(), as: UTF8.self)
                == #"{"message":{"android":{"priority":"high"},"data":{"sessionId":"s"},"notification":{"title":"New message"},"token":"tok"}}"#)
    }
}
