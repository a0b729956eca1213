import GatewayProtocol

/// One-time invites into a group: a code, an expiry, an inviter who may invite (any member, or the owner only),
/// the group's size limits, and a 24-hour rule per recipient. An invite to a phone or e-mail goes to the backend
/// webhook in the invite's own transaction (`BackendWebhook.invite`), and to the `InviteDeliverer` after the commit —
/// never sent from the request path.
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
    /// `already_member` (the phone belongs to a member), `rate_limited` (same recipient and group within 24 h; the
    /// inviter's or the node's daily invite limit, with `retryAfterMs`).
    /// The rules are `InviteCreationMachine`'s; this reads, draws codes and commits what it decides.
    public func createInvite(inviterId: String, groupId: String, _ spec: InviteSpec, completion: @escaping (Result<InviteData, GatewayError>) -> Void) {
        guard loadedGroup(groupId, plus: [inviterId], failed: { completion(.failure($0)) }, retry: { [self] in
            createInvite(inviterId: inviterId, groupId: groupId, spec, completion: completion)
        }) else { return }
        let request = InviteCreationMachine.Request(inviterId: inviterId, groupId: groupId, phone: spec.phone, email: spec.email,
                                                    role: spec.role, expiresInHours: spec.expiresInHours)
        let group = relations.groups[groupId].map { GroupMembership.State(group: $0, members: relations.members[groupId] ?? [:]) }
        createInvite(.new, .create(request, group: group), group: group?.group, completion: completion)
    }

    /// Feeds `InviteCreationMachine` one input and carries out its actions.
    private func createInvite(_ state: InviteCreationMachine.State, _ input: InviteCreationMachine.Input, group: GroupRecord?,
                              completion: @escaping (Result<InviteData, GatewayError>) -> Void) {
        let (next, actions) = InviteCreationMachine.transition(state, input, limits: settings.relationships, now: clock.now())
        let advance = { [self] (input: InviteCreationMachine.Input) in createInvite(next, input, group: group, completion: completion) }
        for action in actions {
            switch action {
            case .refuse(let refusal):
                return completion(.failure(GatewayError(refusal, group: group)))
            case .lookUpRecipient(let recipient, let channel):
                guard let groupId = group?.id else { return completion(.failure(GatewayError(.groupNotFound, "no group"))) }
                // The number's owner and earlier invites to the recipient are store reads (GatewayHub+RelationshipReads).
                let failed = { (error: GatewayError) in completion(.failure(error)) }
                lookUpPhoneOwners(phones: channel == .sms ? [recipient] : [], hashes: [], failed: failed) { [self] owners in
                    let ownerIsMember = owners.byPhone[recipient].map { relations.isActiveMember($0, of: groupId) } ?? false
                    lookUpLatestInvite(groupId: groupId, recipient: recipient, failed: failed) { previous in
                        advance(.recipientLooked(ownerIsMember: ownerIsMember, latest: previous))
                    }
                }
            case .count(let counters, let windowMs, let what):
                limitAttempt(.count(counters), what, limiter: AttemptLimiter(windowMs: windowMs), state: \.inviteLimits) { refused in
                    if let refused { return completion(.failure(refused)) }
                    advance(.counted)
                }
            case .drawCode:
                var code = randomCode(length: 8, alphabet: Self.inviteAlphabet)
                while relations.invites[code] != nil { code = randomCode(length: 8, alphabet: Self.inviteAlphabet) }
                advance(.drawn(code: code))
            case .commit(let invite, let event):
                relations.invites[invite.code] = invite
                // The code is the store's decision (insert if absent): when another node stored it first for another
                // invite, this attempt is taken back and the machine decides whether to draw again.
                commit([.upsertInvite(invite)] + inviteWebhook(invite, group: group), events: [PendingEvent(userId: invite.inviterId, type: event.logType, data: encode(inviteData(invite, groupName: group?.name)))],
                       onConflict: { [self] conflict in
                    relations.invites[invite.code] = nil
                    advance(.conflict(conflict))
                }) { [self] outcome in
                    relations.invites[invite.code] = nil   // stored (read by code from now on) or not stored
                    switch outcome {
                    case .failure(let error): completion(.failure(error))
                    case .success: advance(.stored)
                    }
                }
            case .deliver(let invite, let channel, _):
                guard let group, let recipient = invite.recipient, let deliverer = inviteDeliverer else { continue }
                let inviter = userRef(invite.inviterId)
                deliverer.deliver(InviteDelivery(channel: channel.rawValue, to: recipient, code: invite.code, groupId: group.id,
                                                 groupName: group.name, inviterId: invite.inviterId, inviterName: inviter.name,
                                                 expiresAt: invite.expiresAt))
            case .reply(let invite):
                completion(.success(inviteData(invite, groupName: group?.name)))
            }
        }
    }

    /// The backend webhook job announcing an invite to a phone or e-mail (committed with the invite), when configured.
    private func inviteWebhook(_ invite: InviteRecord, group: GroupRecord?) -> [StoreWrite] {
        guard settings.backendWebhooks.invites, let recipient = invite.recipient, let group else { return [] }
        return [.enqueuePush(BackendWebhook.invite(invite, recipient: recipient, groupName: group.name, inviter: userRef(invite.inviterId),
                                                   deepLinkScheme: settings.backendWebhooks.deepLinkScheme, now: clock.now()))]
    }

    /// `groupName`: the group's name when the caller holds the group (it may have left memory since).
    func inviteData(_ i: InviteRecord, groupName: String? = nil) -> InviteData {
        InviteData(code: i.code, groupId: i.groupId, groupName: groupName ?? relations.groups[i.groupId]?.name ?? "", inviter: userRef(i.inviterId),
                   recipient: i.recipient, role: i.role, state: i.state.rawValue, createdAt: i.createdAt, expiresAt: i.expiresAt)
    }

    /// Redeems an invite (codes are case-insensitive; spaces and dashes ignored). Errors: `invite_not_found`,
    /// `invite_used`, `invite_expired`, `invite_revoked` (its inviter is no longer a member), `already_member` (the
    /// invite stays unused), `group_full`, `group_not_found`, `rate_limited` (too many unknown codes).
    /// A former member is reactivated (keeping the original join time). Answers with the group.
    ///
    /// Unknown codes are guesses: they count against the caller's, its source address's (`source`, nil for the server
    /// API) and the node's hourly limits (`RelationshipSettings.inviteRedeemFailuresPer…`), and once one is full every
    /// redemption is `rate_limited` (with `retryAfterMs`) before the code is looked at, a right one too.
    public func redeemInvite(userId: String, code rawCode: String, source: String? = nil,
                             completion: @escaping (Result<GroupData, GatewayError>) -> Void) {
        let limits = settings.relationships
        var counters = [AttemptLimiter.Counter(key: "redeem-user:" + userId, limit: limits.inviteRedeemFailuresPerUserPerHour),
                        AttemptLimiter.Counter(key: "redeem-node", limit: limits.inviteRedeemFailuresPerNodePerHour)]
        if let source {
            counters.append(AttemptLimiter.Counter(key: "redeem-address:" + source, limit: limits.inviteRedeemFailuresPerAddressPerHour))
        }
        let what = "too many failed invite redemptions"
        limitAttempt(.ask(counters), what) { [self] refused in
            if let refused { return completion(.failure(refused)) }
            redeem(userId: userId, code: rawCode, notFound: { [self] error in
                limitAttempt(.count(counters), what) { completion(.failure($0 ?? error)) }
            }, completion: completion)
        }
    }

    /// The redemption once the guessing limits let it go ahead; `notFound` answers an unknown code.
    private func redeem(userId: String, code rawCode: String, notFound: @escaping (GatewayError) -> Void,
                        completion: @escaping (Result<GroupData, GatewayError>) -> Void) {
        let code = rawCode.uppercased().filter { $0 != " " && $0 != "-" }
        lookUpInvite(code, failed: { completion(.failure($0)) }) { [self] found in
        guard let invite = found else {
            return notFound(GatewayError(.inviteNotFound, "no invite \"\(rawCode)\""))
        }
        guard loadedGroup(invite.groupId, plus: [userId], failed: { completion(.failure($0)) }, retry: { [self] in
            redeem(userId: userId, code: rawCode, notFound: notFound, completion: completion)
        }) else { return }
        let input = InviteMachine.Input.redeem(by: userId, isMember: relations.isActiveMember(userId, of: invite.groupId),
                                               inviterIsMember: relations.isActiveMember(invite.inviterId, of: invite.groupId))
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
