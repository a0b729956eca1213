import GatewayProtocol
import JSON
import Testing
@testable import ServerAPIRoutes

/// A decoded body written back with its wire names reads as the same body: what the fuzz target checks on random
/// input, here on one full example of each body.
@Suite struct APIBodyRoundTripTests {
    static let examples: [String] = [
        #"{"deviceToken":"0123456789abcdefXYZ","platform":"ios"}"#, #"{"displayName":"Ada"}"#,
        #"{"userId":"alice","displayName":"Alice"}"#, #"{"userA":"a","userB":"b"}"#, #"{"userId":"u","sessionId":"s","title":"T"}"#,
        #"{"kind":"k","payload":{"n":[1,2.5,null,true,"x"]}}"#,
        #"{"toolName":"t","summary":"s","details":{"a":-9223372036854775808},"timeoutSeconds":5e-324,"idempotencyKey":"k"}"#,
        #"{"name":"n","payload":1e300,"idempotencyKey":"k"}"#, #"{"kind":"apns","token":"t","environment":"sandbox","sessionId":"s"}"#,
        #"{"kind":"fcm","sessionId":"s"}"#, #"{"liveActivities":true,"showDetails":false}"#, #"{"phone":"+15550100"}"#,
        #"{"fromUserId":"a","toHexCode":"ABCD"}"#, #"{"userId":"u"}"#, #"{"userId":"u","code":"123456"}"#,
        #"{"userId":"u","contactId":"c"}"#,
        #"{"ownerId":"o","groupId":"g","name":"n","kind":"family","maxMembers":8,"invitePolicy":"owner","roleLimits":{"parent":2}}"#,
        #"{"userId":"u","role":"child"}"#, #"{"inviterId":"i","phone":"+1","email":"e@x","role":"r","expiresInHours":48}"#,
        #"{"name":"n","payload":[]}"#, #"{"numbers":["+1"],"hashes":["ab"]}"#, #"{"platform":"web"}"#,
        #"{"summary":"s","toolName":"t","timeoutSeconds":-0.0}"#,
    ]

    @Test func everyBodyTypeHasAnExample() {
        #expect(Self.examples.count == APIBodies.all.count)
    }

    @Test func eachBodyReadsBackAsItself() throws {
        for (type, example) in zip(APIBodies.all, Self.examples) {
            try roundTrip(type, Array(example.utf8))
        }
    }

    private func roundTrip<Body: APIBody>(_ type: Body.Type, _ bytes: [UInt8]) throws {
        let body = try Body.decode(bytes)
        let written = ServerFrames.encode(body)
        #expect(try Body.decode(written) == body, "\(Body.self): \(String(decoding: written, as: UTF8.self))")
        // Every member given was read (a body field that is not written back would lose it here).
        #expect(try JSONValue.parse(written) == JSONValue.parse(bytes), "\(Body.self)")
    }
}
