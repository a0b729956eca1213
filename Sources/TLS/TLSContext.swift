import COpenSSL

/// Shared TLS configuration (an OpenSSL `SSL_CTX`) from which every ``TLSEngine`` is created.
///
/// Immutable after creation; shared by every connection on every loop thread (SSL_CTX is
/// thread-safe once configured). Create contexts at startup, not per connection: loading and
/// checking keys is slow. Both sides refuse renegotiation (a CPU-exhaustion vector) and use
/// `SSL_MODE_RELEASE_BUFFERS` so idle connections hold no record buffers.
public final class TLSContext: @unchecked Sendable {
    // @unchecked: wraps an `SSL_CTX *` that is configured in init and only read afterwards (thread-safe in OpenSSL).
    /// The `SSL_CTX *`, owned by this object and freed in `deinit`.
    let pointer: OpaquePointer
    /// Whether engines made from this context take the server role.
    let isServer: Bool
    /// Whether client engines verify the peer (and so should check the host name).
    let verifiesPeer: Bool
    /// Server: names to pick from, in preference order. Client: names to offer.
    let alpn: ALPNProtocolList

    private init(pointer: OpaquePointer, isServer: Bool, verifiesPeer: Bool, alpn: ALPNProtocolList) {
        self.pointer = pointer
        self.isServer = isServer
        self.verifiesPeer = verifiesPeer
        self.alpn = alpn
    }

    deinit {
        SSL_CTX_free(pointer)
    }

    /// Server context from a PEM certificate chain (leaf first) and a PEM private key.
    ///
    /// Checks that the key matches the certificate. TLS 1.2 is the minimum version. ALPN: the
    /// server selects the first of `alpn` that the client offers; a client offering ALPN without
    /// any match gets no ALPN (the handshake does not fail). Encrypted keys are refused rather
    /// than prompting on a terminal. No server-side session cache: resumption uses stateless
    /// tickets only.
    /// - Throws: ``TLSError`` naming the file and the problem: unreadable or unparsable
    ///   certificate, unreadable or unparsable key, key that does not match, bad ALPN name.
    public static func server(
        certificateChainFile: String,
        privateKeyFile: String,
        alpn: [String] = ["http/1.1"]
    ) throws(TLSError) -> TLSContext {
        let context = try make(server: true, verifyPeer: false, alpn: alpn)
        let ctx = context.pointer
        try context.limitVersions(minimum: .tls12, maximum: nil)
        _ = copenssl_ctx_set_options(ctx, COPENSSL_OP_CIPHER_SERVER_PREFERENCE)
        // The shared session cache is a lock every loop thread takes per handshake and holds
        // up to 20k sessions; stateless tickets (RFC 8446 §4.6.1, RFC 5077) still give resumption.
        _ = copenssl_ctx_set_session_cache_mode(ctx, COPENSSL_SESS_CACHE_OFF)

        guard SSL_CTX_use_certificate_chain_file(ctx, certificateChainFile) == 1 else {
            throw TLSError.openSSL("cannot load certificate chain \(certificateChainFile)")
        }
        let key = try PrivateKeyFile.load(privateKeyFile)
        defer { EVP_PKEY_free(key) }
        guard SSL_CTX_use_PrivateKey(ctx, key) == 1, SSL_CTX_check_private_key(ctx) == 1 else {
            throw TLSError.openSSL(
                "private key \(privateKeyFile) does not match certificate \(certificateChainFile)")
        }
        if !alpn.isEmpty {
            // Unretained: the context owns the SSL_CTX, so it outlives every callback.
            SSL_CTX_set_alpn_select_cb(ctx, selectALPN, Unmanaged.passUnretained(context).toOpaque())
        }
        return context
    }

