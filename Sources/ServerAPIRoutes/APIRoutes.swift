import GatewayProtocol
import HTTP1

/// The server API's route table: a request's method and path → the route (who may call it), then with the body →
/// the typed ``APIRequest`` or the precise refusal. Pure (no hub, no clock, no I/O): the runtime's `ServerAPI`
/// checks the caller and executes; the tests and the fuzz target drive this directly.
public enum APIRoutes {
    /// The path prefix of the API. The WebSocket endpoint `/v1/ws` shares it and is routed before the API.
    public static let prefix = "/v1/"

    /// The longest `GET /v1/approvals/{id}?wait=` long-poll: larger values wait this long.
    public static let maxWaitMs: Int64 = 60_000

    /// What the head alone decides, before the body is read (`Expect: 100-continue` is answered from this).
    /// `standalone`: whether self-registration is on; when off, `/v1/devices/register` is no route of this API.
    public static func match(_ head: HTTPRequestHead, standalone: Bool) -> APIRouteMatch {
        guard head.path.hasPrefix(prefix) else { return .notMine }
        // Routes match decoded segments; every segment after /v1 (route words and ids alike) follows the id grammar,
        // so a lookup never sees a malformed id.
        guard let parts = head.pathSegments() else {  // ["v1", ...]
            return .refused(
                APIRefusal(
                    status: 400, code: "invalid_path",
                    message: "the path has a malformed percent-escape (use %XX with two hex digits, UTF-8)"))
        }
        let segments = Array(parts.dropFirst())
        for segment in segments where !Identifier.isValid(segment) {
            return .refused(
                APIRefusal(
                    GatewayError(
                        .invalidID, "path segment \"\(segment)\" is not a valid id: ids are \(Identifier.rule)")))
        }
        // The device endpoints answer a wrong method to anyone; a backend route is only looked up for a backend.
        if segments == ["devices", "register"] {
            guard standalone else { return .notMine }
            return head.method == "POST"
                ? .route(APIRoute(caller: .anyone, build: registerDevice)) : .refused(.methodNotAllowed("POST"))
        }
        if segments == ["users", "me", "display-name"] {
            return head.method == "PUT"
                ? .route(APIRoute(caller: .device, build: setOwnDisplayName)) : .refused(.methodNotAllowed("PUT"))
        }
        if let own = ownLifecycleRoute(head.method, segments) { return own }
        if let build = backendRoute(head.method, segments) ?? relationshipRoute(head.method, segments) {
            return .route(APIRoute(caller: .backend, build: build))
        }
        return .noRoute(APIRefusal(status: 404, code: "not_found", message: "no API route \(head.method) \(head.path)"))
    }

    /// The typed request, or the refusal that answers it: the route (``match(_:)``) with the body read.
    public static func request(_ request: HTTPRequest, standalone: Bool) -> Result<APIRequest, APIRefusal> {
        switch match(request.head, standalone: standalone) {
        case .route(let route): route.request(request)
        case .refused(let refusal), .noRoute(let refusal): .failure(refusal)
        case .notMine:
            .failure(APIRefusal(status: 404, code: "not_found", message: "not an API path: \(request.head.path)"))
        }
    }

    /// `?wait=` (seconds) in milliseconds, 0 when absent; nil when it is not a number in JSON's grammar. Finite values
    /// are clamped to 0...60 s; `nan` (a backend passing JavaScript's NaN), `inf` and text are refused, since NaN
    /// passes any clamp and would then trap on conversion.
    public static func waitMilliseconds(_ text: String?) -> Int64? {
        guard let text else { return 0 }
        guard let seconds = WholeNumber.decimal(text) else { return nil }
        return WholeNumber.rounded(min(max(seconds, 0), Double(maxWaitMs) / 1000), scale: 1000, in: 0...maxWaitMs)
    }

    /// `DELETE /v1/users/me` and `DELETE /v1/users/me/devices/{deviceId}`: the caller's own user and devices (any other
    /// method is 405); nil for other paths.
    private static func ownLifecycleRoute(_ method: String, _ segments: [String]) -> APIRouteMatch? {
        guard segments.count >= 2, segments[0] == "users", segments[1] == "me" else { return nil }
        let build: Build
        switch segments.count {
        case 2: build = { _ in .deleteOwnUser }
        case 4 where segments[2] == "devices":
            let deviceId = segments[3]
            build = { _ in .revokeOwnDevice(deviceId: deviceId) }
        default: return nil
        }
        return method == "DELETE"
            ? .route(APIRoute(caller: .device, build: build)) : .refused(.methodNotAllowed("DELETE"))
    }

    private static func registerDevice(_ input: APIRequestInput) throws(GatewayError) -> APIRequest {
        .registerDevice(try input.body())
    }

    private static func setOwnDisplayName(_ input: APIRequestInput) throws(GatewayError) -> APIRequest {
        .setOwnDisplayName(try input.body())
    }
}

/// What ``APIRoutes/match(_:)`` decides from a request's head.
public enum APIRouteMatch: Sendable {
    /// Not under `/v1/` (or registration while it is off): another application's request.
    case notMine
    /// A route; its caller must be checked before ``APIRoute/request(_:)`` reads the body.
    case route(APIRoute)
    /// Refused whoever asks: a malformed path or id, a device endpoint's wrong method.
    case refused(APIRefusal)
    /// 404: no backend route has this method and path. Answered only to a caller with an API key (anyone else
    /// gets 401 first, and so cannot map the routes).
    case noRoute(APIRefusal)
}

/// A matched route: who may call it, and how its body and query make the typed request.
public struct APIRoute: Sendable {
    public let caller: APICaller
    let build: @Sendable (APIRequestInput) throws(GatewayError) -> APIRequest

    /// The typed request from the whole request (head and body), or the refusal naming what is wrong.
    public func request(_ request: HTTPRequest) -> Result<APIRequest, APIRefusal> {
        do throws(GatewayError) {
            return .success(try build(APIRequestInput(request)))
        } catch {
            return .failure(APIRefusal(error))
        }
    }
}

/// The parts of a request a route reads: its body (as a given body type), query items and headers.
struct APIRequestInput {
    let request: HTTPRequest
    init(_ request: HTTPRequest) { self.request = request }

    func body<T: APIBody>(_ type: T.Type = T.self) throws(GatewayError) -> T { try T.decode(request.body) }

    /// The `Idempotency-Key` header, which wins over a body's `idempotencyKey`.
    var idempotencyHeader: String? { request.head.headers["Idempotency-Key"] }

    func query(_ name: String) -> String? { request.head.queryItem(name) }
}
