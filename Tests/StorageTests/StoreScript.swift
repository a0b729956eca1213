import Gateway

/// What a store answered to one query of the script.
enum Observation: Equatable {
    case snapshot(GatewaySnapshot)
    case events([StoredEvent])
    case oldest(Int64?)
    case messages([MessageRecord])
    case unread([String: Int])
    case idempotent(IdempotencyRecord?)
    case pruned(Int)
    case pushJobs([PushJobRecord])
    case pushJob(PushJobRecord?)
}

/// The scripted operations every store must answer identically: writes in three phases (applied in batches cut
/// by the caller) with queries after each, covering every port method.
enum StoreScript {
    /// Phase 1: users, devices, contacts, sessions, approvals, events, messages, read marks, idempotency.
    static var setup: [StoreWrite] {
        var writes: [StoreWrite] = [
            .upsertUser(UserRecord(id: "u1", hexCode: "0000000a", displayName: "Ada", createdAt: 10)),
            .upsertUser(UserRecord(id: "u2", hexCode: "0000000b", createdAt: 11)),
            .upsertUser(UserRecord(id: "u3", hexCode: "0000000c", displayName: "Zoë \u{1F600}", createdAt: 12)),
            // Renaming keeps the user's place in the list.
            .upsertUser(UserRecord(id: "u2", hexCode: "0000000b", displayName: "Bob", createdAt: 11)),
            .upsertDevice(DeviceRecord(id: "d1", userId: "u1", clientType: "ios", deviceToken: "tok-1", createdAt: 20)),
            .upsertDevice(DeviceRecord(id: "d2", userId: "u1", clientType: "web", createdAt: 21)),
            .upsertDevice(DeviceRecord(id: "d3", userId: "u2", clientType: "desktop", deviceToken: "", createdAt: 22, ackedOffset: 4)),
            .upsertDevice(DeviceRecord(id: "d1", userId: "u2", clientType: "android", createdAt: 23)),  // same id, another user
            .setDeviceAck(userId: "u1", deviceId: "d1", offset: 5),
            .setDeviceAck(userId: "u1", deviceId: "d1", offset: 3),       // never lowers
            .setDeviceAck(userId: "u1", deviceId: "nope", offset: 9),     // unknown device: ignored
            .setDeviceAck(userId: "u3", deviceId: "d1", offset: 9),       // another user's id: ignored
            .upsertContact(ContactRecord(userId: "u1", contactId: "u2", createdAt: 30)),
            .upsertContact(ContactRecord(userId: "u2", contactId: "u1", createdAt: 30)),
            .upsertContact(ContactRecord(userId: "u1", contactId: "u3", createdAt: 31)),
            .upsertContact(ContactRecord(userId: "u1", contactId: "u2", createdAt: 30, active: false)),
            .upsertSession(SessionRecord(id: "s1", userId: "u1", title: "build", createdAt: 40)),
            .upsertSession(SessionRecord(id: "s2", userId: "u1", createdAt: 41)),
            .upsertSession(SessionRecord(id: "s3", userId: "u2", title: "", createdAt: 42)),
            .upsertSession(SessionRecord(id: "s1", userId: "u1", title: "build",
                                         activeClient: ActiveClient(clientType: "ios", deviceId: "d1", lastActivityAt: 45),
                                         createdAt: 40)),
            .upsertSession(SessionRecord(id: "s2", userId: "u1", state: .ended, createdAt: 41, endedAt: 46)),
            .upsertApproval(ApprovalRecord(id: "apr_1", userId: "u1", sessionId: "s1", toolName: "bash", summary: "ls",
                                           details: Array("{\"cmd\":\"ls\"}".utf8), createdAt: 50, expiresAt: 90)),
            .upsertApproval(ApprovalRecord(id: "apr_2", userId: "u1", sessionId: "s1", toolName: "edit", summary: "",
                                           details: [], createdAt: 51, expiresAt: 91)),
            .upsertApproval(ApprovalRecord(id: "apr_3", userId: "u2", sessionId: "s3", toolName: "rm", summary: "rm -rf",
                                           createdAt: 52, expiresAt: 92)),
            .upsertApproval(ApprovalRecord(id: "apr_1", userId: "u1", sessionId: "s1", toolName: "bash", summary: "ls",
                                           state: .approved, decidedByDeviceId: "d1", decidedByClientType: "ios",
                                           createdAt: 50, expiresAt: 90, resolvedAt: 55)),
            .putIdempotency(scope: "approval", key: "k1", response: Array("first".utf8), requestHash: "h1", createdAt: 60),
            .putIdempotency(scope: "approval", key: "k2", response: [], createdAt: 61),
            .putIdempotency(scope: "message", key: "k1", response: [0, 255, 0], createdAt: 62),
            .putIdempotency(scope: "approval", key: "k1", response: Array("second".utf8), createdAt: 63),
        ]
        for offset in Int64(1)...30 {
            // Creation times rise with the offset, except a few out-of-order ones to exercise pruning by position.
            let createdAt = offset == 12 ? 5_000 : 1_000 + offset
            let payload: [UInt8] = offset % 7 == 0 ? [] : Array("{\"n\":\(offset)}\u{0}é".utf8)
            writes.append(event("u1", offset, createdAt: createdAt, payload: payload))
        }
        for offset in Int64(1)...5 { writes.append(event("u2", offset, createdAt: 2_000 + offset)) }
        let people = ["u1", "u2", "u3"]
        for id in Int64(1)...40 {
            let from = people[Int(id) % 3], to = people[Int(id * 7 / 3) % 3]
            writes.append(.insertMessage(MessageRecord(id: id, from: from, to: to, text: "m\(id) ü\u{0}", sentAt: 100 + id)))
        }
        writes += [
            .setReadMark(userId: "u2", peerId: "u1", messageId: 20),
            .setReadMark(userId: "u2", peerId: "u1", messageId: 10),   // never lowers
            .setReadMark(userId: "u1", peerId: "u3", messageId: 39),
            .setReadMark(userId: "u3", peerId: "u3", messageId: 1),
        ]
        writes += pushWrites
        writes += relationshipSetup
        return writes
    }

