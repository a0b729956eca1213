import HTTP1
import Server

/// CORS in front of the endpoints a web app calls from its own origin: `/v1/devices/register` (standalone mode) and
/// `/v1/users/me` and `/v1/users/me/…` (display name, own devices). Answers their preflight `OPTIONS` and adds `Access-Control-Allow-Origin` / `Vary: Origin` to
/// their responses (`http.cors_allowed_origins`). The server API behind an API key is never listed: a browser has
/// no business holding that key, so no page on another origin may read its answers.
final class BrowserCORS: HTTPApplication, Sendable {
    private let policy: CORSPolicy
    /// Path → the methods it accepts.
    private let routes: [String: [String]]
    private let next: HTTPApplication

    init(policy: CORSPolicy, standalone: Bool, next: HTTPApplication) {
        self.policy = policy
        var routes = ["/v1/users/me/display-name": ["PUT"], "/v1/users/me": ["DELETE"]]
        if standalone { routes["/v1/devices/register"] = ["POST"] }
        self.routes = routes
        self.next = next
    }

    func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) -> Bool {
        let head = request.head
        guard let methods = methods(of: head.path) else { return next.handle(request, respond: respond) }
        let origin = head.headers["Origin"]
        if head.method == "OPTIONS" {
            respond(policy.preflight(origin: origin, methods: methods))
            return true
        }
        let policy = self.policy
        return next.handle(request) { response in respond(policy.decorate(response, origin: origin)) }
    }

    /// The methods a browser may use on `path`, nil when it is no route of a browser's. A device of the caller's
    /// user (`/v1/users/me/devices/{deviceId}`) is one segment below the prefix.
    private func methods(of path: String) -> [String]? {
        if let exact = routes[path] { return exact }
        let devices = "/v1/users/me/devices/"
        guard path.hasPrefix(devices), path.count > devices.count, !path.dropFirst(devices.count).contains("/") else {
            return nil
        }
        return ["DELETE"]
    }

    /// The same routes before the body (`Expect: 100-continue`): a preflight is answered here, and a refusal of the
    /// API behind carries the CORS headers too, so the page can read why.
    func verdict(onHead head: HTTPRequestHead) -> HTTPHeadVerdict {
        guard methods(of: head.path) != nil else { return next.verdict(onHead: head) }
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
