import GatewayProtocol
import HTTP1

/// The demo page's endpoints under `/demo/api/` (only when the demo is on), typed: each acts for the user of the
/// caller's device token. The runtime's `DemoAPI` checks the token and executes.
public enum DemoRequest: Sendable, Equatable {
    /// `GET /demo/api/stats`: the node's gauges and counters (no token needed).
    case stats
    /// `POST /demo/api/devices`: a token for one more device of the caller's user.
    case addDevice(DemoDeviceBody)
    /// `POST /demo/api/session`: the caller's demo session, created on first use.
    case session
    /// `POST /demo/api/approvals`: an approval request into the caller's demo session.
    case approval(DemoApprovalBody)
}

/// The demo endpoints' table.
public enum DemoRoutes {
    public static let prefix = "/demo/api/"

    /// One demo endpoint, matched from the method and path before the caller's token and the body are read.
    public enum Endpoint: String, Sendable, Equatable, CaseIterable {
        case stats, devices, session, approvals

        /// The one method the endpoint takes.
        public var method: String { self == .stats ? "GET" : "POST" }
        /// Whether the caller must send a device token (every endpoint but the stats).
        public var needsDevice: Bool { self != .stats }

        /// The typed request with the body read, or the refusal naming the field.
        public func request(body: [UInt8]) -> Result<DemoRequest, APIRefusal> {
            do throws(GatewayError) {
                switch self {
                case .stats: return .success(.stats)
                case .devices: return .success(.addDevice(try DemoDeviceBody.decode(body)))
                case .session: return .success(.session)
                case .approvals: return .success(.approval(try DemoApprovalBody.decode(body)))
                }
            } catch {
                return .failure(APIRefusal(error))
            }
        }
    }

    /// The endpoint a head names (a path under ``prefix``), or 404 for none and 405 for the wrong method.
    public static func match(_ head: HTTPRequestHead) -> Result<Endpoint, APIRefusal> {
        guard head.path.hasPrefix(prefix), let endpoint = Endpoint(rawValue: String(head.path.dropFirst(prefix.count))) else {
            return .failure(APIRefusal(status: 404, code: "not_found", message: "no demo route \(head.method) \(head.path)"))
        }
        guard head.method == endpoint.method else { return .failure(.methodNotAllowed(endpoint.method)) }
        return .success(endpoint)
    }

    /// The typed request, or the refusal that answers it (the caller's token is not checked here).
    public static func request(_ request: HTTPRequest) -> Result<DemoRequest, APIRefusal> {
        match(request.head).flatMap { $0.request(body: request.body) }
    }
}

/// `POST /demo/api/devices` `{"platform"?}`: `desktop` when left out; one of `ios`, `android`, `desktop`, `web`.
public struct DemoDeviceBody: APIBody {
    public static let platforms = ["ios", "android", "desktop", "web"]
    public var platform: String?
    public init(fields f: JSONFields) throws(GatewayError) {
        platform = try f.optionalString("platform")
        guard Self.platforms.contains(platform ?? "desktop") else {
            throw GatewayError(.invalidField, "platform must be ios, android, desktop or web")
        }
    }
}

/// `POST /demo/api/approvals` `{"summary"?, "toolName"?, "timeoutSeconds"?}`; `timeoutSeconds` is checked against
/// the node's bounds by the gateway (`ApprovalTimeout`).
public struct DemoApprovalBody: APIBody {
    public var summary: String?
    public var toolName: String?
    public var timeoutSeconds: Double?
    public init(fields f: JSONFields) throws(GatewayError) {
        summary = try f.optionalString("summary"); toolName = try f.optionalString("toolName")
        timeoutSeconds = try f.optionalDouble("timeoutSeconds")
    }
}
