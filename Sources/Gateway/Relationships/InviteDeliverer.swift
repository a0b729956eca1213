import Synchronization

/// What an invite delivery hands to the outside world: who to reach and the fields a message is made of (the
/// receiver's template decides the words). The gateway never sends SMS or e-mail itself.
public struct InviteDelivery: Sendable, Equatable, Codable {
    /// `sms` or `email`.
    public var channel: String
    /// E.164 phone or lower-cased e-mail.
    public var to: String
    public var code: String
    public var groupId: String
    public var groupName: String
    public var inviterId: String
    public var inviterName: String
    public var expiresAt: Int64

    public init(channel: String, to: String, code: String, groupId: String, groupName: String,
                inviterId: String, inviterName: String, expiresAt: Int64) {
        self.channel = channel; self.to = to; self.code = code; self.groupId = groupId
        self.groupName = groupName; self.inviterId = inviterId; self.inviterName = inviterName; self.expiresAt = expiresAt
    }
}

/// Port: hands invite texts to a delivery service. Called on the hub thread after the invite is durable;
/// implementations must return at once and do their I/O elsewhere (never in the request path).
public protocol InviteDeliverer: AnyObject, Sendable {
    func deliver(_ delivery: InviteDelivery)
}

/// Records deliveries in memory (tests, and deployments without a webhook, where invites are shared by the app).
public final class RecordingInviteDeliverer: InviteDeliverer {
    private let recorded = Mutex<[InviteDelivery]>([])
    public init() {}
    public func deliver(_ delivery: InviteDelivery) { recorded.withLock { $0.append(delivery) } }
    /// Everything delivered so far, oldest first.
    public var deliveries: [InviteDelivery] { recorded.withLock { $0 } }
}
