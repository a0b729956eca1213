import WebSocketCodec
@testable import WebSocketDeflate
@_exported import TestSupport


enum TestData {
    /// Incompressible bytes.
    static func random(_ count: Int, seed: UInt64) -> [UInt8] {
        var rng = SeededGenerator(seed: seed)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 8)
        while bytes.count < count {
            withUnsafeBytes(of: rng.next()) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }

    /// Text-like bytes: random words from a small vocabulary, highly compressible.
    static func compressible(_ count: Int, seed: UInt64) -> [UInt8] {
        let words = ["switchboard", "gateway", "{\"id\":", "\"payload\":", "realtime", "socket", "epoll", "frame", " ", ",\n"]
        var rng = SeededGenerator(seed: seed)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 16)
        while bytes.count < count {
            bytes.append(contentsOf: words[Int(rng.next() % UInt64(words.count))].utf8)
        }
        return Array(bytes.prefix(count))
    }

    static func hex(_ text: String) -> [UInt8] {
        text.split(separator: " ").map { UInt8($0, radix: 16)! }
    }
}

extension PerMessageInflater {
    /// Inflates one frame given as an array (Array.withUnsafeBytes loses the typed error, hence the Result).
    func inflate(_ frame: [UInt8], isFinal: Bool, into output: inout [UInt8], limit: Int) throws(WebSocketProtocolError) {
        let result = frame.withUnsafeBytes { bytes in
            Result { () throws(WebSocketProtocolError) in try inflate(bytes, isFinal: isFinal, into: &output, limit: limit) }
        }
        try result.get()
    }

    /// Inflates one message delivered as `frames` (isFinal on the last).
    func inflateMessage(_ frames: [[UInt8]], limit: Int = 1 << 30) throws(WebSocketProtocolError) -> [UInt8] {
        var output: [UInt8] = []
        for (index, frame) in frames.enumerated() {
            try inflate(frame, isFinal: index == frames.count - 1, into: &output, limit: limit)
        }
        return output
    }

    func inflateMessage(_ payload: [UInt8], limit: Int = 1 << 30) throws(WebSocketProtocolError) -> [UInt8] {
        try inflateMessage([payload], limit: limit)
    }
}

/// Splits `bytes` into frames at random points (possibly empty frames), at least one frame.
func randomSplit(_ bytes: [UInt8], pieces: Int, seed: UInt64) -> [[UInt8]] {
    var rng = SeededGenerator(seed: seed)
    let cuts = (0..<max(pieces - 1, 0)).map { _ in Int(rng.next() % UInt64(bytes.count + 1)) }.sorted()
    var frames: [[UInt8]] = []
    var start = 0
    for cut in cuts {
        frames.append(Array(bytes[start..<cut]))
        start = cut
    }
    frames.append(Array(bytes[start...]))
    return frames
}

/// Runs `body`, which should throw a protocol error, and returns its close code (nil if it did not throw).
/// Any other error yields 0, which no expectation accepts.
func closeCode(_ body: () throws -> Void) -> UInt16? {
    do {
        try body()
        return nil
    } catch {
        return (error as? WebSocketProtocolError)?.closeCode ?? 0
    }
}
