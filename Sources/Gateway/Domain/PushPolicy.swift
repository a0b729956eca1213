import GatewayProtocol
import JSON

/// Push routing as pure decisions (docs/PUSH.md, "Routing"): given an event about to be committed, what the hub knows
/// of its recipient — devices and their tokens, which are connected to this node and how many to others, notification
/// settings, pending approvals — and `now`, which push jobs go where. No threads, clock, store or sockets: the hub
/// (the coordinator) gathers the recipient and commits the jobs with the event. Alerts for a user with a socket
/// anywhere are timed by `DeliveryMachine` (the acknowledgement deadline) instead; what it decides to push comes
/// back here as a recipient holding just those devices.
///
/// What a job shows on the lock screen is decided here too: without `showDetails` only the generic title is shown
/// (`PushNotice.genericTitle`); with it, the text is redacted when the push is rendered. A notice never carries a
/// token or a device secret.
struct PushPolicy {
    /// Who sends a push (`PushTarget.provider`, `push_tokens` rows).
    enum Provider: String, Equatable {
        case apns, fcm, webhook
    }

    /// What a push does on the device (`PushTarget.kind`).
    enum Delivery: String, Equatable {
        case alert, background, liveActivityUpdate, liveActivityStart, liveActivityEnd
    }

    /// The kinds of token a device registers (`push_register`'s `kind`, `push_tokens.kind`).
    enum TokenKind: String, Equatable, CaseIterable {
        case apns, fcm, webhook, liveActivityStart, liveActivityUpdate

        /// The kind of token a target was built from (the sender reports invalid targets, not tokens); nil for a
        /// provider this version does not know.
        init?(of target: PushTarget) {
            switch (Provider(rawValue: target.provider), Delivery(rawValue: target.kind)) {
            case (.apns, .liveActivityUpdate), (.apns, .liveActivityEnd): self = .liveActivityUpdate
            case (.apns, .liveActivityStart): self = .liveActivityStart
            default: self.init(rawValue: target.provider)
            }
        }
    }

    /// One device of the recipient that has push tokens.
    struct Device: Equatable {
        var deviceId: String
        var tokens: [PushTokenRecord]

        /// The device's token of `kind` (for `liveActivityUpdate`, of that session's activity).
        func token(_ kind: TokenKind, session: String = "") -> PushTokenRecord? {
            tokens.first { $0.kind == kind.rawValue && $0.sessionId == session }
        }
    }

    /// What the hub knows of the user an event is for.
    struct Recipient: Equatable {
        var userId: String
        /// Devices with a token, in device-id order.
        var devices: [Device]
        /// Devices connected to this node (with or without tokens).
        var connectedHere: Set<String>
        /// Devices connected to other nodes, from their presence counts (0 on a single node).
        var connectedElsewhere: Int = 0
        var settings: NotificationSettings
        /// The user's pending approvals (an approval notice's badge).
        var pendingApprovals: Int = 0

        var connectedAnywhere: Bool { !connectedHere.isEmpty || connectedElsewhere > 0 }
    }

    /// The events push policy acts on, typed (`PendingEvent.pushable` with its type).
    enum Event: Equatable {
        case approvalRequest(ApprovalData)
        /// `approval_resolved` or `approval_timeout`.
        case approvalDecided(ApprovalData, ApprovalMachine.Event)
        case handoff(SessionHandoffData)
        /// `senderName`: the sender's display name, else hex code, else id.
        case message(MessageData, senderName: String)
        case groupMessage(GroupMessageData, senderName: String)
        /// `contact_added`, `contact_removed`, `friend_request`, `friend_request_accepted`.
        case contactsChanged(ContactChange, contentState: JSONValue?)
        /// A backend event of `type` with its `notification`.
        case notified(type: String, BackendNotification, ids: [String: String], deepLinkPath: String?)

        var type: String {
            switch self {
            case .approvalRequest: "approval_request"
            case .approvalDecided(_, let decision): decision.rawValue
            case .handoff: "session_handoff"
            case .message: "message"
            case .groupMessage: "group_message"
            case .contactsChanged(let change, _): change.rawValue
            case .notified(let type, _, _, _): type
            }
        }
    }

