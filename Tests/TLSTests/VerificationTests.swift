import Testing
@testable import TLS

@Suite struct VerificationTests {
    @Test(arguments: ["localhost", "127.0.0.1"])
    func nameInSubjectAltNameVerifies(serverName: String) throws {
        let pair = try EnginePair(server: Contexts.server(), client: Contexts.trustingClient(),
                                  serverName: serverName)
        try pair.handshake()
        #expect(pair.clientError == nil)
        #expect(pair.client.isHandshakeComplete && pair.server.isHandshakeComplete)
    }

    @Test(arguments: ["example.com", "127.0.0.2"])
    func nameNotInCertificateFails(serverName: String) throws {
        let pair = try EnginePair(server: Contexts.server(), client: Contexts.trustingClient(),
                                  serverName: serverName)
        try pair.handshake()
        let error = try #require(pair.clientError)
        #expect(error.message.contains("certificate verify failed"))
        #expect(error.message.contains("mismatch"))
        #expect(!pair.client.isHandshakeComplete)
        // The client's alert tells the server why (RFC 8446 §6.2 bad_certificate family).
        let serverError = try #require(pair.serverError)
        #expect(serverError.message.contains("alert"))
        // A failed engine keeps failing with the same error.
        var plaintext: [UInt8] = []
        #expect(throws: error) { _ = try pair.client.readPlaintext(into: &plaintext) }
        #expect(throws: error) { try pair.client.write("x") }
    }

    @Test func untrustedSelfSignedCertificateFailsAgainstSystemStore() throws {
        let pair = try EnginePair(server: Contexts.server(), client: TLSContext.client())
        try pair.handshake()
        let error = try #require(pair.clientError)
        #expect(error.message.contains("certificate verify failed"))
        #expect(error.message.contains("self-signed"))
    }

    @Test func verificationCanBeDisabled() throws {
        let pair = try EnginePair(server: Contexts.server(), client: TLSContext.client(verifyPeer: false),
                                  serverName: "example.com")
        try pair.handshake()
        #expect(pair.clientError == nil)
        #expect(pair.client.isHandshakeComplete)
    }

    @Test func missingCAFileIsReported() throws {
        let fixture = try CertificateFixture.get()
        let error = #expect(throws: TLSError.self) { try TLSContext.client(caFile: fixture.missingFile) }
        #expect(error?.message.contains(fixture.missingFile) == true)
    }
}
