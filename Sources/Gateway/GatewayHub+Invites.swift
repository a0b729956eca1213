import GatewayProtocol

/// One-time invites into a group: a code, an expiry, an inviter who may invite (any member, or the owner only),
/// the group's size limits, and a 24-hour rule per recipient. The delivery text goes to the `InviteDeliverer`
/// after the invite is durable — never sent from the request path.
extension GatewayHub {
    /// Invite codes: 8 characters without look-alikes (no 0/O, 1/I/L).
    static let inviteAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

    /// What an inviter asks for; nil fields take the defaults.
    public struct InviteSpec: Sendable {
        public var phone: String?
        public var email: String?
        public var role: String?
        public var expiresInHours: Int?
        public init(phone: String? = nil, email: String? = nil, role: String? = nil, expiresInHours: Int? = nil) {
            self.phone = phone; self.email = email; self.role = role; self.expiresInHours = expiresInHours
        }
    }

    /// Creates an invite. Errors: `group_not_found`, `not_a_member` (inviter), `forbidden` (owner-only group),
    /// `group_full`, `phone_invalid`, `invalid_field` (email, role, hours; phone and email together),
    /// `already_member` (the phone belongs to a member), `rate_limited` (same recipient and group within 24 h).
    public func createInvite(inviterId: String, groupId: String, _ spec: InviteSpec, completion: @escaping (Result<InviteData, GatewayError>) -> Void) {
        let limits = settings.relationships
        guard loadedGroup(groupId, plus: [inviterId], failed: { completion(.failure($0)) }, retry: { [self] in
            createInvite(inviterId: inviterId, groupId: groupId, spec, completion: completion)
        }) else { return }
        guard let group = relations.groups[groupId] else { return completion(.failure(GatewayError(.groupNotFound, "no group \"\(groupId)\""))) }
        guard relations.isActiveMember(inviterId, of: groupId) else {
            return completion(.failure(GatewayError(.notAMember, "only members can invite to \"\(group.name)\"")))
        }
        guard group.invitePolicy != "owner" || inviterId == group.ownerId else {
            return completion(.failure(GatewayError(.forbidden, "only the owner can invite to \"\(group.name)\"")))
        }
        let role = spec.role ?? "member"
        guard Self.validRole(role), role != "owner" else {
            return completion(.failure(GatewayError(.invalidField, "role must be 1 to 32 of a-z, 0-9, _ and - (not owner)")))
        }
        let hours = spec.expiresInHours ?? limits.defaultInviteHours
        guard (1...limits.maxInviteHours).contains(hours) else {
            return completion(.failure(GatewayError(.invalidField, "expiresInHours must be 1 to \(limits.maxInviteHours)")))
        }
        if let problem = capacityProblem(group, role: role) { return completion(.failure(problem)) }
        var recipient: String?
        var channel = "sms"
        switch (spec.phone, spec.email) {
        case (let phone?, nil):
            guard let e164 = PhoneNumber.normalise(phone) else {
                return completion(.failure(GatewayError(.phoneInvalid, "\"\(phone)\" is not an international number (+ and 8 to 15 digits)")))
            }
            recipient = e164
        case (nil, let email?):
            let lowered = email.lowercased()
            let parts = lowered.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), lowered.utf8.count <= 254,
                  !lowered.contains(where: { $0.isWhitespace }) else {
                return completion(.failure(GatewayError(.invalidField, "\"\(email)\" is not an e-mail address")))
            }
            recipient = lowered
            channel = "email"
        case (nil, nil):
            recipient = nil
        default:
            return completion(.failure(GatewayError(.invalidField, "give phone or email, not both")))
        }
        guard let recipient else { return storeInvite(inviterId: inviterId, group: group, recipient: nil, role: role, hours: hours, channel: channel, completion: completion) }
        // The number's owner and earlier invites to the recipient are store reads (GatewayHub+RelationshipReads).
        let failed = { (error: GatewayError) in completion(.failure(error)) }
        lookUpPhoneOwners(phones: channel == "sms" ? [recipient] : [], hashes: [], failed: failed) { [self] owners in
            if let owner = owners.byPhone[recipient], relations.isActiveMember(owner, of: groupId) {
                return completion(.failure(GatewayError(.alreadyMember, "this number belongs to a member of \"\(group.name)\"")))
            }
            lookUpLatestInvite(groupId: groupId, recipient: recipient, failed: failed) { [self] previous in
                if let previous, previous.createdAt > clock.now() - limits.inviteRepeatWindowMs {
                    return completion(.failure(GatewayError(.rateLimited,
                        "\(recipient) was already invited to \"\(group.name)\"; try again after \(previous.createdAt + limits.inviteRepeatWindowMs)")))
                }
                storeInvite(inviterId: inviterId, group: group, recipient: recipient, role: role, hours: hours, channel: channel, completion: completion)
            }
        }
    }

    /// Codes drawn again after the store reported the drawn one as another invite's (another node drew it first).
    static let inviteCodeAttempts = 3

    private func storeInvite(inviterId: String, group: GroupRecord, recipient: String?, role: String, hours: Int, channel: String,
                             attempt: Int = 1, completion: @escaping (Result<InviteData, GatewayError>) -> Void) {
        let groupId = group.id
        let now = clock.now()
        var code = randomCode(length: 8, alphabet: Self.inviteAlphabet)
        while relations.invites[code] != nil { code = randomCode(length: 8, alphabet: Self.inviteAlphabet) }
        let invite = InviteRecord(code: code, groupId: groupId, inviterId: inviterId, recipient: recipient, role: role,
                                  createdAt: now, expiresAt: now + Int64(hours) * 3_600_000)
        relations.invites[code] = invite
        let data = inviteData(invite)
        // The code is the store's decision (insert if absent): when another node stored it first for another invite,
        // this attempt is taken back and a new code drawn.
        commit([.upsertInvite(invite)], events: [PendingEvent(userId: inviterId, type: "invite_created", data: encode(data))],
               onConflict: { [self] conflict in
            relations.invites[code] = nil
            guard case .inviteCodeTaken = conflict, attempt < Self.inviteCodeAttempts else {
                return completion(.failure(GatewayError(.storageFailed, "could not store the invite: \(conflict)")))
            }
            storeInvite(inviterId: inviterId, group: group, recipient: recipient, role: role, hours: hours, channel: channel,
                        attempt: attempt + 1, completion: completion)
        }) { [self] outcome in
            relations.invites[code] = nil   // stored (read by code from now on) or not stored
            if case .success = outcome, let recipient, let deliverer = inviteDeliverer {
                let inviter = userRef(inviterId)
                let text = "\(inviter.name) invited you to join \"\(group.name)\". Your invite code: \(code) (valid for \(hours) hours, one use)."
                deliverer.deliver(InviteDelivery(channel: channel, to: recipient, text: text, code: code, groupId: groupId,
                                                 groupName: group.name, inviterId: inviterId, inviterName: inviter.name,
                                                 expiresAt: invite.expiresAt))
            }
            completion(outcome.map { _ in data })
        }
    }

    func inviteData(_ i: InviteRecord) -> InviteData {
        InviteData(code: i.code, groupId: i.groupId, groupName: relations.groups[i.groupId]?.name ?? "", inviter: userRef(i.inviterId),
                   recipient: i.recipient, role: i.role, state: i.state.rawValue, createdAt: i.createdAt, expiresAt: i.expiresAt)
    }

    /// Redeems an invite (codes are case-insensitive; spaces and dashes ignored). Errors: `invite_not_found`,
    /// `invite_used`, `invite_expired`, `already_member` (the invite stays unused), `group_full`, `group_not_found`.
    /// A former member is reactivated (keeping the original join time). Answers with the group.
    public func redeemInvite(userId: String, code rawCode: String, completion: @escaping (Result<GroupData, GatewayError>) -> Void) {
        let code = rawCode.uppercased().filter { $0 != " " && $0 != "-" }
        lookUpInvite(code, failed: { completion(.failure($0)) }) { [self] found in
        guard let invite = found else {
            return completion(.failure(GatewayError(.inviteNotFound, "no invite \"\(rawCode)\"")))
        }
        guard loadedGroup(invite.groupId, plus: [userId], failed: { completion(.failure($0)) }, retry: { [self] in
            redeemInvite(userId: userId, code: rawCode, completion: completion)
        }) else { return }
        let input = InviteMachine.Input.redeem(by: userId, isMember: relations.isActiveMember(userId, of: invite.groupId))
        let (used, actions) = InviteMachine.transition(invite, input, now: clock.now())
        for case .refuse(let refusal) in actions { return completion(.failure(GatewayError(refusal))) }
        // Marked used now, so a second redeem in the same instant is refused; forgotten once the join is stored or
        // fails (the store answers from then on).
        relations.invites[code] = used
        for case .join(let used) in actions {
            // The redemption is the store's decision: when another node redeemed the invite first, this one is
            // refused.
            join(groupId: used.groupId, userId: userId, role: used.role, reason: "invite",
                 extra: [.redeemInvite(code: code, usedBy: userId, usedAt: used.usedAt ?? clock.now())], onConflict: { [self] conflict in
                relations.invites[code] = nil
                guard case .inviteRedeemed = conflict else {
                    return completion(.failure(GatewayError(.storageFailed, "could not store the change: \(conflict)")))
                }
                completion(.failure(GatewayError(InviteMachine.Refusal.used)))
            }) { [self] result in
                relations.invites[code] = nil   // stored (read by code from now on) or not stored
                completion(result)
            }
        }
        }
    }
}
