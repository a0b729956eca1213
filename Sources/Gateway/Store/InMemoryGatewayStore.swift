import Synchronization

/// A `GatewayStore` in memory: commits immediately and synchronously. For domain tests, and as the reference
/// behaviour the SQLite adapter's tests compare against.
public final class InMemoryGatewayStore: GatewayStore {
    struct State {
        var snapshot = GatewaySnapshot()
        var events: [String: [StoredEvent]] = [:]
        var messages: [MessageRecord] = []
        var readMarks: [String: [String: Int64]] = [:]
        var idempotency: [String: IdempotencyRecord] = [:]
        var endedSessions: [String: SessionRecord] = [:]
        var resolvedApprovals: [String: ApprovalRecord] = [:]
        var batches = 0
        /// The highest id reserved so far per sequence (`reserveIds`).
        var reserved: [IdSequence: Int64] = [:]
        /// The highest message id and approval sequence (`apr_<n>`) stored, where reservations begin.
        var latestMessageId: Int64 = 0
        var latestApprovalSequence: Int64 = 0
        var pushJobs: [Int64: PushJobRecord] = [:]
        /// Claims on push jobs by job id: the claimant and the lease's end (kept after it ran out, until another
        /// claim or the outcome).
        var pushLeases: [Int64: (claimant: String, until: Int64)] = [:]
        /// The latest presence push claimed per user (`claimPresencePush`).
        var presencePushClaims: [String: Int64] = [:]
        /// Revoked devices and deleted users (`StoreWrite.revokeDevice`, `.deleteUser`), in the order written.
        var revocations: [RevocationRecord] = []

