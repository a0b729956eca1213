import GatewayProtocol

/// Users loaded on demand (docs/ARCHITECTURE.md, "Memory and load on demand"): the hub holds the records of the users
/// in use — a device connected here, a command or API call naming them, an event for them — not of every user. Each
/// entry point first makes sure the users it touches are loaded (`withUsers`: one store read per hub round for every
/// user missing, off the hub thread; the caller's work waits, in arrival order per user), then runs as before.
///
/// Several nodes: a node that commits a change to a user's records announces it on the cluster bus; the others
/// re-read that user if they hold it (`userChanged`). Idle users are forgotten beyond
/// `settings.userCacheCapacity`, least recently used first.
extension GatewayHub {
    /// Runs `body` on the hub thread once every user in `userIds` is loaded (at once when they are and no earlier
    /// work naming them waits). A user with no record is "loaded" as absent for the work waiting on it, then
    /// forgotten, so a user another node creates later is found. `failed` gets `storage_failed` when the read fails.
    public func withUsers(_ userIds: [String], failed: @escaping (GatewayError) -> Void, _ body: @escaping () -> Void) {
        var ids: [String] = []
        for id in userIds where !id.isEmpty && !ids.contains(id) { ids.append(id) }
        if cache.ready(ids) {
            for id in ids { cache.touch(id) }
            return body()
        }
        cache.enqueue(UserCache.Waiting(users: ids, run: body, failed: failed))
        for id in ids where !cache.isLoaded(id) { readUser(id) }
    }

    /// Runs `body` on the hub thread once no user read is queued or running and no work waits for one (at once when
    /// none does), so work that was waiting has run and queued its writes. Used when the node stops: those writes
    /// are then committed and announced before the bus stops. Called back by the last read's completion (reads and
    /// waiting work end only there), not polled; the caller bounds the wait.
    public func whenUserReadsSettled(_ body: @escaping () -> Void) {
        guard cache.isSettled && idsSettled else { return cache.whenSettled(body) }
        body()
    }

    /// No id reservation is asked for or running (`IdDesk`): work waiting for an id is work in flight too.
    var idsSettled: Bool { ids.isSettled }

    /// Runs the bodies kept by `whenUserReadsSettled` once no read and no id reservation is left.
    func runSettledIfDone() {
        guard idsSettled else { return }
        for body in cache.takeSettled() { body() }
    }

    /// Queues a read of `userId` for the end of this round. `changed`: another node changed its records, so a read
    /// already running may have missed that and is followed by another.
    func readUser(_ userId: String, changed: Bool = false) {
        if let again = cache.reading[userId] {
            if changed && !again { cache.reading[userId] = true }
            return
        }
        cache.reading[userId] = false
        cache.toRead.add(userId, on: scheduler) { [self] in flushUserReads() }
    }

    private func flushUserReads() {
        let ids = cache.toRead.take()
        guard !ids.isEmpty else { return }
        let writeCounts = ids.map { cache.writeCount[$0] ?? 0 }
        // A write in flight when the read starts may commit after the read's snapshot: its result cannot replace
        // memory (it would drop that write's rows), only be merged under it or read again.
        let busy = ids.map { cache.writesInFlight[$0] != nil }
        let store = self.store
        metrics.userReads.add(ids.count, ordering: .relaxed)
        load(read: { try store.userEntries(ids: ids) }) { [self] result in
            finishUserReads(ids, writeCounts: writeCounts, busy: busy, result)
        }
    }

