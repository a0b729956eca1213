/// The devices the hub holds, keyed by (user, device), with an index from a device id to the users having a device
/// with that id (device ids are the client's choice, unique only per user). Every insert and removal goes through
/// here, so the index follows the cache as users are read, re-read and forgotten; looking up a device id's owners
/// costs O(owners), not a scan of every device held, and a user's devices O(devices of that user).
///
/// Stored per user, with a user's only device inline (`UserDevices.one`): most users hold one, and a table keyed by
/// (user, device) beside a per-user index of device ids held both ids twice and a `Set` per user — ≈ 90 bytes more per
/// connected device.
struct DeviceMap {
    /// A user's devices held; never empty (a user without devices has no entry).
    private enum UserDevices {
        case one(DeviceRecord)
        case more([String: DeviceRecord])

        subscript(deviceId: String) -> DeviceRecord? {
            switch self {
            case .one(let record): return record.id == deviceId ? record : nil
            case .more(let records): return records[deviceId]
            }
        }

        var ids: [String] {
            switch self {
            case .one(let record): return [record.id]
            case .more(let records): return Array(records.keys)
            }
        }
    }

    private var byUser: [String: UserDevices] = [:]
    private var owners: [String: OneOrMoreSet<String>] = [:]
    /// Devices held.
    private(set) var count = 0

    subscript(key: DeviceKey) -> DeviceRecord? {
        get { byUser[key.userId]?[key.deviceId] }
        set {
            guard var newValue else { removeValue(forKey: key); return }
            // The key names the record: a record stored under another key must not make the two disagree.
            newValue.userId = key.userId
            newValue.id = key.deviceId
            switch byUser[key.userId] {
            case nil:
                byUser[key.userId] = .one(newValue)
                count += 1
            case .one(let only) where only.id == key.deviceId:
                byUser[key.userId] = .one(newValue)
            case .one(let only):
                byUser[key.userId] = .more([only.id: only, key.deviceId: newValue])
                count += 1
            case .more(var records):
                byUser[key.userId] = nil  // so `records` is the only reference and grows in place
                if records.updateValue(newValue, forKey: key.deviceId) == nil { count += 1 }
                byUser[key.userId] = .more(records)
            }
            owners.insert(key.userId, at: key.deviceId)
        }
    }

    @discardableResult
    mutating func removeValue(forKey key: DeviceKey) -> DeviceRecord? {
        let removed: DeviceRecord
        switch byUser[key.userId] {
        case nil:
            return nil
        case .one(let only):
            guard only.id == key.deviceId else { return nil }
            removed = only
            byUser[key.userId] = nil
        case .more(var records):
            byUser[key.userId] = nil
            guard let record = records.removeValue(forKey: key.deviceId) else {
                byUser[key.userId] = .more(records)
                return nil
            }
            removed = record
            if records.count == 1, let last = records.values.first {
                byUser[key.userId] = .one(last)
            } else if !records.isEmpty {
                byUser[key.userId] = .more(records)
            }
        }
        count -= 1
        owners.remove(key.userId, at: key.deviceId)
        return removed
    }

    /// Every key held (O(devices): for tests and diagnostics).
    var keys: [DeviceKey] {
        byUser.flatMap { user, devices in devices.ids.map { DeviceKey(userId: user, deviceId: $0) } }
    }

    /// The keys of `userId`'s devices held.
    func keys(of userId: String) -> [DeviceKey] {
        (byUser[userId]?.ids.map { DeviceKey(userId: userId, deviceId: $0) }) ?? []
    }

    /// The users holding a device with this id, sorted.
    func owners(ofDevice deviceId: String) -> [String] { owners[deviceId]?.sorted() ?? [] }
}
