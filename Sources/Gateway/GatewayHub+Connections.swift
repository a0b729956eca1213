import GatewayProtocol
import Metrics

/// Devices coming and going, resume, and presence.
extension GatewayHub {
    /// Registers an authenticated device. Creates the user and device records on first sight (identity comes from the
    /// app backend's token), sends `welcome`, then — when `resumeAfter` is given — replays every event after that
    /// offset before live traffic. An offset ahead of the log (the store was restored from an older backup, or the
    /// device's offset belongs to another server) continues from the log's latest offset with `recovered: false`:
    /// waiting for the log to reach the device's offset would withhold every event until then.
    ///
    /// A user not in memory is read first; the device's commands and disconnect wait behind it. When the read fails
    /// the connection is closed with 1013 (try again later).
    public func connect(_ client: GatewayClient, resumeAfter: Int64?) {
        guard cache.ready([client.userId]) else {
            return withUsers(
                [client.userId], failed: { error in client.close(code: 1013, reason: error.code.rawValue) }
            ) { [self] in
                connectLoaded(client, resumeAfter: resumeAfter)
            }
        }
        connectLoaded(client, resumeAfter: resumeAfter)
    }

    private func connectLoaded(_ client: GatewayClient, resumeAfter: Int64?) {
        // A revoked device's token (a deleted user's) is refused before anything is created for it.
        if let revoked = revocation(refusing: client.userId, deviceId: client.deviceId, issuedAt: client.issuedAt) {
            return client.close(code: revoked.closeCode, reason: revoked.closeReason)
        }
        ensureUserAndDevice(userId: client.userId, deviceId: client.deviceId, clientType: client.clientType)
        let state = ClientState(client: client)
        let latest = latestOffsets[client.userId] ?? 0
        state.lastSentOffset = min(resumeAfter ?? latest, latest)
        if clients[client.userId] == nil { metrics.onlineUsers.add(1, ordering: .relaxed) }
        clients[client.userId, default: [:]][ObjectIdentifier(client)] = state
        metrics.connectedDevices.add(1, ordering: .relaxed)
        let welcome = WelcomeData(
            userId: client.userId, deviceId: client.deviceId, clientType: client.clientType,
            latestOffset: latest, serverTime: clock.now())
        client.send(ServerFrames.event(type: "welcome", offset: nil, timestamp: clock.now(), data: encode(welcome)))
        if let resumeAfter { resume(state, after: resumeAfter, latest: latest) }
        deliveryConnected(client)
        updatePresence(of: client.userId)
    }

    /// The device's connection is gone.
    public func disconnect(_ client: GatewayClient) {
        guard cache.ready([client.userId]) else {
            return withUsers([client.userId], failed: { _ in }) { [self] in disconnectLoaded(client) }
        }
        disconnectLoaded(client)
    }

    private func disconnectLoaded(_ client: GatewayClient) {
        let id = ObjectIdentifier(client)
        guard clients[client.userId]?.removeValue(forKey: id) != nil else { return }
        metrics.connectedDevices.subtract(1, ordering: .relaxed)
        if clients[client.userId]?.isEmpty == true {
            clients[client.userId] = nil
            metrics.onlineUsers.subtract(1, ordering: .relaxed)
        }
        deliveryDisconnected(client)
        updatePresence(of: client.userId)
    }

    /// Devices currently connected for a user.
    public func connectedDevices(of userId: String) -> [GatewayClient] {
        clients[userId].map { $0.values.map(\.client) } ?? []
    }

    func state(of client: GatewayClient) -> ClientState? {
        clients[client.userId]?[ObjectIdentifier(client)]
    }

    @discardableResult
    func ensureUserAndDevice(userId: String, deviceId: String, clientType: String) -> [StoreWrite] {
        var writes: [StoreWrite] = []
        if users[userId] == nil { writes.append(.insertUser(createUser(id: userId, displayName: nil))) }
        if devices[DeviceKey(userId: userId, deviceId: deviceId)] == nil {
            let device = DeviceRecord(id: deviceId, userId: userId, clientType: clientType, createdAt: clock.now())
            devices[device.key] = device
            writes.append(.upsertDevice(device))
        }
        if !writes.isEmpty { queueWrite(writes) { _ in } }
        return writes
    }

