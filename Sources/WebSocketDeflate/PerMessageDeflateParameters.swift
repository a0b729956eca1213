/// Agreed parameters of one connection (RFC 7692 §7.1), the result of a successful negotiation.
/// A plain value: safe to copy and share between threads.
public struct PerMessageDeflateParameters: Sendable, Equatable {
    /// The server resets its compression context after every message (RFC 7692 §7.1.1.1).
    public var serverNoContextTakeover: Bool
    /// The client resets its compression context after every message (RFC 7692 §7.1.1.2).
    public var clientNoContextTakeover: Bool
    /// LZ77 window the server compresses with, 8...15 as on the wire (RFC 7692 §7.1.2.1).
    public var serverMaxWindowBits: Int
    /// LZ77 window the client compresses with, 8...15; the server inflates with it (RFC 7692 §7.1.2.2).
    public var clientMaxWindowBits: Int

    /// Creates a parameter set; the defaults are those of a bare `permessage-deflate` agreement.
    /// Window sizes must be in 8...15 (RFC 7692 §7.1.2).
    public init(
        serverNoContextTakeover: Bool = false,
        clientNoContextTakeover: Bool = false,
        serverMaxWindowBits: Int = 15,
        clientMaxWindowBits: Int = 15
    ) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
    }
}

/// Which end of the connection this process is; decides which half of `PerMessageDeflateParameters` applies.
public enum PerMessageDeflateRole: Sendable, Equatable {
    case server
    case client
}

extension PerMessageDeflateParameters {
    /// The inflater for messages received by `role`: the server inflates what the client compressed
    /// (client window, client context rule) and vice versa. The result is owned by one connection.
    public func makeInflater(role: PerMessageDeflateRole) -> PerMessageInflater {
        switch role {
        case .server:
            return PerMessageInflater(windowBits: clientMaxWindowBits, noContextTakeover: clientNoContextTakeover)
        case .client:
            return PerMessageInflater(windowBits: serverMaxWindowBits, noContextTakeover: serverNoContextTakeover)
        }
    }

    /// The deflater for messages sent by `role`: the server compresses with the server window and server
    /// context rule, the client with the client ones. The result is owned by one connection.
    /// `compressionLevel` 0...9 and `memLevel` 1...9 are clamped into range.
    public func makeDeflater(role: PerMessageDeflateRole, compressionLevel: Int = 6, memLevel: Int = 8) -> PerMessageDeflater {
        switch role {
        case .server:
            return PerMessageDeflater(
                windowBits: serverMaxWindowBits, noContextTakeover: serverNoContextTakeover,
                compressionLevel: compressionLevel, memLevel: memLevel)
        case .client:
            return PerMessageDeflater(
                windowBits: clientMaxWindowBits, noContextTakeover: clientNoContextTakeover,
                compressionLevel: compressionLevel, memLevel: memLevel)
        }
    }
}
