@testable import Gateway
import GatewayProtocol
import Testing

/// `PushPolicy` alone: each routing rule of docs/PUSH.md as inputs and the jobs decided, no hub, clock or store.
@Suite struct PushPolicyMachineTests {
    let policy = PushPolicy()
    let now: Int64 = 10_000
    let request = ApprovalData(
        requestId: "apr_1", sessionId: "s1", toolName: "bash", summary: "rm -rf build", details: nil,
        state: "pending", createdAt: 9_000, expiresAt: 69_000, decidedBy: nil, resolvedAt: nil)

    func token(
        _ device: String, _ kind: PushPolicy.TokenKind, _ token: String, session: String = "",
        environment: String? = nil
    ) -> PushTokenRecord {
        PushTokenRecord(
            userId: "u1", deviceId: device, kind: kind.rawValue, token: token, environment: environment,
            sessionId: session, updatedAt: 1)
    }

    /// A phone with an APNs alert token (sandbox) and a tablet with an FCM token; nothing connected.
    func recipient(
        _ phoneTokens: [PushTokenRecord]? = nil, connected: Set<String> = [], elsewhere: Int = 0,
        settings: NotificationSettings = NotificationSettings(), pending: Int = 1
    ) -> PushPolicy.Recipient {
        PushPolicy.Recipient(
            userId: "u1",
            devices: [
                PushPolicy.Device(
                    deviceId: "phone", tokens: phoneTokens ?? [token("phone", .apns, "a1", environment: "sandbox")]),
                PushPolicy.Device(deviceId: "tablet", tokens: [token("tablet", .fcm, "f1")])
            ],
            connectedHere: connected, connectedElsewhere: elsewhere, settings: settings, pendingApprovals: pending)
    }

    func jobs(_ actions: [PushPolicy.Action]) -> [PushJobRecord] {
        actions.compactMap { if case .enqueue(let job) = $0 { job } else { nil } }
    }

    func settings(_ change: (inout NotificationSettings) -> Void) -> NotificationSettings {
        var settings = NotificationSettings()
        change(&settings)
        return settings
    }

    // MARK: approval_request

