import Testing
@testable import HTTP1

@Suite struct HTTPResponseParserTests {
    /// Feeds `chunks` and returns every complete response (plus the total unconsumed tail).
    static func feed(_ chunks: [[UInt8]], limits: HTTPLimits = .init()) throws(HTTPParseError) -> (responses: [(head: HTTPResponseHead, body: [UInt8])], parser: HTTPResponseParser) {
        var parser = HTTPResponseParser(limits: limits)
        var responses: [(head: HTTPResponseHead, body: [UInt8])] = []
        for chunk in chunks {
            var offset = 0
            while offset < chunk.count {
                let (consumed, response) = try parseOneResponse(Array(chunk[offset...]), parser: &parser)
                offset += consumed
                if let response { responses.append(response) }
            }
        }
        return (responses, parser)
    }

    static let stream = bytes(
        "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
        + "HTTP/1.1 204 No Content\r\nContent-Length: 99\r\n\r\n"
        + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        + "HTTP/1.0 404\r\nContent-Length: 0\r\n\r\n"
    )

    @Test func parsesPipelinedResponsesInAnySplit() throws {
        let oneShot = try Self.feed([Self.stream]).responses
        #expect(oneShot.map(\.head.status) == [200, 204, 200, 404])
        #expect(oneShot.map(\.body) == [bytes("hello"), [], bytes("abc"), []])
        #expect(oneShot.map(\.head.reason) == ["OK", "No Content", "OK", ""])
        var rng = SplitMix64(seed: 3)
        for chunks in [byteByByte(Self.stream)] + (0..<20).map({ _ in randomSplit(Self.stream, maxPiece: 9, using: &rng) }) {
            let split = try Self.feed(chunks).responses
            #expect(split.map(\.head) == oneShot.map(\.head))
            #expect(split.map(\.body) == oneShot.map(\.body))
        }
    }

    @Test func switchingProtocolsStopsAtTheHead() throws {
        var parser = HTTPResponseParser()
        let head = bytes("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n")
        let (consumed, response) = try parseOneResponse(head + [0x81, 0x00], parser: &parser)
        #expect(consumed == head.count)
        #expect(response?.head.status == 101)
        #expect(response?.head.headers["upgrade"] == "websocket")
    }

    @Test func closeDelimitedBodyCompletesAtFinish() throws {
        var parser = HTTPResponseParser()
        let (consumed, response) = try parseOneResponse(bytes("HTTP/1.1 200 OK\r\n\r\nstreamed"), parser: &parser)
        #expect(consumed == 27)
        #expect(response == nil)
        let finished = try parser.finish()
        #expect(finished?.body == bytes("streamed"))
        #expect(try parser.finish() == nil)
    }

    @Test func finishMidMessageIsAnError() throws {
        var parser = HTTPResponseParser()
        _ = try parseOneResponse(bytes("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc"), parser: &parser)
        #expect(throws: HTTPParseError(status: 400, message: "connection closed before the response was complete")) {
            try parser.finish()
        }
    }

    @Test(arguments: [
        ("HTTP/1.1 20 OK\r\n\r\n", 400),
        ("HTTP/1.1 2000 OK\r\n\r\n", 400),
        ("HTTP/1.1 abc OK\r\n\r\n", 400),
        ("HTTP/2.0 200 OK\r\n\r\n", 505),
        ("HTTP/1.1 200 OK\nA: b\r\n\r\n", 400),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: br\r\n\r\n", 501),
        ("HTTP/1.1 200 OK\r\nContent-Length: 2000000\r\n\r\n", 413),
    ])
    func rejectsMalformedResponses(response: String, status: Int) {
        let outcome = Result { () throws(HTTPParseError) in try Self.feed([bytes(response)]) }
        guard case .failure(let error) = outcome else {
            Issue.record("accepted: \(response)")
            return
        }
        #expect(error.status == status)
    }
}