        mutating func apply(_ write: StoreWrite, receipt: inout StoreReceipt) throws {
            switch write {
            case .appendEvent(var event):
                // As the SQL stores: the store takes the log's next offset (no hole, nothing below a stored offset);
                // `latestOffsets` keeps the head of a log emptied by pruning.
                event.offset = (snapshot.latestOffsets[event.userId] ?? 0) + 1
                events[event.userId, default: []].append(event)
                snapshot.latestOffsets[event.userId] = event.offset
                receipt.offsets.append(event.offset)
            case .upsertUser(let user):
                replace(&snapshot.users, user) { $0.id == user.id }
            case .insertUser(let user):
                if let stored = snapshot.users.first(where: { $0.id == user.id }) {
                    receipt.users.append(stored)
                } else {
                    snapshot.users.append(user)
                    receipt.users.append(user)
                }
            case .upsertDevice(let device):
                replace(&snapshot.devices, device) { $0.key == device.key }
            case .upsertContact(var contact):
                // Reactivation keeps the original creation time, as the SQLite store does.
                if let old = snapshot.contacts.first(where: {
                    $0.userId == contact.userId && $0.contactId == contact.contactId
                }) {
                    contact.createdAt = old.createdAt
                }
                replace(&snapshot.contacts, contact) {
                    $0.userId == contact.userId && $0.contactId == contact.contactId
                }
            case .upsertSession(let session):
                snapshot.openSessions.removeAll { $0.id == session.id }
                if session.state == .ended {
                    endedSessions[session.id] = session
                } else {
                    snapshot.openSessions.append(session)
                }
            case .upsertApproval(let approval):
                snapshot.pendingApprovals.removeAll { $0.id == approval.id }
                if approval.id.hasPrefix("apr_"), let sequence = Int64(approval.id.dropFirst(4)) {
                    latestApprovalSequence = max(latestApprovalSequence, sequence)
                }
                if approval.state == .pending {
                    snapshot.pendingApprovals.append(approval)
                } else {
                    resolvedApprovals[approval.id] = approval
                }
            case .insertMessage(let message):
                if messages.contains(where: { $0.id == message.id }) {
                    throw StoreConflict.idTaken(.message, latest: latestMessageId)
                }
                messages.append(message)
                latestMessageId = max(latestMessageId, message.id)
            case .setReadMark(let userId, let peerId, let messageId):
                readMarks[userId, default: [:]][peerId] = ReadMarks.advance(readMarks[userId]?[peerId], to: messageId)
            case .setDeviceAck(let userId, let deviceId, let offset):
                if let i = snapshot.devices.firstIndex(where: {
                    $0.key == DeviceKey(userId: userId, deviceId: deviceId)
                }) {
                    snapshot.devices[i].ackedOffset = max(snapshot.devices[i].ackedOffset, offset)
                }
            case .putIdempotency(let scope, let key, let response, let requestHash, _):
                idempotency[scope + "\u{0}" + key] = IdempotencyRecord(response: response, requestHash: requestHash)
            case .claimIdempotency(let scope, let key, let response, let requestHash, _):
                if let current = idempotency[scope + "\u{0}" + key] {
                    throw StoreConflict.idempotencyKeyClaimed(scope: scope, key: key, current: current)
                }
                idempotency[scope + "\u{0}" + key] = IdempotencyRecord(response: response, requestHash: requestHash)
            case .claimPresencePush(let userId, let at, let intervalMs):
                if let current = presencePushClaims[userId], current > at - intervalMs {
                    throw StoreConflict.presencePushClaimed(userId: userId, at: current)
                }
                presencePushClaims[userId] = at
            case .claimIdempotentOffset:
                try apply(write.resolved(by: receipt), receipt: &receipt)
            case .decideApproval(let approval):
                guard let current = snapshot.pendingApprovals.first(where: { $0.id == approval.id }) else {
                    throw StoreConflict.approvalDecided(current: resolvedApprovals[approval.id])
                }
                var decided = current
                decided.state = approval.state
                decided.decidedByDeviceId = approval.decidedByDeviceId
                decided.decidedByClientType = approval.decidedByClientType
                decided.resolvedAt = approval.resolvedAt
                try apply(.upsertApproval(decided), receipt: &receipt)
            case .setSessionActiveClient(let sessionId, let expected, let new):
                guard let i = snapshot.openSessions.firstIndex(where: { $0.id == sessionId }),
                    snapshot.openSessions[i].state == .active, snapshot.openSessions[i].activeClient == expected
                else {
                    throw StoreConflict.sessionChanged(
                        current: endedSessions[sessionId] ?? snapshot.openSessions.first { $0.id == sessionId })
                }
                snapshot.openSessions[i].activeClient = new
            case .endSession(let sessionId, let endedAt):
                guard var session = snapshot.openSessions.first(where: { $0.id == sessionId }), session.state == .active
                else {
                    throw StoreConflict.sessionChanged(current: endedSessions[sessionId])
                }
                session.state = .ended
                session.endedAt = endedAt
                snapshot.openSessions.removeAll { $0.id == sessionId }
                endedSessions[sessionId] = session
            case .createApproval(let approval):
                if resolvedApprovals[approval.id] != nil
                    || snapshot.pendingApprovals.contains(where: { $0.id == approval.id })
                {
                    throw StoreConflict.idTaken(.approval, latest: latestApprovalSequence)
                }
                try apply(.upsertApproval(approval), receipt: &receipt)
            case .redeemInvite(let code, let usedBy, let usedAt):
                guard let i = snapshot.invites.firstIndex(where: { $0.code == code }),
                    snapshot.invites[i].state == .pending
                else {
                    throw StoreConflict.inviteRedeemed(current: snapshot.invites.first { $0.code == code })
                }
                snapshot.invites[i].state = .used
                snapshot.invites[i].usedBy = usedBy
                snapshot.invites[i].usedAt = usedAt
            case .enqueuePush(var job):
                job.id = (pushJobs.keys.max() ?? 0) + 1  // jobs are never removed, so ids are never reused
                pushJobs[job.id] = job
            case .updatePushJob(let id, let state, let attempts, let nextAttemptAt, let lastError, let claimant):
                guard pushLeases[id]?.claimant == claimant else { break }
                pushJobs[id]?.state = state
                pushJobs[id]?.attempts = attempts
                pushJobs[id]?.nextAttemptAt = nextAttemptAt
                pushJobs[id]?.lastError = lastError
                pushLeases[id] = nil
            case .upsertPushToken(let token):
                replace(&snapshot.pushTokens, token) {
                    $0.deviceKey == token.deviceKey && $0.kind == token.kind && $0.sessionId == token.sessionId
                }
            case .deletePushToken(let userId, let deviceId, let kind, let sessionId):
                snapshot.pushTokens.removeAll {
                    $0.deviceKey == DeviceKey(userId: userId, deviceId: deviceId) && $0.kind == kind
                        && $0.sessionId == sessionId
                }
            case .setNotificationSettings(let userId, let settings):
                snapshot.notificationSettings[userId] = settings
            case .upsertFriendRequest, .upsertContactPause, .deleteContactPause, .upsertBlock, .deleteBlock,
                .upsertConnectCode, .claimConnectCode, .upsertGroup,
                .upsertGroupMember, .upsertInvite, .upsertUserPhone, .deleteUserPhone, .createFriendRequest,
                .resolveFriendRequest,
                .joinGroup:
                try applyRelationship(write)
            case .deleteUser, .revokeDevice:
                applyLifecycle(write)
            }
        }

