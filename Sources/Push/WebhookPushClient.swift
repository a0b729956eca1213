import Base64
import COpenSSL

/// POSTs JSON to a webhook signed per Standard Webhooks: headers `webhook-id`,
/// `webhook-timestamp` (Unix seconds) and `webhook-signature: v1,<base64 HMAC-SHA256(key,
/// "{id}.{timestamp}.{body}")>`.
///
/// Thread-safe; completions run on the dispatcher thread. Outcomes: 2xx delivered (id = the
/// `webhook-id`), 410 invalidToken (the endpoint is gone), 408/429/5xx and transport errors retry,
/// anything else (3xx included: redirects are not followed) rejected.
public final class WebhookPushClient: Sendable {
    /// The configuration the client was built with.
    public let configuration: WebhookConfiguration
    private let dispatcher: PushDispatcher
    private let now: @Sendable () -> Int64

    public init(configuration: WebhookConfiguration, dispatcher: PushDispatcher,
                now: @escaping @Sendable () -> Int64 = PushClock.unixSeconds) {
        self.configuration = configuration
        self.dispatcher = dispatcher
        self.now = now
    }

    /// Sends `body` (JSON). `messageID` must stay the same across retries of one push (and differ between pushes) so the
    /// receiver can deduplicate (use the outbox entry's id).
    public func send(body: [UInt8], messageID: String, completion: @escaping @Sendable (PushOutcome) -> Void) {
        let timestamp = now()
        let headers: [(name: String, value: String)] = [
            ("content-type", "application/json"),
            ("webhook-id", messageID),
            ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", Self.signature(key: configuration.key, id: messageID, timestamp: timestamp, body: body)),
        ]
        let request = PushHTTPRequest(url: configuration.url, headers: headers, body: body,
                                      timeoutMilliseconds: configuration.timeoutMilliseconds, caFile: configuration.caFile)
        dispatcher.submit(request) { [now] result in
            completion(Self.classify(result, messageID: messageID, nowSeconds: now()))
        }
    }

    /// The `webhook-signature` value: `v1,` + base64 HMAC-SHA256 over `{id}.{timestamp}.{body}`.
    public static func signature(key: [UInt8], id: String, timestamp: Int64, body: [UInt8]) -> String {
        let message = Array("\(id).\(timestamp).".utf8) + body
        var tag = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        key.withUnsafeBufferPointer { keyBuffer in
            message.withUnsafeBufferPointer { messageBuffer in
                tag.withUnsafeMutableBufferPointer { tagBuffer in
                    _ = HMAC(EVP_sha256(), keyBuffer.baseAddress, Int32(keyBuffer.count),
                             messageBuffer.baseAddress, messageBuffer.count, tagBuffer.baseAddress, &length)
                }
            }
        }
        return "v1," + Base64.encode(Array(tag.prefix(Int(length))))
    }

    static func classify(_ result: PushTransportResult, messageID: String, nowSeconds: Int64) -> PushOutcome {
        let response: PushHTTPResponse
        switch result {
        case .failure(let message): return .retry(after: nil, reason: message)
        case .invalidRequest(let message): return .rejected(status: 0, reason: message)
        case .response(let answer): response = answer
        }
        switch response.status {
        case 200...299:
            return .delivered(id: messageID)
        case 410:
            return .invalidToken(reason: "HTTP 410")
        case 408, 429, 500...599:
            return .retry(after: RetryAfter.milliseconds(response.header("retry-after"), nowSeconds: nowSeconds),
                          reason: "HTTP \(response.status)")
        default:
            return .rejected(status: response.status, reason: "HTTP \(response.status)")
        }
    }
}
