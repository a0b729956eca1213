import Gateway
import GatewayProtocol
import GatewayTestSupport
import Testing

/// Presence across two hubs on one store and one `InMemoryClusterBus`, each on its own manual clock: ann is online
/// while a device of hers is on either node, her contact bob hears each change once per device of his, and a node that
/// stops without a word (its clock and timers never run again) has her devices counted out within the stated bound.
@Suite struct ClusterPresenceTests {
    let store = InMemoryGatewayStore()
    let bus = InMemoryClusterBus()
    let clockA = ManualScheduler()
    let clockB = ManualScheduler()
    let settings = GatewaySettings()

    func hub(_ clock: ManualScheduler) throws -> GatewayHub {
        let hub = GatewayHub(store: store, scheduler: clock, clock: clock, settings: settings)
        hub.clusterBus = bus.member()
        try hub.start()
        return hub
    }

    /// Node A with ann and bob as contacts in the store before node B loads its snapshot.
    func twoNodes() throws -> (GatewayHub, GatewayHub) {
        let a = try hub(clockA)
        for id in ["ann", "bob"] { a.upsertUser(id: id, displayName: nil) { _ in } }
        a.addContact("ann", "bob") { result in precondition((try? result.get()) != nil) }
        return (a, try hub(clockB))
    }

    /// Both nodes' time moves together, in half-second steps, so each one's timers run in turn.
    func advanceBoth(by ms: Int64) {
        for _ in 0..<(ms / 500) { clockA.advance(by: 500); clockB.advance(by: 500) }
    }

    func statuses(_ client: FakeClient, of userId: String = "ann") -> [String] {
        client.events("presence").map(data).filter { $0["userId"] as? String == userId }.compactMap { $0["status"] as? String }
    }

