@testable import Gateway
import GatewayProtocol
import GatewayTestSupport
import Testing

/// Memory bounds (docs/ARCHITECTURE.md, "Memory bounds"): once a user is evicted and the windows that outlive it
/// (the presence push rate limit, other nodes' counts) have passed, no structure of the hub holds anything of it.
@Suite struct BoundedMemoryTests {
    @Test func anEvictedUserLeavesNothingBehindOnceItsWindowsPassed() throws {
        let store = InMemoryGatewayStore()
        let bus = InMemoryClusterBus()
        let clock = ManualScheduler()
        var settings = GatewaySettings()
        settings.userCacheCapacity = 1
        let hub = try startedHub(store, clock, settings: settings, bus: bus)
        func run<T>(_ body: (@escaping (Result<T, GatewayError>) -> Void) -> Void) {
            var done = false
            body { result in done = (try? result.get()) != nil }
            #expect(done)
        }
        for id in ["ann", "ben", "cat", "dave", "erin", "fay"] { run { hub.upsertUser(id: id, displayName: nil, completion: $0) } }
        run { hub.addContact("ann", "ben", completion: $0) }
        // Relationship rows: a group of both, a friend request from cat, a pause taken back.
        run { hub.createGroup(ownerId: "ann", .init(id: "g", name: "G"), completion: $0) }
        run { hub.addGroupMember(groupId: "g", userId: "ben", role: nil, completion: $0) }
        run { hub.sendFriendRequest(from: "cat", toHexCode: hub.user("ann")!.hexCode, completion: $0) }
        run { hub.pauseContact(userId: "ben", contactId: "ann", completion: $0) }
        run { hub.resumeContact(userId: "ben", contactId: "ann", completion: $0) }
        // A session of cat's, with an approval that times out (decided: held while cat is).
        run { hub.createSession(id: "s-cat", userId: "cat", title: nil, completion: $0) }
        run { hub.requestApproval(sessionId: "s-cat", toolName: "shell", summary: "ls", details: nil, timeoutMs: 1_000,
                                  idempotencyKey: nil, completion: $0) }
        #expect(hub.session("s-cat") != nil)

        // ben watches ann's presence in the background: one push when she comes online.
        let phone = FakeClient("ben", "phone", "android")
        hub.connect(phone, resumeAfter: nil)
        hub.handle(Array(#"{"id":"t","type":"push_register","kind":"fcm","token":"ben-fcm"}"#.utf8), from: phone)
        hub.handle(Array(#"{"id":"s","type":"set_notification_settings","presenceUpdates":true}"#.utf8), from: phone)
        hub.disconnect(phone)
        clock.advance(by: settings.presenceGraceMs + 1)
        let desk = FakeClient("ann", "desk", "desktop")
        hub.connect(desk, resumeAfter: nil)
        clock.advance(by: 0)
        func bensPushes() throws -> Int { try store.duePushJobs(now: .max, limit: 10).filter { $0.userId == "ben" }.count }
        #expect(try bensPushes() == 1)

        // Another node reports dave's phone, then dies without a word.
        let ghost = bus.member()
        ghost.announcePresence(userId: "dave", connected: 1, away: 0)
        #expect(hub.cluster.hasRemotePresence("dave"))

        // Eviction (capacity 1): everyone idle goes; ben's last push time stays for the rest of its interval; dave
        // stays while his count is believed, ann while connected.
        hub.withUsers(["erin"], failed: { _ in }) {}
        clock.advance(by: 0)
        #expect(!hub.isLoaded("ben") && !hub.isLoaded("cat") && hub.isLoaded("ann") && hub.isLoaded("dave"))
        #expect(hub.presencePushes.structures(holding: "ben").contains("presencePushSentAt"))

        // ben is read again for ann going offline: the rate limit held across his eviction (no second push within
        // the interval; one, coalesced, after it).
        hub.disconnect(desk)
        clock.advance(by: settings.presenceGraceMs + 1)
        #expect(hub.isLoaded("ben") && hub.presencePushes.structures(holding: "ben").contains("presencePushTimers"))
        #expect(try bensPushes() == 1)
        clock.advance(by: settings.presencePushIntervalMs)
        #expect(try bensPushes() == 2)

        // The windows pass; the next eviction takes everyone but the user just read.
        clock.advance(by: max(settings.clusterPresenceTtlMs + settings.clusterPresenceRefreshMs, 2 * settings.presencePushIntervalMs))
        #expect(!hub.cluster.hasRemotePresence("dave") && hub.presencePushes.sentAtCount == 0)
        hub.withUsers(["fay"], failed: { _ in }) {}
        clock.advance(by: 0)
        for id in ["ann", "ben", "cat", "dave", "erin"] {
            #expect(!hub.isLoaded(id), "\(id)")
            #expect(hub.structuresHolding(id) == [], "\(id)")
        }
        #expect(hub.relationshipRowCount == 0)
        #expect(hub.presencePushes.sentAtSlotCount == 0 && hub.cluster.remotePresenceUserCount == 0)
    }

    /// A node reports a user this node reads as absent (created there, not yet visible here): its presence is kept
    /// while the count is believed and through the grace period, then nothing of the user is left.
    @Test func aRemoteUserReadAsAbsentLeavesNothingOnceItsCountExpired() throws {
        let bus = InMemoryClusterBus()
        let clock = ManualScheduler()
        let settings = GatewaySettings()
        let hub = try startedHub(InMemoryGatewayStore(), clock, settings: settings, bus: bus)
        bus.member().announcePresence(userId: "zoe", connected: 1, away: 0)
        #expect(!hub.isLoaded("zoe") && hub.cluster.hasRemotePresence("zoe") && hub.presenceData(of: "zoe").status == "online")
        clock.advance(by: settings.clusterPresenceTtlMs + settings.clusterPresenceRefreshMs + settings.presenceGraceMs)
        #expect(hub.structuresHolding("zoe") == [])
    }

    @Test func aLongPollThatTimesOutLeavesNoWaiterBehind() throws {
        let f = try HubFixture()
        let session = f.session("ann")
        let request = f.approval(session: session, timeoutMs: 600_000)
        var answers: [String] = []
        for _ in 0..<3 {
            f.hub.waitForApproval(request.requestId, waitMs: 1_000) { answers.append((try? $0.get())??.state ?? "none") }
            f.scheduler.advance(by: 1_000)
        }
        #expect(answers == ["pending", "pending", "pending"])
        #expect(!f.hub.approvals.hasWaiters)
    }
}

extension GatewayHub {
    /// The names of the hub's structures that hold anything of `userId` (keys or values).
    func structuresHolding(_ u: String) -> [String] {
        let r = relations
        let checks: [(String, Bool)] = [
            ("users", users[u] != nil), ("usersByHexCode", usersByHexCode.values.contains(u)),
            ("devices", devices.keys.contains { $0.userId == u }), ("devicesByToken", devicesByToken.values.contains { $0.userId == u }),
            ("contacts", contacts[u] != nil || contacts.values.contains { $0[u] != nil }),
            ("latestOffsets", latestOffsets[u] != nil), ("notificationSettings", notificationSettings[u] != nil),
            ("pushTokens", pushTokens.keys.contains { $0.userId == u }),
            ("sessions", !sessions.of(u).isEmpty),
            ("clients", clients[u] != nil), ("presence", presence[u] != nil),
            ("cache", cache.isLoaded(u) || cache.writeCount[u] != nil || cache.writesInFlight[u] != nil || cache.reading[u] != nil
                || cache.waitingCount[u] != nil || cache.stale.contains(u) || cache.rereadWhenIdle.contains(u)),
            ("relations.friendRequests", r.requestsByUser[u] != nil || r.friendRequests.values.contains { $0.fromUserId == u || $0.toUserId == u }),
            ("relations.pauses", r.pauses[u] != nil || r.pauses.reverse[u] != nil),
            ("relations.codes", r.codesByUser[u] != nil || r.currentCode[u] != nil),
            ("relations.groups", r.members.reverse[u] != nil || r.members.rows.values.contains { $0[u] != nil }),
            ("relations.phone", r.phoneByUser[u] != nil),
        ]
        return checks.filter(\.1).map(\.0) + approvals.structures(holding: u) + presencePushes.structures(holding: u)
            + cluster.structures(holding: u)
    }
}
