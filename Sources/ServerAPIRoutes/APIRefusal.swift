import GatewayProtocol
import HTTP1

/// Why the server API (or the demo API) refuses a request: the HTTP status, the stable error code and the message of
/// its JSON error body, and the headers that go with it (`Allow` for a 405, `Retry-After` for a refusal that says
/// when to come back). A value, so routing and body decoding can be tested and fuzzed without a server.
public struct APIRefusal: Error, Sendable, Equatable {
    public var status: Int
    public var code: String
    public var message: String
    public var headers: HTTPHeaders

    public init(status: Int, code: String, message: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// A gateway error answered over HTTP: the status its code stands for (``status(of:)``), and `Retry-After` in
    /// whole seconds (rounded up) when the error carries a retry hint.
    public init(_ error: GatewayError) {
        let retry =
            error.retryAfterMs.map { HTTPHeaders([("Retry-After", String(($0 + 999) / 1000))]) } ?? HTTPHeaders()
        self.init(
            status: Self.status(of: error.code), code: error.code.rawValue, message: error.message, headers: retry)
    }

    /// The response that carries this refusal: `{"error":{"status":…,"code":…,"message":…}}`.
    public var response: HTTPResponse {
        .jsonError(status: status, code: code, message: message, extraHeaders: headers)
    }

    /// 405 naming the one method the resource takes.
    public static func methodNotAllowed(_ allowed: String) -> APIRefusal {
        APIRefusal(
            status: 405, code: "method_not_allowed", message: "use \(allowed)",
            headers: HTTPHeaders([("Allow", allowed)]))
    }

    /// The HTTP status of a gateway error code: 404 for what does not exist, 409 for a conflict with the current
    /// state, 410 for what is gone, 401/403 for who is asking, 429 for a limit, 503 for a node that cannot take it
    /// now, 400 for a malformed request.
    public static func status(of code: GatewayErrorCode) -> Int {
        switch code {
        case .notFound, .userNotFound, .sessionNotFound, .approvalNotFound, .requestNotFound, .groupNotFound,
            .inviteNotFound:
            404
        case .requestAlreadySent, .alreadyFriends, .alreadyMember, .requestAlreadyResolved, .inviteUsed, .groupFull,
            .contactPaused, .userBlocked:
            409
        case .inviteExpired, .inviteRevoked, .connectCodeExpired: 410
        case .notAMember: 403
        case .unauthenticated, .tokenInvalid, .tokenRevoked: 401
        case .forbidden: 403
        case .approvalAlreadyResolved, .approvalExpired, .sessionEnded, .idempotencyKeyReused: 409
        case .rateLimited: 429
        case .storageFailed, .overloaded: 503
        case .internalError: 500
        case .messageTooLarge: 413
        default: 400  // including invalid_id
        }
    }
}
