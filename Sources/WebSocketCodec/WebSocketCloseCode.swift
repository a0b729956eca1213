/// Close status codes (RFC 6455 §7.4.1, IANA "WebSocket Close Code Number Registry" §11.7) and the rule
/// for which codes may appear in a received close frame.
public enum WebSocketCloseCode {
    /// 1000: normal closure (RFC 6455 §7.4.1).
    public static let normal: UInt16 = 1000
    /// 1001: endpoint going away, e.g. server shutdown (RFC 6455 §7.4.1).
    public static let goingAway: UInt16 = 1001
    /// 1002: protocol error (RFC 6455 §7.4.1).
    public static let protocolError: UInt16 = 1002
    /// 1003: data type the endpoint cannot accept (RFC 6455 §7.4.1).
    public static let unsupportedData: UInt16 = 1003
    /// 1007: payload inconsistent with the message type, e.g. invalid UTF-8 in text (RFC 6455 §7.4.1).
    public static let invalidPayload: UInt16 = 1007
    /// 1008: policy violation (RFC 6455 §7.4.1).
    public static let policyViolation: UInt16 = 1008
    /// 1009: message too big to process (RFC 6455 §7.4.1).
    public static let messageTooBig: UInt16 = 1009
    /// 1010: client expected the server to negotiate an extension (RFC 6455 §7.4.1).
    public static let mandatoryExtension: UInt16 = 1010
    /// 1011: unexpected server condition (RFC 6455 §7.4.1).
    public static let internalError: UInt16 = 1011
    /// 1013: try again later (IANA registry, RFC 6455 §11.7).
    public static let tryAgainLater: UInt16 = 1013

    /// Whether `code` may appear in a received close frame (RFC 6455 §7.4.1, §7.4.2, IANA registry):
    /// valid are 1000–1003, 1007–1011, 1012–1014 (registered by IANA) and 3000–4999 (libraries/applications).
    /// Invalid are 0–999 (unused), 1004 (reserved), 1005/1006/1015 (must never be sent on the wire),
    /// 1016–2999 (reserved for future protocol use) and ≥ 5000.
    @inlinable
    public static func isValidOnWire(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }
}
