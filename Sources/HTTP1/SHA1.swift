import COpenSSL

/// SHA-1 through OpenSSL (`EVP_Digest` with `EVP_sha1`), for the WebSocket accept key (RFC 6455 §4.2.2) and the
/// static assets' ETags: OpenSSL is linked for TLS and JWTs anyway, so the project keeps one implementation of each
/// digest. `COpenSSL` is a leaf target (headers and the system libraries), so `HTTP1` still depends on nothing above it.
///
/// SHA-1 is broken for collision resistance; never use it for anything security-relevant.
/// Pure function, safe from any thread.
public enum SHA1 {
    /// The 20-byte SHA-1 digest of `bytes`.
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let input = Array(bytes)
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 0
        let status = input.withUnsafeBytes { inputBuffer in
            digest.withUnsafeMutableBytes { output in
                EVP_Digest(inputBuffer.baseAddress, inputBuffer.count, output.baseAddress?.assumingMemoryBound(to: UInt8.self),
                           &length, EVP_sha1(), nil)
            }
        }
        // EVP_Digest of an in-memory buffer with a built-in algorithm fails only when allocation fails.
        precondition(status == 1 && length == 20, "OpenSSL SHA-1 failed")
        return digest
    }
}
