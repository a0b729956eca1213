import EventLoop
import TLS

/// Everything a `WebSocketClient` needs to reach the server, resolved once on the main thread and shared (read-only)
/// by every loop: the address, optional local source addresses, TLS context, and protocol options.
struct ClientSettings: Sendable {
    /// The `--url` as given.
    let target: TargetURL
    /// `target` resolved (getaddrinfo runs once, before any loop starts).
    let address: SocketAddress
    /// `--source-addresses` resolved with port 0; empty means "let the kernel pick" (one source, ~28k ports).
    let sources: [SocketAddress]
    /// Present for `wss://`; an `SSL_CTX` is thread-safe once configured, so all loops share it.
    let tlsContext: TLSContext?
    /// Offer permessage-deflate (RFC 7692) in the upgrade request.
    let deflate: Bool
    /// Largest message the client accepts (RFC 6455 §10.4: bound what a peer can make us buffer).
    let maxMessageBytes: Int
    /// TCP connect start → 101 parsed must happen within this, or the attempt fails as `handshake_timeout`.
    let handshakeTimeoutMs: UInt64
    /// How long to wait for the server's close frame after sending ours before dropping the connection.
    let closeTimeoutMs: UInt64
    /// `--node-url`s resolved: more nodes of the same cluster, after `target` (node 0).
    let otherNodes: [(target: TargetURL, address: SocketAddress)]

    /// Node `index` of the cluster (`target` is node 0), counted modulo the number of nodes.
    func node(_ index: Int) -> (target: TargetURL, address: SocketAddress) {
        let count = otherNodes.count + 1
        let slot = (index % count + count) % count
        return slot == 0 ? (target, address) : otherNodes[slot - 1]
    }

    /// Resolves the target and the source addresses; throws a usage error naming what could not be resolved.
    init(target: TargetURL, sourceAddresses: [String], insecure: Bool, caFile: String?, deflate: Bool,
         maxMessageBytes: Int, handshakeTimeoutMs: UInt64 = 10_000, closeTimeoutMs: UInt64 = 2_000,
         otherNodes: [TargetURL] = []) throws {
        self.target = target
        func resolve(_ target: TargetURL) throws -> SocketAddress {
            do {
                return try SocketAddress.resolve(host: target.host, port: target.port)
            } catch {
                throw LoadTestError.usage("cannot resolve \(target.host): \(error)")
            }
        }
        address = try resolve(target)
        self.otherNodes = try otherNodes.map { ($0, try resolve($0)) }
        sources = try sourceAddresses.map { text in
            do { return try SocketAddress.resolve(host: text, port: 0) } catch {
                throw LoadTestError.usage("--source-addresses: cannot use \"\(text)\": \(error)")
            }
        }
        if target.isSecure {
            do {
                tlsContext = try TLSContext.client(verifyPeer: !insecure, caFile: caFile)
            } catch {
                throw LoadTestError.usage("TLS client setup failed: \(error)")
            }
        } else {
            tlsContext = nil
        }
        self.deflate = deflate
        self.maxMessageBytes = maxMessageBytes
        self.handshakeTimeoutMs = handshakeTimeoutMs
        self.closeTimeoutMs = closeTimeoutMs
    }
}