    enum ContactChange: String, Equatable {
        case contactAdded = "contact_added"
        case contactRemoved = "contact_removed"
        case friendRequest = "friend_request"
        case friendRequestAccepted = "friend_request_accepted"
    }

    enum Input: Equatable {
        /// An event about to be committed, or one `DeliveryMachine` decided to push (the coordinator then passes the
        /// devices to push as a recipient with no sockets).
        case event(Event)
    }

    enum Action: Equatable {
        /// Put the job in the outbox, in the event's batch (`StoreWrite.enqueuePush`).
        case enqueue(PushJobRecord)
    }

    /// Whether an event of this kind can lead to a push at commit while a device of its user is connected to this node
    /// (approval decisions and handoffs, for the devices that are not; alerts wait for `DeliveryMachine`).
    /// `decide` applies the same rule; this lets the coordinator skip gathering the recipient for most events.
    static func mayPushWhileConnected(_ event: PushableEvent) -> Bool {
        switch event {
        case .approval, .handoff: true
        case .message, .groupMessage, .contactAdded, .contactRemoved, .friendRequest, .notification: false
        }
    }

    /// The push jobs for `input` to `recipient` at `now`.
    func decide(_ input: Input, for recipient: Recipient, now: Int64) -> [Action] {
        let settings = recipient.settings
        var targets: [(deviceId: String, target: PushTarget, fallback: PushTarget?)] = []
        // Built only when some device has a target (its content state is a tree made from the event's data).
        let notice: () -> PushNotice
        switch input {
        case .event(let event):
            switch event {
            case .approvalRequest(let data):
                // A device with a socket (here or on another node) got it there: its push waits for the
                // acknowledgement deadline (`DeliveryMachine`), which hands the unacknowledging devices back here.
                guard !recipient.connectedAnywhere else { return [] }
                return approvalRequestJobs(data, for: recipient, now: now)
            case .approvalDecided(let data, let decision):
                // Clears the request on every device that is not connected, even when another device answered it.
                guard settings.backgroundNotifications else { return [] }
                for device in recipient.devices where !recipient.connectedHere.contains(device.deviceId) {
                    if let la = device.token(.liveActivityUpdate, session: data.sessionId) {
                        targets.append((device.deviceId, Self.target(.apns, .liveActivityUpdate, la), nil))
                    }
                    targets += Self.backgroundTargets(device).map { (device.deviceId, $0, nil) }
                }
                notice = {
                    Self.approvalNotice(
                        event.type, data: data, recipient: recipient,
                        title: decision == .timeout ? "Approval timed out" : "Approval answered")
                }
            case .handoff(let data):
                // To the previous device only, when it is not connected (even if others are).
                let previous = data.previous.deviceId
                guard !recipient.connectedHere.contains(previous),
                    let device = recipient.devices.first(where: { $0.deviceId == previous })
                else { return [] }
                if settings.backgroundNotifications {
                    targets += Self.backgroundTargets(device).map { (previous, $0, nil) }
                }
                if let la = device.token(.liveActivityUpdate, session: data.sessionId) {
                    targets.append((previous, Self.target(.apns, .liveActivityEnd, la), nil))
                }
                notice = {
                    PushNotice(
                        type: event.type, genericTitle: "Session moved to another device",
                        ids: ["sessionId": data.sessionId, "handedOffTo": data.handedOffTo.deviceId],
                        deepLinkPath: "session/\(data.sessionId)", collapseID: "handoff-\(data.sessionId)",
                        contentState: data.jsonValue)
                }
            case .message(let data, let senderName):
                guard !recipient.connectedAnywhere, data.from != recipient.userId else { return [] }
                notice = {
                    PushNotice(
                        type: event.type, title: senderName, body: data.text, genericTitle: "New message",
                        showDetails: settings.showDetails,
                        ids: ["from": data.from, "messageId": String(data.messageId)],
                        deepLinkPath: "chat/\(data.from)")
                }
                for device in recipient.devices {
                    targets += Self.alertTargets(device).map { (device.deviceId, $0, nil) }
                }
            case .groupMessage(let data, let senderName):
                let sender = data.from.userId
                guard !recipient.connectedAnywhere, sender != recipient.userId else { return [] }
                notice = {
                    PushNotice(
                        type: event.type, title: senderName, body: data.text, genericTitle: "New message",
                        showDetails: settings.showDetails, ids: ["groupId": data.groupId, "from": sender],
                        deepLinkPath: "group/\(data.groupId)")
                }
                for device in recipient.devices {
                    targets += Self.alertTargets(device).map { (device.deviceId, $0, nil) }
                }
            case .contactsChanged(_, let contentState):
                guard !recipient.connectedAnywhere, settings.contactUpdates, settings.backgroundNotifications else {
                    return []
                }
                notice = {
                    PushNotice(
                        type: event.type, genericTitle: "Contacts changed", collapseID: "contacts",
                        contentState: contentState)
                }
                for device in recipient.devices {
                    targets += Self.backgroundTargets(device).map { (device.deviceId, $0, nil) }
                }
            case .notified(_, let notification, let ids, let deepLinkPath):
                // The backend's own words, under the same privacy rule as a message's.
                guard !recipient.connectedAnywhere else { return [] }
                notice = {
                    PushNotice(
                        type: event.type, title: notification.title, body: notification.body,
                        genericTitle: "New notification", showDetails: settings.showDetails,
                        timeSensitive: settings.timeSensitive && notification.interruption == .timeSensitive,
                        ids: ids, deepLinkPath: deepLinkPath, collapseID: notification.collapseId)
                }
                for device in recipient.devices {
                    targets += Self.alertTargets(device).map { (device.deviceId, $0, nil) }
                }
            }
        }
        return Self.jobs(targets, notice: notice, userId: recipient.userId, now: now).map(Action.enqueue)
    }

