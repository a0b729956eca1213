import GatewayProtocol
import JSON

/// Online-aware delivery: events for a user with no connected device become push jobs, written to the outbox in
/// the same transaction as the event (docs/PUSH.md has the whole policy). The push adapters send them; this file
/// only decides what should go where.
extension GatewayHub {
    static let pushTokenKinds: Set<String> = ["apns", "fcm", "webhook", "liveActivityStart", "liveActivityUpdate"]

    // MARK: Decisions

    /// Push jobs for an event about to be committed. A user with a connected device gets none (the socket carries
    /// it), except a handoff, which goes to the previous device when that one is not connected.
    func pushJobs(for event: PendingEvent, offset: PendingOffset, ignoringConnections: Bool = false) -> [PushJobRecord] {
        // Typed values only (`PendingEvent.pushable`): nothing here reads the event's JSON. Events without one are
        // never pushed (presence goes through presencePush); most of the rest are for a user with a connected device.
        guard let pushable = event.pushable else { return [] }
        switch pushable {
        case .message, .groupMessage, .contactAdded, .contactRemoved, .friendRequest:
            if !ignoringConnections, let userClients = clients[event.userId], !userClients.isEmpty { return [] }
        case .approval, .handoff:
            break
        }
        let settings = notificationSettings[event.userId] ?? NotificationSettings()
        let connected = ignoringConnections ? [] : Set((clients[event.userId] ?? [:]).values.map(\.client.deviceId))
        var targetsByDevice: [(DeviceKey, [(PushTarget, PushTarget?)])] = []
        var notice: PushNotice

        switch pushable {
        case .approval(let data) where event.type == "approval_request":
            guard connected.isEmpty else {
                checkAcknowledgement(of: event, offset: offset, requestId: data.requestId)
                return []
            }
            for device in devices(of: event.userId) {
                targetsByDevice.append((device, approvalTargets(device: device, sessionId: data.sessionId, settings: settings)))
            }
            // The notice (its badge counts the user's pending approvals) only when some device has somewhere to go.
            guard targetsByDevice.contains(where: { !$0.1.isEmpty }) else { return [] }
            notice = approvalNotice(event.type, data: data, settings: settings, title: "Approval needed")
        case .approval(let data):
            // approval_resolved / approval_timeout: clears the request on every device that is not connected, even
            // when another device answered it.
            guard settings.backgroundNotifications else { return [] }
            for device in devices(of: event.userId) where !connected.contains(device.deviceId) {
                var targets = backgroundTargets(device: device)
                if let la = token(device, "liveActivityUpdate", session: data.sessionId) {
                    targets.insert((PushTarget(provider: "apns", token: la.token, kind: "liveActivityUpdate", environment: la.environment), nil), at: 0)
                }
                targetsByDevice.append((device, targets))
            }
            guard targetsByDevice.contains(where: { !$0.1.isEmpty }) else { return [] }
            notice = approvalNotice(event.type, data: data, settings: settings,
                                    title: event.type == "approval_timeout" ? "Approval timed out" : "Approval answered")
        case .handoff(let data):
            guard !connected.contains(data.previous.deviceId) else { return [] }
            let sessionId = data.sessionId
            let previousDevice = DeviceKey(userId: event.userId, deviceId: data.previous.deviceId)
            notice = PushNotice(type: event.type, genericTitle: "Session moved to another device",
                                ids: ["sessionId": sessionId, "handedOffTo": data.handedOffTo.deviceId],
                                deepLinkPath: "session/\(sessionId)", collapseID: "handoff-\(sessionId)",
                                contentState: pushable.contentState)
            var targets = settings.backgroundNotifications ? backgroundTargets(device: previousDevice) : []
            if let la = token(previousDevice, "liveActivityUpdate", session: sessionId) {
                targets.append((PushTarget(provider: "apns", token: la.token, kind: "liveActivityEnd", environment: la.environment), nil))
            }
            targetsByDevice.append((previousDevice, targets))
        case .message(let data):
            let from = data.from
            guard connected.isEmpty, from != event.userId else { return [] }
            let sender = users[from].map { $0.displayName ?? $0.hexCode } ?? from
            notice = PushNotice(type: event.type, title: sender, body: data.text, genericTitle: "New message",
                                showDetails: settings.showDetails, ids: ["from": from, "messageId": String(data.messageId)],
                                deepLinkPath: "chat/\(from)")
            for device in devices(of: event.userId) { targetsByDevice.append((device, alertTargets(device: device, settings: settings))) }
        case .groupMessage(let data):
            let sender = data.from.userId, groupId = data.groupId
            guard connected.isEmpty, sender != event.userId else { return [] }
            let name = users[sender].map { $0.displayName ?? $0.hexCode } ?? sender
            notice = PushNotice(type: event.type, title: name, body: data.text, genericTitle: "New message",
                                showDetails: settings.showDetails, ids: ["groupId": groupId, "from": sender], deepLinkPath: "group/\(groupId)")
            for device in devices(of: event.userId) { targetsByDevice.append((device, alertTargets(device: device, settings: settings))) }
        case .contactAdded, .contactRemoved, .friendRequest:
            guard connected.isEmpty, settings.contactUpdates, settings.backgroundNotifications else { return [] }
            notice = PushNotice(type: event.type, genericTitle: "Contacts changed", ids: [:], collapseID: "contacts",
                                contentState: pushable.contentState)
            for device in devices(of: event.userId) { targetsByDevice.append((device, backgroundTargets(device: device))) }
        }

        var jobs: [PushJobRecord] = []
        let now = clock.now()
        for (device, targets) in targetsByDevice {
            for (target, fallback) in targets {
                jobs.append(PushJobRecord(id: 0, userId: event.userId, deviceId: device.deviceId, target: target, notice: notice,
                                          fallback: fallback, nextAttemptAt: now, createdAt: now))
            }
        }
        return jobs
    }

