import Testing
@testable import HTTP1

@Suite struct HTTPRequestParserErrorTests {
    /// Each malformed request with the status it must produce and a word its message must contain.
    static let malformed: [(name: String, request: String, status: Int, messageWord: String)] = [
        ("no version", "GET /\r\n\r\n", 400, "request line"),
        ("double space", "GET  / HTTP/1.1\r\n\r\n", 400, "request line"),
        ("lowercase protocol", "GET / http/1.1\r\n\r\n", 400, "version"),
        ("trailing space", "GET / HTTP/1.1 \r\n\r\n", 400, "version"),
        ("bad method char", "G(T / HTTP/1.1\r\n\r\n", 400, "request line"),
        ("control char in target", "GET /a\u{7F}b HTTP/1.1\r\n\r\n", 400, "request line"),
        ("bare LF request line", "GET / HTTP/1.1\n\r\n", 400, "bare LF"),
        ("bare LF header", "GET / HTTP/1.1\r\nA: b\n\r\n", 400, "bare LF"),
        ("bare CR in value", "GET / HTTP/1.1\r\nA: b\rc\r\n\r\n", 400, "header value"),
        ("NUL in value", "GET / HTTP/1.1\r\nA: b\u{0}c\r\n\r\n", 400, "header value"),
        ("obs-fold", "GET / HTTP/1.1\r\nA: b\r\n  continued\r\n\r\n", 400, "folding"),
        ("space before colon", "GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400, "colon"),
        ("no colon", "GET / HTTP/1.1\r\nHost\r\n\r\n", 400, "colon"),
        ("empty name", "GET / HTTP/1.1\r\n: v\r\n\r\n", 400, "empty header name"),
        ("invalid name char", "GET / HTTP/1.1\r\nX(y): v\r\n\r\n", 400, "header name"),
        ("CL not digits", "POST / HTTP/1.1\r\nContent-Length: 1a\r\n\r\n", 400, "Content-Length"),
        ("CL negative", "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400, "Content-Length"),
        ("CL empty", "POST / HTTP/1.1\r\nContent-Length:\r\n\r\n", 400, "Content-Length"),
        ("CL conflicting", "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400, "conflicting"),
        ("CL conflicting list", "POST / HTTP/1.1\r\nContent-Length: 1, 2\r\n\r\nab", 400, "conflicting"),
        ("TE and CL", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", 400, "both"),
        ("TE in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400, "HTTP/1.0"),
        ("chunked twice", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", 400, "more than once"),
        ("chunk size not hex", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, "hexadecimal"),
        ("chunk size junk", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5x\r\n", 400, "chunk size"),
        ("chunk data no CRLF", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n", 400, "CRLF"),
        ("chunk size bare LF", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n", 400, "bare LF"),
        ("chunk ext bare LF", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x\nabc\r\n", 400, "bare LF"),
        ("trailer bare LF", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: b\n\r\n", 400, "bare LF"),
        ("HTTP/2.0", "GET / HTTP/2.0\r\n\r\n", 505, "HTTP/1.0 and HTTP/1.1"),
        ("HTTP/1.2", "GET / HTTP/1.2\r\n\r\n", 505, "HTTP/1.0 and HTTP/1.1"),
        ("HTTP/0.9", "GET / HTTP/0.9\r\n\r\n", 505, "HTTP/1.0 and HTTP/1.1"),
        ("gzip", "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "chunked"),
        ("gzip, chunked", "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501, "chunked"),
        ("huge CL", "POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", 413, "body"),
    ]

    @Test(arguments: malformed)
    func rejectsMalformedRequests(_ testCase: (name: String, request: String, status: Int, messageWord: String)) throws {
        let result = feedRequests(testCase.request)
        let error = try #require(result.error, "\(testCase.name) was accepted")
        #expect(error.status == testCase.status, "\(testCase.name)")
        #expect(error.message.contains(testCase.messageWord), "\(testCase.name): \(error.message)")
        #expect(result.requests.isEmpty)
    }

    static let small = HTTPLimits(maxRequestLineBytes: 32, maxHeaderBytes: 64, maxHeaderCount: 3, maxBodyBytes: 10)

    @Test func requestLineLimitIsExact() {
        // "GET /xxx HTTP/1.1" padded so the line (CRLF excluded) is exactly 32 bytes: accepted.
        let target = "/" + String(repeating: "x", count: 32 - 13 - 1)
        #expect(feedRequests("GET \(target) HTTP/1.1\r\n\r\n", limits: Self.small).requests.count == 1)
        let error = feedRequests("GET \(target)y HTTP/1.1\r\n\r\n", limits: Self.small).error
        #expect(error?.status == 414)
    }

    @Test func requestLineLimitTriggersWithoutLineEnd() {
        // A peer streaming an endless request line is refused before it ever sends a LF.
        let chunks = Array(repeating: bytes("GET /aaaaaaaaaaaaaaaaaaaaaaa"), count: 4)
        #expect(feedRequests(chunks, limits: Self.small).error?.status == 414)
    }

    @Test func headerBytesLimit() {
        let fits = "GET / HTTP/1.1\r\n" + "A: " + String(repeating: "v", count: 57) + "\r\n\r\n"  // 62 + 2 = 64
        #expect(feedRequests(fits, limits: Self.small).requests.count == 1)
        let over = "GET / HTTP/1.1\r\n" + "A: " + String(repeating: "v", count: 58) + "\r\n\r\n"
        let error = feedRequests(over, limits: Self.small).error
        #expect(error?.status == 431)
        #expect(error?.message.contains("header section") == true)
    }

    @Test func headerBytesLimitTriggersWithoutLineEnd() {
        let chunks = [bytes("GET / HTTP/1.1\r\nA: ")] + Array(repeating: bytes(String(repeating: "v", count: 20)), count: 5)
        #expect(feedRequests(byteByByte(chunks.flatMap { $0 }), limits: Self.small).error?.status == 431)
    }

    @Test func headerCountLimit() {
        let three = "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n"
        #expect(feedRequests(three, limits: Self.small).requests.count == 1)
        let error = feedRequests("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", limits: Self.small).error
        #expect(error?.status == 431)
        #expect(error?.message.contains("header fields") == true)
    }

    @Test func contentLengthBodyLimit() {
        #expect(feedRequests("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789", limits: Self.small).requests.count == 1)
        // Refused from the head alone, before any body byte arrives.
        #expect(feedRequests("POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", limits: Self.small).error?.status == 413)
    }

    @Test func chunkedBodyLimitIsEnforcedWhileStreaming() {
        let head = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        let fits = head + "6\r\n012345\r\n4\r\n6789\r\n0\r\n\r\n"
        #expect(feedRequests(fits, limits: Self.small).requests.first?.body == bytes("0123456789"))
        // The second chunk's size alone exceeds what is left: refused before its data.
        #expect(feedRequests(head + "6\r\n012345\r\n5\r\n", limits: Self.small).error?.status == 413)
        // A size that would overflow Int is a 413, not a crash.
        #expect(feedRequests(head + String(repeating: "f", count: 40) + "\r\n").error?.status == 413)
    }

    @Test func trailerSectionLimit() {
        let head = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
        let trailer = "T: " + String(repeating: "x", count: 70) + "\r\n\r\n"
        #expect(feedRequests(head + trailer, limits: Self.small).error?.status == 431)
    }

    @Test func chunkExtensionLengthIsBounded() {
        let head = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        let line = "1;" + String(repeating: "e", count: HTTPBodyReader.maxChunkLineBytes) + "\r\n"
        #expect(feedRequests(head + line).error?.message == "chunk size line too long")
    }
}
