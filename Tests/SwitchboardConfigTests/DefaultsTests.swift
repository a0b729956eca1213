import Testing
@testable import SwitchboardConfig

@Suite struct DefaultsTests {
    @Test func embeddedDefaultsMatchTheDocumentedSchema() {
        let c = SwitchboardConfiguration()
        #expect(c.server.listen == ListenAddress(host: "127.0.0.1", port: 7420))
        #expect(c.server.tlsListen == nil)
        #expect(c.server.tlsCert == "" && c.server.tlsKey == "")
        #expect(c.server.eventLoops == 0)
        #expect(c.server.echo == false)
        #expect(c.server.drainTimeoutMs == 5000)
        #expect(c.server.maxConnections == 20000)
        #expect(c.server.demo == .auto)
        #expect(c.server.trustedProxies.isEmpty)
        #expect(c.http.maxRequestLineBytes == 8192)
        #expect(c.http.maxHeaderBytes == 16384)
        #expect(c.http.maxHeaderCount == 100)
        #expect(c.http.maxBodyBytes == 1_048_576)
        #expect(c.http.keepAliveTimeoutMs == 30000)
        #expect(c.websocket.maxMessageBytes == 65536)
        #expect(c.websocket.maxFrameBytes == 65536)
        #expect(c.websocket.handshakeTimeoutMs == 10000)
        #expect(c.websocket.pingIntervalMs == 30000)
        #expect(c.websocket.pongTimeoutMs == 20000)
        #expect(c.websocket.closeTimeoutMs == 5000)
        #expect(c.websocket.maxOutboundBytes == 4_194_304)
        #expect(c.websocket.allowedOrigins.isEmpty && c.websocket.subprotocols.isEmpty)
        #expect(c.websocket.compression.enabled == true)
        #expect(c.websocket.compression.thresholdBytes == 64)
        #expect(c.websocket.compression.maxWindowBits == 15)
        #expect(c.websocket.compression.memLevel == 8)
        #expect(c.websocket.compression.level == 6)
        #expect(c.websocket.compression.serverNoContextTakeover == false)
        #expect(c.log.level == .info && c.log.format == .text)
        #expect(c.metrics.enabled == true)
        #expect(c.explicitlySetKeys.isEmpty)
    }

    @Test func defaultsAreValid() throws {
        try SwitchboardConfiguration().validate()
    }

    @Test func emptyAndCommentOnlyFilesGiveTheDefaults() throws {
        for text in ["", "\n\n", "# only a comment\n", "  \t\n# a\n\n   # b", "\r\n# crlf\r\n"] {
            let config = try SwitchboardConfiguration.parse(text, fileName: "empty.toml")
            #expect(config == SwitchboardConfiguration())
            #expect(config.explicitlySetKeys.isEmpty)
        }
    }

    @Test func emptySectionsGiveTheDefaults() throws {
        let text = ConfigSchema.sections.map { "[\($0)]" }.joined(separator: "\n")
        #expect(try SwitchboardConfiguration.parse(text, fileName: "x") == SwitchboardConfiguration())
    }

    @Test func equalityIgnoresProvenanceButNotSettings() {
        var a = SwitchboardConfiguration()
        a.explicitlySetKeys = ["server.echo"]
        #expect(a == SwitchboardConfiguration())
        a.websocket.compression.level = 1
        #expect(a != SwitchboardConfiguration())
    }

    @Test func knownKeysListsEverySchemaKeyOnce() {
        let keys = SwitchboardConfiguration.knownKeys
        #expect(keys.count == 116)
        #expect(Set(keys).count == keys.count)
        #expect(keys.contains("websocket.compression.server_no_context_takeover"))
    }
}
