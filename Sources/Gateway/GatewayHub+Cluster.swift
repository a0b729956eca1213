import GatewayProtocol

/// Cross-node delivery (docs/CLUSTER.md): after a commit the hub announces each user's new latest offset on the
/// cluster bus; on another node's notice it reads the user's missed events from the shared store and delivers them in
/// offset order. Notices carry no events, so a lost one only delays: while the bus is down the connected users' logs
/// are re-read every `settings.clusterRecheckIntervalMs`, and once more when it is back.
extension GatewayHub {
    func startCluster() {
        guard let bus = cluster.bus else { return }
        scheduleClusterRecheck()  // until the bus says it works
        scheduleClusterPresenceRefresh()
        bus.start { [self] signal in scheduler.execute { [self] in clusterSignal(signal) } }
    }

    /// After a commit: one notice per user whose log grew, with its latest offset.
    func announce(_ events: [StoredEvent]) {
        guard let bus = cluster.bus, !events.isEmpty else { return }
        var latest: [String: Int64] = [:]
        for event in events { latest[event.userId] = max(latest[event.userId] ?? 0, event.offset) }
        for (userId, offset) in latest { bus.announce(userId: userId, offset: offset) }
    }

    func clusterSignal(_ signal: ClusterSignal) {
        switch signal {
        case .advanced(let userId, let offset):
            metrics.clusterNotices.increment()
            // Kept for every user this node knows, connected here or not: commits here continue after it (the store
            // would refuse a taken offset anyway: one retry saved), and a device connecting without a resume offset
            // starts from the log's real end rather than from this node's start-up snapshot.
            if users[userId] != nil, offset > latestOffsets[userId] ?? 0 { latestOffsets[userId] = offset }
            guard clients[userId]?.values.contains(where: { $0.lastSentOffset < offset }) == true else { return }
            catchUp(userId)
        case .presence(let userId, let node, let connected, let away):
            // The user's contacts are needed to tell them (GatewayHub+Loading); a user going offline who is not
            // loaded here has nobody here to tell that this node knows of, and is not read for it — unless work for
            // the user waits for its read (an earlier notice's count, say): the 0 then queues behind it, in order,
            // rather than being dropped while that count lands after it and is believed for a TTL.
            guard
                connected > 0 || cache.isLoaded(userId) || cluster.hasRemotePresence(userId)
                    || cache.reading[userId] != nil || cache.waitingCount[userId] != nil
            else { return }
            withUsers([userId], failed: { _ in }) { [self] in
                clusterPresence(userId: userId, node: node, connected: connected, away: away)
            }
        case .changed(let userId):
            metrics.userChangeNotices.increment()
            userChanged(userId)
        case .lost:
            guard cluster.markLost() else { return }
            metrics.clusterBusUp.store(0, ordering: .relaxed)
            scheduleClusterRecheck()
        case .restored:
            cluster.markRestored()
            metrics.clusterBusUp.store(1, ordering: .relaxed)
            for userId in clients.keys { catchUp(userId) }  // whatever was announced while the bus was down
            reloadAllUsers()  // and whatever changed meanwhile
        }
    }

    /// While the bus is down: every connected user's log is read on each tick.
    private func scheduleClusterRecheck() {
        cluster.scheduleRecheck { [self] in
            metrics.clusterRechecks.increment()
            for userId in clients.keys { catchUp(userId) }
        }
    }

    /// Reads `userId`'s log after the lowest offset any of its devices here has, and sends each device what it lacks,
    /// in order, together with live events that waited meanwhile. One read per user at a time; asked again while one
    /// runs, it runs once more after it.
    func catchUp(_ userId: String) {
        guard let states = clients[userId], let from = states.values.map(\.lastSentOffset).min(),
            cluster.beginCatchUp(userId)
        else { return }
        for state in states.values where !state.resuming { state.fetching = true }
        let (store, limit) = (self.store, settings.maxReplayEvents)
        scheduler.runBlocking(in: .user(userId)) { [self] in
            let read = Result { try store.events(userId: userId, after: from, limit: limit) }
            scheduler.execute { [self] in finishCatchUp(userId, from: from, read: read, limit: limit) }
        }
    }

    private func finishCatchUp(_ userId: String, from: Int64, read: Result<[StoredEvent], Error>, limit: Int) {
        var again = cluster.endCatchUp(userId)
        guard case .success(let events) = read else {
            // The store is unreachable: live events keep waiting (sending them would skip the missing ones); retried
            // after a pause, as the store's own reconnection needs time.
            _ = scheduler.schedule(at: clock.now() + settings.clusterRecheckIntervalMs) { [self] in catchUp(userId) }
            return
        }
        if let last = events.last, last.offset > latestOffsets[userId] ?? 0 { latestOffsets[userId] = last.offset }
        let frames = events.map(\.frame)
        // Everything committed before the read began is in it: a live event that waited and follows an offset the
        // read does not have, past its end, may follow another node's event committed meanwhile: one more read.
        let complete = max(from, events.last?.offset ?? from)
        for state in clients[userId]?.values ?? [:].values {
            if state.resuming {
                state.buffered += frames  // merged in order when its own replay is read
            } else {
                state.fetching = false
                if !state.sendInOrder(frames, complete: complete) { again = true }
            }
        }
        if again || events.count == limit { catchUp(userId) }
    }
}

extension StoredEvent {
    /// The event as sent to a device, with its offset.
    var frame: (offset: Int64, frame: [UInt8]) {
        (offset, ServerFrames.event(type: type, offset: offset, timestamp: createdAt, data: payload))
    }
}