    /// Client context: verifies the peer against `caFile` (or the system store when nil) unless
    /// `verifyPeer` is false.
    ///
    /// Host-name checking happens per connection: pass `serverName` to ``TLSEngine/init(context:serverName:)``.
    /// `maximumVersion` (default: none) exists mainly so tests can offer only old versions;
    /// allowing TLS 1.1 also drops the OpenSSL security level to 0, which TLS 1.1 needs.
    /// - Throws: ``TLSError`` if the CA file cannot be loaded, the version range is empty, or an
    ///   ALPN name is invalid.
    public static func client(
        verifyPeer: Bool = true,
        caFile: String? = nil,
        alpn: [String] = ["http/1.1"],
        minimumVersion: TLSVersion = .tls12,
        maximumVersion: TLSVersion? = nil
    ) throws(TLSError) -> TLSContext {
        let context = try make(server: false, verifyPeer: verifyPeer, alpn: alpn)
        let ctx = context.pointer
        try context.limitVersions(minimum: minimumVersion, maximum: maximumVersion)

        if verifyPeer {
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
            if let caFile {
                guard SSL_CTX_load_verify_file(ctx, caFile) == 1 else {
                    throw TLSError.openSSL("cannot load CA certificates \(caFile)")
                }
            } else {
                guard SSL_CTX_set_default_verify_paths(ctx) == 1 else {
                    throw TLSError.openSSL("cannot load the system CA store")
                }
            }
        } else {
            SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
        }
        let wire = context.alpn.wireFormat
        // SSL_CTX_set_alpn_protos returns 0 on success, unlike most of OpenSSL.
        if !wire.isEmpty, SSL_CTX_set_alpn_protos(ctx, wire, UInt32(wire.count)) != 0 {
            throw TLSError.openSSL("cannot set ALPN protocols \(alpn)")
        }
        return context
    }

    /// Creates the `SSL_CTX` with the settings both roles share.
    private static func make(server: Bool, verifyPeer: Bool, alpn: [String]) throws(TLSError) -> TLSContext {
        _ = openSSLInitialised
        OpenSSLErrorQueue.clear()
        let protocols = try ALPNProtocolList(alpn)
        guard let ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method()) else {
            throw TLSError.openSSL("cannot create TLS context")
        }
        // From here `deinit` frees ctx if configuration throws.
        let context = TLSContext(pointer: ctx, isServer: server, verifiesPeer: verifyPeer, alpn: protocols)
        // The engine hands OpenSSL a different buffer when it retries a write it had to queue.
        _ = copenssl_ctx_set_mode(ctx, COPENSSL_MODE_RELEASE_BUFFERS | COPENSSL_MODE_ACCEPT_MOVING_WRITE_BUFFER)
        _ = copenssl_ctx_set_options(ctx, COPENSSL_OP_NO_RENEGOTIATION)
        return context
    }

    private func limitVersions(minimum: TLSVersion, maximum: TLSVersion?) throws(TLSError) {
        if let maximum, maximum < minimum {
            throw TLSError(message: "TLS maximum version \(maximum) is below minimum version \(minimum)")
        }
        guard copenssl_ctx_set_min_proto_version(pointer, minimum.openSSLValue) == 1 else {
            throw TLSError.openSSL("cannot set minimum TLS version \(minimum)")
        }
        if let maximum {
            guard copenssl_ctx_set_max_proto_version(pointer, maximum.openSSLValue) == 1 else {
                throw TLSError.openSSL("cannot set maximum TLS version \(maximum)")
            }
        }
        // OpenSSL 3 at security level 1+ forbids the SHA-1/MD5 signatures TLS 1.1 depends on.
        if minimum == .tls11 || maximum == .tls11 {
            SSL_CTX_set_security_level(pointer, 0)
        }
    }
}

/// OpenSSL 3 initialises itself lazily; doing it once up front loads the configuration and error
/// strings before several loop threads race to do so. Memory BIOs never touch sockets, so OpenSSL
/// can never raise SIGPIPE here.
private let openSSLInitialised: Bool = OPENSSL_init_ssl(0, nil) == 1

/// `SSL_CTX_set_alpn_select_cb` callback: `arg` is the unretained server ``TLSContext``.
/// Returning `SSL_TLSEXT_ERR_NOACK` lets the handshake continue without ALPN (RFC 7301 §3.2
/// permits a fatal alert instead; we prefer to serve clients with odd lists).
private func selectALPN(
    _ ssl: OpaquePointer?,
    _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ outLength: UnsafeMutablePointer<UInt8>?,
    _ offered: UnsafePointer<UInt8>?,
    _ offeredLength: UInt32,
    _ arg: UnsafeMutableRawPointer?
) -> Int32 {
    guard let arg, let out, let outLength, let offered else { return SSL_TLSEXT_ERR_NOACK }
    let context = Unmanaged<TLSContext>.fromOpaque(arg).takeUnretainedValue()
    let list = UnsafeBufferPointer(start: offered, count: Int(offeredLength))
    guard let range = context.alpn.select(from: list) else { return SSL_TLSEXT_ERR_NOACK }
    // Pointing into the client's list is fine: OpenSSL copies the selection before returning.
    out.pointee = offered + range.lowerBound
    outLength.pointee = UInt8(range.count)
    return SSL_TLSEXT_ERR_OK
}