    @Test func aUserIsOnlineWhileAnyDeviceOnAnyNodeIsAndContactsHearEachChangeOnce() throws {
        let (a, b) = try twoNodes()
        let bobOnA = FakeClient("bob", "laptop", "desktop")
        let bobOnB = FakeClient("bob", "phone", "ios")
        a.connect(bobOnA, resumeAfter: nil)
        b.connect(bobOnB, resumeAfter: nil)
        let phone = FakeClient("ann", "phone", "ios")
        let desk = FakeClient("ann", "desk", "desktop")
        a.connect(phone, resumeAfter: nil)
        b.connect(desk, resumeAfter: nil)
        #expect(statuses(bobOnA) == ["online"])
        #expect(statuses(bobOnB) == ["online"])
        // The counts are repeated: long past the TTL nobody is counted out while both nodes run.
        advanceBoth(by: 20_000)
        a.disconnect(phone)                         // one node's device leaves: still online on both nodes
        advanceBoth(by: 20_000)
        #expect(statuses(bobOnA) == ["online"])
        #expect(statuses(bobOnB) == ["online"])
        var listed: [String: Any]?
        a.handle(Array(#"{"id":"p","type":"presence"}"#.utf8), from: bobOnA)
        listed = ((bobOnA.reply("p")?["result"] as? [String: Any])?["contacts"] as? [[String: Any]])?.first
        #expect(listed?["status"] as? String == "online")
        b.disconnect(desk)                          // the last device anywhere: offline after the grace, once
        advanceBoth(by: settings.presenceGraceMs - 500)
        #expect(statuses(bobOnA) == ["online"])
        advanceBoth(by: 500)
        #expect(statuses(bobOnA) == ["online", "offline"])
        #expect(statuses(bobOnB) == ["online", "offline"])
        advanceBoth(by: 20_000)
        #expect(statuses(bobOnA) == ["online", "offline"])
        #expect(statuses(bobOnB) == ["online", "offline"])
    }

    @Test func aWatcherWithADeviceOnAnotherNodeGetsNoPresencePushFromThisOne() throws {
        let (a, b) = try twoNodes()
        // bob opts in to presence pushes through A (which thus knows his token and settings), then leaves A.
        let bobOnA = FakeClient("bob", "phone", "android")
        a.connect(bobOnA, resumeAfter: nil)
        a.handle(Array(#"{"id":"t","type":"push_register","kind":"fcm","token":"bob-fcm"}"#.utf8), from: bobOnA)
        a.handle(Array(#"{"id":"s","type":"set_notification_settings","presenceUpdates":true}"#.utf8), from: bobOnA)
        a.disconnect(bobOnA)
        advanceBoth(by: 10_000)
        func pushes() throws -> [String?] { try store.duePushJobs(now: .max, limit: 100).map { $0.notice.ids["userIds"] } }
        // With his laptop on B, ann's changes reach him there; A sends no push for them.
        let laptop = FakeClient("bob", "laptop", "desktop")
        b.connect(laptop, resumeAfter: nil)
        let ann = FakeClient("ann", "phone", "ios")
        a.connect(ann, resumeAfter: nil)
        advanceBoth(by: 1_000)
        a.disconnect(ann)
        advanceBoth(by: settings.presenceGraceMs + 1_000)
        #expect(statuses(laptop) == ["online", "offline"])
        #expect(try pushes() == [])
        // With no device of his anywhere, the next change is pushed.
        b.disconnect(laptop)
        a.connect(ann, resumeAfter: nil)
        advanceBoth(by: 1_000)
        // Both nodes hold bob (B read his token and settings from the store when his laptop connected there) and
        // both would push; the store's claim lets exactly one of them (the other counts it as claimed elsewhere).
        let jobs = try store.duePushJobs(now: .max, limit: 100)
        #expect(jobs.count == 1)
        #expect(jobs.allSatisfy { $0.notice.ids["userIds"] == "ann" && $0.notice.collapseID == "presence" })
        #expect(a.metrics.presencePushesClaimedElsewhere.value + b.metrics.presencePushesClaimedElsewhere.value == 1)
        // The next change within the interval waits for it, on both nodes, and is then pushed once more, once.
        a.disconnect(ann)
        advanceBoth(by: settings.presenceGraceMs + 1_000)
        #expect(try store.duePushJobs(now: .max, limit: 100).count == 1)
        advanceBoth(by: settings.presencePushIntervalMs)
        let later = try store.duePushJobs(now: .max, limit: 100)
        #expect(later.count == 2 && later.last?.notice.ids["userIds"] == "ann")
        #expect(a.metrics.presencePushesClaimedElsewhere.value + b.metrics.presencePushesClaimedElsewhere.value == 2)
    }

    @Test func awayCountsAcrossNodes() throws {
        let (a, b) = try twoNodes()
        let bob = FakeClient("bob", "phone", "ios")
        b.connect(bob, resumeAfter: nil)
        let phone = FakeClient("ann", "phone", "ios")
        a.connect(phone, resumeAfter: nil)
        a.handle(Array(#"{"id":"w","type":"set_presence","status":"away"}"#.utf8), from: phone)
        #expect(statuses(bob) == ["online", "away"])
        let desk = FakeClient("ann", "desk", "desktop")
        b.connect(desk, resumeAfter: nil)            // a device not away on the other node: online again
        #expect(statuses(bob) == ["online", "away", "online"])
    }

    @Test func aNodeThatDiesWithoutAWordHasItsDevicesCountedOutWithinTheBound() throws {
        let (a, b) = try twoNodes()
        let bob = FakeClient("bob", "phone", "ios")
        b.connect(bob, resumeAfter: nil)
        a.connect(FakeClient("ann", "phone", "ios"), resumeAfter: nil)
        #expect(statuses(bob) == ["online"])
        // A stops: no disconnect, no notice, its timers never run again. Only B's time moves.
        var elapsed: Int64 = 0
        while statuses(bob) == ["online"] && elapsed < 60_000 {
            clockB.advance(by: 100)
            elapsed += 100
        }
        #expect(statuses(bob) == ["online", "offline"])
        let bound = settings.clusterPresenceTtlMs + settings.clusterPresenceRefreshMs + settings.presenceGraceMs
        #expect(elapsed >= settings.clusterPresenceTtlMs + settings.presenceGraceMs && elapsed <= bound)
        #expect(bound <= 15_000)
        clockB.advance(by: 30_000)
        #expect(statuses(bob) == ["online", "offline"])
    }

    @Test func whileTheBusIsDownOtherNodesDevicesAreNotCountedOut() throws {
        let (a, b) = try twoNodes()
        let bob = FakeClient("bob", "phone", "ios")
        b.connect(bob, resumeAfter: nil)
        a.connect(FakeClient("ann", "phone", "ios"), resumeAfter: nil)
        bus.setHealthy(false)                       // A's repeats are lost with the bus, not ann's device
        advanceBoth(by: 30_000)
        bus.setHealthy(true)
        advanceBoth(by: 30_000)
        #expect(statuses(bob) == ["online"])
    }
}
