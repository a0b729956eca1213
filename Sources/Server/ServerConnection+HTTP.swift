import EventLoop
import HTTP1
import WebSocketCodec
import WebSocketDeflate

/// The HTTP phase: plain endpoints (`/healthz`, `/metrics`) and the WebSocket upgrade (RFC 6455 §4.2).
extension ServerConnection {
    func handle(_ request: HTTPRequest) {
        metrics.add(metrics.httpRequests)
        requestsServed += 1
        var request = request
        request.head.sourceAddress = sourceAddress(of: request.head)
        let head = request.head
        requestID = RequestID.forRequest(head.headers["X-Request-Id"])
        if WebSocketHandshake.isUpgradeAttempt(head) {
            upgrade(head)
            return
        }
        let keepAlive = head.keepAlive && !state.shared.draining.load(ordering: .relaxed)
        let headersOnly = head.method == "HEAD"
        if let response = builtInRoute(head) {
            respond(response, keepAlive: keepAlive, headersOnly: headersOnly)
            return
        }
        if let api = state.shared.httpApplication {
            awaitingResponse = true
            let loop = state.loop
            let me = UncheckedConnection(self)
            let path = head.path
            let handled = api.handle(request) { response in
                if response.status == 401 || response.status == 403 {
                    loop.execute { me.value.logRefusal(what: "API request refused", path: path, status: response.status,
                                                       reason: response.errorCode ?? "unauthorized") }
                }
                loop.execute { me.value.finishAsyncResponse(response, keepAlive: keepAlive, headersOnly: headersOnly) }
            }
            if handled { return }
            awaitingResponse = false
        }
        respond(fallbackRoute(head), keepAlive: keepAlive, headersOnly: headersOnly)
    }

    /// A head is complete and its body not yet read. A client that sent `Expect: 100-continue` waits for `100 Continue`
    /// before it sends the body (RFC 9110 §10.1.1); a request that will be refused whatever its body says (no route,
    /// no or a wrong key) gets its final status at once instead, and the body is never read: the connection closes
    /// after that response, since the client may send the body anyway and nothing here could frame what follows.
    func headAwaitingBody(_ head: HTTPRequestHead) {
        guard head.expectsContinue, !WebSocketHandshake.isUpgradeAttempt(head) else { return }
        var refusal: HTTPResponse?
        if builtInRoute(head) == nil {
            switch state.shared.httpApplication?.verdict(onHead: head) ?? .notMine {
            case .readBody: break
            case .refuse(let response): refusal = response
            case .notMine: refusal = fallbackRoute(head)
            }
        }
        guard let refusal else { return send(HTTPResponse.continueInterim) }
        metrics.add(metrics.httpRequests)
        requestID = RequestID.forRequest(head.headers["X-Request-Id"])
        if refusal.status == 401 || refusal.status == 403 {
            logRefusal(what: "API request refused", path: head.path, status: refusal.status, reason: refusal.errorCode ?? "unauthorized")
        }
        respond(refusal, keepAlive: false, headersOnly: head.method == "HEAD")
    }

    /// The client's address for limits: the peer, or what a trusted proxy says in `X-Forwarded-For`.
    private func sourceAddress(of head: HTTPRequestHead) -> String? {
        guard let peer = peerHost else { return nil }
        return SourceAddress.resolve(peer: peer, forwardedFor: head.headers.values("X-Forwarded-For"), trusted: settings.trustedNetworks)
    }

    /// Completes a response produced by the HTTP application, then resumes reading pipelined requests.
    func finishAsyncResponse(_ response: HTTPResponse, keepAlive: Bool, headersOnly: Bool) {
        guard awaitingResponse, !socket.isClosed else { return }
        awaitingResponse = false
        respond(response, keepAlive: keepAlive, headersOnly: headersOnly)
        guard case .http = phase, !socket.isClosed else { return }
        let stashed = stashedInput
        stashedInput = []
        socket.setReadingPaused(false)
        if !stashed.isEmpty {
            var rest = stashed
            let consumed = rest.withUnsafeMutableBytes { processInput($0) }
            if consumed < rest.count {
                rest.removeFirst(consumed)
                stashedInput = rest
            }
        }
    }