    /// Takes the stored rows of users this node created (`insertUser`'s receipt): when another node created the same
    /// user first, its hex code is the one kept, here too.
    func adoptStoredUsers(_ stored: [UserRecord]) {
        for user in stored where users[user.id] != nil && users[user.id] != user {
            if let old = users[user.id]?.hexCode, usersByHexCode[old] == user.id { usersByHexCode[old] = nil }
            users[user.id] = user
            usersByHexCode[user.hexCode] = user.id
        }
    }

    /// A new user with a unique 8-hex-character code. Caller persists it with `insertUser` (another node may create
    /// the same user at once: the store keeps the first row, `adoptStoredUsers`).
    func createUser(id: String, displayName: String?) -> UserRecord {
        var generator = SystemRandomNumberGenerator()
        var code: String
        repeat {
            let value = UInt32.random(in: 0...UInt32.max, using: &generator)
            let hex = String(value, radix: 16)
            code = String(repeating: "0", count: 8 - hex.count) + hex
        } while usersByHexCode[code] != nil
        let user = UserRecord(id: id, hexCode: code, displayName: displayName, createdAt: clock.now())
        users[id] = user
        usersByHexCode[code] = id
        cache.touch(id)  // held like a user read from the store, so it can be forgotten when idle
        scheduleEviction()
        return user
    }

    // MARK: Resume

    /// Reads the first part of the missed events (`settings.replayChunkEvents`) off the hub thread; the rest follows
    /// part by part (`continueReplay`), so a long log is never held whole for one device.
    private func resume(_ state: ClientState, after: Int64, latest: Int64) {
        state.resuming = true
        let userId = state.client.userId
        let limit = settings.replayChunkEvents
        let store = self.store
        let from = min(after, latest)  // ahead of the log: what is committed meanwhile comes from `latest` on
        scheduler.runBlocking { [self] in
            let read = Result {
                (try store.events(userId: userId, after: from, limit: limit), try store.oldestOffset(userId: userId))
            }
            scheduler.execute { [self] in
                finishResume(state, after: after, latest: latest, limit: limit, read: read)
            }
        }
    }

    private func finishResume(
        _ state: ClientState, after: Int64, latest: Int64, limit: Int,
        read: Result<([StoredEvent], Int64?), Error>
    ) {
        guard self.state(of: state.client) === state else { return }  // disconnected meanwhile
        var events: [StoredEvent] = []
        var recovered: Bool
        var end = latest
        switch read {
        case .failure:
            // The store is unreachable (a database restart): the log is not gone, so `recovered: false` would be a lie
            // that makes the device skip what it missed. It reconnects (1011: with backoff) and resumes again.
            return closeUnreadable(state)
        case .success(let (found, oldest)):
            // This node's memory of the log's end can lag the store: in a cluster, events another node committed and
            // had not announced yet (e.g. just before it was killed). The read began at that end, so what it found is
            // the real one: a device whose offset lies within it is not ahead of the log (answering `recovered: false`
            // would make it move back and take those events again) and gets only what follows its offset.
            end = max(latest, found.last?.offset ?? latest)
            if end > latestOffsets[state.client.userId] ?? 0 { latestOffsets[state.client.userId] = end }
            events = found.filter { $0.offset > after }
            if after > end {
                recovered = false  // the client is ahead of this log (a reset store)
            } else if after == end {
                recovered = true
            } else if let oldest, oldest <= after + 1 {
                recovered = true  // everything up to `end` follows, part by part
            } else {
                recovered = false  // pruned past the client's offset
            }
        }
        // A full part that stops short of the end: the rest is read in further parts.
        let more = stopsShort(events, limit: limit, end: end)
        metrics.resumes.increment()
        if !recovered { metrics.resumesUnrecovered.increment() }
        let summary = ResumeData(
            recovered: recovered, requestedOffset: after, firstReplayed: events.first?.offset,
            lastReplayed: more ? end : events.last?.offset)
        state.client.send(
            ServerFrames.event(type: "resume", offset: nil, timestamp: clock.now(), data: encode(summary)))
        if let lastRead = events.last?.offset, more {
            return startReplayInParts(state, first: events, after: lastRead, end: end)
        }
        // The replay and the live events buffered meanwhile leave as one batch, so the socket can pace it. A device
        // ahead of the log continues from its end (what its welcome said, or later), so the next event reaches it.
        // With a cluster bus, live events buffered meanwhile may follow another node's event the read did not see: they
        // wait for one more read (GatewayHub+Cluster).
        state.lastSentOffset = min(after, end)
        state.resuming = false
        let complete = cluster.bus == nil ? Int64.max : max(events.last?.offset ?? 0, min(after, end))
        if !state.sendInOrder(events.map(\.frame), complete: complete) { catchUp(state.client.userId) }
    }