    private func finishUserReads(
        _ ids: [String], writeCounts: [Int], busy: [Bool], _ result: Result<[UserEntry], GatewayError>
    ) {
        var failed: Set<String> = []
        switch result {
        case .success(let entries):
            for ((entry, writeCount), busyAtStart) in zip(zip(entries, writeCounts), busy) {
                let again = cache.reading.removeValue(forKey: entry.id) ?? false
                if cache.stale.contains(entry.id) {
                    // Another node changed the user: replaced, unless this node's own writes to it are on their way.
                    if cache.writesInFlight[entry.id] != nil {
                        cache.rereadWhenIdle.insert(entry.id)
                    } else if busyAtStart || (cache.writeCount[entry.id] ?? 0) != writeCount {
                        readUser(entry.id)
                    } else {
                        cache.stale.remove(entry.id)
                        replace(entry)
                        cache.touch(entry.id)
                    }
                } else if !cache.isLoaded(entry.id) {
                    merge(entry)
                    cache.touch(entry.id)
                } else if cache.writesInFlight[entry.id] != nil {
                    cache.rereadWhenIdle.insert(entry.id)  // this node's own change is on its way: read after it
                } else if busyAtStart || (cache.writeCount[entry.id] ?? 0) != writeCount {
                    readUser(entry.id)  // this node changed the user during the read
                } else {
                    replace(entry)
                }
                if again { readUser(entry.id) }
                // Another node revoked a device (or deleted the user) connected here: it closes here too, and a
                // deleted user's pending approvals (held on every node) stop here as well.
                closeRevokedClients(of: entry.id)
                if entry.user == nil, entry.revocations.contains(where: { $0.deviceId == nil }) {
                    approvals.forgetAll(of: entry.id)
                }
            }
        case .failure(let error):
            for id in ids {
                cache.reading[id] = nil
                if !cache.isLoaded(id) { failed.insert(id) }
            }
            runWaiting(failed: failed, error: error)
            runSettledIfDone()
            return
        }
        runWaiting(failed: [], error: nil)
        // Absent users are not remembered as absent: another node may be creating them, and a create-if-missing
        // here (a device connecting, a session for a new user) must read again rather than trust an old miss.
        unloadAbsent(ids)
        scheduleEviction()
        runSettledIfDone()
    }

    /// Runs every waiting action whose users are all loaded, in order (an action waits while an earlier one naming
    /// one of its users does); answers those naming a user whose read failed.
    private func runWaiting(failed: Set<String>, error: GatewayError?) {
        var progress = true
        while progress {
            progress = false
            let queue = cache.waiting
            cache.waiting = []
            var blocked: Set<String> = []
            var kept: [UserCache.Waiting] = []
            for action in queue {
                if let error, action.users.contains(where: failed.contains) {
                    cache.dequeued(action)
                    action.failed(error)
                    progress = true
                } else if action.users.allSatisfy({ cache.isLoaded($0) && !blocked.contains($0) }) {
                    cache.dequeued(action)
                    for id in action.users { cache.touch(id) }
                    action.run()
                    progress = true
                } else {
                    blocked.formUnion(action.users)
                    kept.append(action)
                }
            }
            cache.waiting = kept + cache.waiting  // what ran may have queued more, after these
        }
    }

    /// A first read: the store's records, except where memory already holds a record of the user (a change made
    /// here before the read finished, whose write may still be on its way: memory is newer).
    private func merge(_ entry: UserEntry, replace: Bool = false) {
        let id = entry.id
        if users[id] == nil, let user = entry.user {
            users[id] = user
            usersByHexCode[user.hexCode] = id
        }
        for device in entry.devices where devices[device.key] == nil {
            devices[device.key] = device
            if let token = device.deviceToken { devicesByToken[token] = device.key }
        }
        for contact in entry.contacts where contacts[id]?[contact.contactId] == nil {
            contacts[id, default: [:]][contact.contactId] = contact
        }
        for token in entry.pushTokens
        where !(pushTokens[token.deviceKey] ?? []).contains(where: { $0.sameSlot(as: token) }) {
            pushTokens[token.deviceKey, default: []].append(token)
        }
        if notificationSettings[id] == nil, let settings = entry.notificationSettings {
            notificationSettings[id] = settings
        }
        latestOffsets[id] = max(latestOffsets[id] ?? 0, entry.latestOffset)
        for session in entry.openSessions where sessions[session.id] == nil { sessions[session.id] = session }
        if revocations[id] == nil, !entry.revocations.isEmpty { revocations[id] = entry.revocations }
        relations.add(entry.relationships, of: id, replace: replace) { [cache] in cache.isLoaded($0) }
    }

    /// A re-read after another node's change: the store's records replace memory's (no write of this node's is in
    /// flight for the user, so the store has everything memory has).
    private func replace(_ entry: UserEntry) {
        dropRecords(of: [entry.id], shared: true)
        merge(entry, replace: true)
    }

    // MARK: Writes and other nodes' changes

