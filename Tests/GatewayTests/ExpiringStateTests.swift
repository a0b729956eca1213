@testable import Gateway
import TestSupport
import Testing

/// The hub's time-bounded maps (docs/ARCHITECTURE.md, "Memory bounds"): `ExpiringMap` (when each watcher's last
/// presence push went out) and `RemotePresence` (other nodes' device counts), pure, with time passed in.
@Suite struct ExpiringStateTests {
    @Test func anEntryCountsUntilItsExpiryAndIsFreedBySweepingThen() {
        var map = ExpiringMap<String, Int64>()
        map.set("ann", 100, expiresAt: 160)
        map.set("ben", 120, expiresAt: 180)
        #expect(map.value("ann", now: 159) == 100)
        #expect(map.value("ann", now: 160) == nil)             // expired: gone for look-ups before any sweep
        #expect(map.holds("ann"))
        #expect(map.nextExpiry == 160)
        #expect(map.removeExpired(now: 170) == 1)
        #expect(!map.holds("ann") && map.holds("ben"))
        #expect(map.removeExpired(now: 180) == 1)
        #expect(map.count == 0 && map.slotCount == 0 && map.nextExpiry == nil)
    }

    @Test func settingAnEntryAgainMovesItsExpiryAndTheOldSlotDoesNotFreeIt() {
        var map = ExpiringMap<String, Int64>()
        map.set("ann", 100, expiresAt: 160)
        map.set("ann", 150, expiresAt: 210)
        #expect(map.slotCount == 2)
        #expect(map.removeExpired(now: 200) == 0)              // the 160 slot comes up and is skipped
        #expect(map.value("ann", now: 200) == 150)
        #expect(map.slotCount == 1)
        map.set("ann", 151, expiresAt: 210)                    // same expiry: value replaced, no new slot
        #expect(map.slotCount == 1 && map.value("ann", now: 200) == 151)
        map.removeValue(forKey: "ann")
        #expect(map.value("ann", now: 200) == nil && map.count == 0)
        #expect(map.removeExpired(now: 210) == 0 && map.slotCount == 0)
    }

    /// Against a plain dictionary model, with expiries in any order: look-ups agree at every step, and after a sweep
    /// at `now` nothing expired is held and no slot is left for an expiry already reached.
    @Test func agreesWithAPlainModelThroughManyOperations() {
        var map = ExpiringMap<Int, Int>()
        var model: [Int: (value: Int, expiresAt: Int64)] = [:]
        var random = SplitMix64(seed: 7)
        var now: Int64 = 0
        for step in 0..<5_000 {
            let key = Int(random.next() % 50)
            switch random.next() % 4 {
            case 0, 1:
                let expiresAt = now + Int64(random.next() % 100)
                map.set(key, step, expiresAt: expiresAt)
                model[key] = (step, expiresAt)
            case 2:
                map.removeValue(forKey: key)
                model[key] = nil
            default:
                now += Int64(random.next() % 20)
                map.removeExpired(now: now)
                model = model.filter { $0.value.expiresAt > now }
                #expect(map.count == model.count)
                #expect((map.nextExpiry ?? .max) > now)
            }
            for probe in 0..<50 {
                let expected = model[probe].flatMap { $0.expiresAt > now ? $0.value : nil }
                #expect(map.value(probe, now: now) == expected)
            }
        }
    }

    @Test func remoteCountsSumPerUserAndAZeroRemovesTheNodes() {
        var remote = RemotePresence()
        remote.update(userId: "ann", node: "b", connected: 2, away: 1, expiresAt: 100)
        remote.update(userId: "ann", node: "c", connected: 1, away: 0, expiresAt: 100)
        #expect(remote.devices(of: "ann") == (3, 1))
        remote.update(userId: "ann", node: "b", connected: 0, away: 0, expiresAt: 100)
        #expect(remote.devices(of: "ann") == (1, 0))
        remote.update(userId: "ann", node: "c", connected: 0, away: 0, expiresAt: 100)
        #expect(!remote.has("ann") && remote.userCount == 0)
        #expect(remote.devices(of: "ann") == (0, 0))
    }

    @Test func remoteCountsNotRepeatedExpireAndRenewingExtendsThemAll() {
        var remote = RemotePresence()
        remote.update(userId: "ann", node: "b", connected: 1, away: 0, expiresAt: 100)
        remote.update(userId: "ann", node: "c", connected: 1, away: 0, expiresAt: 200)
        remote.update(userId: "ben", node: "b", connected: 1, away: 0, expiresAt: 100)
        #expect(remote.expire(now: 99).isEmpty)
        remote.renew(expiresAt: 150)                            // the bus is back: every count gets a fresh TTL
        #expect(remote.expire(now: 100).isEmpty)
        #expect(Set(remote.expire(now: 150)) == ["ann", "ben"])
        #expect(remote.userCount == 0)
    }
}
