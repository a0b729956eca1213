/// The push tokens the hub holds, per user and then per device, so push policy finds a user's devices with a token
/// in O(devices of that user): the flat map by device it replaces made every approval event scan all tokens in memory.
/// Reads and writes by `DeviceKey` as that map did. Hub thread only.
struct PushTokenIndex {
    private var byUser: [String: [String: [PushTokenRecord]]] = [:]

    /// A device's tokens; setting nil (or an empty list) forgets the device, and the user once it has none.
    subscript(device: DeviceKey) -> [PushTokenRecord]? {
        get { byUser[device.userId]?[device.deviceId] }
        set {
            if let newValue, !newValue.isEmpty {
                byUser[device.userId, default: [:]][device.deviceId] = newValue
            } else if byUser[device.userId]?.removeValue(forKey: device.deviceId) != nil, byUser[device.userId]?.isEmpty == true {
                byUser[device.userId] = nil
            }
        }
    }

    subscript(device: DeviceKey, default empty: [PushTokenRecord]) -> [PushTokenRecord] {
        get { self[device] ?? empty }
        set { self[device] = newValue }
    }

    /// Every device with tokens.
    var keys: [DeviceKey] {
        byUser.flatMap { user, devices in devices.keys.map { DeviceKey(userId: user, deviceId: $0) } }
    }

    /// Forgets every token of `userId`.
    mutating func removeAll(of userId: String) { byUser[userId] = nil }

    /// The user's devices with tokens, in device-id order.
    func devices(of userId: String) -> [(deviceId: String, tokens: [PushTokenRecord])] {
        (byUser[userId] ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
