import COpenSSL

/// A TLS failure: configuration (files, keys, versions) or a fatal protocol error on a connection.
///
/// `message` is meant for logs and operators: it says what was being done (naming the file
/// involved, if any) followed by the OpenSSL error-queue text, e.g.
/// `cannot load certificate chain /x.pem: No such file or directory (calling fopen(/x.pem, r))`.
/// Values are immutable and `Sendable`.
public struct TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Human-readable description including OpenSSL's own reason text when there is one.
    public var message: String

    /// Creates an error with exactly `message`; use ``TLSError/openSSL(_:)`` to attach the
    /// OpenSSL error queue.
    public init(message: String) {
        self.message = message
    }

    /// Same as ``message``.
    public var description: String { message }

    /// `context` followed by everything on this thread's OpenSSL error queue, which is drained.
    ///
    /// OpenSSL's queue is thread-local, so this must run on the thread that made the failing call,
    /// before any other OpenSSL call on that thread.
    static func openSSL(_ context: String) -> TLSError {
        let details = OpenSSLErrorQueue.drain()
        if details.isEmpty {
            return TLSError(message: context)
        }
        return TLSError(message: context + ": " + details.joined(separator: "; "))
    }
}