    /// The push outbox, tokens and settings.
    static var pushWrites: [StoreWrite] {
        let alert = PushTarget(provider: "apns", token: "aa", kind: "alert", environment: "sandbox")
        let la = PushTarget(provider: "apns", token: "la", kind: "liveActivityUpdate")
        let notice = PushNotice(type: "approval_request", title: "Approval needed: bash", body: "ls é", genericTitle: "Approval needed",
                                showDetails: true, timeSensitive: true, ids: ["requestId": "apr_1", "sessionId": "s1"],
                                deepLinkPath: "session/s1/approval/apr_1", collapseID: "apr_1", expiresAt: 90, badge: 2,
                                contentState: .object(["n": .int(1)]))
        var settings = NotificationSettings()
        settings.showDetails = true
        return [
            .enqueuePush(PushJobRecord(id: 1, userId: "u1", deviceId: "d1", target: la, notice: notice, fallback: alert, nextAttemptAt: 70, createdAt: 70)),
            .enqueuePush(PushJobRecord(id: 2, userId: "u1", deviceId: "d1", target: alert, notice: PushNotice(type: "message", genericTitle: "New message"),
                                       nextAttemptAt: 60, createdAt: 60)),
            .enqueuePush(PushJobRecord(id: 3, userId: "u2", deviceId: "d3", target: PushTarget(provider: "fcm", token: "f", kind: "background"),
                                       notice: notice, nextAttemptAt: 80, createdAt: 80)),
            .updatePushJob(id: 2, state: "pending", attempts: 1, nextAttemptAt: 95, lastError: "503 Service Unavailable", claimant: nil),
            .updatePushJob(id: 3, state: "sent", attempts: 1, nextAttemptAt: 80, lastError: nil, claimant: nil),
            .upsertPushToken(PushTokenRecord(userId: "u1", deviceId: "d1", kind: "apns", token: "aa", environment: "sandbox", updatedAt: 1)),
            .upsertPushToken(PushTokenRecord(userId: "u1", deviceId: "d1", kind: "liveActivityUpdate", token: "la", sessionId: "s1", updatedAt: 2)),
            .upsertPushToken(PushTokenRecord(userId: "u1", deviceId: "d1", kind: "liveActivityUpdate", token: "la2", sessionId: "s2", updatedAt: 3)),
            .upsertPushToken(PushTokenRecord(userId: "u1", deviceId: "d1", kind: "apns", token: "aa-new", environment: "production", updatedAt: 4)),
            .upsertPushToken(PushTokenRecord(userId: "u2", deviceId: "d1", kind: "apns", token: "other-user", updatedAt: 5)),
            .deletePushToken(userId: "u1", deviceId: "d1", kind: "liveActivityUpdate", sessionId: "s2"),
            .deletePushToken(userId: "u3", deviceId: "d1", kind: "apns", sessionId: ""),   // no such device: nothing
            .setNotificationSettings(userId: "u1", settings: settings),
        ]
    }

