/// Which end of the connection the codec works for; it decides the masking rules (RFC 6455 §5.1, §5.3).
/// - `server`: every received frame MUST be masked (an unmasked frame fails with 1002);
///   frames the server sends are unmasked.
/// - `client`: received frames MUST NOT be masked (a masked frame fails with 1002);
///   frames the client sends are masked with a fresh random key per frame (the caller picks the key).
public enum WebSocketRole: Sendable {
    /// Decodes masked frames from clients.
    case server
    /// Decodes unmasked frames from servers.
    case client

    /// Whether frames received in this role must carry a masking key (RFC 6455 §5.1).
    @inlinable
    public var expectsMaskedFrames: Bool { self == .server }
}
