import COpenSSL

/// One TLS connection over memory BIOs. Owned by one loop thread; not thread-safe.
///
/// The engine does no I/O: the caller feeds it ciphertext read from the socket
/// (``receiveCiphertext(_:)``), pulls plaintext out (``readPlaintext(into:)``), pushes plaintext
/// in (``writePlaintext(_:)``) and moves ciphertext to the socket (``takePendingCiphertext(into:)``).
/// After every call check ``hasPendingCiphertext``: reads produce handshake records and alerts.
/// Memory: OpenSSL's record buffers are released when idle, and the BIOs are swapped for fresh
/// ones after a burst over ``bioShrinkThreshold`` so that idle connections stay small.
public final class TLSEngine {
    /// Drained memory BIOs whose allocation exceeds this many bytes are replaced.
    public static let bioShrinkThreshold = 64 * 1024

    let context: TLSContext
    /// `SSL *`, owning both BIOs.
    let ssl: OpaquePointer
    /// Ciphertext from the network, read by OpenSSL (`rbio`).
    var inbound: OpaquePointer
    /// Ciphertext produced by OpenSSL, for the network (`wbio`).
    var outbound: OpaquePointer
    var handshakeComplete = false
    /// Plaintext accepted before the handshake finished (or that OpenSSL asked us to retry).
    var queuedPlaintext: [UInt8] = []
    var shutdownRequested = false
    var closeNotifySent = false
    var peerClosed = false
    /// Set on the first fatal error; every later read or write rethrows it.
    var failure: TLSError?

