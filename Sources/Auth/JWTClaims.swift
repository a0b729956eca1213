/// The claim set of a verified JWT (RFC 7519 §4), with the registered claims typed.
///
/// A plain value; `all` holds every claim as sent, including the registered ones.
public struct JWTClaims: Sendable, Equatable {
    /// `sub` (RFC 7519 §4.1.2).
    public var subject: String?
    /// `iss` (RFC 7519 §4.1.1).
    public var issuer: String?
    /// `aud` (RFC 7519 §4.1.3): a single string is returned as a one-element array; empty when absent.
    public var audience: [String]
    /// `exp` in Unix seconds (RFC 7519 §4.1.4); a fractional value is rounded down (earlier).
    public var expiresAt: Int64?
    /// `nbf` in Unix seconds (RFC 7519 §4.1.5); a fractional value is rounded up (later).
    public var notBefore: Int64?
    /// `iat` in Unix seconds (RFC 7519 §4.1.6); a fractional value is rounded down.
    public var issuedAt: Int64?
    /// Every claim of the token, registered ones included.
    public var all: [String: JSONValue]

    /// Reads the registered claims out of `all`.
    /// - Throws: `malformed` when `sub`/`iss` is not a string, `aud` is neither a string nor an
    ///   array of strings, or `exp`/`nbf`/`iat` is not a finite number within `Int64` range.
    public init(_ all: [String: JSONValue]) throws(JWTError) {
        self.all = all
        subject = try JWTClaims.optionalString(all, "sub")
        issuer = try JWTClaims.optionalString(all, "iss")
        switch all["aud"] {
        case nil:
            audience = []
        case .string(let value):
            audience = [value]
        case .array(let values):
            audience = try values.map { (value: JSONValue) throws(JWTError) -> String in
                guard case .string(let string) = value else {
                    throw .make(JWTError.malformed, "the aud claim has a non-string element")
                }
                return string
            }
        default:
            throw .make(JWTError.malformed, "the aud claim is neither a string nor an array of strings")
        }
        expiresAt = try JWTClaims.numericDate(all, "exp", rounding: .down)
        notBefore = try JWTClaims.numericDate(all, "nbf", rounding: .up)
        issuedAt = try JWTClaims.numericDate(all, "iat", rounding: .down)
    }

    /// The claim `name` if it is a JSON string; nil when absent or of another type.
    public func string(_ name: String) -> String? {
        all[name]?.stringValue
    }

    private static func optionalString(_ all: [String: JSONValue], _ name: String) throws(JWTError) -> String? {
        guard let value = all[name] else { return nil }
        guard case .string(let string) = value else {
            throw .make(JWTError.malformed, "the \(name) claim is not a string")
        }
        return string
    }

    /// RFC 7519 §2 NumericDate: seconds since the epoch, possibly fractional. Rounding goes in the
    /// stricter direction for each claim so a fraction never extends validity.
    private static func numericDate(
        _ all: [String: JSONValue], _ name: String, rounding: FloatingPointRoundingRule
    ) throws(JWTError) -> Int64? {
        switch all[name] {
        case nil:
            return nil
        case .int(let seconds):
            return seconds
        case .number(let seconds):
            if let whole = JSONValue.exactInt64(seconds.rounded(rounding)) { return whole }
            throw .make(JWTError.malformed, "the \(name) claim is out of range")
        default:
            throw .make(JWTError.malformed, "the \(name) claim is not a NumericDate")
        }
    }
}