    /// Every device's approval targets; none at all when no device has somewhere to go.
    private func approvalRequestJobs(_ data: ApprovalData, for recipient: Recipient, now: Int64) -> [Action] {
        var targets: [(deviceId: String, target: PushTarget, fallback: PushTarget?)] = []
        for device in recipient.devices {
            targets += Self.approvalTargets(device, sessionId: data.sessionId, settings: recipient.settings).map {
                (device.deviceId, $0.0, $0.1)
            }
        }
        let notice = {
            Self.approvalNotice("approval_request", data: data, recipient: recipient, title: "Approval needed")
        }
        return Self.jobs(targets, notice: notice, userId: recipient.userId, now: now).map(Action.enqueue)
    }

    private static func jobs(
        _ targets: [(deviceId: String, target: PushTarget, fallback: PushTarget?)], notice: () -> PushNotice,
        userId: String, now: Int64
    ) -> [PushJobRecord] {
        guard !targets.isEmpty else { return [] }
        let notice = notice()
        return targets.map {
            PushJobRecord(
                id: 0, userId: userId, deviceId: $0.deviceId, target: $0.target, notice: notice,
                fallback: $0.fallback, nextAttemptAt: now, createdAt: now)
        }
    }

    private static func approvalNotice(_ type: String, data: ApprovalData, recipient: Recipient, title: String)
        -> PushNotice
    {
        let settings = recipient.settings, request = type == "approval_request"
        return PushNotice(
            type: type, title: "\(title): \(data.toolName)", body: data.summary, genericTitle: title,
            showDetails: settings.showDetails, timeSensitive: settings.timeSensitive && request,
            ids: ["sessionId": data.sessionId, "requestId": data.requestId],
            deepLinkPath: "session/\(data.sessionId)/approval/\(data.requestId)", collapseID: data.requestId,
            expiresAt: request ? data.expiresAt : nil, badge: recipient.pendingApprovals, contentState: data.jsonValue,
            titleArguments: [data.toolName])
    }

