import GatewayProtocol

/// One change to durable state. A batch of them is applied atomically.
///
/// Most writes are unconditional (upserts of state this node owns). The writes marked **decision** are
/// compare-and-set: they apply only if the stored row is still what this node saw, because another node sharing the
/// store may have decided first. A decision that loses fails its whole batch with a `StoreConflict` carrying the
/// store's current row (see "Decisions" below and docs/ARCHITECTURE.md, "The domain").
public enum StoreWrite: Sendable, Equatable {
    /// Appends to a user's log at the offset **the store** takes in the insert: the log's latest offset + 1 (the latest
    /// stored, or the head of a log pruning emptied); the event's own `offset` is ignored. The batch's receipt lists
    /// the offsets taken, in the order of its appends. So a log never has a hole, nothing is written below a committed
    /// offset, and two nodes appending to one log never collide (the second waits for the first's commit).
    case appendEvent(StoredEvent)
    case upsertUser(UserRecord)
    /// Creates the user only if no row with its id exists (`INSERT … ON CONFLICT DO NOTHING`); either way the batch's
    /// receipt carries the stored row in `users` — this one, or the one another node created first — so two nodes
    /// creating the same new user at once both end up with one hex code. (`upsertUser` overwrites.)
    case insertUser(UserRecord)
    case upsertDevice(DeviceRecord)
    case upsertContact(ContactRecord)
    case upsertSession(SessionRecord)
    case upsertApproval(ApprovalRecord)
    /// A message under an id the store reserved for this node (`reserveIds(.message…)`); an id already stored (a
    /// node or tool that drew it elsewhere) fails the batch with `StoreConflict.idTaken(.message, latest:)`, the
    /// highest message id stored.
    case insertMessage(MessageRecord)
    /// The reader has read every message from `peerId` up to `messageId`.
    case setReadMark(userId: String, peerId: String, messageId: Int64)
    case setDeviceAck(userId: String, deviceId: String, offset: Int64)
    /// Remembers the response to an idempotent request (`scope` names what the key creates and for whom, e.g.
    /// "approval:<user>␟<session>"; `key` from the client) and a digest of the request, so a reuse of the key for a
    /// different request can be refused.
    case putIdempotency(scope: String, key: String, response: [UInt8], requestHash: String = "", createdAt: Int64)
    /// A push to send, in the same transaction as the event it announces (the outbox). The store assigns the job's
    /// id (the record's `id` is ignored): ids are unique across nodes and never reused.
    case enqueuePush(PushJobRecord)
    /// The outcome of an attempt: `sent`, `dead`, or still `pending` with the next attempt's time. Ends the job's claim.
    /// Applies only while `claimant` holds the job's claim (nil: a job nobody claimed): a node whose lease ran out and
    /// whose job another node claimed since cannot overwrite that node's outcome — the write then changes nothing.
    case updatePushJob(
        id: Int64, state: String, attempts: Int, nextAttemptAt: Int64, lastError: String?, claimant: String?)
    case upsertPushToken(PushTokenRecord)
    /// Forgets a token (invalid, or replaced); `sessionId` "" for tokens that are not per session.
    case deletePushToken(userId: String, deviceId: String, kind: String, sessionId: String)
    case setNotificationSettings(userId: String, settings: NotificationSettings)
    // Relationships (RelationshipRecords.swift). Uniqueness rules there are enforced by both stores: a batch that
    // breaks one fails as a whole.
    case upsertFriendRequest(FriendRequestRecord)
    case upsertContactPause(ContactPauseRecord)
    case deleteContactPause(userId: String, contactId: String)
    /// Blocks are rows like pauses: one per blocking side, deleted on unblock.
    case upsertBlock(BlockRecord)
    case deleteBlock(userId: String, blockedId: String)
    case upsertConnectCode(ConnectCodeRecord)
    /// **Decision** (a newly drawn connect code): writes `code` when the code is unknown, already its user's, or
    /// another user's code retired (replaced or expired) at or before `retiredBy` — the end of its quarantine; that
    /// row then changes owner. Otherwise `StoreConflict.connectCodeTaken` with the stored row.
    case claimConnectCode(ConnectCodeRecord, retiredBy: Int64)
    case upsertGroup(GroupRecord)
    /// Reactivating a member keeps its original `createdAt`.
    case upsertGroupMember(GroupMemberRecord)
    case upsertInvite(InviteRecord)
    case upsertUserPhone(UserPhoneRecord)
    case deleteUserPhone(userId: String)