    /// Whether a read of `limit` events (those kept in `events`) stopped before `end`: more of the replay remains.
    private func stopsShort(_ events: [StoredEvent], limit: Int, end: Int64) -> Bool {
        events.count >= limit && (events.last?.offset ?? end) < end
    }

    /// Sends the first part of a replay that continues up to `end`. A socket keeps live frames behind the whole replay
    /// itself, so for it every event up to `end` counts as sent now and live events go out as usual (bounded there by
    /// the slow-consumer limit, not held here); for a client without that queue they wait here until the last part.
    private func startReplayInParts(_ state: ClientState, first: [StoredEvent], after: Int64, end: Int64) {
        state.replay = ReplayCursor(after: after, end: end)
        state.client.sendReplayPart(first.map(\.frame.frame), last: false)
        guard state.client.pacesReplay else {
            state.lastSentOffset = after
            return continueReplay(state.client)
        }
        state.lastSentOffset = end
        state.resuming = false
        // Live events that waited for the first read: those after `end` follow the replay; earlier ones are in it.
        if !state.sendInOrder([], complete: cluster.bus == nil ? .max : end) { catchUp(state.client.userId) }
    }

    /// Reads and sends the next part of `client`'s replay (a socket asks once it has sent the previous part and its
    /// outbound queue has drained). Nothing happens when no replay is in parts or a part is being read.
    public func continueReplay(_ client: GatewayClient) {
        guard let state = state(of: client), let cursor = state.replay, !cursor.reading else { return }
        state.replay?.reading = true
        let userId = client.userId
        let limit = settings.replayChunkEvents
        let store = self.store
        scheduler.runBlocking { [self] in
            let read = Result { try store.events(userId: userId, after: cursor.after, limit: limit) }
            scheduler.execute { [self] in finishReplayPart(state, cursor: cursor, limit: limit, read: read) }
        }
    }

    private func finishReplayPart(
        _ state: ClientState, cursor: ReplayCursor, limit: Int, read: Result<[StoredEvent], Error>
    ) {
        guard self.state(of: state.client) === state else { return }  // disconnected meanwhile
        guard case .success(let found) = read else { return closeUnreadable(state) }
        let events = found.filter { $0.offset <= cursor.end }
        let more = events.count == found.count && stopsShort(events, limit: limit, end: cursor.end)
        state.replay = more ? ReplayCursor(after: events.last?.offset ?? cursor.end, end: cursor.end) : nil
        if state.client.pacesReplay {
            return state.client.sendReplayPart(events.map(\.frame.frame), last: !more)
        }
        guard !more else {
            state.client.sendReplayPart(events.map(\.frame.frame), last: false)
            state.lastSentOffset = events.last?.offset ?? state.lastSentOffset
            return continueReplay(state.client)
        }
        state.resuming = false
        if !state.sendInOrder(events.map(\.frame), complete: cluster.bus == nil ? .max : cursor.end) {
            catchUp(state.client.userId)
        }
    }

