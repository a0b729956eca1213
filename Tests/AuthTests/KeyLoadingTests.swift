import Auth
import Testing

@Suite struct KeyLoadingTests {
    private func loadCode(_ body: () throws -> JWTKey) -> String? {
        TokenFactory.errorCode(body)
    }

    @Test func refusesKeysOnOtherCurvesOrAlgorithms() throws {
        let fixture = try KeyFixture.get()
        #expect(loadCode { try .ecPrivateKey(pem: fixture.p384PrivatePEM) } == JWTError.invalidKey)
        #expect(loadCode { try .ecPublicKey(pem: fixture.p384PublicPEM) } == JWTError.invalidKey)
        #expect(loadCode { try .ecPrivateKey(pem: fixture.secp256k1PrivatePEM) } == JWTError.invalidKey)
        #expect(loadCode { try .ecPrivateKey(pem: fixture.ed25519PrivatePEM) } == JWTError.invalidKey)
        #expect(loadCode { try .ecPublicKey(pem: fixture.ed25519PublicPEM) } == JWTError.invalidKey)
    }

    @Test func refusesEncryptedKeysWithoutPrompting() throws {
        let fixture = try KeyFixture.get()
        #expect(fixture.encryptedPKCS8PEM.contains("ENCRYPTED"))
        #expect(loadCode { try .ecPrivateKey(pem: fixture.encryptedPKCS8PEM) } == JWTError.invalidKey)
    }

    @Test func refusesTheWrongKindOfPEMAndGarbage() throws {
        let fixture = try KeyFixture.get()
        // A public key where a private one is expected, and the other way round.
        #expect(loadCode { try .ecPrivateKey(pem: fixture.publicPEM) } == JWTError.invalidKey)
        #expect(loadCode { try .ecPublicKey(pem: fixture.pkcs8PEM) } == JWTError.invalidKey)
        #expect(loadCode { try .ecPublicKey(pem: "") } == JWTError.invalidKey)
        #expect(loadCode { try .ecPrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") }
            == JWTError.invalidKey)
        // A PEM with one body character corrupted.
        var lines = fixture.publicPEM.split(separator: "\n").map(String.init)
        lines[1] = String(lines[1].prefix(20)) + "!" + String(lines[1].dropFirst(21))
        #expect(loadCode { try .ecPublicKey(pem: lines.joined(separator: "\n")) } == JWTError.invalidKey)
    }

    @Test func errorMessagesNeverContainKeyMaterial() throws {
        let fixture = try KeyFixture.get()
        do {
            _ = try JWTKey.ecPrivateKey(pem: fixture.p384PrivatePEM)
            Issue.record("P-384 key was accepted")
        } catch {
            let body = fixture.p384PrivatePEM.split(separator: "\n")[1]
            #expect(!error.description.contains(body.prefix(16)))
            #expect(!error.message.isEmpty)
        }
    }

    @Test func pemWithSurroundingTextStillLoads() throws {
        let fixture = try KeyFixture.get()
        let key = try JWTKey.ecPublicKey(pem: "Apple key, downloaded today\n" + fixture.publicPEM + "\n\n")
        #expect(key.algorithm == .es256)
        #expect(key.keyID == nil)
    }
}