    // MARK: Account and device lifecycle (one atomic write each)

    /// Deletes the user and everything stored of theirs: the user row, devices, push tokens and push jobs,
    /// notification settings, sessions, approvals, the log (its head is kept: offsets never restart), contacts and read marks on both sides,
    /// the messages they sent or received, friend requests, pauses and blocks on both sides, phone, memberships,
    /// the groups they own (with those groups' memberships and invites), invites they sent, and their idempotency
    /// keys. Connect codes are kept revoked (their quarantine still holds, so no other user draws them at once). Their
    /// device revocations are replaced by one for the whole user at `at`, refusing every token issued before.
    /// Other users' logs are not touched: events delivered to them stay there.
    case deleteUser(userId: String, at: Int64)
    /// Revokes one device: deletes the device row, its push tokens and push jobs, and records the
    /// revocation at `at` (a token of the device issued before is refused from then on).
    case revokeDevice(userId: String, deviceId: String, at: Int64)

    // MARK: Decisions (added for several nodes sharing one store)

    /// **Decision** (first answer of an approval, and a timeout firing once): replaces the approval with `approval`
    /// (decided: `approved`, `denied` or `timedOut`) only if the stored one is still `pending` —
    /// `UPDATE approvals SET … WHERE id = $1 AND state = 'pending'`. Otherwise `StoreConflict.approvalDecided` with the
    /// stored row (nil when there is none).
    case decideApproval(ApprovalRecord)
    /// **Decision** (the active client of a session): sets the session's active client to `new` only if the session
    /// is `active` and its active client is still exactly `expected` (nil = none yet) —
    /// `UPDATE sessions SET active_… WHERE id = $1 AND state = 'active' AND active_… IS NOT DISTINCT FROM $expected`.
    /// Otherwise `StoreConflict.sessionChanged` with the stored session (nil when there is none).
    case setSessionActiveClient(sessionId: String, expected: ActiveClient?, new: ActiveClient)
    /// **Decision** (ending a session once): marks the session `ended` at `endedAt` only if it is still `active`,
    /// keeping its stored active client — `UPDATE sessions SET state = 'ended', ended_at = $2 WHERE id = $1 AND
    /// state = 'active'`. Otherwise `StoreConflict.sessionChanged` with the stored session (nil when there is none).
    case endSession(sessionId: String, endedAt: Int64)
    /// **Decision** (redeeming an invite once): marks the invite `used` by `usedBy` at `usedAt` only if it is still
    /// `pending` — `UPDATE invites SET state = 'used', used_by = $2, used_at = $3 WHERE code = $1 AND state = 'pending'`.
    /// Otherwise `StoreConflict.inviteRedeemed` with the stored invite (nil when there is none).
    case redeemInvite(code: String, usedBy: String, usedAt: Int64)
    /// An approval `apr_<n>` with `n` reserved from the store (`reserveIds(.approval…)`): inserts a new approval; an
    /// id already stored fails the batch with `StoreConflict.idTaken(.approval, latest:)`, the highest `<n>` stored — a plain `INSERT`,
    /// never an overwrite of another node's approval. (`upsertApproval` overwrites and is not a decision.)
    case createApproval(ApprovalRecord)
    /// **Decision** (an idempotency key): stores the response for (`scope`, `key`) only if the key is new —
    /// `INSERT … ON CONFLICT DO NOTHING`. Otherwise `StoreConflict.idempotencyKeyClaimed` with the stored response:
    /// whoever claimed the key first answers every retry. (`putIdempotency` overwrites and is not a decision.)
    case claimIdempotency(scope: String, key: String, response: [UInt8], requestHash: String, createdAt: Int64)
    /// **Decision** (which node sends a background presence push to `userId`): records `at` as the user's latest
    /// presence push only if none is stored or the stored one is at least `intervalMs` older —
    /// `INSERT … ON CONFLICT (user_id) DO UPDATE SET sent_at = $at WHERE sent_at <= $at - $interval`. Otherwise
    /// `StoreConflict.presencePushClaimed` with the stored time: another node sent that push (the batch, holding the
    /// push jobs, is not applied).
    case claimPresencePush(userId: String, at: Int64, intervalMs: Int64)
    /// **Decision** (an idempotency key whose answer is an offset the store takes): `claimIdempotency` with the
    /// response `{"offset":N}`, N the offset the batch's latest `appendEvent` before it was given (an idempotent
    /// publish answers with its event's offset). Stores apply it as `resolved(by:)` says.
    case claimIdempotentOffset(scope: String, key: String, requestHash: String, createdAt: Int64)
    /// **Decision** (a new friend request): inserts the `pending` request only if no request between the two users is
    /// pending, in either direction. Otherwise `StoreConflict.friendRequestPending` with the pending one: another node
    /// stored the same request, or the reverse one, first. (`upsertFriendRequest` overwrites and is not a decision.)
    case createFriendRequest(FriendRequestRecord)
    /// **Decision** (answering a friend request once: accepted, rejected or cancelled): replaces the request with
    /// `request` only if the stored one is still `pending` — `UPDATE friend_requests SET state, resolved_at WHERE id = $1
    /// AND state = 'pending'`. Otherwise `StoreConflict.friendRequestResolved` with the stored row (nil when there is none).
    case resolveFriendRequest(FriendRequestRecord)
    /// **Decision** (a member joining a group within its limits): makes the membership active (reactivating a former
    /// member keeps its `createdAt`) only if the group exists, the user is not an active member and one more active
    /// member with the role fits the group's `maxMembers` and role limit — checked in the transaction with the group's
    /// row locked (`GroupRecord.capacityRefusal`). Otherwise `StoreConflict.groupJoinRefused` with the stored group and
    /// its membership rows. (`upsertGroupMember` overwrites and is not a decision.)
    case joinGroup(GroupMemberRecord)
}

