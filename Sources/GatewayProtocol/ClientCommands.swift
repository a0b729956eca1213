/// Client → server commands (JSON text frames). Every command has `id` (chosen by the client, echoed in the
/// reply) and `type`; the other fields depend on the type. Exactly one `reply` answers each command.

/// The part every command shares.
public struct CommandEnvelope: Decodable, Sendable {
    public var id: String
    public var type: String
}

public struct AuthCommand: Decodable, Sendable {
    public var token: String
    /// Resume point: replay every event after this offset before live traffic.
    public var offset: Int64?
}

public struct AckCommand: Decodable, Sendable { public var offset: Int64 }

public struct SendMessageCommand: Decodable, Sendable {
    public var to: String
    public var text: String
    /// Optional; a retried send with the same value returns the first result instead of sending twice.
    public var clientMessageId: String?
}

public struct HistoryCommand: Decodable, Sendable {
    public var with: String
    public var before: Int64?
    public var limit: Int?
}

public struct MarkReadCommand: Decodable, Sendable {
    public var with: String
    public var upTo: Int64
}

public struct SetPresenceCommand: Decodable, Sendable {
    /// `online` or `away`.
    public var status: String
}

public struct SessionCommand: Decodable, Sendable { public var sessionId: String }

public struct ApprovalAnswerCommand: Decodable, Sendable {
    public var requestId: String
    public var reason: String?
}
