import Testing
@testable import HTTP1
@_exported import TestSupport


/// What feeding a byte stream produced: the complete requests, then an error if one ended it.
struct RequestFeedResult {
    var requests: [HTTPRequest] = []
    var error: HTTPParseError?
    /// Bytes left unconsumed at the end of the stream: always 0 for the request parser,
    /// which buffers partial input.
    var unconsumed = 0
}

/// Feeds `chunks` one after another the way the server does: call `parse` until each chunk
/// is used up, collecting every request.
func feedRequests(_ chunks: [[UInt8]], limits: HTTPLimits = .init()) -> RequestFeedResult {
    var parser = HTTPRequestParser(limits: limits)
    var result = RequestFeedResult()
    for chunk in chunks {
        var offset = 0
        while offset < chunk.count {
            do {
                let (consumed, request) = try chunk.withUnsafeBytes { raw in
                    Result { () throws(HTTPParseError) in
                        try parser.parse(UnsafeRawBufferPointer(rebasing: raw[offset...]))
                    }
                }.get()
                offset += consumed
                if let request {
                    result.requests.append(request)
                } else if consumed == 0 {
                    result.unconsumed = chunk.count - offset
                    return result
                }
            } catch {
                result.error = error
                return result
            }
        }
    }
    return result
}

func feedRequests(_ text: String, limits: HTTPLimits = .init()) -> RequestFeedResult {
    feedRequests([Array(text.utf8)], limits: limits)
}

/// `bytes` cut into pieces of random length (1...maxPiece).
func randomSplit(_ bytes: [UInt8], maxPiece: Int, using rng: inout SplitMix64) -> [[UInt8]] {
    var pieces: [[UInt8]] = []
    var index = 0
    while index < bytes.count {
        let length = Int.random(in: 1...maxPiece, using: &rng)
        let end = min(bytes.count, index + length)
        pieces.append(Array(bytes[index..<end]))
        index = end
    }
    return pieces
}

func byteByByte(_ bytes: [UInt8]) -> [[UInt8]] {
    bytes.map { [$0] }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Parses exactly one response from `data`, returning it with the count consumed.
func parseOneResponse(_ data: [UInt8], parser: inout HTTPResponseParser) throws(HTTPParseError) -> (consumed: Int, response: (head: HTTPResponseHead, body: [UInt8])?) {
    try data.withUnsafeBytes { raw in
        Result { () throws(HTTPParseError) in try parser.parse(raw) }
    }.get()
}
