import Foundation
@testable import GatewayRuntime
import Glibc
@testable import Server
import Testing
import TestSupport

/// The real `switchboard` executable, killed with SIGKILL mid-stream: every event the API acknowledged with 201
/// must survive and be replayed exactly once, in order, without gaps. With the writer's WAL writes gathered (the
/// `sb-wal` VFS, the default) and without (`storage.gather_wal_writes = false`, SQLite's default VFS).
@Suite struct GatewayCrashTests {
    /// What the publisher thread learned: offset → sequence number, for every publish answered 201.
    final class Acknowledged: @unchecked Sendable {
        // @unchecked: guarded by `lock`.
        private let lock = NSLock()
        private var offsets: [Int64: Int64] = [:]
        func record(offset: Int64, seq: Int64) { lock.lock(); offsets[offset] = seq; lock.unlock() }
        var all: [Int64: Int64] { lock.lock(); defer { lock.unlock() }; return offsets }
    }

    @Test(.timeLimit(.minutes(1)), arguments: [true, false])
    func acknowledgedEventsSurviveKill9(gatherWalWrites: Bool) throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: GatewayProcess.executable),
            "build the switchboard executable first")
        let directory = try TemporaryDirectory()
        // Appended right after `[storage]`'s path line, so it is a key of that section.
        let storage = gatherWalWrites ? "" : "gather_wal_writes = false"
        var (process, port) = try GatewayProcess.launch(directory: directory, extraSections: storage)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }

        #expect(try GatewayHTTP.request(port: port, "POST", "/v1/users", ["userId": "kim"]).status == 201)
        let token = GatewayTestServer.token(user: "kim", device: "kim-phone")
        let client = try GatewayTestClient(port: port, path: "/v1/ws?token=\(token)")
        _ = try client.next("welcome")

        let acknowledged = Acknowledged()
        let publishPort = port
        let publisher = BackgroundCall { () -> Int in
            for seq in 1...2000 {
                guard
                    let r = try? GatewayHTTP.request(
                        port: publishPort, "POST", "/v1/users/kim/events",
                        ["name": "step", "payload": ["seq": seq]], timeoutSeconds: 2),
                    r.status == 201, let offset = GatewayJSON.int(r.json, "offset")
                else { return seq - 1 }
                acknowledged.record(offset: offset, seq: Int64(seq))
            }
            return 2000
        }

        // The device receives and acks the first events live, then falls behind (stops reading); the gateway is
        // killed while the publisher is still going, with acknowledged events the device never saw.
        var received: [(offset: Int64, seq: Int64)] = []
        while received.count < 10 {
            let event = try client.next("custom")
            let offset = GatewayJSON.int(event, "offset") ?? -1
            received.append((offset, GatewayJSON.int(event, "data", "payload", "seq") ?? -1))
            client.send(["type": "ack", "id": "ack\(offset)", "offset": offset])
        }
        eventually(within: 5, every: 0.002) { acknowledged.all.count >= 40 }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let published = try #require(publisher.wait(seconds: 10))
        let acked = acknowledged.all
        #expect(published >= 40 && published < 2000, "the kill must land mid-stream")
        #expect(received.map(\.offset) == Array(1...Int64(received.count)))
        let lastReceived = Int64(received.count)

        // Same database, new process: resume from the last offset this device saw.
        (process, port) = try GatewayProcess.launch(directory: directory, extraSections: storage)
        let again = try GatewayTestClient(port: port, path: "/v1/ws?token=\(token)&offset=\(lastReceived)")
        #expect(try again.next { _ in true }["type"] as? String == "welcome")
        let resume = try again.next { _ in true }
        #expect(resume["type"] as? String == "resume")
        #expect(GatewayJSON.bool(resume, "data", "recovered") == true)
        var replayed: [(offset: Int64, seq: Int64)] = []
        while let event = try? again.next(timeout: 0.5, where: { _ in true }) {
            #expect(event["type"] as? String == "custom")
            replayed.append(
                (GatewayJSON.int(event, "offset") ?? -1, GatewayJSON.int(event, "data", "payload", "seq") ?? -1))
        }
        // Contiguous after what the device had, no duplicates, and every 201 is there with its own payload.
        #expect(replayed.map(\.offset) == Array((lastReceived + 1)..<(lastReceived + 1 + Int64(replayed.count))))
        let all = received + replayed
        let maxAcked = acked.keys.max() ?? 0
        #expect(Int64(all.count) >= maxAcked)
        for (offset, seq) in acked { #expect(all.first { $0.offset == offset }?.seq == seq, "offset \(offset) lost") }
        #expect(all.map(\.seq) == Array(1...Int64(all.count)), "events are in publish order")
    }
}
