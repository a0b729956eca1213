/// The devices the hub holds, keyed by (user, device), with an index from a device id to the users having a device
/// with that id (device ids are the client's choice, unique only per user). Every insert and removal goes through
/// here, so the index follows the cache as users are read, re-read and forgotten; looking up a device id's owners
/// costs O(owners), not a scan of every device held, and a user's devices O(devices of that user).
struct DeviceMap {
    private var records: [DeviceKey: DeviceRecord] = [:]
    private var owners: [String: OneOrMoreSet<String>] = [:]
    /// The device ids of each user held.
    private var byUser: [String: OneOrMoreSet<String>] = [:]

    subscript(key: DeviceKey) -> DeviceRecord? {
        get { records[key] }
        set {
            guard let newValue else { removeValue(forKey: key); return }
            records[key] = newValue
            owners.insert(key.userId, at: key.deviceId)
            byUser.insert(key.deviceId, at: key.userId)
        }
    }

    @discardableResult
    mutating func removeValue(forKey key: DeviceKey) -> DeviceRecord? {
        guard let removed = records.removeValue(forKey: key) else { return nil }
        owners.remove(key.userId, at: key.deviceId)
        byUser.remove(key.deviceId, at: key.userId)
        return removed
    }

    var keys: Dictionary<DeviceKey, DeviceRecord>.Keys { records.keys }
    var count: Int { records.count }

    /// The keys of `userId`'s devices held.
    func keys(of userId: String) -> [DeviceKey] {
        (byUser[userId]?.map { DeviceKey(userId: userId, deviceId: $0) }) ?? []
    }

    /// The users holding a device with this id, sorted.
    func owners(ofDevice deviceId: String) -> [String] { owners[deviceId]?.sorted() ?? [] }
}
