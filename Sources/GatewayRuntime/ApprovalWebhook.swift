import Gateway
import GatewayProtocol
import Logging

/// POSTs every finished approval (decided or timed out) to `gateway.approval_webhook_url` as
/// `{"type":"approval_<state>","userId":…,"approval":{…}}`. Best effort (three attempts): the backend can always read
/// the outcome with `GET /v1/approvals/{id}`.
final class ApprovalWebhook: ApprovalObserver, Sendable {
    private let poster: WebhookPoster

    /// nil when `url` is not an `http://` or `https://` URL.
    init?(url: String, logger: Logger) {
        guard let poster = WebhookPoster(url: url, label: "switchboard.approval-webhook", logger: logger) else { return nil }
        self.poster = poster
    }

    private struct Body: Encodable {
        var type: String
        var userId: String
        var approval: ApprovalData
    }

    func approvalFinished(_ approval: ApprovalRecord) {
        poster.post(Self.body(approval), what: approval.id)
    }

    /// The JSON posted for a finished approval (the type names the state by its wire string: `approval_timed_out`).
    static func body(_ approval: ApprovalRecord) -> [UInt8] {
        ServerFrames.encode(Body(type: "approval_" + approval.state.rawValue, userId: approval.userId,
                                 approval: GatewayHub.approvalData(approval)))
    }
}
