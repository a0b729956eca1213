import Testing
@testable import HTTP1

@Suite struct HTTPResponseTests {
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func serializesStatusHeadersLengthAndBody() {
        let response = HTTPResponse(status: 200, headers: HTTPHeaders([(name: "X-A", value: "1")]), body: bytes("hey"))
        #expect(Self.text(response.serialize(keepAlive: true)) == "HTTP/1.1 200 OK\r\nX-A: 1\r\nContent-Length: 3\r\n\r\nhey")
        #expect(Self.text(response.serialize(keepAlive: false))
            == "HTTP/1.1 200 OK\r\nX-A: 1\r\nContent-Length: 3\r\nConnection: close\r\n\r\nhey")
    }

    @Test func keepsAnExplicitContentLengthAndConnection() {
        let headers = HTTPHeaders([(name: "content-length", value: "0"), (name: "Connection", value: "close")])
        let out = Self.text(HTTPResponse(status: 404, headers: headers).serialize(keepAlive: false))
        #expect(out == "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nConnection: close\r\n\r\n")
    }

    @Test(arguments: [101, 204, 304])
    func bodylessStatusesGetNoLengthOrBody(status: Int) {
        let out = Self.text(HTTPResponse(status: status, body: bytes("ignored")).serialize(keepAlive: true))
        #expect(out == "HTTP/1.1 \(status) \(HTTPStatus.reasonPhrase(status))\r\n\r\n")
    }

    @Test func headerInjectionIsNeutralised() {
        let headers = HTTPHeaders([(name: "X-Evil", value: "a\r\nSet-Cookie: x=1\u{0}")])
        let out = Self.text(HTTPResponse(status: 200, headers: headers).serialize(keepAlive: true))
        #expect(out == "HTTP/1.1 200 OK\r\nX-Evil: a  Set-Cookie: x=1 \r\nContent-Length: 0\r\n\r\n")
    }

    @Test func jsonErrorEscapesAndCarriesExtraHeaders() {
        let response = HTTPResponse.jsonError(
            status: 426, code: "unsupported_version", message: "say \"13\"\\ok\n\u{1}é",
            extraHeaders: HTTPHeaders([(name: "Sec-WebSocket-Version", value: "13")]))
        #expect(response.status == 426)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Sec-WebSocket-Version"] == "13")
        #expect(Self.text(response.body)
            == #"{"error":{"status":426,"code":"unsupported_version","message":"say \"13\"\\ok\n\u0001é"}}"#)
    }

    @Test func textResponse() {
        let response = HTTPResponse.text(status: 200, "ok\n")
        #expect(response.headers["content-type"] == "text/plain; charset=utf-8")
        #expect(response.body == bytes("ok\n"))
        let metrics = HTTPResponse.text(status: 200, "m 1\n", contentType: "text/plain; version=0.0.4")
        #expect(metrics.headers["Content-Type"] == "text/plain; version=0.0.4")
    }

    @Test func reasonPhrases() {
        #expect(HTTPStatus.reasonPhrase(101) == "Switching Protocols")
        #expect(HTTPStatus.reasonPhrase(413) == "Content Too Large")
        #expect(HTTPStatus.reasonPhrase(431) == "Request Header Fields Too Large")
        #expect(HTTPStatus.reasonPhrase(499) == "Client Error")
        #expect(HTTPStatus.reasonPhrase(999) == "Unknown")
    }
}
