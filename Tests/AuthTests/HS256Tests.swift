@testable import Auth
import Foundation
import Testing

@Suite struct HS256Tests {
    private let now = TokenFactory.now

    private var claims: [String: JSONValue] {
        ["sub": .string("alice"), "iss": .string("https://backend.example"), "aud": .string("switchboard"),
         "exp": .int(now + 3600), "iat": .int(now), "room": .string("lobby"), "n": .number(0.5)]
    }

    @Test func signedTokensVerifyAndExposeTheClaims() throws {
        let token = try JWTSigner.sign(claims: claims, key: .hmac(secret: TokenFactory.secret))
        let verified = try TokenFactory.hmacVerifier().verify(token, now: now)
        #expect(verified.subject == "alice")
        #expect(verified.issuer == "https://backend.example")
        #expect(verified.audience == ["switchboard"])
        #expect(verified.expiresAt == now + 3600)
        #expect(verified.issuedAt == now)
        #expect(verified.notBefore == nil)
        #expect(verified.string("room") == "lobby")
        #expect(verified.string("n") == nil)
        #expect(verified.all == claims)
    }

    @Test func headerCarriesAlgTypAndKid() throws {
        let token = try JWTSigner.sign(claims: claims, key: .hmac(secret: TokenFactory.secret, keyID: "2024-06"))
        let header = try #require(Base64URL.decode(String(token.split(separator: ".")[0])))
        #expect(try JSONValue.parse(header) == .object(["alg": .string("HS256"), "typ": .string("JWT"), "kid": .string("2024-06")]))
    }

    @Test func tokensMintedByPythonsStandardLibraryVerify() throws {
        let payloads = [
            TokenFactory.payload,
            #"{"sub": "bob", "exp": 1700000100, "aud": ["other", "switchboard"], "iss": "https://backend.example", "x": [1, 2.5, null]}"#,
            #"{"sub":"\u00e9t\u00e9","exp":1700000000.9,"aud":"switchboard","iss":"https://backend.example"}"#,
        ]
        let tokens = try ExternalTools.pythonHS256Tokens(secret: TokenFactory.secret, payloads: payloads)
        try #require(tokens.count == 3)
        let verifier = TokenFactory.hmacVerifier()
        #expect(try verifier.verify(tokens[0], now: now).subject == "alice")
        let second = try verifier.verify(tokens[1], now: now)
        #expect(second.subject == "bob")
        #expect(second.audience == ["other", "switchboard"])
        #expect(second.all["x"] == .array([.int(1), .number(2.5), .null]))
        let third = try verifier.verify(tokens[2], now: now)
        #expect(third.subject == "été")
        #expect(third.expiresAt == now)  // 1700000000.9 rounds down: a fraction never extends validity
        // And the same token under another secret is a forgery.
        let forged = try ExternalTools.pythonHS256Tokens(secret: Array("another secret of 32 bytes.......".utf8), payloads: payloads)
        #expect(TokenFactory.errorCode { try verifier.verify(forged[0], now: now) } == JWTError.badSignature)
    }

    @Test func tamperedPayloadOrHeaderIsABadSignature() throws {
        let token = try TokenFactory.hs256()
        let parts = token.split(separator: ".").map(String.init)
        let elevated = TokenFactory.segment(TokenFactory.payload.replacingOccurrences(of: "alice", with: "admin"))
        #expect(TokenFactory.errorCode { try TokenFactory.hmacVerifier().verify(parts[0] + "." + elevated + "." + parts[2], now: now) }
            == JWTError.badSignature)
        let otherHeader = TokenFactory.segment(#"{"alg":"HS256","typ":"JWT","x":1}"#)
        #expect(TokenFactory.errorCode { try TokenFactory.hmacVerifier().verify(otherHeader + "." + parts[1] + "." + parts[2], now: now) }
            == JWTError.badSignature)
    }

    @Test func truncatedOrExtendedTagsAreRejected() throws {
        let token = try TokenFactory.hs256()
        let parts = token.split(separator: ".").map(String.init)
        let tag = try #require(Base64URL.decode(parts[2]))
        for candidate in [Array(tag.prefix(16)), Array(tag.dropLast()), tag + [0], []] {
            let forged = parts[0] + "." + parts[1] + "." + Base64URL.encode(candidate)
            #expect(TokenFactory.errorCode { try TokenFactory.hmacVerifier().verify(forged, now: now) } == JWTError.badSignature)
        }
    }

    @Test func anEmptySecretNeitherSignsNorVerifies() throws {
        #expect(throws: JWTError.self) { try JWTSigner.sign(claims: claims, key: .hmac(secret: [])) }
        let token = try TokenFactory.hs256()
        let verifier = JWTVerifier(keys: [.hmac(secret: [])], audience: nil, issuer: nil)
        #expect(TokenFactory.errorCode { try verifier.verify(token, now: now) } == JWTError.invalidKey)
    }

    @Test func shortSecretsStillWork() throws {
        let key = JWTKey.hmac(secret: Array("short".utf8))
        let token = try JWTSigner.sign(claims: claims, key: key)
        let verifier = JWTVerifier(keys: [key], audience: "switchboard", issuer: nil)
        #expect(try verifier.verify(token, now: now).subject == "alice")
    }

    @Test func signerRefusesClaimsItsVerifierWouldReject() {
        #expect(throws: JWTError(code: JWTError.malformed, message: "the exp claim is not a NumericDate")) {
            try JWTSigner.sign(claims: ["exp": .string("tomorrow")], key: .hmac(secret: TokenFactory.secret))
        }
        #expect(throws: JWTError.self) {
            try JWTSigner.sign(claims: ["score": .number(.nan)], key: .hmac(secret: TokenFactory.secret))
        }
    }
}