    private func closeUnreadable(_ state: ClientState) {
        state.client.close(code: 1011, reason: "the event log could not be read; reconnect and resume")
    }

    // MARK: Presence

    /// This node's devices of the user changed: tells the other nodes (with a cluster bus) and feeds the user's
    /// devices on every node to its `PresenceMachine`; changes go to its contacts connected here. Going offline waits
    /// out the grace period so a quick reconnect does not flicker.
    func updatePresence(of userId: String) {
        if let bus = cluster.bus {
            let local = localDevices(of: userId)
            bus.announcePresence(userId: userId, connected: local.connected, away: local.away)
        }
        stepAggregatePresence(of: userId)
    }

    /// Feeds the user's devices on every node (GatewayHub+ClusterPresence) to its `PresenceMachine`.
    func stepAggregatePresence(of userId: String) {
        let devices = clusterDevices(of: userId)
        stepPresence(of: userId, .devices(connected: devices.connected, away: devices.away))
    }

    private func stepPresence(of userId: String, _ input: PresenceMachine.Input) {
        var current = presence[userId] ?? PresenceState()
        let (next, actions) = PresenceMachine(graceMs: settings.presenceGraceMs).transition(
            current.machine, input, now: clock.now())
        if settings.backendWebhooks.presence {
            let (event, announced) = PresenceWebhookEvent.decide(
                from: current.machine.status, to: next.status,
                localDevices: localDevices(of: userId).connected,
                announced: current.announcedOnline)
            current.announcedOnline = announced
            if let event { presenceWebhook(event, userId: userId) }
        }
        current.machine = next
        presence[userId] = current
        for action in actions {
            switch action {
            case .armGrace(let deadline):
                presence[userId]?.graceTimer = scheduler.schedule(at: deadline) { [self] in
                    presence[userId]?.graceTimer = nil
                    stepPresence(of: userId, .graceOver(connected: clusterDevices(of: userId).connected))
                }
            case .cancelGrace:
                presence[userId]?.graceTimer?.cancel()
                presence[userId]?.graceTimer = nil
            case .broadcast:
                broadcastPresence(of: userId)
            }
        }
        // Another node's count can step a user this node read as absent: its presence goes once it is idle.
        if !cache.isLoaded(userId) { forgetIfUnloadedAndIdle(userId) }
    }

    /// Commits a `user_online` / `user_offline` backend webhook job (presence itself is not stored: the job is the
    /// only write) and wakes the sender.
    private func presenceWebhook(_ event: PresenceWebhookEvent, userId: String) {
        let devices = event == .online ? clusterDevices(of: userId).connected : 0
        commit([.enqueuePush(BackendWebhook.presence(event, userId: userId, devices: devices, now: clock.now()))]) {
            _ in
        }
    }

    func presenceData(of userId: String) -> PresenceData {
        let p = presence[userId]?.machine ?? PresenceMachine.State()
        return PresenceData(userId: userId, status: p.status.rawValue, lastSeenAt: p.lastSeenAt)
    }

    private func broadcastPresence(of userId: String) {
        let frame = ServerFrames.event(
            type: "presence", offset: nil, timestamp: clock.now(), data: encode(presenceData(of: userId)))
        let watchers = activeContacts(of: userId)
        for contactId in watchers { deliverEphemeral(to: contactId, frame: frame) }
        // Whether to push needs each watcher's settings, devices and tokens: watchers not in memory are read first.
        withUsers(watchers, failed: { _ in }) { [self] in presencePush(changed: userId, watchers: watchers) }
    }

    /// Users who may see `userId` (active contacts that neither side has paused).
    func activeContacts(of userId: String) -> [String] {
        (contacts[userId] ?? [:]).values.filter { $0.active && !relations.isPaused(userId, $0.contactId) }.map(
            \.contactId)
    }

    func areContacts(_ a: String, _ b: String) -> Bool {
        contacts[a]?[b]?.active == true && contacts[b]?[a]?.active == true
    }
}
