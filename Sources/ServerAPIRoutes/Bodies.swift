import GatewayProtocol

// The bodies of the device endpoints and of the backend's users, contacts, sessions and approvals
// (docs/PROTOCOL.md "Server API"). Field names are the wire names.

/// `POST /v1/devices/register`: the device's own secret (checked for strength by the gateway) and its platform.
public struct RegisterBody: APIBody {
    public var deviceToken: String
    public var platform: String
    public init(fields f: JSONFields) throws(GatewayError) {
        deviceToken = try f.string("deviceToken"); platform = try f.string("platform")
    }
}

/// `PUT /v1/users/me/display-name`.
public struct DisplayNameBody: APIBody {
    public var displayName: String
    public init(fields f: JSONFields) throws(GatewayError) { displayName = try f.string("displayName") }
}

/// `POST /v1/users`: creates or updates a user.
public struct UserBody: APIBody {
    public var userId: String
    public var displayName: String?
    public init(fields f: JSONFields) throws(GatewayError) {
        userId = try f.id("userId"); displayName = try f.optionalString("displayName")
    }
}

/// `POST` / `DELETE /v1/contacts`: the two users of a contact.
public struct ContactBody: APIBody {
    public var userA: String
    public var userB: String
    public init(fields f: JSONFields) throws(GatewayError) { userA = try f.id("userA"); userB = try f.id("userB") }
}

/// `POST /v1/sessions`.
public struct SessionBody: APIBody {
    public var userId: String
    public var sessionId: String?
    public var title: String?
    public init(fields f: JSONFields) throws(GatewayError) {
        userId = try f.id("userId"); sessionId = try f.optionalID("sessionId"); title = try f.optionalString("title")
    }
}

/// `POST /v1/sessions/{id}/events`.
public struct SessionEventBody: APIBody {
    public var kind: String
    public var payload: JSONValue?
    /// Makes the event an alert (docs/PUSH.md, "The backend's `notification`").
    public var notification: BackendNotification?
    public init(fields f: JSONFields) throws(GatewayError) {
        kind = try f.string("kind"); payload = f.optionalJSON("payload");
        notification = try BackendNotification.optional(in: f)
    }
}

/// `POST /v1/sessions/{id}/approvals`. `timeoutSeconds` is checked against the node's bounds by the gateway
/// (`ApprovalTimeout`); `toolName` and `summary` must not be empty.
public struct ApprovalBody: APIBody {
    public var toolName: String
    public var summary: String
    public var details: JSONValue?
    public var timeoutSeconds: Double?
    public var idempotencyKey: String?
    public init(fields f: JSONFields) throws(GatewayError) {
        toolName = try f.string("toolName"); summary = try f.string("summary"); details = f.optionalJSON("details")
        timeoutSeconds = try f.optionalDouble("timeoutSeconds"); idempotencyKey = try f.optionalString("idempotencyKey")
        guard !toolName.isEmpty, !summary.isEmpty else {
            throw GatewayError(.invalidField, "toolName and summary must not be empty")
        }
    }
}

/// `POST /v1/users/{id}/events`: an app event into the user's log.
public struct PublishBody: APIBody {
    public var name: String
    public var payload: JSONValue?
    public var idempotencyKey: String?
    /// Makes the event an alert (docs/PUSH.md, "The backend's `notification`").
    public var notification: BackendNotification?
    public init(fields f: JSONFields) throws(GatewayError) {
        name = try f.string("name"); payload = f.optionalJSON("payload");
        idempotencyKey = try f.optionalString("idempotencyKey")
        notification = try BackendNotification.optional(in: f)
    }
}
