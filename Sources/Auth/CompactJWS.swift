/// A compact-serialized JWS split into its three decoded parts (RFC 7515 §7.1).
///
/// Only shape is checked here: exactly three base64url parts within
/// ``JWTVerifier/maximumTokenLength``. Nothing is trusted yet.
struct CompactJWS {
    /// Decoded JOSE header bytes.
    let header: [UInt8]
    /// Decoded payload bytes.
    let payload: [UInt8]
    /// Decoded signature bytes.
    let signature: [UInt8]
    /// ASCII `base64url(header) "." base64url(payload)`, the bytes that were signed.
    let signingInput: [UInt8]

    init(_ token: String) throws(JWTError) {
        let bytes = Array(token.utf8)
        guard bytes.count <= JWTVerifier.maximumTokenLength else {
            throw .make(JWTError.malformed, "the token is longer than \(JWTVerifier.maximumTokenLength) bytes")
        }
        let pieces = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard pieces.count == 3 else {
            throw .make(JWTError.malformed, "a JWT has exactly three dot-separated parts, this has \(pieces.count)")
        }
        guard !pieces[0].isEmpty, !pieces[1].isEmpty else {
            throw .make(JWTError.malformed, "the JWT header or payload part is empty")
        }
        guard let header = Base64URL.decode(String(decoding: pieces[0], as: UTF8.self)),
              let payload = Base64URL.decode(String(decoding: pieces[1], as: UTF8.self)),
              let signature = Base64URL.decode(String(decoding: pieces[2], as: UTF8.self))
        else {
            throw .make(JWTError.malformed, "a JWT part is not valid unpadded base64url")
        }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = Array(bytes[..<pieces[1].endIndex])
    }
}
