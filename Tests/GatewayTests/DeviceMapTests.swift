@testable import Gateway
import Testing
import TestSupport

/// `DeviceMap` (a user's only device inline, more in a table) against a plain dictionary keyed by (user, device),
/// through random inserts, replacements and removals.
@Suite struct DeviceMapTests {
    @Test func followsAPlainDictionaryThroughRandomChanges() {
        var rng = SplitMix64(seed: 11)
        var map = DeviceMap()
        var model: [DeviceKey: DeviceRecord] = [:]
        for step in 0..<5_000 {
            let key = DeviceKey(userId: "u\(Int.random(in: 0..<6, using: &rng))", deviceId: "d\(Int.random(in: 0..<4, using: &rng))")
            if Int.random(in: 0..<3, using: &rng) > 0 {
                let record = DeviceRecord(id: key.deviceId, userId: key.userId, clientType: "ios", createdAt: Int64(step), ackedOffset: Int64(step))
                map[key] = record
                model[key] = record
            } else {
                #expect(map.removeValue(forKey: key) == model.removeValue(forKey: key))
            }
            #expect(map.count == model.count)
            #expect(Set(map.keys) == Set(model.keys))
            for user in (0..<6).map({ "u\($0)" }) {
                #expect(Set(map.keys(of: user)) == Set(model.keys.filter { $0.userId == user }))
            }
            for device in (0..<4).map({ "d\($0)" }) {
                #expect(map.owners(ofDevice: device) == model.keys.filter { $0.deviceId == device }.map(\.userId).sorted())
            }
            for (key, record) in model { #expect(map[key] == record) }
        }
    }
}
