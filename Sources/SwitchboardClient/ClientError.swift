/// Why a command or the client failed.
public enum ClientError: Error, Sendable, Equatable {
    /// The gateway refused the command: `code` is the wire code (docs/PROTOCOL.md, "Error codes").
    case server(code: String, message: String)
    /// More commands are waiting for a connection than ``SwitchboardClient/Configuration/maxQueuedCommands``.
    case queueFull
    /// The client stopped (``SwitchboardClient/disconnect()`` or a refusal); queued commands fail with this.
    case stopped(reason: String)
    /// The token provider failed, or the gateway rejected its tokens ``ReconnectPolicy/maxTokenRefreshes`` times.
    case authenticationFailed(String)
    /// The server refused the connection in a way retrying cannot fix (close code or HTTP status).
    case refused(TransportError)
    /// A reply did not have the expected shape.
    case invalidReply(String)
    /// The connection dropped after a command that would act twice if sent again (``ClientCommandKind/isSafeToResend(_:)``
    /// is false: `group_create`, `invite_create`, `send_event`, `connect_code` with `regenerate`) and before its
    /// reply: it may or may not have happened. Look (``SwitchboardClient/groups()``, the events replayed on resume)
    /// before trying again.
    case connectionLost(String)

    /// The wire code as a typed value, when it is one this library knows.
    public var gatewayCode: GatewayErrorCode? {
        if case .server(let code, _) = self { return GatewayErrorCode(rawValue: code) }
        return nil
    }

    /// `approve`/`deny` after another device (or this one) already decided.
    public var isApprovalAlreadyResolved: Bool { gatewayCode == .approvalAlreadyResolved }
    /// `approve`/`deny` after the deadline.
    public var isApprovalExpired: Bool { gatewayCode == .approvalExpired }
}
