@_exported import GatewayProtocol

/// Everything the gateway tells the app, as ``SwitchboardClient/events`` delivers it.
///
/// Durable events (those with an offset on the wire) are acknowledged automatically once the app has handled them:
/// when it asks the stream for the next element. Field names of the data types are the wire names of
/// docs/PROTOCOL.md ("Events").
public enum ClientEvent: Sendable {
    /// The connection changed state (connecting, connected with the server's welcome, waiting to reconnect, stopped).
    case connection(ConnectionState)
    /// The server could not replay everything after our offset (`resume` with `recovered: false`): refetch state
    /// (history, ``SwitchboardClient/pendingApprovals()``, sessions). Never silent.
    case resync(ResumeData)
    /// A direct message, to the recipient and to the sender's other devices.
    case message(MessageData)
    /// A contact's presence changed (not durable: ask ``SwitchboardClient/presence()`` after reconnecting).
    case presence(PresenceData)
    /// A pending approval with its deadline (``GatewayProtocol/ApprovalData/remainingSeconds(nowMilliseconds:)``).
    case approvalRequest(ApprovalData)
    /// Some device approved or denied (`state`, `decidedBy`, `resolvedAt`).
    case approvalResolved(ApprovalData)
    /// Nobody answered in time (`state: "timed_out"`).
    case approvalTimeout(ApprovalData)
    /// Another device of this user took over a session; the device named in `previous` should let go of it.
    case sessionHandoff(SessionHandoffData)
    /// A session was created (`session_created`).
    case sessionCreated(SessionData)
    /// A session ended (`session_ended`).
    case sessionEnded(SessionData)
    /// Progress, status, a question or an app-defined event in a session (`session_event`).
    case sessionEvent(sessionId: String, kind: String, payload: JSONValue?)
    /// A friend request was made, accepted, rejected or cancelled (`state` tells which).
    case friendRequest(FriendRequestData)
    /// This user's connect code changed.
    case connectCodeChanged(ConnectCodeData)
    /// An event published by the app backend (`custom`).
    case custom(name: String, payload: JSONValue?)
    /// A new contact (`contact_added`, both users): a friend request accepted, a connect code used, or the backend.
    case contactAdded(UserRef)
    /// A contact ended (`contact_removed`, both users): removed by either side, blocked, or by the backend.
    case contactRemoved(userId: String)
    /// Either side paused the contact (`contact_paused`); `paused` is the state afterwards.
    case contactPaused(ContactPauseEventData)
    /// Either side resumed its pause (`contact_resumed`); still `paused` while the other side's pause stands.
    case contactResumed(ContactPauseEventData)
    /// An app-defined event from a contact (`contact_event`).
    case contactEvent(ContactEventData)
    /// This user blocked someone (`user_blocked`, the blocker's devices only).
    case userBlocked(BlockData)
    /// This user lifted a block (`user_unblocked`, the blocker's devices only).
    case userUnblocked(BlockData)
    /// A group this user created (`group_created`).
    case groupCreated(GroupData)
    /// Someone joined a group of this user, this user included (`group_member_joined`).
    case groupMemberJoined(GroupMembershipEventData)
    /// Someone left or was removed from a group of this user (`group_member_left`).
    case groupMemberLeft(GroupMembershipEventData)
    /// A message to a group of this user, the sender's own devices included (`group_message`).
    case groupMessage(GroupMessageData)
    /// An app-defined event in a group (`group_event`; `from` is nil when the backend published it).
    case groupEvent(GroupEventData)
    /// An invite this user created (`invite_created`).
    case inviteCreated(InviteData)
    /// An event type this version of the client does not know (a newer server), or one whose data did not have the
    /// documented shape: its wire `type` and `data`, so nothing is dropped. Every type in docs/PROTOCOL.md has its
    /// own case (``ClientEventKind``).
    case other(type: String, data: JSONValue)
}

/// The state of the client's connection, reported as ``ClientEvent/connection(_:)``.
public enum ConnectionState: Sendable, Equatable {
    /// Getting a token and opening the socket.
    case connecting
    /// Authenticated: the server's `welcome`. Queued commands are being sent.
    case connected(userId: String, deviceId: String, latestOffset: Int64)
    /// The connection ended; the client reconnects after `retryIn` seconds.
    case waitingToReconnect(retryIn: Double, reason: TransportError)
    /// The client gave up (a refusal, repeated token rejection, or ``SwitchboardClient/disconnect()``).
    case stopped(ClientError)
}

extension ApprovalData {
    /// Seconds left until `expiresAt`, never negative: what an approval card's countdown shows.
    public func remainingSeconds(nowMilliseconds: Int64) -> Double {
        max(0, Double(expiresAt - nowMilliseconds) / 1000)
    }

    /// True once the deadline has passed (the server will send `approval_timeout`).
    public func isExpired(nowMilliseconds: Int64) -> Bool { nowMilliseconds >= expiresAt }
}
