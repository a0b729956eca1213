import JSON

/// Sends messages through the FCM HTTP v1 API with a cached OAuth 2 access token.
///
/// Thread-safe; completions run on the dispatcher thread. A `401` (token revoked or expired early)
/// drops the cached token and the message is sent once more with a fresh one.
public final class FCMClient: Sendable {
    /// The configuration the client was built with.
    public let configuration: FCMConfiguration
    private let dispatcher: PushDispatcher
    private let tokens: FCMAccessTokenSource
    private let now: @Sendable () -> Int64

    /// - Parameter now: Unix seconds, for the assertion's `iat`/`exp` and token expiry (tests inject it).
    /// - Throws: ``PushError`` when the service account's private key does not load.
    public init(configuration: FCMConfiguration, dispatcher: PushDispatcher,
                now: @escaping @Sendable () -> Int64 = PushClock.unixSeconds) throws(PushError) {
        self.configuration = configuration
        self.dispatcher = dispatcher
        self.now = now
        tokens = try FCMAccessTokenSource(configuration: configuration, dispatcher: dispatcher, now: now)
    }

    /// Access-token requests made so far (for metrics and tests).
    public var tokenRequestCount: Int { tokens.fetchCount }

    /// Sends `message`; `completion` runs exactly once.
    public func send(_ message: FCMMessage, completion: @escaping @Sendable (PushOutcome) -> Void) {
        let body: [UInt8]
        do {
            body = try message.body()
        } catch {
            return completion(.rejected(status: 0, reason: error.message))
        }
        send(body, mayRefresh: true, completion: completion)
    }

    private func send(_ body: [UInt8], mayRefresh: Bool, completion: @escaping @Sendable (PushOutcome) -> Void) {
        tokens.withToken { [self] result in
            guard case .token(let token) = result else {
                if case .failure(let outcome) = result { completion(outcome) }
                return
            }
            let request = PushHTTPRequest(url: configuration.sendURL,
                                          headers: [("authorization", "Bearer " + token),
                                                    ("content-type", "application/json; charset=utf-8")],
                                          body: body, timeoutMilliseconds: configuration.timeoutMilliseconds,
                                          caFile: configuration.caFile)
            dispatcher.submit(request) { [self] result in
                let outcome = Self.classify(result, nowSeconds: now())
                if mayRefresh, case .rejected(401, _) = outcome {
                    tokens.invalidate(token)
                    return send(body, mayRefresh: false, completion: completion)
                }
                completion(outcome)
            }
        }
    }

    /// Maps an FCM v1 answer to an outcome (FCM's `ErrorCode` reference): `UNREGISTERED`,
    /// `SENDER_ID_MISMATCH` and an `INVALID_ARGUMENT` about the registration token mean the token
    /// is dead; 429 and 5xx are retried (honouring `Retry-After`); other errors are rejected.
    static func classify(_ result: PushTransportResult, nowSeconds: Int64) -> PushOutcome {
        let response: PushHTTPResponse
        switch result {
        case .failure(let message): return .retry(after: nil, reason: message)
        case .invalidRequest(let message): return .rejected(status: 0, reason: message)
        case .response(let answer): response = answer
        }
        if response.status == 200 {
            return .delivered(id: response.json?[member: "name"]?.stringValue)
        }
        let error = response.json?[member: "error"]
        let status = error?[member: "status"]?.stringValue
        let message = error?[member: "message"]?.stringValue ?? ""
        var errorCode: String? = nil
        if case .array(let details)? = error?[member: "details"] {
            errorCode = details.lazy.compactMap { $0[member: "errorCode"]?.stringValue }.first
        }
        let reason = errorCode ?? status ?? "HTTP \(response.status)"
        switch (response.status, reason) {
        case (_, "UNREGISTERED"), (404, _), (_, "SENDER_ID_MISMATCH"):
            return .invalidToken(reason: reason)
        case (400, "INVALID_ARGUMENT") where message.lowercased().contains("registration token"):
            return .invalidToken(reason: reason)
        case (429, _), (500...599, _):
            return .retry(after: RetryAfter.milliseconds(response.header("retry-after"), nowSeconds: nowSeconds),
                          reason: reason)
        default:
            return .rejected(status: response.status, reason: reason)
        }
    }
}
