import GatewayProtocol

/// A user's connect codes as pure decisions: which code is current (kept until regenerated or, with a lifetime, until
/// it expires; a replaced code is revoked), when a retired code may be drawn again (after its quarantine) and what a
/// claim of a typed code means. No threads, clock,
/// store or randomness: the hub draws free codes, counts failed claims against the guessing limits
/// (`AttemptLimiter`; `Refusal.countsAsGuess` says which), and commits. Who owns a drawn code is the store's decision
/// (`upsertConnectCode`, docs/ARCHITECTURE.md).
struct ConnectCodeMachine {
    enum Refusal: Error, Equatable {
        /// Not 6 digits, or no such code.
        case invalid(String)
        /// Replaced, or past its lifetime.
        case expired
        case ownCode
        case alreadyFriends

        /// Whether the claim counts as a failed guess (a wrong or stale code); claiming one's own code or a contact's
        /// does not guess anything.
        var countsAsGuess: Bool {
            switch self {
            case .invalid, .expired: true
            case .ownCode, .alreadyFriends: false
            }
        }
    }

    /// Whether `code` connects at `now`.
    static func isLive(_ code: ConnectCodeRecord, now: Int64) -> Bool {
        code.revokedAt == nil && code.expiresAt.map { now < $0 } ?? true
    }

    /// Whether `code` (the record known for a drawn code; nil: none) may be issued at `now`: unknown, or retired at
    /// least `quarantineMs` ago. Until then whoever types it is told it expired, not connected with a stranger.
    static func isFree(_ code: ConnectCodeRecord?, now: Int64, quarantineMs: Int64) -> Bool {
        code?.isRetired(atOrBefore: now - quarantineMs) ?? true
    }

    /// The code to answer with when the user asks for its code; nil when a new one must be issued.
    static func current(_ code: ConnectCodeRecord?, regenerate: Bool, now: Int64) -> ConnectCodeRecord? {
        guard !regenerate, let code, code.expiresAt.map({ now < $0 }) ?? true else { return nil }
        return code
    }

    /// A new current code (`code`, drawn free by the caller) and the previous one revoked, both to commit with
    /// `connect_code_changed`.
    static func issue(code: String, to userId: String, replacing previous: ConnectCodeRecord?, lifetimeMs: Int64?,
                      now: Int64) -> (new: ConnectCodeRecord, revoked: ConnectCodeRecord?) {
        let revoked = previous.map { old -> ConnectCodeRecord in
            var old = old
            old.revokedAt = now
            return old
        }
        return (ConnectCodeRecord(code: code, userId: userId, createdAt: now, expiresAt: lifetimeMs.map { now + $0 }), revoked)
    }

    /// The code as typed, without the spaces and dashes people add; nil unless 6 digits.
    static func normalise(_ raw: String) -> String? {
        let code = raw.filter { $0 != " " && $0 != "-" }
        return code.count == 6 && code.allSatisfy({ $0.isASCII && $0.isNumber }) ? code : nil
    }

    /// What `claimant` typing `raw` means, given the record of the code (nil: none): the owner to connect with.
    /// Whether the two are contacts already is the caller's check once the owner is loaded (`Refusal.alreadyFriends`).
    static func claim(_ raw: String, record: ConnectCodeRecord?, by claimant: String, now: Int64) -> Result<String, Refusal> {
        guard normalise(raw) != nil, let record else { return .failure(.invalid(raw)) }
        guard isLive(record, now: now) else { return .failure(.expired) }
        guard record.userId != claimant else { return .failure(.ownCode) }
        return .success(record.userId)
    }
}

extension GatewayError {
    /// The wire error for a refused claim.
    init(_ refusal: ConnectCodeMachine.Refusal) {
        switch refusal {
        case .invalid(let raw): self.init(.connectCodeInvalid, "no connect code \"\(raw)\"")
        case .expired: self.init(.connectCodeExpired, "this connect code has expired; ask for the current one")
        case .ownCode: self.init(.selfRequest, "this is your own connect code")
        case .alreadyFriends: self.init(.alreadyFriends, "you are already connected")
        }
    }
}
