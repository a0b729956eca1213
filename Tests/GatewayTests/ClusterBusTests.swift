import Gateway
import GatewayProtocol
import GatewayTestSupport
import Testing

/// Two hubs on one store and one `InMemoryClusterBus`, as two nodes share a database and Redis, each on its own
/// manual clock: what one commits reaches the other's devices through a notice and a store read, in offset order.
@Suite struct ClusterBusTests {
    let store = InMemoryGatewayStore()
    let bus = InMemoryClusterBus()
    let clockA = ManualScheduler()
    let clockB = ManualScheduler()

    func hub(_ clock: ManualScheduler, bus: InMemoryClusterBus?) throws -> GatewayHub {
        var settings = GatewaySettings()
        settings.approvalPushDelayMs = 0
        let hub = GatewayHub(store: store, scheduler: clock, clock: clock, settings: settings)
        hub.clusterBus = bus?.member()
        try hub.start()
        return hub
    }

    /// Node A with ann known to both snapshots, node B, and ann's phone on B.
    func twoNodes(busOnA: Bool = true) throws -> (GatewayHub, GatewayHub, FakeClient) {
        let a = try hub(clockA, bus: busOnA ? bus : nil)
        a.upsertUser(id: "ann", displayName: nil) { _ in }
        let b = try hub(clockB, bus: bus)
        let phone = FakeClient("ann", "phone", "ios")
        b.connect(phone, resumeAfter: nil)
        return (a, b, phone)
    }

    func publish(_ hub: GatewayHub, _ name: String) {
        hub.publish(userId: "ann", name: name, payload: nil, idempotencyKey: nil) { _ in }
    }

    func names(_ client: FakeClient) -> [String] { client.events("custom").compactMap { data($0)["name"] as? String } }
    func offsets(_ client: FakeClient) -> [Int64] { client.events("custom").compactMap { $0["offset"] as? Int64 } }

    @Test func anEventCommittedOnOneNodeReachesTheOtherNodesDeviceOnceThroughANotice() throws {
        let (a, b, phone) = try twoNodes()
        let desk = FakeClient("ann", "desk", "desktop")
        a.connect(desk, resumeAfter: nil)
        for i in 0..<5 { publish(a, "e\(i)") }
        #expect(names(phone) == ["e0", "e1", "e2", "e3", "e4"])
        #expect(names(desk) == names(phone))
        #expect(offsets(phone) == [1, 2, 3, 4, 5])
        #expect(b.metrics.clusterNotices.value == 5)
        // B's memory of ann's log moved with the notices: its own next event takes offset 6 at the first try.
        publish(b, "from-b")
        #expect(offsets(phone).last == 6 && offsets(desk).last == 6)
    }

    @Test func aDeviceConnectingAfterOtherNodesEventsStartsAtTheLogsEndNotAtTheSnapshot() throws {
        let a = try hub(clockA, bus: bus)
        a.upsertUser(id: "ann", displayName: nil) { _ in }
        let b = try hub(clockB, bus: bus)
        for i in 0..<3 { publish(a, "old\(i)") }              // B hosts no device of ann yet, but hears the notices
        let phone = FakeClient("ann", "phone", "ios")
        b.connect(phone, resumeAfter: nil)
        #expect(data(phone.events("welcome").first ?? [:])["latestOffset"] as? Int64 == 3)
        publish(a, "new")
        #expect(names(phone) == ["new"])
        #expect(offsets(phone) == [4])
    }

    /// A device whose node died resumes on a node that has not heard of the dead node's last events (they were never
    /// announced): the read finds the log's real end, so the device is not "ahead of the log" and gets nothing twice.
    @Test func aResumeOnANodeWhoseMemoryOfTheLogLagsReplaysNothingTheDeviceHas() throws {
        let a = try hub(clockA, bus: nil)                  // announces nothing: B never hears of A's events
        a.upsertUser(id: "ann", displayName: nil) { _ in }
        let b = try hub(clockB, bus: bus)
        for i in 0..<3 { publish(a, "seen\(i)") }          // the phone had these (offset 3) when its node died
        let phone = FakeClient("ann", "phone", "ios")
        b.connect(phone, resumeAfter: 3)
        #expect(data(phone.events("resume").first ?? [:])["recovered"] as? Bool == true, "\(phone.events("resume"))")
        #expect(names(phone) == [])
        publish(b, "next")                                  // B's memory moved to the log's end: offset 4
        #expect(names(phone) == ["next"])
        #expect(offsets(phone) == [4])
    }

    @Test func anOwnEventAfterOneNotHeardOfWaitsForTheMissingOneAndBothGoOutInOrder() throws {
        let (a, b, phone) = try twoNodes(busOnA: false)   // A announces nothing: B never hears of e0
        publish(a, "e0")
        #expect(names(phone) == [])
        publish(b, "e1")                                     // offset 2 (after the store refused 1): a gap on B
        #expect(names(phone) == ["e0", "e1"])
        #expect(offsets(phone) == [1, 2])
    }

    @Test func whileTheBusIsDownEventsArriveThroughTheReReadsAndOnceItIsBackThroughNotices() throws {
        let (a, b, phone) = try twoNodes()
        bus.setHealthy(false)
        #expect(b.metrics.clusterBusUp.load(ordering: .relaxed) == 0)
        publish(a, "down")
        #expect(names(phone) == [])                          // the notice was lost
        clockB.advance(by: 999)
        #expect(names(phone) == [])
        clockB.advance(by: 1)                                // the re-read every second finds it
        #expect(names(phone) == ["down"])
        #expect(b.metrics.clusterRechecks.value == 1)
        publish(a, "still-down")
        bus.setHealthy(true)                                 // back: every connected user's log is read once
        #expect(names(phone) == ["down", "still-down"])
        publish(a, "up")
        #expect(names(phone) == ["down", "still-down", "up"])
        clockB.advance(by: 5_000)
        #expect(b.metrics.clusterRechecks.value == 1)        // no re-reads while the bus works
        #expect(offsets(phone) == [1, 2, 3])
    }
}
