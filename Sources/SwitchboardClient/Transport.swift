/// The socket under a ``SwitchboardClient``: one WebSocket connection, text messages in and out.
///
/// The client creates a new transport for every connection attempt through ``SwitchboardClient/Configuration/transport``.
/// Implementations: `URLSessionWebSocketTransport` on Apple platforms, `LoopWebSocketTransport` on Linux (the project's
/// own event loop). Tests may plug in their own.
public protocol WebSocketTransport: Sendable {
    /// Opens the connection (TCP, TLS for `wss`, the upgrade). Throws ``TransportError``.
    func connect(to url: WebSocketURL) async throws
    /// Sends one text message. Throws ``TransportError/closed(code:)`` once the connection has ended.
    func send(text: String) async throws
    /// The next text message, or throws ``TransportError/closed(code:)`` when the connection ends
    /// (`code` nil when it ended without a close frame).
    func receive() async throws -> String
    /// Starts the closing handshake with `code` (or drops the connection if it is not open).
    func close(code: UInt16) async
}

/// Why a transport could not connect or stopped.
public enum TransportError: Error, Sendable, Equatable {
    /// TCP connect, DNS or TLS failed before the upgrade (`detail` is for logs).
    case connectFailed(String)
    /// The server answered the upgrade with this HTTP status (401 means the token was rejected).
    case upgradeRejected(status: Int)
    /// The connection ended: the server's close code, or nil when it ended without a close frame.
    case closed(code: UInt16?)
}

/// A parsed `ws://` or `wss://` URL: what a transport needs to connect.
public struct WebSocketURL: Sendable, Equatable, CustomStringConvertible {
    /// True for `wss`.
    public var isSecure: Bool
    public var host: String
    public var port: UInt16
    /// Path and query, e.g. `/v1/ws?offset=41`.
    public var target: String

    /// Parses `ws://host[:port]/path[?query]` or `wss://…`; nil for anything else.
    public init?(_ text: String) {
        let scheme: Substring
        guard let schemeEnd = text.range(of: "://") else { return nil }
        scheme = text[..<schemeEnd.lowerBound]
        switch scheme.lowercased() {
        case "ws": isSecure = false
        case "wss": isSecure = true
        default: return nil
        }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if path.isEmpty || path.first == "?" { path = "/" + path }
        target = path
        var hostPart = Substring(authority)
        var portPart: Substring?
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {  // [::1]:7420
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portPart = after.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { return nil }
        host = String(hostPart)
        if let portPart {
            guard let value = UInt16(portPart) else { return nil }
            port = value
        } else {
            port = isSecure ? 443 : 80
        }
    }

    /// `Host` header value.
    public var hostHeader: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return (isSecure && port == 443) || (!isSecure && port == 80) ? shown : "\(shown):\(port)"
    }

    public var description: String {
        (isSecure ? "wss://" : "ws://") + hostHeader + target
    }

    /// This URL with `name=value` query items appended (values percent-encoded).
    public func appendingQuery(_ items: [(String, String)]) -> WebSocketURL {
        guard !items.isEmpty else { return self }
        var copy = self
        var separator = target.contains("?") ? "&" : "?"
        for (name, value) in items {
            copy.target += separator + name + "=" + Self.percentEncode(value)
            separator = "&"
        }
        return copy
    }

    private static func percentEncode(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}