    @Test func anApprovalRequestToAUserWithNoConnectedDeviceAlertsEveryDevice() throws {
        let out = jobs(policy.decide(.event(.approvalRequest(request)), for: recipient(pending: 3), now: now))
        #expect(out.map(\.deviceId) == ["phone", "tablet"])
        #expect(
            out.map(\.target) == [
                PushTarget(provider: "apns", token: "a1", kind: "alert", environment: "sandbox"),
                PushTarget(provider: "fcm", token: "f1", kind: "alert")
            ])
        let notice = try #require(out.first?.notice)
        #expect(notice.type == "approval_request" && notice.genericTitle == "Approval needed")
        #expect(notice.collapseID == "apr_1" && notice.expiresAt == 69_000 && notice.badge == 3 && notice.timeSensitive)
        #expect(notice.deepLinkPath == "session/s1/approval/apr_1")
        #expect(!notice.showDetails)  // the lock screen shows only the generic title by default
        #expect(out.allSatisfy { $0.nextAttemptAt == now && $0.createdAt == now && $0.userId == "u1" })
    }

    @Test func aRequestToAUserWithASocketAnywhereIsLeftToTheAcknowledgementDeadline() {
        // DeliveryMachine times it; what it pushes comes back as a recipient without sockets (the case above).
        #expect(
            policy.decide(.event(.approvalRequest(request)), for: recipient(connected: ["laptop"]), now: now).isEmpty)
        #expect(policy.decide(.event(.approvalRequest(request)), for: recipient(elsewhere: 1), now: now).isEmpty)
    }

    @Test func liveActivityTokensComeFirstWithTheAlertAsFallback() throws {
        let phone = [
            token("phone", .apns, "a1"), token("phone", .liveActivityUpdate, "la", session: "s1"),
            token("phone", .liveActivityStart, "start")
        ]
        let out = jobs(policy.decide(.event(.approvalRequest(request)), for: recipient(phone), now: now))
        #expect(out[0].target.kind == "liveActivityUpdate" && out[0].target.token == "la")
        #expect(out[0].fallback == PushTarget(provider: "apns", token: "a1", kind: "alert"))
        // Another session's update token does not count: push-to-start instead.
        let other = [
            token("phone", .apns, "a1"), token("phone", .liveActivityUpdate, "la", session: "s2"),
            token("phone", .liveActivityStart, "start")
        ]
        let started = jobs(policy.decide(.event(.approvalRequest(request)), for: recipient(other), now: now))
        #expect(
            started[0].target.kind == "liveActivityStart" && started[0].target.token == "start"
                && started[0].fallback?.token == "a1")
        // Live Activities off: the alert alone.
        let off = jobs(
            policy.decide(
                .event(.approvalRequest(request)),
                for: recipient(phone, settings: settings { $0.liveActivities = false }), now: now))
        #expect(off[0].target.kind == "alert" && off[0].fallback == nil)
    }

    @Test func noTokensMeansNoJobs() {
        let none = PushPolicy.Recipient(userId: "u1", devices: [], connectedHere: [], settings: NotificationSettings())
        #expect(policy.decide(.event(.approvalRequest(request)), for: none, now: now).isEmpty)
        #expect(policy.decide(.event(.contactsChanged(.contactAdded, contentState: nil)), for: none, now: now).isEmpty)
    }

    @Test func detailsAndTimeSensitivityFollowTheSettings() throws {
        let chosen = settings {
            $0.showDetails = true; $0.timeSensitive = false
        }
        let notice = try #require(
            jobs(policy.decide(.event(.approvalRequest(request)), for: recipient(settings: chosen), now: now)).first?
                .notice)
        #expect(notice.showDetails && !notice.timeSensitive)
        #expect(notice.title == "Approval needed: bash" && notice.body == "rm -rf build")
    }

    // MARK: approval_resolved / approval_timeout

    @Test func aDecisionClearsTheRequestOnDevicesThatAreNotConnected() throws {
        let phone = [token("phone", .apns, "a1"), token("phone", .liveActivityUpdate, "la", session: "s1")]
        let out = jobs(
            policy.decide(
                .event(.approvalDecided(request, .resolved)), for: recipient(phone, connected: ["tablet"], pending: 0),
                now: now))
        #expect(out.map(\.target.kind) == ["liveActivityUpdate", "background"])
        #expect(out.allSatisfy { $0.deviceId == "phone" && $0.notice.collapseID == "apr_1" && $0.notice.badge == 0 })
        let notice = try #require(out.first?.notice)
        #expect(notice.genericTitle == "Approval answered" && notice.expiresAt == nil && !notice.timeSensitive)
        let timedOut = jobs(policy.decide(.event(.approvalDecided(request, .timeout)), for: recipient(), now: now))
        #expect(timedOut.map(\.notice.genericTitle) == ["Approval timed out", "Approval timed out"])
        #expect(timedOut.first?.notice.type == "approval_timeout")
        #expect(
            policy.decide(
                .event(.approvalDecided(request, .resolved)),
                for: recipient(settings: settings { $0.backgroundNotifications = false }), now: now
            ).isEmpty)
    }

    // MARK: session_handoff

    @Test func aHandoffGoesToThePreviousDeviceWhenItIsNotConnected() throws {
        let handoff = SessionHandoffData(
            sessionId: "s1", handedOffTo: DeviceRef(deviceId: "tablet", clientType: "android"),
            previous: DeviceRef(deviceId: "phone", clientType: "ios"))
        let phone = [token("phone", .apns, "a1"), token("phone", .liveActivityUpdate, "la", session: "s1")]
        let out = jobs(policy.decide(.event(.handoff(handoff)), for: recipient(phone, connected: ["tablet"]), now: now))
        #expect(out.map(\.target.kind) == ["background", "liveActivityEnd"])
        #expect(out.allSatisfy { $0.deviceId == "phone" })
        let notice = try #require(out.first?.notice)
        #expect(notice.collapseID == "handoff-s1" && notice.ids == ["sessionId": "s1", "handedOffTo": "tablet"])
        #expect(notice.genericTitle == "Session moved to another device")
        #expect(policy.decide(.event(.handoff(handoff)), for: recipient(phone, connected: ["phone"]), now: now).isEmpty)
        // Background notifications off: the Live Activity still ends.
        let quiet = jobs(
            policy.decide(
                .event(.handoff(handoff)),
                for: recipient(phone, settings: settings { $0.backgroundNotifications = false }), now: now))
        #expect(quiet.map(\.target.kind) == ["liveActivityEnd"])
    }

    // MARK: messages

    @Test func aMessageToAnOfflineUserIsAnAlertWithTheSendersNameAndNoneWhileConnected() throws {
        let message = MessageData(
            messageId: 7, from: "bob", to: "u1", text: "the key is sk-live-123", sentAt: 9_000, fromDisplayName: "Bob")
        let out = jobs(policy.decide(.event(.message(message, senderName: "Bob")), for: recipient(), now: now))
        #expect(out.map(\.target.kind) == ["alert", "alert"])
        let notice = try #require(out.first?.notice)
        #expect(
            notice.title == "Bob" && notice.body == "the key is sk-live-123" && notice.genericTitle == "New message")
        #expect(!notice.showDetails)  // the text reaches the lock screen only with showDetails (and redacted)
        #expect(notice.ids == ["from": "bob", "messageId": "7"] && notice.deepLinkPath == "chat/bob")
        #expect(
            policy.decide(.event(.message(message, senderName: "Bob")), for: recipient(connected: ["tablet"]), now: now)
                .isEmpty)
        // A device connected to another node got it over its socket there: no push either.
        #expect(
            policy.decide(.event(.message(message, senderName: "Bob")), for: recipient(elsewhere: 1), now: now).isEmpty)
        // The sender's own copy is never pushed.
        let own = MessageData(messageId: 8, from: "u1", to: "bob", text: "hi", sentAt: 9_000, fromDisplayName: nil)
        #expect(policy.decide(.event(.message(own, senderName: "u1")), for: recipient(), now: now).isEmpty)
    }

    @Test func aGroupMessageIsAnAlertLinkingTheGroup() throws {
        let message = GroupMessageData(
            groupId: "g1", from: UserRef(userId: "bob", hexCode: "B0B", displayName: nil), text: "hello",
            sentAt: 9_000, clientMessageId: nil)
        let notice = try #require(
            jobs(policy.decide(.event(.groupMessage(message, senderName: "B0B")), for: recipient(), now: now)).first?
                .notice)
        #expect(
            notice.title == "B0B" && notice.deepLinkPath == "group/g1" && notice.ids == ["groupId": "g1", "from": "bob"]
        )
        #expect(
            policy.decide(
                .event(.groupMessage(message, senderName: "B0B")), for: recipient(connected: ["phone"]), now: now
            ).isEmpty)
        #expect(
            policy.decide(.event(.groupMessage(message, senderName: "B0B")), for: recipient(elsewhere: 2), now: now)
                .isEmpty)
    }

    // MARK: contacts

    @Test func contactChangesAreBackgroundPushesOnlyWhenOptedIn() {
        let event = PushPolicy.Input.event(.contactsChanged(.friendRequest, contentState: nil))
        #expect(policy.decide(event, for: recipient(), now: now).isEmpty)  // off by default
        let optedIn = settings { $0.contactUpdates = true }
        let out = jobs(policy.decide(event, for: recipient(settings: optedIn), now: now))
        #expect(out.map(\.target.kind) == ["background", "background"])
        #expect(out.allSatisfy { $0.notice.collapseID == "contacts" && $0.notice.type == "friend_request" })
        #expect(policy.decide(event, for: recipient(connected: ["phone"], settings: optedIn), now: now).isEmpty)
        #expect(policy.decide(event, for: recipient(elsewhere: 1, settings: optedIn), now: now).isEmpty)
        #expect(
            policy.decide(
                event,
                for: recipient(
                    settings: settings {
                        $0.contactUpdates = true; $0.backgroundNotifications = false
                    }),
                now: now
            ).isEmpty)
    }

    // MARK: presence

    @Test func presencePushesAreCoalescedAndSkipWatchersConnectedAnywhere() {
        let optedIn = recipient(settings: settings { $0.presenceUpdates = true })
        let step = {
            (
                state: PushPolicy.PresencePushes, input: PushPolicy.PresenceInput, watcher: PushPolicy.Recipient,
                now: Int64
            ) in
            PushPolicy.presence(state, input, watcher: watcher, intervalMs: 60_000, now: now)
        }
        // Off by default; and a watcher with a device on another node hears it there.
        for watcher in [recipient(), recipient(elsewhere: 1, settings: optedIn.settings)] {
            let (unchanged, none) = step(PushPolicy.PresencePushes(), .contactChanged("ann"), watcher, now)
            #expect(unchanged == PushPolicy.PresencePushes() && none.isEmpty)
        }
        // The first change arms the timer at once; a second one rides along.
        var (state, actions) = step(.init(), .contactChanged("ann"), optedIn, now)
        #expect(actions == [.armTimer(at: now)])
        (state, actions) = step(state, .contactChanged("cid"), optedIn, now + 1)
        #expect(actions.isEmpty && state.changed == ["ann", "cid"])
        (state, actions) = step(state, .timerFired, optedIn, now + 2)
        #expect(state == .init(changed: [], timerArmed: false, sentAt: now + 2))
        #expect(actions.count == 2)
        if case .enqueue(let job) = actions.first {
            #expect(
                job.notice.ids == ["userIds": "ann,cid"] && job.notice.collapseID == "presence"
                    && job.target.kind == "background")
        } else {
            Issue.record("expected a push job, got \(actions)")
        }
        // The next change waits for the interval since the last push.
        (state, actions) = step(state, .contactChanged("ann"), optedIn, now + 10)
        #expect(actions == [.armTimer(at: now + 2 + 60_000)])
        // The watcher connected meanwhile: the timer sends nothing and forgets the changes.
        (state, actions) = step(
            state, .timerFired, recipient(connected: ["phone"], settings: optedIn.settings), now + 60_002)
        #expect(actions.isEmpty && state.changed.isEmpty && !state.timerArmed && state.sentAt == now + 2)
    }

    @Test func theCoordinatorsShortcutAgreesWithTheRules() {
        let request = self.request
        let kinds: [(PushableEvent, PushPolicy.Event)] = [
            (
                .message(MessageData(messageId: 1, from: "bob", to: "u1", text: "hi", sentAt: 1, fromDisplayName: nil)),
                .message(
                    MessageData(messageId: 1, from: "bob", to: "u1", text: "hi", sentAt: 1, fromDisplayName: nil),
                    senderName: "bob")
            ),
            (.contactRemoved(userId: "bob"), .contactsChanged(.contactRemoved, contentState: nil)),
            (.approval(request), .approvalRequest(request))
        ]
        let optedIn = settings { $0.contactUpdates = true }
        for (pushable, event) in kinds where !PushPolicy.mayPushWhileConnected(pushable) {
            #expect(
                policy.decide(.event(event), for: recipient(connected: ["phone"], settings: optedIn), now: now).isEmpty)
        }
        #expect(PushPolicy.mayPushWhileConnected(.approval(request)))
        #expect(!PushPolicy.mayPushWhileConnected(.contactRemoved(userId: "bob")))
    }

    // MARK: tokens

    @Test func aTargetNamesTheTokenKindItWasBuiltFrom() {
        #expect(
            PushPolicy.TokenKind(of: PushTarget(provider: "apns", token: "t", kind: "liveActivityEnd"))
                == .liveActivityUpdate)
        #expect(
            PushPolicy.TokenKind(of: PushTarget(provider: "apns", token: "t", kind: "liveActivityStart"))
                == .liveActivityStart)
        #expect(PushPolicy.TokenKind(of: PushTarget(provider: "apns", token: "t", kind: "alert")) == .apns)
        #expect(PushPolicy.TokenKind(of: PushTarget(provider: "webhook", token: "t", kind: "background")) == .webhook)
        #expect(PushPolicy.TokenKind(of: PushTarget(provider: "pager", token: "t", kind: "alert")) == nil)
    }
}
