/// Client → server commands (JSON text frames). Every command has `id` (chosen by the client, echoed in the
/// reply) and `type`; the other fields depend on the type. Exactly one `reply` answers each command.
/// Each body is read by hand from the parsed frame (``JSONFields``); ids are checked as they are read.

public struct AuthCommand: Sendable, JSONFieldsDecodable {
    /// nil when absent: the socket refuses that as `unauthenticated`, its rule for any frame that is not a usable `auth`.
    public var token: String?
    /// Resume point: replay every event after this offset before live traffic.
    public var offset: Int64?

    public init(fields f: JSONFields) throws(GatewayError) {
        token = try f.optionalString("token")
        offset = try f.optionalInt64("offset")
        // As the `offset` query parameter: an offset is a position in the log, never below 0.
        if let offset, offset < 0 { throw GatewayError(.invalidField, "offset must be a non-negative integer") }
    }
}

public struct AckCommand: Sendable, JSONFieldsDecodable {
    public var offset: Int64
    public init(fields f: JSONFields) throws(GatewayError) { offset = try f.int64("offset") }
}

public struct SendMessageCommand: Sendable, JSONFieldsDecodable {
    public var to: String
    public var text: String
    /// Optional; a retried send with the same value returns the first result instead of sending twice.
    public var clientMessageId: String?

    public init(fields f: JSONFields) throws(GatewayError) {
        to = try f.id("to")
        text = try f.string("text")
        clientMessageId = try f.optionalString("clientMessageId")
    }
}

public struct HistoryCommand: Sendable, JSONFieldsDecodable {
    public var with: String
    public var before: Int64?
    public var limit: Int?

    public init(fields f: JSONFields) throws(GatewayError) {
        with = try f.id("with")
        before = try f.optionalInt64("before")
        limit = try f.optionalInt("limit")
    }
}

public struct MarkReadCommand: Sendable, JSONFieldsDecodable {
    public var with: String
    public var upTo: Int64

    public init(fields f: JSONFields) throws(GatewayError) {
        with = try f.id("with")
        upTo = try f.int64("upTo")
    }
}

public struct SetPresenceCommand: Sendable, JSONFieldsDecodable {
    /// `online` or `away`.
    public var status: String
    public init(fields f: JSONFields) throws(GatewayError) { status = try f.string("status") }
}

/// `app_state`: where the app is. A device in `background` counts as unreachable at once (its pushable events are
/// pushed without waiting for the acknowledgement delay); `foreground` restores normal delivery (docs/PUSH.md).
public struct AppStateCommand: Sendable, JSONFieldsDecodable {
    public enum State: String, Sendable, Equatable, CaseIterable {
        case foreground, background
    }

    public var state: State

    public init(fields f: JSONFields) throws(GatewayError) {
        let text = try f.string("state")
        guard let state = State(rawValue: text) else {
            throw GatewayError(.invalidField, "field \"state\" must be \"foreground\" or \"background\"")
        }
        self.state = state
    }
}

public struct SessionCommand: Sendable, JSONFieldsDecodable {
    public var sessionId: String
    public init(fields f: JSONFields) throws(GatewayError) { sessionId = try f.id("sessionId") }
}

public struct ApprovalAnswerCommand: Sendable, JSONFieldsDecodable {
    public var requestId: String
    public var reason: String?

    public init(fields f: JSONFields) throws(GatewayError) {
        requestId = try f.string("requestId")
        reason = try f.optionalString("reason")
    }
}
