import EventLoop
import GatewayRuntime
import Glibc
import SwitchboardConfig

/// What `serve` would fail on beyond the file's own syntax and ranges: files it must read, URLs it must call, the
/// webhook secret it must sign with, and addresses it must listen on. `check-config` reports all of them; `serve` refuses to start on the first.
struct Preflight {
    struct Problem: CustomStringConvertible {
        let key: String
        let message: String
        var description: String { "\(key): \(message)" }
    }

    /// Every configuration problem found, and separately the listen addresses another process listens on right now
    /// (for `check-config` only a note: it may run beside the live server; for `serve` a runtime failure).
    static func problems(_ c: SwitchboardConfiguration) -> (problems: [Problem], inUse: [Problem]) {
        var problems: [Problem] = []
        var inUse: [Problem] = []
        let files: [(String, String)] = [
            ("server.tls_cert", c.server.tlsListen == nil ? "" : c.server.tlsCert),
            ("server.tls_key", c.server.tlsListen == nil ? "" : c.server.tlsKey),
            ("auth.es256_public_key_file", c.auth.es256PublicKeyFile),
            ("push.apns_key_file", c.push.apnsKeyFile),
            ("push.ca_file", c.push.caFile),
            ("push.fcm_service_account_file", c.push.fcmServiceAccountFile),
        ]
        for (key, path) in files where !path.isEmpty {
            if let error = unreadable(path) { problems.append(Problem(key: key, message: "cannot read \(path): \(error)")) }
        }
        let urls: [(String, String)] = [
            ("gateway.approval_webhook_url", c.gateway.approvalWebhookURL),
            ("relationships.invite_webhook_url", c.relationships.inviteWebhookURL),
            ("push.webhook_url", c.push.webhookURL),
        ]
        for (key, url) in urls where !url.isEmpty {
            if let problem = urlProblem(url) { problems.append(Problem(key: key, message: problem)) }
        }
        if !c.gateway.webhookSecret.isEmpty, let problem = GatewayRuntime.webhookSecretProblem(c.gateway.webhookSecret) {
            problems.append(Problem(key: "gateway.webhook_secret", message: problem))
        }
        for (key, address) in [("server.listen", c.server.listen), ("server.tls_listen", c.server.tlsListen)] {
            guard let address else { continue }
            let resolved: SocketAddress
            do {
                resolved = try SocketAddress.resolve(host: address.host, port: UInt16(address.port))
            } catch {
                problems.append(Problem(key: key, message: "cannot resolve \(address): \(error)"))
                continue
            }
            switch ListenProbe.check(resolved) {
            case .free: break
            case .inUse:
                inUse.append(Problem(key: key, message: "\(address) is already in use (another switchboard process, or another program)"))
            case .unusable(let error):
                problems.append(Problem(key: key, message: "cannot listen on \(address): \(error)"))
            }
        }
        return (problems, inUse)
    }

    /// nil when `path` is a readable regular file, else why not.
    private static func unreadable(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return String(cString: strerror(errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return String(cString: strerror(errno)) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return "not a regular file" }
        var byte: UInt8 = 0
        guard read(fd, &byte, 1) >= 0 else { return String(cString: strerror(errno)) }
        return nil
    }

    /// nil for `http://host[:port][/path]` or `https://…` with a sane host and port, else what is wrong.
    static func urlProblem(_ url: String) -> String? {
        let rest: Substring
        if url.hasPrefix("http://") { rest = url.dropFirst(7) }
        else if url.hasPrefix("https://") { rest = url.dropFirst(8) }
        else { return "expected an http:// or https:// URL, got \"\(url)\"" }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@"), !url.contains(" ") else {
            return "expected http(s)://host[:port]/path, got \"\(url)\""
        }
        var host = authority
        if authority.hasPrefix("[") {   // [IPv6]:port
            guard let close = authority.firstIndex(of: "]") else { return "unterminated IPv6 address in \"\(url)\"" }
            let after = authority[authority.index(after: close)...]
            host = authority[...close]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let port = Int(after.dropFirst()), (1...65535).contains(port) else {
                    return "invalid port in \"\(url)\""
                }
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            guard let port = Int(authority[authority.index(after: colon)...]), (1...65535).contains(port) else {
                return "invalid port in \"\(url)\""
            }
        }
        guard !host.isEmpty else { return "no host in \"\(url)\"" }
        return nil
    }
}