    /// Called for every batch queued to the store: the users whose records it changes (announced to other nodes
    /// once stored) and the users it touches at all (not forgotten and not re-read over until it is stored).
    func noteWrites(_ writes: [StoreWrite]) -> (touched: [String], changed: [String]) {
        var touched: [String] = []
        var changed: [String] = []
        for write in writes {
            let (user, isChange) = write.userTouched
            if let user {
                if !touched.contains(user) { touched.append(user) }
                if isChange && !changed.contains(user) { changed.append(user) }
            }
            // A session's user is not announced (other nodes' copies are corrected by the store's decisions), but is
            // kept loaded until the write is stored, so a re-read cannot bring back the session as it was.
            if let owner = sessionOwner(of: write), !touched.contains(owner) { touched.append(owner) }
            if case .upsertContact(let contact) = write, !changed.contains(contact.contactId) {
                changed.append(contact.contactId)
                if !touched.contains(contact.contactId) { touched.append(contact.contactId) }
            }
            for holder in relations.usersHolding(write) {
                if !touched.contains(holder) { touched.append(holder) }
                if !changed.contains(holder) { changed.append(holder) }
            }
        }
        for user in touched {
            cache.writesInFlight[user, default: 0] += 1
            cache.writeCount[user, default: 0] += 1
        }
        return (touched, changed)
    }

    /// The user whose session `write` changes, nil for other writes.
    private func sessionOwner(of write: StoreWrite) -> String? {
        switch write {
        case .upsertSession(let session): return session.userId
        case .setSessionActiveClient(let id, _, _), .endSession(let id, _): return sessions[id]?.userId
        default: return nil
        }
    }

    /// A batch noted by `noteWrites` was stored (`stored`) or failed.
    func writesDone(touched: [String], changed: [String], stored: Bool) {
        for user in touched {
            let left = (cache.writesInFlight[user] ?? 1) - 1
            cache.writesInFlight[user] = left > 0 ? left : nil
            if left <= 0, cache.rereadWhenIdle.remove(user) != nil { readUser(user) }
            if left <= 0 { forgetIfUnloadedAndIdle(user) }
        }
        if stored, let bus = cluster.bus { for user in changed { bus.announceChange(userId: user) } }
    }

    /// Another node changed `userId`'s records: re-read them if this node holds them (an idle user is simply
    /// forgotten: read again when next needed).
    func userChanged(_ userId: String) {
        guard cache.isLoaded(userId) || cache.reading[userId] != nil else {
            if users[userId] == nil && isIdle(userId) { forgetUsers([userId]) }  // partial records of a user not loaded
            return
        }
        if cache.isLoaded(userId) && clients[userId] == nil && isIdle(userId) { return forgetUsers([userId]) }
        // In use: work naming the user waits (it is not loaded any more) until the re-read replaces its records.
        if cache.isLoaded(userId) {
            cache.forget(userId)
            cache.stale.insert(userId)
        }
        if cache.writesInFlight[userId] != nil {
            cache.rereadWhenIdle.insert(userId)
        } else {
            readUser(userId, changed: true)
        }
    }

    /// Notices may have been missed (the bus was down): every loaded user is forgotten if idle, re-read otherwise.
    func reloadAllUsers() {
        let loaded = Array(cache.lastUse.keys)
        forgetUsers(loaded.filter { clients[$0] == nil && isIdle($0) })
        for id in loaded where cache.isLoaded(id) { userChanged(id) }
    }

    // MARK: Eviction

    /// Nothing refers to the user's records now: no device connected here, no write, read or waiting work naming it,
    /// no timer of its own, and no presence to keep (it is offline everywhere this node knows of).
    func isIdle(_ userId: String) -> Bool {
        clients[userId] == nil && cache.writesInFlight[userId] == nil && cache.waitingCount[userId] == nil
            && cache.reading[userId] == nil && !cluster.isCatchingUp(userId) && !presencePushes.holds(userId)
            && !deadlines.holds(userId)
            && !cluster.hasRemotePresence(userId)
            && (presence[userId].map { $0.graceTimer == nil && $0.machine.status == .offline } ?? true)
    }

