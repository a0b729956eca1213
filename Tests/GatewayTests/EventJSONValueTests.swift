@testable import Gateway
import GatewayProtocol
import JSON
import Testing

/// Push policy builds a notice's content state from the typed event data (`jsonValue`) instead of parsing the JSON it
/// just encoded: each tree must be exactly what the strict parser gives for the encoded bytes, optionals present or not.
@Suite struct EventJSONValueTests {
    static func check(_ value: some Encodable & JSONValueConvertible, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(value.jsonValue == (try JSONValue.parse(ServerFrames.encode(value))), sourceLocation: sourceLocation)
    }

    static let ann = UserRef(userId: "ann", hexCode: "a1b2c3d4", displayName: "Ann \"the\" Admin\n/é")
    static let bob = UserRef(userId: "bob", hexCode: "0f0f0f0f", displayName: nil)
    static let phone = DeviceRef(deviceId: "phone", clientType: "ios")

    @Test func approvalsWithAndWithoutTheirOptionalFields() throws {
        try Self.check(ApprovalData(requestId: "apr_1", sessionId: "s1", toolName: "Bash", summary: "rm -rf build/", details: nil,
                                    state: "pending", createdAt: 1_764_000_000_000, expiresAt: 1_764_000_060_000, decidedBy: nil, resolvedAt: nil))
        try Self.check(ApprovalData(requestId: "apr_2", sessionId: "s1", toolName: "Edit", summary: "x\u{1}",
                                    details: .object(["n": .int(-3), "f": .number(1.5), "a": .array([.null, .bool(true), .string("ü")])]),
                                    state: "approved", createdAt: 1, expiresAt: 2, decidedBy: Self.phone, resolvedAt: 3))
    }

    @Test func handoffsUsersContactsAndFriendRequests() throws {
        try Self.check(SessionHandoffData(sessionId: "s1", handedOffTo: DeviceRef(deviceId: "desk", clientType: "desktop"), previous: Self.phone))
        try Self.check(Self.ann)
        try Self.check(Self.bob)
        try Self.check(ContactData(userId: "bob", hexCode: "0f0f0f0f", displayName: nil))
        try Self.check(ContactData(userId: "ann", hexCode: "a1b2c3d4", displayName: "Ann"))
        try Self.check(FriendRequestData(requestId: "frq_1", from: Self.ann, to: Self.bob, state: "pending", createdAt: 5, resolvedAt: nil))
        try Self.check(FriendRequestData(requestId: "frq_2", from: Self.bob, to: Self.ann, state: "accepted", createdAt: 5, resolvedAt: 9))
    }

    @Test func theContentStateOfEachPushableEventIsItsDataAsParsed() throws {
        let removed: [String: String] = ["userId": "bob"]
        #expect(PushableEvent.contactRemoved(userId: "bob").contentState == (try JSONValue.parse(ServerFrames.encode(removed))))
        let request = FriendRequestData(requestId: "frq_1", from: Self.ann, to: Self.bob, state: "pending", createdAt: 5, resolvedAt: nil)
        #expect(PushableEvent.friendRequest(request).contentState == (try JSONValue.parse(ServerFrames.encode(request))))
        let message = MessageData(messageId: 1, from: "ann", to: "bob", text: "hi", sentAt: 2, fromDisplayName: nil)
        #expect(PushableEvent.message(message).contentState == nil)   // an alert carries its own fields
    }
}