    /// A connected device should acknowledge the request; when none has within `approvalPushDelayMs` and the request
    /// is still pending, it goes to push for every device of the user.
    private func checkAcknowledgement(of event: PendingEvent, offset: PendingOffset, requestId: String) {
        guard settings.approvalPushDelayMs > 0 else { return }
        _ = scheduler.schedule(at: clock.now() + settings.approvalPushDelayMs) { [self] in
            guard approvals[requestId]?.state == .pending else { return }
            let acknowledged = (clients[event.userId] ?? [:]).values.contains { $0.ackedOffset >= offset.value }
            guard !acknowledged else { return }
            let jobs = pushJobs(for: event, offset: offset, ignoringConnections: true)
            guard !jobs.isEmpty else { return }
            commit(jobs.map { .enqueuePush($0) }) { [self] outcome in
                if case .success = outcome { onPushJobsEnqueued?() }
            }
        }
    }

    private func approvalNotice(_ type: String, data: ApprovalData, settings: NotificationSettings, title: String) -> PushNotice {
        let requestId = data.requestId, sessionId = data.sessionId
        // O(approvals in memory): one pass, the user looked up once (it was looked up per approval, copying a record
        // each time). A per-user pending count would make it O(1).
        let userId = approvals[requestId]?.userId
        let pending = approvals.values.reduce(0) { $1.state == .pending && $1.userId == userId ? $0 + 1 : $0 }
        return PushNotice(type: type, title: "\(title): \(data.toolName)", body: data.summary, genericTitle: title,
                          showDetails: settings.showDetails, timeSensitive: settings.timeSensitive && type == "approval_request",
                          ids: ["sessionId": sessionId, "requestId": requestId],
                          deepLinkPath: "session/\(sessionId)/approval/\(requestId)", collapseID: requestId,
                          expiresAt: type == "approval_request" ? data.expiresAt : nil, badge: pending, contentState: data.jsonValue)
    }

    /// Live Activity first (its update token, else push-to-start when enabled), falling back to an alert in the same delivery.
    private func approvalTargets(device: DeviceKey, sessionId: String, settings: NotificationSettings) -> [(PushTarget, PushTarget?)] {
        let alerts = alertTargets(device: device, settings: settings)
        let apnsAlert = alerts.first { $0.0.provider == "apns" }?.0
        var targets = alerts.filter { $0.0.provider != "apns" }
        if settings.liveActivities, let la = token(device, "liveActivityUpdate", session: sessionId) {
            targets.insert((PushTarget(provider: "apns", token: la.token, kind: "liveActivityUpdate", environment: la.environment), apnsAlert), at: 0)
        } else if settings.liveActivities, let start = token(device, "liveActivityStart", session: "") {
            targets.insert((PushTarget(provider: "apns", token: start.token, kind: "liveActivityStart", environment: start.environment), apnsAlert), at: 0)
        } else if let apnsAlert {
            targets.insert((apnsAlert, nil), at: 0)
        }
        return targets
    }

