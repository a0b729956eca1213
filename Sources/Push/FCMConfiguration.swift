import JSON

/// FCM HTTP v1 settings taken from a Google service-account key file.
public struct FCMConfiguration: Sendable {
    /// The Firebase project: `{project}` in `/v1/projects/{project}/messages:send`.
    public var projectID: String
    /// The service account: the assertion's `iss`.
    public var clientEmail: String
    /// The account's RSA private key (PEM), signing the RS256 assertion.
    public var privateKeyPEM: String
    /// `private_key_id`, sent as the assertion's `kid` when present.
    public var privateKeyID: String?
    /// The OAuth 2 token endpoint (`token_uri`), also the assertion's `aud`.
    public var tokenURI: String
    /// Base URL of the send API, `https://fcm.googleapis.com` unless overridden (tests).
    public var sendEndpoint: String
    /// PEM CA bundle replacing the system trust store (tests).
    public var caFile: String?
    /// Per-request timeout, connection set-up included.
    public var timeoutMilliseconds: Int

    /// OAuth scope FCM's send API requires.
    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    /// Reads `project_id`, `client_email`, `private_key`, `private_key_id` and `token_uri` from the
    /// service-account JSON.
    /// - Parameters:
    ///   - tokenURI: replaces the file's `token_uri` (tests).
    ///   - sendEndpoint: replaces `https://fcm.googleapis.com` (tests).
    /// - Throws: ``PushError`` naming the missing or malformed member (never echoing the key).
    public init(serviceAccountJSON: [UInt8], tokenURI: String? = nil, sendEndpoint: String? = nil,
                caFile: String? = nil, timeoutMilliseconds: Int = 15_000) throws(PushError) {
        let document: JSONValue
        do {
            document = try JSONValue.parse(serviceAccountJSON)
        } catch {
            throw PushError("the service account file is not JSON")
        }
        func member(_ name: String) throws(PushError) -> String {
            guard let value = document[member: name]?.stringValue, !value.isEmpty else {
                throw PushError("the service account file has no \(name)")
            }
            return value
        }
        projectID = try member("project_id")
        clientEmail = try member("client_email")
        privateKeyPEM = try member("private_key")
        privateKeyID = document[member: "private_key_id"]?.stringValue
        if let tokenURI {
            self.tokenURI = tokenURI
        } else {
            self.tokenURI = try member("token_uri")
        }
        var endpoint = sendEndpoint ?? "https://fcm.googleapis.com"
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
        self.sendEndpoint = endpoint
        self.caFile = caFile
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// `{sendEndpoint}/v1/projects/{projectID}/messages:send`.
    public var sendURL: String {
        sendEndpoint + "/v1/projects/" + projectID + "/messages:send"
    }
}
