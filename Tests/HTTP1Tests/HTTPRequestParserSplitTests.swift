import Testing
@testable import HTTP1

/// Feeding the same stream in any split must give exactly the one-shot result.
@Suite struct HTTPRequestParserSplitTests {
    static let pipelined = bytes(
        "\r\nGET /a?x=1 HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Upgrade\r\n\r\n"
        + "POST /b HTTP/1.1\r\nContent-Length: 13\r\nContent-Type: text/plain\r\n\r\nhello, world!"
        + "PUT /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "4;a=b\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nExpires: never\r\n\r\n"
        + "DELETE /d HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
    )

    @Test func oneShotBaseline() {
        let result = feedRequests([Self.pipelined])
        #expect(result.error == nil)
        #expect(result.requests.map(\.head.method) == ["GET", "POST", "PUT", "DELETE"])
        #expect(result.requests[2].body == bytes("Wikipedia in\r\n\r\nchunks."))
    }

    @Test func byteByByteEqualsOneShot() {
        let oneShot = feedRequests([Self.pipelined])
        let split = feedRequests(byteByByte(Self.pipelined))
        #expect(split.error == nil)
        #expect(split.requests == oneShot.requests)
    }

    @Test(arguments: [1, 2, 3, 5, 8, 13, 64])
    func randomSplitsEqualOneShot(maxPiece: Int) {
        let oneShot = feedRequests([Self.pipelined])
        var rng = SplitMix64(seed: UInt64(maxPiece) &* 977)
        for _ in 0..<25 {
            let split = feedRequests(randomSplit(Self.pipelined, maxPiece: maxPiece, using: &rng))
            #expect(split.error == nil)
            #expect(split.requests == oneShot.requests)
        }
    }

    @Test func errorsAreTheSameWhateverTheSplit() {
        let limits = HTTPLimits(maxRequestLineBytes: 64, maxHeaderBytes: 80, maxHeaderCount: 4, maxBodyBytes: 16)
        let streams = [
            "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n",
            "GET /" + String(repeating: "p", count: 70) + " HTTP/1.1\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n01234567\r\n9\r\n012345678\r\n0\r\n\r\n",
            "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
            "GET / HTTP/3.0\r\n\r\n",
        ]
        var rng = SplitMix64(seed: 42)
        for stream in streams {
            let data = bytes(stream)
            let expected = feedRequests([data], limits: limits).error
            #expect(expected != nil, "\(stream)")
            #expect(feedRequests(byteByByte(data), limits: limits).error == expected)
            for _ in 0..<10 {
                #expect(feedRequests(randomSplit(data, maxPiece: 7, using: &rng), limits: limits).error == expected)
            }
        }
    }

    @Test func partialInputIsFullyConsumed() throws {
        var parser = HTTPRequestParser()
        let data = bytes("POST / HTTP/1.1\r\nContent-Length: 4\r\n\r\nab")
        let (consumed, request) = try data.withUnsafeBytes { raw in
            Result { () throws(HTTPParseError) in try parser.parse(raw) }
        }.get()
        #expect(consumed == data.count)
        #expect(request == nil)
        #expect(!parser.isIdle)
    }
}
