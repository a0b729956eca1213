import COpenSSL

/// A TLS protocol version, for bounding what a client context offers.
///
/// `tls11` exists so tests can prove that servers refuse it; servers built by
/// ``TLSContext/server(certificateChainFile:privateKeyFile:alpn:)`` always require TLS 1.2+.
public enum TLSVersion: Sendable, Comparable {
    /// TLS 1.1 (RFC 4346). Obsolete (RFC 8996); offered only when asked for explicitly.
    case tls11
    /// TLS 1.2 (RFC 5246).
    case tls12
    /// TLS 1.3 (RFC 8446).
    case tls13

    /// The ProtocolVersion code point OpenSSL uses (RFC 8446 §4.2.1: 0x0302, 0x0303, 0x0304).
    var openSSLValue: Int32 {
        switch self {
        case .tls11: return COPENSSL_TLS1_1_VERSION
        case .tls12: return COPENSSL_TLS1_2_VERSION
        case .tls13: return COPENSSL_TLS1_3_VERSION
        }
    }
}
