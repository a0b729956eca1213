import Gateway
import JSON
import Push
import Server

/// The outbox's transport when backend webhooks are configured: jobs of provider `backend` (approvals, invites,
/// presence) are POSTed to their endpoint's URL through a `WebhookPushClient` — the same Standard Webhooks signing
/// and libcurl dispatcher as push webhooks, keyed with `gateway.webhook_secret`, `webhook-id` the job's id — and every
/// other job goes to the push transport. The outbox retries, dead-letters and claims both kinds alike.
final class BackendWebhookTransport: PushTransport, Sendable {
    private let clients: [BackendWebhookEndpoint: WebhookPushClient]
    private let dispatcher: PushDispatcher
    private let pushes: PushTransport?

    /// - Parameters:
    ///   - urls: each configured endpoint's URL (`http://` or `https://`).
    ///   - secret: `gateway.webhook_secret`, `whsec_` + base64.
    ///   - pushes: where push jobs go; nil refuses them (dead letters saying so).
    /// - Throws: `ServerError.configuration` naming `gateway.webhook_secret` when it is malformed (the URLs are
    ///   checked by the caller, `isHTTPURL`).
    init(urls: [BackendWebhookEndpoint: String], secret: String, caFile: String?, pushes: PushTransport?) throws {
        dispatcher = try PushDispatcher(maxInFlight: 8)
        var clients: [BackendWebhookEndpoint: WebhookPushClient] = [:]
        for (endpoint, url) in urls {
            do {
                clients[endpoint] = WebhookPushClient(configuration: try WebhookConfiguration(url: url, secret: secret, caFile: caFile),
                                                      dispatcher: dispatcher)
            } catch {
                throw ServerError.configuration("gateway.webhook_secret: \(error)")
            }
        }
        self.clients = clients
        self.pushes = pushes
    }

    deinit { dispatcher.shutdown() }

    /// The configuration key holding an endpoint's URL.
    static func key(of endpoint: BackendWebhookEndpoint) -> String {
        switch endpoint {
        case .approval, .presence: "gateway.approval_webhook_url"
        case .invite: "relationships.invite_webhook_url"
        }
    }

    /// An `http://` or `https://` URL with a host.
    static func isHTTPURL(_ url: String) -> Bool {
        guard let scheme = ["http://", "https://"].first(where: url.hasPrefix), let first = url.dropFirst(scheme.count).first else {
            return false
        }
        return first != "/"
    }

    func send(_ notice: PushNotice, to target: PushTarget, deliveryID: String, completion: @escaping @Sendable (PushDeliveryOutcome) -> Void) {
        guard target.provider == PushTarget.backendProvider else {
            guard let pushes else { return completion(.rejected(reason: "no push provider is configured")) }
            return pushes.send(notice, to: target, deliveryID: deliveryID, completion: completion)
        }
        guard let endpoint = BackendWebhookEndpoint(rawValue: target.kind), let client = clients[endpoint] else {
            return completion(.rejected(reason: "the \(target.kind) webhook is not configured"))
        }
        let body = (try? (notice.payload ?? .object([:])).serialized()) ?? []
        client.send(body: body, messageID: deliveryID) { outcome in
            switch outcome {
            // A backend's 410 means no more than any other refusal: there is no token to forget.
            case .invalidToken(let reason): completion(.rejected(reason: reason))
            default: completion(ProviderPushTransport.map(outcome))
            }
        }
    }
}

extension GatewayRuntime {
    /// Why `secret` cannot sign webhooks (not `whsec_` + canonical base64 of 16 bytes or more), nil when it can: what
    /// `check-config` reports for `gateway.webhook_secret` before `serve` would refuse it.
    public static func webhookSecretProblem(_ secret: String) -> String? {
        do {
            _ = try WebhookConfiguration(url: "https://check", secret: secret)
            return nil
        } catch {
            return "\(error)"
        }
    }
}
