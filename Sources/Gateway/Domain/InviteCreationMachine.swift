import GatewayProtocol

/// Creating one invite as a pure state machine:
/// `new --create--> lookingUp` (the rules hold and there is a recipient) `--recipientLooked--> counting`
/// (no member owns the number, no invite to it in the group within the repeat window) `--counted--> drawing` (the
/// inviter's and the node's daily invite limits had room) `--drawn--> storing --stored--> stored`; an invite without
/// recipient goes from `new` straight to `counting`. Only an invite every other rule allows is counted, once. When the store reports the drawn code as
/// another invite's (another node drew it first), a new code is drawn, `codeAttempts` times at most. Any refusal ends
/// in `refused`. No threads, clock, store or randomness: the hub reads the group, the number's owner and the latest
/// invite, draws codes, commits, and hands the text to the `InviteDeliverer` after the commit.
struct InviteCreationMachine {
    /// Codes drawn at most for one invite.
    static let codeAttempts = 3

    /// How the invite reaches its recipient (the delivery's `channel` string).
    enum Channel: String, Equatable {
        case sms
        case email
    }

    /// What an inviter asks for; nil fields take the defaults.
    struct Request: Equatable {
        var inviterId: String
        var groupId: String
        var phone: String?
        var email: String?
        var role: String?
        var expiresInHours: Int?
    }

    /// The invite the rules allow, before its code is drawn.
    struct Draft: Equatable {
        var groupId: String
        var inviterId: String
        var role: String
        var hours: Int
        /// E.164 phone or lower-cased e-mail; nil for a shareable code.
        var recipient: String?
        var channel: Channel
    }

    enum State: Equatable {
        case new
        /// The recipient's number owner and latest invite to the group are being read.
        case lookingUp(Draft)
        /// The daily invite limits are counting the invite (a refusal there is the hub's `rate_limited`).
        case counting(Draft)
        /// A code is due (`attempt` counts the codes drawn so far, this one included).
        case drawing(Draft, attempt: Int)
        case storing(InviteRecord, Draft, attempt: Int)
        case stored(InviteRecord)
        case refused(Refusal)
    }

    enum Input: Equatable {
        /// `group`: the group's membership, nil when there is no such group.
        case create(Request, group: GroupMembership.State?)
        /// The reads on the recipient: whether its number belongs to an active member of the group, and the latest
        /// invite to it in the group.
        case recipientLooked(ownerIsMember: Bool, latest: InviteRecord?)
        /// The daily limits counted the invite.
        case counted
        /// A code, drawn free of the invites this node holds.
        case drawn(code: String)
        /// The store refused the invite's row.
        case conflict(StoreConflict)
        case stored
    }

    enum Refusal: Error, Equatable {
        case groupNotFound(String)
        case notAMember
        case ownerOnly
        case invalidRole
        case invalidHours(max: Int)
        case full(GroupMembership.Refusal)
        case phoneInvalid(String)
        case emailInvalid(String)
        case phoneAndEmail
        /// The number belongs to an active member.
        case recipientIsMember
        /// The 24-hour rule: invited to the group at `until - window`.
        case alreadyInvited(String, until: Int64, retryAfterMs: Int64)
        /// Not stored: a code taken every time, or another conflict.
        case notStored(StoreConflict)
    }

    /// The event a created invite appends to the inviter's log.
    enum Event: String, Equatable {
        case created = "invite_created"
    }

    enum Action: Equatable {
        /// Read the number's owner (an `sms` recipient) and the latest invite to the recipient in the group.
        case lookUpRecipient(String, Channel)
        /// Count one invite under `counters` (the inviter's, the node's) in a sliding window of `windowMs`; when a
        /// counter is full the hub answers `rate_limited` with `retryAfterMs`, `what` naming the limit.
        case count([AttemptLimiter.Counter], windowMs: Int64, what: String)
        /// Draw a code free of the invites this node holds.
        case drawCode
        /// Commit the invite (the store inserts the code only if absent) with `event` in the inviter's log.
        case commit(InviteRecord, Event)
        /// After the commit: hand the invitation text to the deliverer.
        case deliver(InviteRecord, Channel, hours: Int)
        case reply(InviteRecord)
        case refuse(Refusal)
    }

