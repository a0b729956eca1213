@testable import GatewayRuntime
import Glibc
import HTTP1
@testable import Server
import Testing

/// Slow-loris after the first request, and deadlines of connections accepted after an idle spell. Time is what these
/// tests measure, so they pace the attacker with real sleeps and use bounds far from the limits they check.
@Suite struct RequestDeadlineTests {
    /// Sends `bytes` one at a time, `intervalMs` apart, until all are sent or the server has answered.
    private func trickle(_ bytes: String, to client: RawClient, intervalMs: UInt32) {
        for byte in bytes.utf8 {
            client.send([byte])
            usleep(intervalMs * 1000)
        }
    }

    @Test func aSecondRequestHeadTrickledAfterAQuickFirstOneGets408() throws {
        // Keep-alive far longer than the test: only the per-request deadline can end the connection.
        let server = try TestServer {
            $0.webSocket.handshakeTimeoutMs = 300
            $0.keepAliveTimeoutMs = 600_000
        }
        let client = try RawClient(port: server.port, timeoutSeconds: 10)
        client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().head.status == 200)

        let started = monotonicSeconds()
        trickle("GET /healthz HTTP/1.1\r\nHost: x\r\n", to: client, intervalMs: 100)   // 3.3 s, never finishes
        let response = try client.readResponse()
        #expect(response.head.status == 408)
        #expect(String(decoding: response.body, as: UTF8.self).contains("\"code\":\"request_timeout\""))
        #expect(client.isClosedByPeer())
        #expect(monotonicSeconds() - started < 8)
    }

    @Test func aBodyTrickledAfterAQuickFirstRequestGets408() throws {
        let server = try TestServer {
            $0.webSocket.handshakeTimeoutMs = 300
            $0.keepAliveTimeoutMs = 600_000
        }
        let client = try RawClient(port: server.port, timeoutSeconds: 10)
        client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try client.readResponse().head.status == 200)

        client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n")   // the head is quick
        trickle(String(repeating: "a", count: 30), to: client, intervalMs: 100)          // the body is not
        let response = try client.readResponse()
        #expect(response.head.status == 408)
        #expect(client.isClosedByPeer())
    }

    @Test func aConnectionAcceptedAfterTheLoopsSleptGetsItsFullHandshakeTime() throws {
        let server = try TestServer { $0.webSocket.handshakeTimeoutMs = 1500 }
        // The loops have nothing to do (no connections, no sweep timer): they sleep in epoll_wait for this long.
        usleep(3_000_000)
        let client = try RawClient(port: server.port, timeoutSeconds: 10)
        let connected = monotonicSeconds()
        client.send("GET / HTTP/1.1\r\n")
        let response = try client.readResponse()
        let waited = monotonicSeconds() - connected
        #expect(response.head.status == 408)
        // A clock read before the sleep would have stamped the connection 3 s in the past: 408 at the first sweep.
        #expect(waited >= 1.0, "408 after \(waited) s; the deadline is 1.5 s")
    }
}

/// Seconds on the monotonic clock, for measuring how long the server took.
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
