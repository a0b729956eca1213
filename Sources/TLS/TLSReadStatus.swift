/// The outcome of ``TLSEngine/readPlaintext(into:)``.
public enum TLSReadStatus: Sendable, Equatable {
    /// Progress was made or there was nothing to do: inspect the plaintext and
    /// ``TLSEngine/hasPendingCiphertext``.
    case ok
    /// The peer sent close_notify (RFC 8446 §6.1); no more plaintext will arrive.
    case closed
}