    static func transition(_ state: State, _ input: Input, limits: RelationshipSettings, now: Int64) -> (State, [Action]) {
        switch (state, input) {
        case (.new, .create(let request, let group)):
            switch draft(request, group: group, limits: limits) {
            case .failure(let refusal): return refuse(refusal)
            case .success(let draft):
                guard let recipient = draft.recipient else { return count(draft, limits: limits) }
                return (.lookingUp(draft), [.lookUpRecipient(recipient, draft.channel)])
            }
        case (.lookingUp(let draft), .recipientLooked(let ownerIsMember, let latest)):
            guard !ownerIsMember else { return refuse(.recipientIsMember) }
            if let latest, latest.createdAt > now - limits.inviteRepeatWindowMs {
                let until = latest.createdAt + limits.inviteRepeatWindowMs
                return refuse(.alreadyInvited(draft.recipient ?? "", until: until, retryAfterMs: until - now))
            }
            return count(draft, limits: limits)
        case (.counting(let draft), .counted):
            return (.drawing(draft, attempt: 1), [.drawCode])
        case (.drawing(let draft, let attempt), .drawn(let code)):
            let invite = InviteRecord(code: code, groupId: draft.groupId, inviterId: draft.inviterId, recipient: draft.recipient, role: draft.role,
                                      createdAt: now, expiresAt: now + Int64(draft.hours) * 3_600_000)
            return (.storing(invite, draft, attempt: attempt), [.commit(invite, .created)])
        case (.storing(_, let draft, let attempt), .conflict(let conflict)):
            guard case .inviteCodeTaken = conflict, attempt < codeAttempts else { return refuse(.notStored(conflict)) }
            return (.drawing(draft, attempt: attempt + 1), [.drawCode])
        case (.storing(let invite, let draft, _), .stored):
            return (.stored(invite), (draft.recipient == nil ? [] : [.deliver(invite, draft.channel, hours: draft.hours)]) + [.reply(invite)])
        default:
            return (state, [])
        }
    }

    private static func refuse(_ refusal: Refusal) -> (State, [Action]) { (.refused(refusal), [.refuse(refusal)]) }

    /// Counts the invite against its inviter's and the node's daily limits: they bound the texts one account (and
    /// the whole node) can have sent by SMS and e-mail, and the invite rows stored.
    private static func count(_ draft: Draft, limits: RelationshipSettings) -> (State, [Action]) {
        let counters = [AttemptLimiter.Counter(key: "invite-user:" + draft.inviterId, limit: limits.invitesPerUserPerDay),
                        AttemptLimiter.Counter(key: "invite-node", limit: limits.invitesPerNodePerDay)]
        return (.counting(draft), [.count(counters, windowMs: limits.inviteLimitWindowMs, what: "too many invites")])
    }

    /// The rules on the inviter, the group and the fields, in the order clients see them.
    private static func draft(_ request: Request, group: GroupMembership.State?, limits: RelationshipSettings) -> Result<Draft, Refusal> {
        guard let group else { return .failure(.groupNotFound(request.groupId)) }
        guard group.members[request.inviterId]?.active == true else { return .failure(.notAMember) }
        guard GroupInvitePolicy(rawValue: group.group.invitePolicy) != .owner || request.inviterId == group.group.ownerId else {
            return .failure(.ownerOnly)
        }
        let role = request.role ?? "member"
        guard GatewayHub.validRole(role), role != "owner" else { return .failure(.invalidRole) }
        let hours = request.expiresInHours ?? limits.defaultInviteHours
        guard (1...limits.maxInviteHours).contains(hours) else { return .failure(.invalidHours(max: limits.maxInviteHours)) }
        if let refusal = GroupMembership.capacityRefusal(group, role: role) { return .failure(.full(refusal)) }
        var draft = Draft(groupId: group.group.id, inviterId: request.inviterId, role: role, hours: hours, recipient: nil, channel: .sms)
        switch (request.phone, request.email) {
        case (let phone?, nil):
            guard let e164 = PhoneNumber.normalise(phone) else { return .failure(.phoneInvalid(phone)) }
            draft.recipient = e164
        case (nil, let email?):
            let lowered = email.lowercased()
            let parts = lowered.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), lowered.utf8.count <= 254,
                  !lowered.contains(where: { $0.isWhitespace }) else { return .failure(.emailInvalid(email)) }
            draft.recipient = lowered
            draft.channel = .email
        case (nil, nil):
            break
        default:
            return .failure(.phoneAndEmail)
        }
        return .success(draft)
    }
}

extension GatewayError {
    /// The wire error for a refused invite to the group named `groupName`.
    init(_ refusal: InviteCreationMachine.Refusal, group: GroupRecord?) {
        let name = group?.name ?? ""
        switch refusal {
        case .groupNotFound(let id): self.init(.groupNotFound, "no group \"\(id)\"")
        case .notAMember: self.init(.notAMember, "only members can invite to \"\(name)\"")
        case .ownerOnly: self.init(.forbidden, "only the owner can invite to \"\(name)\"")
        case .invalidRole: self.init(.invalidField, "role must be 1 to 32 of a-z, 0-9, _ and - (not owner)")
        case .invalidHours(let max): self.init(.invalidField, "expiresInHours must be 1 to \(max)")
        case .full(let full):
            if let group { self.init(full, group: group) } else { self.init(.groupFull, "the group is full") }
        case .phoneInvalid(let phone): self.init(phoneInvalid: phone)
        case .emailInvalid(let email): self.init(.invalidField, "\"\(email)\" is not an e-mail address")
        case .phoneAndEmail: self.init(.invalidField, "give phone or email, not both")
        case .recipientIsMember: self.init(.alreadyMember, "this number belongs to a member of \"\(name)\"")
        case .alreadyInvited(let recipient, let until, let wait):
            self.init(.rateLimited, "\(recipient) was already invited to \"\(name)\"; try again after \(until)", retryAfterMs: Int(wait))
        case .notStored(let conflict): self.init(.storageFailed, "could not store the invite: \(conflict)")
        }
    }
}
