import Gateway
import Glibc
import JSON
import Metrics
import Push
import Server

/// The push transport over the real providers: renders a provider-neutral `PushNotice` for APNs, FCM or the webhook
/// (applying lock-screen privacy), sends it through the `Push` adapters (libcurl HTTP/2 on their own thread) and maps
/// the provider's answer to an outbox outcome. A provider that is not configured rejects its jobs (dead letters with
/// the reason), so misconfiguration is visible in `/metrics` and never silent.
public final class ProviderPushTransport: PushTransport, Sendable {
    public struct Settings: Sendable {
        public var apnsTeamID = "", apnsKeyID = "", apnsKeyFile = "", apnsBundleID = ""
        /// Overrides the APNs base URL (tests and staging); empty = Apple's, chosen per token environment.
        public var apnsEndpoint = ""
        public var caFile = ""
        public var liveActivityAttributesType = "SwitchboardActivityAttributes"
        public var fcmServiceAccountFile = "", fcmEndpoint = "", fcmTokenURI = ""
        public var webhookURL = "", webhookSecret = ""
        /// Deep links are `<scheme>://<path>`.
        public var deepLinkScheme = "switchboard"
        public var maxInFlight = 64
        public init() {}
    }

    private let dispatcher: PushDispatcher
    private let apnsProduction: APNsClient?
    private let apnsSandbox: APNsClient?
    private let fcm: FCMClient?
    private let webhook: WebhookPushClient?
    private let settings: Settings

    public init(settings: Settings) throws {
        self.settings = settings
        let dispatcher = try PushDispatcher(maxInFlight: settings.maxInFlight)
        self.dispatcher = dispatcher
        let ca = settings.caFile.isEmpty ? nil : settings.caFile
        if !settings.apnsKeyFile.isEmpty {
            guard let pem = GatewayRuntime.readFile(settings.apnsKeyFile) else {
                throw ServerError.configuration("push.apns_key_file: cannot read \(settings.apnsKeyFile)")
            }
            let endpoint = settings.apnsEndpoint.isEmpty ? nil : settings.apnsEndpoint
            func client(_ environment: APNsConfiguration.Environment) throws -> APNsClient {
                let configuration = APNsConfiguration(teamID: settings.apnsTeamID, keyID: settings.apnsKeyID, privateKeyPEM: pem,
                                                      bundleID: settings.apnsBundleID, environment: environment, endpoint: endpoint, caFile: ca)
                do { return try APNsClient(configuration: configuration, dispatcher: dispatcher) } catch {
                    throw ServerError.configuration("push.apns_key_file: \(error)")
                }
            }
            apnsProduction = try client(.production)
            apnsSandbox = try client(.sandbox)
        } else {
            apnsProduction = nil
            apnsSandbox = nil
        }
        if !settings.fcmServiceAccountFile.isEmpty {
            guard let json = GatewayRuntime.readFile(settings.fcmServiceAccountFile) else {
                throw ServerError.configuration("push.fcm_service_account_file: cannot read \(settings.fcmServiceAccountFile)")
            }
            do {
                let configuration = try FCMConfiguration(serviceAccountJSON: Array(json.utf8),
                                                         tokenURI: settings.fcmTokenURI.isEmpty ? nil : settings.fcmTokenURI,
                                                         sendEndpoint: settings.fcmEndpoint.isEmpty ? nil : settings.fcmEndpoint, caFile: ca)
                fcm = try FCMClient(configuration: configuration, dispatcher: dispatcher)
            } catch {
                throw ServerError.configuration("push.fcm_service_account_file: \(error)")
            }
        } else {
            fcm = nil
        }
        if !settings.webhookURL.isEmpty {
            do {
                webhook = WebhookPushClient(configuration: try WebhookConfiguration(url: settings.webhookURL, secret: settings.webhookSecret, caFile: ca),
                                            dispatcher: dispatcher)
            } catch {
                throw ServerError.configuration("push.webhook_url: \(error)")
            }
        } else {
            webhook = nil
        }
    }

    public func shutdown() { dispatcher.shutdown() }

