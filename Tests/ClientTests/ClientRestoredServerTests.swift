import Foundation
import Glibc
import SwitchboardClient
import Testing

/// The Swift client against the real `switchboard` executable whose database is replaced by an older backup while
/// the client is away: the client's offset is then ahead of the server's log. It must get `resync`, move its stored
/// offset back to the server's latest offset and receive the new log's events (not drop them as replays).
@Suite struct ClientRestoredServerTests {
    @Test(.timeLimit(.minutes(1))) func aServerRestoredFromAnOlderBackupResyncsAndDeliversItsNextEvents() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: GatewayProcess.executable), "build the switchboard executable first")
        let directory = try TemporaryDirectory()
        var (process, port) = try GatewayProcess.launch(directory: directory)
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        let fixedPort = port
        func publish(_ seq: Int) throws -> Int64? {
            let response = try GatewayHTTP.request(port: fixedPort, "POST", "/v1/users/uma/events", ["name": "step", "payload": ["seq": seq]])
            #expect(response.status == 201)
            return GatewayJSON.int(response.json, "offset")
        }
        func stopServer() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        // The backup: the user and two events.
        #expect(try GatewayHTTP.request(port: port, "POST", "/v1/users", ["userId": "uma"]).status == 201)
        #expect(try publish(1) == 1)
        #expect(try publish(2) == 2)
        stopServer()
        let files = ["gateway.db", "gateway.db-wal", "gateway.db-shm"]
        let manager = FileManager.default
        for name in files where manager.fileExists(atPath: directory.path + "/" + name) {
            try manager.copyItem(atPath: directory.path + "/" + name, toPath: directory.path + "/backup-" + name)
        }

        // The device handles four more events (offsets 3…6) on the server that later loses them.
        (process, port) = try GatewayProcess.launch(directory: directory, port: fixedPort)
        let offsets = FileOffsetStore(path: directory.path + "/uma-phone.offset")
        let device = TestDevice(port: { fixedPort }, user: "uma", device: "uma-phone", offsetStore: offsets)
        await device.start()
        try await device.waitConnected()
        for seq in 3...6 { #expect(try publish(seq) == Int64(seq)) }
        try await device.waitFor("events 3…6") { ClientCrashTests.sequence($0) == [3, 4, 5, 6] }
        try await Self.waitUntil("offset 6 stored") { offsets.load() == 6 } // the app asked for the next event

        // The database is restored from the backup: the server's log ends at 2, the device is at 6.
        stopServer()
        for name in files {
            try? manager.removeItem(atPath: directory.path + "/" + name)
            if manager.fileExists(atPath: directory.path + "/backup-" + name) {
                try manager.copyItem(atPath: directory.path + "/backup-" + name, toPath: directory.path + "/" + name)
            }
        }
        (process, port) = try GatewayProcess.launch(directory: directory, port: fixedPort)
        let afterResync = try await device.waitFor("resync") { $0.contains { if case .resync = $0 { true } else { false } } }
        for case .resync(let resume) in afterResync {
            #expect(!resume.recovered && resume.requestedOffset == 6)
        }
        #expect(offsets.load() == 2, "the stored offset moves back to the server's latest offset")

        // The restored log's next events (offsets 3 and 4 again) reach the app, once each.
        #expect(try publish(7) == 3)
        #expect(try publish(8) == 4)
        let events = try await device.waitFor("the restored log's events") { ClientCrashTests.sequence($0).last == 8 }
        #expect(ClientCrashTests.sequence(events) == [3, 4, 5, 6, 7, 8])
        try await Self.waitUntil("offset 4 stored") { offsets.load() == 4 }
        await device.stop()
        #expect(FileOffsetStore(path: offsets.path).load() == 4, "an app restart resumes from the restored log")
    }

    /// Polls `condition` (up to 10 s) for state the client updates on its own actor.
    static func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            guard Date() < deadline else { throw TestFailure("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
