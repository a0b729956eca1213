import Dispatch
import Foundation
@testable import GatewayRuntime
@testable import Server
import Synchronization
import Testing

/// A device id is unique only within its user: a token for another user carrying the same `device_id` gets a
/// device of its own and never touches the first user's push tokens (real sockets, real SQLite, a restart).
@Suite struct GatewayDeviceScopeTests {
    static func pushTargets(_ server: GatewayTestServer, user: String) throws -> [String] {
        try server.runtime.store.duePushJobs(now: .max, limit: 100).filter { $0.userId == user }.map(\.target.token)
    }

    /// Waits until the hub has seen every device of `user` go (the close reaches it asynchronously).
    static func waitUntilOffline(_ server: GatewayTestServer, _ user: String) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            let done = DispatchSemaphore(value: 0)
            let count = Mutex(-1)
            let hub = server.runtime.hub
            server.runtime.hubLoop.execute { count.withLock { $0 = hub.connectedDevices(of: user).count }; done.signal() }
            done.wait()
            if count.withLock({ $0 }) == 0 { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    @Test func anotherUsersTokenWithTheSameDeviceIdCannotHijackPushes() throws {
        let directory = try TemporaryDirectory()
        var server: GatewayTestServer? = try GatewayTestServer(directory: directory)
        let ann = try server!.connect(user: "ann", device: "phone-1")
        #expect(try ann.command("push_register", ["kind": "apns", "token": "ann-token"])["ok"] as? Bool == true)
        ann.disconnect()
        #expect(Self.waitUntilOffline(server!, "ann"))
        let eve = try server!.connect(user: "eve", device: "phone-1")
        #expect(try eve.command("push_register", ["kind": "apns", "token": "eve-token"])["ok"] as? Bool == true)
        eve.disconnect()

        #expect(try server!.api("POST", "/v1/sessions", ["userId": "ann", "sessionId": "s1"]).status == 201)
        #expect(try server!.api("POST", "/v1/sessions/s1/approvals", ["toolName": "shell", "summary": "ls"]).status == 201)
        #expect(try Self.pushTargets(server!, user: "ann") == ["ann-token"])

        // The backend must say whose device it means once the id is shared.
        let ambiguous = try server!.api("POST", "/v1/devices/phone-1/push-tokens", ["kind": "fcm", "token": "x"])
        #expect(ambiguous.status == 409)
        #expect(ambiguous.errorCode == "device_id_ambiguous")
        #expect(try server!.api("DELETE", "/v1/users/eve/devices/phone-1/push-tokens", ["kind": "apns"]).status == 200)
        #expect(try server!.api("POST", "/v1/users/nobody/devices/phone-1/push-tokens", ["kind": "fcm", "token": "x"]).status == 404)
        server!.shutdown()
        server = nil

        let restarted = try GatewayTestServer(directory: directory)
        #expect(try restarted.api("POST", "/v1/sessions/s1/approvals", ["toolName": "shell", "summary": "pwd"]).status == 201)
        #expect(try Self.pushTargets(restarted, user: "ann") == ["ann-token", "ann-token"])
        #expect(try restarted.api("POST", "/v1/devices/phone-1/push-tokens", ["kind": "fcm", "token": "y"]).status == 409)
    }
}