extension StoreWrite {
    /// The write as a store applies it, given the receipt of the batch so far: `claimIdempotentOffset` becomes the
    /// `claimIdempotency` it stands for; any other write is itself.
    public func resolved(by receipt: StoreReceipt) -> StoreWrite {
        guard case .claimIdempotentOffset(let scope, let key, let requestHash, let createdAt) = self else {
            return self
        }
        return .claimIdempotency(
            scope: scope, key: key, response: ServerFrames.encode(PublishResult(offset: receipt.offsets.last ?? 0)),
            requestHash: requestHash, createdAt: createdAt)
    }
}

/// What the store decided while committing one batch.
public struct StoreReceipt: Sendable, Equatable {
    /// The offset each `appendEvent` of the batch was given, in the batch's order.
    public var offsets: [Int64]
    /// The stored row of each `insertUser` of the batch, in order (another node's, when it created the user first).
    public var users: [UserRecord]

    public init(offsets: [Int64] = [], users: [UserRecord] = []) { self.offsets = offsets; self.users = users }
}

/// Ids the store hands out (`GatewayStore.reserveIds`) for the node to put in what it creates.
public enum IdSequence: Sendable, Hashable {
    /// `apr_<n>`.
    case approval
    /// `MessageRecord.id`.
    case message
}

