import Auth
import Testing

@Suite struct ES256Tests {
    private let now = TokenFactory.now
    private let claims: [String: JSONValue] = [
        "iss": .string("TEAMID1234"), "iat": .int(TokenFactory.now), "exp": .int(TokenFactory.now + 600),
    ]

    private func verifier(_ keys: [JWTKey]) -> JWTVerifier {
        JWTVerifier(keys: keys, audience: nil, issuer: "TEAMID1234")
    }

    @Test func signsWithPKCS8AndVerifiesWithThePublicKey() throws {
        let fixture = try KeyFixture.get()
        let signing = try JWTKey.ecPrivateKey(pem: fixture.pkcs8PEM, keyID: "ABC123DEFG")
        #expect(signing.algorithm == .es256)
        #expect(signing.keyID == "ABC123DEFG")
        #expect(signing.canSign)
        let token = try JWTSigner.sign(claims: claims, key: signing)
        let parts = token.split(separator: ".").map(String.init)
        #expect(Base64URL.decode(parts[2])?.count == 64)
        let publicKey = try JWTKey.ecPublicKey(pem: fixture.publicPEM, keyID: "ABC123DEFG")
        #expect(!publicKey.canSign)
        #expect(try verifier([publicKey]).verify(token, now: now).issuer == "TEAMID1234")
        // A private key verifies too.
        #expect(try verifier([signing]).verify(token, now: now).issuedAt == now)
        // ECDSA is randomized: two signatures over the same claims differ, both valid.
        let again = try JWTSigner.sign(claims: claims, key: signing)
        #expect(again != token)
        #expect(again.split(separator: ".")[0...1] == token.split(separator: ".")[0...1])
    }

    @Test func sec1PrivateKeysSignToo() throws {
        let fixture = try KeyFixture.get()
        let token = try JWTSigner.sign(claims: claims, key: try .ecPrivateKey(pem: fixture.sec1PEM))
        #expect(try verifier([.ecPublicKey(pem: fixture.sec1PublicPEM)]).verify(token, now: now).issuer == "TEAMID1234")
        // The unrelated PKCS#8 key's public half does not verify it.
        #expect(TokenFactory.errorCode { try verifier([.ecPublicKey(pem: fixture.publicPEM)]).verify(token, now: now) }
            == JWTError.badSignature)
    }

    @Test func signaturesFromOpenSSLDgstVerify() throws {
        let fixture = try KeyFixture.get()
        let payload = #"{"iss":"TEAMID1234","iat":1700000000,"exp":1700000600}"#
        let (token, der) = try TokenFactory.es256ViaOpenSSL(payload: payload, privateKeyFile: fixture.pkcs8File)
        let claims = try verifier([.ecPublicKey(pem: fixture.publicPEM)]).verify(token, now: now)
        #expect(claims.expiresAt == now + 600)

        // The DER signature openssl produced, placed in the token as is, must be refused.
        let parts = token.split(separator: ".").map(String.init)
        let derToken = parts[0] + "." + parts[1] + "." + Base64URL.encode(der)
        #expect(TokenFactory.errorCode { try verifier([.ecPublicKey(pem: fixture.publicPEM)]).verify(derToken, now: now) }
            == JWTError.badSignature)
    }

    @Test func ourSignaturesVerifyWithOpenSSLDgst() throws {
        let fixture = try KeyFixture.get()
        let token = try JWTSigner.sign(claims: claims, key: try .ecPrivateKey(pem: fixture.pkcs8PEM))
        let parts = token.split(separator: ".").map(String.init)
        let raw = try #require(Base64URL.decode(parts[2]))
        let input = Array((parts[0] + "." + parts[1]).utf8)
        #expect(try ExternalTools.opensslVerify(input, derSignature: DERSignature.fromRaw(raw), publicKeyFile: fixture.publicFile))
        var flipped = raw
        flipped[10] ^= 1
        #expect(try !ExternalTools.opensslVerify(input, derSignature: DERSignature.fromRaw(flipped), publicKeyFile: fixture.publicFile))
    }

    @Test func wrongLengthSignaturesAreRejected() throws {
        let fixture = try KeyFixture.get()
        let token = try JWTSigner.sign(claims: claims, key: try .ecPrivateKey(pem: fixture.pkcs8PEM))
        let parts = token.split(separator: ".").map(String.init)
        let raw = try #require(Base64URL.decode(parts[2]))
        let check = verifier([try .ecPublicKey(pem: fixture.publicPEM)])
        for candidate in [Array(raw.dropLast()), raw + [0], [0] + raw, Array(raw.prefix(32)), [], [UInt8](repeating: 0, count: 64)] {
            let forged = parts[0] + "." + parts[1] + "." + Base64URL.encode(candidate)
            #expect(TokenFactory.errorCode { try check.verify(forged, now: now) } == JWTError.badSignature)
        }
    }

    /// The classic confusion: the attacker HMACs a token with the *public key PEM* as the secret
    /// and sets alg HS256, hoping the server feeds its public key to HMAC.
    @Test func hs256TokenSignedWithThePublicKeyPEMIsRejected() throws {
        let fixture = try KeyFixture.get()
        let forged = try TokenFactory.hs256(payload: #"{"iss":"TEAMID1234","exp":1700000600}"#,
                                            secret: Array(fixture.publicPEM.utf8))
        let publicKey = try JWTKey.ecPublicKey(pem: fixture.publicPEM)
        #expect(TokenFactory.errorCode { try verifier([publicKey]).verify(forged, now: now) } == JWTError.algorithmMismatch)
        let keyed = try JWTKey.ecPublicKey(pem: fixture.publicPEM, keyID: "k1")
        let forgedWithKid = try TokenFactory.hs256(header: #"{"alg":"HS256","kid":"k1"}"#,
                                                   payload: #"{"iss":"TEAMID1234","exp":1700000600}"#,
                                                   secret: Array(fixture.publicPEM.utf8))
        #expect(TokenFactory.errorCode { try verifier([keyed]).verify(forgedWithKid, now: now) } == JWTError.algorithmMismatch)
    }

    @Test func anES256TokenIsNotCheckedWithAnHMACKey() throws {
        let fixture = try KeyFixture.get()
        let token = try JWTSigner.sign(claims: claims, key: try .ecPrivateKey(pem: fixture.pkcs8PEM))
        #expect(TokenFactory.errorCode { try verifier([.hmac(secret: Array(fixture.publicPEM.utf8))]).verify(token, now: now) }
            == JWTError.algorithmMismatch)
    }

    @Test func aPublicKeyCannotSign() throws {
        let fixture = try KeyFixture.get()
        #expect(throws: JWTError.self) {
            try JWTSigner.sign(claims: claims, key: .ecPublicKey(pem: fixture.publicPEM))
        }
        do {
            _ = try JWTSigner.sign(claims: claims, key: .ecPublicKey(pem: fixture.publicPEM))
        } catch {
            #expect(error.code == JWTError.invalidKey)
        }
    }
}
