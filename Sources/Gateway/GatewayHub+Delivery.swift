import GatewayProtocol

/// Delivery to the person (docs/PUSH.md, "Delivery to the person"): an alert counts as delivered to a device only
/// when that device acknowledges it. `DeliveryDeadlines` keeps the deadlines; this feeds it the hub's inputs (commits,
/// acks, `app_state`, sockets) and commits the pushes it decides through the outbox, rendered by `PushPolicy` as for a
/// user with no socket.
extension GatewayHub {
    /// A committed alert for a user with a socket somewhere: its devices with a token wait for their acknowledgement
    /// (those with a socket here or possibly on another node) or are pushed now (the others, and those in background).
    func awaitAcknowledgement(_ awaiting: DeliveryDeadlines.Awaiting, of event: StoredEvent) {
        let devices = pushRecipient(event.userId).devices.map(\.deviceId)
        guard !devices.isEmpty else { return }
        let elsewhere = cluster.remoteDevices(of: event.userId).connected > 0
        push(
            deadlines.committed(
                awaiting, userId: event.userId, offset: event.offset, devices: devices, elsewhere: elsewhere))
    }

    /// A device acknowledged its log up to `offset` (after the hub checked it against the log).
    func deliveryAcknowledged(_ client: GatewayClient, upTo offset: Int64) {
        deadlines.acknowledged(userId: client.userId, device: client.deviceId, upTo: offset)
    }

    /// `app_state`: a device in background is unreachable at once (its waiting alerts are pushed now) and counts as
    /// `away`; `foreground` restores both. Every socket of the device takes the state.
    func setAppState(_ state: AppStateCommand.State, of client: GatewayClient) {
        let background = state == .background
        for socket in (clients[client.userId] ?? [:]).values where socket.client.deviceId == client.deviceId {
            socket.background = background
        }
        push(
            deadlines.appStateChanged(
                userId: client.userId, device: client.deviceId, background ? .background : .foreground))
        updatePresence(of: client.userId)
    }

    /// The device's socket opened (after it was added to `clients`): its first one here starts in foreground with the
    /// acknowledgement the store holds for it.
    func deliveryConnected(_ client: GatewayClient) {
        guard sockets(of: client) == 1 else { return }
        let acked = devices[DeviceKey(userId: client.userId, deviceId: client.deviceId)]?.ackedOffset ?? 0
        deadlines.connected(userId: client.userId, device: client.deviceId, ackedOffset: acked)
    }

    /// The device's socket closed (after it left `clients`): with its last one here gone, what it waits for is pushed.
    func deliveryDisconnected(_ client: GatewayClient) {
        guard sockets(of: client) == 0 else { return }
        push(deadlines.disconnected(userId: client.userId, device: client.deviceId))
    }

    /// A decided approval needs no push of its request any more.
    func deliveryWithdraw(approval requestId: String, of userId: String) {
        deadlines.withdraw(userId: userId) { event in
            if case .approvalRequest(let data) = event { data.requestId == requestId } else { false }
        }
    }

    /// The node is stopping: every alert still waiting for an acknowledgement is pushed now, so a restart loses no
    /// deadline (the jobs are durable in the outbox; the devices' sockets close with the node anyway, which would push
    /// them too). Call on the hub thread before the last `flushWrites`.
    public func pushWaitingDeadlines() {
        push(deadlines.takeAll())
    }

    /// Pushes a deadline found due. With other nodes the devices may have acknowledged there (each `ack` is stored,
    /// `setDeviceAck`): the stored acknowledgements are read first and a device that acknowledged is left out. One
    /// user read per fired deadline, off the hub thread; a failed read pushes anyway (early rather than never).
    func pushDue(_ pushes: [DeliveryDeadlines.Push]) {
        guard cluster.bus != nil else { return push(pushes) }
        let (store, due) = (self.store, UncheckedBox(pushes))
        let users = Set(pushes.map(\.userId))
        scheduler.runBlocking { [self] in
            let acked = users.map { id in (id, (try? store.userEntry(id: id))?.devices ?? []) }
            scheduler.execute { [self] in
                var stored: [DeviceKey: Int64] = [:]
                for (userId, devices) in acked {
                    for device in devices {
                        stored[DeviceKey(userId: userId, deviceId: device.id)] = device.ackedOffset
                    }
                }
                push(
                    due.value.map { push in
                        var unacknowledged = push
                        unacknowledged.devices.removeAll {
                            (stored[DeviceKey(userId: push.userId, deviceId: $0)] ?? 0) >= push.offset
                        }
                        return unacknowledged
                    })
            }
        }
    }

    /// Commits the pushes `DeliveryDeadlines` decided: each event rendered by `PushPolicy` for just those devices, as
    /// to a user with no socket. An approval request decided meanwhile is not pushed.
    func push(_ pushes: [DeliveryDeadlines.Push]) {
        guard !pushes.isEmpty else { return }
        var jobs: [PushJobRecord] = []
        for push in pushes where !push.devices.isEmpty {
            if case .approvalRequest(let data) = push.event, approvals[data.requestId]?.state != .pending { continue }
            var recipient = pushRecipient(push.userId)
            let chosen = Set(push.devices)
            recipient.devices.removeAll { !chosen.contains($0.deviceId) }
            recipient.connectedHere = []
            recipient.connectedElsewhere = 0
            for case .enqueue(let job) in pushPolicy.decide(.event(push.event), for: recipient, now: clock.now()) {
                jobs.append(job)
            }
        }
        enqueue(jobs)
    }

    private func sockets(of client: GatewayClient) -> Int {
        (clients[client.userId] ?? [:]).values.reduce(0) { $1.client.deviceId == client.deviceId ? $0 + 1 : $0 }
    }
}
