@testable import Gateway
import Testing

/// `PushTokenIndex`: tokens per user and device, so push policy reads one user's devices without the others'.
@Suite struct PushTokenIndexTests {
    func token(_ user: String, _ device: String, _ kind: String = "apns") -> PushTokenRecord {
        PushTokenRecord(userId: user, deviceId: device, kind: kind, token: "\(user)-\(device)-\(kind)", updatedAt: 1)
    }

    @Test func aUsersDevicesComeInDeviceIdOrderWithoutOtherUsers() {
        var index = PushTokenIndex()
        for (user, device) in [("ann", "tablet"), ("bob", "phone"), ("ann", "phone"), ("ann", "desk")] {
            index[DeviceKey(userId: user, deviceId: device), default: []].append(token(user, device))
        }
        index[DeviceKey(userId: "ann", deviceId: "phone"), default: []].append(token("ann", "phone", "fcm"))
        #expect(index.devices(of: "ann").map(\.deviceId) == ["desk", "phone", "tablet"])
        #expect(index.devices(of: "ann")[1].tokens.map(\.kind) == ["apns", "fcm"])
        #expect(index.devices(of: "bob").map(\.deviceId) == ["phone"])
        #expect(index.devices(of: "cid").isEmpty)
        #expect(Set(index.keys) == [DeviceKey(userId: "ann", deviceId: "tablet"), DeviceKey(userId: "ann", deviceId: "phone"),
                                    DeviceKey(userId: "ann", deviceId: "desk"), DeviceKey(userId: "bob", deviceId: "phone")])
    }

    @Test func aDeviceWithoutTokensAndAUserWithoutDevicesAreForgotten() {
        var index = PushTokenIndex()
        let phone = DeviceKey(userId: "ann", deviceId: "phone")
        index[phone] = [token("ann", "phone")]
        index[phone]?.removeAll { $0.kind == "apns" }
        #expect(index[phone] == nil && index.devices(of: "ann").isEmpty && index.keys.isEmpty)
        index[phone] = [token("ann", "phone")]
        index[phone] = nil
        #expect(index.keys.isEmpty)
    }
}
