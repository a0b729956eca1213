@testable import Gateway
import GatewayProtocol
import Testing

/// `InviteCreationMachine` alone: the rules in order, the recipient's checks (a member's number, the 24-hour rule at
/// its boundary), and drawing codes again when the store reports one taken.
@Suite struct InviteCreationMachineTests {
    typealias M = InviteCreationMachine
    let limits = RelationshipSettings()
    let day: Int64 = 86_400_000

    func group(policy: String = "members", maxMembers: Int = 12, roleLimits: [String: Int] = [:],
               members: [(String, String)] = [("olga", "owner"), ("pete", "member")]) -> GroupMembership.State {
        let record = GroupRecord(id: "fam", ownerId: "olga", name: "Family", maxMembers: maxMembers, invitePolicy: policy,
                                 roleLimits: roleLimits, createdAt: 1)
        var rows: [String: GroupMemberRecord] = [:]
        for (user, role) in members { rows[user] = GroupMemberRecord(groupId: "fam", userId: user, role: role, createdAt: 1) }
        return .init(group: record, members: rows)
    }

    func request(by inviter: String = "pete", phone: String? = nil, email: String? = nil, role: String? = nil, hours: Int? = nil) -> M.Request {
        .init(inviterId: inviter, groupId: "fam", phone: phone, email: email, role: role, expiresInHours: hours)
    }

    func create(_ request: M.Request, _ group: GroupMembership.State? = nil) -> (M.State, [M.Action]) {
        M.transition(.new, .create(request, group: group ?? self.group()), limits: limits, now: 10 * day)
    }

    /// The daily limits' counters for an invite by `inviter` with the default settings.
    func counting(by inviter: String = "pete") -> [M.Action] {
        [.count([AttemptLimiter.Counter(key: "invite-user:" + inviter, limit: 30), AttemptLimiter.Counter(key: "invite-node", limit: 2_000)],
                windowMs: day, what: "too many invites")]
    }

    /// `create`, past the daily limits' count.
    func counted(_ request: M.Request, _ group: GroupMembership.State? = nil) -> (M.State, [M.Action]) {
        M.transition(create(request, group).0, .counted, limits: limits, now: 10 * day)
    }

    func refused(_ result: (M.State, [M.Action])) -> M.Refusal? {
        guard case .refused(let refusal) = result.0, result.1 == [.refuse(refusal)] else { return nil }
        return refusal
    }

    @Test func aShareableCodeIsDrawnStoredAndRepliedWithoutDelivery() {
        let (countingState, count) = create(request())
        let draft = M.Draft(groupId: "fam", inviterId: "pete", role: "member", hours: 168, recipient: nil, channel: .sms)
        #expect(countingState == .counting(draft) && count == counting())
        let (drawing, draw) = M.transition(countingState, .counted, limits: limits, now: 10 * day)
        #expect(drawing == .drawing(draft, attempt: 1) && draw == [.drawCode])
        let (storing, commit) = M.transition(drawing, .drawn(code: "K7PM3QXA"), limits: limits, now: 10 * day + 5)
        let invite = InviteRecord(code: "K7PM3QXA", groupId: "fam", inviterId: "pete", recipient: nil, role: "member",
                                  createdAt: 10 * day + 5, expiresAt: 10 * day + 5 + 168 * 3_600_000)
        #expect(storing == .storing(invite, draft, attempt: 1) && commit == [.commit(invite, .created)])
        #expect(M.transition(storing, .stored, limits: limits, now: 10 * day + 9) == (.stored(invite), [.reply(invite)]))
        #expect(M.Event.created.rawValue == "invite_created")
    }

