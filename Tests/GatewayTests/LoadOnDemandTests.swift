@testable import Gateway
import GatewayProtocol
import GatewayTestSupport
import Testing

/// Users loaded on demand (docs/ARCHITECTURE.md, "Memory and load on demand"): a hub starts holding no user, reads
/// each one when a connection, command or call needs it, follows other nodes' changes through the cluster bus, and
/// forgets idle users beyond its capacity.
@Suite struct LoadOnDemandTests {
    let store = InMemoryGatewayStore()
    let bus = InMemoryClusterBus()

    func hub(_ clock: ManualScheduler = ManualScheduler(), bus: InMemoryClusterBus? = nil, capacity: Int = 100_000) throws -> GatewayHub {
        var settings = GatewaySettings()
        settings.approvalPushDelayMs = 0
        settings.userCacheCapacity = capacity
        let hub = GatewayHub(store: store, scheduler: clock, clock: clock, settings: settings)
        hub.clusterBus = bus?.member()
        try hub.start()
        return hub
    }

    func pushTokens(to deviceId: String) throws -> [String] {
        try store.duePushJobs(now: .max, limit: 100).filter { $0.deviceId == deviceId }.map(\.target.token)
    }

    @Test func aHubStartsWithNoUserAndReadsEachWhenFirstNeeded() throws {
        let first = try hub()
        first.upsertUser(id: "ann", displayName: "Ann") { _ in }
        first.upsertUser(id: "ben", displayName: nil) { _ in }
        first.upsertUser(id: "cat", displayName: nil) { _ in }
        first.addContact("ann", "ben") { _ in }
        first.publish(userId: "ann", name: "old", payload: nil, idempotencyKey: nil) { _ in }
        let annHex = first.user("ann")?.hexCode

        let second = try hub()
        #expect(second.loadedUserCount == 0)
        #expect(second.user("ann") == nil)                   // not in memory until something needs it
        let phone = FakeClient("ann", "phone", "ios")
        second.connect(phone, resumeAfter: nil)
        // Ann and her contact (whose presence push settings her coming online needs), nobody else.
        #expect(second.isLoaded("ann") && second.isLoaded("ben") && !second.isLoaded("cat"))
        #expect(second.user("ann")?.hexCode == annHex)
        // The log's end came with the user: the device starts after the event stored before this hub started.
        #expect(data(phone.events("welcome").first ?? [:])["latestOffset"] as? Int64 == 2)

        // A command naming another user reads that user before it runs: a contact, so the message goes through.
        second.handle(Array(#"{"id":"m1","type":"send_message","to":"ben","text":"hi"}"#.utf8), from: phone)
        #expect(phone.reply("m1")?["ok"] as? Bool == true, "\(phone.frames)")
        #expect(try store.events(userId: "ben", after: 0, limit: 10).last?.type == "message")
        second.handle(Array(#"{"id":"m2","type":"send_message","to":"cat","text":"hi"}"#.utf8), from: phone)
        #expect(phone.errorCode("m2") == "not_a_contact")
        #expect(second.isLoaded("cat"))
    }

    @Test func anUnknownUserIsNotRememberedAsUnknown() throws {
        let a = try hub()
        let b = try hub()
        var seen: [String?] = []
        b.withUsers(["zoe"], failed: { _ in }) { seen.append(b.user("zoe")?.userId) }
        #expect(!b.isLoaded("zoe"))
        a.upsertUser(id: "zoe", displayName: nil) { _ in }    // created on another node afterwards
        b.withUsers(["zoe"], failed: { _ in }) { seen.append(b.user("zoe")?.userId) }
        #expect(seen == [nil, "zoe"])
    }

    @Test func aUserHeldByANodeFollowsAnotherNodesChangeToItsRecords() throws {
        let a = try hub(bus: bus)
        let b = try hub(bus: bus)
        let desk = FakeClient("ann", "desk", "desktop")
        b.connect(desk, resumeAfter: nil)                      // B holds ann while her desk is connected
        var created: String?
        b.createSession(id: "s1", userId: "ann", title: nil) { created = try? $0.get().sessionId }
        #expect(created == "s1")

        let phone = FakeClient("ann", "phone", "ios")
        a.connect(phone, resumeAfter: nil)                    // a device B has not seen, with a push token
        a.handle(Array(#"{"id":"p","type":"push_register","kind":"apns","token":"tok-1","environment":"sandbox"}"#.utf8), from: phone)
        #expect(phone.reply("p")?["ok"] as? Bool == true)
        a.disconnect(phone)
        #expect(b.metrics.userChangeNotices.value >= 1)
        b.disconnect(desk)                                     // no device connected: the approval is pushed

        // B re-read ann on A's notice (while her desk was connected): its push policy knows the phone and its token.
        b.requestApproval(sessionId: "s1", toolName: "shell", summary: "ls", details: nil, timeoutMs: nil, idempotencyKey: nil) { _ in }
        #expect(b.isLoaded("ann"))
        #expect(try pushTokens(to: "phone") == ["tok-1"])
    }

    @Test func withoutTheNoticeANodeKeepsItsOwnCopy() throws {
        // The same as above with no bus: B's copy of ann is stale, which is what the notice is for.
        let a = try hub()
        let b = try hub()
        let desk = FakeClient("ann", "desk", "desktop")
        b.connect(desk, resumeAfter: nil)
        b.createSession(id: "s1", userId: "ann", title: nil) { _ in }
        let phone = FakeClient("ann", "phone", "ios")
        a.connect(phone, resumeAfter: nil)
        a.handle(Array(#"{"id":"p","type":"push_register","kind":"apns","token":"tok-1","environment":"sandbox"}"#.utf8), from: phone)
        a.disconnect(phone)
        b.disconnect(desk)
        #expect(b.isLoaded("ann"))
        b.requestApproval(sessionId: "s1", toolName: "shell", summary: "ls", details: nil, timeoutMs: nil, idempotencyKey: nil) { _ in }
        #expect(try pushTokens(to: "phone").isEmpty)
    }

    @Test func idleUsersAreForgottenBeyondTheCapacityConnectedOnesNever() throws {
        let clock = ManualScheduler()
        let h = try hub(clock, capacity: 4)
        let phone = FakeClient("keep", "phone", "ios")
        h.connect(phone, resumeAfter: nil)
        var hexCodes: [String: String] = [:]
        for i in 0..<20 {
            h.upsertUser(id: "u\(i)", displayName: "U\(i)") { hexCodes["u\(i)"] = try? $0.get().hexCode }
            h.withUsers(["u\(i)"], failed: { _ in }) {}       // a later use
            clock.advance(by: 0)                                // the eviction due after each round
        }
        #expect(h.loadedUserCount <= 4)
        #expect(h.isLoaded("keep"))
        #expect(h.metrics.usersEvicted.load(ordering: .relaxed) >= 16)
        // Forgetting loses nothing durable: a forgotten user reads back as it was.
        #expect(!h.isLoaded("u0"))
        var back: GatewayHub.UserData?
        h.withUsers(["u0"], failed: { _ in }) { back = h.user("u0") }
        #expect(back?.hexCode == hexCodes["u0"] && back?.displayName == "U0")
        // The connected user's commands still work.
        h.handle(Array(#"{"id":"n","type":"notification_settings"}"#.utf8), from: phone)
        #expect(phone.reply("n")?["ok"] as? Bool == true)
    }
}

/// A manual scheduler whose store reads wait until `release()`: work that needs a user can queue up behind its read.
final class HeldReadScheduler: GatewayScheduler, GatewayClock, @unchecked Sendable {
    // @unchecked: used from one test thread.
    let manual = ManualScheduler()
    private var held: [@Sendable () -> Void] = []
    func now() -> Int64 { manual.now() }
    func schedule(at deadline: Int64, _ callback: @escaping () -> Void) -> GatewayTimer { manual.schedule(at: deadline, callback) }
    func execute(_ task: @escaping @Sendable () -> Void) { task() }
    func runBlocking(_ work: @escaping @Sendable () -> Void) { held.append(work) }
    var heldReads: Int { held.count }
    /// Runs the reads held so far (and any they lead to), in order.
    func release() {
        while !held.isEmpty { held.removeFirst()() }
    }
    /// Runs the oldest read held (those it leads to stay held).
    func releaseOne() { held.removeFirst()() }
}

@Suite struct LoadOnDemandOrderTests {
    /// ann and ben, contacts, stored by one hub; a second hub on the same store whose reads wait for `release`.
    static func heldReadHub() throws -> (InMemoryGatewayStore, HeldReadScheduler, GatewayHub) {
        let store = InMemoryGatewayStore()
        let setup = ManualScheduler()
        let first = GatewayHub(store: store, scheduler: setup, clock: setup)
        try first.start()
        first.upsertUser(id: "ann", displayName: nil) { _ in }
        first.upsertUser(id: "ben", displayName: nil) { _ in }
        first.addContact("ann", "ben") { _ in }
        let scheduler = HeldReadScheduler()
        let hub = GatewayHub(store: store, scheduler: scheduler, clock: scheduler)
        try hub.start()
        return (store, scheduler, hub)
    }

    /// Another node's presence counts for a user this hub does not hold are applied in order: a 0 arriving while the
    /// earlier count waits for the user's read queues behind it instead of being dropped (the count would otherwise be
    /// believed for a whole TTL, and push policy would take the user for connected there).
    @Test func anotherNodesZeroCountWaitingBehindItsEarlierCountIsNotDropped() throws {
        let (_, scheduler, hub) = try Self.heldReadHub()
        hub.clusterSignal(.presence(userId: "ann", node: "node-b", connected: 1, away: 0))   // reads ann (held)
        hub.clusterSignal(.presence(userId: "ann", node: "node-b", connected: 0, away: 0))   // while the read waits
        #expect(scheduler.heldReads == 1)
        scheduler.releaseOne()
        #expect(hub.clusterDevices(of: "ann").connected == 0)
        #expect(!hub.cluster.hasRemotePresence("ann"))
    }

    /// What shutdown relies on: `whenUserReadsSettled` runs once every read and the work waiting on it are done —
    /// called back by the last read's completion, with no timer (the manual clock never moves here).
    @Test func settledIsCalledBackOnceTheLastReadAndTheWorkWaitingOnItAreDone() throws {
        let (store, scheduler, hub) = try Self.heldReadHub()
        var settledNow = 0
        hub.whenUserReadsSettled { settledNow += 1 }             // nothing in flight: at once
        #expect(settledNow == 1)

        let phone = FakeClient("ann", "phone", "ios")
        hub.connect(phone, resumeAfter: nil)                     // reads ann (held)
        hub.handle(Array(#"{"id":"a","type":"send_message","to":"ben","text":"one"}"#.utf8), from: phone)
        var published: Result<Int64, GatewayError>?
        hub.withUsers(["ann"], failed: { _ in }) {
            hub.publish(userId: "ann", name: "late", payload: nil, idempotencyKey: nil) { published = $0 }
        }
        var settled: [String] = []   // what was done when called back
        hub.whenUserReadsSettled {
            let stored = (try? store.events(userId: "ann", after: 0, limit: 100))?.contains { $0.type == "custom" } == true
            settled.append("stored \(stored), replied \(phone.reply("a") != nil)")
        }
        hub.whenUserReadsSettled { settled.append("second") }
        #expect(settled.isEmpty && scheduler.heldReads == 1)

        scheduler.releaseOne()              // ann read: her connect and the publish ran; the message waits for ben's read
        #expect((try? published?.get()) != nil && phone.reply("a") == nil && scheduler.heldReads == 1)
        #expect(settled.isEmpty)
        scheduler.releaseOne()              // ben read: the message waits for its id from the store
        #expect(phone.reply("a") == nil && scheduler.heldReads == 1 && settled.isEmpty)
        scheduler.releaseOne()              // the id reserved: the message ran, nothing else waits
        #expect(phone.reply("a")?["ok"] as? Bool == true, "\(phone.frames)")
        #expect(settled == ["stored true, replied true", "second"])   // after all of it, each once
        #expect(scheduler.heldReads == 0)
    }

    @Test func aDevicesCommandsAndDisconnectWaitBehindItsConnectWhileTheUserIsRead() throws {
        let (store, scheduler, hub) = try Self.heldReadHub()
        let phone = FakeClient("ann", "phone", "ios")
        let desk = FakeClient("ann", "desk", "desktop")
        hub.connect(phone, resumeAfter: nil)
        hub.handle(Array(#"{"id":"a","type":"send_message","to":"ben","text":"one"}"#.utf8), from: phone)
        hub.handle(Array(#"{"id":"b","type":"send_message","to":"ben","text":"two"}"#.utf8), from: phone)
        hub.connect(desk, resumeAfter: nil)
        hub.disconnect(phone)
        #expect(phone.frames.isEmpty && scheduler.heldReads == 1)    // one read for ann; nothing ran yet

        scheduler.release()
        // In arrival order: welcome, both messages (ben read on the way), then the phone is gone, the desk stays.
        #expect(phone.events("welcome").count == 1)
        #expect(phone.reply("a")?["ok"] as? Bool == true && phone.reply("b")?["ok"] as? Bool == true, "\(phone.frames)")
        let texts = try store.events(userId: "ben", after: 0, limit: 10).filter { $0.type == "message" }
            .map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(texts.count == 2 && texts[0].contains("one") && texts[1].contains("two"), "\(texts)")
        #expect(hub.connectedDevices(of: "ann").map(\.deviceId) == ["desk"])
        #expect(desk.events("welcome").count == 1)
    }
}
