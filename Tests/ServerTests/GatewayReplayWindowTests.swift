import Foundation
@testable import GatewayRuntime
@testable import Server
import Testing

/// A resume of a long log holds a bounded window per socket (one part read from the store, asked for as the socket
/// drains), not a copy of the whole replay per socket; a reader still gets every event in order, then live ones.
@Suite struct GatewayReplayWindowTests {
    static let padding = String(repeating: "x", count: 15_000)

    @Test func socketsResumingALargeLogHoldOnePartEachAndAReaderGetsEveryEventInOrder() throws {
        let chunk = 8
        let server = try GatewayTestServer(configure: { $0.settings.replayChunkEvents = chunk },
                                           server: { $0.webSocket.maxOutboundBytes = 64 * 1024 })
        #expect(try server.api("POST", "/v1/users", ["userId": "rita"]).status == 201)
        let count = 240
        for n in 1...count {
            let response = try server.api("POST", "/v1/users/rita/events", ["name": "tick", "payload": ["n": n, "pad": Self.padding]])
            #expect(response.status == 201)
        }
        let logBytes = count * Self.padding.utf8.count
        let endpoint = server.runtime.endpoint

        // Four sockets resume from the start and never read.
        let token = GatewayTestServer.token(user: "rita", device: "rita-phone")
        let idle = try (0..<4).map { _ in try GatewayTestClient(port: server.port, path: "/v1/ws?token=\(token)&offset=0") }
        // One reads: everything in order, with a live event published while its replay is still being sent.
        let reader = try GatewayTestClient(port: server.port, path: "/v1/ws?token=\(token)&offset=0")
        #expect(try reader.next { _ in true }["type"] as? String == "welcome")
        let resume = try reader.next { _ in true }
        #expect(resume["type"] as? String == "resume")
        #expect(GatewayJSON.bool(resume, "data", "recovered") == true)
        #expect(GatewayJSON.int(resume, "data", "firstReplayed") == 1)
        #expect(GatewayJSON.int(resume, "data", "lastReplayed") == Int64(count))
        var offsets = try GatewayResumeTests.customEvents(reader, 20).map(\.offset)
        let live = try server.api("POST", "/v1/users/rita/events", ["name": "tick", "payload": ["n": count + 1]])
        #expect(live.status == 201)
        offsets += try GatewayResumeTests.customEvents(reader, count + 1 - 20).map(\.offset)
        #expect(offsets == Array(1...Int64(count + 1)))
        #expect(try reader.collect("custom", for: 0.2).isEmpty)

        // Held at most: one part per socket plus the live event behind it (frames are the payload plus ~100 bytes),
        // where a copy of the whole replay per socket was 5 × the log.
        let window = (chunk + 1) * (Self.padding.utf8.count + 200)
        let peak = endpoint.replayBacklogPeak.load(ordering: .relaxed)
        #expect(peak > 0)
        #expect(peak <= 5 * window, "held \(peak) bytes at once for a \(logBytes)-byte log")

        // The sockets that do not read are still within their window; once they are gone nothing is held.
        #expect(endpoint.replayBacklogBytes.load(ordering: .relaxed) <= 4 * window)
        for client in idle { client.disconnect() }
        try ClusterDeliveryTests.waitUntil(timeout: 10, "replay backlogs released") {
            endpoint.replayBacklogBytes.load(ordering: .relaxed) == 0
        }
    }
}
