extension ClientEvent {
    /// Maps a wire event (`type` and `data`, docs/PROTOCOL.md "Events") to its case; an unknown type or a malformed
    /// `data` becomes ``ClientEvent/other(type:data:)`` so nothing is dropped.
    init(type: String, data: JSONValue) {
        guard let kind = ClientEventKind(rawValue: type) else {
            self = .other(type: type, data: data)
            return
        }
        self = Self.typed(kind, data) ?? .other(type: type, data: data)
    }

    /// The typed case of a known kind; nil when `data` does not have the documented shape. The switch is exhaustive:
    /// a kind added to ``ClientEventKind`` without a case here does not compile.
    private static func typed(_ kind: ClientEventKind, _ data: JSONValue) -> ClientEvent? {
        switch kind {
        case .welcome:
            return data.decoded(as: WelcomeData.self).map {
                .connection(.connected(userId: $0.userId, deviceId: $0.deviceId, latestOffset: $0.latestOffset))
            }
        case .resume: return data.decoded().map(ClientEvent.resync)
        case .message: return data.decoded().map(ClientEvent.message)
        case .presence: return data.decoded().map(ClientEvent.presence)
        case .approvalRequest: return data.decoded().map(ClientEvent.approvalRequest)
        case .approvalResolved: return data.decoded().map(ClientEvent.approvalResolved)
        case .approvalTimeout: return data.decoded().map(ClientEvent.approvalTimeout)
        case .sessionHandoff: return data.decoded().map(ClientEvent.sessionHandoff)
        case .sessionCreated: return data.decoded().map(ClientEvent.sessionCreated)
        case .sessionEnded: return data.decoded().map(ClientEvent.sessionEnded)
        case .sessionEvent:
            guard let sessionId = data["sessionId"]?.stringValue, let kind = data["kind"]?.stringValue else { return nil }
            return .sessionEvent(sessionId: sessionId, kind: kind, payload: data["payload"])
        case .friendRequest, .friendRequestAccepted, .friendRequestRejected, .friendRequestCancelled:
            return data.decoded().map(ClientEvent.friendRequest)
        case .connectCodeChanged: return data.decoded().map(ClientEvent.connectCodeChanged)
        case .custom: return data["name"]?.stringValue.map { .custom(name: $0, payload: data["payload"]) }
        case .contactAdded: return data.decoded(as: WireUserRef.self).map { .contactAdded($0.userRef) }
        case .contactRemoved: return data["userId"]?.stringValue.map { .contactRemoved(userId: $0) }
        case .contactPaused: return data.decoded().map(ClientEvent.contactPaused)
        case .contactResumed: return data.decoded().map(ClientEvent.contactResumed)
        case .contactEvent: return data.decoded().map(ClientEvent.contactEvent)
        case .userBlocked: return data.decoded().map(ClientEvent.userBlocked)
        case .userUnblocked: return data.decoded().map(ClientEvent.userUnblocked)
        case .groupCreated: return data.decoded().map(ClientEvent.groupCreated)
        case .groupMemberJoined: return data.decoded().map(ClientEvent.groupMemberJoined)
        case .groupMemberLeft: return data.decoded().map(ClientEvent.groupMemberLeft)
        case .groupMessage: return data.decoded().map(ClientEvent.groupMessage)
        case .groupEvent: return data.decoded().map(ClientEvent.groupEvent)
        case .inviteCreated: return data.decoded().map(ClientEvent.inviteCreated)
        }
    }
}

/// A user ref as `contact_added` documents it (`{userId, hexCode, displayName?}`): `name` may be absent and is then
/// derived, as ``UserRef`` does.
struct WireUserRef: Decodable {
    var userId: String
    var hexCode: String
    var displayName: String?
    var userRef: UserRef { UserRef(userId: userId, hexCode: hexCode, displayName: displayName) }
}
