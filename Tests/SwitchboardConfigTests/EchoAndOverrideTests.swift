import Testing
@testable import SwitchboardConfig

@Suite struct EchoAndOverrideTests {
    @Test func echoDefaultsReplaceUnsetLimits() {
        var c = SwitchboardConfiguration()
        c.applyEchoDefaults()
        #expect(c.websocket.maxMessageBytes == 16_778_240)
        #expect(c.websocket.maxFrameBytes == 16_778_240)
        #expect(c.websocket.maxOutboundBytes == 64 * 1024 * 1024)
        #expect(c.websocket.compression.thresholdBytes == 0)
        // Nothing else moves.
        var expected = SwitchboardConfiguration()
        expected.websocket.maxMessageBytes = c.websocket.maxMessageBytes
        expected.websocket.maxFrameBytes = c.websocket.maxFrameBytes
        expected.websocket.maxOutboundBytes = c.websocket.maxOutboundBytes
        expected.websocket.compression.thresholdBytes = 0
        #expect(c == expected)
        #expect(throws: Never.self) { try c.validate() }
    }

    @Test func echoDefaultsKeepKeysSetInTheFile() throws {
        // Set to their production defaults explicitly: still counts as a choice.
        let text = """
            [websocket]
            max_message_bytes = 65536
            max_outbound_bytes = 2048
            [websocket.compression]
            threshold_bytes = 64
            """
        var c = try SwitchboardConfiguration.parse(text, fileName: "x")
        c.applyEchoDefaults()
        #expect(c.websocket.maxMessageBytes == 65536)
        #expect(c.websocket.maxOutboundBytes == 2048)
        #expect(c.websocket.compression.thresholdBytes == 64)
        #expect(c.websocket.maxFrameBytes == 16_778_240)
    }

    @Test func echoDefaultsKeepKeysMarkedByCommandLineOverrides() {
        var c = SwitchboardConfiguration()
        c.websocket.maxFrameBytes = 1000
        c.explicitlySetKeys.insert("websocket.max_frame_bytes")
        c.applyEchoDefaults()
        #expect(c.websocket.maxFrameBytes == 1000)
        #expect(c.websocket.maxMessageBytes == 16_778_240)
    }

    @Test func validateAfterOverridesNamesKeyWithoutLine() throws {
        var c = try SwitchboardConfiguration.parse("[server]\necho = true\n", fileName: "file.toml")
        c.server.tlsListen = ListenAddress(host: "0.0.0.0", port: 7443)
        do {
            try c.validate()
            Issue.record("expected an error")
        } catch {
            #expect(error == ConfigError(file: "command line", line: nil, key: "server.tls_cert",
                                         message: "required when server.tls_listen is set (0.0.0.0:7443)"))
            #expect(error.description == "command line: server.tls_cert: required when server.tls_listen is set (0.0.0.0:7443)")
        }
    }

    @Test func validateChecksRangesAndAddresses() {
        var c = SwitchboardConfiguration()
        c.websocket.compression.maxWindowBits = 8
        #expect(throws: ConfigError(file: "command line", line: nil, key: "websocket.compression.max_window_bits",
                                    message: "expected an integer between 9 and 15, got 8")) { try c.validate() }
        c = SwitchboardConfiguration()
        c.server.listen = ListenAddress(host: "bad host", port: 1)
        #expect(throws: ConfigError.self) { try c.validate() }
        c = SwitchboardConfiguration()
        c.server.listen = nil
        #expect(throws: ConfigError(file: "command line", line: nil, key: "server.listen",
                                    message: "no listener enabled; set server.listen or server.tls_listen")) { try c.validate() }
        c.websocket.subprotocols = ["ok", "not ok"]
        c.server.listen = ListenAddress(host: "::1", port: 0)
        #expect(throws: ConfigError.self) { try c.validate() }
    }

    @Test func errorDescriptionLeavesOutMissingParts() {
        #expect(ConfigError(file: "f", line: 3, key: nil, message: "m").description == "f:3: m")
        #expect(ConfigError(file: "f", line: nil, key: nil, message: "m").description == "f: m")
        #expect(ConfigError(file: "f", line: 1, key: "k", message: "m").description == "f:1: k: m")
    }
}
