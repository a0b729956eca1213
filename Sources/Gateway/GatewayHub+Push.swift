import GatewayProtocol
import JSON

/// Online-aware delivery: events for a user with no connected device become push jobs, written to the outbox in
/// the same transaction as the event (docs/PUSH.md has the whole policy). `PushPolicy` decides what goes where; this
/// file gathers its inputs, keeps its timers and commits its jobs; the push adapters send them.
extension GatewayHub {
    // MARK: Decisions (PushPolicy decides; this gathers its inputs and carries out its actions)

    var pushPolicy: PushPolicy { PushPolicy() }

    /// What happens to an event's push when it is committed.
    enum PushPlan {
        /// These jobs go into the event's batch (nothing when the event is not pushed).
        case jobs([PushJobRecord])
        /// An alert for a user with a socket somewhere: once committed, `DeliveryDeadlines` times it.
        case awaitAcknowledgement(DeliveryDeadlines.Awaiting)
    }

    /// The push of an event about to be committed (jobs are committed in its batch by the caller). An alert
    /// (`PushRule.alert`) for a user with a socket here or on another node waits for the acknowledgement deadline;
    /// for a user with no socket anywhere it is pushed at once, in the event's batch.
    func pushPlan(for event: PendingEvent) -> PushPlan {
        // Typed values only (`PendingEvent.pushable`): nothing here reads the event's JSON. Events without one are
        // never pushed (presence goes through presencePush); most of the rest are for a user with a connected device.
        guard let pushable = event.pushable else { return .jobs([]) }
        if let kind = acknowledgementKind(of: event),
            clients[event.userId] != nil || cluster.remoteDevices(of: event.userId).connected > 0
        {
            return policyEvent(event).map { .awaitAcknowledgement(DeliveryDeadlines.Awaiting(event: $0, kind: kind)) }
                ?? .jobs([])
        }
        if !PushPolicy.mayPushWhileConnected(pushable), let here = clients[event.userId], !here.isEmpty {
            return .jobs([])
        }
        guard let policyEvent = policyEvent(event) else { return .jobs([]) }
        return .jobs(jobs(pushPolicy.decide(.event(policyEvent), for: pushRecipient(event.userId), now: clock.now())))
    }

    /// The deadline kind of an event whose rule is an alert (`PushRule`) that this version times; nil otherwise.
    /// Friend requests keep their contact-updates push until their alert is rendered.
    private func acknowledgementKind(of event: PendingEvent) -> DeliveryMachine.Kind? {
        let ownAction: Bool
        switch event.pushable {
        case .message(let data)?: ownAction = data.from == event.userId
        case .groupMessage(let data)?: ownAction = data.from.userId == event.userId
        case .approval?, .notification?: ownAction = false
        default: return nil
        }
        let notification = if case .notification? = event.pushable { true } else { false }
        guard case .alert(let kind) = PushRule.rule(for: event.type, notification: notification, ownAction: ownAction)
        else {
            return nil
        }
        return kind
    }

    private func jobs(_ actions: [PushPolicy.Action]) -> [PushJobRecord] {
        actions.map { action in
            switch action {
            case .enqueue(let job): job
            }
        }
    }

    /// The event as push policy knows it; nil for events it never pushes.
    private func policyEvent(_ event: PendingEvent) -> PushPolicy.Event? {
        switch event.pushable {
        case nil: return nil
        case .approval(let data)?:
            if event.type == .approvalRequest { return .approvalRequest(data) }
            return ApprovalMachine.Event(rawValue: event.type.rawValue).map { .approvalDecided(data, $0) }
        case .handoff(let data)?: return .handoff(data)
        case .message(let data)?: return .message(data, senderName: displayName(of: data.from))
        case .groupMessage(let data)?: return .groupMessage(data, senderName: displayName(of: data.from.userId))
        case .notification(let notification, let ids, let deepLinkPath)?:
            return .notified(type: event.type.rawValue, notification, ids: ids, deepLinkPath: deepLinkPath)
        case let pushable?:
            return PushPolicy.ContactChange(rawValue: event.type.rawValue).map {
                .contactsChanged($0, contentState: pushable.contentState)
            }
        }
    }

    private func displayName(of userId: String) -> String {
        users[userId].map { $0.displayName ?? $0.hexCode } ?? userId
    }

    /// What push policy needs of a user: O(devices of that user) through the per-user indexes. `withDevices`: false
    /// leaves the devices and their tokens out (for inputs that read only connections and settings).
    func pushRecipient(_ userId: String, withDevices: Bool = true) -> PushPolicy.Recipient {
        let local = localDevices(of: userId).connected
        return PushPolicy.Recipient(
            userId: userId,
            devices: !withDevices
                ? []
                : pushTokens.devices(of: userId).compactMap { deviceId, tokens in
                    devices[DeviceKey(userId: userId, deviceId: deviceId)] == nil
                        ? nil : PushPolicy.Device(deviceId: deviceId, tokens: tokens)
                },
            connectedHere: Set((clients[userId] ?? [:]).values.map(\.client.deviceId)),
            connectedElsewhere: clusterDevices(of: userId).connected - local,
            settings: notificationSettings[userId] ?? NotificationSettings(),
            pendingApprovals: approvals.pendingCount(of: userId))
    }

