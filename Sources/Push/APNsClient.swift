import JSON

/// Sends notifications to APNs over HTTP/2 (one multiplexed connection per host through the
/// shared ``PushDispatcher``) and classifies the answers.
///
/// Thread-safe: `send` may be called from any thread. Completions run on the dispatcher thread and
/// must hop back to the caller's loop. On `403 ExpiredProviderToken` the provider token is replaced
/// and the request sent once more; a second rejection is reported as a retry.
public final class APNsClient: Sendable {
    /// The configuration the client was built with.
    public let configuration: APNsConfiguration
    private let dispatcher: PushDispatcher
    private let providerToken: APNsProviderToken
    private let now: @Sendable () -> Int64

    /// - Parameters:
    ///   - now: Unix seconds, for the token's `iat`, its 20-minute refresh and HTTP-date
    ///     `Retry-After`s (injected by tests).
    /// - Throws: ``PushError`` when the `.p8` key does not load.
    public init(configuration: APNsConfiguration, dispatcher: PushDispatcher,
                now: @escaping @Sendable () -> Int64 = PushClock.unixSeconds) throws(PushError) {
        self.configuration = configuration
        self.dispatcher = dispatcher
        self.now = now
        providerToken = try APNsProviderToken(privateKeyPEM: configuration.privateKeyPEM,
                                              keyID: configuration.keyID, teamID: configuration.teamID)
    }

    /// Sends `notification`; `completion` runs exactly once, on the dispatcher thread (or at once
    /// on the caller's thread for a malformed device token, which is never sent).
    public func send(_ notification: APNsNotification, completion: @escaping @Sendable (PushOutcome) -> Void) {
        guard Self.isPlausibleToken(notification.deviceToken) else {
            return completion(.invalidToken(reason: "BadDeviceToken"))
        }
        let token: String
        do {
            token = try providerToken.current(now: now())
        } catch {
            return completion(.rejected(status: 0, reason: error.message))
        }
        send(notification, token: token, mayRefresh: true, completion: completion)
    }

    private func send(_ notification: APNsNotification, token: String, mayRefresh: Bool,
                      completion: @escaping @Sendable (PushOutcome) -> Void) {
        dispatcher.submit(request(for: notification, providerToken: token)) { [self] result in
            let outcome = Self.classify(result, nowSeconds: now())
            guard case .rejected(403, "ExpiredProviderToken") = outcome else { return completion(outcome) }
            // Refreshed once already: likely clock skew; let the outbox try later.
            guard mayRefresh else { return completion(.retry(after: nil, reason: "ExpiredProviderToken")) }
            do {
                let fresh = try providerToken.refresh(rejected: token, now: now())
                send(notification, token: fresh, mayRefresh: false, completion: completion)
            } catch {
                completion(.rejected(status: 0, reason: "\(error)"))
            }
        }
    }

    /// The HTTP/2 request for `notification` (RFC 7540 pseudo-header `:path` = `/3/device/<token>`).
    func request(for notification: APNsNotification, providerToken: String) -> PushHTTPRequest {
        var headers: [(name: String, value: String)] = [
            ("authorization", "bearer " + providerToken),
            ("apns-push-type", notification.pushType.rawValue),
            ("apns-topic", notification.topic(bundleID: configuration.bundleID)),
            ("apns-priority", String(notification.priority)),
            ("content-type", "application/json"),
        ]
        if let expiration = notification.expiration { headers.append(("apns-expiration", String(expiration))) }
        if let collapseID = notification.collapseID { headers.append(("apns-collapse-id", collapseID)) }
        return PushHTTPRequest(url: configuration.baseURL + "/3/device/" + notification.deviceToken,
                               headers: headers, body: notification.payload,
                               timeoutMilliseconds: configuration.timeoutMilliseconds, caFile: configuration.caFile)
    }

    /// APNs device and Live Activity tokens are hex strings; anything else would change the path.
    static func isPlausibleToken(_ token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= 512 && token.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
    }

    /// Reasons that mean the token will never work again (APNs "Handling notification responses").
    static let deadTokenReasons: Set<String> = ["BadDeviceToken", "Unregistered", "DeviceTokenNotForTopic", "ExpiredToken"]

    /// Maps an APNs answer to an outcome. `403 ExpiredProviderToken` comes back as
    /// `.rejected(403, "ExpiredProviderToken")`; ``send(_:completion:)`` turns it into a refresh.
    static func classify(_ result: PushTransportResult, nowSeconds: Int64) -> PushOutcome {
        let response: PushHTTPResponse
        switch result {
        case .failure(let message): return .retry(after: nil, reason: message)
        case .invalidRequest(let message): return .rejected(status: 0, reason: message)
        case .response(let answer): response = answer
        }
        let reason = response.json?[member: "reason"]?.stringValue ?? "HTTP \(response.status)"
        switch response.status {
        case 200:
            return .delivered(id: response.header("apns-id"))
        case 410:
            return .invalidToken(reason: response.json?[member: "reason"]?.stringValue ?? "Unregistered")
        case 400 where deadTokenReasons.contains(reason):
            return .invalidToken(reason: reason)
        case 429, 500...599:
            return .retry(after: RetryAfter.milliseconds(response.header("retry-after"), nowSeconds: nowSeconds),
                          reason: reason)
        default:
            return .rejected(status: response.status, reason: reason)
        }
    }
}