    /// Phase 3 (after pruning): a reactivated contact, an ended approval, more events and messages.
    static var later: [StoreWrite] {
        [
            .upsertContact(ContactRecord(userId: "u1", contactId: "u2", createdAt: 30, active: true)),
            .upsertApproval(ApprovalRecord(id: "apr_2", userId: "u1", sessionId: "s1", toolName: "edit", summary: "",
                                           state: .timedOut, createdAt: 51, expiresAt: 91, resolvedAt: 91)),
            .upsertApproval(ApprovalRecord(id: "apr_10", userId: "u3", sessionId: "s9", toolName: "t", summary: "s",
                                           createdAt: 53, expiresAt: 93)),
            event("u1", 31, createdAt: 9_000),
            event("u3", 1, createdAt: 9_001, payload: []),
            .insertMessage(MessageRecord(id: 41, from: "u3", to: "u2", text: "", sentAt: 200)),
            .upsertDevice(DeviceRecord(id: "d1", userId: "u1", clientType: "ios", deviceToken: "tok-1b", createdAt: 20, ackedOffset: 1)),
        ] + relationshipLater
    }

    /// Relationship writes of phase 1: every kind, with updates, deletes and re-inserts in between.
    static var relationshipSetup: [StoreWrite] {
        [
            .upsertFriendRequest(FriendRequestRecord(id: "fr1", fromUserId: "u1", toUserId: "u2", createdAt: 70)),
            .upsertFriendRequest(FriendRequestRecord(id: "fr2", fromUserId: "u2", toUserId: "u3", createdAt: 71)),
            .upsertFriendRequest(FriendRequestRecord(id: "fr1", fromUserId: "u1", toUserId: "u2", state: .accepted, createdAt: 70, resolvedAt: 72)),
            // Pending again for the same pair once the first was resolved.
            .upsertFriendRequest(FriendRequestRecord(id: "fr3", fromUserId: "u1", toUserId: "u2", createdAt: 73)),
            .upsertContactPause(ContactPauseRecord(userId: "u1", contactId: "u3", pausedAt: 74)),
            .upsertContactPause(ContactPauseRecord(userId: "u2", contactId: "u1", pausedAt: 75)),
            .upsertContactPause(ContactPauseRecord(userId: "u1", contactId: "u3", pausedAt: 76)),
            .deleteContactPause(userId: "u2", contactId: "u1"),
            .deleteContactPause(userId: "nobody", contactId: "u1"),
            .upsertConnectCode(ConnectCodeRecord(code: "123456", userId: "u1", createdAt: 80)),
            .upsertConnectCode(ConnectCodeRecord(code: "123456", userId: "u1", createdAt: 80, revokedAt: 81)),
            .upsertConnectCode(ConnectCodeRecord(code: "000042", userId: "u1", createdAt: 81, expiresAt: 999)),
            .upsertConnectCode(ConnectCodeRecord(code: "654321", userId: "u2", createdAt: 82)),
            .upsertGroup(GroupRecord(id: "g1", ownerId: "u1", name: "Family ü", kind: "family", maxMembers: 12, invitePolicy: "owner",
                                     roleLimits: ["parent": 2, "child": 10], createdAt: 90)),
            .upsertGroup(GroupRecord(id: "g2", ownerId: "u2", name: "", maxMembers: 1, createdAt: 91)),
            .upsertGroup(GroupRecord(id: "g2", ownerId: "u2", name: "photos", kind: "photos", maxMembers: 5, createdAt: 91)),
            .upsertGroupMember(GroupMemberRecord(groupId: "g1", userId: "u1", role: "owner", createdAt: 90)),
            .upsertGroupMember(GroupMemberRecord(groupId: "g1", userId: "u2", role: "parent", createdAt: 92)),
            .upsertGroupMember(GroupMemberRecord(groupId: "g2", userId: "u2", role: "owner", createdAt: 93)),
            // Leaving keeps the original join time.
            .upsertGroupMember(GroupMemberRecord(groupId: "g1", userId: "u2", role: "parent", active: false, createdAt: 95)),
            .upsertInvite(InviteRecord(code: "ABCD2345", groupId: "g1", inviterId: "u1", recipient: "+4915112345678", createdAt: 100, expiresAt: 200)),
            .upsertInvite(InviteRecord(code: "WXYZ6789", groupId: "g1", inviterId: "u1", role: "child", createdAt: 101, expiresAt: 201)),
            .upsertInvite(InviteRecord(code: "ABCD2345", groupId: "g1", inviterId: "u1", recipient: "+4915112345678", state: .used,
                                       createdAt: 100, expiresAt: 200, usedBy: "u3", usedAt: 150)),
            .upsertUserPhone(UserPhoneRecord(userId: "u1", phone: "+4915112345678", verifiedAt: 110)),
            .upsertUserPhone(UserPhoneRecord(userId: "u2", phone: "+442079460001", verifiedAt: 111)),
            .upsertUserPhone(UserPhoneRecord(userId: "u1", phone: "+4915100000000", verifiedAt: 112)),
            // A number moving to another user: the old owner's row goes first.
            .deleteUserPhone(userId: "u2"),
            .upsertUserPhone(UserPhoneRecord(userId: "u3", phone: "+442079460001", verifiedAt: 113)),
        ]
    }

