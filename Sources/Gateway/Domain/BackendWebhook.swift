import GatewayProtocol
import JSON

/// Which events go to the app's backend as signed webhooks (docs/PROTOCOL.md, "Backend webhooks"). Each is written to
/// the push outbox in the same transaction as the event it announces, so it is sent at least once, survives restarts
/// and is retried past a backend outage like a push.
public struct BackendWebhookSettings: Sendable, Equatable {
    /// Finished approvals (`approval_approved`, `approval_denied`, `approval_timed_out`): `gateway.approval_webhook_url`.
    public var approvals = false
    /// Invites to a phone number or e-mail address: `relationships.invite_webhook_url`.
    public var invites = false
    /// `user_online` / `user_offline` after the presence grace: `gateway.presence_webhook`.
    public var presence = false
    /// Invite deep links are `<scheme>://invite/<code>` (`push.deep_link_scheme`).
    public var deepLinkScheme = "switchboard"
    public init() {}
}

/// Where a backend webhook goes: each endpoint has its own URL in the configuration (presence events go to the
/// approval URL, the backend's own).
public enum BackendWebhookEndpoint: String, Sendable, CaseIterable {
    case approval
    case invite
    case presence
}

/// A user's devices came or went (`gateway.presence_webhook`): sent once the presence machine decided, after the
/// grace period, never per socket.
public enum PresenceWebhookEvent: String, Sendable {
    case online = "user_online"
    case offline = "user_offline"

    /// The event a presence change announces, if any, and whether this node has announced the user online since.
    /// Every node of a cluster steps the same presence, so one announces: `user_online` comes from a node holding one
    /// of the user's devices when the user came online, and `user_offline` from the node that announced it.
    static func decide(from old: PresenceMachine.Status, to new: PresenceMachine.Status, localDevices: Int,
                       announced: Bool) -> (event: PresenceWebhookEvent?, announced: Bool) {
        switch (old, new) {
        case (.offline, .online), (.offline, .away):
            return localDevices > 0 ? (.online, true) : (nil, false)
        case (.online, .offline), (.away, .offline):
            return announced ? (.offline, false) : (nil, false)
        default:
            return (nil, announced)
        }
    }
}

/// Backend webhook jobs: rows of the push outbox with provider `backend`, no device, and the whole JSON body in
/// `notice.payload`, decided when the event is committed (every retry posts the same content).
enum BackendWebhook {
    static let provider = PushTarget.backendProvider

    /// `{"type":"approval_<state>","userId":…,"approval":{…}}` for a finished approval.
    static func approval(_ approval: ApprovalRecord, now: Int64) -> PushJobRecord {
        let type = "approval_" + approval.state.rawValue
        return job(.approval, type: type, userId: approval.userId, now: now, body: .object([
            "type": .string(type), "userId": .string(approval.userId), "approval": GatewayHub.approvalData(approval).jsonValue,
        ]))
    }

    /// `{"type":"invite","delivery":{…}}`: the fields, not a finished sentence, so the receiving service's template
    /// decides the words and the language.
    static func invite(_ invite: InviteRecord, recipient: String, groupName: String, inviter: UserRef,
                       deepLinkScheme: String, now: Int64) -> PushJobRecord {
        let channel = recipient.contains("@") ? "email" : "sms"
        let delivery: [String: JSONValue] = [
            "channel": .string(channel), "to": .string(recipient), "code": .string(invite.code),
            "groupId": .string(invite.groupId), "groupName": .string(groupName), "role": .string(invite.role),
            "inviterId": .string(inviter.userId), "inviterName": .string(inviter.name),
            "expiresAt": .int(invite.expiresAt), "deepLink": .string("\(deepLinkScheme)://invite/\(invite.code)"),
        ]
        return job(.invite, type: "invite", userId: invite.inviterId, now: now,
                   body: .object(["type": .string("invite"), "delivery": .object(delivery)]))
    }

    /// `{"type":"user_online"|"user_offline","userId":…,"devices":n,"at":ms}`.
    static func presence(_ event: PresenceWebhookEvent, userId: String, devices: Int, now: Int64) -> PushJobRecord {
        job(.presence, type: event.rawValue, userId: userId, now: now, body: .object([
            "type": .string(event.rawValue), "userId": .string(userId), "devices": .int(Int64(devices)), "at": .int(now),
        ]))
    }

    private static func job(_ endpoint: BackendWebhookEndpoint, type: String, userId: String, now: Int64,
                            body: JSONValue) -> PushJobRecord {
        PushJobRecord(id: 0, userId: userId, deviceId: "", target: PushTarget(provider: provider, token: "", kind: endpoint.rawValue),
                      notice: PushNotice(type: type, genericTitle: "", payload: body), nextAttemptAt: now, createdAt: now)
    }
}

extension PushTarget {
    /// The provider of backend webhook jobs.
    public static let backendProvider = "backend"
}