/// Why a batch with a **decision** was not applied: another writer decided first. Carries the store's current row so
/// the domain can act on the store's answer (and correct its memory) without another read. The batch is rolled back
/// as a whole; other batches of the same `write(batches:)` call are not affected.
///
/// `upsertConnectCode` of a code that belongs to another user is a decision too (a connect-code claim: two nodes
/// may draw the same random code) and fails with `connectCodeTaken`, as does `claimConnectCode` of one still live or
/// in quarantine; so is `upsertInvite` of a code another invite
/// holds (`inviteCodeTaken`).
public enum StoreConflict: Error, Sendable, Equatable {
    /// `decideApproval` found the approval already decided (or missing: nil).
    case approvalDecided(current: ApprovalRecord?)
    /// `setSessionActiveClient` found another active client, or the session ended; `endSession` found it ended
    /// (either: or missing, nil).
    case sessionChanged(current: SessionRecord?)
    /// `claimIdempotency` found the key already used; `current` is what the first claim stored.
    case idempotencyKeyClaimed(scope: String, key: String, current: IdempotencyRecord)
    /// `createApproval` or `insertMessage` used an id already stored; `latest` is the highest stored in that sequence.
    case idTaken(IdSequence, latest: Int64)
    /// `redeemInvite` found the invite no longer pending (or missing: nil).
    case inviteRedeemed(current: InviteRecord?)
    /// `upsertConnectCode` named a code another user owns (`claimConnectCode`: one not yet out of quarantine).
    case connectCodeTaken(current: ConnectCodeRecord)
    /// `upsertInvite` named a code another invite holds (another group, inviter or creation time): inserted only if
    /// absent, rewritten only by the same invite.
    case inviteCodeTaken(current: InviteRecord)
    /// `claimPresencePush` found a presence push to the user claimed at `at`, less than the interval before.
    case presencePushClaimed(userId: String, at: Int64)
    /// `createFriendRequest` found a request between the two users pending (either direction).
    case friendRequestPending(current: FriendRequestRecord)
    /// `resolveFriendRequest` found the request no longer pending (or missing: nil).
    case friendRequestResolved(current: FriendRequestRecord?)
    /// `joinGroup` found the group missing (nil), the user already an active member, or no room for the role; carries
    /// the group's stored membership rows (active and former).
    case groupJoinRefused(group: GroupRecord?, members: [GroupMemberRecord])
}

/// An idempotency key and the scope it belongs to.
public struct IdempotencyKey: Sendable, Hashable {
    public var scope: String
    public var key: String
    public init(scope: String, key: String) { self.scope = scope; self.key = key }
}

/// What an idempotency key answered, and a digest of the request that used it first ("" for rows stored before
/// digests were kept: those are not checked).
public struct IdempotencyRecord: Sendable, Equatable {
    public var response: [UInt8]
    public var requestHash: String

    public init(response: [UInt8], requestHash: String) { self.response = response; self.requestHash = requestHash }
}

/// Everything the store holds that the domain keeps in memory, for every user (`GatewayStore.loadSnapshot`: tests,
/// migrations and tools; the hub itself reads per user, `UserEntry`).
public struct GatewaySnapshot: Sendable, Equatable {
    public var users: [UserRecord] = []
    public var devices: [DeviceRecord] = []
    public var contacts: [ContactRecord] = []
    /// Sessions that have not ended.
    public var openSessions: [SessionRecord] = []
    /// Approvals still `pending`.
    public var pendingApprovals: [ApprovalRecord] = []
    /// The highest offset of each user's log.
    public var latestOffsets: [String: Int64] = [:]
    public var pushTokens: [PushTokenRecord] = []
    public var notificationSettings: [String: NotificationSettings] = [:]
    // Relationships, each list in first-insert order.
    public var friendRequests: [FriendRequestRecord] = []
    public var contactPauses: [ContactPauseRecord] = []
    public var blocks: [BlockRecord] = []
    public var connectCodes: [ConnectCodeRecord] = []
    public var groups: [GroupRecord] = []
    public var groupMembers: [GroupMemberRecord] = []
    public var invites: [InviteRecord] = []
    public var userPhones: [UserPhoneRecord] = []

    public init() {}
}

/// One user's records (see `GatewayStore.userEntry`).
public struct UserEntry: Sendable, Equatable {
    public var id: String
    /// nil: no such user (yet).
    public var user: UserRecord?
    public var devices: [DeviceRecord] = []
    /// The user's side of each contact (`userId == id`), active or not.
    public var contacts: [ContactRecord] = []
    public var pushTokens: [PushTokenRecord] = []
    /// nil: never set (the defaults apply).
    public var notificationSettings: NotificationSettings?
    /// The highest offset of the user's log (0 when empty).
    public var latestOffset: Int64 = 0
    /// The user's sessions that have not ended, by creation time (then id).
    public var openSessions: [SessionRecord] = []
    /// The user's relationship rows.
    public var relationships = UserRelationships()
    /// Revocations of the user's tokens (revoked devices; the whole user once deleted).
    public var revocations: [RevocationRecord] = []

