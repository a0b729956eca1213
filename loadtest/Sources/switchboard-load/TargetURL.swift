/// The server under test, parsed from `--url ws://host:port/path` or `wss://…`.
///
/// Only the parts a WebSocket client needs: scheme (TLS or not), host, port (default 80/443), and the request
/// target (path plus query, "/" when empty). IPv6 literals are written in brackets (`ws://[::1]:7420/`).
/// Immutable and `Sendable`: parsed once on the main thread, shared with every loop.
struct TargetURL: Sendable, Equatable, CustomStringConvertible {
    /// True for `wss://`.
    let isSecure: Bool
    /// Host without brackets ("127.0.0.1", "::1", "example.test").
    let host: String
    let port: UInt16
    /// Request target for the GET line, always starting with "/".
    let path: String

    /// The `Host` header value (RFC 7230 §5.4): the port is left out when it is the scheme's default.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        let defaultPort: UInt16 = isSecure ? 443 : 80
        return port == defaultPort ? name : "\(name):\(port)"
    }

    var description: String {
        "\(isSecure ? "wss" : "ws")://\(hostHeader)\(path)"
    }

    /// Parses `text`; the error says what is wrong in words a user can act on.
    init(parsing text: String) throws(LoadTestError) {
        let rest: Substring
        if text.hasPrefix("ws://") {
            isSecure = false
            rest = text.dropFirst(5)
        } else if text.hasPrefix("wss://") {
            isSecure = true
            rest = text.dropFirst(6)
        } else {
            throw LoadTestError.usage("--url must start with ws:// or wss://, got \"\(text)\"")
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        let target = rest.dropFirst(authority.count)
        path = target.isEmpty ? "/" : (target.hasPrefix("/") ? String(target) : "/" + target)
        var hostPart = Substring(authority)
        var portPart: Substring?
        if hostPart.hasPrefix("[") {
            guard let close = hostPart.firstIndex(of: "]") else {
                throw LoadTestError.usage("--url has an unterminated IPv6 literal: \"\(text)\"")
            }
            let after = hostPart[hostPart.index(after: close)...]
            if after.hasPrefix(":") { portPart = after.dropFirst() } else if !after.isEmpty {
                throw LoadTestError.usage("--url has junk after the IPv6 literal: \"\(text)\"")
            }
            hostPart = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
        } else if let colon = hostPart.lastIndex(of: ":") {
            portPart = hostPart[hostPart.index(after: colon)...]
            hostPart = hostPart[..<colon]
        }
        guard !hostPart.isEmpty else { throw LoadTestError.usage("--url has no host: \"\(text)\"") }
        host = String(hostPart)
        if let portPart {
            guard let value = UInt16(portPart), value > 0 else {
                throw LoadTestError.usage("--url has an invalid port \"\(portPart)\" (1-65535)")
            }
            port = value
        } else {
            port = isSecure ? 443 : 80
        }
    }
}
