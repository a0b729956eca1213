import HTTP1
import Server

/// CORS in front of the endpoints a web app calls from its own origin: `/v1/devices/register` (standalone mode) and
/// `/v1/users/me/…`. Answers their preflight `OPTIONS` and adds `Access-Control-Allow-Origin` / `Vary: Origin` to
/// their responses (`http.cors_allowed_origins`). The server API behind an API key is never listed: a browser has
/// no business holding that key, so no page on another origin may read its answers.
final class BrowserCORS: HTTPApplication, Sendable {
    private let policy: CORSPolicy
    /// Path → the methods it accepts.
    private let routes: [String: [String]]
    private let next: HTTPApplication

    init(policy: CORSPolicy, standalone: Bool, next: HTTPApplication) {
        self.policy = policy
        var routes = ["/v1/users/me/display-name": ["PUT"]]
        if standalone { routes["/v1/devices/register"] = ["POST"] }
        self.routes = routes
        self.next = next
    }

    func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) -> Bool {
        let head = request.head
        guard let methods = routes[head.path] else { return next.handle(request, respond: respond) }
        let origin = head.headers["Origin"]
        if head.method == "OPTIONS" {
            respond(policy.preflight(origin: origin, methods: methods))
            return true
        }
        let policy = self.policy
        return next.handle(request) { response in respond(policy.decorate(response, origin: origin)) }
    }

    /// The same routes before the body (`Expect: 100-continue`): a preflight is answered here, and a refusal of the
    /// API behind carries the CORS headers too, so the page can read why.
    func verdict(onHead head: HTTPRequestHead) -> HTTPHeadVerdict {
        guard routes[head.path] != nil else { return next.verdict(onHead: head) }
        if head.method == "OPTIONS" { return .readBody }
        switch next.verdict(onHead: head) {
        case .refuse(let response): return .refuse(policy.decorate(response, origin: head.headers["Origin"]))
        case let other: return other
        }
    }
}

extension CORSPolicy {
    /// `response` with the CORS headers of an actual request from `origin`.
    func decorate(_ response: HTTPResponse, origin: String?) -> HTTPResponse {
        var response = response
        for field in responseHeaders(origin: origin) { response.headers.add(name: field.name, value: field.value) }
        return response
    }
}
