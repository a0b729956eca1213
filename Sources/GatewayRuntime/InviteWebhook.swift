import Gateway
import GatewayProtocol
import Logging

/// Hands invite texts to the app's SMS/e-mail service: POSTs each `InviteDelivery` as
/// `{"type":"invite","delivery":{channel,to,text,code,groupId,groupName,inviterId,inviterName,expiresAt}}` to the
/// configured URL through a ``WebhookPoster`` (libcurl, never the hub loop, never the request path): http or https,
/// three attempts with backoff, then logged and dropped — the invite itself is stored and the inviter has the code.
final class InviteWebhook: InviteDeliverer, Sendable {
    private let poster: WebhookPoster

    /// nil when `url` is not an `http://` or `https://` URL.
    init?(url: String, logger: Logger) {
        guard let poster = WebhookPoster(url: url, label: "switchboard.invite-webhook", logger: logger) else { return nil }
        self.poster = poster
    }

    private struct Body: Encodable {
        var type = "invite"
        var delivery: InviteDelivery
    }

    func deliver(_ delivery: InviteDelivery) {
        poster.post(ServerFrames.encode(Body(delivery: delivery)), what: "group \(delivery.groupId)")
    }
}