    /// Live Activity first (its update token, else push-to-start when enabled) with the APNs alert as its fallback in
    /// the same delivery, else the APNs alert; FCM and webhook alerts after it.
    private static func approvalTargets(_ device: Device, sessionId: String, settings: NotificationSettings) -> [(
        PushTarget, PushTarget?
    )] {
        let alerts = alertTargets(device)
        let apnsAlert = alerts.first { $0.provider == Provider.apns.rawValue }
        var targets: [(PushTarget, PushTarget?)] = alerts.filter { $0.provider != Provider.apns.rawValue }.map {
            ($0, nil)
        }
        if settings.liveActivities, let la = device.token(.liveActivityUpdate, session: sessionId) {
            targets.insert((target(.apns, .liveActivityUpdate, la), apnsAlert), at: 0)
        } else if settings.liveActivities, let start = device.token(.liveActivityStart) {
            targets.insert((target(.apns, .liveActivityStart, start), apnsAlert), at: 0)
        } else if let apnsAlert {
            targets.insert((apnsAlert, nil), at: 0)
        }
        return targets
    }

    /// An alert per provider the device has a token for: APNs, FCM, webhook.
    private static func alertTargets(_ device: Device) -> [PushTarget] {
        [(TokenKind.apns, Provider.apns), (.fcm, .fcm), (.webhook, .webhook)].compactMap { kind, provider in
            device.token(kind).map { target(provider, .alert, $0) }
        }
    }

    private static func backgroundTargets(_ device: Device) -> [PushTarget] {
        alertTargets(device).map {
            var target = $0
            target.kind = Delivery.background.rawValue
            return target
        }
    }

    /// A target for `token`; only APNs targets name an environment.
    private static func target(_ provider: Provider, _ delivery: Delivery, _ token: PushTokenRecord) -> PushTarget {
        PushTarget(
            provider: provider.rawValue, token: token.token, kind: delivery.rawValue,
            environment: provider == .apns ? token.environment : nil)
    }

    // MARK: Presence pushes

    /// One watcher's coalesced presence pushes: contacts that changed since the last push, and when it went out.
    struct PresencePushes: Equatable {
        var changed: Set<String> = []
        var timerArmed = false
        var sentAt: Int64?
    }

    enum PresenceInput: Equatable {
        /// A contact's presence changed.
        case contactChanged(String)
        /// The coalescing timer fired.
        case timerFired
    }

    enum PresenceAction: Equatable {
        case armTimer(at: Int64)
        case enqueue(PushJobRecord)
    }

    /// Background pushes to a watcher with no device connected anywhere who opted in (`presenceUpdates`), coalesced:
    /// at most one per `intervalMs`, listing every contact that changed since the last. `contactChanged` reads only
    /// the watcher's connections and settings (its devices may be left out); `timerFired` reads its devices too.
    static func presence(
        _ state: PresencePushes, _ input: PresenceInput, watcher: Recipient, intervalMs: Int64,
        now: Int64
    ) -> (PresencePushes, [PresenceAction]) {
        var next = state
        switch input {
        case .contactChanged(let userId):
            guard !watcher.connectedAnywhere, watcher.settings.presenceUpdates, watcher.settings.backgroundNotifications
            else {
                return (state, [])
            }
            next.changed.insert(userId)
            guard !state.timerArmed else { return (next, []) }  // the push already scheduled carries this too
            next.timerArmed = true
            return (next, [.armTimer(at: max(now, (state.sentAt ?? Int64.min / 2) + intervalMs))])
        case .timerFired:
            next.timerArmed = false
            next.changed = []
            guard !state.changed.isEmpty, !watcher.connectedAnywhere else { return (next, []) }
            next.sentAt = now
            let notice = {
                PushNotice(
                    type: "presence", genericTitle: "Contacts' status changed",
                    ids: ["userIds": state.changed.sorted().joined(separator: ",")], collapseID: "presence")
            }
            let targets = watcher.devices.flatMap { device in
                backgroundTargets(device).map { (device.deviceId, $0, PushTarget?.none) }
            }
            return (next, jobs(targets, notice: notice, userId: watcher.userId, now: now).map(PresenceAction.enqueue))
        }
    }
}
