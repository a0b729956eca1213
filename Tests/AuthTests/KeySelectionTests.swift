import Auth
import Testing

@Suite struct KeySelectionTests {
    private let now = TokenFactory.now
    private let claims: [String: JSONValue] = ["sub": .string("alice"), "exp": .int(TokenFactory.now + 60)]
    private let old = JWTKey.hmac(secret: Array("old secret, retired next week....".utf8), keyID: "old")
    private let new = JWTKey.hmac(secret: Array("new secret, current since Monday.".utf8), keyID: "new")

    private func code(_ verifier: JWTVerifier, _ token: String) -> String? {
        TokenFactory.errorCode { try verifier.verify(token, now: now) }
    }

    @Test func kidSelectsTheKeyDuringRotation() throws {
        let verifier = JWTVerifier(keys: [old, new], audience: nil, issuer: nil)
        #expect(try verifier.verify(JWTSigner.sign(claims: claims, key: old), now: now).subject == "alice")
        #expect(try verifier.verify(JWTSigner.sign(claims: claims, key: new), now: now).subject == "alice")
        // Retiring the old key retires its tokens.
        let afterRotation = JWTVerifier(keys: [new], audience: nil, issuer: nil)
        #expect(code(afterRotation, try JWTSigner.sign(claims: claims, key: old)) == JWTError.unknownKey)
    }

    @Test func aKidOnlyTriesTheKeyWithThatID() throws {
        // Signed with "old"'s secret but labelled "new": the old key is not tried.
        let oldSecret = Array("old secret, retired next week....".utf8)
        let mislabelled = try JWTSigner.sign(claims: claims, key: .hmac(secret: oldSecret, keyID: "new"))
        #expect(code(JWTVerifier(keys: [old, new], audience: nil, issuer: nil), mislabelled) == JWTError.badSignature)
        // Keys without an ID are never tried for a token that names one.
        let anonymous = JWTKey.hmac(secret: oldSecret)
        #expect(code(JWTVerifier(keys: [anonymous], audience: nil, issuer: nil), mislabelled) == JWTError.unknownKey)
    }

    @Test func withoutAKidEveryKeyOfTheAlgorithmIsTried() throws {
        let unlabeled = try JWTSigner.sign(claims: claims, key: .hmac(secret: Array("new secret, current since Monday.".utf8)))
        #expect(try JWTVerifier(keys: [old, new], audience: nil, issuer: nil).verify(unlabeled, now: now).subject == "alice")
        #expect(code(JWTVerifier(keys: [old], audience: nil, issuer: nil), unlabeled) == JWTError.badSignature)
    }

    @Test func noKeysMeansUnknownKey() throws {
        let token = try JWTSigner.sign(claims: claims, key: new)
        #expect(code(JWTVerifier(keys: [], audience: nil, issuer: nil), token) == JWTError.unknownKey)
        #expect(code(JWTVerifier(keys: [], audience: nil, issuer: nil), try TokenFactory.hs256()) == JWTError.unknownKey)
    }

    @Test func mixedAlgorithmsUseOnlyTheKeyPinnedToTheHeadersAlg() throws {
        let fixture = try KeyFixture.get()
        let ec = try JWTKey.ecPublicKey(pem: fixture.publicPEM, keyID: "ec")
        let verifier = JWTVerifier(keys: [ec, new], audience: nil, issuer: nil)
        #expect(try verifier.verify(JWTSigner.sign(claims: claims, key: new), now: now).subject == "alice")
        let ecToken = try JWTSigner.sign(claims: claims, key: .ecPrivateKey(pem: fixture.pkcs8PEM, keyID: "ec"))
        #expect(try verifier.verify(ecToken, now: now).subject == "alice")
        // kid "ec" but alg HS256: the key for that kid is pinned to ES256.
        let lying = try TokenFactory.hs256(header: #"{"alg":"HS256","kid":"ec"}"#, payload: #"{"exp":1700000060}"#,
                                           secret: Array("new secret, current since Monday.".utf8))
        #expect(code(verifier, lying) == JWTError.algorithmMismatch)
    }

    @Test func verifierIsSendableAcrossTasks() async throws {
        let verifier = JWTVerifier(keys: [old, new], audience: nil, issuer: nil)
        let tokens = try (0..<8).map { index in
            try JWTSigner.sign(claims: ["sub": .string("user\(index)"), "exp": .int(now + 60)], key: index.isMultiple(of: 2) ? old : new)
        }
        let subjects = await withTaskGroup(of: String?.self) { group in
            for token in tokens {
                group.addTask { try? verifier.verify(token, now: TokenFactory.now).subject }
            }
            return await group.reduce(into: [String]()) { if let subject = $1 { $0.append(subject) } }
        }
        #expect(Set(subjects) == Set((0..<8).map { "user\($0)" }))
    }
}
