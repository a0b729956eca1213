import Base64

/// Where and how to deliver push events to a customer's webhook.
public struct WebhookConfiguration: Sendable {
    /// The endpoint receiving `POST`s (http or https).
    public var url: String
    /// The HMAC key decoded from the `whsec_<base64>` secret.
    let key: [UInt8]
    /// PEM CA bundle replacing the system trust store (tests).
    public var caFile: String?
    /// Per-request timeout, connection set-up included.
    public var timeoutMilliseconds: Int

    /// - Parameter secret: a Standard Webhooks secret, `"whsec_"` + base64 of 24–64 random bytes.
    /// - Throws: ``PushError`` when the secret lacks the prefix, is not canonical padded base64 (what the Standard
    ///   Webhooks libraries generate and decode; anything else could reach the receiver as other key bytes), or
    ///   decodes to fewer than 16 bytes (too weak to sign with).
    public init(url: String, secret: String, caFile: String? = nil, timeoutMilliseconds: Int = 15_000) throws(PushError) {
        guard secret.hasPrefix("whsec_"), let key = Base64.decode(String(secret.dropFirst(6))) else {
            throw PushError("the webhook secret must be \"whsec_\" followed by padded base64 (RFC 4648 §4)")
        }
        guard key.count >= 16 else { throw PushError("the webhook secret is shorter than 16 bytes") }
        self.url = url
        self.key = key
        self.caFile = caFile
        self.timeoutMilliseconds = timeoutMilliseconds
    }
}