    /// Creates a connection in the context's role.
    ///
    /// - Parameter serverName: clients only: sent as SNI (RFC 6066 §3; omitted for IP literals)
    ///   and, when the context verifies peers, required to match the certificate (DNS name or IP
    ///   address). Without it a verifying client checks only the chain. Ignored by servers.
    /// - Throws: ``TLSError`` if OpenSSL cannot allocate the connection or rejects the name.
    public init(context: TLSContext, serverName: String? = nil) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(context.pointer) else {
            throw TLSError.openSSL("cannot create TLS connection")
        }
        guard let inbound = Self.makeMemoryBIO(), let outbound = Self.makeMemoryBIO() else {
            SSL_free(ssl)
            throw TLSError.openSSL("cannot create TLS memory buffers")
        }
        SSL_set_bio(ssl, inbound, outbound)
        if context.isServer {
            SSL_set_accept_state(ssl)
        } else {
            SSL_set_connect_state(ssl)
            if let serverName {
                do throws(TLSError) {
                    try Self.configure(ssl, serverName: serverName, verify: context.verifiesPeer)
                } catch {
                    SSL_free(ssl)
                    throw error
                }
            }
        }
        self.context = context
        self.ssl = ssl
        self.inbound = inbound
        self.outbound = outbound
    }

    deinit {
        SSL_free(ssl)
    }

    /// True once the handshake has finished successfully.
    public var isHandshakeComplete: Bool { handshakeComplete }

    /// The ALPN protocol both sides agreed on (RFC 7301), or nil if none was negotiated.
    public var negotiatedALPN: String? {
        var data: UnsafePointer<UInt8>? = nil
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The negotiated version as OpenSSL names it ("TLSv1.3", "TLSv1.2"); nil before the
    /// handshake completes.
    public var protocolVersion: String? {
        guard handshakeComplete, let name = SSL_get_version(ssl) else { return nil }
        return String(cString: name)
    }

    /// Hands ciphertext read from the socket to OpenSSL (copied; any size). Call
    /// ``readPlaintext(into:)`` afterwards to process it.
    public func receiveCiphertext(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        var written = 0
        // A memory BIO grows as needed; it fails only when malloc does.
        let ok = BIO_write_ex(inbound, base, bytes.count, &written)
        precondition(ok == 1 && written == bytes.count, "TLS memory BIO allocation failed")
    }

    /// Drives the handshake and decrypts whatever is decryptable, appending plaintext to
    /// `plaintext`.
    ///
    /// - Returns: `.closed` once the peer's close_notify has been read (and on every later call),
    ///   otherwise `.ok`.
    /// - Throws: ``TLSError`` on a fatal TLS error (bad handshake, failed verification, bad
    ///   record). The caller should still flush pending ciphertext (the alert) and close.
    public func readPlaintext(into plaintext: inout [UInt8]) throws(TLSError) -> TLSReadStatus {
        if let failure { throw failure }
        if peerClosed { return .closed }
        OpenSSLErrorQueue.clear()
        guard try advanceHandshake() else { return .ok }
        try flushQueuedPlaintext()
        let status = try decryptRecords(into: &plaintext)
        shrinkInboundIfIdle()
        return status
    }

    /// Encrypts application data (all of it; buffers before the handshake completes and flushes
    /// after). The ciphertext becomes pending.
    /// - Throws: ``TLSError`` if the connection already failed or OpenSSL refuses the write
    ///   (e.g. after ``shutdown()``).
    public func writePlaintext(_ bytes: UnsafeRawBufferPointer) throws(TLSError) {
        if let failure { throw failure }
        guard bytes.count > 0 else { return }
        // Queue rather than write when earlier bytes wait, so order is preserved.
        guard handshakeComplete, queuedPlaintext.isEmpty else {
            queuedPlaintext.append(contentsOf: bytes)
            return
        }
        OpenSSLErrorQueue.clear()
        let written = try encrypt(bytes)
        if written < bytes.count {
            queuedPlaintext.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[written...]))
        }
    }

    /// Ciphertext waiting to go to the socket (handshake records, encrypted data, alerts).
    public var hasPendingCiphertext: Bool { copenssl_bio_pending(outbound) > 0 }

    /// Moves pending ciphertext into `buffer` (appends) — the caller writes it to the socket.
    public func takePendingCiphertext(into buffer: inout [UInt8]) {
        let pending = Int(copenssl_bio_pending(outbound))
        guard pending > 0 else { return }
        buffer.reserveCapacity(buffer.count + pending)
        // Copied through a stack chunk: Array offers no way to fill uninitialised tail storage,
        // and zero-filling first costs more than the second memcpy.
        withUnsafeTemporaryAllocation(byteCount: Self.maximumRecordPlaintext, alignment: 1) { chunk in
            var taken = 0
            while BIO_read_ex(outbound, chunk.baseAddress, chunk.count, &taken) == 1, taken > 0 {
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<taken]))
            }
        }
        if copenssl_bio_mem_capacity(outbound) > Self.bioShrinkThreshold, let fresh = Self.makeMemoryBIO() {
            SSL_set0_wbio(ssl, fresh)  // frees the old, now empty BIO
            outbound = fresh
        }
    }

    /// Sends close_notify (RFC 8446 §6.1; the ciphertext becomes pending). Plaintext written
    /// earlier is encrypted first. Before the handshake completes this only records the request;
    /// close_notify follows the handshake. Idempotent; a no-op after a fatal error.
    public func shutdown() {
        guard failure == nil, !closeNotifySent else { return }
        shutdownRequested = true
        guard handshakeComplete else { return }
        OpenSSLErrorQueue.clear()
        // Best effort: data that cannot be sent now is lost either way.
        try? flushQueuedPlaintext()
        closeNotifySent = true
        _ = SSL_shutdown(ssl)
        OpenSSLErrorQueue.clear()
    }

    /// Client side: starts the handshake (ClientHello becomes pending ciphertext). On a server
    /// engine this does nothing useful but is harmless.
    /// - Throws: ``TLSError`` if OpenSSL cannot build the ClientHello (e.g. no usable versions).
    public func startHandshake() throws(TLSError) {
        if let failure { throw failure }
        OpenSSLErrorQueue.clear()
        if try advanceHandshake() {
            try flushQueuedPlaintext()
        }
    }
}
