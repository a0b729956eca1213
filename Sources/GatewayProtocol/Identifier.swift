/// The one grammar of user, device, session and group ids, wherever an id enters: a token's `sub` and `device_id`,
/// a client command's `to`/`with`/`userId`/`sessionId`/`groupId` (checked as `JSONFields.id` reads it), an API path segment
/// or body field.
///
/// An id is 1–128 characters of `A–Z a–z 0–9 - . _ ~ ! $ & ' ( ) * + , ; = : @`, and not `.` or `..`. These are
/// exactly the characters RFC 3986 allows unescaped in a URL path segment, so every id can be addressed through the
/// API as it is (or percent-encoded: segments are decoded before lookup). Spaces, `/`, `%`, `?`, `#`, quotes,
/// backslashes, control characters and anything outside ASCII are refused, so an id means the same thing in a
/// path, a log line, a JSON string and a shell argument to curl.
public enum Identifier {
    /// The longest id, in bytes (= characters: ids are ASCII).
    public static let maxLength = 128

    /// The rule in words, for error messages and docs.
    public static let rule = "1 to 128 characters of A-Z a-z 0-9 - . _ ~ ! $ & ' ( ) * + , ; = : @ (not \".\" or \"..\")"

    /// True when `id` follows the grammar.
    public static func isValid(_ id: String) -> Bool {
        let bytes = id.utf8
        guard (1...maxLength).contains(bytes.count), id != ".", id != ".." else { return false }
        return bytes.allSatisfy(allowed)
    }

    /// `invalid_id` naming the field (or path segment) and the rule, or nothing when `id` is valid.
    public static func check(_ id: String, field: String) throws(GatewayError) {
        guard !isValid(id) else { return }
        throw GatewayError(.invalidID, "\(field) is not a valid id: ids are \(rule)")
    }

    private static func allowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return punctuation.contains(byte)
        }
    }

    private static let punctuation: Set<UInt8> = Set("-._~!$&'()*+,;=:@".utf8)
}
