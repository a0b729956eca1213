@testable import GatewayRuntime
@testable import Server
import Testing
import WebSocketCodec

@Suite struct ProtocolErrorTests {
    static func closeCode(after send: (TestWebSocketClient) -> Void, _ configure: (inout ServerSettings) -> Void = { _ in }) throws -> UInt16? {
        let server = try TestServer(configure)
        let ws = try TestWebSocketClient(port: server.port)
        send(ws)
        while let event = try ws.receive() {
            if case .close(let code, _) = event {
                #expect(ws.raw.isClosedByPeer())
                return code
            }
        }
        return nil
    }

    @Test func unmaskedClientFramesAreAProtocolError() throws {
        #expect(try Self.closeCode { $0.sendFrame(.text, Array("x".utf8), masked: false) } == 1002)
    }

    @Test func invalidUTF8IsRejectedWith1007() throws {
        #expect(try Self.closeCode { $0.sendFrame(.text, [0xce, 0xba, 0xe1, 0xbd, 0xb9, 0xcf, 0x83, 0xce, 0xbc, 0xce, 0xb5, 0xed, 0xa0, 0x80]) } == 1007)
    }

    @Test func oversizedMessagesAreRejectedWith1009() throws {
        let code = try Self.closeCode(after: { $0.sendFrame(.binary, [UInt8](repeating: 1, count: 2000)) }) {
            $0.webSocket.maxMessageBytes = 1000
            $0.webSocket.maxFrameBytes = 1000
        }
        #expect(code == 1009)
    }

    @Test func reservedOpcodesAndBadCloseCodesAreProtocolErrors() throws {
        #expect(try Self.closeCode { $0.sendFrame(WebSocketOpcode(rawValue: 0x2)!, [], fin: true, rsv1: true) } == 1002)
        #expect(try Self.closeCode { $0.sendFrame(.close, [0x03, 0xEC]) } == 1002)  // 1004 is reserved
    }

    @Test func theConnectionRemainsUsableAfterPingsOfEverySize() throws {
        let server = try TestServer()
        let ws = try TestWebSocketClient(port: server.port)
        for size in [0, 1, 125] {
            let payload = [UInt8](repeating: 7, count: size)
            ws.sendFrame(.ping, payload)
            #expect(try ws.receive() == .pong(payload))
        }
        ws.sendFrame(.ping, [UInt8](repeating: 7, count: 126))  // control frames are limited to 125 bytes
        guard case .close(let code, _)? = try ws.receive() else {
            Issue.record("expected a close frame")
            return
        }
        #expect(code == 1002)
    }
}
