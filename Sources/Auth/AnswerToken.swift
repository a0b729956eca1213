/// A lock-screen answer credential for one approval request (docs/PUSH.md, "Answer tokens"): an approval alert
/// carries it so the app's notification action can decide the request with one HTTP call, without a socket or API
/// key. Signed with HMAC-SHA-256 (OpenSSL, ``HMACSHA256``) and bound to the approval, the user, the device it was
/// pushed to and an expiry (the approval's deadline).
///
/// Pure: no clock, no randomness, no store. The caller passes the time and a fresh random `nonce` when minting (the
/// token's single-use identity: the store records a used nonce — or the approval's first decision — so a second use
/// is refused); ``verify(_:approvalId:now:key:)`` checks everything that needs no store.
///
/// Wire form: `sbat1.` + base64url(claims) + `.` + base64url(tag), where claims are each id as a 2-byte big-endian
/// length and its UTF-8, the expiry as 8 bytes big-endian (Unix ms), then the nonce; the tag covers
/// `"switchboard answer token v1\0"` followed by the claims bytes, so no other HMAC the key makes can pass for one.
public struct AnswerToken: Sendable, Equatable {
    public var approvalId: String
    public var userId: String
    public var deviceId: String
    /// Unix milliseconds; the token is refused from this instant on.
    public var expiresAt: Int64
    /// Random bytes chosen at minting (16 or more): what the store marks used.
    public var nonce: [UInt8]

    public init(approvalId: String, userId: String, deviceId: String, expiresAt: Int64, nonce: [UInt8]) {
        self.approvalId = approvalId; self.userId = userId; self.deviceId = deviceId; self.expiresAt = expiresAt; self.nonce = nonce
    }

    /// Why a token is refused (mapped by the server API to 403 `answer_token_invalid`, 403 `answer_token_foreign`,
    /// 410 `answer_token_expired`; a used token is the store's 409 `answer_token_used`).
    public enum Refusal: Error, Equatable, Sendable {
        /// Not a token of this form, or its signature does not match.
        case invalid
        /// A valid token of another approval request.
        case foreign
        /// Past its expiry.
        case expired
    }

    static let prefix = "sbat1."
    static let domain = Array("switchboard answer token v1\u{0}".utf8)
    /// Shortest nonce accepted: 128 random bits.
    public static let minimumNonceBytes = 16
    /// Shortest key accepted (a 256-bit secret).
    public static let minimumKeyBytes = 32

    /// The wire form of `self`, signed with `key`.
    /// - Throws: `invalid_key` for a key shorter than ``minimumKeyBytes``, a nonce shorter than
    ///   ``minimumNonceBytes`` or an id longer than 65 535 bytes.
    public func signed(key: [UInt8]) throws(JWTError) -> String {
        guard key.count >= Self.minimumKeyBytes else { throw .make(JWTError.invalidKey, "answer token key must have at least \(Self.minimumKeyBytes) bytes") }
        guard nonce.count >= Self.minimumNonceBytes else { throw .make(JWTError.invalidKey, "answer token nonce must have at least \(Self.minimumNonceBytes) bytes") }
        guard let claims = claimBytes() else { throw .make(JWTError.invalidKey, "answer token ids must have at most 65535 bytes") }
        let tag = try HMACSHA256.authenticate(Self.domain + claims, key: key)
        return Self.prefix + Base64URL.encode(claims) + "." + Base64URL.encode(tag)
    }

    /// The token `text` carries, when it is well formed, signed with `key`, for `approvalId` and not expired at `now`.
    /// The checks run in that order, so a forged token never learns whether its ids or expiry were right.
    public static func verify(_ text: String, approvalId: String, now: Int64, key: [UInt8]) -> Result<AnswerToken, Refusal> {
        guard key.count >= minimumKeyBytes, text.hasPrefix(prefix) else { return .failure(.invalid) }
        let parts = text.dropFirst(prefix.count).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let claims = Base64URL.decode(String(parts[0])), let tag = Base64URL.decode(String(parts[1])),
              tag.count == HMACSHA256.tagLength, (try? HMACSHA256.verify(tag, message: domain + claims, key: key)) == true,
              let token = parse(claims) else {
            return .failure(.invalid)
        }
        guard token.approvalId == approvalId else { return .failure(.foreign) }
        guard now < token.expiresAt else { return .failure(.expired) }
        return .success(token)
    }

    private func claimBytes() -> [UInt8]? {
        var bytes: [UInt8] = []
        for id in [approvalId, userId, deviceId] {
            let utf8 = Array(id.utf8)
            guard utf8.count <= Int(UInt16.max) else { return nil }
            bytes += [UInt8(utf8.count >> 8), UInt8(utf8.count & 0xFF)] + utf8
        }
        let expiry = UInt64(bitPattern: expiresAt)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((expiry >> UInt64(shift)) & 0xFF)) }
        return bytes + nonce
    }

    private static func parse(_ bytes: [UInt8]) -> AnswerToken? {
        var index = 0
        var ids: [String] = []
        for _ in 0..<3 {
            guard index + 2 <= bytes.count else { return nil }
            let length = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            index += 2
            guard index + length <= bytes.count, let id = String(validating: bytes[index..<index + length], as: UTF8.self) else { return nil }
            ids.append(id)
            index += length
        }
        guard index + 8 <= bytes.count else { return nil }
        var expiry: UInt64 = 0
        for byte in bytes[index..<index + 8] { expiry = expiry << 8 | UInt64(byte) }
        index += 8
        let nonce = Array(bytes[index...])
        guard nonce.count >= minimumNonceBytes else { return nil }
        return AnswerToken(approvalId: ids[0], userId: ids[1], deviceId: ids[2], expiresAt: Int64(bitPattern: expiry), nonce: nonce)
    }
}