    @Test func aPhoneRecipientIsLookedUpThenDeliveredAfterTheCommit() {
        let (looking, lookUp) = create(request(phone: "+44 7700 900123", role: "parent", hours: 72))
        let draft = M.Draft(groupId: "fam", inviterId: "pete", role: "parent", hours: 72, recipient: "+447700900123", channel: .sms)
        #expect(looking == .lookingUp(draft) && lookUp == [.lookUpRecipient("+447700900123", .sms)])
        let (countingState, count) = M.transition(looking, .recipientLooked(ownerIsMember: false, latest: nil), limits: limits, now: 10 * day)
        #expect(countingState == .counting(draft) && count == counting())
        let (drawing, draw) = M.transition(countingState, .counted, limits: limits, now: 10 * day)
        #expect(drawing == .drawing(draft, attempt: 1) && draw == [.drawCode])
        let (storing, _) = M.transition(drawing, .drawn(code: "ABCDEFGH"), limits: limits, now: 10 * day)
        guard case .storing(let invite, _, _) = storing else { Issue.record("not storing"); return }
        #expect(invite.recipient == "+447700900123" && invite.expiresAt == 10 * day + 72 * 3_600_000)
        #expect(M.transition(storing, .stored, limits: limits, now: 10 * day).1 == [.deliver(invite, .sms, hours: 72), .reply(invite)])
    }

    @Test func anEmailRecipientIsLowerCasedAndDeliveredByEmail() {
        let (looking, lookUp) = create(request(email: "Quin@Example.ORG"))
        guard case .lookingUp(let draft) = looking else { Issue.record("not looking up"); return }
        #expect(draft.recipient == "quin@example.org" && draft.channel == .email && lookUp == [.lookUpRecipient("quin@example.org", .email)])
        #expect(M.Channel.email.rawValue == "email" && M.Channel.sms.rawValue == "sms")
    }