    public init(id: String, user: UserRecord? = nil) { self.id = id; self.user = user }
}

/// The domain's durable storage port. Implementations: `InMemoryGatewayStore` (tests) and the SQLite adapter.
///
/// Threading: `commit` (and `write`) may be called from any thread and returns at once; the completion runs on an
/// arbitrary thread after the batch is durable (committed), in the order batches were submitted. A batch whose
/// decision lost reports a `StoreConflict` as its error (and nothing of it is stored). Reads may block and must
/// not be called on an event loop thread (run them on a Dispatch queue).
public protocol GatewayStore: AnyObject, Sendable {
    /// Applies several batches in submission order, each all-or-nothing on its own (grouped into transactions: group
    /// commit), and calls `completion` once with one result per batch, in order: the receipt of what the store
    /// decided (the offsets it gave the appends), or the error. The hub hands over everything one loop iteration
    /// produced this way: one hand-off and one completion instead of one per batch.
    func commit(batches: [[StoreWrite]], completion: @escaping @Sendable ([Result<StoreReceipt, Error>]) -> Void)
    /// Reserves `count` ids of `sequence` for the caller, in increasing order, each above `above` and above every id
    /// reserved before and every id stored when the counter began: two nodes sharing the store never get the same
    /// one (PostgreSQL: a sequence, begun by migration 9; SQLite and in memory: the store's own counter, begun at the
    /// first reservation). Blocks (call it off the event loops).
    func reserveIds(_ sequence: IdSequence, count: Int, above: Int64) throws -> [Int64]
    /// `reserveIds` when it needs no I/O (SQLite's counter, once begun, is a number in memory): called on the hub
    /// thread, so a single node spares each message a trip through the store-read queue. Nil when it would block;
    /// the default (PostgreSQL's sequences, the in-memory reference store) is always nil.
    func reserveIdsWithoutBlocking(_ sequence: IdSequence, count: Int, above: Int64) -> [Int64]?
    /// Loads the whole snapshot (every user: tests, migrations and tools; the hub reads per user with `userEntry`, and
    /// at start only the pending approvals, `pendingApprovals(dueBy: .max, …)`).
    func loadSnapshot() throws -> GatewaySnapshot
    /// One user's records, as the hub keeps them while the user is in use (docs/ARCHITECTURE.md, "Memory and load on
    /// demand"): indexed reads, read together so they agree. A user with no row has `user == nil` (its log, devices or
    /// tokens, if any, are still returned).
    func userEntry(id: String) throws -> UserEntry
    /// `userEntry` for several users, in order (the hub reads one round's misses at once).
    func userEntries(ids: [String]) throws -> [UserEntry]
    /// The user with this hex code, if any.
    func userId(hexCode: String) throws -> String?
    /// The connect code, in any state (revoked and expired codes stay stored), if any.
    func connectCode(code: String) throws -> ConnectCodeRecord?
    /// The invite with this code, in any state, if any.
    func invite(code: String) throws -> InviteRecord?
    /// The newest invite into `groupId` sent to `recipient` (the repeat rule), if any.
    func latestInvite(groupId: String, recipient: String) throws -> InviteRecord?
    /// The active members of the group (its owner included), in join order; empty when there is no such group.
    func groupMemberIds(groupId: String) throws -> [String]
    /// The users owning these E.164 numbers and lowercase hex SHA-256 hashes of numbers (absent: nobody's).
    func phoneOwners(phones: [String], hashes: [String]) throws -> PhoneOwners
    /// The standalone device registered with this secret digest, if any.
    func device(tokenDigest: String) throws -> DeviceRecord?
    /// The users having a device with this id (device ids are unique only per user). Not indexed by device id alone:
    /// a scan of the devices, for the backend route that names a device without its user.
    func deviceOwners(deviceId: String) throws -> [String]
    /// Events of `userId` with offset > `after`, oldest first, at most `limit`.
    func events(userId: String, after: Int64, limit: Int) throws -> [StoredEvent]
    /// The lowest offset still kept for `userId` (nil when the log is empty).
    func oldestOffset(userId: String) throws -> Int64?
    /// Messages between two users, newest first, with id < `before` (nil = from the newest), at most `limit`.
    func messages(between a: String, and b: String, before: Int64?, limit: Int) throws -> [MessageRecord]
    /// Unread messages per sender for `userId` (messages to the user with an id above its read mark for that sender).
    func unreadCounts(userId: String) throws -> [String: Int]
    /// One session by id, in any state (a user's entry holds only its open ones; ended ones are read on demand).
    func session(id: String) throws -> SessionRecord?
    /// One approval by id, in any state (the hub holds the pending ones; decided ones are read on demand).
    func approval(id: String) throws -> ApprovalRecord?
    /// Pending approvals whose deadline is at or before `dueBy`, earliest deadline first, at most `limit`: every
    /// pending one at start (`dueBy: .max`), and the deadline sweep (a node times out approvals other nodes created,
    /// e.g. after their creator died; `decideApproval` keeps each timeout to one).
    func pendingApprovals(dueBy: Int64, limit: Int) throws -> [ApprovalRecord]
    /// The stored response (and request digest) for an idempotency key, if any.
    func idempotentResponse(scope: String, key: String) throws -> IdempotencyRecord?
    /// `idempotentResponse` for several keys, in order (the hub reads one round's keys at once).
    func idempotentResponses(_ keys: [IdempotencyKey]) throws -> [IdempotencyRecord?]
    /// Pending push jobs whose next attempt is due at `now`, oldest first, at most `limit`.
    func duePushJobs(now: Int64, limit: Int) throws -> [PushJobRecord]
    /// One push job by id (any state).
    func pushJob(id: Int64) throws -> PushJobRecord?
    /// Claims up to `limit` due push jobs for `claimant` until `now + leaseMs`, oldest first, and returns them: a job
    /// is due when pending, its next attempt is at or before `now`, and no other claim on it is still running. The
    /// store decides it atomically (nodes sharing a store each get different jobs), and a claim whose lease ran out
    /// (its node died mid-send) is taken over. Recording the job's outcome (`updatePushJob` by the claimant) ends the claim.
    /// A backend webhook job (`deviceId` empty) is not due while an earlier one of the same user is still pending:
    /// a user's backend webhooks are sent one at a time, in the order they were committed.
    func claimPushJobs(claimant: String, now: Int64, leaseMs: Int64, limit: Int) throws -> [PushJobRecord]
    /// Drops events older than `before` (ms) but always keeps each user's newest `keepLatest` events. Returns how many were removed.
    func pruneEvents(before: Int64, keepLatest: Int) throws -> Int
}

