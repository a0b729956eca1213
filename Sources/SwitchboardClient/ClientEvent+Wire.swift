extension ClientEvent {
    /// Maps a wire event (`type` and `data`, docs/PROTOCOL.md "Events") to its case; unknown or malformed ones
    /// become ``ClientEvent/other(type:data:)`` so nothing is dropped.
    init(type: String, data: JSONValue) {
        let typed: ClientEvent?
        switch type {
        case "message": typed = data.decoded().map(ClientEvent.message)
        case "presence": typed = data.decoded().map(ClientEvent.presence)
        case "approval_request": typed = data.decoded().map(ClientEvent.approvalRequest)
        case "approval_resolved": typed = data.decoded().map(ClientEvent.approvalResolved)
        case "approval_timeout": typed = data.decoded().map(ClientEvent.approvalTimeout)
        case "session_handoff": typed = data.decoded().map(ClientEvent.sessionHandoff)
        case "session_created": typed = data.decoded().map(ClientEvent.sessionCreated)
        case "session_ended": typed = data.decoded().map(ClientEvent.sessionEnded)
        case "session_event":
            typed = data["sessionId"]?.stringValue.flatMap { sessionId in
                data["kind"]?.stringValue.map { ClientEvent.sessionEvent(sessionId: sessionId, kind: $0, payload: data["payload"]) }
            }
        case "friend_request", "friend_request_accepted", "friend_request_rejected", "friend_request_cancelled":
            typed = data.decoded().map(ClientEvent.friendRequest)
        case "connect_code_changed": typed = data.decoded().map(ClientEvent.connectCodeChanged)
        case "custom": typed = data["name"]?.stringValue.map { ClientEvent.custom(name: $0, payload: data["payload"]) }
        default: typed = nil
        }
        self = typed ?? .other(type: type, data: data)
    }
}
