/// The bytes of echo message `sequence`: an 8-byte little-endian sequence number, then filler derived from it.
///
/// Deterministic, so the receiver can rebuild what was sent and compare byte for byte without keeping copies; the
/// filler is lowercase text cycling with an offset per message, so it compresses roughly like chat text (a fair
/// load for permessage-deflate) while a misplaced or stale byte still shows. Stateless; safe from any thread.
enum EchoPayload {
    /// The smallest payload that can carry the sequence number.
    static let minimumSize = 8

    /// Fills `buffer` (its whole count is the message size, ≥ `minimumSize`) with message `sequence`.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer, sequence: UInt64) {
        precondition(buffer.count >= minimumSize, "echo payload smaller than its sequence number")
        buffer.storeBytes(of: sequence.littleEndian, toByteOffset: 0, as: UInt64.self)
        let start = Int(sequence % 26)
        var letter = start
        for index in minimumSize..<buffer.count {
            buffer[index] = UInt8(97 + letter)
            letter = letter == 25 ? 0 : letter + 1
        }
    }

    /// The sequence number carried by `payload`, or nil when it is too short to carry one.
    static func sequence(of payload: UnsafeRawBufferPointer) -> UInt64? {
        guard payload.count >= minimumSize else { return nil }
        return UInt64(littleEndian: payload.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
    }

    /// True when `payload` is exactly message `sequence` of `size` bytes.
    static func matches(_ payload: UnsafeRawBufferPointer, sequence: UInt64, size: Int) -> Bool {
        guard payload.count == size, self.sequence(of: payload) == sequence else { return false }
        var letter = Int(sequence % 26)
        for index in minimumSize..<size {
            if payload[index] != UInt8(97 + letter) { return false }
            letter = letter == 25 ? 0 : letter + 1
        }
        return true
    }
}