    private func alertTargets(device: DeviceKey, settings: NotificationSettings) -> [(PushTarget, PushTarget?)] {
        var targets: [(PushTarget, PushTarget?)] = []
        if let t = token(device, "apns", session: "") { targets.append((PushTarget(provider: "apns", token: t.token, kind: "alert", environment: t.environment), nil)) }
        if let t = token(device, "fcm", session: "") { targets.append((PushTarget(provider: "fcm", token: t.token, kind: "alert"), nil)) }
        if let t = token(device, "webhook", session: "") { targets.append((PushTarget(provider: "webhook", token: t.token, kind: "alert"), nil)) }
        return targets
    }

    private func backgroundTargets(device: DeviceKey) -> [(PushTarget, PushTarget?)] {
        alertTargets(device: device, settings: NotificationSettings()).map {
            var t = $0.0
            t.kind = "background"
            return (t, nil)
        }
    }

    /// A contact's presence changed: watchers with no connected device who opted in get one background push,
    /// coalesced — at most one per `presencePushIntervalMs`, carrying the users that changed since the last one.
    /// Devices on other nodes count (their presence counts): such a watcher hears the change there, over its socket.
    func presencePush(changed userId: String, watchers: [String]) {
        for watcher in watchers where clusterDevices(of: watcher).connected == 0 {
            let settings = notificationSettings[watcher] ?? NotificationSettings()
            guard settings.presenceUpdates, settings.backgroundNotifications else { continue }
            presencePushPending[watcher, default: []].insert(userId)
            guard presencePushTimers[watcher] == nil else { continue }   // one is already scheduled: it will carry this too
            let earliest = (presencePushSentAt[watcher] ?? Int64.min / 2) + self.settings.presencePushIntervalMs
            presencePushTimers[watcher] = scheduler.schedule(at: max(clock.now(), earliest)) { [self] in
                presencePushTimers[watcher] = nil
                let changed = (presencePushPending.removeValue(forKey: watcher) ?? []).sorted()
                guard !changed.isEmpty, clusterDevices(of: watcher).connected == 0 else { return }
                presencePushSentAt[watcher] = clock.now()
                let notice = PushNotice(type: "presence", genericTitle: "Contacts' status changed",
                                        ids: ["userIds": changed.joined(separator: ",")], collapseID: "presence")
                var jobs: [PushJobRecord] = []
                for device in devices(of: watcher) {
                    for (target, _) in backgroundTargets(device: device) {
                        jobs.append(PushJobRecord(id: 0, userId: watcher, deviceId: device.deviceId, target: target, notice: notice,
                                                  nextAttemptAt: clock.now(), createdAt: clock.now()))
                    }
                }
                guard !jobs.isEmpty else { return }
                // Every node holding the watcher sees the same changes: the store's claim picks the one that sends.
                let claim = StoreWrite.claimPresencePush(userId: watcher, at: clock.now(),
                                                         intervalMs: self.settings.presencePushIntervalMs)
                commit([claim] + jobs.map { .enqueuePush($0) }, onConflict: { [self] in
                    presencePushClaimLost(watcher, $0)
                }) { [self] outcome in
                    if case .success = outcome { onPushJobsEnqueued?() }
                }
            }
        }
    }

    func token(_ device: DeviceKey, _ kind: String, session: String) -> PushTokenRecord? {
        pushTokens[device]?.first { $0.kind == kind && $0.sessionId == session }
    }

