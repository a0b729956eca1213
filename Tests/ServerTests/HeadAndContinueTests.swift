import Foundation
@testable import GatewayRuntime
import HTTP1
@testable import Server
import Testing

/// RFC 9110 on real sockets: a HEAD response is the GET response's header section without the body (§9.3.2), and a
/// client that sends `Expect: 100-continue` hears `100 Continue` before it sends its body, or the final status at
/// once when the request is refused whatever the body says (§10.1.1).
@Suite struct HeadAndContinueTests {
    /// Reads one response's header section only (a HEAD response or an interim 1xx has no body to wait for).
    static func readHeaderSection(_ client: RawClient) throws -> (status: Int, headers: [String: String]) {
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let index = client.buffer.indices.first(where: { client.buffer[$0...].starts(with: end) }) {
                let text = String(decoding: client.buffer[..<index], as: UTF8.self)
                client.buffer.removeFirst(index + end.count)
                let lines = text.components(separatedBy: "\r\n")
                let status = Int(lines[0].split(separator: " ")[1]) ?? 0
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return (status, headers)
            }
            guard client.fill() else { throw TestFailure("connection ended before a header section") }
        }
    }

    @Test func headResponsesHaveTheGetHeadersAndNoBody() throws {
        let server = try GatewayTestServer { $0.demo = true }
        defer { server.shutdown() }
        for path in ["/healthz", "/readyz", "/v1/client.js", "/demo", "/nothing-here", "/v1/ws"] {
            let client = try RawClient(port: server.port)
            client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
            let get = try client.readResponse()
            // HEAD, then a GET pipelined behind it: a body after the HEAD's header section would be read as the
            // GET's status line.
            client.send("HEAD \(path) HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try Self.readHeaderSection(client)
            #expect(head.status == get.head.status, "\(path)")
            #expect(head.headers["content-length"] == String(get.body.count), "\(path)")
            #expect(head.headers["content-type"] == get.head.headers["Content-Type"], "\(path)")
            let next = try client.readResponse()
            #expect(next.head.status == 200 && String(decoding: next.body, as: UTF8.self) == #"{"status":"ok"}"#, "after HEAD \(path)")
        }
    }

    @Test func aClientExpectingContinueHearsItBeforeSendingTheBody() throws {
        let server = try GatewayTestServer()
        defer { server.shutdown() }
        let body = #"{"userId":"ann","displayName":"Ann"}"#
        let client = try RawClient(port: server.port)
        client.send("POST /v1/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(GatewayTestServer.apiKey)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nExpect: 100-Continue\r\n\r\n")
        #expect(try Self.readHeaderSection(client).status == 100)
        client.send(body)
        let created = try client.readResponse()
        #expect(created.head.status == 201)
        #expect(GatewayJSON.string(try JSONSerialization.jsonObject(with: Data(created.body)), "userId") == "ann")
        // The connection stays usable.
        client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().head.status == 200)
    }

    @Test func aRequestRefusedWhateverItsBodySaysGetsTheFinalStatusWithoutSendingIt() throws {
        let server = try GatewayTestServer { $0.demo = true }
        defer { server.shutdown() }
        let cases: [(head: String, status: Int, code: String)] = [
            ("POST /v1/users HTTP/1.1\r\nContent-Length: 10\r\n", 401, "unauthenticated"),
            ("POST /v1/users HTTP/1.1\r\nAuthorization: Bearer wrong-key\r\nContent-Length: 10\r\n", 401, "unauthenticated"),
            ("POST /demo/api/approvals HTTP/1.1\r\nContent-Length: 10\r\n", 401, "unauthenticated"),
            ("POST /nothing-here HTTP/1.1\r\nContent-Length: 10\r\n", 404, "not_found"),
            ("POST /v1/users/a%2 HTTP/1.1\r\nAuthorization: Bearer \(GatewayTestServer.apiKey)\r\nContent-Length: 10\r\n", 400, "invalid_path"),
            ("POST /v1/users HTTP/1.1\r\nAuthorization: Bearer \(GatewayTestServer.apiKey)\r\nContent-Length: 99999999\r\n", 413, "body_too_large"),
        ]
        for c in cases {
            let client = try RawClient(port: server.port)
            client.send(c.head + "Host: x\r\nExpect: 100-continue\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.head.status == c.status, "\(c.head)")
            let json = try? JSONSerialization.jsonObject(with: Data(response.body))
            #expect(GatewayJSON.string(json, "error", "code") == c.code, "\(c.head)")
            #expect(response.head.headers["Connection"] == "close", "\(c.head)")
            #expect(client.isClosedByPeer())
        }
    }

    @Test func anHTTP10ExpectationIsIgnored() throws {
        let server = try GatewayTestServer()
        defer { server.shutdown() }
        let body = #"{"userId":"bo"}"#
        let client = try RawClient(port: server.port)
        client.send("POST /v1/users HTTP/1.0\r\nHost: x\r\nAuthorization: Bearer \(GatewayTestServer.apiKey)\r\n"
                    + "Content-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n" + body)
        let response = try client.readResponse()
        #expect(response.head.status == 201)
    }
}