        func replace<T>(_ list: inout [T], _ value: T, where matches: (T) -> Bool) {
            if let i = list.firstIndex(where: matches) { list[i] = value } else { list.append(value) }
        }
    }

    private let state = Mutex(State())
    /// Batches committed so far (tests assert on them).
    public var committedBatches: Int { state.withLock { $0.batches } }

    public init() {}

    /// Applies each batch atomically, in order: when a write breaks a uniqueness rule (as SQLite's constraints would)
    /// or loses a decision, none of that batch is kept and its result is the error.
    public func commit(batches: [[StoreWrite]], completion: @escaping @Sendable ([Result<StoreReceipt, Error>]) -> Void)
    {
        completion(batches.map(apply))
    }

    private func apply(_ writes: [StoreWrite]) -> Result<StoreReceipt, Error> {
        state.withLock { state in
            var next = state
            var receipt = StoreReceipt()
            do {
                for write in writes { try next.apply(write, receipt: &receipt) }
            } catch {
                return .failure(error)
            }
            next.batches += 1
            state = next
            return .success(receipt)
        }
    }

    public func reserveIds(_ sequence: IdSequence, count: Int, above: Int64) throws -> [Int64] {
        state.withLock { state in
            let stored = sequence == .message ? state.latestMessageId : state.latestApprovalSequence
            let first = max(state.reserved[sequence] ?? 0, stored, above) + 1
            state.reserved[sequence] = first + Int64(count) - 1
            return Array(first..<first + Int64(count))
        }
    }

    public func loadSnapshot() throws -> GatewaySnapshot { state.withLock { $0.snapshot } }

    public func userEntry(id: String) throws -> UserEntry {
        state.withLock { state in
            let s = state.snapshot
            var entry = UserEntry(id: id, user: s.users.first { $0.id == id })
            entry.devices = s.devices.filter { $0.userId == id }
            entry.contacts = s.contacts.filter { $0.userId == id }
            entry.pushTokens = s.pushTokens.filter { $0.userId == id }
            entry.notificationSettings = s.notificationSettings[id]
            entry.latestOffset = s.latestOffsets[id] ?? 0
            entry.openSessions = s.openSessions.filter { $0.userId == id }.sorted {
                ($0.createdAt, $0.id) < ($1.createdAt, $1.id)
            }
            entry.relationships = s.relationships(of: id)
            entry.revocations = state.revocations.filter { $0.userId == id }
            return entry
        }
    }

    public func userId(hexCode: String) throws -> String? {
        state.withLock { $0.snapshot.users.first { $0.hexCode == hexCode }?.id }
    }

    public func device(tokenDigest: String) throws -> DeviceRecord? {
        state.withLock { $0.snapshot.devices.first { $0.deviceToken == tokenDigest } }
    }

    public func deviceOwners(deviceId: String) throws -> [String] {
        state.withLock { $0.snapshot.devices.filter { $0.id == deviceId }.map(\.userId) }
    }

    public func events(userId: String, after: Int64, limit: Int) throws -> [StoredEvent] {
        state.withLock { Array(($0.events[userId] ?? []).filter { $0.offset > after }.prefix(limit)) }
    }

    public func oldestOffset(userId: String) throws -> Int64? {
        state.withLock { $0.events[userId]?.first?.offset }
    }

    public func messages(between a: String, and b: String, before: Int64?, limit: Int) throws -> [MessageRecord] {
        state.withLock { state in
            Array(
                state.messages.reversed().filter { m in
                    ((m.from == a && m.to == b) || (m.from == b && m.to == a)) && m.id < (before ?? Int64.max)
                }.prefix(limit))
        }
    }

    public func unreadCounts(userId: String) throws -> [String: Int] {
        state.withLock { ReadMarks.unreadCounts(of: userId, in: $0.messages, marks: $0.readMarks[userId] ?? [:]) }
    }