extension GatewayStore {
    /// Applies the writes in one transaction (possibly grouped with other batches). `nil` = committed.
    public func write(_ writes: [StoreWrite], completion: @escaping @Sendable (Error?) -> Void) {
        commit(batches: [writes]) { results in completion(results[0].storeError) }
    }

    /// `commit(batches:)` for callers that need no receipt: one error per batch (`nil` = committed).
    public func write(batches: [[StoreWrite]], completion: @escaping @Sendable ([Error?]) -> Void) {
        commit(batches: batches) { results in completion(results.map(\.storeError)) }
    }

    /// One `userEntry` per user.
    public func userEntries(ids: [String]) throws -> [UserEntry] {
        try ids.map { try userEntry(id: $0) }
    }

    /// One `idempotentResponse` per key.
    public func idempotentResponses(_ keys: [IdempotencyKey]) throws -> [IdempotencyRecord?] {
        try keys.map { try idempotentResponse(scope: $0.scope, key: $0.key) }
    }
}

extension Result {
    /// The error of a failed result, nil for a success.
    public var storeError: Failure? { if case .failure(let error) = self { return error } else { return nil } }
}

extension GatewayStore {
    public func reserveIdsWithoutBlocking(_ sequence: IdSequence, count: Int, above: Int64) -> [Int64]? { nil }
}
