import HTTP1
import WebSocketCodec

/// What an application says to an upgrade request.
public enum UpgradeDecision {
    /// Serve the WebSocket with this handler (after the RFC 6455 checks pass).
    case accept(WebSocketHandler)
    /// Refuse with this response (e.g. 401 for a bad token).
    case reject(HTTPResponse)
    /// Nothing is served at this path (404).
    case notFound
}

/// What runs behind the WebSocket endpoints (the echo endpoint, the gateway).
/// Called on the loop thread that owns the connection.
public protocol WebSocketApplication: AnyObject, Sendable {
    /// Decides on an upgrade request to `head.path`. Also asked (and must not keep state) for plain GETs, to tell
    /// a WebSocket-only path (426) from an unknown one (404).
    func upgrade(_ head: HTTPRequestHead) -> UpgradeDecision
}

/// Serves HTTP requests that the built-in routes (`/healthz`, `/metrics`) do not take, e.g. the REST API.
public protocol HTTPApplication: AnyObject, Sendable {
    /// Returns false to let the request fall through (404). When it returns true it must call `respond` exactly
    /// once, from any thread; the connection reads no further request until then.
    func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) -> Bool

    /// What the head alone decides before the body is read, for a client that sent `Expect: 100-continue` and
    /// waits: no credentials, no such route. Called on the connection's loop; must not keep state or block.
    func verdict(onHead head: HTTPRequestHead) -> HTTPHeadVerdict
}

extension HTTPApplication {
    /// By default every body is read.
    public func verdict(onHead head: HTTPRequestHead) -> HTTPHeadVerdict { .readBody }
}

/// An application's answer to a request head whose client waits before sending the body (RFC 9110 §10.1.1).
public enum HTTPHeadVerdict: Sendable, Equatable {
    /// The body is needed: the server answers `100 Continue` and reads it.
    case readBody
    /// Refused whatever the body says: answered at once, the body never read (the connection then closes).
    case refuse(HTTPResponse)
    /// Not the application's path: the server's own fallback answers (404, or 426 on a WebSocket-only path).
    case notMine
}

/// Routes upgrades by exact path, with an optional fallback for every other path (the echo endpoint).
public final class WebSocketRouter: WebSocketApplication, Sendable {
    private let routes: [String: WebSocketApplication]
    private let fallback: WebSocketApplication?

    public init(routes: [String: WebSocketApplication], fallback: WebSocketApplication?) {
        self.routes = routes
        self.fallback = fallback
    }

    public func upgrade(_ head: HTTPRequestHead) -> UpgradeDecision {
        if let app = routes[head.path] { return app.upgrade(head) }
        return fallback?.upgrade(head) ?? .notFound
    }
}

/// Receives one WebSocket's life. All calls happen on the connection's loop thread.
public protocol WebSocketHandler: AnyObject {
    func webSocketDidOpen(_ socket: WebSocket)
    /// A complete message; `payload` is only valid during the call (text is already UTF-8 validated).
    func webSocket(_ socket: WebSocket, didReceive opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer)
    /// The connection is gone (close handshake finished, failed, or dropped); `code` as sent or received, 1006 when none.
    func webSocketDidClose(_ socket: WebSocket, code: UInt16)
    /// Everything queued for the peer has been written to the kernel, after `WebSocket.notifyWhenDrained()` asked for
    /// it: a good moment to queue more (paced senders).
    func webSocketDidDrain(_ socket: WebSocket)
}

extension WebSocketHandler {
    public func webSocketDidDrain(_ socket: WebSocket) {}
}

/// Echoes every message back as it came (text as text, binary as binary). What conformance runs and benchmarks use.
/// Stateless: one instance serves every connection.
public final class EchoApplication: WebSocketApplication, WebSocketHandler, Sendable {
    public init() {}

    public func upgrade(_ head: HTTPRequestHead) -> UpgradeDecision { .accept(self) }

    public func webSocketDidOpen(_ socket: WebSocket) {}

    public func webSocket(_ socket: WebSocket, didReceive opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        socket.send(opcode: opcode, payload: payload)
    }

    public func webSocketDidClose(_ socket: WebSocket, code: UInt16) {}
}