    public func session(id: String) throws -> SessionRecord? {
        state.withLock { $0.endedSessions[id] ?? $0.snapshot.openSessions.first { $0.id == id } }
    }

    public func approval(id: String) throws -> ApprovalRecord? {
        state.withLock { $0.resolvedApprovals[id] ?? $0.snapshot.pendingApprovals.first { $0.id == id } }
    }

    public func pendingApprovals(dueBy: Int64, limit: Int) throws -> [ApprovalRecord] {
        state.withLock { state in
            Array(
                state.snapshot.pendingApprovals.filter { $0.expiresAt <= dueBy }
                    .sorted { ($0.expiresAt, $0.id) < ($1.expiresAt, $1.id) }.prefix(max(0, limit)))
        }
    }

    public func idempotentResponse(scope: String, key: String) throws -> IdempotencyRecord? {
        state.withLock { $0.idempotency[scope + "\u{0}" + key] }
    }

    public func duePushJobs(now: Int64, limit: Int) throws -> [PushJobRecord] {
        state.withLock { state in
            Array(
                state.pushJobs.values.filter { $0.state == "pending" && $0.nextAttemptAt <= now }
                    .sorted { ($0.nextAttemptAt, $0.id) < ($1.nextAttemptAt, $1.id) }.prefix(limit))
        }
    }

    public func pushJob(id: Int64) throws -> PushJobRecord? {
        state.withLock { $0.pushJobs[id] }
    }

    public func claimPushJobs(claimant: String, now: Int64, leaseMs: Int64, limit: Int) throws -> [PushJobRecord] {
        state.withLock { state in
            // A backend webhook job (no device) waits while an earlier one of its user is pending: they go out in order.
            let pending = state.pushJobs.values.filter { $0.state == "pending" }
            var firstBackendJob: [String: Int64] = [:]
            for job in pending where job.deviceId.isEmpty {
                firstBackendJob[job.userId] = min(job.id, firstBackendJob[job.userId] ?? .max)
            }
            let claimed = Array(
                pending
                    .filter { $0.nextAttemptAt <= now && (state.pushLeases[$0.id]?.until ?? .min) < now }
                    .filter { !$0.deviceId.isEmpty || firstBackendJob[$0.userId] == $0.id }
                    .sorted { ($0.nextAttemptAt, $0.id) < ($1.nextAttemptAt, $1.id) }.prefix(max(0, limit)))
            for job in claimed { state.pushLeases[job.id] = (claimant, now + leaseMs) }
            return claimed
        }
    }

    public func pruneEvents(before: Int64, keepLatest: Int) throws -> Int {
        state.withLock { state in
            var removed = 0
            for (user, log) in state.events {
                let protected = max(0, log.count - keepLatest)
                var kept: [StoredEvent] = []
                for (i, e) in log.enumerated() {
                    if i < protected && e.createdAt < before { removed += 1 } else { kept.append(e) }
                }
                state.events[user] = kept
            }
            return removed
        }
    }
}

/// The relationship look-ups not keyed by user, with the same answers as the SQL stores'.
extension InMemoryGatewayStore {
    public func connectCode(code: String) throws -> ConnectCodeRecord? {
        state.withLock { $0.snapshot.connectCodes.first { $0.code == code } }
    }

    public func invite(code: String) throws -> InviteRecord? {
        state.withLock { $0.snapshot.invites.first { $0.code == code } }
    }

    public func latestInvite(groupId: String, recipient: String) throws -> InviteRecord? {
        state.withLock {
            $0.snapshot.invites.filter { $0.groupId == groupId && $0.recipient == recipient }.max {
                $0.createdAt < $1.createdAt
            }
        }
    }

    public func groupMemberIds(groupId: String) throws -> [String] {
        state.withLock { $0.snapshot.groupMembers.filter { $0.groupId == groupId && $0.active }.map(\.userId) }
    }

    public func phoneOwners(phones: [String], hashes: [String]) throws -> PhoneOwners {
        state.withLock { state in
            var owners = PhoneOwners()
            for record in state.snapshot.userPhones {
                if phones.contains(record.phone) { owners.byPhone[record.phone] = record.userId }
                let hash = PhoneNumber.hash(e164: record.phone)
                if hashes.contains(hash) { owners.byHash[hash] = record.userId }
            }
            return owners
        }
    }
}
