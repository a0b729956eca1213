@testable import Auth

/// Builds tokens with arbitrary header and payload JSON text, which `JWTSigner` deliberately
/// cannot (it always writes a well-formed header).
enum TokenFactory {
    static let secret = Array("correct horse battery staple 0123".utf8)
    /// A fixed time well inside every default claim set's validity window.
    static let now: Int64 = 1_700_000_000

    /// Default valid payload: expires an hour after ``now``.
    static let payload = #"{"sub":"alice","iss":"https://backend.example","aud":"switchboard","exp":1700003600,"iat":1700000000}"#

    static func segment(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

    /// `segment(header).segment(payload).HMAC` with any header text.
    static func hs256(header: String = #"{"alg":"HS256","typ":"JWT"}"#, payload: String = payload,
                      secret: [UInt8] = secret) throws -> String {
        let input = segment(header) + "." + segment(payload)
        let tag = try HMACSHA256.authenticate(Array(input.utf8), key: secret)
        return input + "." + Base64URL.encode(tag)
    }

    /// An ES256 token whose signature comes from `openssl dgst -sha256 -sign`, converted from DER
    /// to R‖S by the test's own DER code.
    static func es256ViaOpenSSL(header: String = #"{"alg":"ES256","typ":"JWT"}"#, payload: String = payload,
                                privateKeyFile: String) throws -> (token: String, der: [UInt8]) {
        let input = segment(header) + "." + segment(payload)
        let der = try ExternalTools.opensslSign(Array(input.utf8), privateKeyFile: privateKeyFile)
        guard let raw = DERSignature.toRaw(der) else { throw ExternalTools.Failure(description: "bad DER from openssl") }
        return (input + "." + Base64URL.encode(raw), der)
    }

    static func hmacVerifier(audience: String? = "switchboard", issuer: String? = "https://backend.example",
                             leeway: Int64 = 30, requireExpiry: Bool = true) -> JWTVerifier {
        JWTVerifier(keys: [.hmac(secret: secret)], audience: audience, issuer: issuer,
                    leewaySeconds: leeway, requireExpiry: requireExpiry)
    }

    /// The JWTError code `body` throws, or nil when it succeeds.
    static func errorCode<T>(_ body: () throws -> T) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as JWTError {
            return error.code
        } catch {
            return "unexpected error type \(type(of: error))"
        }
    }
}
