import JSON
import Synchronization

/// OAuth 2 access tokens for FCM from a service account (RFC 7523 JWT bearer grant): an RS256
/// assertion `{iss, scope, aud: token_uri, iat, exp}` POSTed to `token_uri`, the answer's
/// `access_token` cached until 5 minutes before its `expires_in` runs out.
///
/// Thread-safe. Concurrent callers during a fetch wait for that one fetch (never a stampede of
/// token requests). Callbacks run on the dispatcher thread, or at once on the caller's thread when
/// a cached token is valid.
final class FCMAccessTokenSource: Sendable {
    /// A token is replaced this long before it expires, so none expires in flight.
    static let refreshMarginSeconds: Int64 = 300
    /// Lifetime asked for in the assertion (Google's maximum).
    static let assertionLifetimeSeconds: Int64 = 3600

    enum Result: Sendable {
        case token(String)
        /// The token endpoint failed; the send is reported with this outcome.
        case failure(PushOutcome)
    }

    private struct State {
        var token: String?
        var validUntil: Int64 = 0
        var fetching = false
        var waiters: [@Sendable (Result) -> Void] = []
    }

    private let configuration: FCMConfiguration
    private let signer: RS256Signer
    private let dispatcher: PushDispatcher
    private let now: @Sendable () -> Int64
    private let state = Mutex(State())
    private let fetches = Atomic<Int>(0)

    init(configuration: FCMConfiguration, dispatcher: PushDispatcher, now: @escaping @Sendable () -> Int64) throws(PushError) {
        self.configuration = configuration
        signer = try RS256Signer(privateKeyPEM: configuration.privateKeyPEM)
        self.dispatcher = dispatcher
        self.now = now
    }

    /// Token requests sent so far.
    var fetchCount: Int { fetches.load(ordering: .relaxed) }

    /// Calls `body` with a valid token, fetching one first when needed.
    func withToken(_ body: @escaping @Sendable (Result) -> Void) {
        let current = now()
        let (cached, startFetch) = state.withLock { state -> (String?, Bool) in
            if let token = state.token, current < state.validUntil { return (token, false) }
            state.waiters.append(body)
            defer { state.fetching = true }
            return (nil, !state.fetching)
        }
        if let cached { return body(.token(cached)) }
        if startFetch { fetch(at: current) }
    }

    /// Forgets `token` after FCM refused it (401), unless a newer one already replaced it.
    func invalidate(_ token: String) {
        state.withLock { state in
            if state.token == token { state.token = nil }
        }
    }

    private func fetch(at issuedAt: Int64) {
        let assertion: String
        do {
            assertion = try signer.token(claims: [
                "iss": .string(configuration.clientEmail), "scope": .string(FCMConfiguration.scope),
                "aud": .string(configuration.tokenURI), "iat": .int(issuedAt),
                "exp": .int(issuedAt + Self.assertionLifetimeSeconds),
            ], keyID: configuration.privateKeyID)
        } catch {
            return finish(.failure(.rejected(status: 0, reason: error.message)), token: nil, validUntil: 0)
        }
        // RFC 7523 §2.1; base64url and "." need no form encoding.
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion
        let request = PushHTTPRequest(url: configuration.tokenURI,
                                      headers: [("content-type", "application/x-www-form-urlencoded")],
                                      body: Array(form.utf8), timeoutMilliseconds: configuration.timeoutMilliseconds,
                                      caFile: configuration.caFile)
        fetches.add(1, ordering: .relaxed)
        dispatcher.submit(request) { [self] result in
            let received = now()
            switch result {
            case .failure(let message):
                finish(.failure(.retry(after: nil, reason: "token endpoint: \(message)")), token: nil, validUntil: 0)
            case .invalidRequest(let message):
                finish(.failure(.rejected(status: 0, reason: "token endpoint: \(message)")), token: nil, validUntil: 0)
            case .response(let response):
                guard response.status == 200, let json = response.json,
                      let token = json[member: "access_token"]?.stringValue, !token.isEmpty else {
                    finish(.failure(Self.classifyFailure(response, nowSeconds: received)), token: nil, validUntil: 0)
                    return
                }
                let lifetime = json[member: "expires_in"]?.int64Value ?? Self.assertionLifetimeSeconds
                finish(.token(token), token: token, validUntil: received + lifetime - Self.refreshMarginSeconds)
            }
        }
    }

    /// 429/5xx from the token endpoint are temporary; other errors (`invalid_grant`: a revoked key
    /// or a bad clock) need an operator, so messages are rejected with the OAuth error code.
    static func classifyFailure(_ response: PushHTTPResponse, nowSeconds: Int64) -> PushOutcome {
        let error = response.json?[member: "error"]?.stringValue ?? "HTTP \(response.status)"
        switch response.status {
        case 429, 500...599:
            return .retry(after: RetryAfter.milliseconds(response.header("retry-after"), nowSeconds: nowSeconds),
                          reason: "token endpoint: \(error)")
        default:
            return .rejected(status: response.status, reason: "token endpoint: \(error)")
        }
    }

    private func finish(_ result: Result, token: String?, validUntil: Int64) {
        let waiters = state.withLock { state -> [@Sendable (Result) -> Void] in
            state.fetching = false
            if let token {
                state.token = token
                state.validUntil = validUntil
            }
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter(result) }
    }
}
