import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLSession for plain HTTP on Linux (libcurl's HTTP; only its WebSocket is missing there)
#endif

/// The two HTTP calls of standalone mode (docs/PROTOCOL.md, "Standalone devices"): a device gets its identity and
/// token from the gateway itself, and sets its user's display name. Not needed with an app backend, which issues the
/// tokens (and answers `404` for registration).
public enum StandaloneDevice {
    /// What ``register(gateway:deviceToken:platform:session:)`` returns: the device's user and a token for the
    /// client's token provider (valid 30 days; register again for a fresh one).
    public struct Registration: Sendable, Equatable, Codable {
        public var userId: String
        public var hexCode: String
        public var deviceId: String
        /// A JWT for ``SwitchboardClient/Configuration/tokenProvider``.
        public var token: String
        public init(userId: String, hexCode: String, deviceId: String, token: String) {
            self.userId = userId; self.hexCode = hexCode; self.deviceId = deviceId; self.token = token
        }
    }

    /// The `platform` of a registration (the token's `client_type`).
    public enum Platform: String, Sendable, CaseIterable {
        case ios, android, desktop, web
    }

    /// `POST /v1/devices/register`: the same `deviceToken` always returns the same user and device with a fresh
    /// token. `deviceToken` is the device's secret and its identity: about 128 random bits (a random UUID will do),
    /// kept in the Keychain (``KeychainStore``). `gateway` is the gateway's base URL (`https://…`, or the `wss://`
    /// URL of the socket). Throws ``ClientError/server(code:message:)`` for a refusal (`device_token_too_weak`,
    /// `rate_limited`, `not_found` with an app backend) and ``TransportError/connectFailed(_:)`` when the gateway
    /// cannot be reached.
    public static func register(
        gateway: String, deviceToken: String, platform: Platform = .ios,
        session: URLSession = .shared
    ) async throws -> Registration {
        let body: JSONValue = .object(["deviceToken": .string(deviceToken), "platform": .string(platform.rawValue)])
        return try await send("POST", "/v1/devices/register", body, gateway: gateway, token: nil, session: session)
    }

    /// `PUT /v1/users/me/display-name` for the user of `token`; returns the user afterwards. The name has 1–20
    /// characters without control or format characters, else ``ClientError/server(code:message:)`` with
    /// `display_name_invalid`.
    @discardableResult
    public static func setDisplayName(
        _ displayName: String, gateway: String, token: String,
        session: URLSession = .shared
    ) async throws -> UserRef {
        let body: JSONValue = .object(["displayName": .string(displayName)])
        let user: WireUserRef = try await send(
            "PUT", "/v1/users/me/display-name", body, gateway: gateway, token: token, session: session)
        return user.userRef
    }

    /// `https://host[:port]` for `https://…`, `http://…`, `wss://…` or `ws://…` (any path is dropped).
    static func baseURL(_ gateway: String) -> URL? {
        guard var parts = URLComponents(string: gateway), let scheme = parts.scheme?.lowercased() else { return nil }
        switch scheme {
        case "ws", "http": parts.scheme = "http"
        case "wss", "https": parts.scheme = "https"
        default: return nil
        }
        parts.path = ""
        parts.query = nil
        parts.fragment = nil
        return parts.url
    }

    /// One JSON call to the gateway's HTTP API (`body` nil: none is sent), decoded as `T`, or the refusal thrown as
    /// ``ClientError/server(code:message:)``.
    static func send<T: Decodable>(
        _ method: String, _ path: String, _ body: JSONValue?, gateway: String, token: String?,
        session: URLSession
    ) async throws -> T {
        guard let base = baseURL(gateway), let url = URL(string: path, relativeTo: base) else {
            throw TransportError.connectFailed("not an http(s):// or ws(s):// URL: \(gateway)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(try body.serialized())
        }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw TransportError.connectFailed("\(method) \(path): \(error)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = try? JSONValue.parse(Array(data))
        guard (200..<300).contains(status) else {
            let error = json?["error"]
            throw ClientError.server(
                code: error?["code"]?.stringValue ?? "http_\(status)",
                message: error?["message"]?.stringValue ?? "\(method) \(path) answered \(status)")
        }
        guard let value = json?.decoded(as: T.self) else {
            throw ClientError.invalidReply("\(method) \(path): unexpected body")
        }
        return value
    }
}
