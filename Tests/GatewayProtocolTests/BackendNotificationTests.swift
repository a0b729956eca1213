import GatewayProtocol
import Testing

/// The backend's `notification` object, read strictly with errors naming `notification.<field>`.
@Suite struct BackendNotificationTests {
    static func read(_ json: String) throws(GatewayError) -> BackendNotification? {
        try BackendNotification.optional(in: JSONFields.parse(Array(json.utf8), what: "body"))
    }

    static func refusal(_ json: String) -> GatewayError? {
        do {
            _ = try read(json)
            return nil
        } catch {
            return error
        }
    }

    @Test func aCompleteNotificationIsTyped() throws {
        let n = try Self.read(
            #"{"name":"done","notification":{"title":"Build finished","body":"All 312 tests passed","interruption":"timeSensitive","collapseId":"build-7","threadId":"ci"}}"#
        )
        #expect(
            n
                == BackendNotification(
                    title: "Build finished", body: "All 312 tests passed", interruption: .timeSensitive,
                    collapseId: "build-7", threadId: "ci"))
        #expect(n?.interruption.apnsLevel == "time-sensitive")
    }

    @Test func absentOrNullMeansNone() throws {
        #expect(try Self.read(#"{"name":"x"}"#) == nil)
        #expect(try Self.read(#"{"name":"x","notification":null}"#) == nil)
    }

    @Test func optionalIdentifiersMayBeLeftOutOrNull() throws {
        let n = try Self.read(#"{"notification":{"title":"t","body":"b","interruption":"passive","threadId":null}}"#)
        #expect(n == BackendNotification(title: "t", body: "b", interruption: .passive))
    }

    @Test(arguments: [
        (
            #"{"notification":"hello"}"#, GatewayErrorCode.invalidField,
            #"field "notification" must be of type Dictionary<String, Any>"#
        ),
        (
            #"{"notification":{"body":"b","interruption":"active"}}"#, .missingField,
            #"missing field "notification.title""#
        ),
        (
            #"{"notification":{"title":"t","interruption":"active"}}"#, .missingField,
            #"missing field "notification.body""#
        ),
        (#"{"notification":{"title":"t","body":"b"}}"#, .missingField, #"missing field "notification.interruption""#),
        (
            #"{"notification":{"title":"t","body":"b","interruption":"loud"}}"#, .invalidField,
            #"field "notification.interruption" must be one of "passive", "active", "timeSensitive""#
        ),
        (
            #"{"notification":{"title":"t","body":"b","interruption":"time-sensitive"}}"#, .invalidField,
            #"field "notification.interruption" must be one of "passive", "active", "timeSensitive""#
        ),
        (
            #"{"notification":{"title":"","body":"b","interruption":"active"}}"#, .invalidField,
            #"field "notification.title" must have 1 to 256 bytes (UTF-8), got 0"#
        ),
        (
            #"{"notification":{"title":7,"body":"b","interruption":"active"}}"#, .invalidField,
            #"field "notification.title" must be of type String"#
        ),
        (
            #"{"notification":{"tittle":"t","title":"t","body":"b","interruption":"active"}}"#, .invalidField,
            #"field "notification.tittle" is not allowed (allowed: body, collapseId, interruption, threadId, title)"#
        ),
        (
            #"{"notification":{"title":"t","body":"b","interruption":"active","collapseId":""}}"#, .invalidField,
            #"field "notification.collapseId" must have 1 to 64 bytes (UTF-8), got 0"#
        )
    ])
    func aBadNotificationIsRefusedNamingTheField(_ json: String, _ code: GatewayErrorCode, _ message: String) {
        let error = Self.refusal(json)
        #expect(error?.code == code)
        #expect(error?.message == message)
    }

    @Test func limitsAreCountedInUTF8Bytes() throws {
        // 64 "é" are 128 bytes: a collapse id over APNs' 64-byte header limit although it is 64 characters.
        let accented = String(repeating: "é", count: 64)
        #expect(
            Self.refusal(
                #"{"notification":{"title":"t","body":"b","interruption":"active","collapseId":"\#(accented)"}}"#)?
                .message
                == #"field "notification.collapseId" must have 1 to 64 bytes (UTF-8), got 128"#)
        let longest = String(repeating: "x", count: BackendNotification.maxBodyBytes)
        #expect(
            try Self.read(#"{"notification":{"title":"t","body":"\#(longest)","interruption":"active"}}"#)?.body
                == longest)
        #expect(
            Self.refusal(#"{"notification":{"title":"t","body":"\#(longest)x","interruption":"active"}}"#)?.message
                == #"field "notification.body" must have 1 to 2048 bytes (UTF-8), got 2049"#)
    }
}