    /// Over capacity: forgets idle users on a timer due at once, i.e. after the work running now (which may be using
    /// users it has not written yet) has finished.
    func scheduleEviction() {
        guard cache.count > max(1, settings.userCacheCapacity), !cache.evictionScheduled else { return }
        cache.evictionScheduled = true
        _ = scheduler.schedule(at: clock.now()) { [self] in
            cache.evictionScheduled = false
            evictIdleUsers()
        }
    }

    /// Forgets idle users beyond `settings.userCacheCapacity`, least recently used first, down to 90 % of it (so a
    /// full cache is swept once per tenth of its size, not on every read).
    func evictIdleUsers() {
        let capacity = max(1, settings.userCacheCapacity)
        guard cache.count > capacity else { return }
        let victims = cache.victims(keep: capacity - capacity / 10) { [self] in isIdle($0) }
        metrics.usersEvicted.add(victims.count, ordering: .relaxed)
        forgetUsers(victims)
    }

    /// Of `ids`, those still without a user record stop counting as loaded (their presence stays; nothing else of
    /// theirs is in memory unless work in flight made it, which is then kept).
    func unloadAbsent(_ ids: [String]) {
        for id in ids where users[id] == nil && cache.isLoaded(id) && cache.waitingCount[id] == nil {
            cache.forget(id)
            if isIdle(id) { forgetUsers([id]) }
        }
    }

    /// A user not loaded (read as absent, or written to without being held: a group's other members, say) may keep
    /// what work in flight made for it (its presence, an offset, a write count); once nothing refers to it, that goes
    /// too, so such leftovers are bounded by the work in flight rather than kept for good.
    func forgetIfUnloadedAndIdle(_ userId: String) {
        guard !cache.isLoaded(userId), !cache.stale.contains(userId), isIdle(userId) else { return }
        forgetUsers([userId])
    }

    func forgetUsers(_ ids: [String]) {
        guard !ids.isEmpty else { return }
        for id in ids {
            cache.forget(id)
            cache.stale.remove(id)
            cache.writeCount[id] = nil
            presence[id] = nil
        }
        dropRecords(of: Set(ids))
    }

    /// Removes the users' records from memory: O(records of those users), through the per-user indexes.
    /// `shared`: the relationship rows the users share with other loaded users go too (a re-read replaces them).
    /// Pending approvals stay: they are held for every user, with their deadlines.
    private func dropRecords(of ids: Set<String>, shared: Bool = false) {
        relations.drop(ids, shared: shared) { [cache] in cache.isLoaded($0) }
        for id in ids {
            if let user = users.removeValue(forKey: id), usersByHexCode[user.hexCode] == id {
                usersByHexCode[user.hexCode] = nil
            }
            contacts[id] = nil
            notificationSettings[id] = nil
            latestOffsets[id] = nil
            revocations[id] = nil
        }
        for id in ids {
            for key in devices.keys(of: id) {
                if let token = devices.removeValue(forKey: key)?.deviceToken, devicesByToken[token] == key {
                    devicesByToken[token] = nil
                }
            }
            pushTokens.removeAll(of: id)
            sessions.removeAll(of: id)
            approvals.forgetDecided(of: id)
        }
    }

    /// Users loaded in memory now (for tests and `/metrics`).
    public var loadedUserCount: Int { cache.count }

    /// Whether `userId`'s records are in memory (for tests).
    public func isLoaded(_ userId: String) -> Bool { cache.isLoaded(userId) }

    /// Relationship rows in memory now (for tests): friend requests, pauses, connect codes, groups, memberships,
    /// phones and invites being written.
    public var relationshipRowCount: Int {
        relations.friendRequests.count + relations.pauses.count + relations.connectCodes.count
            + relations.groups.count + relations.members.count + relations.phoneByUser.count
            + relations.invites.count
    }
}

extension PushTokenRecord {
    /// Same device, kind and session: one token per slot.
    func sameSlot(as other: PushTokenRecord) -> Bool {
        deviceKey == other.deviceKey && kind == other.kind && sessionId == other.sessionId
    }
}

