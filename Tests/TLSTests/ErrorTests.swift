import Testing
@testable import TLS

@Suite struct ErrorTests {
    @Test func garbageInsteadOfClientHelloThrows() throws {
        let server = try TLSEngine(context: Contexts.server())
        let garbage = Array("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
        garbage.withUnsafeBytes { server.receiveCiphertext($0) }
        var plaintext: [UInt8] = []
        let error = #expect(throws: TLSError.self) { _ = try server.readPlaintext(into: &plaintext) }
        #expect(error?.message.contains("handshake failed") == true)
        #expect(error?.message.contains("wrong version number") == true || error?.message.contains("http request") == true)
        #expect(plaintext.isEmpty)
        #expect(!server.isHandshakeComplete)
    }

    @Test(arguments: [UInt64(5), 6, 7])
    func randomGarbageDuringHandshakeThrowsOnEitherSide(seed: UInt64) throws {
        let pair = try Contexts.pair()
        try pair.client.startHandshake()
        // A plausible record header (handshake, TLS 1.2) around random bytes, so the parser
        // gets past the first byte.
        let garbage: [UInt8] = [22, 3, 3, 0, 200] + pattern(count: 200, seed: seed)
        garbage.withUnsafeBytes { pair.client.receiveCiphertext($0) }
        var plaintext: [UInt8] = []
        #expect(throws: TLSError.self) { _ = try pair.client.readPlaintext(into: &plaintext) }
        // The client reports the problem to its peer with an alert.
        #expect(pair.client.hasPendingCiphertext)
    }

    @Test func corruptedApplicationRecordThrows() throws {
        let pair = try Contexts.pair()
        try pair.handshake()
        try pair.client.write("integrity matters")
        var ciphertext: [UInt8] = []
        pair.client.takePendingCiphertext(into: &ciphertext)
        ciphertext[ciphertext.count - 3] ^= 0x01  // inside the AEAD tag
        ciphertext.withUnsafeBytes { pair.server.receiveCiphertext($0) }
        var plaintext: [UInt8] = []
        let error = #expect(throws: TLSError.self) { _ = try pair.server.readPlaintext(into: &plaintext) }
        #expect(error?.message.contains("bad record mac") == true || error?.message.contains("decrypt") == true)
        #expect(plaintext.isEmpty)
        // RFC 8446 §6.2: the server answers with a bad_record_mac alert for the caller to flush.
        #expect(pair.server.hasPendingCiphertext)
    }

    @Test func missingCertificateFileIsNamed() throws {
        let fixture = try CertificateFixture.get()
        let error = #expect(throws: TLSError.self) {
            try TLSContext.server(certificateChainFile: fixture.missingFile, privateKeyFile: fixture.key)
        }
        let message = error?.message ?? ""
        #expect(message.contains("certificate"))
        #expect(message.contains(fixture.missingFile))
        #expect(message.contains("No such file"))
    }

    @Test func missingKeyFileIsNamed() throws {
        let fixture = try CertificateFixture.get()
        let error = #expect(throws: TLSError.self) {
            try TLSContext.server(certificateChainFile: fixture.certificate, privateKeyFile: fixture.missingFile)
        }
        let message = error?.message ?? ""
        #expect(message.contains("private key"))
        #expect(message.contains(fixture.missingFile))
        #expect(message.contains("No such file"))
    }

    @Test func keyThatIsNotAKeyIsReported() throws {
        let fixture = try CertificateFixture.get()
        let error = #expect(throws: TLSError.self) {
            try TLSContext.server(certificateChainFile: fixture.certificate, privateKeyFile: fixture.certificate)
        }
        #expect(error?.message.contains("cannot parse private key \(fixture.certificate)") == true)
    }

    @Test func certificateThatIsNotACertificateIsReported() throws {
        let fixture = try CertificateFixture.get()
        let error = #expect(throws: TLSError.self) {
            try TLSContext.server(certificateChainFile: fixture.key, privateKeyFile: fixture.key)
        }
        #expect(error?.message.contains("cannot load certificate chain \(fixture.key)") == true)
    }

    @Test func mismatchedKeyAndCertificateAreReported() throws {
        let fixture = try CertificateFixture.get()
        let error = #expect(throws: TLSError.self) {
            try TLSContext.server(certificateChainFile: fixture.certificate, privateKeyFile: fixture.otherKey)
        }
        let message = error?.message ?? ""
        #expect(message.contains("does not match"))
        #expect(message.contains(fixture.otherKey) && message.contains(fixture.certificate))
        #expect(message.contains("key values mismatch"))
    }

    @Test func invalidALPNNamesAreRejected() throws {
        let fixture = try CertificateFixture.get()
        #expect(throws: TLSError.self) {
            try TLSContext.server(certificateChainFile: fixture.certificate, privateKeyFile: fixture.key, alpn: [""])
        }
        #expect(throws: TLSError.self) {
            try TLSContext.client(alpn: [String(repeating: "x", count: 256)])
        }
    }
}
