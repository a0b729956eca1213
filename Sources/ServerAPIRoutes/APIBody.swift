import GatewayProtocol

/// A JSON body of the server API or the demo API, read by hand from the strict parse (``JSONFields``) with the
/// errors a backend developer needs (`missing_field`, `invalid_field`, `invalid_id` naming the field). `Encodable`
/// with the wire names, so a decoded body written back reads as the same body (the fuzz target checks it).
public protocol APIBody: JSONFieldsDecodable, Encodable, Equatable, Sendable {}

extension APIBody {
    /// Reads `bytes` as this body; an empty body is `{}` (so a body whose fields are all optional may be left out).
    public static func decode(_ bytes: [UInt8]) throws(GatewayError) -> Self {
        let fields = bytes.isEmpty ? try JSONFields(.object([:])) : try JSONFields.parse(bytes, what: "body")
        return try Self(fields: fields)
    }
}

// The push bodies are the client commands' own types (one reader for the socket and the API).
extension PushRegisterCommand: APIBody {}
extension PushUnregisterCommand: APIBody {}
extension NotificationSettingsCommand: APIBody {}

/// Every body type the routes read, for the fuzz target and the tests that read each one.
public enum APIBodies {
    public static let all: [any APIBody.Type] = [
        RegisterBody.self, DisplayNameBody.self, UserBody.self, ContactBody.self, SessionBody.self, SessionEventBody.self,
        ApprovalBody.self, PublishBody.self, PushRegisterCommand.self, PushUnregisterCommand.self,
        NotificationSettingsCommand.self, PhoneBody.self, FriendRequestBody.self, ActorBody.self, ConnectBody.self,
        PauseBody.self, GroupBody.self, MemberBody.self, InviteBody.self, GroupEventBody.self, DiscoverBody.self,
        DemoDeviceBody.self, DemoApprovalBody.self,
    ]
}