    @Test func refusesTheRulesInOrder() {
        #expect(refused(M.transition(.new, .create(request(), group: nil), limits: limits, now: 0)) == .groupNotFound("fam"))
        #expect(refused(create(request(by: "zed"))) == .notAMember)
        var left = group()
        left.members["pete"]?.active = false
        #expect(refused(create(request(), left)) == .notAMember)
        #expect(refused(create(request(), group(policy: "owner"))) == .ownerOnly)
        #expect(refused(create(request(by: "olga"), group(policy: "owner"))) == nil)
        for role in ["owner", "Parent", ""] { #expect(refused(create(request(role: role))) == .invalidRole) }
        for hours in [0, 721] { #expect(refused(create(request(hours: hours))) == .invalidHours(max: 720)) }
        #expect(refused(create(request(hours: 720))) == nil && refused(create(request(hours: 1))) == nil)
        #expect(refused(create(request(), group(maxMembers: 2))) == .full(.full))
        #expect(refused(create(request(role: "parent"), group(roleLimits: ["parent": 0]))) == .full(.roleFull(role: "parent", limit: 0)))
        #expect(refused(create(request(phone: "0151 1234"))) == .phoneInvalid("0151 1234"))
        for email in ["quin", "@example.org", "quin@example", "qu in@example.org", "a@b@c.d", String(repeating: "q", count: 250) + "@x.org"] {
            #expect(refused(create(request(email: email))) == .emailInvalid(email))
        }
        #expect(refused(create(request(phone: "+447700900123", email: "q@x.org"))) == .phoneAndEmail)
        // Earlier rules first: a full group with a bad role is a bad role.
        #expect(refused(create(request(role: "owner"), group(maxMembers: 2))) == .invalidRole)
    }

    @Test func aMembersNumberIsRefused() {
        let (looking, _) = create(request(phone: "+447700900123"))
        #expect(refused(M.transition(looking, .recipientLooked(ownerIsMember: true, latest: nil), limits: limits, now: 10 * day)) == .recipientIsMember)
    }

    @Test func theTwentyFourHourRuleEndsExactlyOneWindowAfterTheLatestInvite() {
        let (looking, _) = create(request(phone: "+447700900123"))
        let latest = InviteRecord(code: "OLDCODE2", groupId: "fam", inviterId: "olga", recipient: "+447700900123", role: "member",
                                  createdAt: 9 * day, expiresAt: 20 * day)
        let look = M.Input.recipientLooked(ownerIsMember: false, latest: latest)
        #expect(refused(M.transition(looking, look, limits: limits, now: 10 * day - 1)) == .alreadyInvited("+447700900123", until: 10 * day, retryAfterMs: 1))
        #expect(M.transition(looking, look, limits: limits, now: 10 * day).1 == counting())
        let error = GatewayError(M.Refusal.alreadyInvited("+447700900123", until: 10 * day, retryAfterMs: 1), group: group().group)
        #expect(error.retryAfterMs == 1)   // like every rate_limited answer, when to retry
        #expect(error.code == .rateLimited && error.message == "+447700900123 was already invited to \"Family\"; try again after \(10 * day)")
    }

    /// The daily limits count only an invite every other rule allows, once, whatever the codes drawn after.
    @Test func theDailyLimitsCountOnlyAnAllowedInviteOnce() {
        #expect(create(request(role: "owner")).1 != counting())        // refused before the count
        let (looking, _) = create(request(phone: "+447700900123"))
        #expect(refused(M.transition(looking, .recipientLooked(ownerIsMember: true, latest: nil), limits: limits, now: 10 * day)) == .recipientIsMember)
        #expect(create(request(by: "olga")).1 == counting(by: "olga"))
        let (drawing, _) = counted(request())
        let (storing, _) = M.transition(drawing, .drawn(code: "CODE0001"), limits: limits, now: 10 * day)
        let taken = StoreConflict.inviteCodeTaken(current: InviteRecord(code: "CODE0001", groupId: "other", inviterId: "zed", recipient: nil,
                                                                        role: "member", createdAt: 0, expiresAt: 1))
        #expect(M.transition(storing, .conflict(taken), limits: limits, now: 10 * day).1 == [.drawCode])   // drawn again, not counted again
        #expect(M.transition(drawing, .counted, limits: limits, now: 10 * day) == (drawing, []))
    }

    @Test func aTakenCodeIsDrawnAgainUpToTheAttemptsThenRefused() {
        var (state, _) = counted(request())
        let taken = StoreConflict.inviteCodeTaken(current: InviteRecord(code: "X", groupId: "other", inviterId: "zed", recipient: nil,
                                                                        role: "member", createdAt: 0, expiresAt: 1))
        for attempt in 1...M.codeAttempts {
            (state, _) = M.transition(state, .drawn(code: "CODE000\(attempt)"), limits: limits, now: 10 * day)
            guard case .storing(_, _, attempt: attempt) = state else { Issue.record("not storing attempt \(attempt)"); return }
            let (next, actions) = M.transition(state, .conflict(taken), limits: limits, now: 10 * day)
            if attempt < M.codeAttempts {
                #expect(actions == [.drawCode])
                state = next
            } else {
                #expect(refused((next, actions)) == .notStored(taken))
            }
        }
        // Any other conflict is not retried.
        let (first, _) = counted(request())
        let (storing, _) = M.transition(first, .drawn(code: "CODE0001"), limits: limits, now: 10 * day)
        let other = StoreConflict.inviteRedeemed(current: nil)
        #expect(refused(M.transition(storing, .conflict(other), limits: limits, now: 10 * day)) == .notStored(other))
        #expect(GatewayError(M.Refusal.notStored(other), group: nil).code == .storageFailed)
    }

    @Test func inputsOutOfTurnChangeNothing() {
        let (looking, _) = create(request(phone: "+447700900123"))
        for input: M.Input in [.drawn(code: "ABCDEFGH"), .stored, .conflict(.inviteRedeemed(current: nil))] {
            #expect(M.transition(looking, input, limits: limits, now: 0) == (looking, []))
        }
        #expect(M.transition(.new, .stored, limits: limits, now: 0) == (.new, []))
    }
}
