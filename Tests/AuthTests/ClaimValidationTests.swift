import Auth
import Testing

@Suite struct ClaimValidationTests {
    private let now = TokenFactory.now

    private func code(_ payload: String, leeway: Int64 = 30, requireExpiry: Bool = true,
                      audience: String? = "switchboard", issuer: String? = "https://backend.example") throws -> String? {
        let token = try TokenFactory.hs256(payload: payload)
        let verifier = TokenFactory.hmacVerifier(audience: audience, issuer: issuer, leeway: leeway, requireExpiry: requireExpiry)
        return TokenFactory.errorCode { try verifier.verify(token, now: now) }
    }

    private func payload(_ extra: String) -> String {
        #"{"iss":"https://backend.example","aud":"switchboard"\#(extra)}"#
    }

    @Test func expiryHonoursTheLeewayToTheSecond() throws {
        #expect(try code(payload(#","exp":\#(now - 30)"#)) == nil)            // exp + 30 == now
        #expect(try code(payload(#","exp":\#(now - 31)"#)) == JWTError.expired)
        #expect(try code(payload(#","exp":\#(now - 31)"#), leeway: 31) == nil)
        #expect(try code(payload(#","exp":\#(now)"#), leeway: 0) == nil)
        #expect(try code(payload(#","exp":\#(now - 1)"#), leeway: 0) == JWTError.expired)
        #expect(try code(payload(#","exp":\#(now - 1)"#), leeway: -100) == JWTError.expired)  // negative → 0
    }

    @Test func notBeforeHonoursTheLeeway() throws {
        let exp = #","exp":\#(now + 600)"#
        #expect(try code(payload(exp + #","nbf":\#(now + 30)"#)) == nil)
        #expect(try code(payload(exp + #","nbf":\#(now + 31)"#)) == JWTError.notYetValid)
        #expect(try code(payload(exp + #","nbf":\#(now + 1)"#), leeway: 0) == JWTError.notYetValid)
        #expect(try code(payload(exp + #","nbf":\#(now)"#), leeway: 0) == nil)
        // A fractional nbf rounds up: validity never starts earlier than stated.
        #expect(try code(payload(exp + #","nbf":\#(now).5"#), leeway: 0) == JWTError.notYetValid)
    }

    @Test func extremeTimesNeitherTrapNorWrap() throws {
        #expect(try code(payload(#","exp":9223372036854775807"#)) == nil)
        #expect(try code(payload(#","exp":-9223372036854775808"#)) == JWTError.expired)
        #expect(try code(payload(#","exp":\#(now + 60),"nbf":-9223372036854775808"#)) == nil)
        #expect(try code(payload(#","exp":1e300"#)) == JWTError.malformed)
    }

    @Test func expiryIsRequiredUnlessDisabled() throws {
        #expect(try code(payload("")) == JWTError.missingClaim)
        #expect(try code(payload(""), requireExpiry: false) == nil)
    }

    @Test func audienceMayBeAStringOrAnArray() throws {
        let exp = #","exp":\#(now + 60)"#
        let base = #"{"iss":"https://backend.example""#
        #expect(try code(base + #","aud":"switchboard""# + exp + "}") == nil)
        #expect(try code(base + #","aud":["billing","switchboard"]"# + exp + "}") == nil)
        #expect(try code(base + #","aud":"billing""# + exp + "}") == JWTError.wrongAudience)
        #expect(try code(base + #","aud":["billing"]"# + exp + "}") == JWTError.wrongAudience)
        #expect(try code(base + #","aud":[]"# + exp + "}") == JWTError.wrongAudience)
        #expect(try code(base + #","aud":"Switchboard""# + exp + "}") == JWTError.wrongAudience)
        #expect(try code(base + exp + "}") == JWTError.missingClaim)
        #expect(try code(base + exp + "}", audience: nil) == nil)
        #expect(try code(base + #","aud":7"# + exp + "}") == JWTError.malformed)
        #expect(try code(base + #","aud":["switchboard",7]"# + exp + "}") == JWTError.malformed)
    }

    @Test func issuerMustMatchExactly() throws {
        let rest = #","aud":"switchboard","exp":\#(now + 60)}"#
        #expect(try code(#"{"iss":"https://backend.example/""# + rest) == JWTError.wrongIssuer)
        #expect(try code(#"{"iss":"https://evil.example""# + rest) == JWTError.wrongIssuer)
        #expect(try code(#"{"aud":"switchboard","exp":\#(now + 60)}"#) == JWTError.missingClaim)
        #expect(try code(#"{"iss":"anyone""# + rest, issuer: nil) == nil)
        #expect(try code(#"{"iss":42"# + rest, issuer: nil) == JWTError.malformed)
    }

    @Test func registeredClaimsOfTheWrongTypeAreMalformed() throws {
        let base = #"{"iss":"https://backend.example","aud":"switchboard""#
        #expect(try code(base + #","exp":"1700000600"}"#) == JWTError.malformed)
        #expect(try code(base + #","exp":\#(now + 60),"nbf":true}"#) == JWTError.malformed)
        #expect(try code(base + #","exp":\#(now + 60),"iat":null}"#) == JWTError.malformed)
        #expect(try code(base + #","exp":\#(now + 60),"sub":["a"]}"#) == JWTError.malformed)
    }

    @Test func checksRunInTheDocumentedOrder() throws {
        // Expired and from the wrong issuer: the time check comes first.
        #expect(try code(#"{"iss":"x","aud":"y","exp":1}"#) == JWTError.expired)
        // Wrong issuer and wrong audience: issuer first.
        #expect(try code(#"{"iss":"x","aud":"y","exp":\#(now + 60)}"#) == JWTError.wrongIssuer)
    }
}