    /// The user's devices a push can reach (those with a token), in device-id order. Found through the tokens, not
    /// every device of every user: that scan made each approval event cost O(devices in memory) on the hub (10 000
    /// devices, 2 000 approvals/s saturated it). Still O(devices with a token); a per-user index would make it O(1).
    private func devices(of userId: String) -> [DeviceKey] {
        pushTokens.keys.filter { $0.userId == userId && devices[$0] != nil }.sorted { $0.deviceId < $1.deviceId }
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
    public func setPushToken(_ device: DeviceKey, _ command: PushRegisterCommand, completion: @escaping (Result<Void, GatewayError>) -> Void) throws {
        guard devices[device] != nil else { throw GatewayError(.notFound, "no device \"\(device.deviceId)\" of user \"\(device.userId)\"") }
        guard Self.pushTokenKinds.contains(command.kind) else {
            throw GatewayError(.invalidField, "kind must be one of \(Self.pushTokenKinds.sorted().joined(separator: ", "))")
        }
        guard !command.token.isEmpty, command.token.utf8.count <= 4096 else { throw GatewayError(.invalidField, "token must have 1 to 4096 bytes") }
        if command.kind == "liveActivityUpdate" && (command.sessionId ?? "").isEmpty {
            throw GatewayError(.missingField, "missing field \"sessionId\" (Live Activity update tokens belong to a session)")
        }
        if let env = command.environment, env != "sandbox" && env != "production" {
            throw GatewayError(.invalidField, "environment must be \"sandbox\" or \"production\"")
        }
        let record = PushTokenRecord(userId: device.userId, deviceId: device.deviceId, kind: command.kind, token: command.token, environment: command.environment,
                                     sessionId: command.kind == "liveActivityUpdate" ? command.sessionId ?? "" : "", updatedAt: clock.now())
        pushTokens[device, default: []].removeAll { $0.kind == record.kind && $0.sessionId == record.sessionId }
        pushTokens[device, default: []].append(record)
        commit([.upsertPushToken(record)]) { outcome in completion(outcome.map { _ in () }) }
    }

    /// Removes a device's push token of a kind (per session for Live Activity update tokens).
    public func removePushToken(_ device: DeviceKey, kind: String, sessionId: String?, completion: @escaping (Result<Void, GatewayError>) -> Void) {
        let session = kind == "liveActivityUpdate" ? sessionId ?? "" : ""
        pushTokens[device]?.removeAll { $0.kind == kind && $0.sessionId == session }
        commit([.deletePushToken(userId: device.userId, deviceId: device.deviceId, kind: kind, sessionId: session)]) { outcome in
            completion(outcome.map { _ in () })
        }
    }

    func unregisterPushToken(kind: String, sessionId: String?, client: GatewayClient, reply: Reply) {
        removePushToken(DeviceKey(userId: client.userId, deviceId: client.deviceId), kind: kind, sessionId: sessionId) { outcome in
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
    public func updateNotificationSettings(userId: String, _ command: NotificationSettingsCommand,
                                           completion: @escaping (Result<NotificationSettings, GatewayError>) -> Void) {
        var settings = notificationSettings[userId] ?? NotificationSettings()
        if let v = command.liveActivities { settings.liveActivities = v }
        if let v = command.backgroundNotifications { settings.backgroundNotifications = v }
        if let v = command.timeSensitive { settings.timeSensitive = v }
        if let v = command.showDetails { settings.showDetails = v }
        if let v = command.presenceUpdates { settings.presenceUpdates = v }
        if let v = command.contactUpdates { settings.contactUpdates = v }
        notificationSettings[userId] = settings
        commit([.setNotificationSettings(userId: userId, settings: settings)]) { outcome in completion(outcome.map { _ in settings }) }
    }

    /// The sender reports a token the provider called invalid: forget it so no later push uses it.
    public func forgetPushToken(_ device: DeviceKey, target: PushTarget) {
        let kind = Self.tokenKind(for: target)
        let matching = (pushTokens[device] ?? []).filter { $0.kind == kind && $0.token == target.token }
        guard !matching.isEmpty else { return }
        pushTokens[device]?.removeAll { $0.kind == kind && $0.token == target.token }
        queueWrite(matching.map { .deletePushToken(userId: device.userId, deviceId: device.deviceId, kind: kind, sessionId: $0.sessionId) }) { _ in }
    }

    /// The kind of token a target was built from.
    public static func tokenKind(for target: PushTarget) -> String {
        switch (target.provider, target.kind) {
        case ("apns", "liveActivityUpdate"), ("apns", "liveActivityEnd"): return "liveActivityUpdate"
        case ("apns", "liveActivityStart"): return "liveActivityStart"
        default: return target.provider
        }
    }
}