    /// Commits jobs decided outside an event's batch and wakes the sender.
    func enqueue(_ jobs: [PushJobRecord]) {
        guard !jobs.isEmpty else { return }
        commit(jobs.map { .enqueuePush($0) }) { [self] outcome in
            if case .success = outcome { onPushJobsEnqueued?() }
        }
    }

    /// A contact's presence changed: each watcher's coalesced presence pushes step (`PushPolicy.presence`). Devices
    /// on other nodes count (their presence counts): such a watcher hears the change there, over its socket.
    func presencePush(changed userId: String, watchers: [String]) {
        for watcher in watchers { stepPresencePush(watcher, .contactChanged(userId)) }
    }

    private func stepPresencePush(_ watcher: String, _ input: PushPolicy.PresenceInput) {
        let state = presencePushes.state(of: watcher)
        let (next, actions) = PushPolicy.presence(
            state, input, watcher: pushRecipient(watcher, withDevices: input == .timerFired),
            intervalMs: settings.presencePushIntervalMs, now: clock.now())
        presencePushes.adopt(next, was: state, of: watcher)
        var jobs: [PushJobRecord] = []
        for action in actions {
            switch action {
            case .armTimer(let at):
                presencePushes.armTimer(of: watcher, at: at) { [self] in stepPresencePush(watcher, .timerFired) }
            case .enqueue(let job): jobs.append(job)
            }
        }
        guard !jobs.isEmpty else { return }
        // Every node holding the watcher sees the same changes: the store's claim picks the one that sends.
        let claim = StoreWrite.claimPresencePush(
            userId: watcher, at: clock.now(), intervalMs: settings.presencePushIntervalMs)
        commit(
            [claim] + jobs.map { .enqueuePush($0) },
            onConflict: { [self] conflict in
                guard case .presencePushClaimed(_, let at) = conflict else { return }
                metrics.presencePushesClaimedElsewhere.increment()
                presencePushes.claimLost(by: watcher, at: at)
            }
        ) { [self] outcome in
            if case .success = outcome { onPushJobsEnqueued?() }
        }
    }

    /// The users that have a device with this id (usually one; device ids are only unique per user).
    public func users(withDevice deviceId: String) -> [String] {
        devices.owners(ofDevice: deviceId)
    }

    // MARK: Registration (client commands and the sender's feedback)

    func registerPushToken(_ command: PushRegisterCommand, client: GatewayClient, reply: Reply) throws {
        try setPushToken(DeviceKey(userId: client.userId, deviceId: client.deviceId), command) { outcome in
            switch outcome {
            case .success: reply.ok(Empty())
            case .failure(let error): reply.fail(error)
            }
        }
    }

    /// Registers (or replaces) a device's push token; the server API calls it too. Throws on invalid input.
    /// A Live Activity token has at most `LiveActivityTokens.maxTokenBytes`; an update token's session must be one of
    /// the device's user (`session_not_found` otherwise, also for another user's), and a device keeps at most
    /// `liveActivityTokensPerDevice` of them: one for a new session replaces the one registered longest ago.
    public func setPushToken(
        _ device: DeviceKey, _ command: PushRegisterCommand, completion: @escaping (Result<Void, GatewayError>) -> Void
    ) throws {
        guard devices[device] != nil else {
            throw GatewayError(.notFound, "no device \"\(device.deviceId)\" of user \"\(device.userId)\"")
        }
        guard PushPolicy.TokenKind(rawValue: command.kind) != nil else {
            throw GatewayError(
                .invalidField,
                "kind must be one of \(PushPolicy.TokenKind.allCases.map(\.rawValue).sorted().joined(separator: ", "))")
        }
        let maxBytes = LiveActivityTokens.isLiveActivity(command.kind) ? LiveActivityTokens.maxTokenBytes : 4096
        guard !command.token.isEmpty, command.token.utf8.count <= maxBytes else {
            throw GatewayError(.invalidField, "\(command.kind) token must have 1 to \(maxBytes) bytes")
        }
        let isUpdate = command.kind == PushPolicy.TokenKind.liveActivityUpdate.rawValue
        if isUpdate && (command.sessionId ?? "").isEmpty {
            throw GatewayError(
                .missingField, "missing field \"sessionId\" (Live Activity update tokens belong to a session)")
        }
        if let env = command.environment, env != "sandbox" && env != "production" {
            throw GatewayError(.invalidField, "environment must be \"sandbox\" or \"production\"")
        }
        guard isUpdate, let sessionId = command.sessionId else {
            return storePushToken(device, command, sessionId: "", completion: completion)
        }
        withOwnSession(sessionId, of: device.userId) { [self] found in
            switch found {
            case .failure(let error): completion(.failure(error))
            case .success: storePushToken(device, command, sessionId: sessionId, completion: completion)
            }
        }
    }

