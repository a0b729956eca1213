import Dispatch
import Foundation
@testable import Gateway
@testable import GatewayRuntime
@testable import Server
import Storage
import Synchronization
import TestSupport
import Testing

/// Users' records on several nodes (docs/CLUSTER.md, "Users on several nodes"): two nodes on one PostgreSQL database
/// and one `redis-server`, all started by the test. A node reads a user it does not hold from the store when first
/// needed, and forgets or re-reads a user it holds when another node announces a change to its records.
@Suite struct ClusterUserRecordsTests {
    /// `read` on `server`'s hub thread, answered to the test thread.
    static func onHub<T: Sendable>(_ server: GatewayTestServer, _ read: @escaping @Sendable (GatewayHub) -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<T?>(nil)
        let hub = server.runtime.hub
        server.runtime.hubLoop.execute { box.withLock { $0 = read(hub) }; done.signal() }
        done.wait()
        return box.withLock { $0! }
    }

    /// Waits until `node` has heard more than `count` change notices (each one handled on its hub thread).
    static func waitForNotices(_ node: GatewayTestServer, moreThan count: Int, _ what: String) throws {
        try ClusterDeliveryTests.waitUntil(timeout: 10, what) { node.runtime.hub.metrics.userChangeNotices.value > count }
    }

    @Test func aUserCreatedOnOneNodeIsServedByTheOtherAtOnce() throws {
        let cluster = try ClusterDeliveryTests.Cluster()
        let a = try cluster.addNode()
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        #expect(try b.api("GET", "/v1/users/ann").status == 404)     // not yet: and the miss is not remembered
        let created = try a.api("POST", "/v1/users", ["userId": "ann", "displayName": "Ann"])
        #expect(created.status == 201, "\(created.json)")
        let onB = try b.api("GET", "/v1/users/ann")                 // at once: read on the miss, no notice needed
        #expect(onB.status == 200)
        #expect(GatewayJSON.string(onB.json, "hexCode") == GatewayJSON.string(created.json, "hexCode"))
        #expect(GatewayJSON.string(onB.json, "displayName") == "Ann")
        try Self.waitForNotices(b, moreThan: 0, "B hears that ann was created")

        // B holds ann now; a change made on A reaches B through the notice (B forgets its copy, the next call reads).
        let notices = b.runtime.hub.metrics.userChangeNotices.value
        #expect(try a.api("POST", "/v1/users", ["userId": "ann", "displayName": "Ann B."]).status == 200)
        try Self.waitForNotices(b, moreThan: notices, "B hears that ann changed")
        // The count may have moved for a late notice of ann's creation (each stored batch naming her is announced),
        // so the change itself is waited for: B serves the new name once its notice has arrived.
        try ClusterDeliveryTests.waitUntil(timeout: 10, "B serves ann's new name") {
            (try? b.api("GET", "/v1/users/ann")).map { GatewayJSON.string($0.json, "displayName") } == "Ann B."
        }
    }

    @Test func aDeviceRegisteredOnOneNodeIsKnownToTheOther() throws {
        let cluster = try ClusterDeliveryTests.Cluster()
        let a = try cluster.addNode()
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        let secret = "a-device-secret-of-enough-length"
        let first = try a.api("POST", "/v1/devices/register", ["deviceToken": secret, "platform": "ios"], key: nil)
        #expect(first.status == 201, "\(first.json)")
        let userId = try #require(GatewayJSON.string(first.json, "userId"))
        // A's notice of the new user reaches B first (B holds nothing of it, so the notice drops nothing); a notice
        // arriving after B's read below, or the bus coming up then, would make B forget its copy and read it again.
        try Self.waitForNotices(b, moreThan: 0, "B hears that the device's user was created")
        // B never saw the device: the digest is looked up in the store, and the same identity comes back.
        let again = try b.api("POST", "/v1/devices/register", ["deviceToken": secret, "platform": "ios"], key: nil)
        #expect(again.status == 200, "\(again.json)")
        #expect(GatewayJSON.string(again.json, "userId") == userId)
        #expect(GatewayJSON.string(again.json, "deviceId") == GatewayJSON.string(first.json, "deviceId"))
        #expect(GatewayJSON.string(again.json, "hexCode") == GatewayJSON.string(first.json, "hexCode"))
        #expect(onHubLoaded(b, userId))

        // The token A issued authenticates on B, as that user and device.
        let token = try #require(GatewayJSON.string(first.json, "token"))
        let device = try GatewayTestClient(port: b.port, path: "/v1/ws?token=\(token)")
        let welcome = try device.next("welcome")
        #expect(GatewayJSON.string(welcome, "data", "userId") == userId)
        #expect(GatewayJSON.string(welcome, "data", "deviceId") == GatewayJSON.string(first.json, "deviceId"))
    }

    func onHubLoaded(_ server: GatewayTestServer, _ userId: String) -> Bool { Self.onHub(server) { $0.isLoaded(userId) } }

    @Test func aPushTokenRegisteredOnOneNodeIsUsedByTheOthersPushPolicy() throws {
        let cluster = try ClusterDeliveryTests.Cluster()
        let a = try cluster.addNode()
        let b = try cluster.addNode()
        try cluster.waitForBus(up: true)
        let phone = try a.connect(user: "bob", device: "bob-phone")   // bob and his phone, one batch: one notice
        phone.disconnect()
        #expect(GatewayDeviceScopeTests.waitUntilOffline(a, "bob"))
        try Self.waitForNotices(b, moreThan: 0, "B hears that bob was created")
        #expect(try b.api("POST", "/v1/sessions", ["userId": "bob", "sessionId": "s1"]).status == 201)
        #expect(onHubLoaded(b, "bob"))                                  // B holds bob, without any push token

        let notices = b.runtime.hub.metrics.userChangeNotices.value
        let registered = try a.api("POST", "/v1/users/bob/devices/bob-phone/push-tokens", ["kind": "webhook", "token": "https://receiver.test/bob"])
        #expect(registered.status == 200, "\(registered.json)")
        try Self.waitForNotices(b, moreThan: notices, "B hears that bob's tokens changed")
        // The count may have moved for an earlier notice of bob's (his phone's disconnect), so the change itself is
        // waited for: B holds bob with the token, or holds nothing of him and reads him (token included) when asked.
        try ClusterDeliveryTests.waitUntil(timeout: 10, "B has bob's token or will read it") {
            Self.onHub(b) { hub in
                if hub.isLoaded("bob") {
                    return !(hub.pushTokens[DeviceKey(userId: "bob", deviceId: "bob-phone")] ?? []).isEmpty
                }
                return hub.cache.reading["bob"] == nil && !hub.cache.stale.contains("bob")
            }
        }

        // An approval created through B pushes to the phone's token, which B's copy of bob did not have.
        #expect(try b.api("POST", "/v1/sessions/s1/approvals", ["toolName": "shell", "summary": "ls", "timeoutSeconds": 600]).status == 201)
        let reader = try PostgresGatewayStore(options: PostgresStoreOptions(url: cluster.url))
        defer { reader.close() }
        let jobs = (1...Int64(20)).compactMap { try? reader.pushJob(id: $0) }
        #expect(jobs.contains { $0.deviceId == "bob-phone" && $0.target.token == "https://receiver.test/bob" }, "\(jobs)")
    }
}
