import EventLoop
import WebSocketCodec

/// Frames out and messages in, once the connection is open.
extension WebSocketClient {
    /// Sends one data message as a single masked frame (RFC 6455 §5.3), compressed with RSV1 when permessage-deflate
    /// was negotiated (RFC 7692 §6). Ignored unless open. `random` supplies the masking key.
    func send(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, random: inout FastRandom) {
        guard state == .open else { return }
        if let deflater {
            compressScratch.removeAll(keepingCapacity: true)
            deflater.compress(payload, into: &compressScratch)
            let compressed = compressScratch
            compressed.withUnsafeBytes { writeFrame(opcode: opcode, rsv1: true, payload: $0, maskKey: random.maskKey()) }
        } else {
            writeFrame(opcode: opcode, rsv1: false, payload: payload, maskKey: random.maskKey())
        }
    }

    /// A control frame (close, pong). Control frames are never compressed (RFC 7692 §6.1).
    func sendControl(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
        // Control frames are rare; a fixed key is as good as a random one for the server's unmasking.
        payload.withUnsafeBytes { writeFrame(opcode: opcode, rsv1: false, payload: $0, maskKey: 0x3C5A_A5C3) }
    }

    private func writeFrame(opcode: WebSocketOpcode, rsv1: Bool, payload: UnsafeRawBufferPointer, maskKey: UInt32) {
        let total = WebSocketFrameEncoder.maxHeaderSize + payload.count
        frameScratch.removeAll(keepingCapacity: true)
        frameScratch.reserveCapacity(total)
        withUnsafeTemporaryAllocation(byteCount: WebSocketFrameEncoder.maxHeaderSize, alignment: 8) { header in
            let length = WebSocketFrameEncoder.writeHeader(
                opcode: opcode, fin: true, rsv1: rsv1, payloadLength: payload.count, maskKey: maskKey,
                to: header.baseAddress!)
            frameScratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: header[..<length]))
        }
        let headerLength = frameScratch.count
        frameScratch.append(contentsOf: payload)
        frameScratch.withUnsafeMutableBytes { bytes in
            WebSocketMasking.apply(key: maskKey, to: UnsafeMutableRawBufferPointer(rebasing: bytes[headerLength...]))
        }
        let frame = frameScratch
        frame.withUnsafeBytes { output($0) }
    }

    /// Bytes to the server: straight to the socket, or through TLS.
    func output(_ bytes: UnsafeRawBufferPointer) {
        guard let connection else { return }
        guard let tls else {
            connection.write(bytes)
            return
        }
        do {
            try tls.writePlaintext(bytes)
        } catch {
            fail("tls_error")
            return
        }
        flushCiphertext()
    }

    /// Moves TLS output (handshake records, data, alerts) to the socket.
    func flushCiphertext() {
        guard let tls, let connection, tls.hasPendingCiphertext else { return }
        ciphertextScratch.removeAll(keepingCapacity: true)
        tls.takePendingCiphertext(into: &ciphertextScratch)
        ciphertextScratch.withUnsafeBytes { connection.write($0) }
    }

    /// Plaintext from the server: the 101 response first, then frames. Returns how many bytes were consumed.
    func consume(_ bytes: UnsafeMutableRawBufferPointer) -> Int {
        var offset = 0
        if state == .upgrading {
            guard let consumed = consumeHandshake(UnsafeRawBufferPointer(bytes)) else { return bytes.count }
            offset = consumed
        }
        guard state == .open || state == .closing, offset < bytes.count, decoder != nil else {
            return state == .upgrading ? offset : bytes.count
        }
        let rest = UnsafeMutableRawBufferPointer(rebasing: bytes[offset...])
        do {
            let consumed = try decoder!.decode(rest) { event in handle(event) }
            return offset + consumed
        } catch let error as WebSocketProtocolError {
            fail("protocol_error_\(error.closeCode)")
        } catch {
            fail("protocol_error")
        }
        return bytes.count
    }

    private func handle(_ event: WebSocketEvent) {
        guard state == .open || state == .closing else { return }
        switch event {
        case .message(let opcode, let payload):
            delegate?.clientDidReceive(self, opcode: opcode, payload: payload)
        case .ping(let payload):
            sendControl(.pong, Array(payload))  // RFC 6455 §5.5.2: answer with the same payload
        case .pong:
            break
        case .close(let code, _):
            if closeSent {
                end(failure: nil)
            } else {
                // RFC 6455 §5.5.1: echo the code, then it is over. The server closing first is a failure for a load test.
                sendControl(.close, WebSocketFrameEncoder.closePayload(code: code ?? WebSocketCloseCode.normal, reason: ""))
                connection?.closeWhenFlushed()
                fail("closed_by_server_\(code.map(String.init) ?? "no_code")")
            }
        }
    }
}