    /// Keeps a checked token in memory and commits it, with the deletion of the update tokens it replaces.
    private func storePushToken(
        _ device: DeviceKey, _ command: PushRegisterCommand, sessionId: String,
        completion: @escaping (Result<Void, GatewayError>) -> Void
    ) {
        guard devices[device] != nil else {  // forgotten while the session was read
            return completion(
                .failure(GatewayError(.notFound, "no device \"\(device.deviceId)\" of user \"\(device.userId)\"")))
        }
        let record = PushTokenRecord(
            userId: device.userId, deviceId: device.deviceId, kind: command.kind, token: command.token,
            environment: command.environment,
            sessionId: sessionId, updatedAt: clock.now())
        let evicted = LiveActivityTokens.evicted(
            by: record, from: pushTokens[device] ?? [], limit: settings.liveActivityTokensPerDevice)
        pushTokens[device, default: []].removeAll { held in
            (held.kind == record.kind && held.sessionId == record.sessionId)
                || evicted.contains { $0.kind == held.kind && $0.sessionId == held.sessionId }
        }
        pushTokens[device, default: []].append(record)
        let deletions = evicted.map {
            StoreWrite.deletePushToken(
                userId: device.userId, deviceId: device.deviceId, kind: $0.kind, sessionId: $0.sessionId)
        }
        commit(deletions + [.upsertPushToken(record)]) { outcome in completion(outcome.map { _ in () }) }
    }

    /// Removes a device's push token of a kind (per session for Live Activity update tokens).
    public func removePushToken(
        _ device: DeviceKey, kind: String, sessionId: String?,
        completion: @escaping (Result<Void, GatewayError>) -> Void
    ) {
        let session = kind == "liveActivityUpdate" ? sessionId ?? "" : ""
        pushTokens[device]?.removeAll { $0.kind == kind && $0.sessionId == session }
        commit([.deletePushToken(userId: device.userId, deviceId: device.deviceId, kind: kind, sessionId: session)]) {
            outcome in
            completion(outcome.map { _ in () })
        }
    }

    func unregisterPushToken(kind: String, sessionId: String?, client: GatewayClient, reply: Reply) {
        removePushToken(DeviceKey(userId: client.userId, deviceId: client.deviceId), kind: kind, sessionId: sessionId) {
            outcome in
            switch outcome {
            case .success: reply.ok(Empty())
            case .failure(let error): reply.fail(error)
            }
        }
    }

    func updateNotificationSettings(_ command: NotificationSettingsCommand, client: GatewayClient, reply: Reply) {
        updateNotificationSettings(userId: client.userId, command) { outcome in
            switch outcome {
            case .success(let settings): reply.ok(settings)
            case .failure(let error): reply.fail(error)
            }
        }
    }

    /// Changes the fields given (nil = unchanged) of a user's notification settings.
    public func updateNotificationSettings(
        userId: String, _ command: NotificationSettingsCommand,
        completion: @escaping (Result<NotificationSettings, GatewayError>) -> Void
    ) {
        var settings = notificationSettings[userId] ?? NotificationSettings()
        if let v = command.liveActivities { settings.liveActivities = v }
        if let v = command.backgroundNotifications { settings.backgroundNotifications = v }
        if let v = command.timeSensitive { settings.timeSensitive = v }
        if let v = command.showDetails { settings.showDetails = v }
        if let v = command.presenceUpdates { settings.presenceUpdates = v }
        if let v = command.contactUpdates { settings.contactUpdates = v }
        notificationSettings[userId] = settings
        commit([.setNotificationSettings(userId: userId, settings: settings)]) { outcome in
            completion(outcome.map { _ in settings })
        }
    }

    /// The sender reports a token the provider called invalid: forget it so no later push uses it.
    public func forgetPushToken(_ device: DeviceKey, target: PushTarget) {
        let kind = Self.tokenKind(for: target)
        let matching = (pushTokens[device] ?? []).filter { $0.kind == kind && $0.token == target.token }
        guard !matching.isEmpty else { return }
        pushTokens[device]?.removeAll { $0.kind == kind && $0.token == target.token }
        queueWrite(
            matching.map {
                .deletePushToken(userId: device.userId, deviceId: device.deviceId, kind: kind, sessionId: $0.sessionId)
            }
        ) { _ in }
    }

    /// The kind of token a target was built from.
    public static func tokenKind(for target: PushTarget) -> String {
        PushPolicy.TokenKind(of: target)?.rawValue ?? target.provider
    }
}