extension StoreWrite {
    /// The user whose in-memory records this write concerns, and whether it changes records other nodes hold
    /// (user, devices, contacts, push tokens, notification settings) rather than only the user's log or acks.
    /// Relationship rows are `RelationshipState.usersHolding`.
    var userTouched: (String?, Bool) {
        switch self {
        case .appendEvent(let event): return (event.userId, false)
        case .upsertUser(let user), .insertUser(let user): return (user.id, true)
        case .upsertDevice(let device): return (device.userId, true)
        case .upsertContact(let contact): return (contact.userId, true)
        case .upsertPushToken(let token): return (token.userId, true)
        case .deletePushToken(let userId, _, _, _): return (userId, true)
        case .setNotificationSettings(let userId, _): return (userId, true)
        case .deleteUser(let userId, _), .revokeDevice(let userId, _, _): return (userId, true)
        default: return (nil, false)
        }
    }
}

extension GatewayHub {
    /// The command's sender and the other users it names (`to`, `with`, `userId`), to be loaded before it runs.
    /// Users a command reaches otherwise (a friend request's other side, group members) are loaded by `commit`.
    /// Users the command shows by name are added (`usersShown`).
    func namedUsers(in data: JSONValue, type: String, by sender: String) -> [String] {
        guard case .object(let fields) = data else { return [sender] }
        var ids = [sender]
        for name in ["to", "with", "userId"] {
            if case .string(let id)? = fields[name], !id.isEmpty, !ids.contains(id) { ids.append(id) }
        }
        return ids + usersShown(by: type, data: data, sender: sender)
    }
}

// MARK: Users shown by name

/// Payloads name other users by `UserRef` (hex code and display name), so the users a reply or event shows are loaded
/// before it is built.
extension GatewayHub {
    /// Whether `ids` are all loaded; when not, `retry` runs once they are (or `failed`), and the caller returns.
    func loaded(_ ids: [String], failed: @escaping (GatewayError) -> Void, retry: @escaping () -> Void) -> Bool {
        if ids.allSatisfy({ cache.isLoaded($0) }) {
            for id in ids { cache.touch(id) }
            return true
        }
        withUsers(ids, failed: failed, retry)
        return false
    }

    /// `userId`'s contacts (active or not), as its contact list shows them.
    public func contactIds(of userId: String) -> [String] { Array((contacts[userId] ?? [:]).keys) }

    /// The other side of each of `userId`'s pending friend requests.
    public func friendRequestUsers(of userId: String) -> [String] {
        relations.friendRequests(of: userId).compactMap { r in
            guard r.state == .pending else { return nil }
            return r.toUserId == userId ? r.fromUserId : r.fromUserId == userId ? r.toUserId : nil
        }
    }

    /// The users `userId` blocked.
    public func blockedUsers(of userId: String) -> [String] { Array((relations.blocks[userId] ?? [:]).keys) }

    /// The owner and active members of `groupId`.
    public func groupUsers(_ groupId: String) -> [String] {
        (relations.groups[groupId].map { [$0.ownerId] } ?? []) + relations.activeMembers(of: groupId).map(\.userId)
    }

    /// Everyone `groups(of: userId)` shows.
    public func groupUsers(of userId: String) -> [String] {
        relations.activeGroups(of: userId).flatMap { groupUsers($0.id) }
    }

    /// Users a client command shows by name beyond those its fields name (`namedUsers`).
    func usersShown(by type: String, data: JSONValue, sender: String) -> [String] {
        switch type {
        case "contacts": return contactIds(of: sender)
        case "friend_requests": return friendRequestUsers(of: sender)
        case "blocks": return blockedUsers(of: sender)
        case "group_list": return groupUsers(of: sender)
        case "group_get", "group_leave", "group_remove_member", "invite_create":
            guard case .object(let fields) = data, case .string(let groupId)? = fields["groupId"] else { return [] }
            return groupUsers(groupId)
        default: return []
        }
    }

    /// The users having a device with this id, read from the store (device ids are unique only per user).
    /// Devices this node registered whose write is not committed yet are not in the store's answer, so the ones in
    /// memory are added (a backend may name a device right after its first connect).
    public func deviceOwners(_ deviceId: String, completion: @escaping (Result<[String], GatewayError>) -> Void) {
        let store = self.store
        load(read: { try store.deviceOwners(deviceId: deviceId) }) { [self] result in
            completion(result.map { Array(Set($0).union(users(withDevice: deviceId))).sorted() })
        }
    }
}
