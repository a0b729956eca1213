import GatewayProtocol
import GatewayTestSupport
import Testing
@testable import Gateway

/// The hub's index from a device id to the users having a device with that id (`DeviceMap`): it must say exactly
/// what a scan of every device held would, as users are read, re-read after another node's change, and forgotten.
@Suite struct DeviceIndexTests {
    /// What the index must answer: a scan of every device the hub holds.
    static func scanned(_ hub: GatewayHub, _ deviceId: String) -> [String] {
        hub.devices.keys.filter { $0.deviceId == deviceId }.map(\.userId).sorted()
    }

    static func expectIndexMatchesScan(_ hub: GatewayHub, sourceLocation: SourceLocation = #_sourceLocation) {
        for id in ["phone", "desk", "tablet", "none"] {
            #expect(hub.users(withDevice: id) == scanned(hub, id), "device \(id)", sourceLocation: sourceLocation)
        }
        for user in Set(hub.devices.keys.map(\.userId)).union(["nobody"]) {
            #expect(Set(hub.devices.keys(of: user)) == Set(hub.devices.keys.filter { $0.userId == user }), "user \(user)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test func aDeviceMapKeepsItsOwnersIndexThroughPutsReplacementsAndRemovals() {
        var map = DeviceMap()
        func device(_ user: String, _ id: String, _ type: String = "ios") -> DeviceRecord {
            DeviceRecord(id: id, userId: user, clientType: type, createdAt: 1)
        }
        map[DeviceKey(userId: "ann", deviceId: "phone")] = device("ann", "phone")
        map[DeviceKey(userId: "ben", deviceId: "phone")] = device("ben", "phone")
        map[DeviceKey(userId: "ann", deviceId: "phone")] = device("ann", "phone", "android")   // replaced, listed once
        #expect(map.owners(ofDevice: "phone") == ["ann", "ben"] && map.count == 2)
        #expect(map.removeValue(forKey: DeviceKey(userId: "ann", deviceId: "phone"))?.clientType == "android")
        #expect(map.removeValue(forKey: DeviceKey(userId: "ann", deviceId: "phone")) == nil)
        #expect(map.owners(ofDevice: "phone") == ["ben"])
        map[DeviceKey(userId: "ben", deviceId: "phone")] = nil
        #expect(map.owners(ofDevice: "phone").isEmpty && map.count == 0)
    }

    @Test func theIndexFollowsReadsEvictionAndReReads() throws {
        let store = InMemoryGatewayStore()
        let bus = InMemoryClusterBus()
        // Five users with a device "phone" each, stored by a node without a bus (nobody hears of them).
        let setup = ManualScheduler()
        let creator = GatewayHub(store: store, scheduler: setup, clock: setup)
        try creator.start()
        for i in 0..<5 {
            let phone = FakeClient("u\(i)", "phone", "ios")
            creator.connect(phone, resumeAfter: nil)
            creator.disconnect(phone)
        }
        let a = try startedHub(store, ManualScheduler(), bus: bus)
        let clock = ManualScheduler()
        var settings = GatewaySettings()
        settings.userCacheCapacity = 2
        let b = try startedHub(store, clock, settings: settings, bus: bus)

        // Read on demand: each user's devices join the index.
        b.withUsers(["u0", "u1"], failed: { _ in }) {}
        #expect(b.users(withDevice: "phone") == ["u0", "u1"])
        Self.expectIndexMatchesScan(b)
        // Forgotten beyond the capacity, least recently used first: their devices leave it.
        for id in ["u2", "u3", "u4"] {
            b.withUsers([id], failed: { _ in }) {}
            clock.advance(by: 0)
            Self.expectIndexMatchesScan(b)
        }
        #expect(b.loadedUserCount == 2 && !b.isLoaded("u0") && !b.isLoaded("u1"))
        #expect(b.users(withDevice: "phone") == ["u3", "u4"])

        // Re-read after another node's change: u4 (a desk connected here) gains a tablet on A.
        let desk = FakeClient("u4", "desk", "desktop")
        b.connect(desk, resumeAfter: nil)
        #expect(b.users(withDevice: "desk") == ["u4"])
        let reads = b.metrics.userReads.load(ordering: .relaxed)
        a.connect(FakeClient("u4", "tablet", "ios"), resumeAfter: nil)
        #expect(b.metrics.userReads.load(ordering: .relaxed) > reads)   // B read u4 again on A's notice
        #expect(b.users(withDevice: "tablet") == ["u4"])
        #expect(b.users(withDevice: "phone").filter { $0 == "u4" }.count == 1)
        Self.expectIndexMatchesScan(b)
        // And a user read back after being forgotten is listed again.
        b.withUsers(["u0"], failed: { _ in }) {}
        #expect(b.users(withDevice: "phone").contains("u0"))
        Self.expectIndexMatchesScan(b)
    }
}
