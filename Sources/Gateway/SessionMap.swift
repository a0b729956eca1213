/// The sessions the hub holds, by id, with each user's session ids: forgetting a user or listing its sessions costs
/// O(its sessions), not a scan of every session held. Every insert and removal goes through here. Hub thread only.
struct SessionMap {
    private var records: [String: SessionRecord] = [:]
    private var byUser: [String: Set<String>] = [:]

    subscript(id: String) -> SessionRecord? {
        get { records[id] }
        set {
            if let old = records[id], old.userId != newValue?.userId { unindex(id, of: old.userId) }
            records[id] = newValue
            if let newValue { byUser[newValue.userId, default: []].insert(id) }
        }
    }

    var count: Int { records.count }

    /// `userId`'s sessions held, in no particular order.
    func of(_ userId: String) -> [SessionRecord] { (byUser[userId] ?? []).compactMap { records[$0] } }

    /// Forgets every session of `userId`.
    mutating func removeAll(of userId: String) {
        for id in byUser.removeValue(forKey: userId) ?? [] { records[id] = nil }
    }

    private mutating func unindex(_ id: String, of userId: String) {
        byUser[userId]?.remove(id)
        if byUser[userId]?.isEmpty == true { byUser[userId] = nil }
    }
}