    /// Prometheus text: the providers' HTTP request latency (all providers share one HTTP/2 dispatcher).
    public func metricsText() -> String {
        var out = PrometheusText()
        out.histogram("switchboard_push_request_seconds",
                      "HTTP requests to push providers (APNs, FCM, webhook, OAuth), from started to answered, whatever the answer.",
                      dispatcher.requestSeconds)
        return out.text
    }

    public func send(_ notice: PushNotice, to target: PushTarget, deliveryID: String,
                     completion: @escaping @Sendable (PushDeliveryOutcome) -> Void) {
        let finish: @Sendable (PushOutcome) -> Void = { completion(Self.map($0)) }
        switch target.provider {
        case "apns":
            let client = target.environment == "sandbox" ? apnsSandbox : apnsProduction
            guard let client else { return completion(.rejected(reason: "APNs is not configured (push.apns_key_file)")) }
            client.send(apnsNotification(notice, target), completion: finish)
        case "fcm":
            guard let fcm else { return completion(.rejected(reason: "FCM is not configured (push.fcm_service_account_file)")) }
            fcm.send(fcmMessage(notice, target), completion: finish)
        case "webhook":
            guard let webhook else { return completion(.rejected(reason: "the push webhook is not configured (push.webhook_url)")) }
            webhook.send(body: webhookBody(notice, target), messageID: deliveryID, completion: finish)
        default:
            completion(.rejected(reason: "unknown provider \(target.provider)"))
        }
    }

    static func map(_ outcome: PushOutcome) -> PushDeliveryOutcome {
        switch outcome {
        case .delivered: return .delivered
        case .retry(let after, let reason): return .retry(afterMs: after, reason: reason)
        case .invalidToken(let reason): return .invalidToken(reason: reason)
        case .rejected(let status, let reason): return .rejected(reason: "\(status) \(reason)")
        }
    }

    // MARK: Rendering (PushRenderer applies the privacy rule and the size limits to every provider)

    /// The provider-neutral content of `notice`, with the deep link under the app's scheme.
    func content(_ notice: PushNotice) -> PushContent {
        PushContent(type: notice.type, title: notice.title, body: notice.body, genericTitle: notice.genericTitle,
                    showDetails: notice.showDetails, titleArguments: notice.titleArguments,
                    interruption: notice.timeSensitive ? .timeSensitive : nil,
                    routing: PushRouting(type: notice.type, ids: notice.ids,
                                         deeplinkTemplate: notice.deepLinkPath.map { "\(settings.deepLinkScheme)://\($0)" }),
                    collapseID: notice.collapseID, threadID: notice.ids["sessionId"], badge: notice.badge,
                    contentState: notice.contentState)
    }

    func apnsNotification(_ notice: PushNotice, _ target: PushTarget) -> APNsNotification {
        let kind: PushRenderer.APNsKind
        let type: APNsNotification.PushType
        switch target.kind {
        case "background": (kind, type) = (.background, .background)
        case "liveActivityUpdate": (kind, type) = (.liveActivityUpdate(alert: notice.type == "approval_request"), .liveActivity)
        case "liveActivityEnd": (kind, type) = (.liveActivityEnd, .liveActivity)
        case "liveActivityStart": (kind, type) = (.liveActivityStart(attributesType: settings.liveActivityAttributesType), .liveActivity)
        default: (kind, type) = (.alert, .alert)
        }
        return APNsNotification(deviceToken: target.token, pushType: type,
                                payload: PushRenderer.apns(content(notice), kind, now: Int64(time(nil))),
                                expiration: notice.expiresAt.map { $0 / 1000 }, collapseID: notice.collapseID)
    }

    func fcmMessage(_ notice: PushNotice, _ target: PushTarget) -> FCMMessage {
        PushRenderer.fcm(content(notice), token: target.token, background: target.kind == "background")
    }

    func webhookBody(_ notice: PushNotice, _ target: PushTarget) -> [UInt8] {
        PushRenderer.webhook(content(notice), target: target.token, kind: target.kind)
    }
}