    private func builtInRoute(_ head: HTTPRequestHead) -> HTTPResponse? {
        switch head.path {
        case "/healthz":
            guard head.method == "GET" || head.method == "HEAD" else { return methodNotAllowed(head) }
            if state.shared.draining.load(ordering: .relaxed) {
                return HTTPResponse.json(status: 503, #"{"status":"draining"}"#)
            }
            return HTTPResponse.json(status: 200, #"{"status":"ok"}"#)
        case "/readyz":
            // Ready = fully started and not draining: a load balancer sends new clients here.
            guard head.method == "GET" || head.method == "HEAD" else { return methodNotAllowed(head) }
            if state.shared.draining.load(ordering: .relaxed) {
                return HTTPResponse.json(status: 503, #"{"status":"draining"}"#)
            }
            if !state.shared.ready.load(ordering: .relaxed) {
                return HTTPResponse.json(status: 503, #"{"status":"starting"}"#)
            }
            return HTTPResponse.json(status: 200, #"{"status":"ready"}"#)
        case "/metrics" where settings.metricsEnabled:
            guard head.method == "GET" else { return methodNotAllowed(head) }
            let text = (state.shared.metricsSource.withLock { $0?.render() } ?? "") + (state.shared.extraMetrics?() ?? "")
            return HTTPResponse.text(status: 200, text, contentType: "text/plain; version=0.0.4; charset=utf-8")
        default:
            return nil
        }
    }

    private func fallbackRoute(_ head: HTTPRequestHead) -> HTTPResponse {
        // A HEAD is answered as its GET would be (RFC 9110 §9.3.2), so it asks about the GET.
        var asGet = head
        if asGet.method == "HEAD" { asGet.method = "GET" }
        switch state.shared.application?.upgrade(asGet) {
        case .accept?:
            return HTTPResponse.jsonError(status: 426, code: "upgrade_required",
                                          message: "this endpoint speaks WebSocket only",
                                          extraHeaders: HTTPHeaders([("Upgrade", "websocket"), ("Sec-WebSocket-Version", "13")]))
        case .reject(let refusal)?:
            // A WebSocket path that would refuse this request's upgrade (a bad `?offset=`, a bad token) says why, as
            // it would to the upgrade, rather than pretending nothing is there.
            return refusal
        case .notFound?, nil:
            return HTTPResponse.jsonError(status: 404, code: "not_found", message: "nothing is served at \(head.path)")
        }
    }

    private func methodNotAllowed(_ head: HTTPRequestHead) -> HTTPResponse {
        HTTPResponse.jsonError(status: 405, code: "method_not_allowed", message: "\(head.method) is not allowed on \(head.path)",
                               extraHeaders: HTTPHeaders([("Allow", "GET")]))
    }

    /// `headersOnly` for a HEAD request: the GET response's header section, Content-Length included, without the body.
    func respond(_ response: HTTPResponse, keepAlive: Bool, headersOnly: Bool = false) {
        metrics.increment("switchboard_http_responses_total", label: String(response.status))
        var response = response
        if let requestID { response.headers.replaceOrAdd(name: "X-Request-Id", value: requestID) }
        send(response.serialize(keepAlive: keepAlive, headersOnly: headersOnly))
        idleSince = state.loop.now
        if !keepAlive { closeAfterFlush() ; phase = .lingering }
    }

    func respondToParseError(_ error: HTTPParseError) {
        let code: String
        switch error.status {
        case 413: code = "body_too_large"
        case 414: code = "uri_too_long"
        case 431: code = "headers_too_large"
        case 501: code = "not_implemented"
        case 505: code = "http_version_not_supported"
        default: code = "bad_request"
        }
        metrics.increment("switchboard_handshake_failures_total", label: "http_\(code)")
        respond(HTTPResponse.jsonError(status: error.status, code: code, message: error.message), keepAlive: false)
    }

    private func upgrade(_ head: HTTPRequestHead) {
        guard !state.shared.draining.load(ordering: .relaxed) else {
            respond(HTTPResponse.jsonError(status: 503, code: "draining", message: "the server is shutting down"), keepAlive: false)
            return
        }
        let handler: WebSocketHandler
        switch state.shared.application?.upgrade(head) ?? .notFound {
        case .accept(let accepted):
            handler = accepted
        case .reject(let response):
            metrics.increment("switchboard_handshake_failures_total", label: "rejected_\(response.status)")
            logRefusal(head, status: response.status, reason: response.errorCode ?? "rejected")
            respond(response, keepAlive: false, headersOnly: head.method == "HEAD")
            return
        case .notFound:
            metrics.increment("switchboard_handshake_failures_total", label: "no_endpoint")
            respond(HTTPResponse.jsonError(status: 404, code: "not_found", message: "no WebSocket endpoint at \(head.path)"), keepAlive: false)
            return
        }
        let ws = settings.webSocket
        let policy = WebSocketUpgradePolicy(allowedOrigins: ws.allowedOrigins, supportedSubprotocols: ws.subprotocols)
        let request: WebSocketUpgradeRequest
        switch WebSocketHandshake.validate(head, policy: policy) {
        case .failure(let error):
            metrics.increment("switchboard_handshake_failures_total", label: error.code)
            logRefusal(head, status: error.response().status, reason: error.code)
            respond(error.response(), keepAlive: false, headersOnly: head.method == "HEAD")
            return
        case .success(let accepted):
            request = accepted
        }

        var negotiated: (responseHeader: String, parameters: PerMessageDeflateParameters)?
        if ws.compression.enabled {
            negotiated = PerMessageDeflateNegotiation.negotiate(offers: request.extensionOffers, settings: ws.compression)
        }
        send(WebSocketHandshake.switchingProtocolsResponse(for: request, extensionsHeader: negotiated?.responseHeader))
        metrics.add(metrics.upgrades)
        metrics.increment("switchboard_http_responses_total", label: "101")
        let webSocket = WebSocket(connection: self, handler: handler, path: head.path,
                                  subprotocol: request.selectedSubprotocol, deflate: negotiated?.parameters)
        phase = .webSocket(webSocket)
        requestID = nil   // it names the upgrade request, answered now; a WebSocket connection does not keep it
        handler.webSocketDidOpen(webSocket)
    }
}

extension ServerConnection {
    /// One line per refused upgrade (bad handshake, failed authentication): the reason and the peer, never the
    /// query string (it may carry a token).
    func logRefusal(_ head: HTTPRequestHead, status: Int, reason: String) {
        logRefusal(what: "upgrade refused", path: head.path, status: status, reason: reason)
    }

    /// Also for server API calls refused with 401/403 (bad or missing API key or token).
    func logRefusal(what: String, path: String, status: Int, reason: String) {
        state.shared.logger.notice("\(what)", metadata: [
            "peer": "\(SocketAddress.peer(of: socket.fd).map { "\($0)" } ?? "?")", "path": "\(path)",
            "status": "\(status)", "reason": "\(reason)", "request_id": "\(requestID ?? "-")",
        ])
    }
}

/// Carries a loop-confined connection to its own loop in a Sendable closure.
struct UncheckedConnection: @unchecked Sendable {
    // @unchecked: the connection is loop-confined; this box only carries it to its own loop.
    let value: ServerConnection
    init(_ value: ServerConnection) { self.value = value }
}

extension HTTPResponse {
    static func json(status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "application/json")]), body: Array(body.utf8))
    }
}
