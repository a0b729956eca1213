import COpenSSL
import Glibc

/// The OpenSSL calls behind ``TLSEngine``'s public operations.
extension TLSEngine {
    /// Largest TLS plaintext record (RFC 8446 §5.1: 2^14 bytes); one SSL_read never returns more.
    static let maximumRecordPlaintext = 16 * 1024

    /// Steps the handshake; returns whether it is complete. Sends a requested close_notify
    /// as soon as it can.
    func advanceHandshake() throws(TLSError) -> Bool {
        if handshakeComplete { return true }
        let result = SSL_do_handshake(ssl)
        guard result == 1 else {
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return false
            default:
                throw fail("TLS handshake failed")
            }
        }
        handshakeComplete = true
        if shutdownRequested {
            try flushQueuedPlaintext()
            shutdown()
        }
        return true
    }

    /// Encrypts as much of `queuedPlaintext` as OpenSSL accepts, dropping its storage once empty
    /// (an early burst must not pin memory for the connection's lifetime).
    func flushQueuedPlaintext() throws(TLSError) {
        guard handshakeComplete, !queuedPlaintext.isEmpty else { return }
        var written = 0
        var failure: TLSError?
        queuedPlaintext.withUnsafeBytes { raw in
            do throws(TLSError) { written = try encrypt(raw) } catch { failure = error }
        }
        if written == queuedPlaintext.count {
            queuedPlaintext = []
        } else {
            queuedPlaintext.removeFirst(written)
        }
        if let failure { throw failure }
    }

    /// Encrypts `bytes` into the outbound BIO; returns how many were consumed. With memory BIOs
    /// that is all of them, unless OpenSSL first needs to read — which renegotiation being
    /// refused makes near-impossible; the caller queues the rest and retries after a read.
    func encrypt(_ bytes: UnsafeRawBufferPointer) throws(TLSError) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var offset = 0
        while offset < bytes.count {
            var written = 0
            let result = SSL_write_ex(ssl, base + offset, bytes.count - offset, &written)
            guard result == 1 else {
                switch SSL_get_error(ssl, result) {
                case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                    return offset
                default:
                    throw fail("TLS write failed")
                }
            }
            offset += written
        }
        return offset
    }

    /// Reads every decryptable record into `plaintext`.
    func decryptRecords(into plaintext: inout [UInt8]) throws(TLSError) -> TLSReadStatus {
        // The scratch record lives on the stack: 16 KiB per connection would cost 320 MB at 20k.
        let outcome = withUnsafeTemporaryAllocation(byteCount: Self.maximumRecordPlaintext, alignment: 1) {
            scratch -> Int32 in
            while true {
                var count = 0
                let result = SSL_read_ex(ssl, scratch.baseAddress, scratch.count, &count)
                guard result == 1 else { return SSL_get_error(ssl, result) }
                plaintext.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[..<count]))
            }
        }
        switch outcome {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .ok
        case SSL_ERROR_ZERO_RETURN:
            peerClosed = true
            return .closed
        default:
            throw fail("TLS connection failed")
        }
    }

    /// Records and returns a fatal error: `context`, the OpenSSL error queue, and for clients the
    /// certificate verification result when that is what failed.
    func fail(_ context: String) -> TLSError {
        var error = TLSError.openSSL(context)
        let verifyResult = SSL_get_verify_result(ssl)
        if !self.context.isServer, verifyResult != X509_V_OK {
            error.message += " [certificate verification: "
                + String(cString: X509_verify_cert_error_string(verifyResult)) + "]"
        }
        failure = error
        return error
    }

    /// Swaps in a fresh inbound BIO once a large burst has been consumed: memory BIOs keep
    /// their high-water allocation.
    func shrinkInboundIfIdle() {
        guard copenssl_bio_pending(inbound) == 0,
              copenssl_bio_mem_capacity(inbound) > Self.bioShrinkThreshold,
              let fresh = Self.makeMemoryBIO() else { return }
        SSL_set0_rbio(ssl, fresh)  // frees the old BIO
        inbound = fresh
    }

    /// A memory BIO whose empty reads mean "retry" rather than EOF, so OpenSSL reports
    /// WANT_READ while waiting for the socket.
    static func makeMemoryBIO() -> OpaquePointer? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        _ = copenssl_bio_set_mem_eof_return(bio, -1)
        return bio
    }

    /// Sets SNI and, when verifying, the name the certificate must match.
    static func configure(_ ssl: OpaquePointer, serverName: String, verify: Bool) throws(TLSError) {
        // RFC 6066 §3: "Literal IPv4 and IPv6 addresses are not permitted in HostName".
        if !isIPAddress(serverName), copenssl_set_tlsext_host_name(ssl, serverName) != 1 {
            throw TLSError.openSSL("invalid TLS server name \"\(serverName)\"")
        }
        // SSL_set1_host treats IP literals as IP addresses to match against iPAddress SANs.
        if verify, SSL_set1_host(ssl, serverName) != 1 {
            throw TLSError.openSSL("cannot verify TLS server name \"\(serverName)\"")
        }
    }

    private static func isIPAddress(_ name: String) -> Bool {
        var scratch = in6_addr()
        return inet_pton(AF_INET, name, &scratch) == 1 || inet_pton(AF_INET6, name, &scratch) == 1
    }
}

extension TLSEngine {
    /// Bytes allocated by the outbound memory BIO (diagnostics and tests).
    var outboundBufferCapacity: Int { copenssl_bio_mem_capacity(outbound) }
    /// Bytes allocated by the inbound memory BIO (diagnostics and tests).
    var inboundBufferCapacity: Int { copenssl_bio_mem_capacity(inbound) }
}