    /// Relationship writes of phase 3: reactivation, resolution, deletes after a reopen.
    static var relationshipLater: [StoreWrite] {
        [
            .upsertGroupMember(GroupMemberRecord(groupId: "g1", userId: "u2", role: "child", active: true, createdAt: 300)),
            .deleteContactPause(userId: "u1", contactId: "u3"),
            .upsertUserPhone(UserPhoneRecord(userId: "u2", phone: "+442079460009", verifiedAt: 301)),
            .upsertFriendRequest(FriendRequestRecord(id: "fr3", fromUserId: "u1", toUserId: "u2", state: .rejected, createdAt: 73, resolvedAt: 302)),
            .upsertConnectCode(ConnectCodeRecord(code: "000042", userId: "u1", createdAt: 81, expiresAt: 999, revokedAt: 303)),
        ]
    }

    /// Every read of the port, with arguments around the edges (limits of 0, ids beyond the ends, unknown users).
    static func observe(_ store: any GatewayStore) throws -> [Observation] {
        var seen: [Observation] = [.snapshot(try store.loadSnapshot())]
        for user in ["u1", "u2", "u3", "nobody"] {
            for (after, limit) in [(0, 10), (0, 1_000), (11, 3), (25, 100), (30, 5), (-5, 2), (0, 0)] as [(Int64, Int)] {
                seen.append(.events(try store.events(userId: user, after: after, limit: limit)))
            }
            seen.append(.oldest(try store.oldestOffset(userId: user)))
            seen.append(.unread(try store.unreadCounts(userId: user)))
        }
        for (a, b) in [("u1", "u2"), ("u2", "u1"), ("u1", "u3"), ("u3", "u3"), ("u2", "nobody")] {
            for (before, limit) in [(nil, 5), (nil, 1_000), (20, 4), (2, 10), (41, 0)] as [(Int64?, Int)] {
                seen.append(.messages(try store.messages(between: a, and: b, before: before, limit: limit)))
            }
        }
        for (scope, key) in [("approval", "k1"), ("approval", "k2"), ("message", "k1"), ("message", "k2")] {
            seen.append(.idempotent(try store.idempotentResponse(scope: scope, key: key)))
        }
        for (now, limit) in [(0, 10), (75, 10), (100, 10), (100, 1)] as [(Int64, Int)] {
            seen.append(.pushJobs(try store.duePushJobs(now: now, limit: limit)))
        }
        for id in [Int64(1), 2, 3, 99] { seen.append(.pushJob(try store.pushJob(id: id))) }
        return seen
    }

    /// The whole script: setup, observe, prune twice (observing the counts), observe, later writes, observe.
    static func run(_ store: any GatewayStore, split: ([StoreWrite]) -> [[StoreWrite]]) throws -> [Observation] {
        let errors = commit(store, split(setup))
        guard errors.allSatisfy({ $0 == nil }) else { throw ScriptFailure(errors: errors) }
        var seen = try observe(store)
        seen.append(.pruned(try store.pruneEvents(before: 1_020, keepLatest: 15)))
        seen += try observe(store)
        seen.append(.pruned(try store.pruneEvents(before: 3_000, keepLatest: 0)))
        seen += try observe(store)
        let laterErrors = commit(store, split(later))
        guard laterErrors.allSatisfy({ $0 == nil }) else { throw ScriptFailure(errors: laterErrors) }
        seen += try observe(store)
        return seen
    }
}

struct ScriptFailure: Error {
    let errors: [String?]
}
