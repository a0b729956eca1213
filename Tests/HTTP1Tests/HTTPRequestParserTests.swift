import Testing
@testable import HTTP1

@Suite struct HTTPRequestParserTests {
    @Test func parsesSimpleGet() throws {
        let result = feedRequests("GET /rooms/7?since=5&name=a%20b HTTP/1.1\r\nHost: example.com\r\nX-Multi: 1\r\nx-multi: 2\r\n\r\n")
        #expect(result.error == nil)
        let request = try #require(result.requests.first)
        #expect(result.requests.count == 1)
        #expect(request.head.method == "GET")
        #expect(request.head.target == "/rooms/7?since=5&name=a%20b")
        #expect(request.head.path == "/rooms/7")
        #expect(request.head.query == "since=5&name=a%20b")
        #expect(request.head.versionMinor == 1)
        #expect(request.head.headers["host"] == "example.com")
        #expect(request.head.headers.values("X-MULTI") == ["1", "2"])
        #expect(request.head.queryItem("name") == "a b")
        #expect(request.body.isEmpty)
    }

    @Test func trimsOptionalWhitespaceAroundValues() throws {
        let result = feedRequests("GET / HTTP/1.1\r\nA:\t  spaced value \t\r\nB:\r\n\r\n")
        let headers = try #require(result.requests.first).head.headers
        #expect(headers["a"] == "spaced value")
        #expect(headers["b"] == "")
    }

    @Test func readsContentLengthBody() throws {
        let result = feedRequests("POST /api HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello world")
        #expect(try #require(result.requests.first).body == bytes("hello world"))
    }

    @Test func acceptsRepeatedIdenticalContentLength() throws {
        let result = feedRequests("POST / HTTP/1.1\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc")
        #expect(try #require(result.requests.first).body == bytes("abc"))
    }

    @Test func stopsAtEndOfRequestLeavingNextBytes() throws {
        var parser = HTTPRequestParser()
        let head = bytes("GET /chat HTTP/1.1\r\nHost: h\r\n\r\n")
        let frame: [UInt8] = [0x81, 0x05] + bytes("hello")
        let (consumed, request) = try parseOnce(&parser, head + frame)
        #expect(request?.head.path == "/chat")
        #expect(consumed == head.count)
        #expect(parser.isIdle)
    }

    @Test func pipelinedRequestsComeOutOneAtATime() throws {
        let stream = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
            + "POST /b HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi"
            + "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
            + "GET /d HTTP/1.0\r\n\r\n"
        var parser = HTTPRequestParser()
        let data = bytes(stream)
        var offset = 0
        var paths: [String] = []
        var bodies: [[UInt8]] = []
        while offset < data.count {
            let (consumed, request) = try parseOnce(&parser, Array(data[offset...]))
            let complete = try #require(request)
            paths.append(complete.head.path)
            bodies.append(complete.body)
            offset += consumed
        }
        #expect(paths == ["/a", "/b", "/c", "/d"])
        #expect(bodies == [[], bytes("hi"), bytes("abc"), []])
        #expect(parser.isIdle)
    }

    @Test func decodesChunkedBodyWithExtensionsAndTrailers() throws {
        let stream = "POST /up HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n"
            + "1 ; ext\r\n \r\n"
            + "A\r\n0123456789\r\n"
            + "0\r\nX-Trailer: yes\r\nOther: 1\r\n\r\n"
            + "GET /next HTTP/1.1\r\n\r\n"
        let result = feedRequests(stream)
        #expect(result.error == nil)
        #expect(result.requests.map(\.body) == [bytes("hello 0123456789"), []])
        #expect(result.requests.map(\.head.path) == ["/up", "/next"])
    }

    @Test func ignoresLeadingBlankLines() throws {
        let result = feedRequests("\r\n\r\nGET / HTTP/1.1\r\n\r\n")
        #expect(result.requests.count == 1)
        #expect(result.error == nil)
    }

    @Test(arguments: [
        ("HTTP/1.1", "", true),
        ("HTTP/1.1", "Connection: close\r\n", false),
        ("HTTP/1.1", "Connection: keep-alive, CLOSE\r\n", false),
        ("HTTP/1.1", "Connection: Upgrade\r\n", true),
        ("HTTP/1.0", "", false),
        ("HTTP/1.0", "Connection: Keep-Alive\r\n", true),
        ("HTTP/1.0", "Connection: close\r\n", false),
    ])
    func keepAliveRules(version: String, header: String, expected: Bool) throws {
        let result = feedRequests("GET / \(version)\r\n\(header)\r\n")
        #expect(try #require(result.requests.first).head.keepAlive == expected)
    }

    @Test func queryItems() {
        let head = HTTPRequestHead(method: "GET", target: "/p?a=1&b=x+y&c&%6Bey=%E2%9C%93&a=2&bad=%zz")
        #expect(head.queryItem("a") == "1")
        #expect(head.queryItem("b") == "x y")
        #expect(head.queryItem("c") == "")
        #expect(head.queryItem("key") == "✓")
        #expect(head.queryItem("bad") == "%zz")
        #expect(head.queryItem("missing") == nil)
        #expect(HTTPRequestHead(method: "GET", target: "/p").queryItem("a") == nil)
        #expect(HTTPRequestHead(method: "GET", target: "/p?").query == "")
    }

    @Test func resetRecoversAfterError() throws {
        var parser = HTTPRequestParser()
        #expect(throws: HTTPParseError.self) { try parseOnce(&parser, bytes("BAD\r\n\r\n")) }
        // The error is sticky: a valid request is still refused until reset.
        #expect(throws: HTTPParseError.self) { try parseOnce(&parser, bytes("GET / HTTP/1.1\r\n\r\n")) }
        parser.reset()
        let (_, request) = try parseOnce(&parser, bytes("GET / HTTP/1.1\r\n\r\n"))
        #expect(request?.head.method == "GET")
    }

    private func parseOnce(_ parser: inout HTTPRequestParser, _ data: [UInt8]) throws(HTTPParseError) -> (consumed: Int, request: HTTPRequest?) {
        try data.withUnsafeBytes { raw in
            Result { () throws(HTTPParseError) in try parser.parse(raw) }
        }.get()
    }
}
